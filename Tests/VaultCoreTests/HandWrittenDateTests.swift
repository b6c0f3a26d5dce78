import Testing

@testable import VaultCore

/// Front-matter dates as people and other tools write them (Obsidian, Jekyll, Hugo, by hand):
/// read, never rejected, never rewritten; vault writes its own RFC 3339 form only in what it
/// writes (`updated`, new files).
@Suite struct HandWrittenDateTests {
    struct Form: Sendable, CustomStringConvertible {
        var text: String
        var day: LocalDate
        /// The instant (seconds since 1970) when the text gives an offset; nil for a floating time.
        var instant: Double?
        var description: String { text }
    }

    static let day = LocalDate(year: 2025, month: 8, day: 15)
    /// 2025-08-15T10:30:00Z in seconds.
    static let utc1030 = Double(LocalDate.daysSince1970(year: 2025, month: 8, day: 15)) * 86400 + 10.5 * 3600

    static let forms: [Form] = [
        // Obsidian's date and date-time properties, Hugo's and Jekyll's bare dates.
        Form(text: "2025-08-15", day: day, instant: nil),
        Form(text: "2025-08-15T10:30", day: day, instant: nil),
        Form(text: "2025-08-15T10:30:00", day: day, instant: nil),
        Form(text: "2025-08-15T10:30:00.250", day: day, instant: nil),
        Form(text: "2025-08-15 10:30", day: day, instant: nil),
        Form(text: "2025-08-15 10:30:00", day: day, instant: nil),
        // Jekyll's `YYYY-MM-DD HH:MM:SS +/-TTTT`.
        Form(text: "2025-08-15 10:30:00 +0900", day: day, instant: utc1030 - 9 * 3600),
        Form(text: "2025-08-15 10:30:00 -0500", day: day, instant: utc1030 + 5 * 3600),
        Form(text: "2025-08-15 10:30 +09:00", day: day, instant: utc1030 - 9 * 3600),
        // Go's time.String (Hugo templates), with the zone's abbreviation.
        Form(text: "2025-08-15 10:30:00 -0700 MST", day: day, instant: utc1030 + 7 * 3600),
        Form(text: "2025-08-15 10:30:00.123456789 +0000 UTC", day: day, instant: utc1030 + 0.123456789),
        // RFC 3339 and ISO 8601 spellings (Hugo's default).
        Form(text: "2025-08-15T10:30:00+09:00", day: day, instant: utc1030 - 9 * 3600),
        Form(text: "2025-08-15T10:30:00Z", day: day, instant: utc1030),
        Form(text: "2025-08-15t10:30:00z", day: day, instant: utc1030),
        Form(text: "2025-08-15T10:30:00+0900", day: day, instant: utc1030 - 9 * 3600),
        Form(text: "2025-08-15T10:30:00+09", day: day, instant: utc1030 - 9 * 3600),
        Form(text: "2025-08-15T10:30+09:00", day: day, instant: utc1030 - 9 * 3600),
        Form(text: "2025-08-15T23:30:00-07:00", day: day, instant: utc1030 + 20 * 3600),
        Form(text: "2025-08-15T10:30:00.5Z", day: day, instant: utc1030 + 0.5),
    ]

    @Test(arguments: forms)
    func eachFormIsReadAndKeptAsWritten(form: Form) throws {
        let t = try #require(Timestamp(frontMatter: form.text), "\(form.text) was not read")
        #expect(t.text == form.text, "not kept byte for byte")
        #expect(t.localDate == form.day)
        #expect(t.hasOffset == (form.instant != nil))
        if let instant = form.instant {
            #expect(abs(t.secondsSince1970 - instant) < 1e-6, "\(t.secondsSince1970) != \(instant)")
        }
    }

    @Test(arguments: [
        "yesterday", "2025-13-01", "2025-02-30", "2025-08-15T25:00", "2025/08/15", "15.08.2025", "2025-8-15",
        "2025-08-15T10:30:00+25:00", "2025-08-15T10", "2025-08-15 10:30:00 +09000", "2025-08-15T10:30:00 hello",
        "20250815", "2025-08-15T10:30:00.", "2025-08-15T10:61",
    ])
    func whatIsNoDateIsStillAProblem(text: String) {
        #expect(Timestamp(frontMatter: text) == nil, "\(text) was taken for a date")
    }

