import VaultCore

extension Termination {
    /// The command line's cancellation handle: cancelled once SIGINT, SIGTERM or SIGHUP was
    /// recorded (`requested`). The library's workflows are handed it; they never read the
    /// process's signals themselves.
    static let cancellation = Cancellation(whenever: { Termination.requested })
}
