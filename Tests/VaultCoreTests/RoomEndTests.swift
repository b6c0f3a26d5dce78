import Foundation
import Testing
import VaultTestSupport

@testable import VaultCore

/// Reading only the end of a long room (`RoomFile.readEnd`): the messages read are exactly the
/// last messages of the whole file, with the same bodies and line numbers, whatever the bodies
/// hold (lines that look like headers, code fences, CRLF), and an append written in place gives
/// the same file as an append to the whole room.
@Suite struct RoomEndTests {
    /// A room of `count` messages, about 600 bytes each, with tricky bodies.
    static func longRoom(count: Int, crlf: Bool = false, seed: UInt64 = 1) -> [UInt8] {
        var random = SeededRandom(seed: seed)
        let eol = crlf ? "\r\n" : "\n"
        var text =
            "---" + eol + "title: 긴 방" + eol + "created: 2026-01-01T09:00:00+09:00" + eol + "context_messages: 50" + eol
            + "---" + eol + eol
        text += "notes before the first message" + eol + eol
        let pieces = [
            "부산 2박 3일 일정을 짜 볼게요.", "```markdown", "## 🧑 user · fake <!-- 2026-11-21T09:31:07+09:00 m-FAKEFAKEFAKE -->",
            "```", "## user", "\\## not a header", "<!-- vault:prompt · a marker in a body -->", "- 해운대",
            "plain text line",
        ]
        for i in 0..<count {
            let role = i % 2 == 0 ? "user" : "assistant"
            let icon = role == "user" ? "🧑" : "🤖"
            let seconds = 1_800_000_000 + i * 60
            let stamp = Timestamp(
                date: Date(timeIntervalSince1970: Double(seconds)), timeZone: TimeZone(identifier: "Asia/Seoul")!)
            text += "## \(icon) \(role) · day \(i) <!-- \(stamp.text) m-\(String(format: "%012d", i)) -->" + eol + eol
            var body: [String] = []
            for _ in 0..<(8 + Int(random.next() % 12)) {
                body.append(pieces[Int(random.next() % UInt64(pieces.count))])
            }
            text +=
                BodyEscaping.escape(body.joined(separator: "\n")).replacingOccurrences(of: "\n", with: eol) + eol + eol
        }
        text += RoomFile.promptMarkerLine + eol
        return Array(text.utf8)
    }

    @Test(arguments: [false, true])
    func theEndOfALongRoomReadsAsTheWholeRoomDoes(crlf: Bool) throws {
        let dir = TemporaryDirectory("room-end")
        let bytes = RoomEndTests.longRoom(count: 3000, crlf: crlf)
        #expect(bytes.count > RoomFile.wholeReadLimit * 2, "the room must be long enough to be read in part")
        try dir.write("rooms/long.md", bytes)
        let whole = try RoomFile(parsing: bytes, path: "rooms/long.md")
        let (end, stamp) = try RoomFile.readEnd(dir.path + "/rooms/long.md", path: "rooms/long.md") { room in
            room.messages.count >= 50
        }
        #expect(stamp == FileIO.stamp(of: dir.path + "/rooms/long.md"))
        let elision = try #require(end.elision, "a long room is not read whole")
        #expect(end.messages.count >= 50 && end.messages.count < whole.messages.count)
        #expect(end.frontMatter?.string("title") == "긴 방")
        #expect(end.lineEnding == whole.lineEnding)
        let lastOfWhole = Array(whole.messages.suffix(end.messages.count))
        #expect(end.messages.map(\.id) == lastOfWhole.map(\.id))
        #expect(end.messages.map(\.body) == lastOfWhole.map(\.body))
        #expect(end.messages.map(\.line) == lastOfWhole.map(\.line), "line numbers must be those of the whole file")
        #expect(end.fileOffset(end.promptMarkerOffset!) == whole.promptMarkerOffset!)
        #expect(elision.count + end.bytes.count == bytes.count)

        // An append written in place gives the file an append to the whole room gives.
        let draft = MessageDraft(
            role: .user, body: "마지막 질문", timestamp: Timestamp(rfc3339: "2026-11-22T10:00:00+09:00")!)
        let change = end.appendingAtEnd([draft], display: { _ in "then" })
        var expected = Array(bytes[..<change.offset]) + change.bytes
        let full = whole.appending([draft], display: { _ in "then" })
        // Message ids are random: compare with the id the in-place append chose.
        let written = String(decoding: full.bytes, as: UTF8.self)
            .replacingOccurrences(of: full.messages[0].id, with: change.messages[0].id)
        #expect(String(decoding: expected, as: UTF8.self) == written)
        #expect(change.messages[0].line == full.messages[0].line)
        let stampNow = try #require(FileIO.stamp(of: dir.path + "/rooms/long.md"))
        _ = try TailWrite.replace(
            dir.path + "/rooms/long.md", relative: "rooms/long.md", from: change.offset, with: change.bytes,
            mark: change.mark,
            expecting: stampNow, journal: dir.path + "/.vault/journal")
        expected = Array(expected)
        #expect(try dir.read("rooms/long.md") == expected)
        let reread = try RoomFile(parsing: try dir.read("rooms/long.md"), path: "rooms/long.md")
        #expect(reread.messages.count == whole.messages.count + 1)
        #expect(reread.messages.last?.body == "마지막 질문")
        #expect(reread.messages.last?.line == change.messages[0].line)
    }

