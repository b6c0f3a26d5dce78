import Foundation
import Testing
import VaultCore
import VaultTestSupport

/// A message keeps what it is (issue #37, item 6), through the built binary: a Claude Code
/// session whose tool result, compaction summary and thinking the log writes as `user` and
/// `assistant` lines is imported; `vault search --role user` and MCP `search role=user` give
/// only what the person typed, `--role assistant` only the reply, `vault show` labels each
/// other message by its kind, and MCP `read` and `search --json` say the kind.
@Suite struct MessageKindTests {
    static let session = "9b0c2a1e-0000-4000-8000-00000000000a"

    static func line(_ object: [String: Any]) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    static func entry(_ type: String, _ uuid: String, _ time: String, _ message: [String: Any], extra: [String: Any] = [:]) -> String {
        var object: [String: Any] = [
            "type": type, "uuid": uuid, "parentUuid": NSNull(), "sessionId": session, "timestamp": time,
            "cwd": "/home/me/src/kinds", "isSidechain": false, "message": message,
        ]
        for (k, v) in extra { object[k] = v }
        return line(object)
    }

    static let log = [
        line(["type": "summary", "summary": "Kinds of messages", "leafUuid": "s1"]),
        entry("user", "p1", "2026-04-01T09:00:00.000Z", ["role": "user", "content": "KTOK-PROMPT what is in the folder?"]),
        entry(
            "assistant", "a1", "2026-04-01T09:00:01.000Z",
            ["id": "msg_k1", "role": "assistant", "model": "claude-sonnet-4-5", "content": [
                ["type": "thinking", "thinking": "KTOK-THOUGHT list it first", "signature": "x"],
                ["type": "text", "text": "KTOK-REPLY let me look"],
                ["type": "tool_use", "id": "toolu_k1", "name": "Bash", "input": ["command": "ls KTOK-CALL"]],
            ]]),
        entry(
            "user", "r1", "2026-04-01T09:00:02.000Z",
            ["role": "user", "content": [["type": "tool_result", "tool_use_id": "toolu_k1", "content": "KTOK-RESULT a.txt b.txt"]]]),
        entry(
            "user", "s1", "2026-04-01T09:00:03.000Z", ["role": "user", "content": "KTOK-SUMMARY the session so far"],
            extra: ["isCompactSummary": true]),
    ]

    func imported() throws -> (TemporaryDirectory, room: String) {
        let vault = try freshVault(locale: "en_US", timeZone: "UTC")
        let logs = TemporaryDirectory("claude-kinds")
        try logs.write("-home-me-src-kinds/\(Self.session).jsonl", Self.log.joined(separator: "\n") + "\n")
        let r = try runVault(["import", "claude-code", logs.path + "/-home-me-src-kinds", "--json"], in: vault.path)
        expectSuccess(r)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let room = try #require((report["paths"] as? [String])?.first { $0.hasPrefix("rooms/") })
        return (vault, room)
    }

    /// The `text` of each hit of `vault search --json`, with its `message_kind`.
    func hits(_ arguments: [String], in vault: TemporaryDirectory) throws -> [(text: String, kind: String?)] {
        let r = try runVault(["search"] + arguments + ["--json"], in: vault.path)
        #expect(r.status == 0 || r.status == 1, "\(r.stderr)")
        return r.stdout.split(separator: "\n").compactMap { line in
            guard let hit = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
            return (hit["text"] as? String ?? "", hit["message_kind"] as? String)
        }
    }

    @Test func roleFiltersGiveOnlyThePersonsWordsOrTheReply() throws {
        let (vault, _) = try imported()
        let all = try hits(["KTOK-"], in: vault)
        #expect(all.count == 6, "\(all)")
        #expect(try hits(["KTOK-", "--role", "user"], in: vault).map(\.text) == ["KTOK-PROMPT what is in the folder?"])
        #expect(try hits(["KTOK-", "--role", "assistant"], in: vault).map(\.text) == ["KTOK-REPLY let me look"])
        let kinds = Dictionary(all.map { (String($0.text.prefix(while: { $0 != " " })), $0.kind ?? "-") }, uniquingKeysWith: { a, _ in a })
        #expect(kinds["KTOK-RESULT"] == "tool-result" && kinds["KTOK-SUMMARY"] == "summary" && kinds["KTOK-THOUGHT"] == "thoughts")
        #expect(kinds["KTOK-PROMPT"] == "-" && kinds["KTOK-REPLY"] == "-")
    }

    @Test func showLabelsEachMessageByWhatItIs() throws {
        let (vault, room) = try imported()
        let r = try runVault(["show", VaultPath.stem(of: room)], in: vault.path, environment: ["NO_COLOR": "1"])
        expectSuccess(r)
        let labels = r.stdout.split(separator: "\n").filter { $0.contains(" · ") && !$0.hasPrefix("──") }
            .map { String($0.prefix { $0 != "·" }).trimmingCharacters(in: .whitespaces) }
        #expect(labels == ["🧑 user", "💭 thoughts", "🤖 assistant", "🔧 tool-call", "📋 tool-result", "📝 summary"], "\(r.stdout)")
    }

    @Test func mcpReadAndSearchSayTheKind() throws {
        let (vault, room) = try imported()
        let requests = [
            #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#,
            #"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            #"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read","arguments":{"item":"\#(room)"}}}"#,
            #"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search","arguments":{"query":"KTOK-","role":"user"}}}"#,
            #"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"search","arguments":{"query":"KTOK-RESULT"}}}"#,
        ]
        let r = try runVault(["mcp", "--vault", vault.path], in: vault.path, stdin: requests.joined(separator: "\n") + "\n")
        #expect(r.status == 0, "\(r.stderr)")
        var results: [Int: [String: Any]] = [:]
        for line in r.stdout.split(separator: "\n") {
            guard let reply = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let id = reply["id"] as? Int, let result = reply["result"] as? [String: Any]
            else { continue }
            results[id] = result["structuredContent"] as? [String: Any]
        }
        let messages = try #require(results[2]?["messages"] as? [[String: Any]], "\(r.stdout)")
        #expect(messages.map { $0["kind"] as? String ?? "-" } == ["-", "thoughts", "-", "tool-call", "tool-result", "summary"])
        let userHits = try #require(results[3]?["hits"] as? [[String: Any]], "\(r.stdout)")
        #expect(userHits.map { $0["text"] as? String } == ["KTOK-PROMPT what is in the folder?"])
        let resultHits = try #require(results[4]?["hits"] as? [[String: Any]], "\(r.stdout)")
        #expect(resultHits.map { $0["message_kind"] as? String } == ["tool-result"])
    }
}
