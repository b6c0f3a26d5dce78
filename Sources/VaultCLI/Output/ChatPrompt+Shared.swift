import Foundation
import VaultCore
import VaultKit

/// The chat prompt in a room shared with people (`members:`): what is typed is a message to
/// them (`Posting`, as `vault say`), `@assistant …` (or `@` and the room's model) asks the
/// model; and when the vault has a remote, each message is sent at once by a sync, which shows
/// what the others wrote meanwhile (and marks it read).
extension ChatPrompt {
    /// Sends `entry`: to the model in a room of one's own, or as said above in a shared one.
    func sendOrPost(_ entry: String) throws(VaultError) {
        let members = Workspace.members(of: try vault.readRoomFrontMatter(path))
        guard !members.isEmpty else { return try send(try turn(), entry, files) }
        if entry.hasPrefix("@") {
            // `@assistant` in a room no model can answer says why; `@name` is for people.
            var turn: ChatTurn?
            do {
                turn = try self.turn()
            } catch {
                if Posting.asksModel(entry, model: nil) { throw error }
            }
            if let turn, Posting.asksModel(entry, model: turn.model) {
                try send(turn, entry, files)
                syncNow()
                return
            }
        }
        let posted = try Posting(vault: vault).post(
            entry, to: path, attachments: files, environment: ProcessInfo.processInfo.environment)
        Terminal.standardError("(saved to \(posted.path), line \(posted.message.line))\n")
        syncNow()
    }

    /// Sends what was said at once: the feed syncs now (when there is one).
    private func syncNow() {
        feed?.syncNow()
    }

    /// In a shared room of a vault with a remote: a sync every few seconds on another thread
    /// (`VAULT_WATCH_INTERVAL`, else 5 s; doubling while they fail), what others write shown above
    /// the line being typed and marked read. Nil elsewhere.
    func startFeed() -> LiveFeed? {
        guard (try? Workspace.members(of: vault.readRoomFrontMatter(path)).isEmpty) == false,
            FileIO.exists(vault.root + "/.git"),
            let remotes = try? session.remotes().list(), !remotes.isEmpty
        else { return nil }
        let interval = VaultCommand.settings.environment["VAULT_WATCH_INTERVAL"].flatMap(Double.init) ?? 5
        // On a repository of its own (it runs on another thread), with this machine's caps and
        // the session's watcher. A user configuration that cannot be read starts no feed (the
        // prompt says nothing of it: the next `vault sync` names the problem).
        guard let live = try? session.liveSync(interval: interval), let feed = LiveFeed(live: live, room: path) else { return nil }
        editor.whileTyping(feed.readable) { feed.take() }
        feed.start()
        return feed
    }
}

/// The syncs of a shared room's prompt, on a thread of their own: each step's arrivals are kept
/// until the prompt takes them (`take`, when `readable` is), shown, and marked read.
final class LiveFeed: @unchecked Sendable {
    private let live: LiveSync
    private let room: String
    private let lock = NSLock()
    private var arrivals: [LiveSync.Arrival] = []
    private var notes: [String] = []
    private var stopped = false
    /// A sync was asked for (`syncNow`): made even when the prompt ends meanwhile.
    private var wanted = false
    private var lastFailure: String?
    private let trigger = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)
    /// A pipe: its read end is readable while something waits to be shown.
    let readable: Int32
    private let writable: Int32

    init?(live: LiveSync, room: String) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return nil }
        readable = ends[0]
        writable = ends[1]
        _ = fcntl(readable, F_SETFL, O_NONBLOCK)
        self.live = live
        self.room = room
    }

    func start() {
        Thread { [self] in
            while true {
                let (stop, want) = lock.withLock { () -> (Bool, Bool) in
                    defer { wanted = false }
                    return (stopped, wanted)
                }
                if stop && !want { break }
                let step = live.step(room: room)
                var note: String?
                if let failure = step.failure {
                    let text = failure.description
                    if lock.withLock({ lastFailure }) != text {
                        note = "(not synced: \(text); trying again in \(VaultCommand.Watch.seconds(step.delay)) s)"
                    }
                    lock.withLock { lastFailure = text }
                } else if lock.withLock({ lastFailure }) != nil {
                    note = "(synced again)"
                    lock.withLock { lastFailure = nil }
                }
                if !step.arrivals.isEmpty || note != nil {
                    lock.withLock {
                        arrivals += step.arrivals
                        if let note { notes.append(note) }
                    }
                    var byte: UInt8 = 1
                    _ = write(writable, &byte, 1)
                }
                if lock.withLock({ stopped || wanted }) { continue }
                _ = trigger.wait(timeout: .now() + step.delay)
            }
            done.signal()
        }.start()
    }

    /// Syncs at once (what was just said goes out).
    func syncNow() {
        lock.withLock { wanted = true }
        trigger.signal()
    }

    /// What waits to be shown, as text, marked read.
    func take() -> String {
        var drain = [UInt8](repeating: 0, count: 64)
        while read(readable, &drain, drain.count) > 0 {}
        let (came, said) = lock.withLock { () -> ([LiveSync.Arrival], [String]) in
            defer { arrivals = []; notes = [] }
            return (arrivals, notes)
        }
        var text = said.map { $0 + "\n" }.joined()
        for arrival in came {
            for message in arrival.messages {
                text += Terminal.visible(Posting.writer(of: message), singleLine: true) + ":\n"
                text += Terminal.visible(message.body) + "\n\n"
            }
            live.shown(arrival)
        }
        return text
    }

    /// Ends the syncs, waiting for one in progress to finish.
    func stop() {
        lock.withLock { stopped = true }
        trigger.signal()
        done.wait()
        close(readable)
        close(writable)
    }
}
