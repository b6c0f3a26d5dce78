import Foundation
import Testing
import VaultTestSupport

@testable import VaultCore

@Suite struct DiaryFileTests {
    @Test func readsAnEntry() throws {
        let text =
            "---\nid: d-01JPA3K8Z4QX\ntitle: 첫눈\ncreated: 2026-11-21T09:30:00+09:00\n"
                + "updated: 2026-11-21T10:02:41+09:00\ntags:\n  - 겨울\n  - 산책\n---\n\n"
                + "# 2026년 11월 21일 토요일\n\n아침에 첫눈이 왔다.\n"
        let e = try DiaryFile(parsing: Array(text.utf8), path: "diary/2026/2026-11-21-첫눈.md")
        #expect(e.id == "d-01JPA3K8Z4QX")
        #expect(e.title == "첫눈")
        #expect(e.tags == ["겨울", "산책"])
        #expect(e.heading == "2026년 11월 21일 토요일")
        #expect(e.body == "\n아침에 첫눈이 왔다.\n")
        #expect(e.day == LocalDate(year: 2026, month: 11, day: 21))
    }

    @Test func anEntryWrittenLateAbroadKeepsItsOwnDay() throws {
        let text = "---\ncreated: 2026-09-12T23:40:00-07:00\n---\n# Saturday, September 12, 2026\nLate in LA.\n"
        let e = try DiaryFile(parsing: Array(text.utf8), path: "diary/2026/2026-09-12-la.md")
        #expect(e.day == LocalDate(year: 2026, month: 9, day: 12))
    }

    @Test func handMadeEntryWithoutFrontMatterAndCRLF() throws {
        let text = "회고\r\n\r\n9월을 돌아보며.\r\n"
        let e = try DiaryFile(parsing: Array(text.utf8), path: "diary/2026/2026-09-30 회고.md")
        #expect(e.frontMatter == nil)
        #expect(e.heading == nil)
        #expect(e.title == "회고")
        #expect(e.day == LocalDate(year: 2026, month: 9, day: 30))
        #expect(e.lineEnding == .crlf)
        #expect(e.bytes == Array(text.utf8))
    }

    @Test func newEntryReadsBack() throws {
        let created = Timestamp(rfc3339: "2026-11-21T09:30:00+09:00")!
        let bytes = DiaryFile.newEntry(
            id: "d-01JPA3K8Z4QX", title: "첫눈: 아침", created: created, tags: ["겨울"],
            heading: DateText.heading(created.localDate, locale: "ko_KR"), body: "본문")
        let e = try DiaryFile(parsing: bytes, path: "diary/2026/x.md")
        #expect(e.title == "첫눈: 아침")
        #expect(e.heading == "2026년 11월 21일 토요일")
        #expect(e.body == "\n본문\n")
        #expect(e.tags == ["겨울"])
    }

    @Test func slugsAreTheSameForComposedAndDecomposedHangul() {
        let composed = "부산 여행!"
        let decomposed = composed.decomposedStringWithCanonicalMapping
        #expect(Array(composed.utf8) != Array(decomposed.utf8))
        #expect(VaultPath.slug(composed) == "부산-여행")
        #expect(VaultPath.slug(decomposed) == "부산-여행")
        #expect(Array(VaultPath.slug(decomposed).utf8) == Array("부산-여행".utf8))
        #expect(VaultPath.slug("Hello, World: Swift 6") == "hello-world-swift-6")
        #expect(VaultPath.slug("!!!") == "untitled")
    }

    /// The slug as it was made before it was made from scalars (issue #36), by characters: the
    /// reference every ordinary title's slug must still equal.
    static func characterSlug(_ title: String) -> String {
        var out = ""
        var pendingDash = false
        for ch in title.precomposedStringWithCanonicalMapping {
            if ch.isLetter || ch.isNumber {
                if pendingDash && !out.isEmpty { out.append("-") }
                pendingDash = false
                out += ch.isASCII ? ch.lowercased() : String(ch)
            } else {
                pendingDash = true
            }
            if out.count >= 60 { break }
        }
        return out.isEmpty ? "untitled" : out
    }

    @Test func ordinaryTitlesKeepTheSlugTheyHad() {
        let titles = [
            "부산 여행!", "Hello, World: Swift 6", "東京タワー 2024年", "Café crème", "cafe\u{301} au lait", "Q\u{301}uilt",
            "हिन्दी में लिखा", "العربية ١٢٣", "שָׁלוֹם עולם", "Ελληνικά", "Привет, мир!", "ශ්\u{200D}රී ලංකා", "می\u{200C}خواهم",
            "1\u{FE0F}\u{20E3} keycap", "emoji 🎉 party", "tab\tand\nnewline", String(repeating: "가나", count: 50),
            "a—b–c", "x² y³", "Ⅻ roman", "ﬁ ligature", "  leading and trailing  ", "..dots..", "नमस्ते दुनिया", "각",
        ]
        for title in titles {
            #expect(VaultPath.slug(title) == Self.characterSlug(title), "\(title.debugDescription)")
        }
    }

    @Test func noTitleGivesAFileNameThatIsNotAPlainName() {
        // U+0D4E is a "Prepend" letter: it and the `/` after it are one character, a letter.
        #expect(Self.characterSlug("\u{0D4E}/\u{0D4E}.").utf8.contains(UInt8(ascii: "/")), "the title of issue #36")
        #expect(VaultPath.slug("\u{0D4E}/\u{0D4E}.") == "\u{0D4E}-\u{0D4E}")
        #expect(VaultPath.slug("CON") == "con-1")
        #expect(VaultPath.slug("nul.") == "nul-1")
        #expect(VaultPath.slug("Com1") == "com1-1")
        #expect(VaultPath.slug("LPT²") == "lpt²-1")
        #expect(VaultPath.slug("console") == "console")
        let pieces = [
            "\u{0D4E}", "\u{110BD}", "\u{0600}", "/", "\\", ".", "..", ":", "*", "?", "\"", "<", "|", "\u{0}", "\u{1B}",
            "\u{7F}", "\u{85}", "\u{202E}", "\u{200E}", "\u{FEFF}", "\u{200D}", "\u{0301}", "\u{1F3FB}", "\u{E0041}",
            "\u{FF0F}", "\u{2215}", " ", "\t", "\n", "a", "Z", "9", "가", "\u{1100}", "\u{0915}\u{094D}", "CON", "nul", "Com1",
        ]
        var random = SeededRandom(seed: 36)
        for _ in 0..<3000 {
            let title = (0..<Int(random.next() % 12 + 1)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }
                .joined()
            let slug = VaultPath.slug(title)
            let bytes = Array(slug.utf8)
            let named = "\(title.debugDescription) → \(slug.debugDescription)"
            #expect(!bytes.contains { $0 < 0x20 || $0 == 0x7F || "/\\:*?\"<>|.".utf8.contains($0) }, "\(named)")
            #expect(slug.unicodeScalars.allSatisfy { $0 == "-" || VaultPath.isWordScalar($0) }, "\(named)")
            #expect(slug.first != "-" && slug.last != "-" && !slug.isEmpty, "\(named)")
            #expect(!VaultPath.reservedNames.contains(slug), "\(named)")
        }
    }
}