    /// Message headers stay strict (FORMAT.md: RFC 3339 with an offset).
    @Test func messageHeadersStayStrict() {
        #expect(Timestamp(rfc3339: "2025-08-15") == nil)
        #expect(Timestamp(rfc3339: "2025-08-15T10:30:00") == nil)
        #expect(Timestamp(rfc3339: "2025-08-15 10:30:00 +0900") == nil)
    }

    @Test(arguments: forms)
    func anEntryWithAHandWrittenDateHasNoProblemAndItsDay(form: Form) throws {
        let text = "---\ncreated: \(form.text)\nupdated: \(form.text)\ntags: [여행]\n---\n\n오늘은 바다.\n"
        let bytes = Array(text.utf8)
        #expect(DiaryFile.problems(in: bytes, path: "diary/x.md") == [])
        let entry = try DiaryFile(parsing: bytes, path: "diary/x.md")
        #expect(entry.day == form.day)
        #expect(entry.created?.text == form.text)
        #expect(entry.updated?.text == form.text)
        // Quoted as some tools write it: the same.
        let quoted = Array("---\ncreated: '\(form.text)'\n---\nx\n".utf8)
        #expect(try DiaryFile(parsing: quoted, path: "diary/y.md").day == form.day)
    }

    @Test(arguments: ["2025-08-15", "2025-08-15 10:30:00 +0900", "2025-08-15T10:30"])
    func aRoomWithAHandWrittenDateHasNoProblem(created: String) throws {
        let text = "---\ntitle: 여행\ncreated: \(created)\n---\n\n"
        #expect(RoomFile.problems(in: Array(text.utf8), path: "rooms/x.md") == [])
    }

    /// Obsidian writes a property with no value as an empty key: not a date, and not a problem.
    @Test func anEmptyDateIsNoDate() throws {
        let bytes = Array("---\ncreated:\nupdated: \n---\nx\n".utf8)
        #expect(DiaryFile.problems(in: bytes, path: "diary/2025/2025-08-15-x.md") == [])
        let entry = try DiaryFile(parsing: bytes, path: "diary/2025/2025-08-15-x.md")
        #expect(entry.created == nil)
        #expect(entry.day == LocalDate(year: 2025, month: 8, day: 15))
        #expect(RoomFile.problems(in: Array("---\ncreated:\n---\n".utf8), path: "rooms/x.md") == [])
    }

    @Test(arguments: ["yesterday", "2025-02-30", "[2025-08-15]"])
    func aDateThatIsNoneIsReportedWithItsLine(value: String) {
        let bytes = Array("---\ntitle: x\ncreated: \(value)\n---\nx\n".utf8)
        let problems = DiaryFile.problems(in: bytes, path: "diary/x.md")
        #expect(problems.count == 1)
        #expect(problems.first?.line == 3)
        #expect(problems.first?.message.contains("2026-11-21") == true, "\(problems)")
        #expect(RoomFile.problems(in: bytes, path: "rooms/x.md").first?.line == 3)
    }

    /// Setting `updated` (as `vault tag` and `vault edit` do) rewrites that key only; a hand-written
    /// `created` keeps its bytes.
    @Test(arguments: forms)
    func touchingUpdatedKeepsCreatedByteForByte(form: Form) throws {
        let text = "---\ncreated: \(form.text)\nupdated: \(form.text)\n---\n\n본문.\n"
        let now = try #require(Timestamp(rfc3339: "2026-01-02T03:04:05+09:00"))
        let entry = try DiaryFile(parsing: Array(text.utf8), path: "diary/x.md")
        let out = try FrontMatterEditor.setting(
            "updated", to: .string(now.text), in: entry.bytes, frontMatter: entry.frontMatter, path: "diary/x.md",
            lineEnding: entry.lineEnding)
        let expected = "---\ncreated: \(form.text)\nupdated: 2026-01-02T03:04:05+09:00\n---\n\n본문.\n"
        #expect(String(decoding: out, as: UTF8.self) == expected)
    }
}
