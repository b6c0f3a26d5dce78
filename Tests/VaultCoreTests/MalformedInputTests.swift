import Testing
import VaultTestSupport

@testable import VaultCore

/// A hand-edited file that is malformed gets an error naming file, line and what is wrong.
@Suite struct MalformedInputTests {
    func problems(_ text: String, diary: Bool = false) -> [FormatProblem] {
        let bytes = Array(text.utf8)
        return diary
            ? DiaryFile.problems(in: bytes, path: "diary/x.md") : RoomFile.problems(in: bytes, path: "rooms/x.md")
    }

    @Test func brokenYAML() {
        let p = problems("---\ntitle: ok\nmodel: [unclosed\n---\n")
        #expect(p.count == 1)
        #expect(p.first?.path == "rooms/x.md")
        #expect(p.first?.description.hasPrefix("rooms/x.md:") == true)
        #expect(p.first?.message.contains("not valid YAML") == true)
        // The error is reported inside the front-matter, not on line 1.
        #expect((p.first?.line ?? 0) >= 3)
    }

    /// A billion-laughs front-matter: nine levels of nine aliases each (9⁹ values from a few
    /// hundred bytes). It is refused at the alias that passes the limit, with its line, before
    /// anything expands it.
    static func aliasBomb(levels: Int = 9) -> String {
        var lines = [
            "---", "title: bomb", "a: &a [" + Array(repeating: "\"lol\"", count: 9).joined(separator: ",") + "]",
        ]
        let names = Array("abcdefghijklmnopqrstuvwxyz").map(String.init)
        for level in 1..<levels {
            let aliases = Array(repeating: "*" + names[level - 1], count: 9).joined(separator: ",")
            lines.append("\(names[level]): &\(names[level]) [\(aliases)]")
        }
        return lines.joined(separator: "\n") + "\n---\n\nhello\n"
    }

