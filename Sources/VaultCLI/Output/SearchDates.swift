import Foundation
import VaultCore

/// Days and times of day as `DateText` writes them in its `.day` and `.time` styles (a diary
/// heading, `2026년 11월 21일 토요일`; a header's time, `오후 11:45`), made from the locale's
/// patterns and names, asked of ICU once, instead of by ICU each time: a search can print
/// thousands of days, and ICU takes microseconds a day, under one lock for every thread.
///
/// Made only when the patterns hold nothing but years, months, days, weekdays, hours, minutes,
/// the AM/PM mark and quoted text, and when it writes what ICU writes for sample days (every
/// month and weekday, one- and two-digit days) and times (every hour, three minutes each);
/// otherwise nil, and ICU writes every one.
final class SearchDates: Sendable {
    private enum Field: Sendable {
        case text(String)
        case year(Int)
        case month(Int, standalone: Bool)
        case day(Int)
        case weekday(Int, standalone: Bool)
        case hour12(Int)
        case hour24(Int)
        case hour11(Int)
        case hour1To24(Int)
        case minute(Int)
        case mark
    }

    private let day: [Field]
    private let time: [Field]
    private let months: [String]
    private let shortMonths: [String]
    private let standaloneMonths: [String]
    private let shortStandaloneMonths: [String]
    private let weekdays: [String]
    private let shortWeekdays: [String]
    private let standaloneWeekdays: [String]
    private let shortStandaloneWeekdays: [String]
    private let am: String
    private let pm: String
    private let locale: String

    init?(locale: String) {
        let utc = TimeZone(identifier: "UTC")!
        func formatter(_ configure: (DateFormatter) -> Void) -> DateFormatter {
            let f = DateFormatter()
            f.locale = Locale(identifier: locale)
            f.timeZone = utc
            configure(f)
            return f
        }
        let dayFormatter = formatter { $0.dateStyle = .full }
        let timeFormatter = formatter { $0.timeStyle = .short }
        guard let day = Self.fields(dayFormatter.dateFormat), let time = Self.fields(timeFormatter.dateFormat) else {
            return nil
        }
        (self.day, self.time) = (day, time)
        months = dayFormatter.monthSymbols
        shortMonths = dayFormatter.shortMonthSymbols
        standaloneMonths = dayFormatter.standaloneMonthSymbols
        shortStandaloneMonths = dayFormatter.shortStandaloneMonthSymbols
        weekdays = dayFormatter.weekdaySymbols
        shortWeekdays = dayFormatter.shortWeekdaySymbols
        standaloneWeekdays = dayFormatter.standaloneWeekdaySymbols
        shortStandaloneWeekdays = dayFormatter.shortStandaloneWeekdaySymbols
        am = timeFormatter.amSymbol
        pm = timeFormatter.pmSymbol
        self.locale = locale
        guard months.count == 12, shortMonths.count == 12, standaloneMonths.count == 12,
            shortStandaloneMonths.count == 12, weekdays.count == 7, shortWeekdays.count == 7,
            standaloneWeekdays.count == 7, shortStandaloneWeekdays.count == 7
        else { return nil }
        // What ICU writes, for sample days and times: any difference, and ICU writes them all.
        for k in 0..<40 {
            let sample = LocalDate(year: 1999 + (k * 7) % 31, month: 1 + k % 12, day: [1, 9, 10, 28][k % 4])
            guard self.day(sample) == DateText.heading(sample, locale: locale) else { return nil }
        }
        let last = LocalDate(year: 2026, month: 12, day: 31)
        guard self.day(last) == DateText.heading(last, locale: locale) else { return nil }
        for hour in 0..<24 {
            for minute in [0, 7, 59] {
                let at = Date(timeIntervalSince1970: Double((hour * 60 + minute) * 60))
                guard self.time(minutes: hour * 60 + minute) == timeFormatter.string(from: at) else { return nil }
            }
        }
    }

