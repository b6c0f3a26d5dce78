import VaultCore

/// `vault unlock`: git lock files a crashed program left behind removed, and what killed vault
/// processes changed without committing committed (`recover: …`).
///
/// A lock left by a vault process that was killed is removed at once (vault proves it is its
/// own and that the process is gone); other locks (left by git or another program) only when
/// untouched for a minute, or always with `force`. Runs under the vault's lock.
public struct Unlocking {
    public let vault: Vault

    public init(vault: Vault) {
        self.vault = vault
    }

    /// What `unlock` did.
    public struct Report: Sendable {
        /// The lock files removed.
        public var removed: [String]
        /// Lock files kept: changed in the last minute, so a git program may be using them.
        public var kept: [String]
        /// What was committed for killed vaults (nil: nothing was tried, a lock was kept or
        /// the vault has no repository of its own).
        public var recovery: GitHistory.Recovery?
    }

    /// Removes the locks, and with none left, commits what killed vaults left uncommitted.
    public func unlock(force: Bool) throws(VaultError) -> Report {
        let own = (try? GitHistory.locate(vault.root)) == .own
        let history = own ? try GitHistory(vault: vault.root, config: vault.config) : nil
        return try vault.changing { () throws(VaultError) -> Report in
            let proven = history?.removeLocksOfKilledVaults() ?? []
            let (removed, kept) = GitHistory.removeStaleLocks(vault: vault.root, force: force)
            // With no lock left, what killed vault processes left uncommitted is committed.
            let recovery = kept.isEmpty ? try history?.recoverFromKilledVaults() : nil
            return Report(removed: proven + removed, kept: kept, recovery: recovery)
        }
    }
}