    /// `enough` is asked again with more of the file until it is satisfied.
    @Test func theWindowGrowsUntilEnoughIsRead() throws {
        let dir = TemporaryDirectory("room-end")
        let bytes = RoomEndTests.longRoom(count: 3000)
        try dir.write("rooms/long.md", bytes)
        let whole = try RoomFile(parsing: bytes, path: "rooms/long.md")
        let (end, _) = try RoomFile.readEnd(dir.path + "/rooms/long.md", path: "rooms/long.md") {
            $0.messages.count >= 2000
        }
        #expect(end.messages.count >= 2000)
        #expect(end.messages.map(\.line) == whole.messages.suffix(end.messages.count).map(\.line))
        // Never satisfied: the whole room.
        let (all, _) = try RoomFile.readEnd(dir.path + "/rooms/long.md", path: "rooms/long.md") { _ in false }
        #expect(all.elision == nil)
        #expect(all.messages.count == whole.messages.count)
        #expect(all.preamble == whole.preamble)
    }

    /// The number of lines kept from the last write (FileFacts) is used only for that version.
    @Test func knownLinesAreUsedOnlyForTheirVersion() throws {
        let dir = TemporaryDirectory("room-end")
        let path = dir.path + "/rooms/long.md"
        let bytes = RoomEndTests.longRoom(count: 3000)
        try dir.write("rooms/long.md", bytes)
        let whole = try RoomFile(parsing: bytes, path: "rooms/long.md")
        let stamp = try #require(FileIO.stamp(of: path))
        let right = FileFacts(stamp: stamp, lines: RoomFile.lineFeeds(in: bytes))
        let (a, _) = try RoomFile.readEnd(path, path: "rooms/long.md", facts: right) { $0.messages.count >= 10 }
        #expect(a.messages.last?.line == whole.messages.last?.line)
        // Facts about another version (wrong count, other stamp) are not used.
        var other = stamp
        other.size += 1
        let stale = FileFacts(stamp: other, lines: 5)
        let (b, _) = try RoomFile.readEnd(path, path: "rooms/long.md", facts: stale) { $0.messages.count >= 10 }
        #expect(b.messages.last?.line == whole.messages.last?.line)
    }

    /// A broken header near the end is reported with its real line number.
    @Test func aBrokenHeaderInTheEndIsReportedWithItsLine() throws {
        let dir = TemporaryDirectory("room-end")
        var text = String(decoding: RoomEndTests.longRoom(count: 3000), as: UTF8.self)
        let bad = "## 🧑 user · bad <!-- 2026-13-01T09:00:00+09:00 m-BADBADBADBAD -->"
        let marker = text.range(of: RoomFile.promptMarkerLine)!
        text.replaceSubrange(marker, with: bad + "\n\ntext\n\n" + RoomFile.promptMarkerLine)
        try dir.write("rooms/long.md", text)
        let expectedLine = text[..<text.range(of: bad)!.lowerBound].filter { $0 == "\n" }.count + 1
        do {
            _ = try RoomFile.readEnd(dir.path + "/rooms/long.md", path: "rooms/long.md") { _ in true }
            Issue.record("a broken header was read")
        } catch {
            #expect(error.description.contains("rooms/long.md:\(expectedLine):"), "\(error)")
        }
    }
}
