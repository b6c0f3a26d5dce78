import Testing
import VaultTestSupport

@testable import VaultCore

/// Random message bodies survive write → read exactly, in LF and CRLF files, and an
/// append never changes a byte before the prompt marker.
@Suite struct RoundTripPropertyTests {
    static let pieces: [String] = [
        "안녕하세요", "부산 여행", "한글 문장입니다.", "🤖", "👩‍💻", "🇰🇷", "é", "e\u{301}", "漢字", "かな", "hello", " ", "  ",
        "\t", "\n", "\r\n", "\r", "\n\n", "```", "```swift\nlet x = 1\n```", "## user", "## 🤖 assistant",
        "## 🧑 user · 2026년 11월 21일 토요일 오전 9:31 <!-- 2026-11-21T09:31:07+09:00 m-01JPA3K8Z4QX -->",
        "\\## 🧑 user · x <!-- 2026-11-21T09:31:07+09:00 m-01JPA3K8Z4QX -->",
        "\\\\## 🤖 assistant · y <!-- 2026-13-01T09:31:07+09:00 m-01 -->",
        "## user · bad <!-- 2026-13-01T00:00:00Z m-BAD1 -->",
        "<!-- vault:prompt · write below -->", "\\<!-- vault:prompt -->", "<!-- comment -->", "---", "...",
        "# Heading", "> quote", "- item", "\\", "\\\\", "-->", "<!--", "·", "m-01JPA3K8Z4QX", "\u{FEFF}",
        // git's conflict markers, alone and as whole blocks, escaped by hand, and near misses.
        "<<<<<<< HEAD", "=======", ">>>>>>> main", "||||||| base", "<<<<<<<", ">>>>>>>", "======= \t",
        "<<<<<<< HEAD\nmine\n=======\ntheirs\n>>>>>>> main", "<<<<<<< a\n||||||| b\n=======\n>>>>>>> c",
        "\\<<<<<<< HEAD", "\\\\=======", "\\>>>>>>>", "<<<<<<<<", "========", "<<<<<<<x", "\r\n=======\r\n",
    ]

    static func randomBody(_ rng: inout SeededRandom) -> String {
        let count = Int.random(in: 0...12, using: &rng)
        var s = ""
        for _ in 0..<count {
            s += pieces.randomElement(using: &rng)!
            if Bool.random(using: &rng) { s += "\n" }
        }
        return s
    }

    static func emptyRoom(_ eol: String) -> [UInt8] {
        Array(
            "---\(eol)title: 방\(eol)created: 2026-11-21T09:00:00+09:00\(eol)---\(eol)\(eol)<!-- vault:prompt -->\(eol)"
                .utf8)
    }

