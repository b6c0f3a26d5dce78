import Foundation
import VaultCore
import VaultKit

/// The first screen: the rooms, grouped as `vault rooms` groups them in a shared vault (groups,
/// direct messages, your rooms, not joined), each with how long ago, the last message and its
/// author, `●` and `(N new)` for unread; the diary (Tab) as a list of entries under their
/// dates, with the month's calendar beside it (days with entries marked, the streak).
struct HomeState {
    enum Tab { case rooms, diary }
    enum Row {
        case heading(String)
        /// The room at this index of `rooms`.
        case room(Int)
    }

    /// The rooms of the list, each made into a summary only when it is drawn or chosen: a vault
    /// of 20,000 rooms has its first screen without 20,000 summaries.
    struct Rooms {
        /// The listing's rows walked so far: as far as the screen has needed.
        private var listed: [RoomListing.Row] = []
        /// The rest of the walk; it also keeps the listing cache's bytes the kept rows read.
        private var rest: RoomListing.Iterator?
        var made: [RoomSummary?] = []

        init() {}
        init(_ listing: RoomListing) {
            rest = listing.makeIterator()
            made = Array(repeating: nil, count: listing.count)
        }
        init(_ summaries: [RoomSummary]) { made = summaries }

        var count: Int { made.count }

        /// The row at `i`, walking the listing that far.
        private mutating func row(_ i: Int) -> RoomListing.Row? {
            while listed.count <= i, let next = rest?.next() { listed.append(next) }
            return listed.indices.contains(i) ? listed[i] : nil
        }

        mutating func summary(_ i: Int) -> RoomSummary? {
            if let made = made[i] { return made }
            guard let summary = row(i)?.summary() else { return nil }
            made[i] = summary
            return summary
        }

        /// A room's path, read from its kept line when it has one.
        mutating func path(_ i: Int) -> String? {
            if let made = made[i] { return made.path }
            guard let row = row(i) else { return nil }
            return row.kept?.pathText ?? summary(i)?.path
        }
    }

    var tab = Tab.rooms
    var rows: [Row] = []
    var selected = 0
    var top = 0
    var entries: [DiarySummary] = []
    var entrySelected = 0
    var entryTop = 0
    var calendar: DiaryCalendar?
    /// The rooms' and entries' folders' stamps when last listed: a change elsewhere lists again.
    var stamp: [String: FileStamp] = [:]
    var rooms = Rooms()
    /// Whether `entries` and `calendar` are the diary as last listed (else listed when shown).
    var diaryListed = false

    var selectedRoom: RoomSummary? {
        mutating get {
            guard rows.indices.contains(selected), case .room(let i) = rows[selected] else { return nil }
            return rooms.summary(i)
        }
    }
}

/// A folder's or file's modification time and size, to notice what another program changed.
struct FileStamp: Equatable {
    var seconds: Int
    var nanoseconds: Int
    var size: Int64

    init?(_ path: String) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        seconds = info.st_mtim.tv_sec
        nanoseconds = info.st_mtim.tv_nsec
        size = Int64(info.st_size)
    }
}

extension VaultApp {
    func reloadHome() {
        let listing = vault.roomListing(watcher: session.watcher)
        let previous = home.selectedRoom?.path
        var rows: [HomeState.Row] = []
        if let me, listing.hasSharedRooms {
            // Sections need every room's members: each one made into a summary.
            var all: [RoomSummary] = []
            for (heading, rooms) in RoomSections(listing.map { $0.summary() }, me: me).titled(words) where !rooms.isEmpty {
                rows.append(.heading(heading))
                rows += rooms.indices.map { .room(all.count + $0) }
                all += rooms
            }
            home.rooms = HomeState.Rooms(all)
        } else {
            home.rooms = HomeState.Rooms(listing)
            rows = (0..<home.rooms.count).map { .room($0) }
        }
        listing.saveCache()
        home.rows = rows
        if let previous, let at = rows.firstIndex(where: { if case .room(let i) = $0 { home.rooms.path(i) == previous } else { false } }) {
            home.selected = at
        } else {
            home.selected = rows.firstIndex(where: { if case .room = $0 { true } else { false } }) ?? 0
        }
        // The diary is listed when its tab is shown: the rooms' first screen does not wait for it.
        home.diaryListed = false
        if home.tab == .diary { listDiary() }
        home.stamp = folderStamps()
    }

    /// The diary's entries and the month's calendar.
    func listDiary() {
        home.entries = (try? DiaryQuery().entries(in: vault, watcher: session.watcher)) ?? []
        home.entrySelected = min(home.entrySelected, max(0, home.entries.count - 1))
        let today = Timestamp(date: options.now(), timeZone: options.zone).localDate
        if let month = try? DiaryCalendar.month(nil, today: today) {
            home.calendar = DiaryCalendar(
                month: month, entryDays: DiaryCalendar.entryDays(home.entries), today: today, locale: options.locale)
        }
        home.diaryListed = true
    }

