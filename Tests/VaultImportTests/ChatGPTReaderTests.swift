import Foundation
import Testing
import VaultCore
import VaultImport
import VaultTestSupport

/// ChatGPT export fixtures, written from the export's shape: `conversations.json` is an array of
/// conversations, each with a `mapping` of nodes (`id`, `message`, `parent`, `children`) and a
/// `current_node`; times are epoch seconds; images are `image_asset_pointer` parts.
enum ChatGPTFixture {
    static func node(
        _ id: String, parent: String?, children: [String], role: String? = nil, content: String? = nil,
        time: String = "null", model: String? = nil, hidden: Bool = false, recipient: String = "all"
    ) -> String {
        let parentText = parent.map { "\"\($0)\"" } ?? "null"
        let childText = children.map { "\"\($0)\"" }.joined(separator: ", ")
        guard let role, let content else {
            return "\"\(id)\": {\"id\": \"\(id)\", \"message\": null, \"parent\": \(parentText), \"children\": [\(childText)]}"
        }
        var metadata: [String] = []
        if let model { metadata.append("\"model_slug\": \"\(model)\"") }
        if hidden { metadata.append("\"is_visually_hidden_from_conversation\": true") }
        return """
            "\(id)": {"id": "\(id)", "message": {"id": "\(id)", "author": {"role": "\(role)", "name": null, "metadata": {}},
              "create_time": \(time), "update_time": null, "content": \(content), "status": "finished_successfully",
              "end_turn": null, "weight": 1.0, "metadata": {\(metadata.joined(separator: ", "))}, "recipient": "\(recipient)"},
              "parent": \(parentText), "children": [\(childText)]}
            """
    }

    static func text(_ s: String) -> String { "{\"content_type\": \"text\", \"parts\": [\(json(s))]}" }
    static func json(_ s: String) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: s, options: [.fragmentsAllowed]), as: UTF8.self)
    }

    /// "Trip to Busan": a regenerated answer (a1 → a1b), an edited question (u2 → u2b), thoughts,
    /// code and its output, an image, a recap, a quote, a hidden system message, a null time.
    static let busan = """
        {"title": "Trip to Busan", "create_time": 1700000000.5, "update_time": 1700000100.0,
         "conversation_id": "conv-busan", "id": "conv-busan", "current_node": "hid", "default_model_slug": "gpt-4o",
         "moderation_results": [], "mapping": {
        \(node("root", parent: nil, children: ["sys"])),
        \(node("sys", parent: "root", children: ["u1"], role: "system", content: text(""), hidden: true)),
        \(node("u1", parent: "sys", children: ["a1", "a1b"], role: "user", content: text("Plan a trip to Busan"), time: "1700000001")),
        \(node("a1", parent: "u1", children: [], role: "assistant", content: text("Take the KTX."), time: "1700000002", model: "gpt-4o")),
        \(node("a1b", parent: "u1", children: ["u2", "u2b"], role: "assistant", content: text("Fly, or take the KTX."), time: "1700000003", model: "gpt-4o")),
        \(node("u2", parent: "a1b", children: ["a2"], role: "user", content: text("What about food?"), time: "1700000004")),
        \(node("a2", parent: "u2", children: [], role: "assistant", content: text("Try dwaeji gukbap."), time: "1700000005", model: "gpt-4o")),
        \(node("u2b", parent: "a1b", children: ["t1"], role: "user", content: text("What about seafood?"), time: "1700000006")),
        \(node("t1", parent: "u2b", children: ["a3"], role: "assistant", content: "{\"content_type\": \"thoughts\", \"thoughts\": [{\"summary\": \"Markets\", \"content\": \"Jagalchi is famous.\"}], \"source_analysis_msg_id\": \"x\"}", time: "1700000007", model: "o3")),
        \(node("a3", parent: "t1", children: ["c1"], role: "assistant", content: text("Jagalchi market."), model: "o3")),
        \(node("c1", parent: "a3", children: ["x1"], role: "assistant", content: "{\"content_type\": \"code\", \"language\": \"unknown\", \"response_format_name\": null, \"text\": \"print(1)\"}", time: "1700000009", model: "o3", recipient: "python")),
        \(node("x1", parent: "c1", children: ["h1"], role: "tool", content: "{\"content_type\": \"execution_output\", \"text\": \"1\"}", time: "1700000010")),
        \(node("h1", parent: "x1", children: ["rr"], role: "user", content: "{\"content_type\": \"multimodal_text\", \"parts\": [{\"content_type\": \"image_asset_pointer\", \"asset_pointer\": \"file-service://file-ABC123\", \"size_bytes\": 3, \"width\": 1, \"height\": 1}, \"This one?\"]}", time: "1700000011")),
        \(node("rr", parent: "h1", children: ["q1"], role: "assistant", content: "{\"content_type\": \"reasoning_recap\", \"content\": \"Thought for 3 seconds\"}", time: "1700000012", model: "o3")),
        \(node("q1", parent: "rr", children: ["hid"], role: "tool", content: "{\"content_type\": \"tether_quote\", \"url\": \"https://example.com/busan\", \"domain\": \"example.com\", \"text\": \"Busan is a port.\\nIt has beaches.\", \"title\": \"Busan guide\"}", time: "1700000013")),
        \(node("hid", parent: "q1", children: [], role: "system", content: text("Remember: the user likes trains."), time: "1700000014", hidden: true))
        }}
        """

    /// A second conversation: `id` without `conversation_id`, no title, no `current_node`, a
    /// message with a null time.
    static let short = """
        {"title": "", "create_time": 1700001000, "update_time": 1700001005, "id": "conv-short", "mapping": {
        \(node("a", parent: nil, children: ["b"], role: "user", content: text("hi"))),
        \(node("b", parent: "a", children: [], role: "assistant", content: text("hello"), time: "1700001005", model: "gpt-4o-mini"))
        }}
        """

    static let image: [UInt8] = [0x89, 0x50, 0x4E, 0x47]

    /// The export folder: `conversations.json` (or split files) and the image.
    static func folder(split: Bool = false, withImage: Bool = true) throws -> TemporaryDirectory {
        let folder = TemporaryDirectory("vault-chatgpt")
        if split {
            try folder.write("conversations-000.json", "[\(busan)]")
            try folder.write("conversations-001.json", "[\(short)]")
        } else {
            try folder.write("conversations.json", "[\(busan),\n\(short)]")
        }
        if withImage { try folder.write("file-ABC123-photo.png", image) }
        try folder.write("chat.html", "<html></html>")
        return folder
    }
}

