import Foundation
import Testing
import VaultCore
import VaultTestSupport

@testable import VaultImport

/// Claude Code session logs written from their public description: one JSON object a line,
/// `type` user/assistant/summary/…, `uuid`/`parentUuid`, `sessionId`, `message` as the
/// Messages API gives it (content blocks text, thinking, tool_use, tool_result).
@Suite struct ClaudeCodeReaderTests {
    static let session = "5f0c2a1e-0000-4000-8000-000000000001"

    static func line(_ object: [String: Any]) -> String {
        let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }

    static func user(_ uuid: String, parent: String?, _ time: String, _ content: Any, sidechain: Bool = false) -> String {
        var object: [String: Any] = [
            "type": "user", "uuid": uuid, "sessionId": session, "timestamp": time, "cwd": "/home/me/src/busan",
            "isSidechain": sidechain, "message": ["role": "user", "content": content],
        ]
        object["parentUuid"] = parent ?? NSNull()
        return line(object)
    }

    static func assistant(
        _ uuid: String, parent: String?, _ time: String, id: String, _ blocks: [[String: Any]], sidechain: Bool = false
    ) -> String {
        var object: [String: Any] = [
            "type": "assistant", "uuid": uuid, "sessionId": session, "timestamp": time, "cwd": "/home/me/src/busan",
            "isSidechain": sidechain,
            "message": ["id": id, "role": "assistant", "model": "claude-sonnet-4-5", "content": blocks],
        ]
        object["parentUuid"] = parent ?? NSNull()
        return line(object)
    }

    /// A session: a prompt, a turn split over three lines (thinking, text, tool_use), its tool
    /// result, a subagent's two sidechain lines, a line whose parent is gone, an unknown type.
    static let lines: [String] = [
        line(["type": "summary", "summary": "Fix the Busan trip planner", "leafUuid": "u6"]),
        user("u1", parent: nil, "2026-03-01T09:00:00.000Z", "  Why does the planner skip day two?\nIt prints day 3."),
        assistant(
            "a1", parent: "u1", "2026-03-01T09:00:05.100Z", id: "msg_01",
            [["type": "thinking", "thinking": "The loop starts at 1.", "signature": "sig"]]),
        assistant("a2", parent: "a1", "2026-03-01T09:00:06.200Z", id: "msg_01", [["type": "text", "text": "Let me look at the loop."]]),
        assistant(
            "a3", parent: "a2", "2026-03-01T09:00:07.300Z", id: "msg_01",
            [["type": "tool_use", "id": "toolu_01", "name": "Read", "input": ["file_path": "/home/me/src/busan/plan.py"]]]),
        line(["type": "file-history-snapshot", "messageId": "x", "snapshot": [:]]),
        user(
            "u2", parent: "a3", "2026-03-01T09:00:08.000Z",
            [["type": "tool_result", "tool_use_id": "toolu_01", "content": "for day in range(1, 3):\n    ```print(day)```"]]),
        user("s1", parent: nil, "2026-03-01T09:00:09.000Z", "Search for range calls", sidechain: true),
        assistant(
            "s2", parent: "s1", "2026-03-01T09:00:10.000Z", id: "msg_side", [["type": "text", "text": "Found one in plan.py."]],
            sidechain: true),
        assistant(
            "a4", parent: "gone-uuid", "2026-03-01T09:00:11.000Z", id: "msg_02",
            [["type": "text", "text": "The range starts at 1; it should start at 0."]]),
    ]

    func write(_ lines: [String], to folder: TemporaryDirectory, project: String = "-home-me-src-busan") throws -> String {
        let path = "\(project)/\(Self.session).jsonl"
        try folder.write(path, lines.joined(separator: "\n") + "\n")
        return folder.path + "/" + path
    }

    func conversations(_ paths: [String], reader: ClaudeCodeReader = ClaudeCodeReader()) throws -> [ImportedConversation] {
        var out: [ImportedConversation] = []
        try reader.read(paths, since: nil) { item in
            if case .conversation(let c) = item { out.append(c) }
        }
        return out
    }

