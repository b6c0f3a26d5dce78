import Foundation
import Testing
import VaultTestSupport

// The network peers of the sync tests (VaultTestSupport/GitPeers.swift) against the real
// `git` command line: what works must work, and what must be refused is refused. These check
// the peers themselves with plain git clones, which check out the remote's HEAD: their bare
// repositories name `main` (the vault's tests use git's own default).

@Suite struct GitPeersTests {
    /// A repository with one commit on `main` holding `notes.md`; returns its folder.
    static func workRepository(_ text: String = "# 부산 여행 🌊\n첫째 날\n") throws -> TemporaryDirectory {
        let work = TemporaryDirectory("peer-work")
        try gitCLI(["init", "--quiet", "--initial-branch=main"], in: work.path)
        try work.write("notes.md", text)
        try gitCLI(["add", "notes.md"], in: work.path)
        try gitCLI(["commit", "--quiet", "-m", "first"], in: work.path)
        return work
    }

    /// Runs git expecting success; the failure message has everything git said.
    @discardableResult
    static func gitOK(_ arguments: [String], in directory: String, _ environment: [String: String]) throws -> GitRun {
        let r = try gitRun(arguments, in: directory, environment: environment)
        try #require(r.status == 0, "git \(arguments.joined(separator: " ")) exited \(r.status): \(r.stderr)")
        return r
    }

    // MARK: HTTP

    @Test func httpPushAndCloneWithTheToken() throws {
        let root = TemporaryDirectory("http-root")
        try makeBareRepository(at: root.path + "/notes.git", initialBranch: "main")
        let server = try GitHTTPServer(root: root.path, token: "tok-3f9a'\"$x")
        let work = try Self.workRepository()

        try Self.gitOK(["push", server.url("notes"), "main"], in: work.path, server.environment())
        let clone = TemporaryDirectory("http-clone")
        try Self.gitOK(
            ["clone", "--quiet", server.url("notes"), clone.path + "/c"], in: clone.path, server.environment())
        #expect(try clone.readText("c/notes.md") == "# 부산 여행 🌊\n첫째 날\n")
        #expect(
            try gitCLI(["rev-parse", "main"], in: root.path + "/notes.git")
                == gitCLI(["rev-parse", "HEAD"], in: work.path))