    @Test func anAliasBombIsRefusedWithItsLine() {
        let bomb = MalformedInputTests.aliasBomb()
        #expect(bomb.utf8.count < 500)
        for diary in [false, true] {
            let p = problems(bomb, diary: diary)
            #expect(p.count == 1, "\(p)")
            // Level b expands 90 values, c 819, d 7,380: the limit of 1,000 is passed on line 6 (d).
            #expect(p.first?.line == 6, "\(p)")
            #expect(p.first?.message.contains("alias") == true, "\(p)")
            #expect(p.first?.message.contains("1000") == true || p.first?.message.contains("1,000") == true, "\(p)")
        }
        // vault.yml is read by the same reader.
        #expect(throws: VaultError.self) {
            try VaultConfig(parsing: Array(bomb.split(separator: "---")[0].utf8))
        }
    }

    /// Aliases that repeat a few values are ordinary YAML and still read.
    @Test func aFewAliasesAreRead() throws {
        let text = "---\ntitle: t\nbase: &b [x, y]\ncopy: *b\nmore: [*b, *b]\n---\n"
        let room = try RoomFile(parsing: Array(text.utf8), path: "rooms/x.md")
        #expect(room.frontMatter?.strings("copy") == ["x", "y"])
    }

    @Test func unclosedFrontMatter() {
        let p = problems("---\ntitle: 부산\n\n## 🧑 user · a <!-- 2026-11-21T09:31:07+09:00 m-AAAA1111 -->\n")
        #expect(p.map(\.line) == [1])
        #expect(p.first?.kind == .unclosedFrontMatter)
        #expect(p.first?.message.contains("never closed") == true)
    }

    @Test func frontMatterThatIsNotAMapping() {
        #expect(problems("---\n- a\n- b\n---\n").first?.kind == .frontMatterNotMapping)
    }

    @Test func invalidUTF8NamesTheLine() {
        var bytes = Array("---\ntitle: a\n---\n\nline five\n".utf8)
        bytes += [0xED, 0xA0, 0x80]  // an encoded surrogate: not UTF-8
        bytes += Array(" bad\n".utf8)
        let p = RoomFile.problems(in: bytes, path: "rooms/x.md")
        #expect(p.map(\.line) == [6])
        #expect(p.first?.kind == .invalidUTF8)
        #expect(p.first?.message.contains("UTF-8") == true)
        #expect(throws: VaultError.self) { try RoomFile(parsing: bytes, path: "rooms/x.md") }
    }

    @Test func headerWithBadTimestamp() {
        let text = "---\ntitle: a\n---\n\n## 🧑 user · x <!-- 2026-13-01T09:31:07+09:00 m-01JPA3K8Z4QX -->\n\nhi\n"
        let p = problems(text)
        #expect(p.map(\.line) == [5])
        #expect(
            p.first?.description
                == "rooms/x.md:5: the message header has an invalid timestamp \"2026-13-01T09:31:07+09:00\" "
                + "(write RFC 3339 with an offset, like 2026-11-21T09:31:07+09:00)"
        )
    }

    @Test(arguments: [
        ("## 🧑 user · x <!-- 2026-11-21T09:31:07 m-01JPA3K8Z4QX -->", "timestamp"),  // no offset
        ("## 🧑 user · x <!-- 2026-02-30T09:31:07+09:00 m-01JPA3K8Z4QX -->", "timestamp"),
        ("## 🧑 user · x <!-- 2026-11-21T24:00:00+09:00 m-01JPA3K8Z4QX -->", "timestamp"),
        ("## 🧑 tool · x <!-- 2026-11-21T09:31:07+09:00 m-01JPA3K8Z4QX -->", "role"),
        ("## 🧑 user · x <!-- 2026-11-21T09:31:07+09:00 m-! -->", "id"),
        ("## 🧑 user · x <!-- 2026-11-21T09:31:07+09:00 m-01JPA3K8Z4QX junk -->", "attribute"),
    ])
    func invalidHeaderParts(line: String, what: String) {
        let p = problems("intro\n" + line + "\nbody\n")
        #expect(p.count == 1)
        #expect(p.first?.line == 2)
        #expect(p.first?.message.contains(what) == true, "\(p)")
    }

    @Test func duplicateKeys() {
        let p = problems("---\ntitle: a\nmodel: x\ntitle: b\n---\n")
        #expect(p.map(\.line) == [4])
        #expect(p.first?.kind == .duplicateKey("title", firstLine: 2))
    }

    @Test func allProblemsOfAFileAreReported() {
        let text = """
            ## 🧑 user · x <!-- 2026-13-01T09:31:07+09:00 m-01JPA3K8Z4QX -->
            a
            ## 🧑 user · x <!-- 2026-11-21T09:31:07+09:00 m-0 -->
            b
            """
        #expect(problems(text).map(\.line) == [1, 3])
    }

    /// Any hand-written date form is read (HandWrittenDateTests); what is no date at all is a problem.
    @Test func diaryDatesMustBeDates() {
        let p = problems("---\ncreated: 21 Nov 2026 09:30\n---\n\n# x\n", diary: true)
        #expect(p.map(\.line) == [2])
        #expect(p.first?.message.contains("must be a date or a time") == true)
    }

    @Test func ordinaryMarkdownIsNeverAHeader() throws {
        let text = """
            ## user
            ## 🤖 assistant
            ## 🧑 user · 2026년 11월 21일
            ## Title · with dot <!-- comment -->
            ## Heading <!-- 2026-11-21T09:31:07+09:00 m-01JPA3K8Z4QX -->
            ```
            ## 🧑 User · x <!-- 2026-11-21T09:31:07+09:00 m-01JPA3K8Z4QX -->
            ```
            <!-- vault:promptish
            """
        let r = try RoomFile(parsing: Array(text.utf8), path: "rooms/x.md")
        #expect(r.messages.isEmpty)
        #expect(r.preamble == text)
    }
}

/// The eight-bytes-at-a-time UTF-8 check agrees with the standard library on every input.
@Suite struct UTF8CheckTests {
    @Test func agreesWithTheStandardLibrary() {
        var rng = SeededRandom(seed: 3)
        // Bytes near every boundary of the UTF-8 table, plus valid text in several scripts.
        let interesting: [UInt8] = [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0,
                                    0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF]
        let valid = Array("가힣하 é ·漢字🤖🧑 \u{10FFFF}\u{FFFF}\u{D7FF}\u{E000}\u{800}\u{7FF}\u{80}".utf8)
        var disagreements = 0
        var invalidSeen = 0
        for _ in 0..<50_000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int.random(in: 0...40, using: &rng) {
                switch Int.random(in: 0..<4, using: &rng) {
                case 0: bytes.append(interesting.randomElement(using: &rng)!)
                case 1: bytes.append(UInt8.random(in: 0...255, using: &rng))
                default:
                    let start = Int.random(in: 0..<valid.count, using: &rng)
                    bytes += valid[start..<min(valid.count, start + Int.random(in: 1...8, using: &rng))]
                }
            }
            let expected = String(validating: bytes, as: UTF8.self) != nil
            let got = bytes.withUnsafeBufferPointer { UTF8Check.isValid($0) }
            let located = bytes.withUnsafeBufferPointer { UTF8Check.firstInvalidByte($0) }
            if got != expected || (located == nil) != expected { disagreements += 1 }
            if !expected { invalidSeen += 1 }
            if let at = located {
                // The reported byte starts the first bad sequence: everything before it is valid.
                if String(validating: bytes[..<at], as: UTF8.self) == nil { disagreements += 1 }
            }
        }
        #expect(disagreements == 0)
        #expect(invalidSeen > 10_000)
    }
}