@Suite struct ChatGPTReaderTests {
    let busanTranscript = [
        "u1 user 2023-11-14T22:13:21+00:00: Plan a trip to Busan",
        "a1b assistant gpt-4o 2023-11-14T22:13:23+00:00: Fly, or take the KTX.",
        "u2b user 2023-11-14T22:13:26+00:00: What about seafood?",
        "t1 assistant/thoughts o3 2023-11-14T22:13:27+00:00: **Markets**\n\nJagalchi is famous.",
        "a3 assistant o3 -: Jagalchi market.",
        "c1 assistant/tool-call o3 2023-11-14T22:13:29+00:00: Tool call: python\n\n```\nprint(1)\n```",
        "x1 assistant/tool-result 2023-11-14T22:13:30+00:00: Tool result\n\n```\n1\n```",
        "h1 user 2023-11-14T22:13:31+00:00: This one? [file-ABC123-photo.png 4]",
        "rr assistant/thoughts o3 2023-11-14T22:13:32+00:00: Thought for 3 seconds",
        "q1 assistant/tool-result 2023-11-14T22:13:33+00:00: [Busan guide](https://example.com/busan)\n\n> Busan is a port.\n> It has beaches.",
        "hid system/hidden 2023-11-14T22:13:34+00:00: Remember: the user likes trains.",
    ]

