import Foundation
import Testing
import VaultTestSupport

#if canImport(Glibc)
import Glibc
#endif

// Fixtures for the end-to-end chat tests: the fake OpenAI server (Tests/Fixtures/openai_server.py),
// the built `vault` run with a time limit, a vault whose `providers:` points at the server, and
// a reader of room files that follows FORMAT.md without VaultCore.

// MARK: The server

/// What the fake server's reply texts are (they mirror the Python fixture).
enum ServerText {
    /// The streamed reply of `ok`, `split`, `crlf`, `comments`.
    static let reply = "안녕하세요! 부산 여행 🌊🏖️ 계획을 세워 볼게요.\n\n- 첫째 날: 해운대 👨‍👩‍👧\n- 둘째 날: 감천 문화 마을"
    /// The reply of `json`.
    static let jsonReply = "JSON 답장입니다 ✅\n둘째 줄"
    /// What `drop` and `no-done` send before they fail.
    static let partial = "부분적인 답장 🚧"
    /// What `stall` and `error-in-stream` send before they fail.
    static let firstPiece = "부분적인 "
    /// Words of the server's error messages (never to be written into a room).
    static let errorText = "upstream exploded"
}

/// A port on 127.0.0.1 where nothing listens: one the system just handed out and took back.
func closedPort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw FixtureError("socket() failed") }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var size = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, size) }
    }
    guard bound == 0 else { throw FixtureError("bind() failed") }
    let named = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &size) }
    }
    guard named == 0 else { throw FixtureError("getsockname() failed") }
    return Int(UInt16(bigEndian: address.sin_port))
}

// MARK: Running vault with a time limit

struct TimedRun {
    var result: RunResult
    var seconds: Double
    /// The process was killed at the time limit.
    var timedOut: Bool
    var status: Int32 { result.status }
    var stdout: String { result.stdout }
    var stderr: String { result.stderr }
}

/// Runs the built `vault` like `runVault`, but kills it after `limit` seconds, so a tool that
/// hangs fails its test instead of stalling the run.
func runVaultBounded(
    _ arguments: [String], in directory: String, environment: [String: String] = [:], limit: Double = 20
) throws -> TimedRun {
    let process = vaultProcess(arguments, in: directory, environment: environment)
    let out = Pipe()
    let err = Pipe()
    let input = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = input
    let exited = DispatchSemaphore(value: 0)
    process.terminationHandler = { _ in exited.signal() }
    let clock = ContinuousClock()
    let start = clock.now
    try process.run()
    try input.fileHandleForWriting.close()
    nonisolated(unsafe) var outData = Data()
    nonisolated(unsafe) var errData = Data()
    let group = DispatchGroup()
    group.enter()
    DispatchQueue.global().async {
        outData = out.fileHandleForReading.readDataToEndOfFile()
        group.leave()
    }
    group.enter()
    DispatchQueue.global().async {
        errData = err.fileHandleForReading.readDataToEndOfFile()
        group.leave()
    }
    var timedOut = false
    if exited.wait(timeout: .now() + limit) == .timedOut {
        timedOut = true
        process.terminate()
        _ = exited.wait(timeout: .now() + 5)
    }
    let elapsed = clock.now - start
    group.wait()
    process.waitUntilExit()
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    return TimedRun(
        result: RunResult(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self)),
        seconds: seconds, timedOut: timedOut)
}

// MARK: A vault that talks to the server

/// A fresh fake server and a vault whose `local` provider is that server (the room's system
/// prompt set to `system`). The server is stopped if the vault cannot be made.
func startChat(system: String? = ChatOverHTTPTests.system) throws -> (FakeOpenAIServer, ChatVault) {
    let server = try FakeOpenAIServer(expectedKey: ChatVault.key)
    do {
        return (server, try ChatVault(baseURL: server.baseURL, system: system))
    } catch {
        server.stop()
        throw error
    }
}

