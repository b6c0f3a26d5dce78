import Foundation
import Testing
import VaultCore
import VaultImport
import VaultTestSupport

/// The exports people really have (issue #37), imported into a real vault with its git history:
/// files the export names but does not hold, blocks newer than vault, one conversation as an
/// object, conversations without ids, thoughts as `parts`. The fixtures are written here from
/// the shapes public real exports show (ChatGPT's `mapping` with `image_asset_pointer` parts,
/// Claude's `chat_messages` with `files` and newer block types, Day One's `photos` with
/// `dayone-moment://` references). For each: every text of the source is in the vault exactly
/// once (a token per message), the report's counts are true, a second import changes nothing.
@Suite struct RealExportShapeTests {
    // MARK: ChatGPT

    static func chatGPTNode(_ id: String, parent: String?, children: [String], role: String, content: String, time: Int)
        -> String
    {
        ChatGPTFixture.node(id, parent: parent, children: children, role: role, content: content, time: "\(time)")
    }

    /// An image that is there, one that expired (not in the export), thoughts given as `parts`,
    /// and a content type newer than vault with neither `text` nor `parts`.
    static let chatGPTWithGaps = "[{\"title\": \"Gaps\", \"create_time\": 1700000000, \"conversation_id\": \"g1\", \"current_node\": \"x\", \"mapping\": {"
        + [
            chatGPTNode("u", parent: nil, children: ["t"], role: "user", content: """
                {"content_type": "multimodal_text", "parts": [
                  {"content_type": "image_asset_pointer", "asset_pointer": "file-service://file-Here", "size_bytes": 4},
                  {"content_type": "image_asset_pointer", "asset_pointer": "sediment://file_00Gone", "size_bytes": 9},
                  "TOK-G1 what are these two?"]}
                """, time: 1700000001),
            chatGPTNode("t", parent: "u", children: ["a"], role: "assistant", content: """
                {"content_type": "thoughts", "parts": ["TOK-G2 two photos, one lost"]}
                """, time: 1700000002),
            chatGPTNode("a", parent: "t", children: ["x"], role: "assistant", content: ChatGPTFixture.text("TOK-G3 a harbour"), time: 1700000003),
            chatGPTNode("x", parent: "a", children: [], role: "assistant", content: """
                {"content_type": "hologram_card", "payload": {"caption": "TOK-G4 a card"}}
                """, time: 1700000004),
        ].joined(separator: ",\n") + "}}]"