    @Test(arguments: ["\n", "\r\n"])
    func randomBodiesSurviveWriteAndRead(eol: String) throws {
        var rng = SeededRandom(seed: eol == "\n" ? 1 : 2)
        let start = Timestamp(rfc3339: "2026-11-21T09:31:07+09:00")!
        for round in 0..<300 {
            var bytes = Self.emptyRoom(eol)
            var expected: [String] = []
            for k in 0..<Int.random(in: 1...4, using: &rng) {
                let room = try RoomFile(parsing: bytes, path: "rooms/r.md")
                let body = Self.randomBody(&rng)
                let role: Role = k % 2 == 0 ? .user : .assistant
                let before = bytes
                let result = room.appending([MessageDraft(role: role, body: body, timestamp: start)]) { _ in "날짜" }
                bytes = result.bytes
                expected.append(body)
                // Nothing before the old marker changes.
                let cut = room.promptMarkerOffset!
                #expect(
                    Array(bytes[..<cut]) == Array(before[..<cut]), "round \(round): bytes before the marker changed")
            }
            let parsed = try RoomFile(parsing: bytes, path: "rooms/r.md")
            #expect(parsed.messages.map(\.body) == expected, "round \(round)")
            #expect(parsed.pendingPrompt == nil)
            #expect(parsed.warnings.isEmpty)
            // An untouched file serializes back byte-identical.
            #expect(parsed.bytes == bytes)
        }
    }

    /// Bodies holding git's conflict markers (a pasted conflict, a reply quoting one) are framed:
    /// the room has no conflict block for `check`, `show`, `chat` or `resolve` to find, reads
    /// back exactly, and a merge of it with itself changes nothing.
    @Test func bodiesWithConflictMarkersLeaveTheRoomWhole() throws {
        var rng = SeededRandom(seed: 22)
        let t = Timestamp(rfc3339: "2026-11-21T09:31:07+09:00")!
        let markers = Self.pieces.filter { $0.contains("<<<<<<<") || $0.contains("=======") || $0.contains(">>>>>>>") }
        for round in 0..<300 {
            var bytes = Self.emptyRoom(round % 2 == 0 ? "\n" : "\r\n")
            var expected: [String] = []
            for k in 0..<3 {
                var body = Self.randomBody(&rng)
                body += (body.isEmpty || body.hasSuffix("\n") ? "" : "\n") + markers.randomElement(using: &rng)!
                let room = try RoomFile(parsing: bytes, path: "rooms/r.md")
                bytes = room.appending([MessageDraft(role: k % 2 == 0 ? .user : .assistant, body: body, timestamp: t)]) {
                    _ in "d"
                }.bytes
                expected.append(body)
            }
            #expect(ConflictMarkers.lines(in: bytes).isEmpty, "round \(round): a conflict block in the file")
            #expect(RoomFile.problems(in: bytes, path: "rooms/r.md").isEmpty, "round \(round)")
            let parsed = try RoomFile(parsing: bytes, path: "rooms/r.md")
            #expect(parsed.messages.map(\.body) == expected, "round \(round)")
            let merged = try Merge.room(base: bytes, ours: bytes, theirs: bytes, path: "rooms/r.md", newer: .theirs)
            #expect(merged.bytes == bytes)
        }
    }

    /// A diary entry's body keeps any text, conflict markers included, and the entry never
    /// reads as a file git left markers in.
    @Test func diaryBodiesSurviveWriteAndRead() throws {
        var rng = SeededRandom(seed: 23)
        let t = Timestamp(rfc3339: "2026-11-21T09:31:07+09:00")!
        for round in 0..<500 {
            let body = Self.randomBody(&rng)
            let bytes = DiaryFile.newEntry(id: "d-01JPA3K8Z4QX", title: "t", created: t, tags: [], heading: "2026년 11월 21일 토요일", body: body)
            #expect(DiaryFile.problems(in: bytes, path: "diary/2026/x.md").isEmpty, "round \(round)")
            let entry = try DiaryFile(parsing: bytes, path: "diary/2026/x.md")
            // The writer ends the file with a line feed.
            #expect(entry.body == "\n" + body + (body.isEmpty || body.hasSuffix("\n") ? "" : "\n"), "round \(round)")
        }
    }

    @Test func pendingTextIsKeptWhenAnotherMessageIsSent() throws {
        let bytes = Self.emptyRoom("\n") + Array("다음에 물어볼 것\n".utf8)
        let room = try RoomFile(parsing: bytes, path: "rooms/r.md")
        #expect(room.pendingPrompt == "다음에 물어볼 것")
        let t = Timestamp(rfc3339: "2026-11-21T09:31:07+09:00")!
        let kept = room.appending([MessageDraft(role: .user, body: "other", timestamp: t)]) { _ in "d" }
        #expect(try RoomFile(parsing: kept.bytes, path: "r").pendingPrompt == "다음에 물어볼 것")
        let consumed = room.appending(
            [MessageDraft(role: .user, body: "다음에 물어볼 것", timestamp: t)], consumingPendingPrompt: true
        ) { _ in "d" }
        let after = try RoomFile(parsing: consumed.bytes, path: "r")
        #expect(after.pendingPrompt == nil)
        #expect(after.messages.map(\.body) == ["다음에 물어볼 것"])
    }

    /// The room `appendingRoom` builds (so a chat turn need not parse a long room twice) is
    /// the room parsing its bytes gives: same bytes, marker, pending text, messages and lines.
    @Test(arguments: ["\n", "\r\n"])
    func theAppendedRoomIsWhatParsingItsBytesGives(eol: String) throws {
        var rng = SeededRandom(seed: eol == "\n" ? 5 : 6)
        let start = Timestamp(rfc3339: "2026-11-21T09:31:07+09:00")!
        let openings: [String] = [
            "", "\u{FEFF}", "preamble text\(eol)\(eol)", "\u{FEFF}앞글\(eol)",
        ]
        for round in 0..<300 {
            let opening = openings.randomElement(using: &rng)!
            var text = "---\(eol)title: 방 \(round)\(eol)---\(eol)"
            if opening.hasPrefix("\u{FEFF}") { text = "\u{FEFF}" + text + opening.dropFirst() } else { text += opening }
            // Sometimes no marker yet (a room written by hand), sometimes pending text below it.
            switch Int.random(in: 0...2, using: &rng) {
            case 0: break
            case 1: text += "<!-- vault:prompt -->\(eol)"
            default:
                // Text typed below the marker (ordinary text: a header line there is a format error).
                let typed = ["다음 질문", "  ", "line one\(eol)line two", "```\(eol)code\(eol)```", "\(eol)\(eol)끝"]
                text +=
                    "<!-- vault:prompt -->\(eol)" + typed.randomElement(using: &rng)!
                    + (Bool.random(using: &rng) ? eol : "")
            }
            var room = try RoomFile(parsing: Array(text.utf8), path: "rooms/r.md")
            for k in 0..<Int.random(in: 1...3, using: &rng) {
                let drafts = (0..<Int.random(in: 1...2, using: &rng)).map { i in
                    MessageDraft(
                        role: (k + i) % 2 == 0 ? .user : .assistant, body: Self.randomBody(&rng), timestamp: start)
                }
                let consuming = room.pendingPrompt != nil && Bool.random(using: &rng)
                let built = room.appendingRoom(drafts, consumingPendingPrompt: consuming) { _ in "날짜" }.room
                let parsed = try RoomFile(parsing: built.bytes, path: "rooms/r.md")
                #expect(built.bytes == parsed.bytes)
                #expect(
                    built.hasByteOrderMark == parsed.hasByteOrderMark && built.lineEnding == parsed.lineEnding,
                    "round \(round)")
                #expect(built.promptMarkerOffset == parsed.promptMarkerOffset, "round \(round)")
                #expect(built.pendingText == parsed.pendingText, "round \(round)")
                #expect(built.title == parsed.title)
                #expect(built.preamble == parsed.preamble, "round \(round)")
                #expect(built.messages.map(\.body) == parsed.messages.map(\.body), "round \(round)")
                #expect(built.messages.map(\.id) == parsed.messages.map(\.id), "round \(round)")
                #expect(built.messages.map(\.line) == parsed.messages.map(\.line), "round \(round)")
                #expect(built.messages.map(\.role) == parsed.messages.map(\.role))
                #expect(built.warnings.count == parsed.warnings.count, "round \(round)")
                room = built
            }
        }
    }

    @Test func lineFeedsAreCountedExactly() {
        var rng = SeededRandom(seed: 9)
        for _ in 0..<2000 {
            let bytes = (0..<Int.random(in: 0...70, using: &rng)).map { _ in
                [10, 13, 0x0A ^ 0x80, 0x8A, 0, 255, 65].randomElement(using: &rng)! as UInt8
            }
            #expect(RoomFile.lineFeeds(in: bytes) == bytes.filter { $0 == 10 }.count, "\(bytes)")
        }
    }
}
