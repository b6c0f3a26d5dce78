import Foundation
import VaultCore
import VaultKit

/// A room open: its transcript (read from its end, as `vault show` reads a long room), the
/// compose box, and a reply streaming in place.
struct RoomState {
    var path: String
    var page: RoomReading.Page
    /// How many messages from the end were read (more as the person scrolls up).
    var loaded: Int
    var lines: [TextLine] = []
    /// The width `lines` were laid out for (0: lay out again).
    var layoutWidth = 0
    /// The first message `lines` hold: a room opens with only its last screens laid out, the
    /// rest when the person scrolls up or jumps (0: every message read).
    var laidFrom = 0

    /// Whether the room has messages before the page's: not read (a long room read from its
    /// end), or read and not on the page.
    var hasOlder: Bool { page.room.elision != nil || page.messages.startIndex > 0 }
    /// Lines scrolled up from the end (0: the newest at the bottom).
    var scroll = 0
    var compose = Compose()
    /// The room's pending prompt when the compose box was filled from it: sent as it is, it is
    /// the pending prompt that is sent (and taken from below the marker).
    var pending: String?
    var streaming: Streaming?
    /// The room's file's stamp when read: another program's change reads it again.
    var stamp: FileStamp?
    /// When the draft is to be saved (half a second after the last key).
    var draftDue: Date?
    /// A message to jump to (a search hit): scrolled into view once laid out.
    var jumpTo: String?
    /// Whether people share the room (what is typed is said to them).
    var shared: Bool

    struct Streaming {
        var question: String
        var waiting: String? = "waiting for the reply…"
        let cancellation: Cancellation
        /// The reply's complete lines, laid out as they came (the last few thousand).
        var body: BodyLayout
        /// What came after the last line break.
        var partial = ""

        init(question: String, cancellation: Cancellation, width: Int) {
            self.question = question
            self.cancellation = cancellation
            body = BodyLayout(width: width, id: "")
        }

        mutating func add(_ text: String) {
            partial += text
            guard partial.contains("\n") else { return }
            var pieces = partial.split(separator: "\n", omittingEmptySubsequences: false)
            partial = String(pieces.removeLast())
            for line in pieces { body.append(line) }
            body.keepLast(4000)
        }
    }
}

extension VaultApp {
    static let firstPage = 200

    func open(room path: String, jumpTo id: String? = nil) {
        if let current = room, current.path != path { keepDraft(current) }
        guard reloadRoom(path, keepCompose: false) else { return }
        room?.jumpTo = id
        if let draft = loadDraft(path) {
            room?.compose = Compose(draft)
        } else if let pending = room?.page.room.pendingPrompt, !pending.isEmpty {
            room?.compose = Compose(pending)
            room?.pending = pending
        }
        mode = .room
        status = nil
    }

    /// Reads the room again (after a turn, a sync, another program's change); false when it
    /// cannot be read (said on the status line).
    @discardableResult
    func reloadRoom(_ path: String, keepCompose: Bool, loading count: Int? = nil) -> Bool {
        let want = count ?? max(room?.path == path ? room?.loaded ?? 0 : 0, VaultApp.firstPage)
        let reading = RoomReading(vault: vault)
        do {
            let page = try reading.read(path, messages: .last(want))
            reading.markRead(path)
            let shared = !Workspace.members(of: page.room.frontMatter).isEmpty
            var state = RoomState(path: path, page: page, loaded: want, shared: shared)
            state.stamp = FileStamp(vault.absolute(path))
            if keepCompose, let old = room, old.path == path {
                state.compose = old.compose
                state.pending = old.pending
                state.scroll = old.scroll
                state.streaming = old.streaming
                state.draftDue = old.draftDue
                state.jumpTo = old.jumpTo
            }
            room = state
            return true
        } catch {
            say(error.description, error: true)
            return false
        }
    }

