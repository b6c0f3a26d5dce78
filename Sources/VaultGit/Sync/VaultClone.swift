import CGit2
import Foundation
import VaultCore

/// `vault clone URL DIR`: a second machine set up completely, in one command.
package enum VaultClone {
    /// The folder `git clone` would make: the last part of the URL without `.git`.
    package static func defaultFolder(for url: String) -> String {
        var name = url
        while name.hasSuffix("/") { name.removeLast() }
        if let cut = name.lastIndex(where: { $0 == "/" || $0 == ":" }) {
            name = String(name[name.index(after: cut)...])
        }
        if name.hasSuffix(".git") { name.removeLast(4) }
        return name.isEmpty ? "vault" : name
    }

    /// Clones the vault at `url` into `root` (a new or empty folder), registers vault's merge
    /// driver, and checks that what came is a vault. On any failure the folder is removed
    /// again (when vault made it) and nothing else is left behind.
    ///
    /// Through the `git` command when `settings.environment`'s PATH has it, else libgit2 (a remote on
    /// this machine). `interactive`: git and ssh may ask on the terminal. `onProgress`: how far
    /// the transfer is (objects received, deltas resolved, files checked out), then
    /// `ProgressEvent.ended`; nil asks git and libgit2 for no progress. `limits`: this machine's
    /// caps on what is cloned (the defaults with the user configuration's `limits:`, and the
    /// git config's `vault.maxFileSize`…): the remote's `vault.yml` may lower them, never raise them.
    package static func clone(
        url: String, into root: String, interactive: Bool = false, settings: ProcessSettings,
        onProgress: ProgressHandler? = nil, limits: IncomingLimits = IncomingLimits()
    ) throws(VaultError) -> Vault {
        let environment = settings.environment
        let existed = FileIO.exists(root)
        if existed {
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? ["?"]
            guard FileIO.isDirectory(root), entries.isEmpty else {
                throw VaultError.input(.cloneTargetNotEmpty(root))
            }
        }
        let parent = FileIO.parent(of: root)
        guard FileIO.isDirectory(parent) else { throw VaultError.input(.notAFolder(parent)) }
        let transport = GitTransport(root: parent, environment: environment)
        func cleanUp() {
            if existed {
                for name in (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [] {
                    try? FileManager.default.removeItem(atPath: root + "/" + name)
                }
            } else {
                try? FileManager.default.removeItem(atPath: root)
            }
        }
        // The files are not checked out by the transfer: the commit passes vault's gate first.
        if GitTransport.isInstalled(environment: environment) {
            // `--quiet` would leave out the local steps of the progress (receiving, resolving).
            let output = try transport.run(
                ["clone", "--no-checkout", onProgress == nil ? "--quiet" : "--progress", "--", url, root],
                interactive: interactive, progress: onProgress)
            guard output.status == 0 else {
                cleanUp()
                throw GitTransport.failure("clone \(url)", output, remote: url)
            }
        } else {
            do {
                try LibGit2Transport.clone(url: url, into: root, progress: onProgress)
            } catch {
                cleanUp()
                throw error
            }
        }
        do {
            try checkOut(url: url, root: root, environment: environment, limits: limits)
        } catch {
            cleanUp()
            throw error
        }
        do {
            let vault = try Vault(root: root, settings: settings)
            try FileIO.makeDirectory(root + "/" + VaultPath.state)
            let history = try GitHistory(vault: root, config: vault.config, settings: settings)
            let cloned = vault.with(history: history)
            try cloned.change { change throws(VaultError) in try history.ensureMergeDriver(in: change) }
            return cloned
        } catch {
            cleanUp()
            throw error
        }
    }

    /// After a transfer without checkout: finds the vault's branch, passes its commit through
    /// `IncomingTree`, makes it the local branch tracking `origin`'s, and writes the files.
    ///
    /// The branch is the one the remote's HEAD names when it holds a vault, else `main`, else
    /// `master`, else the remote's only branch with `vault.yml`: a bare repository made by
    /// `git init --bare` keeps HEAD on git's default branch (often `master`, unborn) while
    /// vault pushed `main`.
    static func checkOut(url: String, root: String, environment: [String: String], limits machine: IncomingLimits)
        throws(VaultError)
    {
        let history = try GitHistory(vault: root, config: try VaultConfig(parsing: Array("format: 1\n".utf8)))
        let prefix = "refs/remotes/origin/"
        let branches = try history.referenceNames(matching: prefix + "*").filter { !$0.hasSuffix("/HEAD") }
            .map { String($0.dropFirst(prefix.count)) }
        guard !branches.isEmpty else {
            throw VaultError.notAVault(
                "\(url) is an empty repository, not a vault yet:"
                    + " on the machine that has the vault, run `vault remote add origin \(url)`"
                    + " and `vault sync`, then clone again. Nothing was kept.")
        }
        let headBranch = try history.branchName()
        let order = [headBranch, "main", "master"] + branches.sorted()
        var found: (branch: String, config: [UInt8])?
        for name in order where branches.contains(name) {
            if let config = try history.file(VaultPath.config, atReference: "refs/remotes/origin/" + name) {
                found = (name, config)
                break
            }
        }
        guard let (branch, config) = found else {
            throw VaultError.notAVault(
                "\(url) is a git repository but not a vault"
                    + " (no branch of it has \(VaultPath.config) at its top); nothing was kept.")
        }
        // The remote's vault.yml is the collaborators': it may lower this machine's caps, never raise them.
        let limits = try history.incomingLimits(
            machine: machine, vault: (try? VaultConfig(parsing: config))?.limits ?? IncomingLimits.Setting())
        guard let commit = try history.referenceCommit("refs/remotes/origin/" + branch) else {
            throw VaultError.repository(.noCommits)
        }
        defer { git_commit_free(commit) }
        // Every entry is checked: nothing of the vault is trusted yet.
        try IncomingTree(history: history, limits: limits, capsTotal: false).check(
            git_commit_tree_id(commit).pointee, against: nil, commit: String(oidString(git_commit_id(commit)).prefix(10)))
        try history.startBranch(branch, at: "refs/remotes/origin/" + branch, tracking: "origin")
        try history.checkOutHead(environment: environment)
    }
}

extension GitHistory {
    /// Makes `refs/heads/NAME` at the commit `start` names, HEAD point at it, and its upstream
    /// `remote`'s branch of the same name.
    func startBranch(_ name: String, at start: String, tracking remote: String) throws(VaultError) {
        var oid = git_oid()
        try GitFailure.check(git_reference_name_to_id(&oid, repo, start), "read \(start)")
        var ref: OpaquePointer?
        try GitFailure.check(
            git_reference_create(&ref, repo, "refs/heads/" + name, &oid, 1, "vault: clone"), "make the branch \(name)")
        git_reference_free(ref)
        try GitFailure.check(git_repository_set_head(repo, "refs/heads/" + name), "check out the branch \(name)")
        try setUpstream(remote: remote, branch: name)
    }

    /// Writes HEAD's files and index into an empty work tree (after a clone without checkout):
    /// with the `git` command when it is installed, else libgit2.
    func checkOutHead(environment: [String: String]) throws(VaultError) {
        let git = GitTransport(root: root, environment: environment)
        if GitTransport.isInstalled(environment: environment) {
            let output = try git.run(["reset", "--hard", "--quiet", "HEAD"])
            guard output.status == 0 else {
                throw VaultError.repository(
                    .cannotRun(program: "git reset --hard", reason: output.stderr.trimmingCharacters(in: .whitespacesAndNewlines)))
            }
            return
        }
        var options = git_checkout_options()
        git_checkout_options_init(&options, UInt32(GIT_CHECKOUT_OPTIONS_VERSION))
        options.checkout_strategy = GIT_CHECKOUT_FORCE.rawValue
        try GitFailure.check(git_checkout_head(repo, &options), "write the vault's files")
    }
}
