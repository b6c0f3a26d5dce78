import Foundation
import VaultCore

#if canImport(Glibc)
import Glibc
#endif

// Real network peers for the sync tests, on 127.0.0.1: a smart-HTTP git server
// (Tests/Fixtures/git_http_server.py, `git http-backend` behind Basic auth) and an OpenSSH
// server (Tests/Fixtures/sshd_fixture.py, Debian's sshd with its own config and keys), each a
// child process owned by one Swift object and stopped when that object goes away. The `git`
// command line (and `vault sync`, which runs it) reaches them through the environments these
// objects return.

/// A fixture that could not be started or used; the message says what its log said.
public struct GitPeerError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Makes a bare repository at `path` (creating folders) as a person makes it: `git init --bare`,
/// its HEAD git's own default branch (`master` on a git with no `init.defaultBranch`), unless
/// `initialBranch` names one.
///
/// The repositories the peers serve: `GitHTTPServer(root:)` serves `root/NAME.git`, and
/// `SSHPeer` serves any absolute path.
///
///     try makeBareRepository(at: root.path + "/notes.git")
public func makeBareRepository(at path: String, initialBranch: String? = nil) throws {
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    try git(["init", "--quiet", "--bare"] + (initialBranch.map { ["--initial-branch=" + $0] } ?? []) + [path], in: path)
}

// MARK: - HTTP

/// A smart-HTTP git server on 127.0.0.1 serving the bare repositories under a folder.
///
/// Every request runs `git http-backend` (as a web server would), so clones, fetches and
/// pushes are git's own protocol (v2 for fetches), including gzipped negotiation and chunked
/// pushes larger than `http.postBuffer`. With a token, every request needs HTTP Basic auth
/// whose password is the token (any user name) and gets 401 otherwise; without one, anyone
/// may fetch and push.
///
///     let root = TemporaryDirectory("remote")
///     try makeBareRepository(at: root.path + "/notes.git")
///     let server = try GitHTTPServer(root: root.path, token: "s3cret")
///     try runVault(["clone", server.url("notes"), dir], in: "/", environment: server.environment())
///
/// The server stops when the object goes away (or at `stop()`); as a last resort the process
/// exits by itself after five minutes, or when the test process dies.
public final class GitHTTPServer: @unchecked Sendable {
    /// The folder of bare repositories.
    public let root: String
    /// The password every request must carry, or nil when the server is open.
    public let token: String?
    public let port: Int
    /// One line per request: `METHOD PATH STATUS user=U encoding=E chunked=yes|no bytes=N`
    /// (see the script's doc comment), then http-backend's error lines as `backend: ...`.
    public let logPath: String

    private let folder: TemporaryDirectory
    private let process: FixtureProcess

    static let script = Project.root + "/Tests/Fixtures/git_http_server.py"

    /// Starts the server on a free port and waits until it listens.
    public init(root: String, token: String? = nil) throws {
        self.root = Vault.absolute(root, from: FileManager.default.currentDirectoryPath)
        self.token = token
        folder = TemporaryDirectory("git-http")
        logPath = folder.path + "/requests.log"
        _ = FileManager.default.createFile(atPath: logPath, contents: Data())
        var arguments = [GitHTTPServer.script, self.root, "--log", logPath]
        if let token { arguments += ["--token", token] }
        process = try FixtureProcess(
            python: arguments, errorPath: folder.path + "/server-stderr.txt", name: "the git HTTP server")
        port = process.port
    }

    deinit { process.stop() }

    /// Stops the server and waits for it to exit. Safe to call twice.
    public func stop() { process.stop() }

    /// `http://127.0.0.1:PORT/REPO.git` (".git" is added unless `repo` ends with it).
    public func url(_ repo: String) -> String {
        "http://127.0.0.1:\(port)/\(GitHTTPServer.repositoryName(repo))"
    }

    /// The URL with credentials in it, `http://USER:PASSWORD@127.0.0.1:PORT/REPO.git`
    /// (percent-encoded): what a user who pastes a token into a clone URL has.
    public func url(_ repo: String, user: String, password: String) -> String {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        let u = user.addingPercentEncoding(withAllowedCharacters: allowed) ?? user
        let p = password.addingPercentEncoding(withAllowedCharacters: allowed) ?? password
        return "http://\(u):\(p)@127.0.0.1:\(port)/\(GitHTTPServer.repositoryName(repo))"
    }

