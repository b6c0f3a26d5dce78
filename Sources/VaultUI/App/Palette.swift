import Foundation
import VaultCore
import VaultKit

/// The command palette (Ctrl-P, or `:` on the list): every action by name, filtered as you
/// type, Enter runs the one selected.
struct Palette {
    struct Command {
        var name: String
        var keys: String
        var run: (VaultApp) -> Void
    }

    var commands: [Command]
    var filter = Compose()
    var selected = 0

    var shown: [Command] {
        let typed = filter.text.lowercased()
        guard !typed.isEmpty else { return commands }
        return commands.filter { $0.name.lowercased().contains(typed) }
    }

    static func commands(for app: VaultApp) -> [Command] {
        var list: [Command] = [
            Command(name: "New room", keys: "n") { $0.askNewRoom() },
            Command(name: "New diary entry (today's, in the editor)", keys: "w") { $0.writeEntry() },
            Command(name: "Search rooms and diary", keys: "/") { $0.openSearch() },
        ]
        if let path = app.selectedItem?.path {
            let isRoom = app.selectedItem.map { if case .room = $0 { true } else { false } } ?? false
            if isRoom {
                list.append(Command(name: "Rename this room", keys: "") { $0.askRename(path) })
            }
            list.append(Command(name: "Tag \(isRoom ? "this room" : "this entry")", keys: "") { $0.askTags() })
            list.append(Command(name: "Open in the editor", keys: "e / Ctrl-E") { $0.edit(path) })
            list.append(Command(name: "Export as Markdown", keys: "") { $0.askExport() })
        }
        list += [
            Command(name: "Sync now", keys: "") { $0.syncNow() },
            Command(name: "Resolve (finish a merge git left)", keys: "") { $0.resolve() },
            Command(name: "Keys", keys: "?") { $0.overlay = .help },
            Command(name: "Quit", keys: "q") { $0.quit() },
        ]
        return list
    }
}

extension VaultApp {
    /// The room open, else the row selected in the list.
    var selectedItem: VaultItem? {
        if mode == .room, let room { return .room(room.path) }
        guard mode == .home else { return nil }
        switch home.tab {
        case .rooms: return home.selectedRoom.map { .room($0.path) }
        case .diary:
            return home.entries.indices.contains(home.entrySelected) ? .diaryEntry(home.entries[home.entrySelected].path) : nil
        }
    }

    func askNewRoom() {
        overlay = .ask(
            Ask(title: "New room's title") { app, title throws(VaultError) in
                let path = try RoomCreation(vault: app.vault).create(title: title)
                app.reloadHome()
                app.open(room: path)
                app.say("made \(path)")
            })
    }

    func askRename(_ path: String) {
        overlay = .ask(
            Ask(title: "The room's new title") { app, title throws(VaultError) in
                _ = try RoomSettings(vault: app.vault).set("title", to: title, inRoom: path)
                app.reloadHome()
                if app.room?.path == path { app.reloadRoom(path, keepCompose: true) }
                app.room?.layoutWidth = 0
                app.say("renamed")
            })
    }

    func askTags() {
        guard let item = selectedItem else { return }
        overlay = .ask(
            Ask(title: "Tags to add (space between; -tag removes one)") { app, text throws(VaultError) in
                let words = text.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
                let adding = words.filter { !$0.hasPrefix("-") }.map { $0.hasPrefix("#") ? String($0.dropFirst()) : $0 }
                let removing = words.filter { $0.hasPrefix("-") }.map { String($0.dropFirst()) }
                _ = try Tagging(vault: app.vault, now: app.vault.now()).tag(item, adding: adding, removing: removing)
                app.reloadHome()
                app.say("tagged")
            })
    }

    func askExport() {
        guard let item = selectedItem else { return }
        let suggested = (options.workingDirectory as NSString).appendingPathComponent(
            VaultPath.stem(of: item.path) + "-export.md")
        var ask = Ask(title: "Export as Markdown to") { app, file throws(VaultError) in
            let destination = Vault.absolute(file, from: app.options.workingDirectory)
            if FileIO.exists(destination) {
                throw VaultError.io(path: destination, operation: "export to", reason: "a file is there already")
            }
            let markdown = Exporter(vault: app.vault).markdown([try ExportItem(item, in: app.vault)])
            try FileIO.write(Array(markdown.utf8), to: destination)
            app.say("exported to \(destination)")
        }
        ask.input = Compose(suggested)
        overlay = .ask(ask)
    }

    func syncNow() {
        if let sync {
            sync.syncNow()
            say("syncing…")
            return
        }
        say("this vault has no remote: `vault remote add URL` sets one up", error: true)
    }

    func resolve() {
        do {
            let finished = try session.resolving().run()
            say(finished.isEmpty ? "nothing to resolve" : finished.joined(separator: "; "))
            reloadHome()
            if let path = room?.path { reloadRoom(path, keepCompose: true) }
        } catch {
            say(error.description, error: true)
        }
    }

    // MARK: - Overlays

