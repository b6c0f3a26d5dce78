import Foundation
import Testing
import VaultCore
import VaultTestSupport

@testable import VaultImport

/// A real `logs.db`, made by the `llm` command (from the Python package index; scripts/test.sh
/// installs it) chatting with the fake OpenAI server, then read by `LLMReader`. Older-schema
/// rows are added the way llm 0.2x wrote them, and llm itself continues one of them.
@Suite(.serialized) struct LLMReaderTests {
    /// What the fake server's `ok` and `json` models answer (Tests/Fixtures/openai_server.py).
    static let okReply = "안녕하세요! 부산 여행 🌊🏖️ 계획을 세워 볼게요.\n\n- 첫째 날: 해운대 👨‍👩‍👧\n- 둘째 날: 감천 문화 마을"
    static let jsonReply = "JSON 답장입니다 ✅\n둘째 줄"

    /// The `llm` command on PATH.
    static func llmCommand() -> String? {
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let path = "\(folder)/llm"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }

    /// llm's own folder (LLM_USER_PATH) with two models served by `server`.
    struct LLM {
        let command: String
        let folder: TemporaryDirectory
        let server: FakeOpenAIServer

        init() throws {
            let command = LLMReaderTests.llmCommand()
            try #require(
                command != nil,
                "the llm command is not installed: scripts/test.sh installs it (pip install llm); this test needs it")
            self.command = command!
            folder = TemporaryDirectory("llm")
            server = try FakeOpenAIServer(expectedKey: "test-key")
            try folder.write(
                "extra-openai-models.yaml",
                """
                - model_id: fake-ok
                  model_name: ok
                  api_base: "\(server.baseURL)"
                - model_id: fake-json
                  model_name: json
                  api_base: "\(server.baseURL)"

                """)
        }

        var database: String { folder.path + "/logs.db" }

