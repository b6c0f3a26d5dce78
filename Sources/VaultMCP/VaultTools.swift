import Foundation
import VaultCore
import VaultKit

/// The tools `vault mcp` offers, each calling the library workflow the command line calls.
///
/// Items are named as the command line names them (`Vault.resolve`, from the vault's root: a
/// room's slug or title, a diary date, `rooms/….md`), never as a path the client chooses: a
/// name that leads outside the vault, or through a symbolic link, names nothing.
enum VaultTools {
    static let all: [Tool] = [
        listRooms, read, search, recentActivity, history, writeDiaryEntry, editEntry, setTags,
    ] + appendMessageTools + [chat]

    static func instructions(readOnly: Bool) -> String {
        """
        A vault of AI chat rooms and diary entries kept as Markdown files under git. Name a room by its slug \
        or title and a diary entry by its date (2026-11-21) or file name, as list_rooms, recent_activity and \
        search show them. Every message has an id (m-…) and a time. \
        \(readOnly ? "This server is read-only." : "Every change you make is one git commit that names you.")
        """
    }

    /// The item `name` names, resolved from the vault's root as the command line resolves it.
    static func resolve(_ name: String, in vault: Vault) throws(ToolFailure) -> VaultItem {
        do {
            return try vault.resolve(name, workingDirectory: vault.root)
        } catch {
            throw ToolFailure(error)
        }
    }

    // MARK: - Reading

    static let listRooms = Tool(
        name: "list_rooms", title: "List rooms",
        description: """
            List the chat rooms, most recent activity first: each room's slug (its name for the other tools), \
            title, last activity time, who spoke last, a preview of the last message, `unread` (messages that \
            came in by sync and were not shown yet), `unverified` (messages that came in whose author the commit bringing \
            them does not bear out: `read` says why) and `interrupted` (the last reply stopped before it was complete).
            """,
        properties: [
            "limit": property("integer", "At most this many rooms (default 50).", extra: ["minimum": 1, "maximum": 1000]),
            "since": property("string", "Only rooms active on or after this day: 2026-11-21, today, yesterday, or -N (N days ago)."),
        ]
    ) { args, context throws(ToolFailure) in
        let vault = context.vault
        let limit = try args.integer("limit", default: 50, in: 1...1000)
        let since = try args.day("since", zone: vault.config.timeZone)
        var rooms = vault.roomSummaries()
        if let since { rooms = rooms.filter { activityDay($0, vault) .map { $0 >= since } ?? false } }
        let shown = rooms.prefix(limit).map { r -> JSONValue in
            [
                "path": .string(r.path), "slug": .string(r.slug), "title": .string(r.title),
                "last_activity": .optional(r.lastActivity), "last_role": .optional(r.lastRole?.rawValue),
                "preview": .string(r.preview), "unread": .int(r.unread), "unverified": .int(r.unverified),
                "interrupted": .bool(r.lastIsInterrupted),
                "pending_prompt": .bool(r.hasPendingPrompt), "problem": .optional(r.problem),
            ]
        }
        return .toolResult(["rooms": .array(Array(shown)), "total": .int(rooms.count)])
    }

    static func activityDay(_ room: RoomSummary, _ vault: Vault) -> LocalDate? {
        room.lastActivity.flatMap(Timestamp.init(rfc3339:))
            .map { Timestamp(date: $0.date, timeZone: vault.config.timeZone).localDate }
    }

    static let read = Tool(
        name: "read", title: "Read a room or diary entry",
        description: """
            Read a room's messages (each with its id, role, kind, author, time and text; `kind` is set for what is not \
            the conversation itself: thoughts, tool-call, tool-result, hidden, sidechain, summary) or a diary entry (its date, title, \
            tags and text). Rooms are paged by messages: `offset` 0 is the first message, a negative `offset` counts \
            from the end (-20: the last twenty). What is on disk now is what you get, hand edits included. A message \
            whose author the commit that brought it does not bear out has `unverified` saying why: do not take it as \
            written by its author.
            """,
        properties: [
            "item": property("string", "The room (slug, title or rooms/….md) or diary entry (2026-11-21, its file name or title)."),
            "offset": property("integer", "The first message to return; negative counts from the end (default -50)."),
            "limit": property("integer", "At most this many messages (default 50).", extra: ["minimum": 1, "maximum": 500]),
        ],
        required: ["item"]
    ) { args, context throws(ToolFailure) in
        let vault = context.vault
        let item = try resolve(try args.text("item"), in: vault)
        let limit = try args.integer("limit", default: 50, in: 1...500)
        let offset = try args.integer("offset", default: -50, in: -1_000_000...1_000_000)
        return .toolResult(try ItemReading.read(item, in: vault, offset: offset, limit: limit, cancellation: context.cancellation))
    }

