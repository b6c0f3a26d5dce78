import Foundation
import VaultCore
import VaultKit

#if canImport(Glibc)
import Glibc
#endif

/// `vault ui`: the vault as a full-screen terminal app, written against VaultKit alone (the third
/// front end, beside the command line and the MCP server).
///
/// One thread draws and reads keys (`run`'s loop: `poll` on the terminal, the signal events,
/// the background work's mailbox and `Termination`'s wake-up); a reply streams, the remote
/// syncs and a search runs on threads of their own and hand their results to the mailbox. Each
/// pass of the loop draws the whole screen into a `Canvas` and the `Renderer` sends what
/// changed.
///
/// The lock: the app never holds the vault's lock itself; each change (a turn, a message said,
/// a sync, an edit) takes it for its own time, as the commands do, and never while a person
/// types or the editor is open.
package final class VaultApp {
    package struct Options {
        package var room: String?
        package var locale: String
        package var zone: TimeZone
        package var environment: [String: String]
        /// The person's editor (the front end starts it: `TextEditor.person`).
        package var editor: TextEditor
        package var color: Bool
        /// Seconds between background syncs.
        package var syncInterval: Double
        /// The working directory rooms are named from (`vault ui ROOM`).
        package var workingDirectory: String
        /// Where the session's notes go (the front end made the session with its sink): shown
        /// on the status line, never written to the screen's middle.
        package var notes: NoteList
        /// The process that started the app and waits for it (the front end's guard of the
        /// terminal): the app ends, as for SIGHUP, when it is gone.
        package var guardian: pid_t?
        /// The moment taken as now for the calendar's today and the rooms' "how long ago" (a fixed
        /// one makes screens repeatable: `VAULT_UI_NOW`).
        package var now: @Sendable () -> Date = { Date() }

        package init(
            room: String?, locale: String, zone: TimeZone, environment: [String: String], editor: TextEditor,
            color: Bool, syncInterval: Double, workingDirectory: String, notes: NoteList, guardian: pid_t? = nil
        ) {
            self.notes = notes
            self.guardian = guardian
            self.room = room
            self.locale = locale
            self.zone = zone
            self.environment = environment
            self.editor = editor
            self.color = color
            self.syncInterval = syncInterval
            self.workingDirectory = workingDirectory
        }
    }

    enum Mode {
        case home
        case room
        case search
    }

    enum Overlay {
        case help
        case palette(Palette)
        /// A line asked for (a new room's title, a new name, tags), and what is done with it.
        case ask(Ask)
    }

    struct Ask {
        var title: String
        var input = Compose()
        var action: (VaultApp, String) throws(VaultError) -> Void
    }

    let session: VaultSession
    var vault: Vault { session.vault }
    let options: Options
    let terminal: TerminalMode
    let mailbox: Mailbox
    var renderer: Renderer
    var decoder = KeyDecoder()
    var rows = 24
    var columns = 80
    var mode = Mode.home
    var overlay: Overlay?
    var home: HomeState
    var room: RoomState?
    var search = SearchState()
    /// The line above the keys: what just happened, or why something failed.
    var status: (text: String, isError: Bool)?
    /// Whether the last background sync failed, and why.
    var remoteProblem: String?
    var sync: BackgroundSync?
    var running = true
    /// When a lone ESC arrived that may still be the start of a sequence.
    var escapeSince: Date?
    private var drawnOnce = false
    /// A SIGTERM or SIGHUP: the app ends once the turn in progress is committed.
    var ending = false
    let words: ListingWords
    /// The person's name in a shared vault (nil: nobody's rooms are shared).
    var me: String?

    package init(session: VaultSession, terminal: TerminalMode, options: Options) throws(VaultError) {
        guard let mailbox = Mailbox() else {
            throw VaultError.io(path: "a pipe", operation: "make", reason: String(cString: strerror(errno)))
        }
        self.session = session
        self.options = options
        self.terminal = terminal
        self.mailbox = mailbox
        renderer = Renderer(color: options.color)
        words = ListingWords.of(options.locale)
        home = HomeState()
    }

    /// Runs the app until `q` (or Ctrl-C with nothing streaming), a SIGTERM or a SIGHUP; the
    /// terminal is given back on every way out. Returns the exit status.
    package func run() -> Int32 {
        (rows, columns) = terminal.size(environment: options.environment)
        terminal.enter()
        defer { terminal.leave() }
        return Termination.deferring { () -> Int32 in
            start()
            loop()
            finish()
            return Termination.exitStatus ?? 0
        }
    }

    private func start() {
        Trace.mark("ui: starting")
        me = try? vault.identity(environment: options.environment).name
        Trace.mark("ui: identity")
        reloadHome()
        Trace.mark("ui: home listed")
        if let name = options.room {
            do {
                let path = try vault.resolveRoom(name, workingDirectory: options.workingDirectory)
                open(room: path)
            } catch {
                say(error.description, error: true)
            }
        }
        startSync()
        Trace.mark("ui: started")
    }

    private func startSync() {
        guard FileIO.exists(vault.root + "/.git"), let remotes = try? session.remotes().list(), !remotes.isEmpty,
            let live = try? session.liveSync(interval: options.syncInterval)
        else { return }
        let sync = BackgroundSync(live: live, mailbox: mailbox)
        self.sync = sync
        sync.start()
    }

    private func loop() {
        let wake = Termination.wakeUpDescriptor() ?? -1
        var buffer = [UInt8](repeating: 0, count: 4096)
        var inputGone = false
        while running {
            draw()
            var fds = [
                // A terminal that is gone (end of input) is not polled again: it would be readable forever.
                pollfd(fd: inputGone ? -1 : terminal.input, events: Int16(POLLIN), revents: 0),
                pollfd(fd: terminal.events, events: Int16(POLLIN), revents: 0),
                pollfd(fd: mailbox.readable, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
            ]
            let timeout: Int32 = mailbox.hasMore ? 0 : decoder.isWaiting ? 30 : nextTimeout()
            let n = poll(&fds, nfds_t(fds.count), timeout)
            if n < 0 && errno != EINTR { break }
            // A lone ESC is the Esc key once 30 ms passed without the rest of a sequence, even
            // while a reply keeps the loop busy.
            if let since = escapeSince, Date().timeIntervalSince(since) >= 0.03 {
                escapeSince = nil
                for key in decoder.flush() { handle(key) }
            }
            if n == 0, !mailbox.hasMore {
                for key in decoder.flush() { handle(key) }
                escapeSince = nil
                tick()
                continue
            }
            if fds[0].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                let got = read(terminal.input, &buffer, buffer.count)
                if got > 0 {
                    for key in decoder.feed(buffer[..<got]) {
                        handle(key)
                        if !running { break }
                    }
                    escapeSince = decoder.isWaiting ? escapeSince ?? Date() : nil
                } else if got == 0 || (errno != EINTR && errno != EAGAIN) {
                    // The terminal is gone (a closed ssh session): end as for SIGHUP.
                    ending = true
                    inputGone = true
                }
            }
            if fds[1].revents != 0 {
                for event in terminal.takeEvents() {
                    switch event {
                    case .resized: resize()
                    case .continued:
                        terminal.reassert()
                        resize()
                    case .stopRequested: suspend()
                    }
                }
            }
            if fds[2].revents != 0 || mailbox.hasMore { for event in mailbox.take() { receive(event) } }
            for note in options.notes.taken() { say(note.text, error: note.kind == .warning) }
            if wake >= 0, fds[3].revents != 0, Termination.signal != nil, Termination.signal != SIGINT {
                ending = true
            }
            if ending {
                // A reply still streaming stops (what arrived is kept, as Esc keeps it); the app
                // ends when its turn has.
                room?.streaming?.cancellation.cancel()
                if room?.streaming == nil { running = false }
            }
            tick()
        }
    }

    /// Ends: the draft kept below the room's prompt marker, the syncs stopped after their last.
    private func finish() {
        if let room { keepDraft(room) }
        sync?.stop()
    }

    func say(_ text: String, error: Bool = false) {
        status = (Canvas.oneLine(text), error)
    }

    func resize() {
        (rows, columns) = terminal.size(environment: options.environment)
        renderer.invalidate()
        room?.layoutWidth = 0
    }

    func suspend() {
        terminal.suspend()
        resize()
    }

    /// Hands the terminal to the person's editor on `path` and takes it back: the screen drawn
    /// whole again, what changed read again.
    func edit(_ path: String) {
        terminal.leave()
        defer {
            terminal.enter()
            resize()
        }
        do {
            let result = try Editing(vault: vault).edit(path, in: options.editor)
            say(describe(result))
        } catch {
            say(error.description, error: true)
        }
        reloadHome()
        if let current = room?.path { reloadRoom(current, keepCompose: true) }
    }

    /// What an edit did, in a line (as `vault edit` says it).
    func describe(_ result: Editing.Result) -> String {
        var text: String
        switch result.kind {
        case .saved: text = "Saved \(result.path)."
        case .unchanged: text = "No change in \(result.path)."
        case .removed: text = Editing(vault: vault).removalNote(result.path)
        }
        if let problem = result.problems.first { text += " ⚠️ \(problem) (saved and committed all the same)" }
        return text
    }

    // MARK: - Drawing

    func draw() {
        var canvas = Canvas(rows: rows, columns: columns)
        switch mode {
        case .home: drawHome(&canvas)
        case .room: drawRoom(&canvas)
        case .search: drawSearch(&canvas)
        }
        drawOverlay(&canvas)
        let bytes = renderer.update(to: canvas)
        if !bytes.isEmpty { terminal.write(bytes) }
        if !drawnOnce {
            drawnOnce = true
            Trace.mark("ui: first frame written")
        }
    }

    /// The last two rows: the status (what happened, the remote's state) and the keys.
    func drawFooter(_ canvas: inout Canvas, keys: String) {
        let statusRow = canvas.rows - 2
        if let status {
            canvas.put(status.text, row: statusRow, column: 0, style: status.isError ? .colored(1) : .dim)
        }
        if let remoteProblem {
            let text = "⚠️ not synced: " + remoteProblem
            let width = DisplayWidth.of(text)
            let column = max(0, canvas.columns - width)
            canvas.put(text, row: statusRow, column: column, style: .colored(3))
        }
        canvas.put(VaultApp.fitting(keys, width: canvas.columns), row: canvas.rows - 1, column: 0, style: .dim)
    }

    /// As many of the keys (items two spaces apart) as fit whole in `width` columns, and
    /// `? more` when some did not.
    static func fitting(_ keys: String, width: Int) -> String {
        guard DisplayWidth.of(keys) > width else { return keys }
        let more = "  ? more"
        var shown = ""
        for item in keys.components(separatedBy: "  ") where !item.isEmpty {
            let next = shown.isEmpty ? item : shown + "  " + item
            guard DisplayWidth.of(next) + DisplayWidth.of(more) <= width else { break }
            shown = next
        }
        return shown + more
    }

    // MARK: - Keys

    func handle(_ key: Key) {
        // Everywhere: Ctrl-Z stops the app as a job (`fg` brings it back), even over a question.
        if key == .ctrl("z") {
            suspend()
            return
        }
        if case .some(let current) = overlay {
            handleOverlay(key, current)
            return
        }
        // Everywhere: the palette.
        if key == .ctrl("p") {
            overlay = .palette(Palette(commands: Palette.commands(for: self)))
            return
        }
        switch mode {
        case .home: handleHome(key)
        case .room: handleRoom(key)
        case .search: handleSearch(key)
        }
    }

    func quit() {
        running = false
    }

    // MARK: - Background results

    private func receive(_ event: Mailbox.Event) {
        switch event {
        case .replyText(let text):
            room?.streaming?.add(text)
            room?.streaming?.waiting = nil
        case .replyWait(let wait):
            switch wait {
            case .waiting(let url): room?.streaming?.waiting = "waiting for the server at \(url)…"
            case .retrying(_, let seconds, let reason, let attempt, let attempts):
                room?.streaming?.waiting = "\(reason); asking again in \(Int(seconds.rounded())) s (\(attempt)/\(attempts))"
            case .replying, .finished: room?.streaming?.waiting = nil
            }
        case .replyDone(let path, let error, let truncated):
            replyFinished(path: path, error: error, truncated: truncated)
        case .synced(let step):
            synced(step)
        case .searched(let generation, let results, let error):
            searched(generation: generation, results: results, error: error)
        }
    }

    private func synced(_ step: LiveSync.Step) {
        if let failure = step.failure {
            remoteProblem = Canvas.oneLine(failure.description)
        } else {
            remoteProblem = nil
        }
        guard !step.arrivals.isEmpty || step.report != nil else { return }
        let arrived = step.arrivals.reduce(0) { $0 + $1.messages.count }
        if let current = room?.path {
            for arrival in step.arrivals where arrival.path == current { sync?.shown(arrival) }
            reloadRoom(current, keepCompose: true)
        }
        reloadHome()
        if arrived > 0 {
            let rooms = Set(step.arrivals.map(\.title)).sorted().joined(separator: ", ")
            say("\(arrived) new \(arrived == 1 ? "message" : "messages") in \(rooms)")
        }
    }

    // MARK: - Timers

    /// Milliseconds until the next timed thing: a search to start, a draft to save, a file to
    /// look at again.
    private func nextTimeout() -> Int32 {
        var next = 1000.0
        let now = Date()
        if let due = search.due { next = min(next, due.timeIntervalSince(now) * 1000) }
        if let due = room?.draftDue { next = min(next, due.timeIntervalSince(now) * 1000) }
        if room?.streaming != nil { next = min(next, 250) }
        return Int32(max(0, min(next, 1000)))
    }

    private var lastLook = Date()

    private func tick() {
        let now = Date()
        if let due = search.due, due <= now { startSearch() }
        if let due = room?.draftDue, due <= now, let current = room {
            saveDraft(current)
            room?.draftDue = nil
        }
        // What another program changed (an editor, `vault say` in another terminal, `git pull`):
        // looked at once a second, by the files' stamps only.
        if now.timeIntervalSince(lastLook) >= 1 {
            lastLook = now
            lookForChanges()
            if let guardian = options.guardian, getppid() != guardian { ending = true }
        }
    }
}

extension Canvas {
    /// `text` on one line: its line breaks and tabs as spaces.
    package static func oneLine(_ text: String) -> String {
        String(text.map { $0 == "\n" || $0 == "\t" || $0 == "\r" ? " " : $0 })
    }
}