    func handleOverlay(_ key: Key, _ current: Overlay) {
        switch current {
        case .help:
            overlay = nil
        case .palette(var palette):
            switch key {
            case .escape, .ctrl("c"), .ctrl("p"):
                overlay = nil
                return
            case .up: palette.selected = max(0, palette.selected - 1)
            case .down: palette.selected = min(max(0, palette.shown.count - 1), palette.selected + 1)
            case .enter:
                let shown = palette.shown
                overlay = nil
                if shown.indices.contains(palette.selected) { shown[palette.selected].run(self) }
                return
            case .text(let text):
                palette.filter.insert(text)
                palette.selected = 0
            case .backspace:
                palette.filter.backspace()
                palette.selected = 0
            default: break
            }
            overlay = .palette(palette)
        case .ask(var ask):
            switch key {
            case .escape, .ctrl("c"):
                overlay = nil
                return
            case .enter:
                overlay = nil
                let text = ask.input.text.trimmingCharacters(in: .whitespaces)
                guard !text.isEmpty else { return }
                do {
                    try ask.action(self, text)
                } catch {
                    say(error.description, error: true)
                }
                return
            case .text(let text): ask.input.insert(text)
            case .paste(let text): ask.input.insert(Canvas.oneLine(text))
            case .backspace: ask.input.backspace()
            case .left: ask.input.left()
            case .right: ask.input.right()
            case .home, .ctrl("a"): ask.input.home()
            case .end: ask.input.end()
            case .ctrl("u"): ask.input.deleteToLineStart()
            case .ctrl("w"): ask.input.deleteWord()
            default: break
            }
            overlay = .ask(ask)
        }
    }

    static let keyHelp: [(String, String)] = [
        ("Rooms and diary", ""),
        ("↑ ↓  j k", "move"),
        ("Enter", "open the room (an entry: the editor)"),
        ("Tab", "rooms ↔ diary"),
        ("/", "search as you type"),
        ("n  w", "new room, new diary entry"),
        ("e", "open in the editor"),
        ("Ctrl-P  :", "commands"),
        ("q  Ctrl-C", "quit"),
        ("In a room", ""),
        ("Enter", "send"),
        ("Alt-Enter  Ctrl-J", "a new line"),
        ("Esc", "stop the reply; else back to the list"),
        ("PgUp PgDn  ↑ ↓", "scroll"),
        ("Ctrl-E", "the room in the editor"),
        ("Ctrl-R", "retry the last turn"),
        ("Ctrl-F", "search"),
        ("Ctrl-Z", "suspend (fg comes back)"),
    ]

    func drawOverlay(_ canvas: inout Canvas) {
        guard let overlay else { return }
        switch overlay {
        case .help:
            let lines = VaultApp.keyHelp.map { key, what in what.isEmpty ? key : "  " + DisplayWidth.fit(key, 20) + what }
            box(&canvas, title: "Keys (any key closes)", lines: lines.map { [Span($0)] }, selected: nil)
        case .palette(let palette):
            let shown = palette.shown
            var lines: [[Span]] = [[Span("> " + palette.filter.text, .bold)]]
            lines += shown.map { [Span($0.name), Span($0.keys.isEmpty ? "" : "  " + $0.keys, .dim)] }
            let (top, left) = box(&canvas, title: "Commands", lines: lines, selected: shown.isEmpty ? nil : palette.selected + 1)
            canvas.cursor = (top + 1, left + 2 + DisplayWidth.of(palette.filter.text))
        case .ask(let ask):
            let (top, left) = box(&canvas, title: ask.title, lines: [[Span(ask.input.text)]], selected: nil)
            canvas.cursor = (top + 1, left + ask.input.layout(width: 1000).caretColumn)
        }
    }

    /// A framed box in the middle of the screen; returns its first inner row and column.
    @discardableResult
    private func box(_ canvas: inout Canvas, title: String, lines: [[Span]], selected: Int?) -> (Int, Int) {
        let widest = lines.map { $0.reduce(0) { $0 + DisplayWidth.of($1.text) } }.max() ?? 0
        let width = min(canvas.columns - 2, max(50, DisplayWidth.of(title) + 6, widest + 4))
        let height = min(canvas.rows - 2, lines.count + 2)
        let top = max(0, (canvas.rows - height) / 2)
        let left = max(0, (canvas.columns - width) / 2)
        for y in top..<(top + height) {
            canvas.put(String(repeating: " ", count: width), row: y, column: left)
        }
        canvas.put("┌" + String(repeating: "─", count: width - 2) + "┐", row: top, column: left, style: .dim)
        canvas.put(" " + title + " ", row: top, column: left + 2, style: .bold)
        canvas.put("└" + String(repeating: "─", count: width - 2) + "┘", row: top + height - 1, column: left, style: .dim)
        for (i, spans) in lines.prefix(height - 2).enumerated() {
            let y = top + 1 + i
            canvas.put("│", row: y, column: left, style: .dim)
            canvas.put("│", row: y, column: left + width - 1, style: .dim)
            var x = left + 2
            for span in spans { x = canvas.put(span.text, row: y, column: x, style: span.style, limit: left + width - 2 - x) }
            if i == selected { canvas.fill(row: y, from: left + 1, to: left + width - 1, style: .selected) }
        }
        return (top + 1, left + 2)
    }
}
