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

/// The fake OpenAI server, running as a child process for one test (`FixtureProcess`).
public final class FakeOpenAIServer: @unchecked Sendable {
    public let port: Int
    public let logPath: String
    public let errorPath: String
    private let folder: TemporaryDirectory
    private let fixture: FixtureProcess

    public var baseURL: String { "http://127.0.0.1:\(port)/v1" }

    public static let script = Project.root + "/Tests/Fixtures/openai_server.py"

    /// Starts the server; `expectedKey` is the key it accepts as "present".
    public init(expectedKey: String?) throws {
        folder = TemporaryDirectory("fake-openai")
        logPath = folder.path + "/requests.jsonl"
        errorPath = folder.path + "/server-stderr.txt"
        _ = FileManager.default.createFile(atPath: logPath, contents: Data())
        fixture = try FixtureProcess(
            python: [FakeOpenAIServer.script, logPath] + (expectedKey.map { [$0] } ?? []), errorPath: errorPath,
            name: "the fake OpenAI server")
        port = fixture.port
    }

    /// Ends the server (closing its stdin, then SIGTERM) and waits for it. Safe to call twice.
    public func stop() { fixture.stop() }

    public var serverErrors: String { fixture.errors }

    /// Waits until the server has logged `count` requests (the event a test waits on before it
    /// acts on a request in flight), failing after `seconds`.
    public func waitForRequests(_ count: Int, seconds: Double = 10) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while (try? requests().count) ?? 0 < count {
            guard Date() < deadline else {
                let logged = (try? requests().count) ?? 0
                throw FixtureError("the server logged \(logged) requests, not \(count), in \(seconds) s")
            }
            usleep(10_000)  // sleep: poll interval: the server's request log, with a deadline
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