    func folderStamps() -> [String: FileStamp] {
        var stamps: [String: FileStamp] = [:]
        for folder in [VaultPath.rooms, VaultPath.diary] {
            stamps[folder] = FileStamp(vault.absolute(folder))
        }
        stamps[".git/HEAD"] = FileStamp(vault.absolute(".git/index"))
        return stamps
    }

    /// Lists again when a folder or the index changed (a file added, removed or renamed; a
    /// commit); reads the open room again when its file changed.
    func lookForChanges() {
        if folderStamps() != home.stamp, room?.streaming == nil { reloadHome() }
        if let current = room, current.streaming == nil, FileStamp(vault.absolute(current.path)) != current.stamp {
            reloadRoom(current.path, keepCompose: true)
        }
    }

    func drawHome(_ canvas: inout Canvas) {
        let title = home.tab == .rooms ? words.rooms : words.diary
        canvas.put(" vault ", row: 0, column: 0, style: CellStyle(bold: true, reverse: true))
        var x = canvas.put(" ", row: 0, column: 7)
        for (tab, name) in [(HomeState.Tab.rooms, words.rooms), (.diary, words.diary)] {
            x = canvas.put(" \(name) ", row: 0, column: x, style: tab == home.tab ? .bold : .dim)
        }
        _ = title
        let listTop = 2
        let listRows = max(1, canvas.rows - 4)
        switch home.tab {
        case .rooms: drawRooms(&canvas, top: listTop, height: listRows)
        case .diary: drawDiary(&canvas, top: listTop, height: listRows)
        }
        drawFooter(&canvas, keys: "↑↓ move  Enter open  Tab rooms/diary  / search  n new room  w write  e edit  Ctrl-P commands  ? keys  q quit")
    }

    private func drawRooms(_ canvas: inout Canvas, top: Int, height: Int) {
        if home.rows.isEmpty {
            canvas.put(words.noRooms, row: top, column: 2, style: .dim)
            canvas.cursor = (top, 0)
            return
        }
        if home.selected < home.top { home.top = home.selected }
        if home.selected >= home.top + height { home.top = home.selected - height + 1 }
        let now = options.now()
        for (i, row) in home.rows.enumerated().dropFirst(home.top).prefix(height) {
            let y = top + i - home.top
            switch row {
            case .heading(let text):
                canvas.put(text, row: y, column: 1, style: .colored(4, bold: true))
            case .room(let index):
                guard let room = home.rooms.summary(index) else { continue }
                let selected = i == home.selected
                let mark = room.unread > 0 ? "●" : " "
                canvas.put(mark, row: y, column: 0, style: .colored(1, bold: true))
                let when = room.lastActivity.flatMap { Timestamp(frontMatter: $0) }
                    .map { RelativeTime.string(for: $0.date, now: now, locale: options.locale, timeZone: options.zone) } ?? ""
                let whenWidth = 12
                let titleWidth = max(8, min(32, canvas.columns / 3))
                var x = canvas.put(roomTitle(room), row: y, column: 2, style: room.unread > 0 ? .bold : .plain, limit: titleWidth)
                x = max(x, 2 + titleWidth) + 1
                x = canvas.put(DisplayWidth.clip(when, whenWidth), row: y, column: x, style: .dim, limit: whenWidth)
                x = max(x, 3 + titleWidth + whenWidth) + 1
                let preview = room.listingPreview(words: words, locale: options.locale)
                canvas.put(Canvas.oneLine(preview), row: y, column: x, style: room.unread > 0 ? .plain : .dim)
                if selected {
                    canvas.fill(row: y, from: 1, style: .selected)
                    canvas.cursor = (y, 1)
                }
            }
        }
    }

    /// A direct room is named by the other person first, as a messenger names it.
    func roomTitle(_ room: RoomSummary) -> String {
        guard room.kind == .direct, let me, let other = room.members.first(where: { !Workspace.contains([$0], me) })
        else { return room.title }
        return other == room.title ? other : other + " · " + room.title
    }

