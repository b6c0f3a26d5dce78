import Foundation
import Synchronization
import VaultCore
import VaultKit

#if canImport(Glibc)
import Glibc
#endif

/// What the app's background work hands its main loop: a streaming reply's pieces, a finished
/// turn, a sync's step, a search's results. Each is queued and a byte written to a pipe the loop
/// polls, so the loop never waits on a lock while a person types.
final class Mailbox: @unchecked Sendable {
    enum Event {
        case replyText(String)
        case replyWait(ServerWait)
        case replyDone(path: String, error: VaultError?, truncated: Bool)
        case synced(LiveSync.Step)
        case searched(generation: Int, results: SearchResults?, error: VaultError?)
    }

    private let lock = NSLock()
    private var queue: [Event] = []
    let readable: Int32
    private let writable: Int32

    init?() {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return nil }
        readable = ends[0]
        writable = ends[1]
        for fd in ends {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
    }

    func post(_ event: Event) {
        lock.withLock { queue.append(event) }
        var byte: UInt8 = 1
        _ = write(writable, &byte, 1)
    }

    /// The events taken from the queue and not handed out yet (the main loop's alone).
    private var taken: [Event] = []
    private var next = 0

    /// Whether events wait that the last `take` left for the next pass.
    var hasMore: Bool { next < taken.count }

    /// Up to `limit` events, oldest first (a run of reply pieces counts as one,
    /// `joiningReplyText`): a backlog is handed over a slice a pass, so a key waits for one
    /// slice, not for the whole backlog.
    func take(atMost limit: Int = 256) -> ArraySlice<Event> {
        if next >= taken.count {
            // The pipe is drained only when the queue is taken, right before: a byte a post could
            // not write (the pipe full) stands for an event already queued, and the queue is
            // never left holding an event with no byte to wake the loop for it.
            var drain = [UInt8](repeating: 0, count: 256)
            while read(readable, &drain, drain.count) > 0 {}
            taken = Self.joiningReplyText(lock.withLock {
                defer { queue = [] }
                return queue
            })
            next = 0
        }
        let end = min(taken.count, next + limit)
        defer { next = end }
        return taken[next..<end]
    }

    /// `events` with each run of reply pieces made one piece: a server can stream faster than
    /// the screen is drawn (a local model, a loopback server), and a piece a pass would leave the
    /// reply's end, and a stop's `replyDone`, behind a backlog that only grows.
    static func joiningReplyText(_ events: [Event]) -> [Event] {
        var joined: [Event] = []
        joined.reserveCapacity(events.count)
        var run: [String] = []
        for event in events {
            if case .replyText(let text) = event {
                run.append(text)
                continue
            }
            if !run.isEmpty {
                joined.append(.replyText(run.joined()))
                run.removeAll(keepingCapacity: true)
            }
            joined.append(event)
        }
        if !run.isEmpty { joined.append(.replyText(run.joined())) }
        return joined
    }
}

/// The background syncs of a vault with a remote while the app is open, on a thread of their
/// own (as the chat prompt's): every few seconds (`VAULT_WATCH_INTERVAL`), at once after
/// something was said, doubling the wait while the remote cannot be reached.
final class BackgroundSync: @unchecked Sendable {
    private let live: LiveSync
    private let mailbox: Mailbox
    private let lock = NSLock()
    private var stopped = false
    private var wanted = false
    private let trigger = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)

    init(live: LiveSync, mailbox: Mailbox) {
        self.live = live
        self.mailbox = mailbox
    }

    func start() {
        Thread { [self] in
            while true {
                let (stop, want) = lock.withLock { () -> (Bool, Bool) in
                    defer { wanted = false }
                    return (stopped, wanted)
                }
                if stop && !want { break }
                let step = live.step()
                mailbox.post(.synced(step))
                if lock.withLock({ stopped || wanted }) { continue }
                _ = trigger.wait(timeout: .now() + step.delay)
            }
            done.signal()
        }.start()
    }

    func syncNow() {
        lock.withLock { wanted = true }
        trigger.signal()
    }

    /// Marks what was shown read.
    func shown(_ arrival: LiveSync.Arrival) { live.shown(arrival) }

    /// Ends the syncs, waiting for one in progress (what was said goes out before the app ends).
    func stop() {
        lock.withLock { stopped = true }
        trigger.signal()
        done.wait()
    }
}