    @Test func aSessionBecomesOneConversationWithItsTurnsJoined() throws {
        let folder = TemporaryDirectory("claude-code")
        let file = try write(Self.lines, to: folder)
        let reader = ClaudeCodeReader()
        let all = try conversations([file], reader: reader)
        #expect(all.count == 1)
        let c = try #require(all.first)
        #expect(c.sourceID == Self.session)
        #expect(c.title == "Fix the Busan trip planner")
        #expect(c.created.text == "2026-03-01T09:00:00+00:00")
        #expect(c.settings.count == 1)
        #expect(c.settings.first?.0 == "project")
        #expect(c.settings.first?.1 == .string("/home/me/src/busan"))
        #expect(c.messages.map(\.sourceID) == ["u1", "msg_01:thinking", "msg_01", "toolu_01", "toolu_01:result", "msg_02"])
        #expect(c.messages.map(\.kind) == [nil, .thoughts, nil, .toolCall, .toolResult, nil])
        #expect(c.messages.map(\.role) == [.user, .assistant, .assistant, .assistant, .user, .assistant])
        #expect(c.messages[0].body == "  Why does the planner skip day two?\nIt prints day 3.")
        #expect(c.messages[1].body == "The loop starts at 1.")
        #expect(c.messages[2].body == "Let me look at the loop.")
        #expect(c.messages[2].model == "claude-sonnet-4-5")
        #expect(c.messages[2].time?.text == "2026-03-01T09:00:06+00:00")
        // The tool call and its result read as fenced blocks; the result's own backticks cannot close its fence.
        #expect(c.messages[3].body.hasPrefix("Tool call: Read\n\n```json\n{"))
        #expect(c.messages[3].body.contains("/home/me/src/busan/plan.py"))
        #expect(c.messages[3].body.hasSuffix("\n```"))
        #expect(c.messages[4].body == "Tool result\n\n````\nfor day in range(1, 3):\n    ```print(day)```\n````")
        // The line whose parent is gone is kept, in file order.
        #expect(c.messages[5].body == "The range starts at 1; it should start at 0.")
        // The subagent's lines are apart, after the message written just before them.
        #expect(c.branches.count == 1)
        let branch = try #require(c.branches.first)
        #expect(branch.forkedAfter == "toolu_01:result")
        #expect(branch.messages.map(\.sourceID) == ["s1", "msg_side"])
        #expect(branch.messages.allSatisfy { $0.kind == .sidechain })
        #expect(branch.messages.map(\.role) == [.user, .assistant])
        #expect(reader.skipped.byType == ["file-history-snapshot": 1])
    }

    @Test func withoutASummaryTheFirstPromptIsTheTitleAndTheFolderTheProject() throws {
        let folder = TemporaryDirectory("claude-code")
        // No summary, no cwd: the title is the prompt's first line, the project the folder decoded.
        let lines = Self.lines.dropFirst().map { $0.replacingOccurrences(of: "\"cwd\":\"/home/me/src/busan\",", with: "") }
        _ = try write(Array(lines), to: folder)
        let c = try #require(try conversations([folder.path + "/-home-me-src-busan"]).first)
        #expect(c.title == "Why does the planner skip day two?")
        #expect(c.settings.first?.1 == .string("/home/me/src/busan"))
    }

    @Test func readingAGrownLogAgainGivesTheSameIdsAndTheNewOnes() throws {
        let folder = TemporaryDirectory("claude-code")
        let file = try write(Self.lines, to: folder)
        let before = try #require(try conversations([folder.path]).first)
        let grown = Self.lines + [
            Self.user("u3", parent: "a4", "2026-03-02T10:00:00Z", "Thanks, fixed."),
            Self.assistant("a5", parent: "u3", "2026-03-02T10:00:02Z", id: "msg_03", [["type": "text", "text": "Glad"]]),
            Self.assistant("a6", parent: "a5", "2026-03-02T10:00:03Z", id: "msg_03", [["type": "text", "text": "it works."]]),
        ]
        try (grown.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let after = try #require(try conversations([folder.path]).first)
        #expect(after.sourceID == before.sourceID)
        #expect(Array(after.messages.map(\.sourceID).prefix(before.messages.count)) == before.messages.map(\.sourceID))
        #expect(after.messages.map(\.sourceID).suffix(2) == ["u3", "msg_03"])
        #expect(after.messages.last?.body == "Glad\n\nit works.")
        #expect(after.messages.prefix(before.messages.count).map(\.body) == before.messages.map(\.body))
    }

    @Test func aResumedSessionGivesOnlyItsOwnLines() throws {
        let folder = TemporaryDirectory("claude-code")
        _ = try write(Self.lines, to: folder)
        // Written later, under another session id: the summary of the first session, a copy of
        // its first prompt (same uuid), then its own lines.
        let resumed = "9a9a9a9a-0000-4000-8000-000000000002"
        let copy = { (line: String) in line.replacingOccurrences(of: Self.session, with: resumed) }
        let lines = [
            Self.lines[0],
            Self.line(["type": "summary", "summary": "Plan day four", "leafUuid": "r2"]),
            copy(Self.lines[1]),
            copy(Self.user("r1", parent: "u1", "2026-03-05T08:00:00Z", "Now plan day four")),
            copy(Self.assistant("r2", parent: "r1", "2026-03-05T08:00:01Z", id: "msg_r", [["type": "text", "text": "Day four: Gamcheon."]])),
        ]
        // Its file name sorts first: the order is the sessions' times, not the names.
        try folder.write("-home-me-src-busan/0000-resumed.jsonl", lines.joined(separator: "\n") + "\n")
        let all = try conversations([folder.path])
        #expect(all.map(\.sourceID) == [Self.session, resumed])
        #expect(all.first?.messages.first?.sourceID == "u1")
        #expect(all.last?.title == "Plan day four")
        #expect(all.last?.messages.map(\.sourceID) == ["r1", "msg_r"])
    }

    @Test func imagesMetaAndSystemLinesAndSince() throws {
        let folder = TemporaryDirectory("claude-code")
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 1, 2, 3]
        var meta = Self.user("m1", parent: "u1", "2026-03-01T09:00:01Z", "Caveat: local command output")
        meta = meta.replacingOccurrences(of: "\"isSidechain\":false", with: "\"isMeta\":true,\"isSidechain\":false")
        let lines = [
            Self.user(
                "u1", parent: nil, "2026-03-01T09:00:00Z",
                [
                    ["type": "text", "text": "What is in this screenshot?"],
                    ["type": "image", "source": ["type": "base64", "media_type": "image/png", "data": Data(png).base64EncodedString()]],
                ]),
            meta,
            Self.line([
                "type": "system", "uuid": "y1", "parentUuid": "m1", "sessionId": Self.session,
                "timestamp": "2026-03-01T09:00:02Z", "content": "Conversation compacted",
            ]),
        ]
        let file = try write(lines, to: folder)
        let c = try #require(try conversations([file]).first)
        #expect(c.messages.map(\.sourceID) == ["u1", "m1", "y1"])
        #expect(c.messages.map(\.kind) == [nil, .hidden, .hidden])
        #expect(c.messages.map(\.role) == [.user, .user, .system])
        #expect(c.messages[0].body == "What is in this screenshot?")
        #expect(c.messages[0].attachments.map(\.name) == ["image-2.png"])
        #expect(c.messages[0].attachments.first?.bytes == png)
        #expect(c.messages[2].body == "Conversation compacted")
        #expect(c.title == "What is in this screenshot?")
        var later: [ImportedItem] = []
        try ClaudeCodeReader().read([file], since: Timestamp(rfc3339: "2026-03-01T09:00:03Z")) { later.append($0) }
        #expect(later.isEmpty)
        var same: [ImportedItem] = []
        try ClaudeCodeReader().read([file], since: Timestamp(rfc3339: "2026-03-01T09:00:02Z")) { same.append($0) }
        #expect(same.count == 1)
    }

