import Foundation

/// A day or a time given on the command line: `2026-11-21`, `2026-11-21T09:30`,
/// `2026-11-21T09:30:00+09:00`, `today`, `yesterday`, `tomorrow`, or `-N` (N days ago).
///
/// Days are calendar days in `timeZone` (the vault's): `today` is today there.
public enum DateArgument {
    /// The day named by `text`, or `nil` when it names none.
    public static func day(_ text: String, now: Date = Date(), timeZone: TimeZone) -> LocalDate? {
        let t = text.trimmingCharacters(in: .whitespaces).lowercased()
        let today = Timestamp(date: now, timeZone: timeZone).localDate
        switch t {
        case "today": return today
        case "yesterday": return today.adding(days: -1)
        case "tomorrow": return today.adding(days: 1)
        default: break
        }
        if t.hasPrefix("-"), let n = Int(t.dropFirst()), n >= 0 { return today.adding(days: -n) }
        if let d = LocalDate(iso: t) { return d }
        return (Timestamp(rfc3339: text.trimmingCharacters(in: .whitespaces)) ?? localTime(text, timeZone: timeZone))?
            .localDate
    }

    /// The time named by `text`: RFC 3339, or `yyyy-mm-ddThh:mm[:ss]` read in `timeZone`;
    /// a bare day or a word means noon of that day (a time that is on the day in any zone near it).
    public static func time(_ text: String, now: Date = Date(), timeZone: TimeZone) -> Timestamp? {
        let t = text.trimmingCharacters(in: .whitespaces)
        if let full = Timestamp(rfc3339: t) { return full }
        if let local = localTime(t, timeZone: timeZone) { return local }
        if let d = day(t, now: now, timeZone: timeZone) {
            let noon = Timestamp(rfc3339: "\(d)T12:00:00+00:00")!
            let offset = timeZone.secondsFromGMT(for: noon.date)
            return Timestamp(date: noon.date.addingTimeInterval(-Double(offset)), timeZone: timeZone)
        }
        return nil
    }

    /// `yyyy-mm-ddThh:mm[:ss]` (or with a space) read in `timeZone`.
    static func localTime(_ text: String, timeZone: TimeZone) -> Timestamp? {
        let t = text.trimmingCharacters(in: .whitespaces)
        let parts = t.replacingOccurrences(of: " ", with: "T").split(separator: "T", maxSplits: 1)
        if parts.count == 2, let d = LocalDate(iso: parts[0]) {
            var clock = String(parts[1])
            if clock.count == 5 { clock += ":00" }
            guard clock.count == 8 else { return nil }
            let guess = "\(d)T\(clock)+00:00"
            guard let utc = Timestamp(rfc3339: guess) else { return nil }
            let offset = timeZone.secondsFromGMT(
                for: utc.date.addingTimeInterval(-Double(timeZone.secondsFromGMT(for: utc.date))))
            return Timestamp(date: utc.date.addingTimeInterval(-Double(offset)), timeZone: timeZone)
        }
        return nil
    }

    /// The day `text` names (`day(_:now:timeZone:)`), nil for nil: `--since` and `--until`.
    ///
    /// - Throws: `problem(text)` when `text` names no day.
    public static func day(given text: String?, timeZone: TimeZone) throws(VaultError) -> LocalDate? {
        guard let text else { return nil }
        guard let day = day(text, timeZone: timeZone) else { throw problem(text) }
        return day
    }

    /// The message for a date that could not be read.
    public static func problem(_ text: String) -> VaultError {
        .input(.unreadableDate(text))
    }
}