    @Test func aChatGPTImageNotInTheExportIsAPlaceholderAndANewContentTypeIsKeptAsJSON() throws {
        let world = try HostileWorld()
        try world.exports.write("conversations.json", Self.chatGPTWithGaps)
        try world.exports.write("file-Here-photo.png", ChatGPTFixture.image)
        let paths = [world.exports.path]
        let report = try world.expectImported(ChatGPTReader(), paths)
        #expect(report.roomsNew == 1 && report.messagesAdded == 4 && report.attachments == 1)
        #expect(report.missingFiles == ["image": 1] && report.unknownBlocks == ["hologram_card": 1])
        #expect(report.summary.contains("1 image was not in the export (a placeholder kept)"), "\(report.summary)")
        #expect(report.summary.contains("1 block of a type vault does not know kept as JSON (hologram_card)"), "\(report.summary)")
        let room = try world.dir.readText(try #require(report.paths.first { $0.hasPrefix("rooms/") }))
        #expect(room.contains("[image file_00Gone is not in the export: sediment://file_00Gone]"), "\(room)")
        #expect(room.contains("Unknown block: hologram_card\n\n```json\n{\n  \"content_type\" : \"hologram_card\","), "\(room)")
        #expect(room.contains("kind=thoughts"))
        try expectWhole(["TOK-G1", "TOK-G2", "TOK-G3", "TOK-G4"], world, ChatGPTReader(), paths, first: report)
    }

    /// One conversation as a JSON object (as browser exporters write it), without any id.
    static let chatGPTSingleWithoutIDs = "{\"title\": \"Single\", \"create_time\": 1700000100, \"mapping\": {"
        + [
            chatGPTNode("n1", parent: nil, children: ["n2"], role: "user", content: ChatGPTFixture.text("TOK-S1 hello"), time: 1700000101),
            chatGPTNode("n2", parent: "n1", children: [], role: "assistant", content: ChatGPTFixture.text("TOK-S2 hi"), time: 1700000102),
        ].joined(separator: ",\n") + "}}\n"

    @Test func aSingleChatGPTConversationWithoutIDsIsDetectedAndImportedOnce() throws {
        let world = try HostileWorld()
        try world.exports.write("one.json", Self.chatGPTSingleWithoutIDs)
        let path = world.exports.path + "/one.json"
        #expect(ImportReaders.detect(path) == .chatgpt)
        let read = try readAll(ChatGPTReader(), [path])
        #expect(read.count == 1 && read[0].sourceID.hasPrefix("chatgpt-") && read[0].sourceID.count == 24)
        let report = try world.expectImported(ChatGPTReader(), [path])
        #expect(report.roomsNew == 1 && report.messagesAdded == 2)
        try expectWhole(["TOK-S1", "TOK-S2"], world, ChatGPTReader(), [path], first: report)
        // The conversation grown in a later export: the same room, one message more.
        let grown = Self.chatGPTSingleWithoutIDs.replacingOccurrences(of: "\"children\": []", with: "\"children\": [\"n3\"]")
            .replacingOccurrences(
                of: "}}\n",
                with: ",\n" + Self.chatGPTNode("n3", parent: "n2", children: [], role: "user", content: ChatGPTFixture.text("TOK-S3 bye"), time: 1700000103) + "}}\n")
        try world.exports.write("one.json", grown)
        let later = try world.expectImported(ChatGPTReader(), [path])
        #expect(later.roomsNew == 0 && later.roomsUpdated == 1 && later.messagesAdded == 1)
        #expect(try occurrences("TOK-S1", in: world) == 1)
        #expect(try occurrences("TOK-S3", in: world) == 1)
    }

    @Test func aSingleObjectCutShortOrFollowedByMoreIsRefusedNamingTheByte() throws {
        let world = try HostileWorld()
        try world.exports.write("one.json", Self.chatGPTSingleWithoutIDs + "{}")
        let end = Self.chatGPTSingleWithoutIDs.utf8.count
        try world.expectRefused(
            ChatGPTReader(), [world.exports.path + "/one.json"], "EXPORT/one.json, at byte \(end): has more after the object's closing }")
        try world.exports.write("cut.json", String(Self.chatGPTSingleWithoutIDs.prefix(120)))
        try world.expectRefused(
            ChatGPTReader(), [world.exports.path + "/cut.json"],
            "EXPORT/cut.json, at [0]: is cut short: the file ends at byte 120 inside this element")
    }

    /// `create_time: "not-a-timestamp"` (a tool that rewrote the export): the room takes its
    /// first message's time and the report says so; with no time at all, 1970, said too.
    @Test func aChatGPTTimeThatIsNotATimeIsSaidNotPassedOver() throws {
        let world = try HostileWorld()
        let timed = "{\"title\": \"Odd time\", \"create_time\": \"not-a-timestamp\", \"id\": \"t1\", \"mapping\": {"
            + Self.chatGPTNode("n1", parent: nil, children: [], role: "user", content: ChatGPTFixture.text("TOK-T1 hello"), time: 1700000101) + "}}"
        let timeless = "{\"title\": \"No time\", \"id\": \"t2\", \"mapping\": {"
            + ChatGPTFixture.node("m1", parent: nil, children: [], role: "user", content: ChatGPTFixture.text("TOK-T2 hi")) + "}}"
        try world.exports.write("conversations.json", "[\(timed), \(timeless)]")
        let report = try world.expectImported(ChatGPTReader(), [world.exports.path])
        let file = world.exports.path + "/conversations.json"
        #expect(report.notes == [
            "\(file), at [0].create_time: is \"not-a-timestamp\", not a time; the first message's time is the room's",
            "\(file), at [1]: has no time at all; the room is dated 1970-01-01",
        ])
        let rooms = try report.paths.filter { $0.hasPrefix("rooms/") }.map { try world.dir.readText($0) }
        #expect(rooms.contains { $0.contains("created: 2023-11-14T22:15:01") }, "\(rooms)")
        try expectWhole(["TOK-T1", "TOK-T2"], world, ChatGPTReader(), [world.exports.path], first: report)
    }

    // MARK: Claude

    /// `files` named without their bytes, an attachment's extracted text from a PDF, and block
    /// types newer than vault (`token_budget`, `voice_note`) beside the text.
    static let claudeWithNewBlocks = #"""
        {"uuid": "cl-1", "name": "Whiteboard", "created_at": "2025-03-01T10:00:00.000000Z", "updated_at": "2025-03-01T10:01:00.000000Z",
         "chat_messages": [
          {"uuid": "h1", "sender": "human", "created_at": "2025-03-01T10:00:00.000000Z", "parent_message_uuid": "00000000-0000-4000-8000-000000000000",
           "content": [{"type": "text", "text": "TOK-C1 what does this whiteboard say?"},
                       {"type": "voice_note", "title": "TOK-C2 memo", "duration_seconds": 4}],
           "attachments": [{"file_name": "report.pdf", "file_size": 20, "file_type": "pdf", "extracted_content": "TOK-C3 extracted"}],
           "files": [{"file_name": "whiteboard.jpg"}]},
          {"uuid": "a1", "sender": "assistant", "created_at": "2025-03-01T10:01:00.000000Z", "parent_message_uuid": "h1",
           "content": [{"type": "token_budget", "remaining": 1200}, {"type": "text", "text": "TOK-C4 it says hello"}],
           "attachments": [], "files": []}
         ]}
        """#

    @Test func claudeFilesWithoutBytesAndNewBlockTypesAreKeptAndCounted() throws {
        let world = try HostileWorld()
        try world.exports.write("conversations.json", "[\(Self.claudeWithNewBlocks)]")
        let paths = [world.exports.path]
        let report = try world.expectImported(ClaudeReader(), paths)
        #expect(report.roomsNew == 1 && report.messagesAdded == 2 && report.attachments == 1)
        #expect(report.missingFiles == ["file": 1] && report.unknownBlocks == ["token_budget": 1, "voice_note": 1])
        let roomPath = try #require(report.paths.first { $0.hasPrefix("rooms/") })
        let room = try world.dir.readText(roomPath)
        #expect(room.contains("[file whiteboard.jpg is not in the export]"), "\(room)")
        #expect(room.contains("Unknown block: voice_note") && room.contains("Unknown block: token_budget"))
        // The extracted text is plain text, and named so.
        let stored = try #require(report.paths.first { $0.hasPrefix("attachments/") })
        #expect(stored.hasSuffix(".txt") && room.contains("report.pdf.txt"), "\(stored)")
        try expectWhole(["TOK-C1", "TOK-C2", "TOK-C3", "TOK-C4"], world, ClaudeReader(), paths, first: report)
    }

    @Test func aSingleClaudeConversationObjectIsDetectedAndRead() throws {
        let world = try HostileWorld()
        try world.exports.write("chat.json", Self.claudeWithNewBlocks)
        let path = world.exports.path + "/chat.json"
        #expect(ImportReaders.detect(path) == .claude)
        let report = try world.expectImported(ClaudeReader(), [path])
        #expect(report.roomsNew == 1 && report.messagesAdded == 2)
    }

    // MARK: Day One

    /// A photo that is there, one never synced (listed, no file), one only referred to.
    static let dayOneWithGaps = jsonText([
        "metadata": ["version": "1.0"],
        "entries": [
            [
                "uuid": "D1", "creationDate": "2024-07-01T01:00:00Z", "timeZone": "Asia/Seoul",
                "text": "# Trip\n\nTOK-D1 the beach ![](dayone-moment://P1) and the hill ![](dayone-moment://P2)",
                "photos": [
                    ["identifier": "P1", "md5": "aa11", "type": "jpeg"], ["identifier": "P2", "md5": "bb22", "type": "jpeg"],
                ],
            ],
            ["uuid": "D2", "creationDate": "2024-07-02T01:00:00Z", "text": "# Later\n\nTOK-D2 see ![](dayone-moment://P9)"],
            ["uuid": "D3", "creationDate": "2024-07-03T01:00:00Z", "text": "# Home\n\nTOK-D3 back"],
        ],
    ])

    @Test func dayOnePhotosNotInTheExportArePlaceholdersWhereTheyWere() throws {
        let world = try HostileWorld()
        try world.exports.write("Journal.json", Self.dayOneWithGaps)
        try world.exports.write("photos/aa11.jpeg", [0xFF, 0xD8, 0xFF, 0xD9])
        let paths = [world.exports.path]
        let report = try world.expectImported(DayOneReader(), paths)
        #expect(report.entriesNew == 3 && report.attachments == 1 && report.missingFiles == ["photo": 2])
        #expect(report.summary.contains("2 photos were not in the export (a placeholder kept)"), "\(report.summary)")
        let entries = report.paths.filter { $0.hasPrefix("diary/") }.map { try? world.dir.readText($0) }
        let trip = try #require(entries.compactMap { $0 }.first { $0.contains("TOK-D1") })
        #expect(trip.contains("the hill [photo bb22.jpeg is not in the export: dayone-moment://P2]"), "\(trip)")
        #expect(trip.contains("the beach ![](../../attachments/"), "\(trip)")
        let later = try #require(entries.compactMap { $0 }.first { $0.contains("TOK-D2") })
        #expect(later.contains("see [photo P9 is not in the export: dayone-moment://P9]"), "\(later)")
        try expectWhole(["TOK-D1", "TOK-D2", "TOK-D3"], world, DayOneReader(), paths, first: report)
    }
}