    /// The variables a `git` (or `vault sync`) process needs to use the server with the token:
    /// `GIT_TERMINAL_PROMPT=0` (a missing credential fails instead of prompting) and, when the
    /// server has a token, `GIT_CONFIG_GLOBAL` naming a config file whose `credential.helper`
    /// answers user `vault` and the token. Nothing else of the user's global git config is read.
    public func environment() -> [String: String] { environment(password: token) }

    /// Like `environment()`, but the credential helper answers `password` (nil: no helper, so
    /// git has no credentials at all). For tests of wrong and missing tokens.
    public func environment(password: String?) -> [String: String] {
        var config = ""
        if let password {
            // A shell function as the helper: `get` prints the credentials, store/erase do nothing.
            let helper =
                "!f() { test \"$1\" = get && echo username=vault && echo password=\(shellQuoted(password)); }; f"
            config = "[credential]\n\thelper = \(gitConfigQuoted(helper))\n"
        }
        let name = folder.path + "/gitconfig-" + UUID().uuidString
        precondition(FileManager.default.createFile(atPath: name, contents: Data(config.utf8)), "cannot write \(name)")
        return ["GIT_TERMINAL_PROMPT": "0", "GIT_CONFIG_GLOBAL": name]
    }

    /// The request lines logged so far (without http-backend's `backend:` lines).
    public func requests() -> [String] {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("backend: ") }
    }

    /// Everything the server logged, and what its Python process printed on stderr.
    public var log: String {
        ((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "") + process.errors
    }

    private static func repositoryName(_ repo: String) -> String {
        var name = repo
        while name.hasPrefix("/") { name.removeFirst() }
        return name.hasSuffix(".git") ? name : name + ".git"
    }
}

// MARK: - SSH

/// An OpenSSH server on 127.0.0.1 that accepts one client key for root, and a client
/// home folder set up to reach it.
///
/// The server is Debian's `/usr/sbin/sshd` with its own config, a fresh ed25519 host key and
/// an authorized_keys file in a temporary folder. `home` holds what a user's home would:
///
///     home/.ssh/config         Host vault-test (the client key), Host vault-test-agent (no
///                              key: only an agent authenticates), Host 127.0.0.1 (for
///                              ssh:// URLs); BatchMode, StrictHostKeyChecking yes
///     home/.ssh/known_hosts    the server's host key for [127.0.0.1]:PORT and the aliases
///     home/.ssh/id_ed25519     the client key (no passphrase), authorised on the server
///     home/.gitconfig          core.sshCommand = ssh -F home/.ssh/config
///
/// OpenSSH does not read `$HOME`: `~/.ssh/config`, `~/.ssh/known_hosts` and the default
/// identities are looked up in the passwd entry's home folder (root's `/root`). So HOME
/// alone does not make `ssh` use this folder; `environment()` also gives
/// `GIT_SSH_COMMAND=ssh -F home/.ssh/config`, which makes git's ssh read this config and,
/// through it, these keys and known hosts, and nothing from root's real `~/.ssh`.
///
///     let peer = try SSHPeer()
///     try makeBareRepository(at: remote.path + "/notes.git")
///     try runVault(["clone", peer.url(remote.path + "/notes.git"), dir], in: "/", environment: peer.environment())
public final class SSHPeer: @unchecked Sendable {
    /// The alias that authenticates with the client key file.
    public static let alias = "vault-test"
    /// The alias with no IdentityFile: it authenticates only through an agent (`startAgent()`).
    public static let agentAlias = "vault-test-agent"

    /// The client's home folder (see the type's documentation).
    public let home: String
    public let configPath: String
    public let knownHostsPath: String
    public let clientKeyPath: String
    /// The folder of the server's config, host key, pid file and log (`sshd.log`).
    public let serverDirectory: String
    public let port: Int
    /// The server's current host public key (`ssh-ed25519 AAAA...`); `replaceHostKey()`
    /// changes it, but not known_hosts.
    public private(set) var hostPublicKey: String

