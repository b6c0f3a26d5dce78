import Foundation
import Testing
import VaultCore
import VaultTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// `vault clone` and `vault sync` over the real network transports: smart HTTP behind a token
/// (`GitHTTPServer`) and OpenSSH (`SSHPeer`), both on 127.0.0.1 (Tests/VaultTestSupport/GitPeers.swift).
/// What must work works end to end, and what must be refused is refused with one line a person
/// can act on, leaving the vault as it was.
///
/// Every `vault` here runs with an environment built from nothing of the person running the
/// tests that could reach a remote (`NetWorld.environment`): no git config but the one a test
/// gives, no ssh agent, no token, and stdin not a terminal.
@Suite struct SyncTransportTests {
    static let room = "rooms/독서-모임-발제문.md"

    // MARK: 1. Smart HTTP with VAULT_GIT_TOKEN

    /// The token comes from `VAULT_GIT_TOKEN` in vault's environment alone: not in the URL, and
    /// no credential helper in any git config (HOME is an empty folder, no system config). So
    /// vault's own credential helper is what authenticates, and the server's log shows it.
    @Test func httpWithTheTokenClonesAndSyncsBothWays() throws {
        // Characters a shell or git's credential protocol could trip on.
        let token = "vt_9f2'\"$HOME `x` ;&|"
        let w = NetWorld()
        let bare = try w.bareRepository()
        let server = try GitHTTPServer(root: w.remotes, token: token)
        w.serve(server.url("notes"), by: server)
        // `git` on the PATH logs its arguments, to show the token is in no command line.
        let argv = try w.loggingGit()

        try w.makeFirst("laptop", ["VAULT_GIT_TOKEN": token])
        let cloned = try w.clone("desktop", ["VAULT_GIT_TOKEN": token, "VAULT_GIT_USERNAME": "desk"])
        try w.expectOK(cloned)
        #expect(try w.files("desktop") == w.files("laptop"))

        let before = try w.ids("laptop", Self.room)
        try w.chat("laptop", Self.room, "노트북에서 HTTP로 보낸 말")
        try w.chat("desktop", Self.room, "데스크톱에서 HTTP로 보낸 말")
        try w.expectOK(w.vault("laptop", ["sync"], ["VAULT_GIT_TOKEN": token]))
        try w.expectOK(w.vault("desktop", ["sync"], ["VAULT_GIT_TOKEN": token, "VAULT_GIT_USERNAME": "desk"]))
        try w.expectOK(w.vault("laptop", ["sync"], ["VAULT_GIT_TOKEN": token]))

        try w.expectIdentical("laptop", "desktop", remote: bare)
        let ids = try w.ids("desktop", Self.room)
        #expect(ids.count == before.count + 4 && Set(ids).count == ids.count, "\(ids)")
        #expect(Set(before).isSubset(of: Set(ids)))
        for machine in ["laptop", "desktop"] {
            let text = try w.read(machine, Self.room)
            #expect(text.contains("노트북에서 HTTP로 보낸 말") && text.contains("데스크톱에서 HTTP로 보낸 말"), "\(machine)")
        }

        // Each machine fetched and pushed with its own user name and the token; git asked
        // without credentials first (401), nothing else was refused.
        let requests = server.requests()
        for (verb, user) in [("git-receive-pack", "vault"), ("git-upload-pack", "desk"), ("git-receive-pack", "desk")] {
            #expect(
                requests.contains { $0.hasPrefix("POST /notes.git/\(verb) 200 user=\(user) ") },
                "\(verb) \(user): \(requests)")
        }
        #expect(
            requests.allSatisfy {
                $0.contains(" 200 user=vault ") || $0.contains(" 200 user=desk ") || $0.contains(" 401 user=- ")
            }, "\(requests)")

        // The token is in no file of either vault (the remote URL included) and in no git
        // command line.
        for machine in ["laptop", "desktop"] {
            #expect(try git(["remote", "get-url", "origin"], in: w.path(machine)) == server.url("notes") + "\n")
            let leaked = filesContaining(Array(token.utf8), under: w.path(machine))
            #expect(leaked.isEmpty, "the token is written in \(leaked)")
        }
        let commandLines = try String(contentsOfFile: argv, encoding: .utf8)
        #expect(commandLines.contains("credential.helper="), "\(commandLines)")
        #expect(!commandLines.contains(token) && !commandLines.contains("vt_9f2"), "\(commandLines)")
    }

    // MARK: 2. HTTP with a wrong token, and with none

    @Test func httpWithAWrongTokenOrNoneIsRefusedAndChangesNothing() throws {
        let w = NetWorld()
        let bare = try w.bareRepository()
        let server = try GitHTTPServer(root: w.remotes, token: "the-right-token")
        w.serve(server.url("notes"), by: server)
        let right = ["VAULT_GIT_TOKEN": "the-right-token"]
        try w.makeFirst("laptop", right)
        try w.expectOK(w.clone("desktop", right))
        // Something to fetch and something to push: a refused sync must do neither half.
        try w.chat("laptop", Self.room, "원격에 있는 말")
        try w.expectOK(w.vault("laptop", ["sync"], right))
        try w.chat("desktop", Self.room, "보내지 못한 말")
        let before = try w.state("desktop")
        let remoteHead = try git(["rev-parse", "HEAD"], in: bare)
        let seen = server.requests().count

        for (label, environment) in [("a wrong token", ["VAULT_GIT_TOKEN": "not-the-token"]), ("no token", [:])] {
            let r = try w.vault("desktop", ["sync"], environment)
            #expect(r.status == 1, "\(label): \(r.stderr)")
            let line = try expectOneLine(r.stderr, label)
            #expect(line.contains("refused") && line.contains("VAULT_GIT_TOKEN"), "\(label): \(line)")
            #expect(line.contains("Nothing in the vault was changed"), "\(label): \(line)")
            #expect(try w.state("desktop") == before, "\(label) changed the vault")
        }
        // The wrong token is named as the one that was refused; without one, vault says to set it.
        #expect(
            try w.vault("desktop", ["sync"], ["VAULT_GIT_TOKEN": "x"]).stderr.contains("the token in VAULT_GIT_TOKEN"))
        #expect(try w.vault("desktop", ["sync"]).stderr.contains("set VAULT_GIT_TOKEN"))

        // A refused clone leaves no folder behind, and empties a folder it was given.
        for (label, environment) in [("a wrong token", ["VAULT_GIT_TOKEN": "not-the-token"]), ("no token", [:])] {
            let r = try w.clone("third", environment)
            #expect(r.status == 1, "\(label): \(r.stderr)")
            let line = try expectOneLine(r.stderr, "clone with \(label)")
            #expect(line.contains("refused") && line.contains("VAULT_GIT_TOKEN"), "\(label): \(line)")
            #expect(
                !FileManager.default.fileExists(atPath: w.folder.path + "/third"), "clone with \(label) left a folder")
        }
        let empty = w.folder.path + "/empty"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: false)
        let intoEmpty = try w.vault(
            nil, ["clone", server.url("notes"), empty], ["VAULT_GIT_TOKEN": "nope"], in: w.folder.path)
        #expect(intoEmpty.status == 1, "\(intoEmpty.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: empty).isEmpty)

        // The server answered every one of those requests 401, and its branch did not move.
        let refused = server.requests().dropFirst(seen)
        #expect(!refused.isEmpty && refused.allSatisfy { $0.split(separator: " ")[2] == "401" }, "\(Array(refused))")
        #expect(try git(["rev-parse", "HEAD"], in: bare) == remoteHead)
        // And with the right token the same sync goes through.
        try w.expectOK(w.vault("desktop", ["sync"], right))
        #expect(try git(["rev-parse", "HEAD"], in: bare) == git(["rev-parse", "HEAD"], in: w.path("desktop")))
    }

    // MARK: 3. ssh through the config alias, with a key file

    /// How the test gives vault its ssh configuration: a person keeps it in `~/.ssh/config`, but
    /// OpenSSH reads that from the passwd entry's home (root's `/root`), not from `$HOME`, so a
    /// test cannot point ssh at its own config through HOME alone. The fixture's home has a
    /// `.gitconfig` with `core.sshCommand = ssh -F home/.ssh/config`; with HOME set to it, git
    /// (and so vault) uses that config, its alias, key and known_hosts. This is the way a person
    /// who configured git's ssh in their git config works, and it proves vault keeps their
    /// `core.sshCommand` instead of putting its own GIT_SSH_COMMAND over it (with vault's,
    /// ssh would not know the alias `vault-test`). The person's plain `~/.ssh/config` case, with
    /// vault's own ssh options, is `sshWithThePersonsOwnSSHConfig` below.
    @Test func sshThroughTheAliasClonesAndSyncsBothWays() throws {
        let peer = try SSHPeer()
        let w = NetWorld()
        let bare = try w.bareRepository()
        w.serve(peer.url(bare), by: peer)
        let env = ["HOME": peer.home]

        try w.makeFirst("laptop", env)
        try w.expectOK(w.clone("desktop", env))
        let before = try w.ids("laptop", Self.room)
        try w.chat("laptop", Self.room, "노트북에서 ssh로")
        try w.chat("desktop", Self.room, "데스크톱에서 ssh로")
        try w.expectOK(w.vault("laptop", ["sync"], env))
        try w.expectOK(w.vault("desktop", ["sync"], env))
        try w.expectOK(w.vault("laptop", ["sync"], env))

        try w.expectIdentical("laptop", "desktop", remote: bare)
        let ids = try w.ids("laptop", Self.room)
        #expect(ids.count == before.count + 4 && Set(ids).count == ids.count)
        #expect(try w.read("laptop", Self.room).contains("데스크톱에서 ssh로"))
        #expect(try w.read("desktop", Self.room).contains("노트북에서 ssh로"))
        #expect(peer.serverLog.contains("Accepted publickey for root"), "\(peer.serverLog)")
    }

    /// `core.sshCommand` is the person's wherever git reads it from, not only `~/.gitconfig`:
    /// `GIT_CONFIG_GLOBAL`, `$XDG_CONFIG_HOME/git/config`, the repository's own config. Vault
    /// must not put its GIT_SSH_COMMAND over any of them.
    @Test func sshCommandFromAnyGitConfigIsKept() throws {
        let peer = try SSHPeer()
        let w = NetWorld()
        let bare = try w.bareRepository()
        w.serve(peer.url(bare), by: peer)
        let setting = try String(contentsOfFile: peer.home + "/.gitconfig", encoding: .utf8)

        // GIT_CONFIG_GLOBAL names a config file elsewhere; HOME has none.
        let global = w.folder.path + "/global-gitconfig"
        try setting.write(toFile: global, atomically: true, encoding: .utf8)
        try w.makeFirst("laptop", ["GIT_CONFIG_GLOBAL": global])

        // $XDG_CONFIG_HOME/git/config.
        let xdg = w.folder.path + "/xdg"
        try FileManager.default.createDirectory(atPath: xdg + "/git", withIntermediateDirectories: true)
        try setting.write(toFile: xdg + "/git/config", atomically: true, encoding: .utf8)
        try w.expectOK(w.clone("desktop", ["XDG_CONFIG_HOME": xdg]))

        // The repository's own config.
        try git(["config", "core.sshCommand", peer.sshCommand], in: w.path("desktop"))
        try w.chat("desktop", Self.room, "저장소 설정의 ssh로")
        try w.expectOK(w.vault("desktop", ["sync"]))
        try w.expectOK(w.vault("laptop", ["sync"], ["GIT_CONFIG_GLOBAL": global]))
        try w.expectIdentical("laptop", "desktop", remote: bare)
    }

    /// The person's real case: the alias is in their `~/.ssh/config`, and neither GIT_SSH_COMMAND
    /// nor core.sshCommand is set, so vault runs ssh with its own options. OpenSSH reads
    /// `~/.ssh/config` from the passwd home, so an `ssh` first on the PATH stands in for it: it
    /// runs the real ssh with `-F` a config like a person's (the alias and key, known_hosts,
    /// `StrictHostKeyChecking accept-new`, no BatchMode) and the options vault gave. The alias
    /// works through vault's ssh command, vault asks for strict host key checking and batch
    /// mode, and so an unknown host is refused rather than accepted or prompted for, even though
    /// the person's config would accept it.
    @Test func sshWithThePersonsOwnSSHConfig() throws {
        let peer = try SSHPeer()
        let w = NetWorld()
        let bare = try w.bareRepository()
        w.serve(peer.url(bare), by: peer)
        let ssh = try w.personsSSH(peer)

        try w.makeFirst("laptop")
        try w.expectOK(w.clone("desktop"))
        try w.chat("desktop", Self.room, "내 ssh 설정으로")
        try w.expectOK(w.vault("desktop", ["sync"]))
        try w.expectOK(w.vault("laptop", ["sync"]))
        try w.expectIdentical("laptop", "desktop", remote: bare)
        let calls = try String(contentsOfFile: ssh.log, encoding: .utf8)
        #expect(calls.contains("-o StrictHostKeyChecking=yes") && calls.contains("-o BatchMode=yes"), "\(calls)")
        #expect(calls.contains(SSHPeer.alias), "\(calls)")

        // An unknown host: refused, not prompted for, and not added to known_hosts.
        try "".write(toFile: ssh.knownHosts, atomically: true, encoding: .utf8)
        try w.chat("laptop", Self.room, "못 가는 말")
        let before = try w.state("laptop")
        let r = try w.vault("laptop", ["sync"])
        #expect(r.status == 1, "\(r.stderr)")
        let line = try expectOneLine(r.stderr, "unknown host")
        #expect(line.contains("host key") && line.contains("unknown") && line.contains("known_hosts"), "\(line)")
        #expect(try w.state("laptop") == before)
        #expect(try String(contentsOfFile: ssh.knownHosts, encoding: .utf8) == "", "the unknown host key was accepted")
    }

    // MARK: 4. ssh with the agent

    @Test func sshWithTheAgent() throws {
        let peer = try SSHPeer()
        let w = NetWorld()
        let bare = try w.bareRepository()
        w.serve(peer.agentURL(bare), by: peer)
        var agent = ["HOME": peer.home]
        for (k, v) in try peer.startAgent() { agent[k] = v }

        try w.makeFirst("laptop", agent)
        // Without the agent, the alias has no key to offer.
        let refused = try w.clone("desktop", ["HOME": peer.home])
        #expect(refused.status == 1, "\(refused.stderr)")
        let line = try expectOneLine(refused.stderr, "clone without the agent")
        #expect(line.contains("refused every key") && line.contains("ssh-agent"), "\(line)")
        #expect(!FileManager.default.fileExists(atPath: w.folder.path + "/desktop"))

        try w.expectOK(w.clone("desktop", agent))
        try w.chat("laptop", Self.room, "에이전트 노트북")
        try w.chat("desktop", Self.room, "에이전트 데스크톱")
        try w.expectOK(w.vault("laptop", ["sync"], agent))
        try w.expectOK(w.vault("desktop", ["sync"], agent))
        try w.expectOK(w.vault("laptop", ["sync"], agent))
        try w.expectIdentical("laptop", "desktop", remote: bare)
        #expect(try w.read("laptop", Self.room).contains("에이전트 데스크톱"))
    }

    // MARK: 5. A changed or unknown host key

    @Test func sshRefusesAChangedOrUnknownHostKey() throws {
        let peer = try SSHPeer()
        let w = NetWorld()
        let bare = try w.bareRepository()
        w.serve(peer.url(bare), by: peer)
        let env = ["HOME": peer.home]
        try w.makeFirst("laptop", env)
        try w.chat("laptop", Self.room, "호스트 키가 바뀌기 전")
        let before = try w.state("laptop")
        let remoteHead = try git(["rev-parse", "HEAD"], in: bare)

        try peer.replaceHostKey()
        let changed = try w.vault("laptop", ["sync"], env)
        #expect(changed.status == 1, "\(changed.stderr)")
        let line = try expectOneLine(changed.stderr, "changed host key")
        #expect(line.contains("host key") && line.contains("changed") && line.contains("known_hosts"), "\(line)")
        // How to fix it: check the key, drop the old one, add the new one.
        #expect(line.contains("ssh-keygen -R") && line.contains("ssh-keyscan"), "\(line)")
        #expect(try w.state("laptop") == before)

        let knownHosts = try String(contentsOfFile: peer.knownHostsPath, encoding: .utf8)
        try "".write(toFile: peer.knownHostsPath, atomically: true, encoding: .utf8)
        let unknown = try w.vault("laptop", ["sync"], env)
        #expect(unknown.status == 1, "\(unknown.stderr)")
        let unknownLine = try expectOneLine(unknown.stderr, "unknown host")
        #expect(
            unknownLine.contains("host key") && unknownLine.contains("unknown") && unknownLine.contains("ssh-keyscan"),
            "\(unknownLine)")
        #expect(try w.state("laptop") == before)
        #expect(try String(contentsOfFile: peer.knownHostsPath, encoding: .utf8) == "")
        #expect(try git(["rev-parse", "HEAD"], in: bare) == remoteHead)

        // The refusal was about the key alone: with the new key trusted, the same sync goes through.
        let hosts = knownHosts.split(separator: " ").first.map(String.init) ?? ""
        try "\(hosts) \(peer.hostPublicKey)\n".write(toFile: peer.knownHostsPath, atomically: true, encoding: .utf8)
        try w.expectOK(w.vault("laptop", ["sync"], env))
        #expect(try git(["rev-parse", "HEAD"], in: bare) == git(["rev-parse", "HEAD"], in: w.path("laptop")))
    }

    // MARK: 6. Nothing listens

    @Test func syncToAPortNothingListensOnSaysSoAndChangesNothing() throws {
        let peer = try SSHPeer()
        let w = NetWorld()
        let bare = try w.bareRepository()
        w.serve(peer.url(bare), by: peer)
        let env = ["HOME": peer.home]
        try w.makeFirst("laptop", env)
        try w.chat("laptop", Self.room, "서버가 꺼진 뒤")
        // Ports with "401" in them, where nothing listens: a connection refused must not read
        // as an HTTP 401.
        let port = try #require(unusedPort(in: 40100...40199))
        try w.expectOK(w.vault("laptop", ["remote", "add", "ssh401", "ssh://root@127.0.0.1:\(port)\(bare)"]))
        try w.expectOK(w.vault("laptop", ["remote", "add", "http401", "http://127.0.0.1:\(port)/notes.git"]))
        let before = try w.state("laptop")

        peer.stop()
        for remote in ["origin", "ssh401", "http401"] {
            let r = try w.vault("laptop", ["sync", remote], env)
            #expect(r.status == 1, "\(remote): \(r.stderr)")
            let line = try expectOneLine(r.stderr, remote)
            #expect(
                line.contains("nothing answers at \(remote)") && line.contains("connection refused"),
                "\(remote): \(line)")
            #expect(line.contains("port \(remote == "origin" ? peer.port : port)"), "\(remote): \(line)")
            #expect(!line.contains("password") && !line.contains("VAULT_GIT_TOKEN"), "\(remote): \(line)")
            #expect(line.contains("Nothing in the vault was changed"), "\(remote): \(line)")
            #expect(try w.state("laptop") == before, "\(remote)")
        }
    }
}

