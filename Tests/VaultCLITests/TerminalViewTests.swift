import Foundation
import Testing
import VaultCore
import VaultTestSupport

/// `vault show` with day dividers, `vault rooms` with relative times and unread marks, and
/// `vault diary calendar`, run as the built binary on temporary vaults. The views themselves:
/// `VaultCoreTests/TerminalViewsTests`.
@Suite struct TerminalViewTests {
    let seoul = TimeZone(identifier: "Asia/Seoul")!

    /// `date` as an RFC 3339 timestamp with Seoul's offset.
    func stamp(_ date: Date) -> String {
        Timestamp(date: date, timeZone: seoul).text
    }

    func room(_ title: String, _ messages: [(stamp: String, id: String, attributes: String, body: String)]) -> String {
        var s = "---\ntitle: \(title)\ncreated: 2026-11-01T09:00:00+09:00\n---\n\n"
        for (i, m) in messages.enumerated() {
            let role = i % 2 == 0 ? "🧑 user" : "🤖 assistant"
            let extra = m.attributes.isEmpty ? "" : " " + m.attributes
            s += "## \(role) · x <!-- \(m.stamp) \(m.id)\(extra) -->\n\n\(m.body)\n\n"
        }
        return s + promptMarker + "\n"
    }

    @Test func showPutsADividerWhereTheDayChangesAndMarksAnInterruptedReply() throws {
        let vault = try freshVault(locale: "ko_KR", timeZone: "Asia/Seoul")
        try vault.write(
            "rooms/부산-여행.md",
            room("부산 여행", [
                ("2026-11-22T23:30:00+09:00", "m-AAAAAAAA0001", "", "내일 어디 갈까?"),
                ("2026-11-22T23:30:05+09:00", "m-AAAAAAAA0002", "model=gpt-4o provider=openai", "해운대 어때요?"),
                ("2026-11-23T09:00:00+09:00", "m-AAAAAAAA0003", "", "태종대는?"),
                ("2026-11-23T09:00:04+09:00", "m-AAAAAAAA0004", "model=gpt-4o provider=openai status=interrupted",
                 "태종대는 바다가"),
            ]))
        let r = try runVault(["show", "부산-여행"], in: vault.path)
        expectSuccess(r)
        #expect(
            r.stdout == """
                # 부산 여행
                rooms/부산-여행.md

                ──── 2026년 11월 22일 일요일 ────

                🧑 user · 오후 11:30
                내일 어디 갈까?

                🤖 assistant · 오후 11:30 · gpt-4o
                해운대 어때요?

                ──── 2026년 11월 23일 월요일 ────

                🧑 user · 오전 9:00
                태종대는?

                🤖 assistant · 오전 9:00 · gpt-4o · ⚠️ 중단됨: 완성되지 않은 답변
                태종대는 바다가

                """, "\(r.stdout)")
        // Read in New York, the dividers follow the zone and the locale.
        let ny = try runVault(
            ["show", "--locale", "en_US", "--time-zone", "America/New_York", "부산-여행"], in: vault.path)
        expectSuccess(ny)
        #expect(
            ny.stdout.contains("\n──── Sunday, November 22, 2026 ────\n\n🧑 user · 9:30\u{202F}AM\n"), "\(ny.stdout)")
        #expect(!ny.stdout.contains("November 23"), "all four were written on the 22nd in New York")
        // --raw stays the file's bytes.
        let raw = try runVault(["show", "--raw", "부산-여행"], in: vault.path)
        #expect(Array(raw.stdout.utf8) == (try vault.snapshot())["rooms/부산-여행.md"])
    }

    @Test func roomsShowHowLongAgoAndMarkRoomsWithUnreadMessages() throws {
        let vault = try freshVault(locale: "ko_KR", timeZone: "Asia/Seoul")
        let now = Date()
        // Noon yesterday in Seoul is on yesterday's date at any hour of today.
        let today = Timestamp(date: now, timeZone: seoul).localDate
        let yesterdayNoon = "\(today.adding(days: -1))T12:00:00+09:00"
        try vault.write(
            "rooms/recent.md",
            room("방금 대화", [
                (stamp(now.addingTimeInterval(-200)), "m-BBBBBBBB0001", "", "3분 전에 보낸 말"),
                (stamp(now.addingTimeInterval(-195)), "m-BBBBBBBB0002", "model=gpt-4o status=interrupted",
                 "답하다 끊긴"),
            ]))
        try vault.write(
            "rooms/old.md",
            room("어제 대화 🧳 부산 여행 준비물 목록 정리", [
                (yesterdayNoon, "m-CCCCCCCC0001", "", "어제 보낸 아주 긴 메시지 " + String(repeating: "가나다라 ", count: 20))
            ]))
        // What a sync does when messages come in.
        let root = try Vault(root: vault.path).root
        UnreadMarks.add([(path: "rooms/old.md", ids: ["m-CCCCCCCC0001"])], root: root)

        let r = try runVault(["rooms"], in: vault.path, environment: ["COLUMNS": "200"])
        expectSuccess(r)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(r.stdout)")
        #expect(lines[0].hasPrefix("  3분 전"), "\(lines[0])")
        #expect(lines[0].contains("🤖 [중단됨] 답하다 끊긴"), "\(lines[0])")
        #expect(lines[1].hasPrefix("● 어제 "), "\(lines[1])")
        #expect(lines[1].contains("(새 메시지 1) 어제 보낸"), "\(lines[1])")

        // In English, and fitted to 60 columns by display width: Korean and emoji count two.
        let narrow = try runVault(["rooms", "--locale", "en_US"], in: vault.path, environment: ["COLUMNS": "60"])
        expectSuccess(narrow)
        let english = narrow.stdout.split(separator: "\n").map(String.init)
        #expect(english[0].hasPrefix("  3 minutes ago "), "\(english[0])")
        #expect(english[1].hasPrefix("● yesterday "), "\(english[1])")
        #expect(english[0].contains("[interrupted]") && english[1].contains("(1 new)"), "\(english)")
        for line in english {
            #expect(DisplayWidth.of(line) <= 60, "\(line)")
            #expect(!line.contains("\u{FFFD}"))
        }
        #expect(english[1].hasSuffix("…"), "the long preview is cut: \(english[1])")
        // The title column: 20 columns at 60 (beside a date column of 18), cut between characters,
        // the emoji whole, padded where a wide character did not fit.
        #expect(english[1].contains(" 어제 대화 🧳 부산 …  🧑 (1 new) "), "\(english[1])")

        // Shown: read, so the mark goes.
        expectSuccess(try runVault(["show", "old"], in: vault.path))
        let after = try runVault(["rooms"], in: vault.path)
        #expect(!after.stdout.contains("●") && !after.stdout.contains("new)"), "\(after.stdout)")
    }

    @Test func diaryCalendarDrawsTheMonthWithEntriesAndTheStreak() throws {
        let vault = try freshVault(locale: "ko_KR", timeZone: "Asia/Seoul")
        for (day, body) in [("2026-02-03", "하나"), ("2026-02-03", "둘"), ("2026-02-14", "셋")] {
            expectSuccess(try runVault(["write", "--date", day, "--body", body], in: vault.path))
        }
        // February 2026 starts on a Sunday: the first weekday of a Korean calendar.
        let r = try runVault(["diary", "calendar", "2026-02"], in: vault.path)
        expectSuccess(r)
        #expect(
            r.stdout == """
                        2026년 2월
                 일  월  화  수  목  금  토
                  1   2   3•  4   5   6   7
                  8   9  10  11  12  13  14•
                 15  16  17  18  19  20  21
                 22  23  24  25  26  27  28

                일기 3편, 2일

                """, "\(r.stdout)")

        // Yesterday and today written: a streak of two, this month by default.
        let today = Timestamp(date: Date(), timeZone: seoul).localDate
        for day in [today.adding(days: -1), today] {
            expectSuccess(try runVault(["write", "--date", "\(day)", "--body", "오늘"], in: vault.path))
        }
        let now = try runVault(["diary", "calendar"], in: vault.path)
        expectSuccess(now)
        #expect(now.stdout.hasSuffix("\n\n일기 2편, 2일 · 연속 2일\n"), "\(now.stdout)")
        #expect(now.stdout.contains(String(format: "%3d•", today.day)), "\(now.stdout)")
        // A month number alone is this year's.
        let english = try runVault(["diary", "calendar", "2", "--locale", "en_US"], in: vault.path)
        expectSuccess(english)
        if today.year == 2026 {
            #expect(
                english.stdout.hasPrefix("       February 2026\n Su  Mo  Tu  We  Th  Fr  Sa\n"), "\(english.stdout)")
        }
    }

    @Test func aBadMonthIsRefusedSayingWhatToWrite() throws {
        let vault = try freshVault(locale: "ko_KR", timeZone: "Asia/Seoul")
        let before = try vault.snapshot()
        for bad in ["13", "2026-13", "november", "2026/11"] {
            let r = try runVault(["diary", "calendar", bad], in: vault.path)
            expectUserError(r, ["cannot read the month '\(bad)'", "write 2026-11, 11 (this year) or nothing"])
            // A value the argument does not take: a usage error (README, "Exit status").
            #expect(r.status == 64)
            #expect(r.stdout.isEmpty)
        }
        expectUnchanged(before, try vault.snapshot())
    }
}