    private func drawDiary(_ canvas: inout Canvas, top: Int, height: Int) {
        let calendarWidth = 7 * DiaryCalendar.cell
        let showCalendar = canvas.columns >= 68 && home.calendar != nil
        let listWidth = showCalendar ? canvas.columns - calendarWidth - 2 : canvas.columns
        if home.entries.isEmpty {
            canvas.put(words.noEntries, row: top, column: 2, style: .dim)
            canvas.cursor = (top, 0)
        } else {
            // Two rows an entry: the date and title, then the preview and tags.
            let perPage = max(1, height / 2)
            if home.entrySelected < home.entryTop { home.entryTop = home.entrySelected }
            if home.entrySelected >= home.entryTop + perPage { home.entryTop = home.entrySelected - perPage + 1 }
            for (i, entry) in home.entries.enumerated().dropFirst(home.entryTop).prefix(perPage) {
                let y = top + (i - home.entryTop) * 2
                let date = entry.date.map {
                    DateText.string(for: $0.noonUTC, style: .day, locale: options.locale, timeZone: TimeZone(identifier: "UTC")!)
                } ?? ""
                var x = canvas.put(date, row: y, column: 2, style: .colored(6), limit: listWidth - 2)
                x = canvas.put("  " + entry.title, row: y, column: x, style: .bold, limit: listWidth - x)
                var rest = Canvas.oneLine(entry.preview)
                if !entry.tags.isEmpty { rest += "  " + entry.tags.map { "#" + $0 }.joined(separator: " ") }
                canvas.put(rest, row: y + 1, column: 4, style: .dim, limit: listWidth - 4)
                if i == home.entrySelected {
                    canvas.fill(row: y, from: 1, to: listWidth, style: .selected)
                    canvas.cursor = (y, 1)
                }
            }
        }
        if showCalendar, let calendar = home.calendar {
            let x = canvas.columns - calendarWidth - 1
            var y = top
            for line in calendar.lines(painting: { day, text in day.entries > 0 ? text : text }) {
                canvas.put(line, row: y, column: x)
                y += 1
            }
            // Days with entries in green, today in reverse, as `vault diary calendar` paints them.
            for (w, week) in calendar.weeks.enumerated() {
                for (d, day) in week.enumerated() {
                    guard let day, day.entries > 0 || day.isToday else { continue }
                    let row = top + 2 + w
                    let column = x + d * DiaryCalendar.cell
                    let style = day.isToday ? CellStyle.selected : .colored(2, bold: true)
                    for c in column..<min(column + DiaryCalendar.cell, canvas.columns) where canvas[row, c].character != " " {
                        canvas.fill(row: row, from: c, to: c + 1, style: style)
                    }
                }
            }
            y += 1
            for line in Wrap.lines(calendar.summary, width: calendarWidth) {
                canvas.put(line, row: y, column: x, style: .dim)
                y += 1
            }
        }
    }

    func handleHome(_ key: Key) {
        switch key {
        case .text("q"), .ctrl("c"), .ctrl("d"): quit()
        case .tab, .backTab:
            home.tab = home.tab == .rooms ? .diary : .rooms
            if home.tab == .diary, !home.diaryListed { listDiary() }
        case .up, .text("k"): moveHome(-1)
        case .down, .text("j"): moveHome(1)
        case .pageUp: moveHome(-max(1, rows - 5))
        case .pageDown: moveHome(max(1, rows - 5))
        case .home: moveHome(-home.rows.count - home.entries.count)
        case .end: moveHome(home.rows.count + home.entries.count)
        case .enter, .right:
            switch home.tab {
            case .rooms: if let room = home.selectedRoom { open(room: room.path) }
            case .diary: if home.entries.indices.contains(home.entrySelected) { edit(home.entries[home.entrySelected].path) }
            }
        case .text("e"):
            switch home.tab {
            case .rooms: if let room = home.selectedRoom { edit(room.path) }
            case .diary: if home.entries.indices.contains(home.entrySelected) { edit(home.entries[home.entrySelected].path) }
            }
        case .text("/"): openSearch()
        case .text("?"), .ctrl("_"): overlay = .help
        case .text("n"): askNewRoom()
        case .text("w"): writeEntry()
        case .text(":"): overlay = .palette(Palette(commands: Palette.commands(for: self)))
        default: break
        }
    }

    private func moveHome(_ by: Int) {
        switch home.tab {
        case .rooms:
            guard !home.rows.isEmpty else { return }
            var at = max(0, min(home.rows.count - 1, home.selected + by))
            // Headings are passed over.
            let step = by < 0 ? -1 : 1
            while case .heading = home.rows[at] {
                let next = at + step
                if next < 0 || next >= home.rows.count { at = home.selected; break }
                at = next
            }
            home.selected = at
        case .diary:
            home.entrySelected = max(0, min(home.entries.count - 1, home.entrySelected + by))
        }
    }

    /// A new diary entry for today in the person's editor (`vault today` opens today's first).
    func writeEntry() {
        terminal.leave()
        defer {
            terminal.enter()
            resize()
        }
        do {
            switch try DiaryWriting(vault: vault).today(editor: options.editor) {
            case .edited(let result): say(describe(result))
            case .written(let result): say("Saved \(result.path).")
            }
        } catch {
            say(error.description, error: true)
        }
        reloadHome()
    }
}
