import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Ctrl-C, `kill`, `timeout`, a closed terminal or a shutdown (SIGINT, SIGTERM, SIGHUP) never
/// stop vault half-way through a change.
///
/// While a change is in progress (inside `deferring`: every `Vault.changing`, and a whole chat
/// turn from the moment it has the room), such a signal is only recorded. The change goes on
/// to its commit: a reply that is streaming stops (`requested`), and what arrived of it is kept,
/// marked interrupted, and committed with the message. The command then ends with status
/// 128 + the signal's number (130, 143, 129; `exitIfRequested`). With no change in progress
/// the signal ends the process at once, as it always did: nothing is half written then.
///
///     Termination.install()                     // once, as the process starts
///     try Termination.deferring { try change() } // a signal now waits for the change
///     Termination.exitIfRequested()              // after the result is printed
///
/// An interactive caller (the chat prompt) gives Ctrl-C the meaning it has in a REPL: stop what
/// is going on and come back. It reads its line inside `deferring` too, waiting in `poll` on the
/// terminal and on `wakeUpDescriptor` (readable once a signal is recorded), and after a reply or
/// a line cut short by Ctrl-C it calls `takeBackInterrupt`: a recorded SIGINT is forgotten and
/// the session goes on. SIGTERM and SIGHUP are never taken back: one recorded before or after
/// the SIGINT still ends the process, with its own status (143, 129), once the change is
/// committed.
///
///     if Termination.takeBackInterrupt() { print("interrupted") } // back to the prompt
///     Termination.exitIfRequested()                              // a SIGTERM still ends it
public enum Termination {
    /// The signal recorded while a change was in progress, 0 while none.
    private static let received = Atomic<Int32>(0)
    /// The first SIGTERM or SIGHUP recorded, 0 while none: what `takeBackInterrupt` never forgets.
    private static let ending = Atomic<Int32>(0)
    /// The pipe's end the handler writes a byte to when it records a signal, -1 until a caller
    /// asked for `wakeUpDescriptor`.
    private static let wakeUpWriter = Atomic<Int32>(-1)
    /// The pipe's end `wakeUpDescriptor` hands out, -1 until then.
    private static let wakeUpReader = Atomic<Int32>(-1)
    /// How many `deferring` calls are in progress (they nest).
    private static let depth = Atomic<Int>(0)

