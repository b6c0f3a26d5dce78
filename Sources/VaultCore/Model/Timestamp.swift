import Foundation

/// An RFC 3339 time with its UTC offset, kept exactly as written.
///
/// The offset matters: a diary entry written at 23:40 in Los Angeles belongs to
/// that day there, whatever day it already is in Seoul. `Timestamp` therefore
/// keeps the instant *and* the offset, and its `text` is the original spelling,
/// so a file that is read and written again keeps the same bytes.
///
///     let t = try Timestamp(parsing: "2026-11-21T09:31:07+09:00")
///     t.utcOffsetSeconds   // 32400
///     t.localDate          // 2026-11-21
public struct Timestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The instant, in seconds since 1970-01-01T00:00:00Z.
    public let secondsSince1970: Double
    /// The offset from UTC the time was written in, in seconds.
    public let utcOffsetSeconds: Int
    /// The text as written, when it is not the canonical `yyyy-mm-ddThh:mm:ss±hh:mm` spelling
    /// (which `text` recomputes, so reading a room does not allocate a string per header).
    private let writtenText: String?
    /// False for a date or time written without an offset (`2025-08-15`, `2025-08-15 10:30`:
    /// `init(frontMatter:)`): its day and clock time are as written, and its instant is taken
    /// as if it were UTC (`utcOffsetSeconds` is 0), which is right to within a day, for sorting.
    public let hasOffset: Bool

    /// The text as written.
    public var text: String { writtenText ?? Timestamp.canonicalText(secondsSince1970, utcOffsetSeconds) }

    static func canonicalText(_ seconds: Double, _ offset: Int) -> String {
        let local = CivilTime(secondsSince1970: Int64(seconds.rounded(.down)) + Int64(offset))
        let magnitude = abs(offset)
        // yyyy-mm-ddThh:mm:ss±hh:mm, written digit by digit (String(format:) is slow on Linux).
        var out = [UInt8](repeating: 0, count: 25)
        func put(_ value: Int, _ at: Int, _ width: Int) {
            var v = value
            for k in stride(from: at + width - 1, through: at, by: -1) {
                out[k] = UInt8(48 + v % 10)
                v /= 10
            }
        }
        put(local.year, 0, 4)
        out[4] = UInt8(ascii: "-")
        put(local.month, 5, 2)
        out[7] = UInt8(ascii: "-")
        put(local.day, 8, 2)
        out[10] = UInt8(ascii: "T")
        put(local.hour, 11, 2)
        out[13] = UInt8(ascii: ":")
        put(local.minute, 14, 2)
        out[16] = UInt8(ascii: ":")
        put(local.second, 17, 2)
        out[19] = offset < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+")
        put(magnitude / 3600, 20, 2)
        out[22] = UInt8(ascii: ":")
        put((magnitude % 3600) / 60, 23, 2)
        return String(decoding: out, as: UTF8.self)
    }

    public var date: Date { Date(timeIntervalSince1970: secondsSince1970) }
    public var description: String { text }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        lhs.secondsSince1970 < rhs.secondsSince1970
    }

    public static func == (lhs: Timestamp, rhs: Timestamp) -> Bool { lhs.text == rhs.text }
    public func hash(into hasher: inout Hasher) { hasher.combine(text) }

    /// Parses `yyyy-mm-ddThh:mm:ss[.fraction](Z|±hh:mm)`; `nil` when it is not that.
    public init?(rfc3339 text: some StringProtocol) {
        let s = String(text)
        guard let parsed = Array(s.utf8).withUnsafeBufferPointer({ Timestamp.parse($0) }) else { return nil }
        self.secondsSince1970 = parsed.seconds
        self.utcOffsetSeconds = parsed.offset
        self.writtenText = parsed.canonical ? nil : s
        self.hasOffset = true
    }

    /// A timestamp of the hand-written forms (`Timestamp+HandWritten.swift`).
    init(seconds: Double, offset: Int, hasOffset: Bool, text: String) {
        self.secondsSince1970 = seconds
        self.utcOffsetSeconds = offset
        self.hasOffset = hasOffset
        self.writtenText = text
    }

    /// A timestamp from bytes that `parse` accepted.
    init(parsed: Parsed, bytes: UnsafeBufferPointer<UInt8>) {
        self.secondsSince1970 = parsed.seconds
        self.utcOffsetSeconds = parsed.offset
        self.writtenText = parsed.canonical ? nil : String(decoding: bytes, as: UTF8.self)
        self.hasOffset = true
    }

    /// Makes the timestamp of `date` in `timeZone`, to the second, with a numeric offset.
    public init(date: Date, timeZone: TimeZone) {
        let whole = date.timeIntervalSince1970.rounded(.down)
        self.init(wholeSeconds: whole, offset: timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: whole)))
    }

    /// The instant `date` in `zone`, its offset from `offsets` (a cache: no ICU call per instant).
    public init(date: Date, in offsets: ZoneOffsets) {
        let whole = date.timeIntervalSince1970.rounded(.down)
        self.init(wholeSeconds: whole, offset: offsets.offset(at: Int64(whole)))
    }

    private init(wholeSeconds: Double, offset: Int) {
        self.secondsSince1970 = wholeSeconds
        self.utcOffsetSeconds = offset
        self.writtenText = nil
        self.hasOffset = true
    }

    /// The calendar day in the timestamp's own offset.
    public var localDate: LocalDate {
        let civil = CivilTime(secondsSince1970: Int64(secondsSince1970.rounded(.down)) + Int64(utcOffsetSeconds))
        return LocalDate(year: civil.year, month: civil.month, day: civil.day)
    }

    /// A fixed-offset time zone equal to the timestamp's offset.
    public var timeZone: TimeZone { TimeZone(secondsFromGMT: utcOffsetSeconds) ?? TimeZone(identifier: "UTC")! }

    typealias Parsed = (seconds: Double, offset: Int, canonical: Bool)

    static func parse(_ b: UnsafeBufferPointer<UInt8>) -> Parsed? {
        // Fixed positions: 0123-56-89T12:45:78
        let n = b.count
        guard n >= 20 else { return nil }
        let s = b.startIndex
        func digit(_ i: Int) -> Int? {
            let c = b[s + i]
            return c >= 48 && c <= 57 ? Int(c - 48) : nil
        }
        func number(_ i: Int, _ width: Int) -> Int? {
            var value = 0
            for k in i..<(i + width) {
                guard let d = digit(k) else { return nil }
                value = value * 10 + d
            }
            return value
        }
        var canonical = b[s + 10] == UInt8(ascii: "T")
        guard b[s + 4] == UInt8(ascii: "-"), b[s + 7] == UInt8(ascii: "-"),
            canonical || b[s + 10] == UInt8(ascii: "t"),
            b[s + 13] == UInt8(ascii: ":"), b[s + 16] == UInt8(ascii: ":"),
            let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
            let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2)
        else { return nil }
        guard (1...12).contains(month), day >= 1, day <= LocalDate.daysIn(month: month, year: year),
            hour < 24, minute < 60, second <= 60
        else { return nil }
        var i = 19
        var fraction = 0.0
        if b[s + i] == UInt8(ascii: ".") {
            canonical = false
            i += 1
            var scale = 0.1
            let start = i
            while i < n, let d = digit(i) {
                fraction += Double(d) * scale
                scale /= 10
                i += 1
            }
            guard i > start, i - start <= 9, i < n else { return nil }
        }
        var offset = 0
        let c = b[s + i]
        if c == UInt8(ascii: "Z") || c == UInt8(ascii: "z") {
            canonical = false
            guard i + 1 == n else { return nil }
        } else if c == UInt8(ascii: "+") || c == UInt8(ascii: "-") {
            guard i + 6 == n, b[s + i + 3] == UInt8(ascii: ":"),
                let oh = number(i + 1, 2), let om = number(i + 4, 2), oh < 24, om < 60
            else { return nil }
            offset = (oh * 3600 + om * 60) * (c == UInt8(ascii: "-") ? -1 : 1)
            if offset == 0 && c == UInt8(ascii: "-") { canonical = false }
        } else {
            return nil
        }
        let days = LocalDate.daysSince1970(year: year, month: month, day: day)
        if second == 60 { canonical = false }
        let local = Int64(days) * 86400 + Int64(hour * 3600 + minute * 60 + min(second, 59))
        return (Double(local - Int64(offset)) + fraction, offset, canonical)
    }
}

