import Foundation
import Synchronization

/// Locale-aware dates for headings: the display half of every header.
///
/// The vault's config fixes the locale and time zone used when *writing*, so
/// every machine writes the same heading; `vault show --locale` renders in
/// another one for reading. Formatters are cached per (locale, zone, style):
/// making a `DateFormatter` costs far more than using one.
///
///     DateText.string(for: date, style: .day, locale: "ko_KR", timeZone: seoul)
///     // "2023년 8월 28일 월요일"
public enum DateText {
    /// What a piece of date text shows.
    ///
    /// The day styles are the locale's own full and long date formats (CLDR), not
    /// templates, so each language gets its canonical spelling.
    public enum Style: String, Sendable, Hashable {
        /// The full date: diary headings. `2023년 8월 28일 월요일`, `2023年8月28日 月曜日`.
        case day
        /// The full date and the short time: message headers. `2023년 8월 28일 월요일 오전 9:31`.
        case dayAndTime
        /// The long date: lists. `2023년 8월 28일`.
        case shortDay
        /// Month, day and time, for compact lists. `8월 28일 오전 9:31`.
        case compact
        /// The short time alone: message headers under a day divider. `오전 9:31`, `9:31 AM`, `09:31`.
        case time
        /// Month and day, for lists of recent things. `8월 28일`, `Aug 28`.
        case monthDay
        /// The month and year: a calendar's title. `2023년 8월`, `August 2023`.
        case month
    }

    private struct Key: Hashable {
        let locale: String
        let zone: String
        let style: Style
    }

    private final class Box: @unchecked Sendable {
        // DateFormatter is not safe to use from two threads at once; each use holds the lock.
        let formatter: DateFormatter
        init(_ f: DateFormatter) { formatter = f }
    }

    private static let cache = Mutex<[Key: Box]>([:])

    /// `date` written in `style` for `locale` (an identifier such as `ko_KR`) in `timeZone`.
    public static func string(for date: Date, style: Style, locale: String, timeZone: TimeZone) -> String {
        let key = Key(locale: locale, zone: timeZone.identifier, style: style)
        return cache.withLock { formatters in
            let box: Box
            if let cached = formatters[key] {
                box = cached
            } else {
                let f = DateFormatter()
                f.locale = Locale(identifier: locale)
                f.timeZone = timeZone
                switch style {
                case .day: f.dateStyle = .full
                case .dayAndTime:
                    f.dateStyle = .full
                    f.timeStyle = .short
                case .shortDay: f.dateStyle = .long
                case .compact: f.setLocalizedDateFormatFromTemplate("MMMdjmm")
                case .time: f.timeStyle = .short
                case .monthDay: f.setLocalizedDateFormatFromTemplate("MMMd")
                case .month: f.setLocalizedDateFormatFromTemplate("yMMMM")
                }
                box = Box(f)
                formatters[key] = box
            }
            return box.formatter.string(from: date)
        }
    }

    /// The display date of a message header: the timestamp's instant in the given zone.
    public static func header(_ t: Timestamp, locale: String, timeZone: TimeZone) -> String {
        string(for: t.date, style: .dayAndTime, locale: locale, timeZone: timeZone)
    }

    /// The heading of a diary day (no time, so no zone question: the day is the day).
    public static func heading(_ day: LocalDate, locale: String) -> String {
        string(for: day.noonUTC, style: .day, locale: locale, timeZone: TimeZone(identifier: "UTC")!)
    }
}

/// Which locale to use, read the way POSIX programs read it.
///
/// On Linux, Foundation's `Locale.current` is always `en_001` whatever the
/// environment says, so the tool reads `LC_ALL`, then `LC_TIME`, then `LANG`
/// itself (the first one that is set and not empty wins, as in POSIX).
public enum LocaleSetting {
    /// The locale the environment asks for, as an ICU identifier (`ko_KR`), or `nil`
    /// when it names none (`C`, `POSIX`, unset).
    public static func fromEnvironment(_ env: [String: String]) -> String? {
        for name in ["LC_ALL", "LC_TIME", "LANG"] {
            guard let raw = env[name], !raw.isEmpty else { continue }
            return normalize(raw)
        }
        return nil
    }

    /// `ko_KR.UTF-8@euro` → `ko_KR`; `ko-KR` → `ko_KR`; `C`/`POSIX` → `nil`.
    public static func normalize(_ raw: String) -> String? {
        var id = Substring(raw)
        if let dot = id.firstIndex(where: { $0 == "." || $0 == "@" }) { id = id[..<dot] }
        let s = id.replacingOccurrences(of: "-", with: "_")
        if s.isEmpty || s == "C" || s == "POSIX" { return nil }
        return s
    }

    /// True when ICU knows the locale's language (so dates are not silently in English).
    public static func isKnown(_ identifier: String) -> Bool {
        let language = identifier.split(separator: "_").first.map(String.init) ?? identifier
        // Every command reads the vault's locale: the usual ones are answered without asking
        // ICU for its 1,000 locales (half a millisecond).
        if common.contains(identifier) { return true }
        return known.contains(identifier) || known.contains(language)
    }

    /// Locales ICU knows (itself or by its language), the vault's users' first.
    private static let common: Set<String> = [
        "ko", "ko_KR", "en", "en_US", "en_GB", "en_001", "ja", "ja_JP", "zh", "zh_CN", "zh_TW", "de", "de_DE", "fr",
        "fr_FR",
        "es", "es_ES", "it", "it_IT", "pt", "pt_BR", "ru", "ru_RU", "nl", "nl_NL", "sv", "sv_SE", "pl", "pl_PL",
    ]

    private static let known: Set<String> = Set(Locale.availableIdentifiers)
}
