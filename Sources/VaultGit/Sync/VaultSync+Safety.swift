import CGit2
import Foundation
import VaultCore

/// The checks around a sync that keep it from getting stuck or going astray: one sync at a
/// time, what a killed sync left cleared, a remote that is not this vault refused, and the
/// upstream moved only on purpose.
extension VaultSync {
    /// Takes the sync lock (`Vault.takeSyncLock`: a second sync waits for the first), then
    /// removes the locks of vault's own refs (`refs/vault/…`) a killed sync left: every writer
    /// of those refs holds the sync lock, so while this process holds it no living one can be
    /// holding one of theirs.
    ///
    /// - Returns: the lock (released when freed) and the ref locks removed.
    func holdSyncLock() throws(VaultError) -> (lock: VaultLock, cleared: [String]) {
        let lock = try vault.takeSyncLock()
        let cleared = Leftovers.remove(Leftovers.syncRefLocks(gitDirectory: history.gitDirectory))
        return (lock, cleared.map { "removed \($0.dropFirst(history.gitDirectory.count + 1)), left by a killed sync" })
    }

    /// Refuses a remote whose `branch` (as just fetched) is not this vault's: it has no
    /// `vault.yml` at its top, or its history has no commit in common with ours. With no such
    /// branch there, the remote may be empty (the first push is then fine), but a remote with
    /// other branches and not one vault among them is refused. Nothing is refused with
    /// `allowUnrelated`.
    func refuseRemoteOfAnotherKind(_ remote: String, branch: String) throws(VaultError) {
        guard !allowUnrelated else { return }
        let prefix = "refs/remotes/\(remote)/"
        func refuse(_ why: String) -> VaultError {
            .input(.remoteNotThisVault(remote: remote, branch: branch, why: why))
        }
        guard let theirs = try history.referenceCommit(prefix + branch) else {
            let others = try history.referenceNames(matching: prefix + "*").filter { !$0.hasSuffix("/HEAD") }
            guard !others.isEmpty else { return }
            for name in others where try history.holdsVaultConfig(name) { return }
            let names = others.map { String($0.dropFirst(prefix.count)) }.joined(separator: ", ")
            throw refuse("it has no branch \(branch), and its branches (\(names)) hold no \(VaultPath.config)")
        }
        defer { git_commit_free(theirs) }
        guard try history.holdsVaultConfig(prefix + branch) else {
            throw refuse("it has no \(VaultPath.config) at its top, so it is not a vault")
        }
        guard let head = try history.headCommit() else { return }
        defer {
            git_commit_free(head.commit)
            git_tree_free(head.tree)
        }
        var base = git_oid()
        let found = git_merge_base(&base, history.repo, git_commit_id(head.commit), git_commit_id(theirs))
        if found == GIT_ENOTFOUND.rawValue {
            throw refuse("its history has no commit in common with this vault's (another vault, or another project)")
        }
        try GitFailure.check(found, "find the common ancestor")
    }

    /// After a push: makes `remote` the branch's upstream (what a plain `vault sync` and
    /// `git pull` use) when it has none yet and `remote` is the one a plain sync would choose.
    /// `vault sync OTHER` never moves it; `vault remote default NAME` does.
    /// A remote on this machine (a path, `file://`) whose HEAD names a branch that does not
    /// exist (`git init --bare` leaves it on git's default branch, `master`, while vault pushes
    /// `main`) gets its HEAD pointed at the branch just pushed, as a hosting service's "default
    /// branch": a plain `git clone` of it then checks the vault out. A HEAD that names a branch
    /// the remote has is left alone; a remote reached over a network is not touched (its HEAD is
    /// the server's to set).
    func pointUnbornRemoteHead(_ remote: String, branch: String) {
        guard let url = try? history.remotes().first(where: { $0.name == remote })?.url,
            let path = GitHistory.localPath(ofRemoteURL: url, relativeTo: vault.root)
        else { return }
        var repo: OpaquePointer?
        guard git_repository_open_bare(&repo, path) == 0 else { return }
        defer { git_repository_free(repo) }
        guard git_repository_is_bare(repo) == 1, git_repository_head_unborn(repo) == 1 else { return }
        var pushed: OpaquePointer?
        guard git_reference_lookup(&pushed, repo, "refs/heads/\(branch)") == 0 else { return }
        git_reference_free(pushed)
        if git_repository_set_head(repo, "refs/heads/\(branch)") == 0 {
            Trace.mark("sync: the remote's HEAD points at \(branch) now")
        }
    }

    func rememberUpstream(_ remote: String, branch: String) throws(VaultError) {
        guard try history.configString("branch.\(branch).remote") == nil,
            try history.syncRemote(named: nil) == remote
        else { return }
        try history.setUpstream(remote: remote, branch: branch)
    }
}

extension GitHistory {
    /// The names of the refs `pattern` matches (`refs/remotes/origin/*`).
    func referenceNames(matching pattern: String) throws(VaultError) -> [String] {
        var iterator: OpaquePointer?
        try GitFailure.check(git_reference_iterator_glob_new(&iterator, repo, pattern), "list \(pattern)")
        defer { git_reference_iterator_free(iterator) }
        var names: [String] = []
        var name: UnsafePointer<CChar>?
        while git_reference_next_name(&name, iterator) == 0, let name { names.append(String(cString: name)) }
        return names.sorted()
    }

    /// Whether the commit `ref` names has `vault.yml` at its top.
    func holdsVaultConfig(_ ref: String) throws(VaultError) -> Bool {
        try file(VaultPath.config, atReference: ref) != nil
    }

    /// Makes `remote` the upstream of `branch`, as `git push --set-upstream` records it.
    func setUpstream(remote: String, branch: String) throws(VaultError) {
        try setConfig("branch.\(branch).remote", remote)
        try setConfig("branch.\(branch).merge", "refs/heads/\(branch)")
    }
}

extension GitHistory {
    /// The folder a remote URL names on this machine (a path, relative to `root` when it is
    /// relative, or a `file://` URL), as git takes it; nil for a URL with a scheme or an
    /// scp-like `host:path`.
    static func localPath(ofRemoteURL url: String, relativeTo root: String) -> String? {
        if url.hasPrefix("file://") {
            let path = String(url.dropFirst(7))
            return path.hasPrefix("/") ? (path.removingPercentEncoding ?? path) : nil
        }
        if url.contains("://") { return nil }
        // `host:path` is ssh unless a slash comes before the colon (git's rule).
        if let colon = url.firstIndex(of: ":"), !url[..<colon].contains("/") { return nil }
        return url.hasPrefix("/") ? url : root + "/" + url
    }
}