/// A calendar day with no time and no zone: the day a diary entry belongs to.
public struct LocalDate: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public var year: Int
    public var month: Int
    public var day: Int

    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// Parses `yyyy-mm-dd`; `nil` for anything else or an impossible day.
    public init?(iso text: some StringProtocol) {
        let b = Array(text.utf8)
        guard let day = b.withUnsafeBufferPointer({ LocalDate(isoBytes: $0) }) else { return nil }
        self = day
    }

    /// The day written `yyyy-mm-dd` in exactly the bytes `b`.
    public init?(isoBytes b: UnsafeBufferPointer<UInt8>) {
        guard b.count == 10, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-") else { return nil }
        func number(_ r: Range<Int>) -> Int? {
            var v = 0
            for i in r {
                guard b[i] >= 48, b[i] <= 57 else { return nil }
                v = v * 10 + Int(b[i] - 48)
            }
            return v
        }
        guard let y = number(0..<4), let m = number(5..<7), let d = number(8..<10),
            (1...12).contains(m), d >= 1, d <= LocalDate.daysIn(month: m, year: y)
        else { return nil }
        self.init(year: y, month: m, day: d)
    }

    /// `yyyy-mm-dd`, written digit by digit (`String(format:)` is slow on Linux, and a search's
    /// JSON writes one for each hit). Years outside 0...9999 as `String(format:)` wrote them.
    public var description: String {
        guard (0...9999).contains(year), (1...12).contains(month), (1...31).contains(day) else {
            return String(format: "%04d-%02d-%02d", year, month, day)
        }
        let digits: [UInt8] = [
            UInt8(48 + year / 1000), UInt8(48 + year / 100 % 10), UInt8(48 + year / 10 % 10), UInt8(48 + year % 10),
            UInt8(ascii: "-"), UInt8(48 + month / 10), UInt8(48 + month % 10),
            UInt8(ascii: "-"), UInt8(48 + day / 10), UInt8(48 + day % 10),
        ]
        return String(decoding: digits, as: UTF8.self)
    }

    /// Encoded as `yyyy-mm-dd`.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }

    public init(from decoder: Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let d = LocalDate(iso: text) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "not yyyy-mm-dd: \(text)"))
        }
        self = d
    }

    public static func < (a: LocalDate, b: LocalDate) -> Bool {
        (a.year, a.month, a.day) < (b.year, b.month, b.day)
    }

    /// Noon UTC of the day: a safe instant to format the day in any zone near it.
    public var noonUTC: Date {
        Date(timeIntervalSince1970: Double(LocalDate.daysSince1970(year: year, month: month, day: day)) * 86400 + 43200)
    }

    /// The day `n` days later (earlier when negative).
    public func adding(days n: Int) -> LocalDate {
        let c = CivilTime(
            secondsSince1970: Int64(LocalDate.daysSince1970(year: year, month: month, day: day) + n) * 86400)
        return LocalDate(year: c.year, month: c.month, day: c.day)
    }

    static func isLeap(_ y: Int) -> Bool { (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// The day's number: days from 1970-01-01 (negative before).
    public var daysSince1970: Int { Self.daysSince1970(year: year, month: month, day: day) }

    /// The day numbered `days` from 1970-01-01.
    public init(daysSince1970 days: Int) {
        let c = CivilTime(secondsSince1970: Int64(days) * 86400)
        self.init(year: c.year, month: c.month, day: c.day)
    }

    /// Days from 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's days_from_civil).
    static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }
}

/// Broken-down time of a count of seconds (the inverse of `daysSince1970`).
struct CivilTime {
    var year, month, day, hour, minute, second: Int

    init(secondsSince1970 s: Int64) {
        var days = Int(s / 86400)
        var rest = Int(s % 86400)
        if rest < 0 {
            rest += 86400
            days -= 1
        }
        hour = rest / 3600
        minute = (rest % 3600) / 60
        second = rest % 60
        let z = days + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        day = doy - (153 * mp + 2) / 5 + 1
        month = mp < 10 ? mp + 3 : mp - 9
        year = yoe + era * 400 + (month <= 2 ? 1 : 0)
    }
}
