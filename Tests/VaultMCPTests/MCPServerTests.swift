import Foundation
import Testing
import VaultCore
import VaultTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// `vault mcp` driven by a client no one here wrote: the official Python MCP SDK
/// (Tests/Fixtures/mcp_client.py), talking to the built `vault` over a real stdio subprocess,
/// on a copy of sample-vault. Files and history are checked with the `git` command.
///
/// Skipped, saying so, only when Python's `mcp` package cannot be imported and CI is not set;
/// under CI=true a missing package fails the suite (scripts/common.sh installs it).
@Suite(.serialized) struct MCPServerTests {
    static let script = Project.root + "/Tests/Fixtures/mcp_client.py"

    static let clientAvailable: Bool = {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "-c", "import mcp.client.stdio"]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return false }
        p.waitUntilExit()
        return p.terminationStatus == 0
    }()

    /// Runs a scenario of the client script; true when it ran (false: skipped, the SDK missing).
    @discardableResult
    func scenario(
        _ name: String, vault: String, _ extra: [String] = [], environment: [String: String] = [:]
    ) throws -> RunResult? {
        let underCI = ProcessInfo.processInfo.environment["CI"] == "true"
        if !Self.clientAvailable && !underCI {
            print("MCPServerTests: skipped \(name): Python's mcp package is not importable (pip install mcp)")
            return nil
        }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", Self.script, name, Project.vaultExecutable, vault] + extra
        var env = ProcessInfo.processInfo.environment
        env["VAULT_DIR"] = nil
        env["XDG_CACHE_HOME"] = NSTemporaryDirectory() + "vault-tests-cache"
        for (k, v) in environment { env[k] = v }
        p.environment = env
        let result = try run(p)
        #expect(result.status == 0, "scenario \(name):\n\(result.stdout)\n\(result.stderr)")
        return result
    }

    func sampleVault() throws -> TemporaryDirectory {
        let vault = try Project.copyOfSampleVault()
        _ = try git(["init", "-q"], in: vault.path)
        _ = try git(["add", "-A"], in: vault.path)
        _ = try git(["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "sample"], in: vault.path)
        return vault
    }

    /// sample-vault with a room `endless` whose model on the loopback server streams without end.
    func vaultWithEndlessRoom(_ server: FakeOpenAIServer) throws -> TemporaryDirectory {
        let vault = try sampleVault()
        try vault.write(
            "vault.yml",
            try vault.readText("vault.yml") + "providers:\n  local:\n    base_url: \(server.baseURL)\n")
        try vault.write(
            "rooms/endless.md",
            "---\ntitle: Endless\ncreated: 2026-11-20T09:00:00+09:00\nprovider: local\nmodel: forever\n---\n")
        _ = try git(["add", "-A"], in: vault.path)
        _ = try git(["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "endless"], in: vault.path)
        return vault
    }

    /// `vault mcp` in `vault`, started with a chat turn in `endless` under way (its first
    /// progress notification read).
    func serverStreaming(in vault: TemporaryDirectory) throws -> (Process, input: Pipe, output: Pipe) {
        let process = vaultProcess(["mcp", "--vault", vault.path], in: vault.path)
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let call = #"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"chat","arguments":{"room":"endless","message":"go"},"_meta":{"progressToken":"p"}}}"#
        input.fileHandleForWriting.write(Data((call + "\n").utf8))
        let first = output.fileHandleForReading.availableData
        #expect(String(decoding: first, as: UTF8.self).contains("notifications/progress"))
        return (process, input, output)
    }

    @Test func everyToolResourceAndPromptThroughTheOfficialClient() throws {
        let vault = try sampleVault()
        guard let result = try scenario("tools", vault: vault.path) else { return }
        #expect(result.stdout.contains("ok: every commit names the client"))
        // Every change is a commit naming the client; nothing is left uncommitted.
        let log = try git(["log", "--format=%s"], in: vault.path)
        let ours = log.split(separator: "\n").filter { $0.contains("(via MCP: vault-tests)") }
        #expect(ours.count == 9, "\(log)")  // the entry, four edits, the tags, two messages, the chat turn
        // The client is named once: as the MCP client, not also as the message's author.
        #expect(log.contains("say: 부산 여행 (via MCP: vault-tests)\n"), "\(log)")
        #expect(!log.contains("(vault-tests) (via MCP"), "\(log)")
        #expect(try git(["status", "--porcelain"], in: vault.path).isEmpty)
        try git(["fsck", "--strict"], in: vault.path)
    }

    /// Scanning, and through the index (built first; the server's searches ask the search
    /// watcher what changed, as `vault search` does).
    @Test(arguments: ["scan", "index"]) func aHandEditIsWhatTheNextSearchAndReadReturn(searching: String) throws {
        let vault = try sampleVault()
        let cache = TemporaryDirectory("mcp-cache")
        try scenario("handedit", vault: vault.path, [searching], environment: ["XDG_CACHE_HOME": cache.path])
    }

    /// With `vault search`'s watcher (a room made by hand changes the list too), and without it
    /// (`VAULT_NO_WATCH=1`: the subscribed files' stamps).
    @Test(arguments: ["watch", "stamps"]) func aSubscribedRoomIsNotifiedOfAHandEdit(watching: String) throws {
        let vault = try sampleVault()
        let cache = TemporaryDirectory("mcp-cache")
        var environment = ["XDG_CACHE_HOME": cache.path]
        if watching == "stamps" { environment["VAULT_NO_WATCH"] = "1" }
        try scenario("subscribe", vault: vault.path, [watching], environment: environment)
        // The watcher this started ends when its vault is removed (it writes nothing in the vault).
    }

    @Test func badInputsGetErrorsAndChangeNothing() throws {
        let vault = try sampleVault()
        let before = try vault.snapshot()
        try scenario("bad", vault: vault.path)
        try scenario("raw", vault: vault.path)
        try scenario("readonly", vault: vault.path)
        #expect(try vault.snapshot() == before)
        #expect(try git(["log", "--format=%s"], in: vault.path) == "sample\n")
    }

    @Test func cancellingAChatTurnStopsTheReplyAndKeepsWhatArrived() throws {
        guard Self.clientAvailable || ProcessInfo.processInfo.environment["CI"] == "true" else {
            print("MCPServerTests: skipped the chat cancellation: Python's mcp package is not importable")
            return
        }
        let server = try FakeOpenAIServer(expectedKey: nil)
        defer { server.stop() }
        let vault = try vaultWithEndlessRoom(server)
        try scenario("cancel", vault: vault.path, ["endless"])
        let log = try git(["log", "--format=%s", "-1"], in: vault.path)
        #expect(log.contains("(via MCP: vault-tests)"), "\(log)")
        #expect(try git(["status", "--porcelain"], in: vault.path).isEmpty)
        // The vault's lock is free: another change takes it at once.
        let after = try runVault(["room", "new", "After", "--vault", vault.path], in: vault.path, environment: ["VAULT_LOCK_TIMEOUT": "1"])
        #expect(after.status == 0, "\(after.stderr)")
    }

    @Test func sigtermDuringAChatTurnLeavesNoLockAndCommitsWhatArrived() throws {
        let server = try FakeOpenAIServer(expectedKey: nil)
        defer { server.stop() }
        let vault = try vaultWithEndlessRoom(server)
        let (process, _, _) = try serverStreaming(in: vault)
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationStatus == 143)
        #expect(try git(["status", "--porcelain"], in: vault.path).isEmpty)
        let room = try vault.readText("rooms/endless.md")
        #expect(room.contains("status=interrupted"), "\(room)")
        // No lock is left held: another change takes the vault's lock at once.
        let after = try runVault(["room", "new", "After", "--vault", vault.path], in: vault.path)
        #expect(after.status == 0, "\(after.stderr)")
    }

    /// The client goes away in the middle of a chat turn (closes both pipes): the server stops
    /// the reply, commits what arrived, and ends with status 0.
    @Test func aClientThatGoesAwayMidTurnLeavesTheTurnCommitted() throws {
        let server = try FakeOpenAIServer(expectedKey: nil)
        defer { server.stop() }
        let vault = try vaultWithEndlessRoom(server)
        let (process, input, output) = try serverStreaming(in: vault)
        try input.fileHandleForWriting.close()
        try output.fileHandleForReading.close()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(try git(["status", "--porcelain"], in: vault.path).isEmpty)
        #expect(try vault.readText("rooms/endless.md").contains("status=interrupted"))
        #expect(try git(["log", "--format=%s", "-1"], in: vault.path).contains("(via MCP: an MCP client)"))
    }

    /// A diary entry edited by hand and then through the server: the hand edit is committed
    /// first, as its own `edit: …` commit, then the server's edit naming the client.
    @Test func aHandEditIsCommittedFirstThenTheServersEdit() throws {
        let vault = try sampleVault()
        let entry = try #require(vault.files().first { $0.hasPrefix("diary/") && $0.hasSuffix(".md") })
        try vault.write(entry, try vault.readText(entry) + "\n손으로 고친 줄\n")
        guard try scenario("handfirst", vault: vault.path, [entry]) != nil else { return }
        let log = try git(["log", "--format=%s", "-2"], in: vault.path).split(separator: "\n")
        #expect(log.count == 2 && log[0].hasSuffix("(append) (via MCP: vault-tests)") && log[1].hasPrefix("edit: "), "\(log)")
        #expect(try git(["status", "--porcelain"], in: vault.path).isEmpty)
    }

    /// A server that refuses the key, and echoes it: the key is in no answer of the server.
    @Test func theAPIKeyIsNeverReturned() throws {
        let server = try FakeOpenAIServer(expectedKey: nil)
        defer { server.stop() }
        let vault = try sampleVault()
        try vault.write(
            "rooms/secret.md",
            "---\ntitle: Secret\ncreated: 2026-11-20T09:00:00+09:00\nprovider: openai\nmodel: unauthorized\n---\n")
        _ = try git(["add", "-A"], in: vault.path)
        _ = try git(["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "secret"], in: vault.path)
        try scenario(
            "secret", vault: vault.path, ["secret"],
            environment: ["OPENAI_BASE_URL": server.baseURL, "OPENAI_API_KEY": "sk-mcp-test-0123456789abcdef"])
        // The key was sent, and the server echoed it back.
        #expect(try server.requests().last?.authorization == "present")
    }

    /// More rooms than one page of `resources/list` holds: every one listed once, over pages.
    @Test func resourcesAreListedInPages() throws {
        let vault = try sampleVault()
        for k in 0..<1200 {
            try vault.write("rooms/room-\(k).md", "---\ntitle: Room \(k)\ncreated: 2026-11-20T09:00:00+09:00\n---\n")
        }
        let items = vault.files().filter { ($0.hasPrefix("rooms/") || $0.hasPrefix("diary/")) && $0.hasSuffix(".md") }
        try scenario("paging", vault: vault.path, [String(items.count)])
    }
}