    @Test func aBrokenLineNamesTheFileAndTheLine() throws {
        let folder = TemporaryDirectory("claude-code")
        let file = try write([Self.lines[1], "{\"type\": \"user\", \"uuid\": "], to: folder)
        #expect(importProblem { _ = try conversations([file]) } == ImportProblem(file: file, place: "line 2", problem: "is not valid JSON"))
    }

    @Test func invalidUTF8NamesTheLineAndTheByte() throws {
        let folder = TemporaryDirectory("claude-code")
        let path = "p/s.jsonl"
        try folder.write(path, Array((Self.lines[1] + "\n").utf8) + [0x7B, 0x22, 0xC3, 0x28, 0x22, 0x7D, 0x0A])
        let expected = ImportProblem(file: folder.path + "/" + path, place: "line 2", problem: "is not valid UTF-8 (byte 3 of the line)")
        #expect(importProblem { _ = try conversations([folder.path + "/" + path]) } == expected)
    }

    @Test func aNamedFileThatIsNotALogIsAProblem() throws {
        let folder = TemporaryDirectory("claude-code")
        try folder.write("list.jsonl", "{\"name\": \"not a log\"}\n{\"name\": \"nor this\"}\n")
        try folder.write("array.json", "[\n{\"sessionId\": \"x\"}\n]\n")
        let reader = ClaudeCodeReader()
        #expect(importProblem { _ = try conversations([folder.path + "/list.jsonl"], reader: reader) }
            == ImportProblem(file: folder.path + "/list.jsonl", problem: "is not a Claude Code session log: no line has a sessionId"))
        #expect(reader.skipped.byType == ["(no type)": 2])
        #expect(importProblem { _ = try conversations([folder.path + "/array.json"]) }
            == ImportProblem(file: folder.path + "/array.json", place: "line 1", problem: "is not valid JSON"))
    }

    @Test func aFolderWithoutLogsIsAProblem() throws {
        let folder = TemporaryDirectory("claude-code")
        try folder.write("notes.txt", "not a log")
        let expected = ImportProblem(file: folder.path, problem: "holds no Claude Code session logs (.jsonl files, or folders of them)")
        #expect(importProblem { _ = try conversations([folder.path]) } == expected)
    }

    @Test func recognizesLogsByTheirContent() throws {
        let folder = TemporaryDirectory("claude-code")
        let file = try write(Self.lines, to: folder)
        try folder.write("other/list.jsonl", "{\"name\": \"not a log\"}\n")
        #expect(ClaudeCodeReader.recognizes(file))
        #expect(ClaudeCodeReader.recognizes(folder.path))
        #expect(ClaudeCodeReader.recognizes(folder.path + "/-home-me-src-busan"))
        #expect(!ClaudeCodeReader.recognizes(folder.path + "/other/list.jsonl"))
        #expect(!ClaudeCodeReader.recognizes(folder.path + "/other"))
    }

    @Test func theDefaultIsTheProjectsFolder() {
        #expect(ClaudeCodeReader.defaultPaths(environment: ["HOME": "/home/me"]) == ["/home/me/.claude/projects"])
        #expect(ClaudeCodeReader.defaultPaths(environment: ["HOME": "/home/me", "CLAUDE_CONFIG_DIR": "/cfg"]) == ["/cfg/projects"])
    }
}
