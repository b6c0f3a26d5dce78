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
public struct GitTransport: Sendable {
    /// The vault's folder (the repository's work tree).
    public let root: String
    /// The environment the commands run with.
    let environment: [String: String]

    public init(root: String, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.root = root
        self.environment = environment
    }

    /// What a finished `git` command said.
    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Whether the `git` command line is installed.
    public static func isInstalled(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
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
    func run(_ arguments: [String], in directory: String? = nil, interactive: Bool = false) throws(VaultError) -> Output {
        guard let git = GitTransport.executable(environment: environment) else {
            throw VaultError.repository(
                "vault sync needs the `git` command for the network (install it: `apt-get install git`); nothing was changed.")
        }
        var env = environment
        env["LC_ALL"] = "C"  // messages vault reads are git's English ones
        env["GIT_TERMINAL_PROMPT"] = interactive ? "1" : "0"
        if env["GIT_SSH_COMMAND"] == nil, env["GIT_SSH"] == nil, !hasConfiguredSSHCommand(env) {
            var ssh = "ssh -o StrictHostKeyChecking=yes -o NumberOfPasswordPrompts=3"
            if !interactive { ssh += " -o BatchMode=yes" }
            env["GIT_SSH_COMMAND"] = ssh
        }
        var prefix: [String] = []
        if let token = env["VAULT_GIT_TOKEN"], !token.isEmpty {
            // A credential helper that answers from the environment; the token never appears in
            // an argument list or a file.
            env["VAULT_GIT_USERNAME"] = env["VAULT_GIT_USERNAME"] ?? "vault"
            prefix = [
                "-c", "credential.helper=",
                "-c",
                "credential.helper=!f() { test \"$1\" = get && printf 'username=%s\\npassword=%s\\n' \"$VAULT_GIT_USERNAME\" \"$VAULT_GIT_TOKEN\"; }; f",
            ]
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: git)
        process.arguments = prefix + arguments
        process.environment = env
        process.currentDirectoryURL = URL(fileURLWithPath: directory ?? root)
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        if !interactive { process.standardInput = FileHandle.nullDevice }
        do {
            try process.run()
        } catch {
            throw VaultError.repository("cannot run \(git): \(error.localizedDescription)")
        }
        // Both pipes are drained while git runs, so a long output never blocks it.
        let stdoutData = LockedData()
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) { stdoutData.value = out.fileHandleForReading.readDataToEndOfFile() }
        let stderrData = err.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return Output(
            status: process.terminationStatus, stdout: String(decoding: stdoutData.value, as: UTF8.self),
            stderr: String(decoding: stderrData, as: UTF8.self))
    }

    private func hasConfiguredSSHCommand(_ env: [String: String]) -> Bool {
        // `core.sshCommand` in the repository's or the person's git config: theirs to keep.
        let text = (try? FileIO.read(root + "/.git/config")).map { String(decoding: $0, as: UTF8.self) } ?? ""
        let home = env["HOME"].map { (try? FileIO.read($0 + "/.gitconfig")) ?? [] } ?? []
        return (text + String(decoding: home, as: UTF8.self)).lowercased().contains("sshcommand")
    }

    /// A failed git command as one message for the person: what failed, why in plain words, what to do.
    static func failure(_ doing: String, _ output: Output, remote: String) -> VaultError {
        let said = output.stderr
        let lower = said.lowercased()
        let reason: String
        if lower.contains("host key verification failed") || lower.contains("remote host identification has changed") {
            reason =
                "the ssh host key of \(remote) is unknown or has changed, so the connection was refused. Check the key with the server's owner, then add it to ~/.ssh/known_hosts (`ssh-keyscan HOST >> ~/.ssh/known_hosts`, or connect once with `ssh HOST`)"
        } else if lower.contains("permission denied (publickey") || lower.contains("permission denied, please try again") {
            reason = "the ssh server refused every key offered (is your key in ssh-agent, or named in ~/.ssh/config?)"
        } else if lower.contains("authentication failed") || lower.contains("could not read username")
            || lower.contains("could not read password") || lower.contains("terminal prompts disabled")
            || lower.contains("401")
        {
            reason =
                "the server asked for a user name and password and none was accepted (set VAULT_GIT_TOKEN to an access token, or set up a git credential helper)"
        } else if lower.contains("could not resolve host") || lower.contains("name or service not known")
            || lower.contains("could not resolve hostname")
        {
            reason = "the host name in \(remote) does not resolve (a typo in the URL, or no network)"
        } else if lower.contains("connection refused") || lower.contains("couldn't connect") || lower.contains("failed to connect") {
            reason = "nothing answers at \(remote) (connection refused: the server is down, or the port is wrong)"
        } else if lower.contains("timed out") {
            reason = "\(remote) did not answer in time"
        } else if lower.contains("does not appear to be a git repository") || lower.contains("repository not found")
            || lower.contains("not found") || lower.contains("no such file or directory")
            || lower.contains("does not exist")
        {
            reason = "\(remote) is not a git repository (a typo in the URL or path?)"
        } else if lower.contains("no space left on device") {
            reason = "the disk is full"
        } else {
            let lines = said.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            reason = lines.last.map { "git said: \($0)" } ?? "git exited with status \(output.status)"
        }
        return .repository("cannot \(doing): \(reason). Nothing in the vault was changed.")
    }
}

/// Bytes written by one thread and read by another after a `DispatchGroup.wait()`.
final class LockedData: @unchecked Sendable {
    var value = Data()
}
