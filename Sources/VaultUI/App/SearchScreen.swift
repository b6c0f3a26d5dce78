import Foundation
import VaultCore
import VaultKit

/// Search as you type across rooms and the diary: the query runs 30 ms after the last key
/// (on a thread of its own; the index when the vault has one, as `vault search`), one row a
/// file with its first hit: the room or entry, the speaker, the day, the line. Enter opens the
/// room at the message (an entry in the editor).
struct SearchState {
    struct Row {
        var path: String
        var room: String?
        var title: String
        var day: String
        var speaker: String
        var line: String
        var messageID: String?
    }

    var input = Compose()
    var rows: [Row] = []
    var selected = 0
    var top = 0
    var generation = 0
    /// When the next search is to start (30 ms after the last key: keys typed faster are one query).
    var due: Date?
    var running = false
    var again = false
    var summary = ""
    var error: String?
    /// Where to go back to with Esc.
    var from = VaultApp.Mode.home
}

extension VaultApp {
    func openSearch() {
        search.from = mode == .search ? search.from : mode
        mode = .search
    }

    func handleSearch(_ key: Key) {
        switch key {
        case .escape, .ctrl("c"):
            mode = search.from == .room && room != nil ? .room : .home
        case .enter:
            guard search.rows.indices.contains(search.selected) else { return }
            let hit = search.rows[search.selected]
            if let roomPath = hit.room {
                open(room: roomPath, jumpTo: hit.messageID)
            } else {
                mode = .home
                edit(hit.path)
            }
        case .up: search.selected = max(0, search.selected - 1)
        case .down: search.selected = min(max(0, search.rows.count - 1), search.selected + 1)
        case .pageUp: search.selected = max(0, search.selected - max(1, rows - 6))
        case .pageDown: search.selected = min(max(0, search.rows.count - 1), search.selected + max(1, rows - 6))
        case .text(let text): typed { $0.insert(text) }
        case .paste(let text): typed { $0.insert(Canvas.oneLine(text)) }
        case .backspace: typed { $0.backspace() }
        case .ctrl("w"): typed { $0.deleteWord() }
        case .ctrl("u"): typed { $0.deleteToLineStart() }
        case .left: search.input.left()
        case .right: search.input.right()
        default: break
        }
    }

    private func typed(_ change: (inout Compose) -> Void) {
        change(&search.input)
        search.due = Date().addingTimeInterval(0.03)
    }

    func startSearch() {
        search.due = nil
        let pattern = search.input.text
        guard !pattern.trimmingCharacters(in: .whitespaces).isEmpty else {
            search.rows = []
            search.summary = ""
            return
        }
        if search.running {
            search.again = true
            return
        }
        search.running = true
        search.generation += 1
        let generation = search.generation
        let vault = self.vault
        let mailbox = self.mailbox
        // The front end's search watcher (its `ProcessSettings`, as `vault search` has it): with
        // it a search through the index checks no file's stamp.
        let watcher = vault.settings.watcherCommand
        Thread {
            var query = SearchQuery(pattern: pattern)
            query.firstHitOnly = true
            do throws(VaultError) {
                let outcome = try Searching(index: .whenBuilt, watcherCommand: watcher).run(in: vault, query)
                mailbox.post(.searched(generation: generation, results: outcome.results, error: nil))
            } catch {
                mailbox.post(.searched(generation: generation, results: nil, error: error))
            }
        }.start()
    }

    func searched(generation: Int, results: SearchResults?, error: VaultError?) {
        search.running = false
        defer {
            if search.again {
                search.again = false
                startSearch()
            }
        }
        guard generation == search.generation else { return }
        search.error = error.map { Canvas.oneLine($0.description) }
        guard let results else { return }
        var rows: [SearchState.Row] = []
        for item in results.items.prefix(1000) {
            guard let hit = item.hits.first else { continue }
            let room: String? =
                switch item.kind {
                case .room: item.path
                case .volume: VaultPath.room(ofVolume: item.path)
                default: nil
                }
            var day = ""
            if let message = hit.message {
                day = DateText.string(for: message.timestamp.date, style: .shortDay, locale: options.locale, timeZone: options.zone)
            } else if let date = item.day {
                day = DateText.string(for: date.noonUTC, style: .shortDay, locale: options.locale, timeZone: TimeZone(identifier: "UTC")!)
            }
            let speaker = hit.message.map { $0.author?.name ?? words.role($0.role) } ?? (room == nil ? words.diary : "")
            rows.append(
                SearchState.Row(
                    path: item.path, room: room, title: item.title, day: day, speaker: speaker,
                    line: Canvas.oneLine(hit.text.trimmingCharacters(in: .whitespaces)), messageID: hit.message?.id))
        }
        search.rows = rows
        search.selected = min(search.selected, max(0, rows.count - 1))
        let files = results.itemCount
        search.summary = "\(files) \(files == 1 ? "file" : "files")" + (rows.count < files ? ", first \(rows.count) shown" : "")
    }

    func drawSearch(_ canvas: inout Canvas) {
        canvas.put(" search ", row: 0, column: 0, style: CellStyle(bold: true, reverse: true))
        let (lines, _, caret) = search.input.layout(width: canvas.columns - 12)
        canvas.put(lines.first ?? "", row: 0, column: 9)
        canvas.cursor = (0, 9 + caret)
        if let error = search.error {
            canvas.put(error, row: 1, column: 1, style: .colored(1))
        } else {
            canvas.put(search.summary + (search.running ? " …" : ""), row: 1, column: 1, style: .dim)
        }
        let height = max(1, (canvas.rows - 4) / 2)
        if search.selected < search.top { search.top = search.selected }
        if search.selected >= search.top + height { search.top = search.selected - height + 1 }
        for (i, row) in search.rows.enumerated().dropFirst(search.top).prefix(height) {
            let y = 2 + (i - search.top) * 2
            var x = canvas.put(row.title, row: y, column: 1, style: .bold, limit: canvas.columns / 2)
            x = canvas.put("  " + [row.speaker, row.day].filter { !$0.isEmpty }.joined(separator: " · "), row: y, column: x, style: .dim)
            _ = x
            canvas.put(row.line, row: y + 1, column: 3)
            if i == search.selected {
                canvas.fill(row: y, from: 0, style: .selected)
            }
        }
        drawFooter(&canvas, keys: "type to search  ↑↓ move  Enter open  Esc back")
    }
}
