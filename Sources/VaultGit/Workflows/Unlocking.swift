import VaultCore

/// `vault unlock`: git lock files a crashed program left behind removed, and what killed vault
/// processes changed without committing committed (`recover: …`).
///
/// Every lock and temporary file vault makes is looked for (`Leftovers`):
/// - a git lock left by a vault process that was killed is removed at once (vault proves it is
///   its own and that the process is gone, `HeldLock`);
/// - the lock of one of vault's own refs (`refs/vault/sync/before.lock`, which libgit2 makes
///   and a killed sync leaves) is removed at once: `unlock` holds the sync lock, which every
///   writer of those refs holds;
/// - any other lock under `.git/` (left by git, or by libgit2 in a killed vault: a remote
///   branch's, `packed-refs.lock`, `config.lock`) only when untouched for a minute, or always
///   with `force`;
/// - the temporary files of crash-safe writes (`.NAME.vault-tmp-PID-N`) whose process is gone;
/// - git's index, when a killed sync left it behind HEAD (`GitHistory.repairIndexBehindHead`).
///
/// Runs under the sync lock and the vault's lock.
public struct Unlocking {
    public let vault: Vault

    public init(vault: Vault) {
        self.vault = vault
    }

    /// What `unlock` did.
    public struct Report: Sendable {
        /// The lock files removed.
        package var removed: [String]
        /// The temporary files of killed vault processes removed.
        package var temporaryFiles: [String] = []
        /// Lock files kept: changed in the last minute, so a git program may be using them.
        package var kept: [String]
        /// What was committed for killed vaults (nil: nothing was tried, a lock was kept or
        /// the vault has no repository of its own).
        package var recovery: GitHistory.Recovery?

        /// Whether nothing was found to clear or repair.
        package var isEmpty: Bool {
            removed.isEmpty && kept.isEmpty && temporaryFiles.isEmpty
                && (recovery.map { $0.committedPaths.isEmpty && $0.indexRepaired.isEmpty } ?? true)
        }
    }

    /// Removes the locks, and with none left, commits what killed vaults left uncommitted.
    public func unlock(force: Bool) throws(VaultError) -> Report {
        let own = (try? GitHistory.locate(vault.root)) == .own
        let history = own ? try GitHistory(vault: vault.root, config: vault.config, settings: vault.settings) : nil
        let syncLock = try vault.takeSyncLock()
        defer { withExtendedLifetime(syncLock) {} }
        return try vault.changing { () throws(VaultError) -> Report in
            let proven = history?.removeLocksOfKilledVaults() ?? []
            let syncRefs = history.map { Leftovers.remove(Leftovers.syncRefLocks(gitDirectory: $0.gitDirectory)) }
            let (removed, kept) = GitHistory.removeStaleLocks(vault: vault.root, force: force)
            let temporary = Leftovers.remove(Leftovers.deadTemporaryFiles(root: vault.root))
            // With no lock left, what killed vault processes left uncommitted is committed.
            var recovery = kept.isEmpty ? try history?.recoverFromKilledVaults() : nil
            // The whole index against HEAD: too slow for every command, right for this one.
            if let history, recovery != nil { recovery?.indexRepaired += try history.repairIndexBehindHead() }
            return Report(
                removed: proven + (syncRefs ?? []) + removed, temporaryFiles: temporary, kept: kept,
                recovery: recovery)
        }
    }
}
