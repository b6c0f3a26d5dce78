/// What keeps the vault's history: every change the tool makes becomes one commit.
///
/// `VaultCore` does not know git; `VaultGit` implements this with libgit2, and the
/// command line attaches it to the `Vault` for commands that change files. All calls
/// happen inside `Vault.changing`, holding the vault's lock; workflows reach them only through
/// `Change` (`Vault.change`).
public protocol VaultHistory: AnyObject, Sendable {
    /// Checks that a commit can be made now (no merge or rebase in progress, no stale
    /// lock), and commits, as `edit: …`, what a person changed by hand in `paths` since
    /// the last commit, so that hand edits and the tool's changes never mix.
    func prepare(_ paths: [String]) throws(VaultError)

    /// Commits `paths` as they are on disk now (a missing file is a deletion).
    ///
    /// - Returns: whether a commit was made: false when the files are already as the last
    ///   commit has them (nothing changed since).
    @discardableResult
    func commit(_ paths: [String], message: String) throws(VaultError) -> Bool

    /// Records that the files at `paths` are about to change (before they do), so that if this
    /// process dies before it commits them, the next vault command commits them for it.
    func willChange(_ paths: [String])
}

extension VaultHistory {
    public func willChange(_ paths: [String]) {}
}
