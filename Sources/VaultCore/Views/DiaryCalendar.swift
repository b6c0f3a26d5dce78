import Foundation

/// A month of the diary drawn like `cal`: the locale's weekday names and first weekday, the
/// days with entries marked, how many entries the month has, and the current streak.
///
/// The streak is the run of consecutive days with an entry that ends today, or yesterday
/// when today has none yet (the day is not over): it says how many days in a row the
/// writer has kept up, and an empty cell in the grid says which day is missing.
///
///     let month = try DiaryCalendar.month("2026-11", today: today)
///     let calendar = DiaryCalendar(month: month, entryDays: days, today: today, locale: "ko_KR")
///     calendar.lines()
///     //         2026년 11월
///     //  일   월   화   수   목   금   토
///     //   1    2•   3•   4 …
public struct DiaryCalendar: Sendable {
    /// A month of a year.
    public struct Month: Sendable, Hashable, CustomStringConvertible {
        public var year: Int
        public var month: Int

        public init(year: Int, month: Int) {
            self.year = year
            self.month = month
        }

        /// `2026-11`.
        public var description: String { String(format: "%04d-%02d", year, month) }
    }

    /// One day of the grid.
    public struct Day: Sendable, Hashable {
        public let date: LocalDate
        /// Diary entries on the day.
        public let entries: Int
        public let isToday: Bool
    }

    /// The month shown.
    public let month: Month
    /// The month's name and year in the locale (`2026년 11월`, `November 2026`).
    public let title: String
    /// Weekday names in the grid's order, starting with the locale's first weekday, each at
    /// most two columns wide (`일`…`토`, `Su`…`Sa`, `Mo`…`So`).
    public let weekdays: [String]
    /// The weeks, seven cells each; nil before the first and after the last day.
    public let weeks: [[Day?]]
    /// Entries written in the month.
    public let entryCount: Int
    /// Days of the month with at least one entry.
    public let daysWithEntries: Int
    /// Consecutive days with entries ending today, or yesterday when today has none; 0 if neither.
    public let streak: Int

    /// The month's grid for `locale` (`ko_KR`), entries counted from `entryDays` (every day
    /// with entries, any month: the streak may begin in an earlier one).
    public init(month: Month, entryDays: [LocalDate: Int], today: LocalDate, locale: String) {
        self.month = month
        let first = LocalDate(year: month.year, month: month.month, day: 1)
        let utc = TimeZone(identifier: "UTC")!
        title = DateText.string(for: first.noonUTC, style: .month, locale: locale, timeZone: utc)
        let (firstWeekday, symbols) = DiaryCalendar.weekdays(locale: locale)
        weekdays = (0..<7).map { symbols[(firstWeekday - 1 + $0) % 7] }
        var cells: [Day?] = Array(repeating: nil, count: (first.weekday - firstWeekday + 7) % 7)
        var count = 0
        var days = 0
        for d in 1...first.daysInMonth {
            let date = LocalDate(year: month.year, month: month.month, day: d)
            let n = entryDays[date] ?? 0
            count += n
            if n > 0 { days += 1 }
            cells.append(Day(date: date, entries: n, isToday: date == today))
        }
        while cells.count % 7 != 0 { cells.append(nil) }
        weeks = stride(from: 0, to: cells.count, by: 7).map { Array(cells[$0..<$0 + 7]) }
        entryCount = count
        daysWithEntries = days
        streak = DiaryCalendar.streak(entryDays: entryDays, today: today)
    }

    /// Consecutive days with entries ending today, or ending yesterday when today has none.
    /// How many entries each day has, from a diary listing (`Vault.diarySummaries()`; entries
    /// with no date are left out).
    public static func entryDays(_ entries: [DiarySummary]) -> [LocalDate: Int] {
        var days: [LocalDate: Int] = [:]
        for entry in entries {
            if let date = entry.date { days[date, default: 0] += 1 }
        }
        return days
    }

    public static func streak(entryDays: [LocalDate: Int], today: LocalDate) -> Int {
        var day = (entryDays[today] ?? 0) > 0 ? today : today.adding(days: -1)
        var n = 0
        while (entryDays[day] ?? 0) > 0 {
            n += 1
            day = day.adding(days: -1)
        }
        return n
    }

    /// The grid as text, like `cal`: the title centred, the weekday names, then one line per
    /// week; each day takes four columns, a day with entries is marked `•` and today is
    /// bracketed when it has none (`[25]`, ` [5]`) so the day still to write stands out.
    public func lines() -> [String] {
        let width = 7 * DiaryCalendar.cell - 1
        var out = [DisplayWidth.centre(title, width)]
        out.append(weekdays.map { DisplayWidth.fit(" " + $0, DiaryCalendar.cell) }.joined().trailingSpacesRemoved)
        for week in weeks {
            let cells = week.map { day -> String in
                guard let day else { return String(repeating: " ", count: DiaryCalendar.cell) }
                let number = String(day.date.day)
                let padded = String(repeating: " ", count: 3 - number.count) + number
                if day.entries > 0 { return padded + "•" }
                if day.isToday { return number.count == 1 ? " [\(number)]" : "[\(number)]" }
                return padded + " "
            }
            out.append(cells.joined().trailingSpacesRemoved)
        }
        return out
    }

    /// The summary under the grid: `5 entries on 4 days · streak: 3 days`.
    public var summary: String {
        let entries = entryCount == 1 ? "1 entry" : "\(entryCount) entries"
        let days = daysWithEntries == 1 ? "1 day" : "\(daysWithEntries) days"
        let run = streak == 1 ? "1 day" : "\(streak) days"
        return "\(entries) on \(days) · streak: \(run)"
    }

    /// Columns per day in `lines()`.
    static let cell = 4

    /// The month named by `text`: `2026-11`, `11` (this year) or nothing (this month).
    public static func month(_ text: String?, today: LocalDate) throws(VaultError) -> Month {
        guard let raw = text?.trimmingCharacters(in: .whitespaces), !raw.isEmpty else {
            return Month(year: today.year, month: today.month)
        }
        let parts = raw.split(separator: "-", omittingEmptySubsequences: false)
        let digits = parts.allSatisfy { !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }
        if digits, parts.count == 1, parts[0].count <= 2, let m = Int(parts[0]), (1...12).contains(m) {
            return Month(year: today.year, month: m)
        }
        if digits, parts.count == 2, parts[0].count == 4, parts[1].count <= 2, let y = Int(parts[0]),
            let m = Int(parts[1]), (1...12).contains(m), y >= 1
        {
            return Month(year: y, month: m)
        }
        throw .input(.unreadableMonth(raw))
    }

    /// The locale's first weekday (1 = Sunday) and short weekday names from Sunday, each cut
    /// to two columns (`Sun` → `Su`; `일` is two already).
    static func weekdays(locale: String) -> (first: Int, symbols: [String]) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.locale = Locale(identifier: locale)
        let names = calendar.shortStandaloneWeekdaySymbols.map { name -> String in
            var out = ""
            for c in name where c != "." {
                if DisplayWidth.of(out) + DisplayWidth.of(c) > 2 { break }
                out.append(c)
            }
            return out
        }
        return (calendar.firstWeekday, names.count == 7 ? names : ["Su", "Mo", "Tu", "We", "Th", "Fr", "Sa"])
    }
}

extension String {
    fileprivate var trailingSpacesRemoved: String {
        var s = Substring(self)
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