/// A vault made by `vault init`, optionally with a `providers:` entry for the fake server.
struct ChatVault {
    static let key = "sk-test-Zq7SECRETkey-4f9c1e"
    static let title = "부산 여행"
    static let roomPath = "rooms/부산-여행.md"

    let dir = TemporaryDirectory("vault-chat-http")
    /// `XDG_CONFIG_HOME` of every run: this machine's user configuration, outside the vault.
    let userConfig = TemporaryDirectory("vault-user-config")
    var path: String { dir.path }
    /// Added to every run: the key, and no stray settings from the machine running the tests.
    var environment: [String: String] = [
        "TEST_KEY": ChatVault.key, "OPENAI_API_KEY": "", "OPENAI_BASE_URL": "", "VAULT_CONNECT_TIMEOUT": "5",
        "VAULT_IDLE_TIMEOUT": "10", "VAULT_MAX_RETRY_WAIT": "", "VAULT_FIRST_BYTE_TIMEOUT": "",
        "VAULT_MAX_REPLY_BYTES": "", "VAULT_TRACE": "",
    ]
    /// The user configuration file (`$XDG_CONFIG_HOME/vault/config.yml`).
    var userConfigPath: String { userConfig.path + "/vault/config.yml" }

    /// Approves sending the key in `variable` to `url` in the user configuration (outside the vault).
    func approveKey(_ variable: String, for url: String) throws {
        var text = (try? userConfig.readText("vault/config.yml")) ?? "api_keys:\n"
        text += "  \(variable): \(url)\n"
        try userConfig.write("vault/config.yml", text)
    }

    /// `vault init`, then (when `baseURL` is given) a `providers: local:` entry committed with git
    /// (and, with `approvingKey`, the key approved for that server in the user configuration),
    /// then `vault room new` (and the system prompt with `vault room set`).
    init(baseURL: String?, configExtra: String = "", system: String? = nil, approvingKey: Bool = true) throws {
        environment["XDG_CONFIG_HOME"] = userConfig.path
        if let baseURL, approvingKey { try approveKey("TEST_KEY", for: baseURL) }
        let made = try runVaultBounded(
            ["init", dir.path, "--locale", "en_US", "--time-zone", "Asia/Seoul"], in: "/", limit: 20)
        guard made.status == 0 else { throw FixtureError("vault init failed: \(made.stderr)") }
        if baseURL != nil || !configExtra.isEmpty {
            var config = try dir.readText("vault.yml")
            if let baseURL {
                config += "providers:\n  local:\n    base_url: \(baseURL)\n    api_key_env: TEST_KEY\n"
            }
            config += configExtra
            try dir.write("vault.yml", config)
            try git(
                [
                    "-c", "user.name=Test", "-c", "user.email=test@example.com", "commit", "-q", "-m",
                    "config: local provider", "vault.yml",
                ], in: dir.path)
        }
        let room = try runVaultBounded(["room", "new", ChatVault.title], in: dir.path, environment: environment)
        guard room.status == 0, FileManager.default.fileExists(atPath: dir.path + "/" + ChatVault.roomPath) else {
            throw FixtureError("vault room new failed (\(room.status)): \(room.stdout) \(room.stderr)")
        }
        if let system {
            let set = try runVaultBounded(
                ["room", "set", ChatVault.title, "system", system], in: dir.path, environment: environment)
            guard set.status == 0 else { throw FixtureError("vault room set failed: \(set.stderr)") }
        }
    }

    func vault(_ arguments: [String], environment extra: [String: String] = [:], limit: Double = 20) throws -> TimedRun
    {
        var env = environment
        for (k, v) in extra { env[k] = v }
        return try runVaultBounded(arguments, in: dir.path, environment: env, limit: limit)
    }

    /// `vault chat 부산 여행 MESSAGE --provider local --model MODEL`.
    func chat(
        _ message: String, model: String, environment extra: [String: String] = [:], limit: Double = 20
    ) throws -> TimedRun {
        try vault(
            ["chat", ChatVault.title, message, "--provider", "local", "--model", model], environment: extra,
            limit: limit)
    }

