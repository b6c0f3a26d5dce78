import Synchronization

/// A handle a front end gives a workflow to stop it: a request cancelled by an MCP client, or
/// the process's signals on the command line (`Cancellation.whenever`).
///
/// A workflow checks it between steps (`check()`, throwing `VaultError.cancelled`) and a
/// streaming reply polls it; it never reads the process's signals itself. A change that has
/// begun to write is never stopped half-way: cancellation is looked at before a change starts
/// and between whole steps, and the lock is released on the way out, as for any error.
///
///     let cancel = Cancellation()
///     Task { try await Task.sleep(for: .seconds(5)); cancel.cancel() }
///     let page = try RoomReading(vault: vault).read("rooms/busan.md", cancellation: cancel)
public final class Cancellation: Sendable {
    private let cancelled = Atomic<Bool>(false)
    private let source: (@Sendable () -> Bool)?

    /// A handle that is cancelled only by `cancel()`.
    public init() { source = nil }

    /// A handle that is also cancelled while `isRequested` answers true (e.g. a signal was
    /// recorded: `{ Termination.requested }`).
    public init(whenever isRequested: @escaping @Sendable () -> Bool) { source = isRequested }

    /// A handle no one holds, so never cancelled (a fresh one each time).
    public static var never: Cancellation { Cancellation() }

    public func cancel() { cancelled.store(true, ordering: .sequentiallyConsistent) }

    public var isCancelled: Bool {
        cancelled.load(ordering: .sequentiallyConsistent) || (source?() ?? false)
    }

    /// Throws `VaultError.cancelled(during:)` once cancelled.
    ///
    /// - Parameter step: what was under way, for the message ("reading rooms/busan.md").
    public func check(_ step: String) throws(VaultError) {
        if isCancelled { throw VaultError.cancelled(during: step) }
    }
}
