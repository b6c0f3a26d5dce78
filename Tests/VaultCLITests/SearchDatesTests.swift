import Foundation
import Testing
import VaultCore

@testable import VaultCLI

/// `SearchDates` (the search's days and times made without ICU) against ICU itself
/// (`DateText`), day by day over two years and minute by minute over a day, in locales of
/// different patterns: where it is made at all, it writes what ICU writes.
@Suite struct SearchDatesTests {
    @Test(arguments: ["ko_KR", "en_US", "en_GB", "ja_JP", "de_DE", "fr_FR", "zh_CN", "es_ES", "ru_RU", "ar_EG", "hi_IN"])
    func writesWhatICUWrites(locale: String) {
        guard let dates = SearchDates(locale: locale) else { return }
        let utc = TimeZone(identifier: "UTC")!
        let first = LocalDate(year: 2025, month: 1, day: 1).daysSince1970
        for day in first..<(first + 731) {
            let date = LocalDate(daysSince1970: day)
            #expect(dates.day(date) == DateText.heading(date, locale: locale), "\(locale) \(date)")
        }
        for minute in 0..<1440 {
            let icu = DateText.string(
                for: Date(timeIntervalSince1970: Double(minute * 60)), style: .time, locale: locale, timeZone: utc)
            #expect(dates.time(minutes: minute) == icu, "\(locale) \(minute)")
        }
    }

    /// Korean and English, the vault's usual locales, are made without ICU.
    @Test func koreanAndEnglishAreMade() {
        #expect(SearchDates(locale: "ko_KR") != nil)
        #expect(SearchDates(locale: "en_US") != nil)
    }
}
