import Foundation
import Testing

@testable import VaultCore

/// What `vault show`, `vault rooms` and `vault diary calendar` show: day dividers, relative
/// times, the diary's month grid, and display widths. How the commands print them:
/// `VaultCLITests/TerminalViewTests`.
@Suite struct TerminalViewsTests {
    let seoul = TimeZone(identifier: "Asia/Seoul")!
    let berlin = TimeZone(identifier: "Europe/Berlin")!

    func messages(_ stamps: [String], status: [Int: String] = [:]) throws -> [Message] {
        var text = "---\ntitle: t\n---\n\n"
        for (i, stamp) in stamps.enumerated() {
            let role = i % 2 == 0 ? "🧑 user" : "🤖 assistant"
            let extra = status[i].map { " " + $0 } ?? ""
            text += "## \(role) · x <!-- \(stamp) m-\(String(format: "%012d", i))\(extra) -->\n\nmessage \(i)\n\n"
        }
        return try RoomFile(parsing: Array(text.utf8), path: "rooms/t.md").messages
    }

    func shape(_ t: RoomTranscript) -> [String] {
        t.items.map { item in
            switch item {
            case .day(_, let text): return "-- " + text
            case .message(let m): return ([m.message.id] + m.facts).joined(separator: " · ")
            }
        }
    }

    // MARK: Day dividers