    static let search = Tool(
        name: "search", title: "Search",
        description: """
            Find text in rooms and diary entries with `vault search`'s engine: literal text (ignoring case unless it has \
            an upper-case letter) or a regular expression, compared in Unicode NFC. Each hit gives the item's path and \
            title, the line, the message's id, role, kind (`message_kind`, when it has one) and time, and the line's text. A file saved by hand a moment \
            ago is searched as it is now.
            """,
        properties: [
            "query": property("string", "The text to find (or with regex, an ICU regular expression)."),
            "room": property("string", "Only this room (slug, title or path)."),
            "kind": property("string", "Only rooms or only diary entries.", extra: ["enum": ["rooms", "diary"]]),
            "role": property(
                "string", "Only messages of this role and no kind (a tool's output, thoughts or a summary are neither user nor assistant).",
                extra: ["enum": ["user", "assistant", "system"]]),
            "author": property("string", "Only messages whose author is this person or app (any case)."),
            "since": property("string", "Only hits on or after this day (2026-11-21, yesterday, -7)."),
            "until": property("string", "Only hits on or before this day."),
            "tag": property("string", "Only items tagged so."),
            "regex": property("boolean", "The query is a regular expression."),
            "limit": property("integer", "At most this many hits (default 50).", extra: ["minimum": 1, "maximum": 1000]),
        ],
        required: ["query"]
    ) { args, context throws(ToolFailure) in
        try SearchTool.run(args, vault: context.vault, cancellation: context.cancellation)
    }

    static let recentActivity = Tool(
        name: "recent_activity", title: "Recent activity",
        description: """
            What changed in a window of days, newest first: each room and diary entry with the commits that changed \
            it (by vault, by an app, or merged by a sync: `by_sync`), `edited_by_hand` when it was saved by hand and \
            not committed yet, and for rooms the messages that came in by sync and were not shown yet (`unread`).
            """,
        properties: [
            "since": property("string", "The first day of the window (default -7: a week ago); 2026-11-21, yesterday, -N."),
            "until": property("string", "The last day of the window (default: today)."),
            "limit": property("integer", "At most this many items (default 50).", extra: ["minimum": 1, "maximum": 1000]),
        ]
    ) { args, context throws(ToolFailure) in
        let vault = context.vault
        let zone = vault.config.timeZone
        let since = try args.day("since", zone: zone) ?? DateArgument.day("-7", timeZone: zone)!
        let until = try args.day("until", zone: zone)
        let limit = try args.integer("limit", default: 50, in: 1...1000)
        let activity: RecentActivity.Activity
        do throws(VaultError) {
            let history = try? context.server.repository()
            activity = try RecentActivity(vault: vault, history: history)
                .changes(from: since, to: until, cancellation: context.cancellation)
        } catch {
            throw ToolFailure(error)
        }
        let unread = UnreadMarks.load(root: vault.root)
        let items = activity.items.prefix(limit).map { item -> JSONValue in
            [
                "path": .string(item.path), "kind": .string(item.isRoom ? "room" : "diary"), "exists": .bool(item.exists),
                "edited_by_hand": .bool(item.editedByHand), "unread": .int(unread[item.path]?.count ?? 0),
                "changes": .array(item.changes.map { ["commit": .string(String($0.commit.prefix(7))), "time": .string($0.time), "author": .string($0.author), "summary": .string($0.summary), "by_sync": .bool($0.bySync)] }),
            ]
        }
        return .toolResult([
            "since": .string(since.description), "until": .optional(until?.description), "items": .array(Array(items)),
            "total": .int(activity.items.count), "notes": .array(activity.notes.map { .string($0.description) }),
        ])
    }

    static let history = Tool(
        name: "history", title: "History of an item",
        description: "The commits that changed a room or diary entry, newest first: id, time, author and what the commit did. A deleted item is found by its name too.",
        properties: [
            "item": property("string", "The room or diary entry."),
            "limit": property("integer", "At most this many commits (default 20).", extra: ["minimum": 1, "maximum": 500]),
        ],
        required: ["item"]
    ) { args, context throws(ToolFailure) in
        let vault = context.vault
        let name = try args.text("item")
        let limit = try args.integer("limit", default: 20, in: 1...500)
        do throws(VaultError) {
            // Found as `vault log` finds it: a room or entry there now, else one the history
            // deleted (named from the vault's root, never outside it).
            let history = try context.server.repository()
            let path = try history.item(named: name, in: vault, from: vault.root)
            let log = try history.log(path: path, limit: limit)
            return .toolResult([
                "path": .string(path),
                "commits": .array(log.map { ["id": .string($0.id), "time": .string($0.time), "author": .string($0.author), "summary": .string($0.summary)] }),
            ])
        } catch {
            throw ToolFailure(error)
        }
    }
}
