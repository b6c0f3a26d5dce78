import Testing

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
}