    private let folder: TemporaryDirectory
    private let lock = NSLock()
    private var server: FixtureProcess
    private var agent: SSHAgent?

    static let script = Project.root + "/Tests/Fixtures/sshd_fixture.py"

    /// Makes the client keys and config, starts sshd on a free port with a fresh host key,
    /// and records that key in known_hosts.
    public init() throws {
        folder = TemporaryDirectory("vault-ssh")
        home = folder.path + "/home"
        serverDirectory = folder.path + "/server"
        let sshDirectory = home + "/.ssh"
        configPath = sshDirectory + "/config"
        knownHostsPath = sshDirectory + "/known_hosts"
        clientKeyPath = sshDirectory + "/id_ed25519"
        let files = FileManager.default
        try files.createDirectory(
            atPath: sshDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try files.createDirectory(
            atPath: serverDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try SSHPeer.tool(
            "ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "vault-test-client", "-f", clientKeyPath])
        let authorizedKeys = serverDirectory + "/authorized_keys"
        try files.copyItem(atPath: clientKeyPath + ".pub", toPath: authorizedKeys)

        server = try SSHPeer.startServer(
            serverDirectory, authorizedKeys: authorizedKeys, port: 0, errorPath: folder.path + "/fixture-stderr.txt")
        port = server.port
        hostPublicKey = try SSHPeer.readHostKey(serverDirectory)

        let hosts = "[127.0.0.1]:\(port),\(SSHPeer.alias),\(SSHPeer.agentAlias)"
        try SSHPeer.writePrivate(knownHostsPath, "\(hosts) \(hostPublicKey)\n")
        try SSHPeer.writePrivate(configPath, sshConfig())
        try SSHPeer.writePrivate(home + "/.gitconfig", "[core]\n\tsshCommand = \(gitConfigQuoted(sshCommand))\n")
    }

    deinit { stop() }

    /// Stops sshd and the agent, and waits for them. Safe to call twice.
    public func stop() {
        lock.lock()
        defer { lock.unlock() }
        server.stop()
        agent?.stop()
        agent = nil
    }

    /// `vault-test:/abs/path`: scp-like, through the config's alias (and so the client key file).
    public func url(_ path: String) -> String { "\(SSHPeer.alias):\(path)" }

    /// `vault-test-agent:/abs/path`: authenticates only with a key from the agent.
    public func agentURL(_ path: String) -> String { "\(SSHPeer.agentAlias):\(path)" }

    /// `ssh://root@127.0.0.1:PORT/abs/path` (the config's `Host 127.0.0.1` entry gives the key).
    public func sshURL(_ path: String) -> String {
        "ssh://root@127.0.0.1:\(port)\(path.hasPrefix("/") ? "" : "/")\(path)"
    }

    /// `ssh -F 'home/.ssh/config'`: the command git must run as its ssh.
    public var sshCommand: String { "ssh -F \(shellQuoted(configPath))" }

    /// The variables a `git` (or `vault sync`) process needs to reach this peer:
    /// `HOME` (git's global config: `home/.gitconfig`), `GIT_SSH_COMMAND` (`ssh -F` this
    /// config; OpenSSH ignores `HOME`), and an empty `SSH_AUTH_SOCK`, so that an agent of the
    /// person running the tests is never asked (add `startAgent()`'s variables to use one).
    public func environment() -> [String: String] {
        ["HOME": home, "GIT_SSH_COMMAND": sshCommand, "SSH_AUTH_SOCK": ""]
    }

    /// Restarts sshd on the same port with a newly generated host key and leaves known_hosts
    /// as it was, so a client must now refuse the server ("REMOTE HOST IDENTIFICATION HAS
    /// CHANGED", "Host key verification failed").
    public func replaceHostKey() throws {
        lock.lock()
        defer { lock.unlock() }
        server.stop()
        server = try SSHPeer.startServer(
            serverDirectory, authorizedKeys: serverDirectory + "/authorized_keys", port: port,
            errorPath: folder.path + "/fixture-stderr.txt")
        hostPublicKey = try SSHPeer.readHostKey(serverDirectory)
    }

    /// Starts an `ssh-agent` holding the client key (once; later calls return the same) and
    /// returns `SSH_AUTH_SOCK` and `SSH_AGENT_PID`, to add to `environment()` for
    /// `agentURL(_:)`. The agent stops with the peer.
    public func startAgent() throws -> [String: String] {
        lock.lock()
        defer { lock.unlock() }
        if let agent { return agent.environment }
        let started = try SSHAgent(socket: folder.path + "/agent.sock")
        do {
            try SSHPeer.tool("ssh-add", ["-q", clientKeyPath], environment: started.environment)
        } catch {
            started.stop()
            throw error
        }
        agent = started
        return started.environment
    }

    /// sshd's log (connections, accepted and refused keys).
    public var serverLog: String {
        ((try? String(contentsOfFile: serverDirectory + "/sshd.log", encoding: .utf8)) ?? "") + server.errors
    }

    private func sshConfig() -> String {
        let key = configQuoted(clientKeyPath)
        return """
            # Written by SSHPeer (Tests/VaultTestSupport/GitPeers.swift). ssh reads it only when given
            # with -F (GIT_SSH_COMMAND): OpenSSH looks for ~/.ssh in the passwd home, not in $HOME.
            Host \(SSHPeer.alias)
                HostName 127.0.0.1
                Port \(port)
                User root
                IdentityFile \(key)
                IdentitiesOnly yes
                IdentityAgent none

            Host \(SSHPeer.agentAlias)
                HostName 127.0.0.1
                Port \(port)
                User root

            Host 127.0.0.1
                IdentityFile \(key)
                IdentitiesOnly yes
                IdentityAgent none

            Host *
                UserKnownHostsFile \(configQuoted(knownHostsPath))
                GlobalKnownHostsFile /dev/null
                StrictHostKeyChecking yes
                UpdateHostKeys no
                CheckHostIP no
                BatchMode yes
                PasswordAuthentication no
                KbdInteractiveAuthentication no
                ConnectTimeout 10

            """
    }

    private static func startServer(
        _ directory: String, authorizedKeys: String, port: Int, errorPath: String
    ) throws -> FixtureProcess {
        try FixtureProcess(
            python: [script, directory, authorizedKeys, "--port", String(port)], errorPath: errorPath, name: "sshd",
            logPath: directory + "/sshd.log")
    }

    private static func readHostKey(_ directory: String) throws -> String {
        let text = try String(contentsOfFile: directory + "/ssh_host_ed25519_key.pub", encoding: .utf8)
        let fields = text.split(separator: " ")
        guard fields.count >= 2 else {
            throw GitPeerError("the sshd host key \(directory)/ssh_host_ed25519_key.pub is malformed: \(text)")
        }
        return fields[0] + " " + fields[1]
    }

    private static func writePrivate(_ path: String, _ text: String) throws {
        guard
            FileManager.default.createFile(
                atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600])
        else {
            throw GitPeerError("could not write \(path)")
        }
    }

    /// Runs an OpenSSH tool (`ssh-keygen`, `ssh-add`) and throws with its output when it fails.
    fileprivate static func tool(_ name: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [name] + arguments
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        process.environment = env
        let result = try run(process)
        guard result.status == 0 else {
            throw GitPeerError(
                "\(name) \(arguments.joined(separator: " ")) exited \(result.status): \(result.stdout)\(result.stderr)")
        }
    }
}

/// An `ssh-agent` listening on a socket we choose.
///
/// Run as `ssh-agent -a SOCKET sh -c 'echo $SSH_AGENT_PID; exec cat'`: ssh-agent binds the
/// socket, then its parent becomes the shell (our child process) and the agent runs on
/// in its own process, checking every ten seconds that the shell is alive. The shell's
/// first line is the agent's pid, printed once the socket is ready. `stop()` sends the agent
/// SIGTERM and ends the shell; should the test process die first, the shell's input closes,
/// the shell ends, and the agent follows within ten seconds.
private final class SSHAgent: @unchecked Sendable {
    let environment: [String: String]
    private let process: FixtureProcess
    private let agentPID: pid_t

    init(socket: String) throws {
        try? FileManager.default.removeItem(atPath: socket)
        // Through python3, to clear the signal mask inherited from the test runner (it blocks
        // SIGTERM, and ssh-agent would then never see the one `stop()` sends).
        let unblocked =
            "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, set()); "
                + "os.execvp(sys.argv[1], sys.argv[1:])"
        process = try FixtureProcess(
            command: [
                "python3", "-c", unblocked, "ssh-agent", "-a", socket, "sh", "-c",
                "echo \"$SSH_AGENT_PID\"; exec cat >/dev/null",
            ],
            errorPath: socket + ".stderr", name: "ssh-agent")
        agentPID = pid_t(process.port)
        environment = ["SSH_AUTH_SOCK": socket, "SSH_AGENT_PID": String(agentPID)]
    }

    /// Stops the agent, then the shell. In that order: the agent inherited the descriptor
    /// through which Foundation's `Process` learns that the shell exited, so waiting for the
    /// shell first would wait until the agent noticed, up to ten seconds later.
    func stop() {
        if agentPID > 0 { kill(agentPID, SIGTERM) }
        process.stop()
    }
}

// MARK: - Child processes

/// A fixture process whose first line on standard output is a number (its port), and which
/// stops when its standard input closes. Its stderr goes to `errorPath`. (The git peers here,
/// and the fake OpenAI server.)
final class FixtureProcess: @unchecked Sendable {
    /// The number the process printed first.
    let port: Int
    private let process = Process()
    private let input = Pipe()
    private let errorPath: String
    private let lock = NSLock()
    private var stopped = false
    private let exited: DispatchSemaphore

    /// How long a fixture may take to print its port (sshd generates a key and starts).
    static let startTimeout: Double = 20

    convenience init(python arguments: [String], errorPath: String, name: String, logPath: String? = nil) throws {
        try self.init(command: ["python3"] + arguments, errorPath: errorPath, name: name, logPath: logPath)
    }

    init(command: [String], errorPath: String, name: String, logPath: String? = nil) throws {
        self.errorPath = errorPath
        _ = FileManager.default.createFile(atPath: errorPath, contents: Data())
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command
        let out = Pipe()
        process.standardOutput = out
        process.standardInput = input
        process.standardError = FileHandle(forWritingAtPath: errorPath)
        let exited = DispatchSemaphore(value: 0)
        self.exited = exited
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        // The first line is the port; it is read on another thread, so a fixture that never
        // prints it cannot hang the test.
        let line = firstLineOfFixture(of: out.fileHandleForReading, within: FixtureProcess.startTimeout)
        let answered = line != nil
        let firstLine = line ?? ""
        guard let port = Int(firstLine.trimmingCharacters(in: .whitespaces)) else {
            port = 0
            stop()
            let log = logPath.flatMap { try? String(contentsOfFile: $0, encoding: .utf8) } ?? ""
            throw GitPeerError(
                "\(name) did not start ("
                    + (answered
                        ? "it printed \(firstLine.debugDescription)"
                        : "no port after \(Int(FixtureProcess.startTimeout)) s")
                    + "); "
                    + "its errors: \(errors)\(log.isEmpty ? "" : "\nits log:\n\(log)")")
        }
        self.port = port
    }

    deinit { stop() }

    /// Closes its input, sends SIGTERM, and waits for it to exit (SIGKILL after five
    /// seconds: a process that blocks SIGTERM must not hang the test). Safe to call twice.
    func stop() {
        lock.lock()
        defer { lock.unlock() }
        guard !stopped else { return }
        stopped = true
        try? input.fileHandleForWriting.close()
        if process.isRunning { process.terminate() }
        if exited.wait(timeout: .now() + 5) == .timedOut { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    var errors: String { (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "" }
}

/// `text` in single quotes for sh (`'it'\''s'`).
private func shellQuoted(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
}

/// A git config value in double quotes, with `\\` and `"` escaped.
private func gitConfigQuoted(_ text: String) -> String {
    "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
}

/// A path for ssh_config, in double quotes.
private func configQuoted(_ path: String) -> String { "\"\(path)\"" }
