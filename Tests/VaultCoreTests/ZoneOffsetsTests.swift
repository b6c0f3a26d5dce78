import Foundation
import Testing
import VaultCore

/// `ZoneOffsets` answers from a cache by day what ICU answers for each instant, also on the days a
/// zone changes its offset (daylight saving time starts and ends, a zone moves its standard time).
@Suite struct ZoneOffsetsTests {
    @Test(arguments: ["America/New_York", "Europe/Berlin", "Australia/Adelaide", "Asia/Seoul", "Pacific/Apia"])
    func everyMinuteAroundTheChangesIsICUsAnswer(zone name: String) throws {
        let zone = try #require(TimeZone(identifier: name))
        let offsets = ZoneOffsets(zone)
        // 2011-12-29 and 30 (Samoa skipped a day), 2026's changes (New York: March 8, November 1;
        // Berlin: March 29, October 25; Adelaide: April 5, October 4, local, which is the day before
        // in UTC), the day after one, a quiet day.
        let days: [Int64] = [15_337, 15_338, 20_520, 20_521, 20_541, 20_547, 20_729, 20_751, 20_758, 20_000]
        var checked = 0
        var changes = 0
        for day in days {
            var previous: Int?
            for minute in stride(from: Int64(0), to: 1_440, by: 1) {
                let seconds = day * 86_400 + minute * 60 + 17
                let expected = zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(seconds)))
                #expect(offsets.offset(at: seconds) == expected, "\(name) at \(seconds)")
                if let previous, previous != expected { changes += 1 }
                previous = expected
                checked += 1
            }
        }
        #expect(checked == days.count * 1_440)
        if name != "Asia/Seoul" { #expect(changes > 0, "\(name): the days chosen hold a change") }
    }

    @Test func aTimestampInTheZoneIsTheSameEitherWay() throws {
        let zone = try #require(TimeZone(identifier: "America/New_York"))
        let offsets = ZoneOffsets(zone)
        for seconds in stride(from: 1_772_900_000.0, to: 1_773_100_000.0, by: 3_333.3) {
            let date = Date(timeIntervalSince1970: seconds)
            let cached = Timestamp(date: date, in: offsets)
            let asked = Timestamp(date: date, timeZone: zone)
            #expect(cached == asked && cached.localDate == asked.localDate && cached.text == asked.text)
        }
    }
}

/// A day and its number (`LocalDate.daysSince1970`), both ways, across leap days and centuries.
@Suite struct DayNumberTests {
    @Test func aDayAndItsNumberAgree() {
        var day = LocalDate(year: 1899, month: 12, day: 25)
        var n = day.daysSince1970
        #expect(LocalDate(year: 1970, month: 1, day: 1).daysSince1970 == 0)
        #expect(LocalDate(year: 1969, month: 12, day: 31).daysSince1970 == -1)
        for _ in 0..<80_000 {
            #expect(LocalDate(daysSince1970: n) == day)
            day = day.adding(days: 1)
            n += 1
            #expect(day.daysSince1970 == n)
        }
        #expect(day == LocalDate(year: 2119, month: 1, day: 6))  // 80,000 days after 1899-12-25
    }

    /// A day's text is `yyyy-mm-dd` (written digit by digit), as `String(format:)` writes it.
    @Test(arguments: [(2026, 11, 5), (1, 1, 1), (999, 12, 31), (9999, 2, 28), (10_000, 1, 1), (-5, 3, 4)])
    func aDaysTextIsItsISOForm(year: Int, month: Int, day: Int) {
        let date = LocalDate(year: year, month: month, day: day)
        #expect(date.description == String(format: "%04d-%02d-%02d", year, month, day))
    }
}