        /// Runs `llm arguments`; throws with its output when it fails.
        @discardableResult
        func callAsFunction(_ arguments: String...) throws -> String {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: command)
            process.arguments = arguments
            var environment = ProcessInfo.processInfo.environment
            environment["LLM_USER_PATH"] = folder.path
            environment["OPENAI_API_KEY"] = "test-key"
            environment["HOME"] = folder.path
            process.environment = environment
            let result = try run(process)
            guard result.status == 0 else {
                throw FixtureError("llm \(arguments) exited \(result.status): \(result.stderr) \(server.serverErrors)")
            }
            return result.stdout
        }

        /// Runs a Python script with the database's path as its argument (sqlite3 of Python's
        /// standard library: the older rows).
        func python(_ script: String) throws {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", "-c", script, database]
            let result = try run(process)
            guard result.status == 0 else { throw FixtureError("python3 failed: \(result.stderr)") }
        }
    }

    func read(_ path: String) throws -> [ImportedConversation] {
        conversations(try items(LLMReader(), [path]))
    }

    @Test func aRealLogsDatabaseGivesItsConversations() throws {
        let llm = try LLM()
        defer { llm.server.stop() }
        try llm("-m", "fake-ok", "Plan a Busan trip", "-s", "You are a travel agent", "-o", "temperature", "0.3")
        try llm("-c", "And day three?")
        try llm("-m", "fake-json", "--no-stream", "A JSON question")
        #expect(try llm.server.requests().count == 3)
        #expect(LLMReader.recognizes(llm.database))

        let all = try read(llm.database)
        #expect(all.count == 2)
        let trip = try #require(all.first)
        #expect(trip.source == .llm)
        #expect(trip.title == "Plan a Busan trip")
        #expect(trip.messages.map(\.role) == [.user, .assistant, .user, .assistant])
        #expect(trip.messages.map(\.body) == ["Plan a Busan trip", Self.okReply, "And day three?", Self.okReply])
        #expect(trip.messages.map(\.model) == [nil, "fake-ok", nil, "fake-ok"])
        #expect(trip.messages.allSatisfy { $0.kind == nil })
        #expect(Set(trip.messages.map(\.sourceID)).count == 4)
        let settings = Dictionary(uniqueKeysWithValues: trip.settings.map { ($0.0, $0.1) })
        #expect(settings == ["model": .string("fake-ok"), "system": .string("You are a travel agent"), "temperature": .string("0.3")])
        // Times are the turns' (this minute), not unknown.
        let now = Date().timeIntervalSince1970
        #expect(trip.messages.allSatisfy { abs(($0.time?.secondsSince1970 ?? 0) - now) < 600 })
        let json = all[1]
        #expect(json.title == "A JSON question")
        #expect(json.messages.map(\.body) == ["A JSON question", Self.jsonReply])
        #expect(json.messages.last?.model == "fake-json")

        // llm goes on: the same conversation, the same ids, and the new ones after them.
        try llm("--cid", trip.sourceID, "What about day four?")
        let again = try read(llm.database)
        #expect(again.map(\.sourceID) == all.map(\.sourceID))
        let grown = try #require(again.first)
        #expect(Array(grown.messages.map(\.sourceID).prefix(4)) == trip.messages.map(\.sourceID))
        #expect(grown.messages.count == 6)
        #expect(grown.messages.dropFirst(4).map(\.body) == ["What about day four?", Self.okReply])
    }

    @Test func theOlderTablesAndAConversationLLMContinued() throws {
        let llm = try LLM()
        defer { llm.server.stop() }
        try llm("-m", "fake-json", "--no-stream", "A JSON question")
        // Rows as llm 0.2x logged them: a conversation of two responses, one with an attachment.
        try llm.python(
            """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            db.execute("insert into conversations (id, name, model) values ('01h0old', 'Old chat about Jeju', 'fake-ok')")
            db.execute(\"\"\"insert into responses (id, model, prompt, system, options_json, response, conversation_id, datetime_utc)
                values ('01h0old1', 'fake-ok', 'What is Jeju?', 'Be brief', '{"temperature": 0.7}', 'An island.', '01h0old', '2023-07-12T12:00:00.123456')\"\"\")
            db.execute(\"\"\"insert into responses (id, model, prompt, system, options_json, response, conversation_id, datetime_utc)
                values ('01h0old2', 'fake-ok', 'How big?', 'Be brief', '{"temperature": 0.2, "max_tokens": 50}', '1,850 km2.', '01h0old', '2023-07-12T12:01:00')\"\"\")
            db.execute("insert into attachments (id, type, path, url, content) values ('a1b2c3', 'image/png', null, null, ?)", (b'\\x89PNG-bytes',))
            db.execute('insert into prompt_attachments (response_id, attachment_id, "order") values (?, ?, 0)', ('01h0old2', 'a1b2c3'))
            db.commit()
            """)
        let before = try read(llm.database)
        #expect(before.map(\.title) == ["Old chat about Jeju", "A JSON question"])
        let old = try #require(before.first)
        #expect(old.sourceID == "01h0old")
        #expect(old.messages.map(\.sourceID) == ["01h0old1:prompt", "01h0old1:response", "01h0old2:prompt", "01h0old2:response"])
        #expect(old.messages.map(\.body) == ["What is Jeju?", "An island.", "How big?", "1,850 km2."])
        #expect(old.messages.map { $0.time?.text } == [
            "2023-07-12T12:00:00+00:00", "2023-07-12T12:00:00+00:00", "2023-07-12T12:01:00+00:00", "2023-07-12T12:01:00+00:00",
        ])
        #expect(old.messages[2].attachments.map(\.name) == ["a1b2c3.png"])
        #expect(old.messages[2].attachments.first?.bytes == Array("\u{89}PNG-bytes".unicodeScalars.map { UInt8($0.value) }))
        let settings = Dictionary(uniqueKeysWithValues: old.settings.map { ($0.0, $0.1) })
        #expect(settings == [
            "model": .string("fake-ok"), "system": .string("Be brief"), "temperature": .string("0.2"), "max_tokens": .string("50"),
        ])

        // llm 0.3x continues it: a thread with the conversation's id that repeats it first.
        try llm("--cid", "01h0old", "And the weather?")
        let after = try read(llm.database)
        #expect(after.map(\.sourceID) == before.map(\.sourceID))
        let continued = try #require(after.first)
        #expect(continued.title == "Old chat about Jeju")
        #expect(Array(continued.messages.map(\.sourceID).prefix(4)) == old.messages.map(\.sourceID))
        #expect(continued.messages.map(\.body) == ["What is Jeju?", "An island.", "How big?", "1,850 km2.", "And the weather?", Self.okReply])
        #expect(continued.messages.last?.model == "fake-ok")
    }

    @Test func aForkedThreadIsABranchAndPartsKeepTheirKinds() throws {
        let llm = try LLM()
        defer { llm.server.stop() }
        try llm("-m", "fake-ok", "Plan a Busan trip")
        try llm("-c", "And day three?")
        let trip = try #require(try read(llm.database).first)
        // llm has no command that forks: its own library does, as its Python API is used.
        try llm.python(
            """
            import sys, sqlite_utils
            from llm.logs import LogStore
            from llm.parts import Message, TextPart, ReasoningPart, ToolCallPart, ToolResultPart, AttachmentPart
            from llm.models import Attachment
            db = sqlite_utils.Database(sys.argv[1])
            store = LogStore(db)
            thread = "\(trip.sourceID)"
            first = next(db.query("select tip_message_hash from turns where thread_id = ? order by datetime_utc limit 1", [thread]))["tip_message_hash"]
            fork = store.fork(first, name="Jeju instead", forked_from=thread)
            store.append(fork, [
                Message(role="user", parts=[TextPart(text="Plan Jeju instead"), AttachmentPart(attachment=Attachment(type="image/png", content=b"PNG-jeju"))]),
                Message(role="assistant", parts=[ReasoningPart(text="Jeju is an island."), ToolCallPart(name="weather", arguments={"city": "Jeju"}, tool_call_id="call_1")]),
                Message(role="tool", parts=[ToolResultPart(name="weather", output="sunny, 21C", tool_call_id="call_1")]),
                Message(role="assistant", parts=[TextPart(text="Jeju will be sunny.")]),
            ])
            """)
        let all = try read(llm.database)
        #expect(all.count == 1)
        let forked = try #require(all.first)
        #expect(forked.messages.map(\.sourceID) == trip.messages.map(\.sourceID))
        #expect(forked.branches.count == 1)
        let branch = try #require(forked.branches.first)
        #expect(branch.forkedAfter == trip.messages[1].sourceID)
        #expect(branch.messages.map(\.kind) == [nil, .thoughts, .toolCall, .toolResult, nil])
        #expect(branch.messages.map(\.role) == [.user, .assistant, .assistant, .user, .assistant])
        #expect(branch.messages[0].body == "Plan Jeju instead")
        #expect(branch.messages[0].attachments.map(\.bytes) == [Array("PNG-jeju".utf8)])
        #expect(branch.messages[0].attachments.first?.name.hasSuffix(".png") == true)
        #expect(branch.messages[1].body == "Jeju is an island.")
        #expect(branch.messages[2].body.hasPrefix("Tool call: weather\n\n```json\n{"))
        #expect(branch.messages[2].body.contains("\"Jeju\""))
        #expect(branch.messages[3].body == "Tool result: weather\n\n```\nsunny, 21C\n```")
        #expect(branch.messages[4].body == "Jeju will be sunny.")
        #expect(Set(branch.messages.map(\.sourceID)).count == 5)
    }

    @Test func aFileThatIsNotAnLLMDatabaseIsAProblem() throws {
        let folder = TemporaryDirectory("llm")
        try folder.write("logs.db", "not a database at all, just text that is long enough")
        let problem = importProblem { _ = try items(LLMReader(), [folder.path + "/logs.db"]) }
        #expect(problem == ImportProblem(file: folder.path + "/logs.db", problem: "is not an SQLite database (llm's logs.db is one)"))
        #expect(!LLMReader.recognizes(folder.path + "/logs.db"))
        // An SQLite database of something else.
        let other = Process()
        other.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        other.arguments = [
            "python3", "-c", "import sqlite3, sys; db = sqlite3.connect(sys.argv[1]); db.execute('create table notes (text)'); db.commit()",
            folder.path + "/other.db",
        ]
        #expect(try run(other).status == 0)
        #expect(importProblem { _ = try items(LLMReader(), [folder.path + "/other.db"]) } == ImportProblem(
            file: folder.path + "/other.db", problem: "has neither llm's responses nor its threads tables: not an llm logs.db"))
        #expect(!LLMReader.recognizes(folder.path + "/other.db"))
        #expect(LLMReader.defaultPaths(environment: ["HOME": "/home/me"]) == ["/home/me/.config/io.datasette.llm/logs.db"])
        #expect(LLMReader.defaultPaths(environment: ["LLM_USER_PATH": "/llm"]) == ["/llm/logs.db"])
    }
}
