import Foundation
import Testing

@testable import VaultCore

@Suite struct DateTextTests {
    let seoul = TimeZone(identifier: "Asia/Seoul")!
    let day = LocalDate(year: 2023, month: 8, day: 28)

    @Test(arguments: [
        ("ko_KR", "2023년 8월 28일 월요일"),
        ("ja_JP", "2023年8月28日 月曜日"),  // CLDR full date of the ICU that ships with Swift 6.3
        ("de_DE", "Montag, 28. August 2023"),
        ("en_US", "Monday, August 28, 2023"),
    ])
    func diaryHeadings(locale: String, expected: String) {
        #expect(DateText.heading(day, locale: locale) == expected)
    }

    @Test func messageHeaderInKorean() {
        let t = Timestamp(rfc3339: "2026-11-21T09:31:07+09:00")!
        #expect(DateText.header(t, locale: "ko_KR", timeZone: seoul) == "2026년 11월 21일 토요일 오전 9:31")
        let berlin = TimeZone(identifier: "Europe/Berlin")!
        #expect(DateText.header(t, locale: "de_DE", timeZone: berlin) == "Samstag, 21. November 2026 um 01:31")
    }

    @Test func localeComesFromTheEnvironmentInPOSIXOrder() {
        #expect(LocaleSetting.fromEnvironment(["LANG": "ko_KR.UTF-8"]) == "ko_KR")
        #expect(LocaleSetting.fromEnvironment(["LANG": "ko_KR.UTF-8", "LC_TIME": "ja_JP.UTF-8"]) == "ja_JP")
        #expect(
            LocaleSetting.fromEnvironment(["LANG": "ko_KR.UTF-8", "LC_TIME": "ja_JP", "LC_ALL": "de_DE@euro"])
                == "de_DE")
        #expect(LocaleSetting.fromEnvironment(["LANG": "ko_KR", "LC_ALL": ""]) == "ko_KR")
        #expect(LocaleSetting.fromEnvironment(["LANG": "C.UTF-8"]) == nil)
        #expect(LocaleSetting.fromEnvironment([:]) == nil)
        #expect(LocaleSetting.isKnown("ko_KR"))
        #expect(!LocaleSetting.isKnown("xx_YY"))
    }

    @Test func formattersAreCachedAndSafeAcrossThreads() {
        let t = Timestamp(rfc3339: "2026-11-21T09:31:07+09:00")!
        let results = UnsafeMutableBufferPointer<String>.allocate(capacity: 64)
        defer { results.deallocate() }
        nonisolated(unsafe) let out = results
        DispatchQueue.concurrentPerform(iterations: 64) { i in
            (out.baseAddress! + i).initialize(
                to: DateText.header(
                    t, locale: i % 2 == 0 ? "ko_KR" : "en_US", timeZone: TimeZone(identifier: "Asia/Seoul")!))
        }
        #expect(Set(results).count == 2)
    }

    @Test func timestampsKeepTheirOffsetAndDay() throws {
        let la = try #require(Timestamp(rfc3339: "2026-09-12T23:40:00-07:00"))
        #expect(la.localDate == LocalDate(year: 2026, month: 9, day: 12))
        #expect(la.utcOffsetSeconds == -7 * 3600)
        let utc = try #require(Timestamp(rfc3339: "2026-09-13T06:40:00Z"))
        #expect(utc.secondsSince1970 == la.secondsSince1970)
        #expect(Timestamp(rfc3339: "2026-09-13T06:40:00.250+00:00")!.secondsSince1970 == la.secondsSince1970 + 0.25)
        #expect(Timestamp(rfc3339: "2024-02-29T00:00:00Z") != nil)
        #expect(Timestamp(rfc3339: "2023-02-29T00:00:00Z") == nil)
        #expect(Timestamp(rfc3339: "2026-11-21 09:30:00+09:00") == nil)
        let made = Timestamp(
            date: Date(timeIntervalSince1970: 1_795_000_000), timeZone: TimeZone(identifier: "Asia/Seoul")!)
        #expect(made.text.hasSuffix("+09:00"))
        #expect(Timestamp(rfc3339: made.text)?.secondsSince1970 == 1_795_000_000)
    }
}

@Suite struct DateArgumentTests {
    let seoul = TimeZone(identifier: "Asia/Seoul")!
    // 2026-11-21T23:30:00+09:00: late evening in Seoul, still the 21st there, the 21st in UTC too (14:30).
    let now = Timestamp(rfc3339: "2026-11-21T23:30:00+09:00")!.date

    @Test func wordsAndOffsetsNameDaysInTheVaultsZone() {
        #expect(DateArgument.day("today", now: now, timeZone: seoul) == LocalDate(year: 2026, month: 11, day: 21))
        #expect(DateArgument.day("yesterday", now: now, timeZone: seoul) == LocalDate(year: 2026, month: 11, day: 20))
        #expect(DateArgument.day("-3", now: now, timeZone: seoul) == LocalDate(year: 2026, month: 11, day: 18))
        #expect(DateArgument.day("2026-02-28", now: now, timeZone: seoul) == LocalDate(year: 2026, month: 2, day: 28))
        #expect(DateArgument.day("2026-02-30", now: now, timeZone: seoul) == nil)
        #expect(DateArgument.day("someday", now: now, timeZone: seoul) == nil)
        // In Los Angeles the same instant is still the 21st, 06:30.
        let la = TimeZone(identifier: "America/Los_Angeles")!
        #expect(DateArgument.day("today", now: now, timeZone: la) == LocalDate(year: 2026, month: 11, day: 21))
        let after = Timestamp(rfc3339: "2026-11-22T01:00:00+09:00")!.date
        #expect(DateArgument.day("today", now: after, timeZone: seoul) == LocalDate(year: 2026, month: 11, day: 22))
        #expect(DateArgument.day("today", now: after, timeZone: la) == LocalDate(year: 2026, month: 11, day: 21))
    }

    @Test func timesKeepOrGainAnOffset() {
        #expect(DateArgument.time("2026-11-21T09:30", timeZone: seoul)?.text == "2026-11-21T09:30:00+09:00")
        #expect(DateArgument.time("2026-11-21 09:30:15", timeZone: seoul)?.text == "2026-11-21T09:30:15+09:00")
        #expect(DateArgument.time("2026-09-12T23:40:00-07:00", timeZone: seoul)?.text == "2026-09-12T23:40:00-07:00")
        #expect(DateArgument.time("2026-11-21", timeZone: seoul)?.text == "2026-11-21T12:00:00+09:00")
        let berlin = TimeZone(identifier: "Europe/Berlin")!
        #expect(DateArgument.time("2026-07-01T08:00", timeZone: berlin)?.text == "2026-07-01T08:00:00+02:00")
        #expect(DateArgument.time("2026-13-01T08:00", timeZone: berlin) == nil)
    }
}
