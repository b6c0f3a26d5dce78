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
public enum Termination {
    /// The signal recorded while a change was in progress, 0 while none.
    private static let received = Atomic<Int32>(0)
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

    /// The signal handler: async-signal-safe (atomics, `signal`, `raise`) only.
    private static func handle(_ signal: Int32) {
        if depth.load(ordering: .sequentiallyConsistent) > 0 {
            // The first signal counts; a second Ctrl-C does not change the status.
            _ = received.compareExchange(expected: 0, desired: signal, ordering: .sequentiallyConsistent)
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

    /// Forgets a signal received (tests of the library in one process only).
    static func reset() { received.store(0, ordering: .sequentiallyConsistent) }
}