    /// The signals handled: Ctrl-C, `kill` and `timeout`, a closed terminal.
    public static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    /// Installs the handlers of `signals` and unblocks them (a parent may have started vault
    /// with them blocked, and the mask is inherited: Ctrl-C must still reach a reply).
    ///
    /// SIGPIPE gets a handler that does nothing, so a reader that goes away (`vault chat … |
    /// head`) makes writes fail with EPIPE instead of ending the process in the middle of a
    /// turn. A handler, not SIG_IGN: an ignored signal stays ignored in the programs vault
    /// starts (git, the editor), a handler does not.
    public static func install() {
        // The handler reads these: made before it can run (a lazy global's first use allocates).
        _ = received.load(ordering: .relaxed)
        _ = ending.load(ordering: .relaxed)
        _ = wakeUpWriter.load(ordering: .relaxed)
        _ = depth.load(ordering: .relaxed)
        var set = sigset_t()
        sigemptyset(&set)
        for signal in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { signal in Termination.handle(signal) }
            sigemptyset(&action.sa_mask)
            // Blocking calls go on where they were (a reply's transfer polls `requested`).
            action.sa_flags = SA_RESTART
            sigaction(signal, &action, nil)
            sigaddset(&set, signal)
        }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        var pipe = sigaction()
        pipe.__sigaction_handler.sa_handler = { _ in }
        sigemptyset(&pipe.sa_mask)
        pipe.sa_flags = SA_RESTART
        sigaction(SIGPIPE, &pipe, nil)
    }

    /// The signal handler: async-signal-safe (atomics, `write`, `signal`, `raise`) only.
    private static func handle(_ signal: Int32) {
        if depth.load(ordering: .sequentiallyConsistent) > 0 {
            // Recorded before `received`, so `takeBackInterrupt` sees it whenever it sees
            // `received` still 0 after forgetting a SIGINT.
            if signal != SIGINT {
                _ = ending.compareExchange(expected: 0, desired: signal, ordering: .sequentiallyConsistent)
            }
            // The first signal counts; a second Ctrl-C does not change the status.
            _ = received.compareExchange(expected: 0, desired: signal, ordering: .sequentiallyConsistent)
            let writer = wakeUpWriter.load(ordering: .sequentiallyConsistent)
            if writer >= 0 {
                let saved = errno
                var byte: UInt8 = 1
                _ = write(writer, &byte, 1)
                errno = saved
            }
            return
        }
        // No change in progress: end as the signal would have (it is delivered as the
        // handler returns, with its default action).
        Glibc.signal(signal, SIG_DFL)
        raise(signal)
    }

    /// Runs `body` with termination signals held off: one that arrives meanwhile is recorded,
    /// and acted on by `exitIfRequested` once the command has said what it did.
    public static func deferring<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        depth.add(1, ordering: .sequentiallyConsistent)
        defer { depth.subtract(1, ordering: .sequentiallyConsistent) }
        return try body()
    }

    /// The signal that arrived while a change was in progress, if one did.
    public static var signal: Int32? {
        let s = received.load(ordering: .sequentiallyConsistent)
        return s == 0 ? nil : s
    }

    /// Whether a termination signal arrived: a reply that is streaming stops.
    public static var requested: Bool { signal != nil }

    /// The exit status for the signal received: 128 + its number.
    public static var exitStatus: Int32? { signal.map { 128 + $0 } }

    /// The signal's name: `SIGTERM`.
    public static func name(of signal: Int32) -> String {
        switch signal {
        case SIGINT: return "SIGINT"
        case SIGTERM: return "SIGTERM"
        case SIGHUP: return "SIGHUP"
        default: return "signal \(signal)"
        }
    }

    /// Ends the process with status 128 + the signal's number if a signal was held off, after
    /// flushing what was printed; returns otherwise. Call it once the command's outcome is shown.
    public static func exitIfRequested() {
        guard let status = exitStatus else { return }
        fflush(nil)
        _exit(status)
    }

    /// Forgets a recorded SIGINT, so an interactive caller goes on after Ctrl-C stopped a reply
    /// or the line being typed; true when there was one to forget.
    ///
    /// A SIGTERM or SIGHUP is never forgotten: when one arrived too (before the SIGINT, after
    /// it, or while this runs), it stays recorded (`signal`, `exitStatus`: 143, 129) and this
    /// returns false, so `exitIfRequested` still ends the process. Pending wake-ups of
    /// `wakeUpDescriptor` are drained either way.
    public static func takeBackInterrupt() -> Bool {
        defer { drainWakeUps() }
        guard received.compareExchange(expected: SIGINT, desired: 0, ordering: .sequentiallyConsistent).exchanged
        else { return false }
        // A SIGTERM or SIGHUP the handler recorded in `ending` while `received` held SIGINT
        // takes its place; one recorded after the exchange above found `received` at 0 itself.
        let other = ending.load(ordering: .sequentiallyConsistent)
        if other != 0 {
            _ = received.compareExchange(expected: 0, desired: other, ordering: .sequentiallyConsistent)
            return false
        }
        return true
    }

    /// A file descriptor that becomes readable when a signal is recorded (the handler writes
    /// a byte to a pipe), for a caller that waits in `poll` inside `deferring`: a signal
    /// delivered to another thread wakes it too, and there is no window between checking
    /// `requested` and starting to wait. Made on first use (non-blocking, close-on-exec); nil
    /// if no pipe could be made. Read it only through `takeBackInterrupt`, which drains it.
    public static func wakeUpDescriptor() -> Int32? {
        let existing = wakeUpReader.load(ordering: .sequentiallyConsistent)
        if existing >= 0 { return existing }
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        wakeUpReader.store(ends[0], ordering: .sequentiallyConsistent)
        wakeUpWriter.store(ends[1], ordering: .sequentiallyConsistent)
        // A signal recorded before the pipe existed wakes the first wait too.
        if requested {
            var byte: UInt8 = 1
            _ = write(ends[1], &byte, 1)
        }
        return ends[0]
    }

    /// Empties the wake-up pipe (it is non-blocking).
    private static func drainWakeUps() {
        let reader = wakeUpReader.load(ordering: .sequentiallyConsistent)
        guard reader >= 0 else { return }
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(reader, &buffer, buffer.count) > 0 {}
        // A signal still recorded (a SIGTERM) keeps the next wait from blocking.
        let writer = wakeUpWriter.load(ordering: .sequentiallyConsistent)
        if requested && writer >= 0 {
            var byte: UInt8 = 1
            _ = write(writer, &byte, 1)
        }
    }

    /// Forgets a signal received (tests of the library in one process only).
    static func reset() {
        received.store(0, ordering: .sequentiallyConsistent)
        ending.store(0, ordering: .sequentiallyConsistent)
    }
}
