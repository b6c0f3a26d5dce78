import CGit2
import Foundation
import VaultCore

#if canImport(Glibc)
    import Glibc
#endif

extension GitHistory {
    /// What `recoverFromKilledVaults` did.
    public struct Recovery: Sendable, Equatable {
        /// Git locks removed: each was left by a vault process that was killed while holding it.
        public var removedLocks: [String] = []
        /// Paths a killed vault process had changed and not committed, committed now.
        public var committedPaths: [String] = []
        /// The commands those processes ran (`rm`, `chat`, …).
        public var commands: [String] = []
    }

    /// Finishes what vault processes killed in the middle of a change left behind, so the vault
    /// is as if they had not been killed (or had never started), and nothing they wrote is lost:
    /// - their git locks (`index.lock`, the branch's lock) are removed: each is proven theirs,
    ///   and their process gone (`HeldLock`); no other lock is touched;
    /// - the files they changed and did not commit (`CommitIntent`) are committed, as
    ///   `recover: PATHS (left uncommitted by `vault COMMAND`, which stopped before its commit)` (nothing is
    ///   committed when those files are as committed; git's index is brought up to date for
    ///   them all the same: a process killed after the branch moved left it behind);
    /// - their temporary files next to those paths (`.NAME.vault-tmp-PID-N`) are removed.
    ///
    /// Every command that changes the vault calls this first (`prepare`), holding the vault's
    /// lock; so does `vault unlock`.
    @discardableResult
    public func recoverFromKilledVaults() throws(VaultError) -> Recovery {
        var recovery = Recovery()
        recovering = true
        defer { recovering = false }
        recovery.removedLocks = HeldLock.removeLocksOfDeadVaults(gitDirectory: gitDirectory)
        for (owner, record, file) in CommitIntent.abandoned(root: root) {
            var paths: [String] = []
            for path in record.paths where !paths.contains(path) && GitHistory.isVaultPath(path) { paths.append(path) }
            if !paths.isEmpty {
                let summary =
                    paths.count <= 3
                    ? paths.joined(separator: ", ")
                    : paths.prefix(3).joined(separator: ", ") + " and \(paths.count - 3) more"
                let before = try headCommitID()
                // Not through `Change`: this is the first step of every change's hand-edit check
                // (`prepare`), committing a dead process's writes as what they were, `recover: …`.
                try commit(
                    paths,
                    message: "recover: \(summary) (left uncommitted by `vault \(record.command)`, which stopped before its commit)")
                if try headCommitID() != before {
                    recovery.committedPaths += paths
                    recovery.commands.append(record.command)
                }
            }
            unlink(file)
            removeTemporaryFiles(of: owner.pid, near: paths)
        }
        return recovery
    }

    /// Removes the git locks of vault processes that were killed while holding them
    /// (`HeldLock`); returns them.
    public func removeLocksOfKilledVaults() -> [String] {
        HeldLock.removeLocksOfDeadVaults(gitDirectory: gitDirectory)
    }

    /// HEAD's commit id, or nil before the first commit.
    func headCommitID() throws(VaultError) -> String? {
        guard let head = try headCommit() else { return nil }
        defer {
            git_commit_free(head.commit)
            git_tree_free(head.tree)
        }
        return oidString(git_commit_id(head.commit))
    }

    /// A path a note may name: inside the vault, not into `.git`.
    static func isVaultPath(_ path: String) -> Bool {
        !path.isEmpty && !path.hasPrefix("/") && !path.split(separator: "/").contains { $0 == ".." || $0 == ".git" }
    }

    /// Removes `.NAME.vault-tmp-PID-N` files of process `pid` in the folders of `paths`: what a
    /// write (`FileIO.write`) killed before its rename leaves.
    func removeTemporaryFiles(of pid: Int32, near paths: [String]) {
        let marker = ".vault-tmp-\(pid)-"
        for folder in Set(paths.map { FileIO.parent(of: root + "/" + $0) }) {
            guard let listing = opendir(folder) else { continue }
            var doomed: [String] = []
            while let entry = readdir(listing) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
                }
                if name.hasPrefix("."), name.contains(marker) { doomed.append(folder + "/" + name) }
            }
            closedir(listing)
            for path in doomed { unlink(path) }
        }
    }
}
