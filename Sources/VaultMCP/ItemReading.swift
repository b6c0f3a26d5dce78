import Foundation
import VaultCore
import VaultKit

/// A room or diary entry as the `read` tool and `resources/read` give it, read by the library's
/// reading workflows (`RoomReading`, `EntryReading`) from disk at each call: a hand edit is
/// what the next read returns; a file git left conflict markers in is read as this machine's
/// side, with a note. Reading through the server leaves a room's unread marks (the person has
/// not seen those messages).
enum ItemReading {
    /// The item's text as a resource: the file, or this machine's side of a conflict.
    static func text(of item: VaultItem, in vault: Vault, cancellation: Cancellation) throws(ToolFailure) -> String {
        do {
            switch item {
            case .room(let path):
                return String(decoding: try RoomReading(vault: vault).read(path, cancellation: cancellation).room.bytes, as: UTF8.self)
            case .diaryEntry(let path):
                return String(decoding: try EntryReading(vault: vault).read(path, cancellation: cancellation).entry.bytes, as: UTF8.self)
            }
        } catch {
            throw ToolFailure(error)
        }
    }

    /// The item as JSON: a room's page of messages (`offset` from the start, or from the end
    /// when negative; `limit` of them), or an entry whole.
    static func read(
        _ item: VaultItem, in vault: Vault, offset: Int, limit: Int, cancellation: Cancellation = .never
    ) throws(ToolFailure) -> JSONValue {
        do throws(VaultError) {
            switch item {
            case .room(let path):
                let reading = RoomReading(vault: vault)
                // The last messages are read from the end of a long room alone.
                var page = try reading.read(
                    path, messages: offset < 0 && -offset <= limit ? .last(-offset) : offset < 0 ? .all : .range(offset: offset, count: limit),
                    cancellation: cancellation)
                if offset < 0 && -offset > limit {
                    let start = max(0, page.room.messages.count + offset)
                    page.messages = page.room.messages[start..<min(page.room.messages.count, start + limit)]
                }
                let room = page.room
                // Both versions of a message edited differently on two machines say so.
                var versions: [String: (version: Int, other: String)] = [:]
                for c in room.conflicts {
                    versions[c.original.id] = (1, c.other.id)
                    versions[c.other.id] = (2, c.original.id)
                }
                let messages = page.messages.map { m -> JSONValue in
                    [
                        "id": .string(m.id), "role": .string(m.role.rawValue), "kind": .optional(m.kind),
                        "time": .string(m.timestamp.text),
                        "author": .optional(m.author?.name), "status": .optional(m.status),
                        "unverified": .optional(page.unverified[m.id]),
                        "conflict": versions[m.id].map { v -> JSONValue in
                            ["version": .int(v.version), "other_version": .string(v.other)]
                        } ?? .null,
                        "text": .string(room.body(of: m) { line, problem in "⚠️ line \(problem.line): \(line)" }),
                    ]
                }
                let end = page.messages.endIndex
                return [
                    "kind": "room", "path": .string(path), "slug": .string(VaultPath.stem(of: path)),
                    "title": .string(room.title), "model": .optional(room.frontMatter?.string("model")),
                    "system": .optional(room.frontMatter?.string("system")),
                    "message_count": page.total.map(JSONValue.int) ?? .null,
                    "offset": page.offset.map(JSONValue.int) ?? .null, "messages": .array(messages),
                    "next_offset": page.total.map { end < $0 ? .int(end) : .null } ?? .null,
                    "pending_prompt": .optional(room.pendingPrompt),
                    "notes": .array(page.notes.map { .string($0.description) }),
                ]
            case .diaryEntry(let path):
                let (entry, notes) = try EntryReading(vault: vault).read(path, cancellation: cancellation)
                return [
                    "kind": "diary", "path": .string(path), "id": .optional(entry.id),
                    "date": .optional(entry.day?.description), "created": .optional(entry.created?.text),
                    "title": .string(entry.title), "tags": .array(entry.tags.map(JSONValue.string)),
                    "text": .string(entry.body.trimmingCharacters(in: .newlines)),
                    "notes": .array(notes.map { .string($0.description) }),
                ]
            }
        } catch {
            throw ToolFailure(error)
        }
    }
}

/// The `search` tool: `vault search`'s query, checked as the command checks it, run with the
/// command's engine and index policy (`Searching`: the index when the vault has one, brought up
/// to date first with what the search watcher saw change, or every file's stamp when there is no
/// watcher, so it never answers for a file a hand edit changed; else a scan).
enum SearchTool {
    static func run(_ args: Arguments, vault: Vault, cancellation: Cancellation) throws(ToolFailure) -> JSONValue {
        let zone = vault.config.timeZone
        var query = SearchQuery(pattern: try args.text("query"))
        query.isRegex = try args.flag("regex")
        query.tag = try args.optionalText("tag")
        query.author = try args.optionalText("author")
        query.since = try args.day("since", zone: zone)
        query.until = try args.day("until", zone: zone)
        if let role = try args.optionalText("role") {
            guard let r = Role(rawValue: role) else { throw ToolFailure("'role' must be user, assistant or system") }
            query.role = r
        }
        if let room = try args.optionalText("room") {
            guard case .room(let path) = try VaultTools.resolve(room, in: vault) else {
                throw ToolFailure("'room': \(room.debugDescription) is a diary entry, not a room")
            }
            query.scope = .item(path)
        } else if let kind = try args.optionalText("kind") {
            switch kind {
            case "rooms": query.scope = .rooms
            case "diary": query.scope = .diary
            default: throw ToolFailure("'kind' must be rooms or diary")
            }
        }
        let limit = try args.integer("limit", default: 50, in: 1...1000)
        let outcome: Searching.Outcome
        do throws(VaultError) {
            try query.validate()
            outcome = try Searching(index: .whenBuilt, watcherCommand: vault.settings.watcherCommand)
                .run(in: vault, query, cancellation: cancellation)
        } catch {
            throw ToolFailure(error)
        }
        var hits: [JSONValue] = []
        var total = 0
        for item in outcome.results.items {
            for hit in item.hits {
                total += 1
                guard hits.count < limit else { continue }
                var h: [String: JSONValue] = [
                    "path": .string(item.path), "title": .string(item.title),
                    "kind": .string(item.kind == .room ? "room" : "diary"), "line": .int(hit.line),
                    "text": .string(hit.text), "front_matter": .bool(hit.inFrontMatter),
                ]
                if let m = hit.message {
                    h["message_id"] = .string(m.id)
                    h["role"] = .string(m.role.rawValue)
                    if let kind = m.kind { h["message_kind"] = .string(kind) }
                    h["time"] = .string(m.timestamp.text)
                    if let author = m.author { h["author"] = .string(author.name) }
                }
                if let day = item.day { h["day"] = .string(day.description) }
                hits.append(.object(h))
            }
        }
        return .toolResult([
            "hits": .array(hits), "total_hits": .int(total), "items": .int(outcome.results.itemCount),
            "notes": .array(outcome.notes.map { .string($0.description) }),
        ])
    }
}
