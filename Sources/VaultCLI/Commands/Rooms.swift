import ArgumentParser
import Foundation
import VaultCore
import VaultKit

extension VaultCommand {
    struct Rooms: PagedCommand {
        static let configuration = CommandConfiguration(
            commandName: "rooms",
            abstract: "List the chat rooms, most recent activity first, with the last message.",
            discussion: """
                On a terminal (or with COLUMNS set) the rows are aligned and fitted to its width. Into a \
                pipe or a file each row is its fields whole, separated by tabs: \(RoomRow.pipedHelp). \
                --format prints each row as a template \
                of your own (like git for-each-ref --format); its fields:

                """ + ListingTemplate.help(RoomRow.fields))

        @OptionGroup var location: VaultLocation
        @OptionGroup var reading: ReadingOptions
        @OptionGroup var output: OutputOptions
        @OptionGroup var dates: DateRangeOptions
        @OptionGroup var limit: LimitOptions
        @OptionGroup var format: ListingFormatOptions

        func execute() throws {
            let template = try format.template(fields: RoomRow.fields, piped: RoomRow.piped)
            let session = try location.session(.readOnly)
            let vault = session.vault
            let (locale, zone) = try reading.resolve(for: vault)
            let style = try output.style()
            // A room's day is its last activity's, in the vault's zone.
            let (from, to) = try dates.days(in: vault.config.timeZone)
            // Asked which rooms changed since the last listing, instead of stamping every one.
            let watcher = session.watcher
            let now = Date()
            let words = ListingWords.of(locale)
            let columns = Terminal.columns
            // A mark, the date, the title, an icon and the preview, with a space between each:
            // the date column as wide as the locale's widest, never cut; the title's grows with the
            // width. Made for the first row shown (a pipe's rows need no layout, nor its dates' ICU).
            lazy var layout = ListingLayout(
                columns: columns, fixed: 7, date: ListingLayout.roomDateWidth(locale: locale, timeZone: zone))
            /// In a shared vault's list, a direct room is named by the other person first, as a
            /// messenger names a conversation: `박보검 · Just us`.
            var me: String?
            func title(of room: RoomSummary) -> String {
                guard room.kind == .direct, let me, let other = room.members.first(where: { !Workspace.contains([$0], me) })
                else { return room.title }
                return other == room.title ? other : other + " · " + room.title
            }
            func show(_ row: RoomRow) {
                let room = row.room
                let icon =
                    room.problem != nil ? "⚠️" : room.hasPendingPrompt ? "✍️" : room.lastRole?.icon ?? "  "
                // Messages that came in by sync and were not shown yet: a dot in the first column, a count.
                let mark = room.unread > 0 ? "●" : " "
                let when = Terminal.fit(row.when, layout.date)
                // A branch keeps its `· branch 2` when its title is cut, and says where it branched.
                let name = ListingLayout.fit(
                    Terminal.visible(title(of: room), singleLine: true), layout.title, keepingTail: room.branchedAt != nil)
                // (Once, when its first message is its last.)
                let preview = room.branchedAt.map {
                    "↳ " + ($0 == room.preview ? row.preview : DisplayWidth.clip($0, 24) + " · " + row.preview)
                } ?? row.preview
                if let columns, 7 + layout.date >= columns {
                    print(Terminal.clip("\(mark) \(when) \(name) \(icon) \(preview)", columns))
                } else if layout.rest == 0 {
                    // No column left for a preview: not even its `…`.
                    Terminal.line("\(mark) \(style.date(when)) \(style.title(name)) \(icon)")
                } else {
                    let rest = Terminal.clip(preview, layout.rest)
                    Terminal.line("\(mark) \(style.date(when)) \(style.title(name)) \(icon) \(rest)")
                }
            }
            let rooms: ArraySlice<RoomSummary>
            if !format.json, format.format == nil, from == nil, to == nil {
                // Every room, in the listing's order: each made into a row only as it is printed.
                let listing = vault.roomListing(watcher: watcher)
                // What this listing read goes into the cache once its rows are out.
                defer { listing.saveCache() }
                let count = min(listing.count, try limit.count(default: listing.count))
                Trace.mark("rooms: summaries ready")
                if let template {
                    // Into a pipe: a room that did not change is printed from its kept line.
                    return RoomRow.writePiped(
                        listing, count: count, template: template, now: now, locale: locale, zone: zone, words: words)
                }
                if count == 0 {
                    print(words.noRooms)
                    return
                }
                if !listing.hasSharedRooms {
                    // The first screen goes to the pager (when there is one) as soon as it is printed.
                    for row in listing.prefix(count) {
                        show(RoomRow(row.summary(), now: now, locale: locale, zone: zone, words: words))
                        Pager.pageIfScreenIsFull()
                    }
                    Trace.mark("listing: rows written")
                    return Terminal.keepUntilExit(listing)
                }
                rooms = listing.prefix(count).map { $0.summary() }[...]
            } else {
                let active = try RoomQuery(from: from, to: to).rooms(
                    in: vault, watcher: watcher, cancellation: Termination.cancellation)
                rooms = try limit.apply(active)
                Trace.mark("rooms: summaries ready")
            }
            if format.json { return try Terminal.json(Array(rooms)) }
            let rows = rooms.map { RoomRow($0, now: now, locale: locale, zone: zone, words: words) }
            Trace.mark("rooms: rows made")
            defer { Terminal.keepUntilExit(rows) }
            if let template { return template.write(rows) }
            if rows.isEmpty {
                print(words.noRooms)
                return
            }
            // A shared vault: rooms in groups, like a messenger's home screen (`RoomSections`).
            guard rows.contains(where: { !$0.room.members.isEmpty }) else { return rows.forEach(show) }
            me = try vault.identity().name
            let sections = RoomSections(rows.map(\.room), me: me!)
            var first = true
            for (heading, rooms) in sections.titled(words) where !rooms.isEmpty {
                Terminal.line((first ? "" : "\n") + style.title(heading))
                first = false
                for room in rooms { show(rows[sections.index[room.path]!]) }
            }
        }
    }
}

