import CGit2
import Foundation
import VaultCore

/// How a sync reaches its remote: the `git` command when it is installed (`GitTransport`),
/// else libgit2 for remotes on this machine (`LibGit2Transport`).
protocol RemoteTransport {
    /// Fetches the remote's branches into its remote-tracking refs.
    func fetch(remote: String) throws(VaultError)
    /// Fetches `branch` of the remote into `ref` only (no remote-tracking ref moves); false
    /// when the remote has no such branch.
    func fetch(remote: String, branch: String, into ref: String) throws(VaultError) -> Bool
    /// Pushes `branch` to the remote's branch `target` (the same name, unless the remote's
    /// HEAD named another when it was empty: `GitHistory.remoteBranch`), never forced.
    func push(remote: String, branch: String, to target: String) throws(VaultError) -> PushResult
    /// Where the remote's HEAD points, as the remote says it (one connection, no objects).
    func head(remote: String) throws(VaultError) -> RemoteHead
}

/// A remote's HEAD, as the remote told it.
enum RemoteHead: Equatable {
    /// HEAD names this branch, which has commits.
    case branch(String)
    /// HEAD names this branch, which has no commit yet (`git init --bare` leaves HEAD so, on
    /// git's default branch): protocol v2's `unborn HEAD symref-target:refs/heads/NAME`.
    case unborn(String)
    /// The remote did not say: HEAD is detached or missing, or the server speaks protocol v0
    /// (an ssh server whose sshd does not accept `GIT_PROTOCOL`), which says nothing of an
    /// unborn HEAD.
    case unknown
}

/// What became of a push.
enum PushResult {
    case pushed
    /// The remote moved meanwhile (refused as not a fast-forward, or its ref changed under
    /// the push): fetch, merge and push again.
    case rejected(String)
}

extension PushResult {
    /// Whether a refusal the remote gave means it moved meanwhile.
    static func isRace(_ why: String) -> Bool {
        let raced = [
            "fetch first", "non-fast-forward", "stale info", "failed to update ref", "cannot lock ref",
            "failed to lock",
        ]
        return raced.contains { why.lowercased().contains($0) }
    }

    static func refused(_ remote: String, _ why: String) -> VaultError {
        .repository(.pushRefused(remote: remote, reason: why))
    }

    /// A push that failed to reach the remote, after the fetch and merge were committed.
    static func unsent(_ failure: VaultError) -> VaultError {
        guard case .repository(.remote(let doing, let reason, _)) = failure else { return failure }
        return .repository(.remote(doing: doing, reason: reason, merged: true))
    }
}

/// The `git` command line.
///
/// With `progress`, git is asked for its progress (`--progress`, and not `--quiet`, which would
/// leave out the local steps: receiving, resolving) and it goes to `progress` as events; without
/// it, git runs quiet and nothing of its output is read before it ends.
struct GitCommandTransport: RemoteTransport {
    let git: GitTransport
    let interactive: Bool
    var progress: ProgressHandler? = nil
    /// The repository's git folder, where `head(remote:)` has git write its packet trace.
    var gitDirectory: String

    /// `--progress` when progress is wanted, else `--quiet`.
    private var verbosity: String { progress == nil ? "--quiet" : "--progress" }

    func fetch(remote: String) throws(VaultError) {
        let output = try git.run(
            ["fetch", verbosity, "--no-write-fetch-head", remote], interactive: interactive, progress: progress)
        if output.status != 0 { throw GitTransport.failure("fetch from \(remote)", output, remote: remote) }
    }

    func fetch(remote: String, branch: String, into ref: String) throws(VaultError) -> Bool {
        // `--refmap=`: the remote-tracking refs stay where they are.
        let output = try git.run(
            ["fetch", "--no-write-fetch-head", verbosity, "--refmap=", remote, "+refs/heads/\(branch):\(ref)"],
            interactive: interactive, progress: progress)
        if output.status != 0 {
            if output.stderr.contains("couldn't find remote ref") { return false }
            throw GitTransport.failure("fetch from \(remote)", output, remote: remote)
        }
        return true
    }

    func push(remote: String, branch: String, to target: String) throws(VaultError) -> PushResult {
        let output = try git.run(
            ["push", "--porcelain"] + (progress == nil ? [] : ["--progress"])
                + [remote, "refs/heads/\(branch):refs/heads/\(target)"],
            interactive: interactive, progress: progress)
        // `--porcelain`: one line per ref, `!` when the remote refused it.
        for line in output.stdout.split(separator: "\n") where line.hasPrefix("!") {
            let why = line.split(separator: "\t").last.map(String.init) ?? "rejected"
            if PushResult.isRace(why) { return .rejected(why) }
            throw PushResult.refused(remote, why)
        }
        if output.status != 0 {
            throw PushResult.unsent(GitTransport.failure("push to \(remote)", output, remote: remote))
        }
        return .pushed
    }