    func drawRoom(_ canvas: inout Canvas) {
        guard var state = room else { return }
        let width = canvas.columns
        let need = canvas.rows * 2 + state.scroll
        if state.layoutWidth != width || (state.laidFrom > 0 && (state.lines.count < need || state.jumpTo != nil)) {
            // From the end, as many messages as the screen needs (doubling), or all of them
            // once the person scrolls up past them or jumps to one.
            let conflicts = Set(state.page.room.conflicts.map(\.other.id))
            let messages = state.page.messages
            var take = state.layoutWidth == width || state.jumpTo != nil ? messages.count : 8
            while true {
                // (The page's messages may be a slice of the room's: counted from its start.)
                let from = messages.index(messages.endIndex, offsetBy: -take, limitedBy: messages.startIndex) ?? messages.startIndex
                state.lines = TranscriptLayout.lines(
                    messages[from...], width: width, locale: options.locale, zone: options.zone, me: me,
                    unverified: state.page.unverified, conflicts: conflicts)
                state.laidFrom = messages.distance(from: messages.startIndex, to: from)
                if state.laidFrom == 0 || state.lines.count >= need { break }
                take *= 2
            }
            state.layoutWidth = width
        }
        // The header: the title, and who or what answers.
        let front = state.page.room.frontMatter
        let members = Workspace.members(of: front)
        var about = members.isEmpty ? (front?.string("model").map { "model " + $0 } ?? "") : members.joined(separator: ", ")
        if let total = state.page.total { about += (about.isEmpty ? "" : " · ") + "\(total) messages" }
        var x = canvas.put(" " + state.page.room.title + " ", row: 0, column: 0, style: CellStyle(bold: true, reverse: true))
        x = canvas.put("  " + about, row: 0, column: x, style: .dim)
        _ = x

        // The compose box: up to six rows, at the bottom above the status and keys.
        let boxWidth = width - 2
        let (composeRows, caretRow, caretColumn) = state.compose.layout(width: boxWidth)
        let shownRows = min(max(composeRows.count, 1), 6)
        let composeTop = canvas.rows - 2 - shownRows - 1
        let firstShown = max(0, min(caretRow - shownRows + 1, composeRows.count - shownRows))

        // The transcript fills what is left, its end at the bottom: the room's lines, then a
        // streaming reply's, read in place (a frame copies only the rows it shows, however long
        // the reply has grown).
        var parts = [state.lines]
        if let streaming = state.streaming { parts += streamingLines(streaming, width: width) }
        let count = parts.reduce(0) { $0 + $1.count }
        func line(_ index: Int) -> TextLine {
            var index = index
            for part in parts {
                if index < part.count { return part[index] }
                index -= part.count
            }
            return .empty
        }
        let height = max(1, composeTop - 1)
        if let id = state.jumpTo, let at = state.lines.firstIndex(where: { $0.messageID == id }) {
            state.scroll = max(0, count - at - height / 2)
            state.jumpTo = nil
        }
        state.scroll = max(0, min(state.scroll, max(0, count - height)))
        let end = count - state.scroll
        let start = max(0, end - height)
        for (i, index) in (start..<end).enumerated() {
            var column = 0
            for span in line(index).spans {
                column = canvas.put(span.text, row: 1 + i + (height - (end - start)), column: column, style: span.style)
            }
        }
        if state.scroll > 0 {
            canvas.put("↓ \(state.scroll) more lines below (End)", row: composeTop - 1, column: 2, style: .dim)
        } else if start == 0, state.hasOlder {
            canvas.put("↑ older messages: PgUp", row: 1, column: 2, style: .dim)
        }

        // The box itself: a rule, the rows, the caret.
        let label = state.streaming != nil ? " Esc stops the reply " : state.shared ? " say to the room (@assistant asks the model) " : " message "
        canvas.put(String(repeating: "─", count: width), row: composeTop, column: 0, style: .dim)
        canvas.put(label, row: composeTop, column: 2, style: .dim)
        for (i, text) in composeRows[firstShown..<min(composeRows.count, firstShown + shownRows)].enumerated() {
            canvas.put(text, row: composeTop + 1 + i, column: 1)
        }
        if state.compose.characters.isEmpty, state.streaming == nil {
            canvas.put("Type a message; Enter sends, Alt-Enter or Ctrl-J a new line", row: composeTop + 1, column: 1, style: .dim)
        }
        canvas.cursor = (composeTop + 1 + caretRow - firstShown, 1 + caretColumn)
        room = state
        drawFooter(&canvas, keys: "Enter send  Alt-Enter new line  Esc back/stop  PgUp/PgDn scroll  Ctrl-E editor  Ctrl-R retry  Ctrl-F search  Ctrl-P commands")
    }