    @Test func aDividerOpensEachDayInTheZoneTheRoomIsReadIn() throws {
        let m = try messages(["2026-11-22T23:30:00+09:00", "2026-11-23T00:10:00+09:00", "2026-11-23T15:00:00+09:00"])
        #expect(
            shape(RoomTranscript(m, locale: "ko_KR", timeZone: seoul)) == [
                "-- 2026년 11월 22일 일요일", "m-000000000000 · 오후 11:30",
                "-- 2026년 11월 23일 월요일", "m-000000000001 · 오전 12:10", "m-000000000002 · 오후 3:00",
            ])
        // In Berlin (UTC+1) the first two were written on the 22nd's afternoon, the third on the 23rd.
        #expect(
            shape(RoomTranscript(m, locale: "de_DE", timeZone: berlin)) == [
                "-- Sonntag, 22. November 2026", "m-000000000000 · 15:30", "m-000000000001 · 16:10",
                "-- Montag, 23. November 2026", "m-000000000002 · 07:00",
            ])
    }

    @Test func messagesOnOneDayShareOneDividerWhateverOffsetTheyWereWrittenWith() throws {
        // The same evening in Seoul, the second written on a machine set to UTC.
        let m = try messages(["2026-11-23T20:00:00+09:00", "2026-11-23T12:30:00Z"])
        let items = RoomTranscript(m, locale: "en_US", timeZone: seoul).items
        #expect(items.filter { if case .day = $0 { true } else { false } }.count == 1)
        // ICU puts a narrow no-break space before PM.
        #expect(shape(RoomTranscript(m, locale: "en_US", timeZone: seoul)).last == "m-000000000001 · 9:30\u{202F}PM")
    }

    @Test func anInterruptedReplyIsMarkedAndATruncatedOneToo() throws {
        let m = try messages(
            ["2026-11-23T20:00:00+09:00", "2026-11-23T20:00:05+09:00", "2026-11-23T20:01:00+09:00",
             "2026-11-23T20:01:05+09:00"],
            status: [1: "model=gpt-4o status=interrupted", 3: "model=gpt-4o truncated=length"])
        let lines = shape(RoomTranscript(m, locale: "en_US", timeZone: seoul))
        #expect(lines[2] == "m-000000000001 · 8:00\u{202F}PM · gpt-4o · ⚠️ interrupted: incomplete reply")
        #expect(lines[4] == "m-000000000003 · 8:01\u{202F}PM · gpt-4o · ⚠️ cut off by the server (length)")
        #expect(RoomTranscript.Completion(m[0]) == .complete)
    }

    /// Whether a reply was interrupted is read from its machine part (`status=interrupted`), never
    /// from the word its display part shows: the English one of older files and every language's
    /// read alike, and a word with no status is only text. The note is in the locale read in.
    @Test func aReplyIsInterruptedByItsStatusWhateverWordItsHeaderShows() throws {
        var text = "---\ntitle: t\n---\n\n"
        let displays = ["x · gpt-4o · interrupted", "x · gpt-4o · 중단됨", "x · gpt-4o · 中断", "x · gpt-4o · abgebrochen",
                        "x · gpt-4o · interrompu", "x · gpt-4o · interrumpido", "x · gpt-4o"]
        for (i, display) in displays.enumerated() {
            text += "## 🤖 assistant · \(display) <!-- 2026-11-23T20:00:0\(i)+09:00 m-\(String(format: "%012d", i)) model=gpt-4o status=interrupted -->\n\nm\n\n"
        }
        text += "## 🤖 assistant · x · interrupted <!-- 2026-11-23T20:00:09+09:00 m-000000000009 model=gpt-4o -->\n\nm\n"
        let m = try RoomFile(parsing: Array(text.utf8), path: "rooms/t.md").messages
        #expect(m.dropLast().allSatisfy { RoomTranscript.Completion($0) == .interrupted })
        #expect(RoomTranscript.Completion(m.last!) == .complete)
        let korean = shape(RoomTranscript(m, locale: "ko_KR", timeZone: seoul))
        #expect(korean[1] == "m-000000000000 · 오후 8:00 · gpt-4o · ⚠️ 중단됨: 완성되지 않은 답변", "\(korean)")
        #expect(korean.last == "m-000000000009 · 오후 8:00 · gpt-4o")
    }

    // MARK: Listing columns

    @Test func theDateColumnIsTheLocalesWidestDate() {
        // `2024년 12월 28일`, `September 28, 2024`: the longest day of the longest month.
        #expect(ListingLayout.diaryDateWidth(locale: "ko_KR") == 16)
        #expect(ListingLayout.diaryDateWidth(locale: "en_US") == 18)
        #expect(ListingLayout.roomDateWidth(locale: "ko_KR", timeZone: seoul) == 16)
        #expect(ListingLayout.roomDateWidth(locale: "en_US", timeZone: seoul) == 18)
    }

    @Test func theTitleTakesTheWidthThereIs() {
        let narrow = ListingLayout(columns: 60, fixed: 7, date: 16)
        #expect((narrow.title, narrow.rest) == (20, 17))
        let wide = ListingLayout(columns: 160, fixed: 7, date: 16)
        #expect((wide.title, wide.rest) == (54, 83))
        // Too narrow for a preview: the title takes the rest.
        let tiny = ListingLayout(columns: 50, fixed: 7, date: 16)
        #expect((tiny.title, tiny.rest) == (27, 0))
        #expect(ListingLayout(columns: nil, fixed: 7, date: 16).rest == nil)
    }

    @Test func aBranchKeepsItsTailWhenItsTitleIsCut() {
        let title = "주말마다 가고 싶은 제주도 오름 · branch 2"
        #expect(ListingLayout.fit(title, 20, keepingTail: true) == "주말마다… · branch 2")
        #expect(ListingLayout.fit(title, 20) == "주말마다 가고 싶은 …")
        #expect(ListingLayout.fit("짧은 방", 10, keepingTail: true) == "짧은 방   ")
    }

    @Test func tagsAreWholeOrLeftOut() {
        let preview = "오늘은 친구들과 함께 바닷가를 따라 걸었다"
        #expect(ListingLayout.previewAndTags(preview, tags: ["friends", "여행"], 30) == "오늘은 친구들…  #friends #여행")
        #expect(ListingLayout.previewAndTags(preview, tags: ["friends", "여행"], 12) == "  #friends …")
        #expect(ListingLayout.previewAndTags("", tags: ["friends"], 20) == "  #friends")
        #expect(ListingLayout.previewAndTags(preview, tags: [], nil) == preview)
        #expect(ListingLayout.previewAndTags("p", tags: ["a", "b"], nil) == "p  #a #b")
    }

    // MARK: Relative times

    let now = Timestamp(rfc3339: "2026-11-25T15:00:00+09:00")!.date

    func ago(_ seconds: Double, _ locale: String) -> String {
        RelativeTime.string(for: now.addingTimeInterval(-seconds), now: now, locale: locale, timeZone: seoul)
    }

    @Test func relativeTimesInKoreanAndEnglish() {
        #expect(ago(3 * 60 + 20, "ko_KR") == "3분 전")
        #expect(ago(3 * 60 + 20, "en_US") == "3 minutes ago")
        #expect(ago(2 * 3600 + 5, "ko_KR") == "2시간 전")
        #expect(ago(2 * 3600 + 5, "en_US") == "2 hours ago")
        // 20:00 yesterday: a calendar day back, not "19 hours ago".
        #expect(ago(19 * 3600, "ko_KR") == "어제")
        #expect(ago(19 * 3600, "en_US") == "yesterday")
        #expect(ago(3 * 86400, "ko_KR") == "3일 전")
        #expect(ago(3 * 86400, "en_US") == "3 days ago")
        // A week or more: the date.
        #expect(ago(10 * 86400, "ko_KR") == "11월 15일")
        #expect(ago(10 * 86400, "en_US") == "Nov 15")
        #expect(ago(400 * 86400, "en_US") == "October 21, 2025")
    }

    @Test func daysAreCalendarDaysInTheZone() {
        let justAfterMidnight = Timestamp(rfc3339: "2026-11-25T00:10:00+09:00")!.date
        let before = Timestamp(rfc3339: "2026-11-24T23:50:00+09:00")!.date
        #expect(RelativeTime.span(of: before, now: justAfterMidnight, timeZone: seoul) == .minutes(20))
        let lastEvening = Timestamp(rfc3339: "2026-11-24T22:00:00+09:00")!.date
        #expect(RelativeTime.span(of: lastEvening, now: justAfterMidnight, timeZone: seoul) == .yesterday)
        #expect(RelativeTime.span(of: lastEvening, now: now, timeZone: seoul) == .yesterday)
        // 07:30 in Seoul is 23:30 the evening before in Berlin.
        let morning = Timestamp(rfc3339: "2026-11-25T07:30:00+09:00")!.date
        #expect(RelativeTime.span(of: morning, now: now, timeZone: seoul) == .hours(7))
        #expect(RelativeTime.span(of: morning, now: now, timeZone: berlin) == .yesterday)
        #expect(RelativeTime.span(of: now.addingTimeInterval(30), now: now, timeZone: seoul) == .now)
        #expect(RelativeTime.span(of: now.addingTimeInterval(3600), now: now, timeZone: seoul) == .date)
    }

    // MARK: The diary's calendar

    let today = LocalDate(year: 2026, month: 11, day: 25)

    func entries(_ days: [Int: Int]) -> [LocalDate: Int] {
        Dictionary(uniqueKeysWithValues: days.map { (LocalDate(year: 2026, month: 11, day: $0.key), $0.value) })
    }

    @Test func aKoreanMonthStartsOnSunday() {
        let c = DiaryCalendar(
            month: .init(year: 2026, month: 11), entryDays: entries([2: 1, 3: 2, 23: 1, 24: 1]), today: today,
            locale: "ko_KR")
        #expect(
            c.lines().joined(separator: "\n") == """
                        2026년 11월
                 일  월  화  수  목  금  토
                  1   2•  3•  4   5   6   7
                  8   9  10  11  12  13  14
                 15  16  17  18  19  20  21
                 22  23• 24•[25] 26  27  28
                 29  30
                """)
        #expect(c.entryCount == 5 && c.daysWithEntries == 4 && c.streak == 2)
        #expect(c.summary == "일기 5편, 4일 · 연속 2일")
    }

    @Test func anEnglishMonthStartsOnSundayInTheUSAndOnMondayInBritain() {
        let days = entries([1: 1, 25: 1])
        let us = DiaryCalendar(month: .init(year: 2026, month: 11), entryDays: days, today: today, locale: "en_US")
        #expect(
            us.lines().joined(separator: "\n") == """
                       November 2026
                 Su  Mo  Tu  We  Th  Fr  Sa
                  1•  2   3   4   5   6   7
                  8   9  10  11  12  13  14
                 15  16  17  18  19  20  21
                 22  23  24  25• 26  27  28
                 29  30
                """)
        let gb = DiaryCalendar(month: .init(year: 2026, month: 11), entryDays: days, today: today, locale: "en_GB")
        #expect(
            gb.lines().joined(separator: "\n") == """
                       November 2026
                 Mo  Tu  We  Th  Fr  Sa  Su
                                          1•
                  2   3   4   5   6   7   8
                  9  10  11  12  13  14  15
                 16  17  18  19  20  21  22
                 23  24  25• 26  27  28  29
                 30
                """)
        #expect(gb.weeks.allSatisfy { $0.count == 7 })
    }

    /// The summary is in the locale's words, singular and plural; the streak is under today's
    /// month only (a month to come or gone by has none of its own).
    @Test func theSummaryIsInTheLocaleAndTheStreakOnlyUnderThisMonth() {
        let days = entries([1: 1, 24: 2, 25: 1])
        func summary(_ year: Int, _ month: Int, _ locale: String, _ days: [LocalDate: Int]) -> String {
            DiaryCalendar(month: .init(year: year, month: month), entryDays: days, today: today, locale: locale).summary
        }
        #expect(summary(2026, 11, "ko_KR", days) == "일기 4편, 3일 · 연속 2일")
        #expect(summary(2026, 11, "de_DE", days) == "4 Einträge an 3 Tagen · Serie: 2 Tage")
        #expect(summary(2026, 11, "ja_JP", days) == "日記4件、3日 · 連続2日")
        #expect(summary(2026, 11, "en_US", days) == "4 entries on 3 days · streak: 2 days")
        #expect(summary(2026, 11, "fr_FR", days) == "4 entrées sur 3 jours · série : 2 jours")
        #expect(summary(2026, 11, "es_ES", days) == "4 entradas en 3 días · racha: 2 días")
        // One of each: singular words.
        let one = entries([25: 1])
        #expect(summary(2026, 11, "de_DE", one) == "1 Eintrag an 1 Tag · Serie: 1 Tag")
        #expect(summary(2026, 11, "en_GB", one) == "1 entry on 1 day · streak: 1 day")
        // A language without words here: English.
        #expect(summary(2026, 11, "pt_BR", one) == "1 entry on 1 day · streak: 1 day")
        // Next month and last month: no streak, though one runs today.
        #expect(summary(2026, 12, "de_DE", days) == "0 Einträge an 0 Tagen")
        #expect(summary(2026, 10, "ko_KR", days) == "일기 0편, 0일")
        let december = DiaryCalendar(month: .init(year: 2026, month: 12), entryDays: days, today: today, locale: "ko_KR")
        #expect(december.streak == nil)
    }

    @Test func theStreakEndsTodayOrYesterday() {
        // Today written: 23, 24, 25.
        #expect(DiaryCalendar.streak(entryDays: entries([20: 1, 23: 1, 24: 3, 25: 1]), today: today) == 3)
        // Today not written yet: the run up to yesterday still counts.
        #expect(DiaryCalendar.streak(entryDays: entries([20: 1, 23: 1, 24: 3]), today: today) == 2)
        // Yesterday missed: no streak.
        #expect(DiaryCalendar.streak(entryDays: entries([20: 1, 23: 1]), today: today) == 0)
        // Across a month's end.
        let dec = LocalDate(year: 2026, month: 12, day: 1)
        #expect(DiaryCalendar.streak(entryDays: entries([29: 1, 30: 1]), today: dec) == 2)
    }

    @Test func monthsAreReadAsYearMonthOrMonthOrNothing() throws {
        #expect(try DiaryCalendar.month("2026-02", today: today) == .init(year: 2026, month: 2))
        #expect(try DiaryCalendar.month("2025-7", today: today) == .init(year: 2025, month: 7))
        #expect(try DiaryCalendar.month("3", today: today) == .init(year: 2026, month: 3))
        #expect(try DiaryCalendar.month(nil, today: today) == .init(year: 2026, month: 11))
        for bad in ["13", "0", "2026-13", "nov", "2026/11", "-1", "26-11", "2026-11-01"] {
            do {
                _ = try DiaryCalendar.month(bad, today: today)
                Issue.record("'\(bad)' was read as a month")
            } catch {
                guard case .input(.unreadableMonth(let text)) = error else {
                    Issue.record("wrong error for '\(bad)': \(error)")
                    continue
                }
                #expect(text == bad)
            }
        }
        #expect(
            "\(InputProblem.unreadableMonth("13"))"
                == "cannot read the month '13': write 2026-11, 11 (this year) or nothing (this month)")
    }

    @Test func aLeapFebruaryHasTwentyNineDays() {
        let c = DiaryCalendar(month: .init(year: 2028, month: 2), entryDays: [:], today: today, locale: "ko_KR")
        #expect(c.weeks.flatMap { $0 }.compactMap { $0 }.count == 29)
        #expect(LocalDate(year: 2028, month: 2, day: 1).weekday == 3)  // a Tuesday
    }

    // MARK: Display widths

    @Test func koreanAndEmojiTakeTwoColumns() {
        #expect(DisplayWidth.of("부산 여행") == 9)
        #expect(DisplayWidth.of("trip 🧳") == 7)
        #expect(DisplayWidth.of("⚠️") == 2)
        #expect(DisplayWidth.of("👨‍👩‍👧") == 2)
        #expect(DisplayWidth.of("🇰🇷") == 2)
        // Decomposed Hangul (as macOS writes names) is as wide as composed.
        let decomposed = "부산".decomposedStringWithCanonicalMapping
        #expect(decomposed.unicodeScalars.count == 5)
        #expect(DisplayWidth.of(decomposed) == 4)
        #expect(DisplayWidth.of("é".decomposedStringWithCanonicalMapping) == 1)
    }

    @Test func linesAreCutBetweenCharactersToTheColumnsGiven() {
        #expect(DisplayWidth.clip("부산 여행 일정", 8) == "부산 여…")
        #expect(DisplayWidth.of(DisplayWidth.clip("부산 여행 일정", 8)) == 8)
        // A wide character that would pass the edge is left out whole: never half of one.
        #expect(DisplayWidth.clip("가나다라", 6) == "가나…")
        #expect(DisplayWidth.fit("가나다라", 6) == "가나… ")
        #expect(DisplayWidth.clip("a👨‍👩‍👧b👨‍👩‍👧", 5) == "a👨‍👩‍👧b…")
        #expect(DisplayWidth.fit("부산", 6) == "부산  ")
        #expect(DisplayWidth.clip("short", 80) == "short")
        for columns in 1...12 {
            #expect(DisplayWidth.of(DisplayWidth.fit("서울 🧳 trip ✈️ 부산", columns)) == columns)
        }
    }
}