    /// `git ls-remote --symref REMOTE HEAD`, run in the vault (its config, ssh command and
    /// credentials, as for the fetch). git 2.39 asks a protocol v2 server for an unborn HEAD
    /// (`ls-refs` with `unborn`) and the server answers `unborn HEAD symref-target:refs/heads/NAME`,
    /// but ls-remote prints only HEADs that have a commit; so the answer is read from git's packet
    /// trace (`GIT_TRACE_PACKET`, written to a file in `.git/` and removed), the protocol's own text.
    func head(remote: String) throws(VaultError) -> RemoteHead {
        let trace = gitDirectory + "/vault-ls-remote-\(getpid()).trace"
        _ = unlink(trace)
        defer { _ = unlink(trace) }
        var environment = git.environment
        environment["GIT_TRACE_PACKET"] = trace
        let output = try GitTransport(root: git.root, environment: environment).run(
            ["ls-remote", "--symref", remote, "HEAD"], interactive: interactive)
        if output.status != 0 { throw GitTransport.failure("ask \(remote) for its HEAD", output, remote: remote) }
        // `ref: refs/heads/main<TAB>HEAD`, then `<id><TAB>HEAD`.
        for line in output.stdout.split(separator: "\n") where line.hasPrefix("ref: refs/heads/") && line.hasSuffix("\tHEAD") {
            return .branch(String(line.dropFirst("ref: refs/heads/".count).dropLast("\tHEAD".count)))
        }
        let said = (try? FileIO.read(trace)).map { String(decoding: $0, as: UTF8.self) } ?? ""
        let marker = "unborn HEAD symref-target:refs/heads/"
        for line in said.split(separator: "\n") {
            guard let found = line.range(of: marker) else { continue }
            let name = line[found.upperBound...].trimmingCharacters(in: .whitespaces)
            if !name.isEmpty, !name.contains(" ") { return .unborn(name) }
        }
        return .unknown
    }
}

/// libgit2's own transports, for a machine without the `git` command: remotes on this machine
/// only (a path, `file://`: a USB disk, a mounted share). Over ssh and https libgit2 1.5 would
/// ignore `~/.ssh/config` and `known_hosts` (RESEARCH.md), so those need the `git` command.
///
/// libgit2 reports a push the remote refused only through the `push_update_reference`
/// callback (`git_remote_push` still returns 0): the callback's status is checked on every push.
/// With `progress`, libgit2's transfer callbacks (`TransferCallbacks`) report the same events
/// as git's progress; without it, no callback is set.
struct LibGit2Transport: RemoteTransport {
    let history: GitHistory
    var progress: ProgressHandler? = nil

    /// Whether libgit2 can reach `url` without the `git` command: a path or a `file://` URL.
    static func canReach(_ url: String) -> Bool {
        url.hasPrefix("/") || url.hasPrefix("file://") || url.hasPrefix("./") || url.hasPrefix("../")
    }

    static func needsGit(_ url: String) -> VaultError {
        .repository(.gitCommandMissing(url: url))
    }

    private func lookup(_ remote: String) throws(VaultError) -> OpaquePointer {
        var handle: OpaquePointer?
        try GitFailure.check(git_remote_lookup(&handle, history.repo, remote), "read the remote '\(remote)'")
        let url = git_remote_url(handle).map { String(cString: $0) } ?? ""
        guard LibGit2Transport.canReach(url) else {
            git_remote_free(handle)
            throw LibGit2Transport.needsGit(url)
        }
        return handle!
    }

    func fetch(remote: String) throws(VaultError) {
        let handle = try lookup(remote)
        defer { git_remote_free(handle) }
        var options = git_fetch_options()
        git_fetch_options_init(&options, UInt32(GIT_FETCH_OPTIONS_VERSION))
        options.update_fetchhead = 0
        let callbacks = TransferCallbacks(progress: progress)
        defer { callbacks.end() }
        callbacks.install(in: &options.callbacks)
        let code = withExtendedLifetime(callbacks) { git_remote_fetch(handle, nil, &options, "vault: sync") }
        if code < 0 { throw LibGit2Transport.failure("fetch from \(remote)", code) }
    }