    /// A streaming reply's lines in three parts: the question and the reply's heading, the lines
    /// laid out so far (the reply's own array, not copied), the line still arriving.
    private func streamingLines(_ streaming: RoomState.Streaming, width: Int) -> [[TextLine]] {
        var head: [TextLine] = [.empty, TextLine([Span("you", CellStyle(bold: true, color: 4))])]
        head += TranscriptLayout.body(streaming.question, width: width, id: "")
        head += [.empty, TextLine([Span("reply", CellStyle(bold: true, color: 2))])]
        var tail = streaming.body.preview(Substring(streaming.partial + "▍"))
        if let waiting = streaming.waiting { tail.append(TextLine([Span("  " + waiting, .dim)])) }
        return [head, streaming.body.lines, tail]
    }

    func handleRoom(_ key: Key) {
        guard room != nil else {
            mode = .home
            return
        }
        if room?.streaming != nil {
            switch key {
            case .escape, .ctrl("c"):
                room?.streaming?.cancellation.cancel()
                say("stopping the reply: what arrived is kept")
                return
            default: break
            }
        }
        switch key {
        case .enter: send()
        case .newline: edited { $0.insert("\n") }
        case .text(let text): edited { $0.insert(text) }
        case .paste(let text): edited { $0.insert(text) }
        case .backspace: edited { $0.backspace() }
        case .delete: edited { $0.deleteForward() }
        case .ctrl("w"): edited { $0.deleteWord() }
        case .ctrl("u"): edited { $0.deleteToLineStart() }
        case .left: room?.compose.left()
        case .right: room?.compose.right()
        case .home, .ctrl("a"): room?.compose.home()
        case .ctrl("e"):
            if let path = room?.path, room?.streaming == nil {
                keepDraftFile()
                edit(path)
            }
        case .end:
            if room?.scroll ?? 0 > 0 { room?.scroll = 0 } else { room?.compose.end() }
        case .up:
            if room?.compose.up() == false { room?.scroll += 1 }
        case .down:
            if room?.compose.down() == false, let scroll = room?.scroll { room?.scroll = max(0, scroll - 1) }
        case .pageUp: scrollUp(by: max(1, rows - 8))
        case .pageDown:
            if let scroll = room?.scroll { room?.scroll = max(0, scroll - max(1, rows - 8)) }
        case .ctrl("r"): retry()
        case .ctrl("f"): openSearch()
        case .ctrl("c"):
            quit()
        case .escape:
            // Back to the list; the draft stays with the room.
            if let current = room { keepDraft(current) }
            room = nil
            mode = .home
            reloadHome()
        default: break
        }
    }

    private func edited(_ change: (inout Compose) -> Void) {
        guard room != nil else { return }
        change(&room!.compose)
        room?.draftDue = Date().addingTimeInterval(0.5)
    }

    private func scrollUp(by lines: Int) {
        guard var state = room else { return }
        state.scroll += lines
        let height = max(1, rows - 6)
        if state.laidFrom == 0, state.scroll > state.lines.count - height, state.hasOlder {
            // Older messages: read further back.
            let scroll = state.scroll
            let before = state.lines.count
            if reloadRoom(state.path, keepCompose: true, loading: state.loaded * 4) {
                room?.scroll = scroll
                room?.layoutWidth = 0
                _ = before
            }
            return
        }
        room = state
    }

    // MARK: - Sending

    /// Enter: the compose box's text to the model (a room of one's own) or to the people (a
    /// shared room; `@assistant …` asks the model).
    func send() {
        guard var state = room, state.streaming == nil else { return }
        let text = state.compose.text
        guard !state.compose.isEmpty else { return }
        if state.shared, !Posting.asksModel(text, model: state.page.room.frontMatter?.string("model")) {
            do {
                let posted = try Posting(vault: vault).post(text, to: state.path, attachments: [], environment: options.environment)
                state.compose.clear()
                state.pending = nil
                room = state
                removeDraft(state.path)
                say("said in \(posted.path)")
                sync?.syncNow()
                reloadRoom(state.path, keepCompose: true)
                room?.scroll = 0
            } catch {
                say(error.description, error: true)
            }
            return
        }
        // The pending prompt unchanged: it is what is sent (and taken from below the marker).
        let message: String? = state.pending == text ? nil : text
        startTurn(question: text, message: message, retrying: false)
    }

