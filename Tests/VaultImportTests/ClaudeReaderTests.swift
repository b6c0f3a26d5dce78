import Foundation
import Testing
import VaultCore
import VaultImport
import VaultTestSupport

/// A Claude.ai export, written from its shape: `conversations.json` (an array of conversations
/// with `chat_messages`, each with `sender`, `content` blocks, `attachments`, `files` and
/// `parent_message_uuid`), `users.json`, `projects.json`; times are ISO 8601 strings.
enum ClaudeFixture {
    static let root = "00000000-0000-4000-8000-000000000000"

    static let lifetimes = #"""
        {"uuid": "c-1", "name": "Rust lifetimes", "summary": "", "created_at": "2024-05-01T09:00:00.123456Z",
         "updated_at": "2024-05-01T09:02:05.000000Z", "account": {"uuid": "acc-1"}, "project_uuid": "p-1",
         "chat_messages": [
          {"uuid": "m1", "text": "Explain lifetimes", "sender": "human", "created_at": "2024-05-01T09:00:01.000000Z",
           "updated_at": "2024-05-01T09:00:01.000000Z", "parent_message_uuid": "00000000-0000-4000-8000-000000000000",
           "content": [{"start_timestamp": "2024-05-01T09:00:01.000000Z", "stop_timestamp": "2024-05-01T09:00:01.000000Z",
                        "type": "text", "text": "Explain lifetimes", "citations": []}],
           "attachments": [{"file_name": "notes.txt", "file_size": 5, "file_type": "txt", "extracted_content": "hello"},
                           {"file_name": "scan.pdf", "file_size": 100, "file_type": "pdf"}],
           "files": [{"file_name": "diagram.png"}]},
          {"uuid": "m2", "text": "", "sender": "assistant", "created_at": "2024-05-01T09:00:05.000000Z",
           "updated_at": "2024-05-01T09:00:05.000000Z", "parent_message_uuid": "m1", "attachments": [], "files": [],
           "content": [
             {"start_timestamp": "2024-05-01T09:00:02.000000Z", "type": "thinking", "thinking": "They want the idea first.",
              "summaries": [{"summary": "Planning"}], "cut_off": false},
             {"start_timestamp": "2024-05-01T09:00:03.000000Z", "type": "text", "text": "A lifetime is a scope.", "citations": []},
             {"start_timestamp": "2024-05-01T09:00:03.500000Z", "type": "tool_use", "name": "web_search",
              "input": {"query": "rust lifetimes"}, "message": "Searching"},
             {"start_timestamp": "2024-05-01T09:00:04.000000Z", "type": "tool_result", "name": "web_search", "is_error": false,
              "content": [{"type": "knowledge", "title": "The Book", "url": "https://doc.rust-lang.org/book", "text": "Lifetimes ensure references are valid."}]},
             {"start_timestamp": "2024-05-01T09:00:04.500000Z", "type": "text", "text": "So: ", "citations": []},
             {"start_timestamp": "2024-05-01T09:00:04.600000Z", "type": "text", "text": "borrow wisely.", "citations": []}
           ]},
          {"uuid": "m3", "text": "Shorter please", "sender": "human", "created_at": "2024-05-01T09:01:00.000000Z",
           "parent_message_uuid": "m2", "content": [{"type": "text", "text": "Shorter please"}], "attachments": [], "files": []},
          {"uuid": "m4", "text": "Refs must not outlive data.", "sender": "assistant", "created_at": "2024-05-01T09:01:05.000000Z",
           "parent_message_uuid": "m3", "content": [{"type": "text", "text": "Refs must not outlive data."}], "attachments": [], "files": []},
          {"uuid": "m3b", "text": "Even shorter", "sender": "human", "created_at": "2024-05-01T09:02:00.000000Z",
           "parent_message_uuid": "m2", "content": [{"type": "text", "text": "Even shorter"}], "attachments": [], "files": []},
          {"uuid": "m4b", "text": "Scopes.", "sender": "assistant", "created_at": "2024-05-01T09:02:05.000000Z",
           "parent_message_uuid": "m3b", "content": [{"type": "text", "text": "Scopes."}], "attachments": [], "files": []}
         ]}
        """#

    /// An older conversation: no `parent_message_uuid`, no `content` (only `text`).
    static let older = #"""
        {"uuid": "c-2", "name": "", "created_at": "2023-12-31T23:59:59+09:00", "updated_at": "2024-01-01T00:00:10+09:00",
         "chat_messages": [
          {"uuid": "o1", "text": "Happy new year", "sender": "human", "created_at": "2023-12-31T23:59:59+09:00", "attachments": [], "files": []},
          {"uuid": "o2", "text": "And to you!", "sender": "assistant", "created_at": "2024-01-01T00:00:10+09:00", "attachments": [], "files": []}
         ]}
        """#

    static func folder() throws -> TemporaryDirectory {
        let folder = TemporaryDirectory("vault-claude")
        try folder.write("conversations.json", "[\(lifetimes), \(older)]")
        try folder.write("users.json", #"[{"uuid": "acc-1", "full_name": "Kim", "email_address": "kim@example.com"}]"#)
        try folder.write("projects.json", #"[{"uuid": "p-1", "name": "Learning Rust", "description": "", "docs": []}]"#)
        return folder
    }
}

@Suite struct ClaudeReaderTests {
    func check(_ conversations: [ImportedConversation]) {
        #expect(conversations.map(\.sourceID) == ["c-1", "c-2"])
        guard conversations.count == 2 else { return }
        let c = conversations[0]
        #expect(c.source == .claude)
        #expect(c.title == "Rust lifetimes")
        #expect(c.created.text == "2024-05-01T09:00:00+00:00")
        #expect(c.settings.map { "\($0.0)=\($0.1)" } == ["project=string(\"Learning Rust\")"])
        #expect(lines(c.messages) == [
            "m1 user 2024-05-01T09:00:01+00:00: Explain lifetimes [notes.txt 5] [file scan.pdf missing ] [file diagram.png missing ]",
            "m2 assistant/thoughts 2024-05-01T09:00:02+00:00: They want the idea first.",
            "m2.1 assistant 2024-05-01T09:00:03+00:00: A lifetime is a scope.",
            "m2.2 assistant/tool-call 2024-05-01T09:00:03+00:00: Tool call: web_search\n\n```json\n{\n  \"query\" : \"rust lifetimes\"\n}\n```",
            "m2.3 assistant/tool-result 2024-05-01T09:00:04+00:00: Tool result: web_search\n\n```\nThe Book\nhttps://doc.rust-lang.org/book\nLifetimes ensure references are valid.\n```",
            "m2.4 assistant 2024-05-01T09:00:04+00:00: So: \n\nborrow wisely.",
            "m3b user 2024-05-01T09:02:00+00:00: Even shorter",
            "m4b assistant 2024-05-01T09:02:05+00:00: Scopes.",
        ])
        #expect(String(decoding: c.messages[0].attachments[0].bytes, as: UTF8.self) == "hello")
        #expect(c.branches.map(\.forkedAfter) == ["m2.4"])
        #expect(c.branches.map { lines($0.messages) } == [[
            "m3 user 2024-05-01T09:01:00+00:00: Shorter please",
            "m4 assistant 2024-05-01T09:01:05+00:00: Refs must not outlive data.",
        ]])
        let older = conversations[1]
        #expect(older.title == "", "no title of its own: `Importing` titles the room")
        #expect(older.created.text == "2023-12-31T23:59:59+09:00")
        #expect(lines(older.messages) == [
            "o1 user 2023-12-31T23:59:59+09:00: Happy new year", "o2 assistant 2024-01-01T00:00:10+09:00: And to you!",
        ])
        #expect(older.branches.isEmpty)
    }

    @Test func aFolderAFileAndAZipGiveTheSameConversations() throws {
        let folder = try ClaudeFixture.folder()
        check(try readAll(ClaudeReader(), [folder.path]))
        check(try readAll(ClaudeReader(), [folder.path + "/conversations.json"]))
        try makeZip(folder.path + "/claude.zip", try folder.files().map { ($0, try folder.read($0)) })
        check(try readAll(ClaudeReader(), [folder.path + "/claude.zip"]))
        #expect(ClaudeReader.recognizes(folder.path + "/claude.zip"))
        #expect(ClaudeReader.recognizes(folder.path))
        #expect(!ChatGPTReader.recognizes(folder.path))
    }

    @Test func theNewestLeafIsTheTranscriptWhateverTheFileOrder() throws {
        // The edited question first in the file, the original after it: still the newest wins.
        let folder = TemporaryDirectory("vault-claude")
        let edited = #"""
            [{"uuid": "c", "name": "x", "created_at": "2024-01-01T00:00:00Z", "chat_messages": [
              {"uuid": "q2", "text": "edited", "sender": "human", "created_at": "2024-01-01T00:05:00Z", "parent_message_uuid": "00000000-0000-4000-8000-000000000000"},
              {"uuid": "q1", "text": "original", "sender": "human", "created_at": "2024-01-01T00:01:00Z", "parent_message_uuid": "00000000-0000-4000-8000-000000000000"},
              {"uuid": "a1", "text": "answer", "sender": "assistant", "created_at": "2024-01-01T00:02:00Z", "parent_message_uuid": "q1"}]}]
            """#
        try folder.write("conversations.json", edited)
        let c = try readAll(ClaudeReader(), [folder.path])[0]
        #expect(lines(c.messages) == ["q2 user 2024-01-01T00:05:00+00:00: edited"])
        #expect(c.branches.map(\.forkedAfter) == [nil])
        #expect(c.branches.map { $0.messages.map(\.sourceID) } == [["q1", "a1"]])
    }

    func problem(_ json: String) throws -> String? {
        let folder = TemporaryDirectory("vault-claude")
        try folder.write("conversations.json", json)
        return importProblem(in: folder.path) { () throws(VaultError) in _ = try readAll(ClaudeReader(), [folder.path]) }
    }

    @Test func badExportsNameTheFileAndThePlace() throws {
        #expect(try problem(#"[{"uuid": "c", "name": "x", "messages": []}]"#)
            == "EXPORT/conversations.json, at [0]: has no chat_messages: this is not a Claude conversation vault knows")
        #expect(try problem(#"[{"uuid": "c", "chat_messages": [{"uuid": "m", "sender": "robot", "text": "x"}]}]"#)
            == "EXPORT/conversations.json, at [0].chat_messages[0].sender: is \"robot\", a sender vault does not know (human or assistant)")
        #expect(try problem(#"[{"uuid": "c", "chat_messages": [{"uuid": "m", "sender": "human", "content": ["hologram"]}]}]"#)
            == "EXPORT/conversations.json, at [0].chat_messages[0].content[0]: is not a content block (an object with a type)")
        let whole = "[\(ClaudeFixture.lifetimes)]"
        let cut = String(whole.prefix(200))
        #expect(try problem(cut) == "EXPORT/conversations.json, at [0]: is cut short: the file ends at byte 200 inside this element")
        #expect(try problem(#"{"uuid": "c"}"#) == "EXPORT/conversations.json, at [0]: has no chat_messages: this is not a Claude conversation vault knows")
    }
}