    func fetch(remote: String, branch: String, into ref: String) throws(VaultError) -> Bool {
        let named = try lookup(remote)
        let url = String(cString: git_remote_url(named))
        git_remote_free(named)
        // An anonymous remote has no configured refspecs, so no remote-tracking ref moves.
        var handle: OpaquePointer?
        try GitFailure.check(git_remote_create_anonymous(&handle, history.repo, url), "read the remote '\(remote)'")
        defer { git_remote_free(handle) }
        var options = git_fetch_options()
        git_fetch_options_init(&options, UInt32(GIT_FETCH_OPTIONS_VERSION))
        options.update_fetchhead = 0
        let callbacks = TransferCallbacks(progress: progress)
        defer { callbacks.end() }
        callbacks.install(in: &options.callbacks)
        let code = withCStrings(["+refs/heads/\(branch):\(ref)"]) { pointers -> Int32 in
            var array = git_strarray(
                strings: UnsafeMutablePointer(mutating: UnsafeRawPointer(pointers.baseAddress!).assumingMemoryBound(
                    to: UnsafeMutablePointer<CChar>?.self)), count: 1)
            return withExtendedLifetime(callbacks) {
                git_remote_fetch(handle, &array, &options, "vault: sync --dry-run")
            }
        }
        if code < 0 { throw LibGit2Transport.failure("fetch from \(remote)", code) }
        return (try history.referenceCommit(ref)).map { git_commit_free($0); return true } ?? false
    }

    /// Not asked: a remote on this machine has its unborn HEAD pointed at the pushed branch
    /// instead (`VaultSync.pointUnbornRemoteHead`).
    func head(remote: String) throws(VaultError) -> RemoteHead { .unknown }

    func push(remote: String, branch: String, to target: String) throws(VaultError) -> PushResult {
        let handle = try lookup(remote)
        defer { git_remote_free(handle) }
        // One payload for every callback libgit2 calls during the push: the refusals and the progress.
        let callbacks = TransferCallbacks(progress: progress)
        defer { callbacks.end() }
        var options = git_push_options()
        git_push_options_init(&options, UInt32(GIT_PUSH_OPTIONS_VERSION))
        options.pb_parallelism = 1  // the callbacks come on this thread (`TransferCallbacks`)
        callbacks.install(in: &options.callbacks)
        options.callbacks.push_update_reference = { refname, status, payload in
            guard let status, let payload else { return 0 }
            let box = Unmanaged<TransferCallbacks>.fromOpaque(payload).takeUnretainedValue()
            box.refusals.append((refname.map { String(cString: $0) } ?? "?", String(cString: status)))
            return 0
        }
        let spec = "refs/heads/\(branch):refs/heads/\(target)"
        let code = withCStrings([spec]) { pointers -> Int32 in
            var array = git_strarray(
                strings: UnsafeMutablePointer(mutating: UnsafeRawPointer(pointers.baseAddress!).assumingMemoryBound(
                    to: UnsafeMutablePointer<CChar>?.self)), count: 1)
            return withExtendedLifetime(callbacks) { git_remote_push(handle, &array, &options) }
        }
        if code == GIT_ENONFASTFORWARD.rawValue { return .rejected("non-fast-forward") }
        if code < 0 {
            throw PushResult.unsent(LibGit2Transport.failure("push to \(remote)", code))
        }
        if let (_, why) = callbacks.refusals.first {
            if PushResult.isRace(why) { return .rejected(why) }
            throw PushResult.refused(remote, why)
        }
        return .pushed
    }

    static func failure(_ doing: String, _ code: Int32) -> VaultError {
        let detail = git_error_last().map { String(cString: $0.pointee.message) } ?? "error \(code)"
        let lower = detail.lowercased()
        let reason: String
        if lower.contains("no space left") {
            reason = "the disk is full"
        } else if lower.contains("not found") || lower.contains("could not find repository")
            || lower.contains("does not exist")
            || lower.contains("failed to resolve path")
        {
            reason = "it is not a git repository (a typo in the path?)"
        } else {
            reason = "libgit2 said: \(detail)"
        }
        return .repository(.remote(doing: doing, reason: reason, merged: false))
    }

    /// `git clone` with libgit2, for a remote on this machine; with `progress`, the transfer's
    /// and the checkout's progress.
    static func clone(url: String, into root: String, progress: ProgressHandler? = nil) throws(VaultError) {
        guard canReach(url) else { throw needsGit(url) }
        try LibGit2.ready()
        var options = git_clone_options()
        git_clone_options_init(&options, UInt32(GIT_CLONE_OPTIONS_VERSION))
        let callbacks = TransferCallbacks(progress: progress)
        defer { callbacks.end() }
        callbacks.install(in: &options.fetch_opts.callbacks)
        callbacks.install(in: &options.checkout_opts)
        // The files are written once the commit passed vault's gate (`VaultClone.checkOut`).
        options.checkout_opts.checkout_strategy = GIT_CHECKOUT_NONE.rawValue
        var repo: OpaquePointer?
        let code = withExtendedLifetime(callbacks) { git_clone(&repo, url, root, &options) }
        if code < 0 { throw failure("clone \(url)", code) }
        git_repository_free(repo)
    }
}
