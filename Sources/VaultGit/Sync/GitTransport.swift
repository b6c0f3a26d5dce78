import Foundation
import VaultCore

/// Fetch, push and clone through the `git` command line.
///
/// libgit2 1.5 as Debian ships it cannot do what people expect of `git` over the network: its
/// libssh2 signs with RSA only over SHA-1 (GitHub refuses that), it ignores `~/.ssh/config`, and it
/// checks no `known_hosts`. So, as Jujutsu does, vault runs `git fetch` and `git push` for the
/// network part and keeps the merge for itself. The person's ssh configuration, ssh-agent,
/// `known_hosts` and git credential helpers then work as they do for `git`; on top of that:
///
/// - an unknown or changed ssh host key is refused (`StrictHostKeyChecking=yes`), with a message
///   that says how to check and add it, unless the person set `GIT_SSH_COMMAND` or `core.sshCommand`;
/// - a token in `VAULT_GIT_TOKEN` (user name `VAULT_GIT_USERNAME`, default `vault`) answers an https
///   server's password question, before any other credential helper;
/// - without a terminal, nothing prompts (`GIT_TERMINAL_PROMPT=0`, ssh in batch mode); on a terminal
///   git and ssh ask, and ssh gives up after three tries (`NumberOfPasswordPrompts=3`).
package struct GitTransport: Sendable {
    /// The vault's folder (the repository's work tree).
    package let root: String
    /// The environment the commands run with.
    let environment: [String: String]

    package init(root: String, environment: [String: String]) {
        self.root = root
        self.environment = environment
    }

    /// What a finished `git` command said.
    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
        /// The user name vault's credential helper answered with the token in `VAULT_GIT_TOKEN`,
        /// or nil when no token was set (for `failure`: a refused token is named as such).
        var tokenUser: String? = nil
    }

    /// Whether the `git` command line is installed.
    package static func isInstalled(environment: [String: String]) -> Bool {
        executable(environment: environment) != nil
    }

    static func executable(environment: [String: String]) -> String? {
        let path = environment["PATH"] ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":") where !dir.isEmpty {
            let candidate = String(dir) + "/git"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// Runs `git` in the vault with vault's transport settings and waits for it.
    ///
    /// With `progress`, the caller has asked git for its progress (`--progress`): git's standard
    /// error is read as it streams, its progress records go to `progress` as events
    /// (`GitProgressReader`), then `ProgressEvent.ended` once git is done, and the output's
    /// `stderr` holds the rest of what git said. Without it, nothing is read until git ends.
    func run(
        _ arguments: [String], in directory: String? = nil, interactive: Bool = false,
        progress: ProgressHandler? = nil
    ) throws(VaultError) -> Output {
        guard let git = GitTransport.executable(environment: environment) else {
            throw VaultError.repository(.gitCommandMissing(url: nil))
        }
        var env = environment
        env["LC_ALL"] = "C"  // messages vault reads are git's English ones
        env["GIT_TERMINAL_PROMPT"] = interactive ? "1" : "0"
        // `status` reads only the work tree and never starts ssh: it is not slowed by asking git
        // for the ssh command first (a second git process, ~5–10 ms, on every sync).
        if arguments.first(where: { !$0.hasPrefix("-") }) != "status", env["GIT_SSH_COMMAND"] == nil, env["GIT_SSH"] == nil,
            !hasConfiguredSSHCommand(git: git, env: env, local: arguments.first != "clone", in: directory ?? root)
        {
            var ssh = "ssh -o StrictHostKeyChecking=yes -o NumberOfPasswordPrompts=3"
            if !interactive { ssh += " -o BatchMode=yes" }
            env["GIT_SSH_COMMAND"] = ssh
        }
        // Objects that come in are checked as git's fsck checks them (no `..` or `.git` in a
        // tree, no malformed object): a crafted push is refused at the fetch already.
        var prefix = ["-c", "transfer.fsckObjects=true"]
        var tokenUser: String?
        if let token = env["VAULT_GIT_TOKEN"], !token.isEmpty {
            // A credential helper that answers from the environment; the token never appears in
            // an argument list or a file.
            if env["VAULT_GIT_USERNAME"]?.isEmpty ?? true { env["VAULT_GIT_USERNAME"] = "vault" }
            tokenUser = env["VAULT_GIT_USERNAME"]
            prefix += [
                "-c", "credential.helper=",
                "-c",
                "credential.helper=!f() { test \"$1\" = get && printf 'username=%s\\npassword=%s\\n'"
                    + " \"$VAULT_GIT_USERNAME\" \"$VAULT_GIT_TOKEN\"; }; f",
            ]
        }
        let argv = ["-C", directory ?? root] + prefix + arguments
        guard let progress else {
            let result = try ChildProcess.run(git, argv, environment: env, inheritStdin: interactive)
            return Output(
                status: result.status, stdout: String(decoding: result.stdout, as: UTF8.self),
                stderr: String(decoding: result.stderr, as: UTF8.self), tokenUser: tokenUser)
        }
        var reader = GitProgressReader(report: progress)
        defer { progress(.ended) }
        let result = try ChildProcess.run(
            git, argv, environment: env, inheritStdin: interactive, onStderr: { reader.read($0) })
        reader.finish()
        return Output(
            status: result.status, stdout: String(decoding: result.stdout, as: UTF8.self),
            stderr: String(decoding: reader.messages, as: UTF8.self), tokenUser: tokenUser)
    }

    /// Whether git's config sets `core.sshCommand`: the person's, to keep.
    ///
    /// git itself is asked, so that every place it reads config from counts, as it would for
    /// the fetch: the repository's config, `~/.gitconfig`, `$XDG_CONFIG_HOME/git/config`,
    /// `GIT_CONFIG_GLOBAL`, the system config, includes, `GIT_CONFIG_*` variables. A clone
    /// (`local` false) reads no repository's config, as `git clone` does not: git is asked in `/`.
    private func hasConfiguredSSHCommand(git: String, env: [String: String], local: Bool, in directory: String) -> Bool
    {
        let result = try? ChildProcess.run(
            git, ["-C", local ? directory : "/", "config", "--get", "core.sshCommand"], environment: env,
            captureOutput: false)
        return result?.status == 0
    }

    /// A failed git command as one message for the person: what failed, why in plain words, what to do.
    static func failure(_ doing: String, _ output: Output, remote: String) -> VaultError {
        .repository(.remote(doing: doing, reason: reason(output, remote: remote), merged: false))
    }

    /// Why git failed, from what it (and ssh, and curl) said on stderr. The network's answers
    /// come first: a message that names a port (`port 40123`) must not read as an HTTP 401.
    static func reason(_ output: Output, remote: String) -> String {
        let said = output.stderr.replacingOccurrences(of: "\r", with: "")
        let lower = said.lowercased()
        if lower.contains("host key verification failed") || lower.contains("remote host identification has changed")
            || lower.contains("you have requested strict checking")
        {
            return hostKeyReason(said)
        }
        if lower.contains("permission denied (publickey") || lower.contains("permission denied, please try again") {
            return "the ssh server refused every key offered (is your key in ssh-agent, or named in ~/.ssh/config?)"
        }
        if lower.contains("could not resolve host") || lower.contains("name or service not known")
            || lower.contains("could not resolve hostname")
        {
            return "the host name in \(remote) does not resolve (a typo in the URL, or no network)"
        }
        if lower.contains("connection refused") || lower.contains("couldn't connect")
            || lower.contains("failed to connect")
        {
            // ssh: "connect to host H port N: Connection refused"; curl: "Failed to connect to H port N after …".
            let address = hostNamed(in: said, after: "connect to host ", before: ": ", spaces: true)
                ?? hostNamed(in: said, after: "failed to connect to ", before: " after", spaces: true)
            let by = address.map { " by \($0)" } ?? ""
            return "nothing answers at \(remote) (connection refused\(by): the server is down, or the port is wrong)"
        }
        if lower.contains("timed out") {
            return "\(remote) did not answer in time"
        }
        if lower.contains("authentication failed") || lower.contains("invalid username or password")
            || lower.contains("returned error: 401") || lower.contains("http 401")
            || lower.contains("could not read username") || lower.contains("could not read password")
            || lower.contains("terminal prompts disabled")
        {
            if let user = output.tokenUser {
                return
                    "the server refused the credentials:"
                    + " it did not accept the token in VAULT_GIT_TOKEN (user name `\(user)`);"
                    + " check that the token is right, has not expired, and may read and write this repository"
            }
            if lower.contains("authentication failed") || lower.contains("invalid username or password") {
                return
                    "the server refused the credentials git gave it (from the URL or a credential helper);"
                    + " set VAULT_GIT_TOKEN to an access token, or correct the saved ones"
            }
            return
                "the server refused access without credentials, and none were given"
                + " (set VAULT_GIT_TOKEN to an access token, or set up a git credential helper)"
        }
        if lower.contains("returned error: 403") || lower.contains("http 403") {
            let who = output.tokenUser != nil ? "the token in VAULT_GIT_TOKEN" : "your credentials"
            return
                "the server refused access (HTTP 403): \(who) may not read or write this repository"
                + " (check the token's permissions or the URL)"
        }
        if lower.contains("does not appear to be a git repository") || lower.contains("repository not found")
            || lower.contains("not found") || lower.contains("no such file or directory")
            || lower.contains("does not exist")
        {
            return "\(remote) is not a git repository (a typo in the URL or path?)"
        }
        if lower.contains("no space left on device") {
            return "the disk is full"
        }
        // `transfer.fsckObjects`: "error: object 3f2a…: hasDotdot: contains '..'".
        if let finding = said.split(separator: "\n").first(where: { $0.hasPrefix("error: object ") }) {
            let what = finding.dropFirst("error: ".count)
            return "the remote holds an object git's checks refuse (\(what)): a crafted commit, not taken"
        }
        let lines = said.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return lines.last.map { "git said: \($0)" } ?? "git exited with status \(output.status)"
    }

    /// An ssh host key refused: changed (the old key must go before the new one is added) or
    /// unknown, with the commands for the host as ssh named it (`[127.0.0.1]:2222`, `example.com`).
    static func hostKeyReason(_ said: String) -> String {
        let changed =
            said.lowercased().contains("remote host identification has changed")
            || said.contains(" has changed and you have requested")
        // "Host key for H has changed and ..." / "No ED25519 host key is known for H and ..."
        let host =
            hostNamed(in: said, after: "Host key for ", before: " has changed")
            ?? hostNamed(in: said, after: " is known for ", before: " and ")
        let name = host ?? "HOST"
        var keyscan = "ssh-keyscan \(name)"
        if let host, host.hasPrefix("["), let close = host.firstIndex(of: "]"), host[close...].hasPrefix("]:") {
            keyscan =
                "ssh-keyscan -p \(host[host.index(close, offsetBy: 2)...])"
                + " \(host[host.index(after: host.startIndex)..<close])"
        }
        let quoted = name.contains("[") ? "'\(name)'" : name
        let add = "add the new one to ~/.ssh/known_hosts (`\(keyscan) >> ~/.ssh/known_hosts`)"
        if changed {
            return
                "the ssh host key of \(name) has changed since it was saved in ~/.ssh/known_hosts,"
                + " so the connection was refused (the server was reinstalled, or someone is in between)."
                + " Check the new key with the server's owner; if it is right, remove the old one"
                + " (`ssh-keygen -R \(quoted)`) and \(add)"
        }
        if host != nil {
            return
                "the ssh host key of \(name) is unknown (it is not in ~/.ssh/known_hosts),"
                + " so the connection was refused. Check the key with the server's owner,"
                + " then add it (`\(keyscan) >> ~/.ssh/known_hosts`, or connect once with `ssh` and accept it)"
        }
        return
            "the ssh host key of the server is unknown or has changed, so the connection was refused."
            + " Check the key with the server's owner, then add it to ~/.ssh/known_hosts"
            + " (`ssh-keyscan HOST >> ~/.ssh/known_hosts`; a changed key: first `ssh-keygen -R HOST`)"
    }

    /// The text between `start` (any case) and `end` on one line: a host as ssh or curl named it.
    private static func hostNamed(in text: String, after start: String, before end: String, spaces: Bool = false)
        -> String?
    {
        guard let from = text.range(of: start, options: .caseInsensitive),
            let to = text.range(of: end, range: from.upperBound..<text.endIndex)
        else { return nil }
        let host = text[from.upperBound..<to.lowerBound]
        guard !host.isEmpty, host.count < 300,
            !host.contains(where: { $0 == "\n" || $0 == "`" || $0 == "'" || (!spaces && $0 == " ") })
        else { return nil }
        return String(host)
    }
}
