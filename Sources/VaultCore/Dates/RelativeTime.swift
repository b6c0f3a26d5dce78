import Foundation

/// How long ago something happened, in words of a locale: `3분 전`, `어제`, `3 minutes ago`,
/// `yesterday`; a date once it is a week old.
///
/// Minutes and hours count the time between the two instants; `yesterday` and days count
/// calendar days in the given zone, so a message from 23:50 read at 00:10 is `20 minutes
/// ago`, and one from 08:00 yesterday read at 07:00 is `yesterday`, not `23 hours ago`.
/// The words are ICU's (Foundation's `Date.AnchoredRelativeFormatStyle`, named), so every
/// locale ICU knows gets its own (`vor 3 Minuten`, `昨日`).
///
///     RelativeTime.string(for: threeMinutesAgo, now: now, locale: "ko_KR", timeZone: seoul)  // "3분 전"
///     RelativeTime.string(for: lastNight, now: now, locale: "en_US", timeZone: seoul)  // "yesterday"
package enum RelativeTime {
    /// How far back an instant is from now, in the unit it is shown in.
    package enum Span: Sendable, Hashable {
        /// Less than a minute ago (or up to a minute ahead: clocks differ a little).
        case now
        /// 1–59 minutes ago.
        case minutes(Int)
        /// 1 hour ago or more, on the same day.
        case hours(Int)
        /// On the calendar day before today (and over an hour ago).
        case yesterday
        /// 2–6 calendar days ago.
        case days(Int)
        /// A week ago or more, or in the future: shown as a date.
        case date
    }

    /// The span between `date` and `now`, days counted in `timeZone`.
    package static func span(of date: Date, now: Date, timeZone: TimeZone) -> Span {
        let seconds = now.timeIntervalSince(date)
        if seconds < -60 { return .date }
        if seconds < 60 { return .now }
        if seconds < 3600 { return .minutes(Int(seconds / 60)) }
        let today = Timestamp(date: now, timeZone: timeZone).localDate
        let day = Timestamp(date: date, timeZone: timeZone).localDate
        let days = today.days(since: day)
        switch days {
        case 0: return .hours(Int(seconds / 3600))
        case 1: return .yesterday
        case 2...6: return .days(days)
        default: return .date
        }
    }

    /// `date` relative to `now` in `locale` (`ko_KR`): `지금`/`now`, `3분 전`, `2시간 전`,
    /// `어제`, `3일 전`, else the month and day (`11월 21일`, `Nov 21`).
    package static func string(for date: Date, now: Date, locale: String, timeZone: TimeZone) -> String {
        // The unit is chosen here (days are calendar days in the zone); ICU says it in the
        // locale's words, given an instant exactly that many units before now.
        let field: Date.RelativeFormatStyle.Field
        let seconds: Double
        switch span(of: date, now: now, timeZone: timeZone) {
        case .now: (field, seconds) = (.second, 0)
        case .minutes(let n): (field, seconds) = (.minute, Double(n) * 60)
        case .hours(let n): (field, seconds) = (.hour, Double(n) * 3600)
        case .yesterday: (field, seconds) = (.day, 86400)
        case .days(let n): (field, seconds) = (.day, Double(n) * 86400)
        case .date:
            let older = Timestamp(date: now, timeZone: timeZone).localDate.year
                != Timestamp(date: date, timeZone: timeZone).localDate.year
            return DateText.string(for: date, style: older ? .shortDay : .monthDay, locale: locale, timeZone: timeZone)
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        var style = Date.AnchoredRelativeFormatStyle(
            anchor: now.addingTimeInterval(-seconds), presentation: .named, unitsStyle: .wide,
            locale: Locale(identifier: locale), calendar: calendar)
        style.allowedFields = [field]
        return style.format(now)
    }

}