    func check(_ conversations: [ImportedConversation]) {
        #expect(conversations.map(\.sourceID) == ["conv-busan", "conv-short"])
        guard conversations.count == 2 else { return }
        let busan = conversations[0]
        #expect(busan.source == .chatgpt)
        #expect(busan.title == "Trip to Busan")
        #expect(busan.created.text == "2023-11-14T22:13:20+00:00")
        #expect(busan.settings.map { "\($0.0)=\($0.1)" } == ["model=string(\"gpt-4o\")"])
        #expect(lines(busan.messages) == busanTranscript)
        // The regenerated answer forked after the question; the original question after the answer before it.
        #expect(busan.branches.map(\.forkedAfter) == ["u1", "a1b"])
        #expect(busan.branches.map { lines($0.messages) } == [
            ["a1 assistant gpt-4o 2023-11-14T22:13:22+00:00: Take the KTX."],
            ["u2 user 2023-11-14T22:13:24+00:00: What about food?", "a2 assistant gpt-4o 2023-11-14T22:13:25+00:00: Try dwaeji gukbap."],
        ])
        #expect(busan.messages[7].attachments.first?.bytes == ChatGPTFixture.image)
        let short = conversations[1]
        #expect(short.title == "", "no title of its own: `Importing` titles the room")
        #expect(short.created.text == "2023-11-14T22:30:00+00:00")
        #expect(lines(short.messages) == ["a user -: hi", "b assistant gpt-4o-mini 2023-11-14T22:30:05+00:00: hello"])
        #expect(short.branches.isEmpty)
    }

    @Test func aFolderGivesTranscriptsAndTheirBranches() throws {
        let folder = try ChatGPTFixture.folder()
        check(try readAll(ChatGPTReader(), [folder.path]))
        // The file itself: its folder holds the images.
        check(try readAll(ChatGPTReader(), [folder.path + "/conversations.json"]))
    }

    @Test func aSplitExportIsReadInOrder() throws {
        let folder = try ChatGPTFixture.folder(split: true)
        check(try readAll(ChatGPTReader(), [folder.path]))
    }

    @Test func aZipExportReadsTheSame() throws {
        for split in [false, true] {
            let folder = try ChatGPTFixture.folder(split: split)
            let zip = folder.path + "/export.zip"
            try makeZip(zip, try folder.files().map { ($0, try folder.read($0)) })
            check(try readAll(ChatGPTReader(), [zip]))
            #expect(ChatGPTReader.recognizes(zip))
            #expect(!ClaudeReader.recognizes(zip))
        }
    }

    @Test func sinceSkipsConversationsNotUpdatedSince() throws {
        let folder = try ChatGPTFixture.folder()
        let since = Timestamp(rfc3339: "2023-11-14T22:20:00Z")!
        #expect(try readAll(ChatGPTReader(), [folder.path], since: since).map(\.sourceID) == ["conv-short"])
    }

    @Test func aMissingImageIsAPlaceholderWithTheMessagesText() throws {
        let folder = try ChatGPTFixture.folder(withImage: false)
        for reader in [ChatGPTReader(), ChatGPTReader(missingImage: .note)] {
            let read = try readAll(reader, [folder.path])
            #expect(lines(read[0].messages)[7]
                == "h1 user 2023-11-14T22:13:31+00:00: This one? [image file-ABC123 missing file-service://file-ABC123]")
            #expect(read[0].messages[7].attachments[0].placeholder
                == "[image file-ABC123 is not in the export: file-service://file-ABC123]")
        }
    }

    @Test func recognizesByContent() throws {
        let folder = try ChatGPTFixture.folder()
        #expect(ChatGPTReader.recognizes(folder.path))
        #expect(ChatGPTReader.recognizes(folder.path + "/conversations.json"))
        #expect(!ClaudeReader.recognizes(folder.path))
        // The name alone is not enough.
        try folder.write("other/conversations.json", "[{\"uuid\": \"x\", \"chat_messages\": []}]")
        #expect(!ChatGPTReader.recognizes(folder.path + "/other/conversations.json"))
        try folder.write("renamed.json", "[\(ChatGPTFixture.short)]")
        #expect(ChatGPTReader.recognizes(folder.path + "/renamed.json"))
    }

    func problem(_ json: String) throws -> String? {
        let folder = TemporaryDirectory("vault-chatgpt")
        try folder.write("conversations.json", json)
        try folder.write("file-ABC123.png", ChatGPTFixture.image)
        return importProblem(in: folder.path) { () throws(VaultError) in _ = try readAll(ChatGPTReader(), [folder.path]) }
    }

    @Test func badExportsNameTheFileAndThePlace() throws {
        let whole = "[\(ChatGPTFixture.busan),\n\(ChatGPTFixture.short)]"
        let cut = String(whole.prefix(whole.utf8.count - 40))
        let cutProblem = try problem(cut)
        #expect(cutProblem == "EXPORT/conversations.json, at [1]: is cut short: the file ends at byte \(cut.utf8.count) inside this element")
        #expect(try problem("[{\"title\": \"x\", \"id\": \"c\", \"messages\": []}]")
            == "EXPORT/conversations.json, at [0]: has no mapping: this is not a ChatGPT conversation vault knows")
        let noContent = """
            [{"title": "x", "id": "c", "current_node": "n", "mapping": {"n": {"id": "n", "message": {"id": "n", "author": {"role": "user"}}, "parent": null, "children": []}}}]
            """
        #expect(try problem(noContent) == "EXPORT/conversations.json, at [0].mapping.n.message: has no content")
        let role = """
            [{"title": "x", "id": "c", "mapping": {\(ChatGPTFixture.node("n", parent: nil, children: [], role: "critic", content: ChatGPTFixture.text("hm")))}}]
            """
        #expect(try problem(role) == "EXPORT/conversations.json, at [0].mapping.n.message.author.role: is \"critic\", a role vault does not know")
        #expect(try problem("[{\"title\": \"x\", \"id\": \"c\", \"current_node\": \"zz\", \"mapping\": {}}]")
            == "EXPORT/conversations.json, at [0].current_node: names the node \"zz\", which is not in the mapping")
        let cycle = """
            [{"title": "x", "id": "c", "current_node": "a", "mapping": {\(ChatGPTFixture.node("a", parent: "b", children: ["b"], role: "user", content: ChatGPTFixture.text("1"))), \(ChatGPTFixture.node("b", parent: "a", children: ["a"], role: "user", content: ChatGPTFixture.text("2")))}}]
            """
        #expect(try problem(cycle) == "EXPORT/conversations.json, at [0].mapping.a: its parents form a cycle")
        let folder = TemporaryDirectory("vault-chatgpt")
        try folder.write("conversations.json", Array("[{\"title\": \"".utf8) + [0xFF] + Array("\", \"mapping\": {}}]".utf8))
        #expect(importProblem(in: folder.path) { () throws(VaultError) in _ = try readAll(ChatGPTReader(), [folder.path]) }
            == "EXPORT/conversations.json, at [0]: is not valid UTF-8 (byte 12)")
        // Inside a zip: the member is streamed as it is inflated; the problem names the zip and the member.
        try makeZip(folder.path + "/cut.zip", [("conversations.json", Array(cut.utf8)), ("file-ABC123.png", ChatGPTFixture.image)])
        #expect(importProblem(in: folder.path) { () throws(VaultError) in _ = try readAll(ChatGPTReader(), [folder.path + "/cut.zip"]) }
            == "EXPORT/cut.zip:conversations.json, at [1]: is cut short: the file ends at byte \(cut.utf8.count) inside this element")
        try folder.write("chat.zip", Array("PK\u{3}\u{4}and then nothing".utf8))
        #expect(importProblem(in: folder.path) { () throws(VaultError) in _ = try readAll(ChatGPTReader(), [folder.path + "/chat.zip"]) }
            == "EXPORT/chat.zip: is cut short: the zip's end (its central directory) is missing")
    }

    @Test func leavingOutABrokenConversationReadsTheOnesAfterIt() throws {
        let folder = TemporaryDirectory("vault-chatgpt")
        let broken = """
            {"title": "x", "id": "c", "current_node": "n", "mapping": {\(ChatGPTFixture.node("n", parent: nil, children: [], role: "critic", content: ChatGPTFixture.text("hm")))}}
            """
        try folder.write("conversations.json", "[\(ChatGPTFixture.busan),\n\(broken),\n{\"title\": \"cut\" \"x\"},\n\(ChatGPTFixture.short)]")
        try folder.write("file-ABC123.png", ChatGPTFixture.image)
        var read: [String] = []
        var leftOut: [String] = []
        try ChatGPTReader().read(
            [folder.path], since: nil,
            into: ImportSink(
                emit: { item in if case .conversation(let c) = item { read.append(c.title) } },
                leftOut: { leftOut.append($0.description.replacingOccurrences(of: folder.path, with: "EXPORT")) }))
        #expect(read.count == 2, "\(read)")
        #expect(leftOut.count == 2, "\(leftOut)")
        #expect(leftOut.first == "EXPORT/conversations.json, at [1].mapping.n.message.author.role: is \"critic\", a role vault does not know")
        #expect(leftOut.last?.hasPrefix("EXPORT/conversations.json, at [2]: is not valid JSON (the element at byte ") == true)
        // Without a leftOut handler the first broken part stops the reading.
        #expect(throws: VaultError.self) { try readAll(ChatGPTReader(), [folder.path]) }
    }
}