    func retry() {
        guard room?.streaming == nil else { return }
        startTurn(question: "(again)", message: nil, retrying: true)
    }

    private func startTurn(question: String, message: String?, retrying: Bool) {
        guard let state = room else { return }
        let path = state.path
        let cancellation = Cancellation(whenever: { Termination.requested })
        room?.streaming = RoomState.Streaming(
            question: retrying ? "" : question, cancellation: cancellation, width: columns)
        room?.scroll = 0
        if !retrying {
            room?.compose.clear()
            room?.pending = nil
            removeDraft(path)
        }
        let vault = self.vault
        let mailbox = self.mailbox
        let environment = options.environment
        let shared = state.shared
        Thread {
            var failure: VaultError?
            var truncated = false
            do throws(VaultError) {
                let read = try ChatTurn.read(path, in: vault)
                var turn = try vault.chatTurn(
                    path, read, provider: nil, model: nil, onWait: { mailbox.post(.replyWait($0)) }, cancellation: cancellation)
                if shared { turn.author = try vault.me(environment: environment).author }
                let outcome =
                    retrying
                    ? try turn.retry { mailbox.post(.replyText($0)) }
                    : try turn.run(message: message, attachments: []) { mailbox.post(.replyText($0)) }
                truncated = outcome.reply.truncation != nil
            } catch {
                failure = error
            }
            mailbox.post(.replyDone(path: path, error: failure, truncated: truncated))
        }.start()
    }

    func replyFinished(path: String, error: VaultError?, truncated: Bool) {
        let question = room?.streaming?.question ?? ""
        room?.streaming = nil
        if let error {
            if case .provider(let failure, let kept) = error, failure.kind == .interrupted {
                say(kept ? "interrupted: what arrived is saved, marked interrupted (Ctrl-R asks again)"
                        : "interrupted before the reply began: your message is saved (Ctrl-R sends it again)")
            } else {
                say(error.description + " (Ctrl-R tries again)", error: true)
                if case .input = error, room?.compose.characters.isEmpty == true, !question.isEmpty {
                    // Nothing was saved (the turn was refused): the words go back into the box.
                    room?.compose = Compose(question)
                }
            }
        } else {
            say(truncated ? "the server cut the reply short; it is saved as it came" : "saved and committed")
        }
        if room?.path == path { reloadRoom(path, keepCompose: true) }
        room?.layoutWidth = 0
        reloadHome()
        sync?.syncNow()
    }

    // MARK: - Drafts

    /// Where a room's draft is saved while it is typed: `.vault/drafts/`, which is not the
    /// vault's content (it is never committed), so a `kill -9` loses nothing typed.
    func draftPath(_ room: String) -> String {
        let safe = room.replacingOccurrences(of: "/", with: "%2F")
        return vault.absolute(".vault/drafts/" + safe + ".txt")
    }

    func saveDraft(_ state: RoomState) {
        let path = draftPath(state.path)
        if state.compose.characters.isEmpty || state.pending == state.compose.text {
            try? FileIO.remove(path)
            return
        }
        try? FileIO.makeDirectory(vault.absolute(".vault/drafts"))
        try? FileIO.write(Array(state.compose.text.utf8), to: path)
    }

    private func keepDraftFile() {
        if let state = room { saveDraft(state) }
    }

    func loadDraft(_ room: String) -> String? {
        guard let bytes = try? FileIO.read(draftPath(room)), !bytes.isEmpty else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    func removeDraft(_ room: String) {
        try? FileIO.remove(draftPath(room))
    }

    /// Leaving the room or the app: the draft goes below the room's prompt marker (where `vault
    /// chat` finds it), its saved copy removed; a draft that is the pending prompt as it was
    /// stays where it is.
    func keepDraft(_ state: RoomState) {
        let text = state.compose.text
        guard !state.compose.isEmpty, state.pending != text else {
            removeDraft(state.path)
            return
        }
        do {
            try vault.keepAsPendingPrompt(text.trimmingCharacters(in: .newlines), inRoom: state.path)
            removeDraft(state.path)
        } catch {
            // The saved copy stays: the next `vault ui` of the room finds it.
            saveDraft(state)
        }
    }
}
