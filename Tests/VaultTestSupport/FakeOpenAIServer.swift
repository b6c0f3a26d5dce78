import Foundation

// The fake OpenAI server (Tests/Fixtures/openai_server.py) as a child process, for tests that
// chat over HTTP: VaultChatTests, and VaultCLITests' prompt on a real terminal.

public struct FixtureError: Error, CustomStringConvertible {
    public var description: String
    public init(_ d: String) { description = d }
}

/// One request as the fake server logged it.
public struct LoggedRequest {
    public var method: String
    public var path: String
    public var headers: [String: String]
    public var model: String?
    public var stream: Bool?
    /// (role, content) of every message sent.
    public var messages: [Turn]
    /// The request's JSON body as the server read it.
    public var body: [String: Any] = [:]
    public var authorization: String { headers["authorization"] ?? "?" }

    public struct Turn: Equatable, CustomStringConvertible {
        public var role: String
        public var content: String
        public init(_ role: String, _ content: String) {
            self.role = role
            self.content = content
        }
        public var description: String { "\(role): \(content.debugDescription)" }
    }
}

/// The fake OpenAI server, running as a child process for one test.
public final class FakeOpenAIServer: @unchecked Sendable {
    public let process = Process()
    public let port: Int
    public let logPath: String
    public let errorPath: String
    private let folder: TemporaryDirectory
    private let input = Pipe()
    private let lock = NSLock()
    private var stopped = false

    public var baseURL: String { "http://127.0.0.1:\(port)/v1" }

    public static let script = Project.root + "/Tests/Fixtures/openai_server.py"

    /// Starts the server; `expectedKey` is the key it accepts as "present".
    public init(expectedKey: String?) throws {
        folder = TemporaryDirectory("fake-openai")
        logPath = folder.path + "/requests.jsonl"
        errorPath = folder.path + "/server-stderr.txt"
        _ = FileManager.default.createFile(atPath: logPath, contents: Data())
        _ = FileManager.default.createFile(atPath: errorPath, contents: Data())
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", FakeOpenAIServer.script, logPath] + (expectedKey.map { [$0] } ?? [])
        let out = Pipe()
        process.standardOutput = out
        process.standardInput = input
        process.standardError = FileHandle(forWritingAtPath: errorPath)
        try process.run()
        // The first line of stdout is the port; read it on another thread, so a server that
        // never prints cannot hang the test.
        let firstLine = firstLineOfFixture(of: out.fileHandleForReading, within: 10) ?? ""
        guard let port = Int(firstLine.trimmingCharacters(in: .whitespaces)) else {
            port = 0
            stop()
            throw FixtureError(
                "the fake server did not print its port (got \(firstLine.debugDescription)); stderr: \(serverErrors)")
        }
        self.port = port
    }

    deinit { stop() }

    /// Ends the server (closing its stdin, then SIGTERM) and waits for it. Safe to call twice.
    public func stop() {
        lock.lock()
        defer { lock.unlock() }
        guard !stopped else { return }
        stopped = true
        try? input.fileHandleForWriting.close()
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    public var serverErrors: String { (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "" }

    /// Waits until the server has logged `count` requests (the event a test waits on before it
    /// acts on a request in flight), failing after `seconds`.
    public func waitForRequests(_ count: Int, seconds: Double = 10) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while (try? requests().count) ?? 0 < count {
            guard Date() < deadline else {
                let logged = (try? requests().count) ?? 0
                throw FixtureError("the server logged \(logged) requests, not \(count), in \(seconds) s")
            }
            usleep(10_000)
        }
    }

    /// Every request logged so far.
    public func requests() throws -> [LoggedRequest] {
        let text = try String(contentsOfFile: logPath, encoding: .utf8)
        return try text.split(separator: "\n").map { line in
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                throw FixtureError("a log line is not a JSON object: \(line)")
            }
            let body = object["body"] as? [String: Any]
            let messages = (body?["messages"] as? [[String: Any]] ?? []).map {
                LoggedRequest.Turn($0["role"] as? String ?? "?", $0["content"] as? String ?? "?")
            }
            return LoggedRequest(
                method: object["method"] as? String ?? "", path: object["path"] as? String ?? "",
                headers: object["headers"] as? [String: String] ?? [:], model: body?["model"] as? String,
                stream: body?["stream"] as? Bool, messages: messages, body: body ?? [:])
        }
    }
}