    func retry(model: String, limit: Double = 20) throws -> TimedRun {
        try vault(["retry", ChatVault.title, "--provider", "local", "--model", model], limit: limit)
    }

    func roomBytes() throws -> [UInt8] { try dir.read(ChatVault.roomPath) }

    /// `git log --format=%s`, newest first.
    func subjects() throws -> [String] {
        try git(["log", "--format=%s"], in: dir.path).split(separator: "\n").map(String.init)
    }

    func porcelain() throws -> String { try git(["status", "--porcelain", "--untracked-files=all"], in: dir.path) }

    /// Everything git has recorded, patches included.
    func fullHistory() throws -> String {
        try git(["log", "-p", "--all", "--format=%H %an <%ae> %s%n%b"], in: dir.path)
    }
}

// MARK: Reading rooms (FORMAT.md, independent of VaultCore)

let promptMarkerLine = "<!-- vault:prompt · write your next message below this line, then run `vault chat` -->"

struct RoomHeader: Equatable {
    var line: String
    var role: String
    var timestamp: String
    var id: String
    var attributes: [String: String]
}

struct RoomMessage {
    var header: RoomHeader
    var body: String
}

/// The header of a line, or nil (FORMAT.md, "Strict matching").
func roomHeader(_ raw: Substring) -> RoomHeader? {
    var line = raw
    while let c = line.last, c == " " || c == "\t" || c == "\r" { line = line.dropLast() }
    guard line.hasPrefix("## "), line.hasSuffix(" -->"), let open = line.range(of: " <!-- ", options: .backwards),
        let dot = line.range(of: " · ")
    else { return nil }
    let words = line[line.index(line.startIndex, offsetBy: 3)..<dot.lowerBound].split(separator: " ")
    guard (1...2).contains(words.count), let role = words.last else { return nil }
    let comment = line[open.upperBound..<line.index(line.endIndex, offsetBy: -4)].split(separator: " ")
    guard comment.count >= 2, comment[0].first?.isNumber == true, comment[1].hasPrefix("m-") else { return nil }
    var attributes: [String: String] = [:]
    for a in comment.dropFirst(2) {
        guard let eq = a.firstIndex(of: "=") else { continue }
        attributes[String(a[..<eq])] = String(a[a.index(after: eq)...])
    }
    return RoomHeader(
        line: String(raw), role: String(role), timestamp: String(comment[0]), id: String(comment[1]),
        attributes: attributes)
}

/// The messages of an LF room file (bodies with framing removed; the tests use no escaped lines).
func roomMessages(_ bytes: [UInt8]) -> [RoomMessage] {
    let text = String(decoding: bytes, as: UTF8.self)
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    if lines.last == "" { lines.removeLast() }
    var headers: [(Int, RoomHeader)] = []
    var marker: Int?
    for (i, l) in lines.enumerated() {
        if let h = roomHeader(l) { headers.append((i, h)) } else if l.hasPrefix("<!-- vault:prompt") { marker = i }
    }
    var out: [RoomMessage] = []
    for (k, (index, header)) in headers.enumerated() {
        let end = k + 1 < headers.count ? headers[k + 1].0 : (marker.flatMap { $0 > index ? $0 : nil } ?? lines.count)
        var content = lines[(index + 1)..<end].map { $0 + "\n" }.joined()
        if content.hasPrefix("\n") { content.removeFirst() }
        for _ in 0..<2 where content.hasSuffix("\n") { content.removeLast() }
        out.append(RoomMessage(header: header, body: content))
    }
    return out
}

/// Byte offset of the last prompt marker line, or nil.
func promptMarkerOffset(_ bytes: [UInt8]) -> Int? {
    let marker = Array(promptMarkerLine.utf8)
    var best: Int?
    var start = 0
    for i in 0...bytes.count where i == bytes.count || bytes[i] == 10 {
        if Array(bytes[start..<i]) == marker { best = start }
        start = i + 1
    }
    return best
}
