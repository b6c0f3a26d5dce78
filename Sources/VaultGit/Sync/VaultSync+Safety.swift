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

    /// The branch of `remote` that this vault's `branch` is merged from and pushed to, learnt
    /// before the first push to a remote reached over a network (ssh, https) that has no branch
    /// at all: when that remote's HEAD names a branch with no commit yet (`git init --bare`
    /// leaves it on git's default branch, `master`, while the vault's is `main`), the vault's
    /// branch is pushed there, so a plain `git clone` of the remote checks the vault out. The
    /// choice is kept as `remote.NAME.push = refs/heads/main:refs/heads/master` (and, for the
    /// default remote, the upstream `branch.main.merge`), so a plain `git push` and `git pull`
    /// in the vault go to the same branch. A remote on this machine has its HEAD pointed at the
    /// pushed branch instead (`pointUnbornRemoteHead`); a remote that does not say where its HEAD
    /// points (protocol v0) gets the vault's own branch, and the report says what to do.
    ///
    /// - Returns: the remote's branch, and whether the remote's HEAD is to be checked after the
    ///   push (it was empty and did not say).
    func followUnbornRemoteHead(_ remote: String, branch: String, report: inout SyncReport) throws(VaultError)
        -> (branch: String, checkAfterPush: Bool)
    {
        let mapped = try history.remoteBranch(of: remote, for: branch)
        guard mapped == branch,
            try history.referenceNames(matching: "refs/remotes/\(remote)/*").isEmpty,
            let url = try history.remotes().first(where: { $0.name == remote })?.url,
            GitHistory.localPath(ofRemoteURL: url, relativeTo: vault.root) == nil
        else { return (mapped, false) }
        Trace.mark("sync: ask the empty remote for its HEAD")
        switch try transport.head(remote: remote) {
        case .unborn(let target) where target != branch:
            try history.pushBranch(branch, to: target, of: remote)
            // An upstream set before (`vault remote default`) follows, so `git pull` merges that branch.
            if try history.configString("branch.\(branch).remote") == remote {
                try history.setUpstream(remote: remote, branch: branch)
            }
            report.notes.append(
                "\(remote)'s HEAD names the branch \(target), which has no commit yet: the vault's branch \(branch)"
                    + " is pushed there (remote.\(remote).push), so a plain `git clone` checks the vault out")
            return (target, false)
        case .unborn, .branch:
            return (branch, false)
        case .unknown:
            return (branch, true)
        }
    }

    /// After the first push to an empty network remote that did not say where its HEAD points:
    /// a note when HEAD still names no branch with a commit (a plain `git clone` would check
    /// nothing out), with the command that fixes it on the server.
    func checkRemoteHeadAfterPush(_ remote: String, branch: String) -> String? {
        guard let head = try? transport.head(remote: remote), head == .unknown else { return nil }
        return "\(remote) did not say which branch its HEAD names (a server speaking git's protocol v0:"
            + " an ssh server needs `AcceptEnv GIT_PROTOCOL` for v2); if a plain `git clone` of it says"
            + " \"remote HEAD refers to nonexistent ref\", run `git symbolic-ref HEAD refs/heads/\(branch)`"
            + " in the repository on the server"
    }

    /// After a push: makes `remote` the branch's upstream (what a plain `vault sync` and
    /// `git pull` use) when it has none yet and `remote` is the one a plain sync would choose.
    /// `vault sync OTHER` never moves it; `vault remote default NAME` does.
    /// A remote on this machine (a path, `file://`) whose HEAD names a branch that does not
    /// exist (`git init --bare` leaves it on git's default branch, `master`, while vault pushes
    /// `main`) gets its HEAD pointed at the branch just pushed, as a hosting service's "default
    /// branch": a plain `git clone` of it then checks the vault out. A HEAD that names a branch
    /// the remote has is left alone; a remote reached over a network is not touched here (its
    /// HEAD is the server's to set: `followUnbornRemoteHead` pushes to the branch it names).
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

    /// Makes `remote` the upstream of `branch`, as `git push --set-upstream` records it: the
    /// remote's branch of the same name, or the one `remote.NAME.push` maps it to (`remoteBranch`).
    func setUpstream(remote: String, branch: String) throws(VaultError) {
        try setConfig("branch.\(branch).remote", remote)
        try setConfig("branch.\(branch).merge", "refs/heads/" + (try remoteBranch(of: remote, for: branch)))
    }

    /// The branch of `remote` that the vault's `branch` pulls from and pushes to: the one the
    /// remote's push refspec (`remote.NAME.push = refs/heads/main:refs/heads/master`) maps it
    /// to, else the same name.
    func remoteBranch(of remote: String, for branch: String) throws(VaultError) -> String {
        var handle: OpaquePointer?
        guard git_remote_lookup(&handle, repo, remote) == 0 else { return branch }
        defer { git_remote_free(handle) }
        var specs = git_strarray()
        try GitFailure.check(git_remote_get_push_refspecs(&specs, handle), "read the push refspecs of \(remote)")
        defer { git_strarray_dispose(&specs) }
        let source = "refs/heads/\(branch):refs/heads/"
        for i in 0..<specs.count {
            guard let raw = specs.strings[i] else { continue }
            var spec = String(cString: raw)
            if spec.hasPrefix("+") { spec.removeFirst() }
            if spec.hasPrefix(source), spec.count > source.count { return String(spec.dropFirst(source.count)) }
        }
        return branch
    }

    /// Records that `branch` is pushed to `target` of `remote` (`remote.NAME.push`), so that a
    /// plain `git push` does what `vault sync` does.
    func pushBranch(_ branch: String, to target: String, of remote: String) throws(VaultError) {
        try GitFailure.check(
            git_remote_add_push(repo, remote, "refs/heads/\(branch):refs/heads/\(target)"),
            "record that \(branch) is pushed to \(remote)'s \(target)")
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