// MARK: - Fixture

/// Machines that are vault folders syncing with one network remote (`url`). Like `SyncWorld`,
/// but every `vault` runs with exactly the environment the test gives on top of a clean one.
final class NetWorld {
    let folder = TemporaryDirectory("vault-net")
    /// The remote every machine syncs with (`serve(_:by:)`).
    private(set) var url = ""
    /// The server or peer behind `url`, kept running as long as the world.
    private var peer: AnyObject?
    /// Machine name → its vault folder.
    private(set) var machines: [String: String] = [:]
    /// Folders put before the vault's folder on the PATH (`loggingGit()`, `personsSSH(_:)`).
    private var pathPrefix: [String] = []

    /// The folder of bare repositories (`bareRepository()`): a `GitHTTPServer`'s root.
    var remotes: String { folder.path + "/remotes" }

    /// Makes `remotes/notes.git`, a bare repository whose HEAD is `main`, and returns its path.
    func bareRepository() throws -> String {
        let bare = remotes + "/notes.git"
        try makeBareRepository(at: bare)
        return bare
    }

    /// The machines' remote is `url`, which `peer` serves (and which lives as long as the world).
    func serve(_ url: String, by peer: AnyObject) {
        self.url = url
        self.peer = peer
    }

    /// A home folder with nothing in it: no git config, no ssh config.
    var emptyHome: String {
        let home = folder.path + "/empty-home"
        try? FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        return home
    }

