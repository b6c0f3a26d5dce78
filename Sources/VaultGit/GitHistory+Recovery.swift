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
        package var removedLocks: [String] = []
        /// Paths a killed vault process had changed and not committed, committed now.
        package var committedPaths: [String] = []
        /// The commands those processes ran (`rm`, `chat`, …).
        package var commands: [String] = []
        /// Paths whose entry in git's index a killed process left behind HEAD, put back to
        /// HEAD's (`repairIndexBehindHead`: for the paths a killed process noted, and by
        /// `vault unlock` for every path).
        package var indexRepaired: [String] = []
        /// Conflict copies a `git pull` given up (`git merge --abort`) left, removed: their text
        /// is in the commit they were copied from (`clearAbortedMergeCopies`).
        package var removedCopies: [String] = []
    }

    /// Finishes what vault processes killed in the middle of a change left behind, so the vault
    /// is as if they had not been killed (or had never started), and nothing they wrote is lost:
    /// - their git locks (`index.lock`, the branch's lock) are removed: each is proven theirs,
    ///   and their process gone (`HeldLock`); no other lock is touched;
    /// - the files they changed and did not commit (`CommitIntent`) are committed, as
    ///   `recover: PATHS (left uncommitted by `vault COMMAND`, which stopped before its commit)` (nothing is
    ///   committed when those files are as committed; git's index is brought up to date for
    ///   them all the same: a process killed after the branch moved left it behind);
    /// - their temporary files next to those paths (`.NAME.vault-tmp-PID-N`) are removed, and
    ///   so are those of this machine's notes in `.vault/` (`unread.json`, `authorship-checked`,
    ///   …), which no intent names: a kill between a note's write and its rename leaves one.
    ///
    /// A sync's merge and an undo note their paths too (`checkoutAndMoveBranch`), so an index
    /// they left behind HEAD is put right here for those paths; `vault unlock` also compares the
    /// whole index with HEAD (`repairIndexBehindHead`), for what anything else left.
    ///
    /// Every command that changes the vault calls this first (`prepare`), holding the vault's
    /// lock; so does `vault unlock`.
    @discardableResult
    public func recoverFromKilledVaults() throws(VaultError) -> Recovery {
        var recovery = Recovery()
        recovering = true
        defer { recovering = false }
        recovery.removedLocks = HeldLock.removeLocksOfDeadVaults(gitDirectory: gitDirectory)
        recovery.removedCopies = try clearAbortedMergeCopies()
        for (owner, record, file) in CommitIntent.abandoned(root: root) {
            var paths: [String] = []
            for path in record.paths where !paths.contains(path) && GitHistory.isVaultPath(path) { paths.append(path) }
            if !paths.isEmpty {
                let summary =
                    paths.count <= 3
                    ? paths.joined(separator: ", ")
                    : paths.prefix(3).joined(separator: ", ") + " and \(paths.count - 3) more"
                // The index first, for the paths as HEAD has them (a sync killed after its branch).
                recovery.indexRepaired += try repairIndexBehindHead(among: paths)
                let before = try headCommitID()
                // Not through `Change`: this is the first step of every change's hand-edit check
                // (`prepare`), committing a dead process's writes as what they were, `recover: …`.
                try commit(
                    paths,
                    message:
                        "recover: \(summary) (left uncommitted by `vault \(record.command)`,"
                        + " which stopped before its commit)"
                )
                if try headCommitID() != before {
                    recovery.committedPaths += paths
                    recovery.commands.append(record.command)
                }
            }
            unlink(file)
            removeTemporaryFiles(of: owner.pid, near: paths)
        }
        _ = Leftovers.remove(Leftovers.deadTemporaryFiles(in: root + "/" + VaultPath.state))
        return recovery
    }

    /// Puts back to HEAD's version each entry of git's index that differs from HEAD for a file
    /// that is, in the work tree, exactly as HEAD has it (or missing from both): what a process
    /// killed between moving the branch and writing the index leaves (`git status` shows
    /// `D path` and `?? path` for a file nobody touched, and a plain `git commit` would commit
    /// the deletion). A staged change that matches the work tree is the person's and is left
    /// alone, and so is every file whose bytes differ from HEAD.
    ///
    /// - Returns: the paths repaired.
    /// - Parameter among: the paths to look at (a killed process's intent); nil: every path
    ///   where the whole index differs from HEAD (`vault unlock`; too slow for every command).
    func repairIndexBehindHead(among paths: [String]? = nil) throws(VaultError) -> [String] {
        guard let head = try headCommit() else { return [] }
        defer {
            git_commit_free(head.commit)
            git_tree_free(head.tree)
        }
        var index: OpaquePointer?
        try GitFailure.check(git_repository_index(&index, repo), "open the index")
        defer { git_index_free(index) }
        try GitFailure.check(git_index_read(index, 0), "read the index")
        var differing: [String] = []
        if let paths {
            for path in paths {
                let staged = git_index_get_bypath(index, path, 0).map { $0.pointee.id }
                if !GitHistory.same(blob(at: path, in: head.tree), staged) { differing.append(path) }
            }
        } else {
            var options = git_diff_options()
            git_diff_options_init(&options, UInt32(GIT_DIFF_OPTIONS_VERSION))
            var diff: OpaquePointer?
            try GitFailure.check(
                git_diff_tree_to_index(&diff, repo, head.tree, index, &options), "compare the index with HEAD")
            defer { git_diff_free(diff) }
            for delta in GitHistory.deltas(of: diff!) {
                let name = delta.status == GIT_DELTA_DELETED ? delta.old_file.path : delta.new_file.path
                if let name { differing.append(String(cString: name)) }
            }
        }
        var behind: [String] = []
        for path in differing where GitHistory.isVaultPath(path) {
            if GitHistory.same(blob(at: path, in: head.tree), try blobID(ofFile: path)) { behind.append(path) }
        }
        guard !behind.isEmpty else { return [] }
        try updateIndexWithLibgit2(behind)
        return behind
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
        for folder in Set(paths.map { FileIO.parent(of: root + "/" + $0) }) {
            for (name, _) in FileIO.list(folder) where Leftovers.temporaryFileOwner(name) == pid {
                unlink(folder + "/" + name)
            }
        }
    }
}
