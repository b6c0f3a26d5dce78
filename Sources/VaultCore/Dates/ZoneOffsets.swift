import Foundation

/// A time zone's offset from UTC at instants, asked of ICU once per UTC day instead of once per
/// instant (`TimeZone.secondsFromGMT(for:)` costs about a microsecond, and a search can show
/// tens of thousands of messages' times).
///
/// A day's offset is taken at its first and last second: when they agree, the zone did not
/// change its offset that day (a zone never changes it twice within a day and back), so every
/// instant of the day has it; a day with a change asks ICU for each instant. Not thread-safe:
/// one per thread.
public final class ZoneOffsets {
    public let zone: TimeZone
    /// By UTC day (days since 1970): the day's offset, or nil when it changes within the day.
    private var byDay: [Int64: Int?] = [:]
    /// The last day asked for with one offset all day, and that offset (no hashing for the
    /// instants of one day in a row).
    private var last: (day: Int64, offset: Int) = (.min, 0)

    public init(_ zone: TimeZone) {
        self.zone = zone
    }

    /// The offset in seconds at `seconds` since 1970.
    public func offset(at seconds: Int64) -> Int {
        let day = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        if day == last.day { return last.offset }
        if let known = byDay[day] {
            guard let offset = known else { return zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(seconds))) }
            last = (day, offset)
            return offset
        }
        let first = zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(day * 86_400)))
        let end = zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(day * 86_400 + 86_399)))
        byDay[day] = first == end ? first : nil
        guard first == end else { return zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(seconds))) }
        last = (day, first)
        return first
    }
}
