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
        package var year: Int
        package var month: Int

        package init(year: Int, month: Int) {
            self.year = year
            self.month = month
        }

        /// `2026-11`.
        public var description: String { String(format: "%04d-%02d", year, month) }
    }

    /// One day of the grid.
    public struct Day: Sendable, Hashable {
        package let date: LocalDate
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
    /// Consecutive days with entries ending today, or yesterday when today has none; 0 if
    /// neither. Nil for any month but today's: the streak is about now, and a month to come
    /// or gone by has none of its own.
    public let streak: Int?
    /// The locale the month is drawn in (its summary's words too).
    public let locale: String

    /// The month's grid for `locale` (`ko_KR`), entries counted from `entryDays` (every day
    /// with entries, any month: the streak may begin in an earlier one).
    public init(month: Month, entryDays: [LocalDate: Int], today: LocalDate, locale: String) {
        self.month = month
        self.locale = locale
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
        let current = today.year == month.year && today.month == month.month
        streak = current ? DiaryCalendar.streak(entryDays: entryDays, today: today) : nil
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
    ///
    /// - Parameter paint: how a day's cell is shown (colors on a terminal): given the day and
    ///   its four columns of text, returns them as they are to be printed.
    public func lines(painting paint: (Day, String) -> String = { $1 }) -> [String] {
        let width = 7 * DiaryCalendar.cell - 1
        var out = [DisplayWidth.centre(title, width)]
        out.append(weekdays.map { DisplayWidth.fit(" " + $0, DiaryCalendar.cell) }.joined().trailingSpacesRemoved)
        for week in weeks {
            let cells = week.map { day -> String in
                guard let day else { return String(repeating: " ", count: DiaryCalendar.cell) }
                let number = String(day.date.day)
                let padded = String(repeating: " ", count: 3 - number.count) + number
                if day.entries > 0 { return paint(day, padded + "•") }
                if day.isToday { return paint(day, number.count == 1 ? " [\(number)]" : "[\(number)]") }
                return paint(day, padded + " ")
            }
            out.append(cells.joined().trailingSpacesRemoved)
        }
        return out
    }

    /// The summary under the grid, in the locale's language (English for one without words
    /// here): `5 entries on 4 days · streak: 3 days`, `일기 5편, 4일 · 연속 3일`,
    /// `5 Einträge an 4 Tagen · Serie: 3 Tage`. The streak only under today's month.
    public var summary: String {
        let words = SummaryWords.of(locale)
        var text = words.entries(entryCount, daysWithEntries)
        if let streak { text += " · " + words.streak(streak) }
        return text
    }

    /// The words of `summary` in one language.
    struct SummaryWords {
        /// `N entries on D days`.
        let entries: (Int, Int) -> String
        /// `streak: N days`.
        let streak: (Int) -> String

        static func of(_ locale: String) -> SummaryWords {
            let language = locale.split(separator: "_").first.map(String.init) ?? locale
            switch language {
            case "ko":
                return SummaryWords(entries: { "일기 \($0)편, \($1)일" }, streak: { "연속 \($0)일" })
            case "ja":
                return SummaryWords(entries: { "日記\($0)件、\($1)日" }, streak: { "連続\($0)日" })
            case "de":
                return SummaryWords(
                    entries: { "\($0) \($0 == 1 ? "Eintrag" : "Einträge") an \($1) \($1 == 1 ? "Tag" : "Tagen")" },
                    streak: { "Serie: \($0) \($0 == 1 ? "Tag" : "Tage")" })
            case "fr":
                return SummaryWords(
                    entries: { "\($0) \($0 <= 1 ? "entrée" : "entrées") sur \($1) \($1 <= 1 ? "jour" : "jours")" },
                    streak: { "série : \($0) \($0 <= 1 ? "jour" : "jours")" })
            case "es":
                return SummaryWords(
                    entries: { "\($0) \($0 == 1 ? "entrada" : "entradas") en \($1) \($1 == 1 ? "día" : "días")" },
                    streak: { "racha: \($0) \($0 == 1 ? "día" : "días")" })
            default:
                return SummaryWords(
                    entries: { "\($0 == 1 ? "1 entry" : "\($0) entries") on \($1 == 1 ? "1 day" : "\($1) days")" },
                    streak: { "streak: \($0 == 1 ? "1 day" : "\($0) days")" })
            }
        }
    }

    /// The columns a day takes in `lines` (its number, then its mark).
    public static let cell = 4

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

/// `vault diary calendar --json`: the month, its days with their entry counts, the summary's numbers.
extension DiaryCalendar: Encodable {
    enum CodingKeys: String, CodingKey {
        case month, title, weekdays, days, entries, daysWithEntries = "days_with_entries", streak, summary
    }

    enum DayKeys: String, CodingKey {
        case date, entries, today
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(month.description, forKey: .month)
        try c.encode(title, forKey: .title)
        try c.encode(weekdays, forKey: .weekdays)
        var list = c.nestedUnkeyedContainer(forKey: .days)
        for day in weeks.joined().compactMap({ $0 }) {
            var d = list.nestedContainer(keyedBy: DayKeys.self)
            try d.encode(day.date.description, forKey: .date)
            try d.encode(day.entries, forKey: .entries)
            try d.encode(day.isToday, forKey: .today)
        }
        try c.encode(entryCount, forKey: .entries)
        try c.encode(daysWithEntries, forKey: .daysWithEntries)
        try c.encode(streak, forKey: .streak)
        try c.encode(summary, forKey: .summary)
    }
}

extension String {
    fileprivate var trailingSpacesRemoved: String {
        var s = Substring(self)
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
