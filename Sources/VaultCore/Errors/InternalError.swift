import Foundation

/// One of vault's own rules broken: something that cannot happen did (libgit2 returned what
/// it never should, a merge came out losing items). It is a bug in vault, not something the
/// person did; the message says so, which rule broke, and the context a report needs.
///
///     throw VaultError.internal(InternalError(
///         "the merge would lose 2 item(s) (rooms/a.md, rooms/b.md)", context: "the remote's commit is 1a2b3c4d5e6f"))
///     // internal error: the merge would lose 2 item(s) (rooms/a.md, rooms/b.md) (the remote's commit is
///     // 1a2b3c4d5e6f); vault stopped before changing anything. Please report this.
public struct InternalError: Sendable, Hashable, CustomStringConvertible {
    /// What happened that must not.
    public var broken: String
    /// What vault had in hand (ids, paths), for the report.
    public var context: String
    /// Whether vault stopped before it changed any file or the repository.
    public var changedNothing: Bool

    public init(_ broken: String, context: String, changedNothing: Bool = true) {
        self.broken = broken
        self.context = context
        self.changedNothing = changedNothing
    }

    public var description: String {
        "internal error: \(broken) (\(context))" + (changedNothing ? "; vault stopped before changing anything" : "")
            + ". Please report this."
    }
}