    func path(_ machine: String) -> String { machines[machine]! }

    /// The environment `vault` runs with: the test process's, without anything that could
    /// reach a remote or answer for credentials (git and ssh variables, vault's, HOME,
    /// XDG_CONFIG_HOME), an empty HOME, no system git config, `vault` on the PATH for git's
    /// merge driver; then `extra`.
    func environment(_ machine: String?, _ extra: [String: String]) -> [String: String] {
        var env = ProcessInfo.processInfo.environment.filter { key, _ in
            !(key.hasPrefix("GIT_") || key.hasPrefix("SSH_") || key.hasPrefix("VAULT_") || key == "HOME"
                || key == "XDG_CONFIG_HOME")
        }
        env["HOME"] = emptyHome
        env["GIT_CONFIG_NOSYSTEM"] = "1"
        env["PATH"] = (pathPrefix + [SyncWorld.pathWithVault]).joined(separator: ":")
        env["VAULT_LOCK_TIMEOUT"] = "60"
        env["LANG"] = "C.UTF-8"
        if let machine { env["VAULT_MACHINE"] = machine }
        for (k, v) in extra { env[k] = v }
        return env
    }

    /// Runs `vault` as `machine` (nil: as nobody, e.g. for a clone) with `environment(machine, extra)`.
    @discardableResult
    func vault(
        _ machine: String?, _ arguments: [String], _ extra: [String: String] = [:], in directory: String? = nil
    ) throws
        -> RunResult
    {
        let process = vaultProcess(arguments, in: directory ?? path(machine!))
        process.environment = environment(machine, extra)
        return try run(process)
    }

