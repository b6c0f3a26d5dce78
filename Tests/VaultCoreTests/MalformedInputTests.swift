import Testing
import VaultTestSupport

@testable import VaultCore

/// A hand-edited file that is malformed gets an error naming file, line and what is wrong.
@Suite struct MalformedInputTests {
    func problems(_ text: String, diary: Bool = false) -> [FormatProblem] {
        let bytes = Array(text.utf8)
        return diary ? DiaryFile.problems(in: bytes, path: "diary/x.md") : RoomFile.problems(in: bytes, path: "rooms/x.md")
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
        #expect(p.first?.description == "rooms/x.md:5: the message header has an invalid timestamp \"2026-13-01T09:31:07+09:00\" (write RFC 3339 with an offset, like 2026-11-21T09:31:07+09:00)")
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

    @Test func diaryDatesMustBeRFC3339WithOffset() {
        let p = problems("---\ncreated: 2026-11-21 09:30\n---\n\n# x\n", diary: true)
        #expect(p.map(\.line) == [2])
        #expect(p.first?.message.contains("RFC 3339") == true)
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
