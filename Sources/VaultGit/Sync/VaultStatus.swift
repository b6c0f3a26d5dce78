import CGit2
import Foundation
import VaultCore

/// `vault status`: where the vault stands with its files and its remote.
public struct VaultStatus: Sendable, Codable {
    public var branch: String
    /// The remote the next sync uses, if any.
    public var remote: String?
    /// The remote's branch that `branch` syncs with: the same name, unless the remote's HEAD
    /// named another when vault first pushed to it (`GitHistory.remoteBranch`).
    public var remoteBranch: String?
    /// Commits ahead of and behind the remote's branch as of the last fetch (nil: it has none yet).
    public var ahead: Int?
    public var behind: Int?
    /// Files that differ from the last commit.
    public var handEdits: [String]
    /// An unfinished `git merge` (what is being merged), and its conflicted files.
    public var unfinishedMerge: String?
    public var conflicted: [String]
    public var conflictCopies: [Copy]
    /// Messages kept in two versions by a merge, not settled yet (`vault resolve ROOM --keep ID`).
    public var unsettled: [Unsettled] = []
    /// The commit the last sync made, while it can be undone.
    public var lastSync: String?

    public struct Unsettled: Sendable, Codable {
        package var room: String
        package var message: String
        package var other: String
    }

    public struct Copy: Sendable, Codable {
        package var copy: String
        package var original: String
    }

    public static func read(vault: Vault, history: GitHistory) throws(VaultError) -> VaultStatus {
        let branch = (try? history.branchName()) ?? "HEAD"
        let remote = try? history.syncRemote(named: nil)
        var ahead: Int?
        var behind: Int?
        let theirs = try remote.map { (remote) throws(VaultError) in try history.remoteBranch(of: remote, for: branch) }
        if let remote, let theirs, let head = try history.headCommit() {
            defer { git_commit_free(head.commit); git_tree_free(head.tree) }
            if let upstream = try history.referenceCommit("refs/remotes/\(remote)/\(theirs)") {
                defer { git_commit_free(upstream) }
                (ahead, behind) = try history.aheadBehind(head.commit, upstream)
            }
        }
        var merging: String?
        if FileIO.exists(history.gitDirectory + "/MERGE_HEAD") {
            let text = (try? FileIO.read(history.gitDirectory + "/MERGE_MSG")).map {
                String(decoding: $0, as: UTF8.self)
            }
            merging = text?.split(separator: "\n").first.map(String.init) ?? "a merge"
        }
        let after = try history.referenceCommit(VaultSync.afterRef)
        defer { after.map { git_commit_free($0) } }
        return VaultStatus(
            branch: branch, remote: remote, remoteBranch: theirs, ahead: ahead, behind: behind,
            handEdits: try history.workTreeChanges(), unfinishedMerge: merging,
            conflicted: try history.conflictedPaths(),
            conflictCopies: vault.conflictCopies().map { Copy(copy: $0.copy, original: $0.original) },
            unsettled: vault.unsettledConflicts().map { Unsettled(room: $0.room, message: $0.message, other: $0.other) },
            lastSync: after.map { String(oidString(git_commit_id($0)).prefix(7)) })
    }
}

extension GitHistory {
    /// Paths git left conflicted in the index (an unfinished merge).
    func conflictedPaths() throws(VaultError) -> [String] {
        var index: OpaquePointer?
        try GitFailure.check(git_repository_index(&index, repo), "open the index")
        defer { git_index_free(index) }
        guard git_index_has_conflicts(index) == 1 else { return [] }
        var iterator: OpaquePointer?
        try GitFailure.check(git_index_conflict_iterator_new(&iterator, index), "read the conflicts")
        defer { git_index_conflict_iterator_free(iterator) }
        var paths: [String] = []
        var a: UnsafePointer<git_index_entry>?
        var o: UnsafePointer<git_index_entry>?
        var t: UnsafePointer<git_index_entry>?
        while git_index_conflict_next(&a, &o, &t, iterator) == 0 {
            if let e = o ?? t ?? a { paths.append(String(cString: e.pointee.path)) }
        }
        return paths
    }
}