    /// Machine `name` holds a copy of sample-vault; its remote origin is `url`, and it syncs once
    /// (the sync's result: it must succeed unless `expectSync` is false).
    @discardableResult
    func makeFirst(_ name: String, _ extra: [String: String] = [:], expectSync: Bool = true) throws -> RunResult {
        let root = folder.path + "/" + name
        try FileManager.default.copyItem(atPath: Project.root + "/sample-vault", toPath: root)
        machines[name] = root
        try expectOK(vault(name, ["init", "."], extra))
        try identify(name)
        try expectOK(vault(name, ["remote", "add", "origin", url], extra))
        let synced = try vault(name, ["sync"], extra)
        if expectSync { try expectOK(synced) }
        return synced
    }

    /// `vault clone URL folder/NAME`, run in the world's folder; registers the machine when it worked.
    func clone(_ name: String, _ extra: [String: String] = [:]) throws -> RunResult {
        let root = folder.path + "/" + name
        let r = try vault(name, ["clone", url, root], extra, in: folder.path)
        if r.status == 0 {
            machines[name] = root
            try identify(name)
        }
        return r
    }

    /// A commit author in the machine's repository config: HOME is not the person's, and without
    /// one every command that commits would add a warning to what it prints.
    private func identify(_ machine: String) throws {
        try git(["config", "user.name", "Person on \(machine)"], in: path(machine))
        try git(["config", "user.email", "\(machine)@example.com"], in: path(machine))
    }