        // git asked without credentials first, was told 401, then came back with the token.
        let requests = server.requests()
        #expect(
            requests.contains { $0.hasPrefix("GET /notes.git/info/refs?service=git-receive-pack 401 user=-") },
            "\(requests)")
        #expect(requests.contains { $0.hasPrefix("POST /notes.git/git-receive-pack 200 user=vault") }, "\(requests)")
        #expect(requests.contains { $0.hasPrefix("POST /notes.git/git-upload-pack 200 user=vault") }, "\(requests)")

        // The token in the URL works as well.
        let second = TemporaryDirectory("http-clone-url")
        try Self.gitOK(
            ["clone", "--quiet", server.url("notes", user: "me", password: "tok-3f9a'\"$x"), second.path + "/c"],
            in: second.path,
            server.environment(password: nil))
        #expect(try second.readText("c/notes.md") == "# 부산 여행 🌊\n첫째 날\n")
    }

    @Test func httpRefusesAWrongOrMissingToken() throws {
        let root = TemporaryDirectory("http-root")
        try makeBareRepository(at: root.path + "/notes.git", initialBranch: "main")
        let server = try GitHTTPServer(root: root.path, token: "right-token")
        let work = try Self.workRepository()

        let wrong = try gitRun(
            ["push", server.url("notes"), "main"], in: work.path,
            environment: server.environment(password: "wrong-token"))
        #expect(wrong.status != 0)
        #expect(wrong.stderr.contains("Authentication failed"), "\(wrong.stderr)")

        let none = try gitRun(
            ["push", server.url("notes"), "main"], in: work.path, environment: server.environment(password: nil))
        #expect(none.status != 0)
        #expect(none.stderr.contains("terminal prompts disabled"), "\(none.stderr)")

        let fetch = try gitRun(
            ["ls-remote", server.url("notes")], in: work.path, environment: server.environment(password: "wrong-token"))
        #expect(fetch.status != 0)

        // Every request was answered 401, and nothing arrived.
        let requests = server.requests()
        #expect(!requests.isEmpty)
        #expect(requests.allSatisfy { $0.split(separator: " ")[2] == "401" }, "\(requests)")
        #expect(try gitCLI(["for-each-ref"], in: root.path + "/notes.git").isEmpty)
    }

    @Test func httpWithoutATokenIsOpen() throws {
        let root = TemporaryDirectory("http-root")
        try makeBareRepository(at: root.path + "/notes.git", initialBranch: "main")
        let server = try GitHTTPServer(root: root.path, token: nil)
        let work = try Self.workRepository()
        try Self.gitOK(["push", server.url("notes.git"), "main"], in: work.path, server.environment())
        let clone = TemporaryDirectory("http-clone")
        try Self.gitOK(
            ["clone", "--quiet", server.url("notes"), clone.path + "/c"], in: clone.path, server.environment())
        #expect(try clone.readText("c/notes.md") == "# 부산 여행 🌊\n첫째 날\n")
    }

    /// A push larger than http.postBuffer comes chunked, and a fetch with many `have` lines
    /// sends a gzipped body: both reach http-backend intact.
    @Test func httpChunkedPushAndGzippedNegotiation() throws {
        let root = TemporaryDirectory("http-root")
        try makeBareRepository(at: root.path + "/notes.git", initialBranch: "main")
        let server = try GitHTTPServer(root: root.path, token: "t")
        let work = try Self.workRepository()
        var random = SeededRandom(seed: 7)
        let big = (0..<375_000).flatMap { _ in withUnsafeBytes(of: random.next()) { Array($0) } }
        try work.write("attachments/big.bin", big)
        try gitCLI(["add", "attachments/big.bin"], in: work.path)
        try gitCLI(["commit", "--quiet", "-m", "big"], in: work.path)
        try Self.gitOK(["push", server.url("notes"), "main"], in: work.path, server.environment())
        #expect(
            server.requests().contains {
                $0.hasPrefix("POST /notes.git/git-receive-pack 200") && $0.contains("chunked=yes")
            }, "\(server.requests())")

        // The clone gains 40 commits the server does not have, then fetches a new one.
        let clone = TemporaryDirectory("http-clone")
        try Self.gitOK(
            ["clone", "--quiet", server.url("notes"), clone.path + "/c"], in: clone.path, server.environment())
        #expect(try clone.read("c/attachments/big.bin") == big)
        // One fast-import run instead of 80 git processes. The commits are newer than the
        // clone's tip: git offers `have`s newest first, so they come before the common one.
        let now = Int(Date().timeIntervalSince1970) + 60
        var stream = ""
        for i in 0..<40 {
            let file = "local \(i)\n"
            stream +=
                "commit refs/heads/main\ncommitter Git CLI <cli@example.com> \(now + i) +0000\n"
                    + "data 8\nlocal \(i < 10 ? "0" : "")\(i)\n"
            if i == 0 { stream += "from refs/heads/main^0\n" }
            stream += "M 100644 inline local.md\ndata \(file.utf8.count)\n\(file)\n"
        }
        try git(["fast-import", "--quiet"], in: clone.path + "/c", stdin: stream)
        #expect(try gitCLI(["rev-list", "--count", "main", "^origin/main"], in: clone.path + "/c") == "40\n")
        try gitCLI(["commit", "--quiet", "--allow-empty", "-m", "remote"], in: work.path)
        try Self.gitOK(["push", server.url("notes"), "main"], in: work.path, server.environment())
        try Self.gitOK(["fetch", "--quiet", "origin"], in: clone.path + "/c", server.environment())
        #expect(
            try gitCLI(["rev-parse", "origin/main"], in: clone.path + "/c")
                == gitCLI(["rev-parse", "main"], in: work.path))
        #expect(
            server.requests().contains {
                $0.hasPrefix("POST /notes.git/git-upload-pack 200") && $0.contains("encoding=gzip")
            }, "\(server.requests())")
    }

    // MARK: SSH

    @Test func sshPushAndCloneThroughTheAlias() throws {
        let peer = try SSHPeer()
        let remote = TemporaryDirectory("ssh-remote")
        let bare = remote.path + "/notes.git"
        try makeBareRepository(at: bare, initialBranch: "main")
        let work = try Self.workRepository()

        try Self.gitOK(["push", peer.url(bare), "main"], in: work.path, peer.environment())
        #expect(try gitCLI(["rev-parse", "main"], in: bare) == gitCLI(["rev-parse", "HEAD"], in: work.path))

        let clone = TemporaryDirectory("ssh-clone")
        try Self.gitOK(["clone", "--quiet", peer.url(bare), clone.path + "/alias"], in: clone.path, peer.environment())
        #expect(try clone.readText("alias/notes.md") == "# 부산 여행 🌊\n첫째 날\n")
        try Self.gitOK(["clone", "--quiet", peer.sshURL(bare), clone.path + "/url"], in: clone.path, peer.environment())
        #expect(try clone.readText("url/notes.md") == "# 부산 여행 🌊\n첫째 날\n")

        // HOME alone also works (no GIT_SSH_COMMAND at all): home/.gitconfig names the config
        // in core.sshCommand.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git", "clone", "--quiet", peer.url(bare), clone.path + "/home-only"]
        var environment = ProcessInfo.processInfo.environment
        environment["GIT_SSH_COMMAND"] = nil
        environment["GIT_SSH"] = nil
        environment["GIT_CONFIG_GLOBAL"] = nil
        environment["HOME"] = peer.home
        environment["SSH_AUTH_SOCK"] = ""
        process.environment = environment
        let homeOnly = try run(process)
        #expect(homeOnly.status == 0, "\(homeOnly.stderr)")
        #expect(try clone.readText("home-only/notes.md") == "# 부산 여행 🌊\n첫째 날\n")
        #expect(peer.serverLog.contains("Accepted publickey for root"), "\(peer.serverLog)")
    }

    /// Why `environment()` names the config with `ssh -F`: OpenSSH reads ~/.ssh from the
    /// passwd entry's home, not from $HOME.
    @Test func sshIgnoresHOME() throws {
        let peer = try SSHPeer()
        func resolved(_ arguments: [String]) throws -> String {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["ssh"] + arguments + ["-G", SSHPeer.alias]
            process.environment = [
                "HOME": peer.home, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            ]
            let r = try run(process)
            try #require(r.status == 0, "\(r.stderr)")
            return r.stdout.split(separator: "\n").first { $0.hasPrefix("hostname ") }.map(String.init) ?? ""
        }
        #expect(try resolved([]) == "hostname \(SSHPeer.alias)")
        #expect(try resolved(["-F", peer.configPath]) == "hostname 127.0.0.1")
    }

    @Test func sshRefusesAChangedHostKey() throws {
        let peer = try SSHPeer()
        let remote = TemporaryDirectory("ssh-remote")
        let bare = remote.path + "/notes.git"
        try makeBareRepository(at: bare, initialBranch: "main")
        let work = try Self.workRepository()
        try Self.gitOK(["push", peer.url(bare), "main"], in: work.path, peer.environment())
        let before = peer.hostPublicKey

        try peer.replaceHostKey()
        #expect(peer.hostPublicKey != before)
        let fetch = try gitRun(["fetch", peer.url(bare)], in: work.path, environment: peer.environment())
        #expect(fetch.status != 0)
        #expect(
            fetch.stderr.contains("Host key verification failed")
                || fetch.stderr.contains("REMOTE HOST IDENTIFICATION HAS CHANGED"),
            "\(fetch.stderr)")
        #expect(try gitRun(["fetch", peer.sshURL(bare)], in: work.path, environment: peer.environment()).status != 0)

        // The refusal is about the key alone: trusting the new key, the same fetch works.
        let trusted = TemporaryDirectory("ssh-known-hosts")
        try trusted.write("known_hosts", "[127.0.0.1]:\(peer.port) \(peer.hostPublicKey)\n")
        var environment = peer.environment()
        environment["GIT_SSH_COMMAND"] = peer.sshCommand + " -o UserKnownHostsFile=" + trusted.path + "/known_hosts"
        try Self.gitOK(["fetch", "--quiet", peer.url(bare)], in: work.path, environment)
    }

    @Test func sshAgentAuthenticatesTheAgentAlias() throws {
        let peer = try SSHPeer()
        let remote = TemporaryDirectory("ssh-remote")
        let bare = remote.path + "/notes.git"
        try makeBareRepository(at: bare, initialBranch: "main")
        let work = try Self.workRepository()

        // No agent: the agent alias has no key to offer.
        let refused = try gitRun(["push", peer.agentURL(bare), "main"], in: work.path, environment: peer.environment())
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("Permission denied (publickey)"), "\(refused.stderr)")

        var environment = peer.environment()
        for (k, v) in try peer.startAgent() { environment[k] = v }
        try Self.gitOK(["push", peer.agentURL(bare), "main"], in: work.path, environment)
        let clone = TemporaryDirectory("ssh-clone")
        try Self.gitOK(["clone", "--quiet", peer.agentURL(bare), clone.path + "/c"], in: clone.path, environment)
        #expect(try clone.readText("c/notes.md") == "# 부산 여행 🌊\n첫째 날\n")
    }
}