/// A row of `vault rooms`: the room, with what the listing shows of it.
struct RoomRow {
    let room: RoomSummary
    /// The last column: how many new messages, marks, then the last message's first line.
    let preview: String
    let now: Date
    let locale: String
    let zone: TimeZone

    /// How long ago, in the locale: `3분 전`, `yesterday`, a date once a week old. Made when
    /// asked for (ICU takes tens of microseconds a room; a pipe's rows do not show it).
    var when: String {
        room.lastActivity.flatMap { Timestamp(frontMatter: $0) }
            .map { RelativeTime.string(for: $0.date, now: now, locale: locale, timeZone: zone) } ?? ""
    }

    init(_ room: RoomSummary, now: Date, locale: String, zone: TimeZone, words: ListingWords? = nil) {
        self.room = room
        self.now = now
        self.locale = locale
        self.zone = zone
        self.preview = room.listingPreview(words: words ?? ListingWords.of(locale), locale: locale)
    }

    /// The row into a pipe: the fields that tell rooms apart and what a person reads, tab-separated.
    /// `piped`, with its tabs shown as `<TAB>`: for the help.
    static var pipedHelp: String { piped.replacingOccurrences(of: "%09", with: "<TAB>") }

    static let piped = "%(path)%09%(last_activity)%09%(title)%09%(preview)"

    /// Writes the first `count` rooms of `listing` as `template` (`piped`) says, a megabyte at a time. A
    /// room that did not change, whose preview the listing adds nothing to (no problem, author,
    /// interruption, unread count or copy) and whose fields hold no control character, is written
    /// from its kept line's bytes: no summary, row or string is made for it (a listing of 20,000
    /// rooms spent most of its time making them). Any other room is written by `template`.
    static func writePiped(
        _ listing: RoomListing, count: Int, template: ListingTemplate<RoomRow>, now: Date, locale: String,
        zone: TimeZone, words: ListingWords
    ) {
        typealias F = RoomListing.Field
        template.write(listing.prefix(count)) { listed, out in
            guard let row = listed.kept, row.field(F.problem.rawValue) == nil,
                row.field(F.lastAuthor.rawValue) == nil, !row.field(F.lastStatus.rawValue, is: "interrupted")
            else { return false }
            return KeptRow.appendPlain(row.path, to: &out) && out.appending(9)
                && KeptRow.appendPlain(row.field(F.lastActivity.rawValue), to: &out) && out.appending(9)
                && KeptRow.appendPlain(row.field(F.title.rawValue), to: &out) && out.appending(9)
                && KeptRow.appendPlain(row.field(F.preview.rawValue), to: &out)
        } row: { listed in
            RoomRow(listed.summary(), now: now, locale: locale, zone: zone, words: words)
        }
        Terminal.keepUntilExit(listing)
    }

    static let fields: [ListingField<RoomRow>] = [
        ListingField(name: "path", meaning: "the room's file (rooms/부산-여행.md)") { $0.room.path },
        ListingField(name: "slug", meaning: "its file name without .md (부산-여행)") { $0.room.slug },
        ListingField(name: "title", meaning: "its title") { $0.room.title },
        ListingField(name: "last_activity", meaning: "the last message's time (else created), as written") {
            $0.room.lastActivity ?? ""
        },
        ListingField(name: "when", meaning: "how long ago, in the locale (3분 전, yesterday)") { $0.when },
        ListingField(name: "role", meaning: "who wrote the last message (user, assistant, system)") {
            $0.room.lastRole?.rawValue ?? ""
        },
        ListingField(name: "author", meaning: "the last message's author (its header's author=: a shared room)") {
            $0.room.lastAuthor ?? ""
        },
        ListingField(name: "kind", meaning: "own (no members:), direct (two) or group (three or more)") {
            $0.room.kind.rawValue
        },
        ListingField(name: "members", meaning: "the people the room is shared with, comma-separated") {
            $0.room.members.joined(separator: ", ")
        },
        ListingField(name: "unread", meaning: "messages that came in by sync, not shown yet") {
            String($0.room.unread)
        },
        ListingField(name: "preview", meaning: "the last message's first line, with the terminal's marks") {
            $0.preview
        },
        ListingField(name: "branched_at", meaning: "a branch room's (fork_of:) first line: where it branched") {
            $0.room.branchedAt ?? ""
        },
    ]
}