    func chat(_ machine: String, _ room: String, _ message: String) throws {
        try expectOK(vault(machine, ["chat", room, message, "--provider", "offline"]))
    }

    func read(_ machine: String, _ relative: String) throws -> String {
        String(decoding: try Data(contentsOf: URL(fileURLWithPath: path(machine) + "/" + relative)), as: UTF8.self)
    }

    /// Message ids of a room as the parser reads it.
    func ids(_ machine: String, _ room: String) throws -> [String] {
        try RoomFile(parsing: Array(read(machine, room).utf8), path: room).messages.map(\.id)
    }

    /// Every file of the machine's vault (not `.git/`, not `.vault/`), path → bytes.
    func files(_ machine: String) throws -> [String: [UInt8]] {
        var out: [String: [UInt8]] = [:]
        let root = path(machine)
        let e = FileManager.default.enumerator(atPath: root)
        while let p = e?.nextObject() as? String {
            if p == ".git" || p == ".vault" { e?.skipDescendants(); continue }
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: root + "/" + p, isDirectory: &isDir), !isDir.boolValue {
                out[p] = Array(try Data(contentsOf: URL(fileURLWithPath: root + "/" + p)))
            }
        }
        return out
    }

    /// What a failed command must leave as it was: the files, HEAD, every ref, the index's view
    /// of the work tree, and the repository's config (remotes, upstreams).
    struct State: Equatable {
        var files: [String: [UInt8]]
        var head: String
        var refs: String
        var status: String
        var config: [UInt8]
    }

    func state(_ machine: String) throws -> State {
        let root = path(machine)
        return State(
            files: try files(machine), head: try git(["rev-parse", "HEAD"], in: root),
            refs: try git(["for-each-ref", "--format=%(refname) %(objectname)"], in: root),
            status: try git(["status", "--porcelain"], in: root),
            config: Array(try Data(contentsOf: URL(fileURLWithPath: root + "/.git/config"))))
    }

    /// Both machines have the same files and HEAD, that HEAD is the remote's HEAD (its branch
    /// `master`, git's default, which vault pushed to: `followUnbornRemoteHead`), and each is
    /// clean for git.
    func expectIdentical(
        _ a: String, _ b: String, remote bare: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(try files(a) == files(b), "\(a) and \(b) differ", sourceLocation: sourceLocation)
        let head = try git(["rev-parse", "HEAD"], in: path(a))
        #expect(try git(["rev-parse", "HEAD"], in: path(b)) == head, sourceLocation: sourceLocation)
        #expect(
            try git(["rev-parse", "HEAD"], in: bare) == head, "the remote is not at \(a)'s HEAD",
            sourceLocation: sourceLocation)
        for machine in [a, b] {
            _ = try git(["fsck", "--strict", "--no-progress"], in: path(machine))
            #expect(
                try git(["status", "--porcelain"], in: path(machine)) == "", "\(machine) is not clean",
                sourceLocation: sourceLocation)
        }
    }

    func expectOK(_ r: RunResult, sourceLocation: SourceLocation = #_sourceLocation) throws {
        if r.status != 0 {
            Issue.record("vault exited \(r.status): \(r.stderr)", sourceLocation: sourceLocation)
            throw SyncTestFailure(r.stderr)
        }
    }

    /// Puts a `git` first on the PATH that appends its arguments (one line per run) to a log,
    /// then runs the real one; returns the log's path.
    func loggingGit() throws -> String {
        let bin = folder.path + "/git-bin"
        let log = folder.path + "/git-argv.log"
        let real = try #require(NetWorld.which("git"), "git is not on the PATH")
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try NetWorld.script(
            bin + "/git", "printf '%s\\n' \"$*\" >> \(shellQuoted(log))\nexec \(shellQuoted(real)) \"$@\"")
        _ = FileManager.default.createFile(atPath: log, contents: Data())
        pathPrefix.insert(bin, at: 0)
        return log
    }

    /// What a person with the peer's host in `~/.ssh/config` has (see `sshWithThePersonsOwnSSHConfig`).
    struct PersonsSSH {
        var knownHosts: String
        /// One line per ssh run: the arguments git and vault gave it.
        var log: String
    }

    /// A config like a person's for the peer's alias (`StrictHostKeyChecking accept-new`, no
    /// BatchMode), its own known_hosts holding the peer's key, and an `ssh` first on the PATH
    /// that runs the real ssh with `-F` that config, standing in for `~/.ssh/config`. HOME is an
    /// empty folder: no git config sets an ssh command.
    func personsSSH(_ peer: SSHPeer) throws -> PersonsSSH {
        let dir = folder.path + "/persons-ssh"
        let bin = dir + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        let knownHosts = dir + "/known_hosts"
        let config = dir + "/config"
        let log = dir + "/ssh-argv.log"
        try "[127.0.0.1]:\(peer.port) \(peer.hostPublicKey)\n".write(
            toFile: knownHosts, atomically: true, encoding: .utf8)
        try """
            Host \(SSHPeer.alias)
                HostName 127.0.0.1
                Port \(peer.port)
                User root
                IdentityFile "\(peer.clientKeyPath)"
                IdentitiesOnly yes

            Host *
                UserKnownHostsFile "\(knownHosts)"
                GlobalKnownHostsFile /dev/null
                StrictHostKeyChecking accept-new
                CheckHostIP no
                UpdateHostKeys no
                ConnectTimeout 10

            """.write(toFile: config, atomically: true, encoding: .utf8)
        chmod(config, 0o600)
        let real = try #require(NetWorld.which("ssh"), "ssh is not on the PATH")
        try NetWorld.script(
            bin + "/ssh",
            "printf '%s\\n' \"$*\" >> \(shellQuoted(log))\nexec \(shellQuoted(real)) -F \(shellQuoted(config)) \"$@\"")
        _ = FileManager.default.createFile(atPath: log, contents: Data())
        pathPrefix.insert(bin, at: 0)
        return PersonsSSH(knownHosts: knownHosts, log: log)
    }

    static func which(_ name: String) -> String? {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = String(dir) + "/" + name
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    private static func script(_ path: String, _ body: String) throws {
        try ("#!/bin/sh\n" + body + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
    }
}

/// The files under `root` (recursively, `.git` included) whose bytes contain `needle`.
private func filesContaining(_ needle: [UInt8], under root: String) -> [String] {
    var found: [String] = []
    let e = FileManager.default.enumerator(atPath: root)
    while let p = e?.nextObject() as? String {
        guard let data = FileManager.default.contents(atPath: root + "/" + p) else { continue }
        if data.range(of: Data(needle)) != nil { found.append(p) }
    }
    return found
}

/// The one line vault printed on stderr (`vault: error: …`), or a recorded issue.
private func expectOneLine(
    _ stderr: String, _ label: String, sourceLocation: SourceLocation = #_sourceLocation
) throws -> String {
    let lines = stderr.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.count == 2 && lines[1].isEmpty, "\(label): not one line: \(stderr)", sourceLocation: sourceLocation)
    let line = String(try #require(lines.first, sourceLocation: sourceLocation))
    #expect(line.hasPrefix("vault: error: "), "\(label): \(line)", sourceLocation: sourceLocation)
    return line
}

/// A port on 127.0.0.1 in `range` that nothing is bound to right now (bound, then released).
private func unusedPort(in range: ClosedRange<Int>) -> Int? {
    for port in range.shuffled() {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if bound == 0 { return port }
    }
    return nil
}

/// `text` in single quotes for sh.
private func shellQuoted(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
}