    /// `DateText.heading(date, locale:)`.
    func day(_ date: LocalDate) -> String {
        // 1970-01-01 was a Thursday; the weekday names start on Sunday.
        let days = date.daysSince1970
        let weekday = ((days % 7) + 7 + 4) % 7
        var out = ""
        for field in day {
            switch field {
            case .text(let t): out += t
            case .year(let n): out += n == 2 ? Self.padded(date.year % 100, 2) : Self.padded(date.year, n)
            case .month(let n, let standalone):
                if n <= 2 {
                    out += Self.padded(date.month, n)
                } else if n == 3 {
                    out += (standalone ? shortStandaloneMonths : shortMonths)[date.month - 1]
                } else {
                    out += (standalone ? standaloneMonths : months)[date.month - 1]
                }
            case .day(let n): out += Self.padded(date.day, n)
            case .weekday(let n, let standalone):
                out += n == 4 ? (standalone ? standaloneWeekdays : weekdays)[weekday]
                    : (standalone ? shortStandaloneWeekdays : shortWeekdays)[weekday]
            default: return DateText.heading(date, locale: locale)
            }
        }
        return out
    }

    /// The time of day `minutes` after midnight in the `.time` style.
    func time(minutes: Int) -> String {
        let hour = minutes / 60
        let minute = minutes % 60
        var out = ""
        for field in time {
            switch field {
            case .text(let t): out += t
            case .hour12(let n): out += Self.padded(hour % 12 == 0 ? 12 : hour % 12, n)
            case .hour24(let n): out += Self.padded(hour, n)
            case .hour11(let n): out += Self.padded(hour % 12, n)
            case .hour1To24(let n): out += Self.padded(hour == 0 ? 24 : hour, n)
            case .minute(let n): out += Self.padded(minute, n)
            case .mark: out += hour < 12 ? am : pm
            default:
                return DateText.string(
                    for: Date(timeIntervalSince1970: Double(minutes * 60)), style: .time, locale: locale,
                    timeZone: TimeZone(identifier: "UTC")!)
            }
        }
        return out
    }

    private static func padded(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    /// An ICU pattern as fields; nil when it holds a field not written here.
    private static func fields(_ pattern: String) -> [Field]? {
        var fields: [Field] = []
        let chars = Array(pattern)
        var i = 0
        var literal = ""
        func flush() {
            if !literal.isEmpty { fields.append(.text(literal)) }
            literal = ""
        }
        while i < chars.count {
            let c = chars[i]
            if c == "'" {
                // Quoted text; '' is a quote.
                if i + 1 < chars.count && chars[i + 1] == "'" {
                    literal.append("'")
                    i += 2
                    continue
                }
                i += 1
                while i < chars.count {
                    if chars[i] == "'" {
                        if i + 1 < chars.count && chars[i + 1] == "'" {
                            literal.append("'")
                            i += 2
                            continue
                        }
                        break
                    }
                    literal.append(chars[i])
                    i += 1
                }
                guard i < chars.count else { return nil }
                i += 1
                continue
            }
            guard c.isASCII && c.isLetter else {
                literal.append(c)
                i += 1
                continue
            }
            var n = 1
            while i + n < chars.count && chars[i + n] == c { n += 1 }
            i += n
            flush()
            switch c {
            case "y" where n == 1 || n == 2 || n == 4: fields.append(.year(n))
            case "M" where n <= 4: fields.append(.month(n, standalone: false))
            case "L" where n <= 4: fields.append(.month(n, standalone: true))
            case "d" where n <= 2: fields.append(.day(n))
            case "E" where n <= 4: fields.append(.weekday(n == 4 ? 4 : 3, standalone: false))
            case "c" where n == 4 || n == 3: fields.append(.weekday(n, standalone: true))
            case "h" where n <= 2: fields.append(.hour12(n))
            case "H" where n <= 2: fields.append(.hour24(n))
            case "K" where n <= 2: fields.append(.hour11(n))
            case "k" where n <= 2: fields.append(.hour1To24(n))
            case "m" where n <= 2: fields.append(.minute(n))
            case "a" where n <= 3: fields.append(.mark)
            default: return nil
            }
        }
        flush()
        return fields
    }
}
