import Foundation

/// A key `vault room set` stores in a room's front-matter, with the type its value must have.
///
/// Every key here is used: `title` and `created` name and date the room, `provider`, `model`,
/// `system`, `context_messages`, `context_tokens` and `vision` shape a turn, and the sampling keys
/// (`temperature`, `top_p`, `max_tokens`, `presence_penalty`, `frequency_penalty`, `seed`, `stop`)
/// are sent to the server with every request (`ChatRequest.Sampling`). `room set` stores no other
/// key: a typo is refused with the nearest key, instead of being stored and ignored. Keys a person
/// wrote by hand are kept untouched (FORMAT.md, "Front-matter keys").
///
///     try RoomSetting.checked("temprature", "0.7")
///     // 'temprature' is not a room setting: did you mean 'temperature'? …
public struct RoomSetting: Sendable, Hashable {
    /// The type of a setting's value.
    public enum Kind: Sendable, Hashable {
        /// Any text (a title may not be blank).
        case text(blankAllowed: Bool)
        /// One word without spaces: a model or provider name.
        case name
        /// A whole number of at least 1.
        case count
        /// Any whole number.
        case integer
        /// A number in the range (inclusive).
        case number(ClosedRange<Double>)
        /// `yes` or `no` (`true`/`false`, `on`/`off`).
        case flag
        /// A date or time in any form of FORMAT.md's *Dates in front-matter*.
        case date
    }

    public let key: String
    public let kind: Kind
    /// What it does, in a few words (for `vault room set --help`).
    public let meaning: String

    /// Every key `room set` stores, in the order FORMAT.md lists them.
    public static let all: [RoomSetting] = [
        RoomSetting(key: "title", kind: .text(blankAllowed: false), meaning: "the room's title"),
        RoomSetting(key: "created", kind: .date, meaning: "when the room was made"),
        RoomSetting(key: "provider", kind: .name, meaning: "provider name"),
        RoomSetting(key: "model", kind: .name, meaning: "model name"),
        RoomSetting(key: "system", kind: .text(blankAllowed: true), meaning: "system prompt"),
        RoomSetting(key: "context_messages", kind: .count, meaning: "most recent messages sent"),
        RoomSetting(key: "context_tokens", kind: .count, meaning: "about this many tokens sent"),
        RoomSetting(key: "vision", kind: .flag, meaning: "send images to the model"),
        RoomSetting(key: "temperature", kind: .number(0...2), meaning: "sampling temperature"),
        RoomSetting(key: "top_p", kind: .number(0...1), meaning: "nucleus sampling"),
        RoomSetting(key: "max_tokens", kind: .count, meaning: "longest reply, in tokens"),
        RoomSetting(key: "presence_penalty", kind: .number(-2...2), meaning: "penalty for topics used"),
        RoomSetting(key: "frequency_penalty", kind: .number(-2...2), meaning: "penalty for repeated words"),
        RoomSetting(key: "seed", kind: .integer, meaning: "seed for repeatable sampling"),
        RoomSetting(key: "stop", kind: .text(blankAllowed: false), meaning: "text that ends the reply"),
    ]

    /// The setting named `key`, if `room set` knows it.
    public static func named(_ key: String) -> RoomSetting? { all.first { $0.key == key } }

    /// The known key nearest to `key` by edit distance, when it is near enough to be a typo.
    public static func nearest(to key: String) -> String? {
        NearestName.nearest(to: key.lowercased(), among: all.map(\.key))
    }

    /// `value` checked for `key`, as it is to be stored (trimmed of surrounding spaces, except
    /// text, which is stored as given).
    ///
    /// - Throws: `VaultError.input(.unknownSetting)` for a key `room set` does not store (with the
    ///   nearest known key), `.invalidSettingValue` for a value of the wrong type or range.
    ///
    /// A date setting (`created`) also takes the date words of the command line (`yesterday`,
    /// `-3`, `2026-11-21T09:30`; `DateArgument`), read in `timeZone` and stored as front-matter
    /// dates are written: `2026-11-20`, `2026-11-21T09:30:00+09:00`.
    public static func checked(_ key: String, _ value: String, timeZone: TimeZone? = nil, now: Date = Date())
        throws(VaultError) -> String
    {
        guard let setting = named(key) else {
            throw VaultError.input(.unknownSetting(key, nearest: nearest(to: key)))
        }
        if case .date = setting.kind, let timeZone, setting.problem(with: value) != nil {
            let word = value.trimmingCharacters(in: .whitespaces)
            if let time = DateArgument.localTime(word, timeZone: timeZone) { return time.text }
            if let day = DateArgument.day(word, now: now, timeZone: timeZone) { return day.description }
        }
        if let expected = setting.problem(with: value) {
            throw VaultError.input(.invalidSettingValue(key: key, value: value, expected: expected))
        }
        if case .text = setting.kind { return value }
        return value.trimmingCharacters(in: .whitespaces)
    }

    /// What a right value looks like, when `value` is not one; nil when it is.
    public func problem(with value: String) -> String? {
        let word = value.trimmingCharacters(in: .whitespaces)
        switch kind {
        case .text(let blankAllowed):
            return blankAllowed || !word.isEmpty ? nil : "write some text"
        case .name:
            let plain = !word.isEmpty && !word.unicodeScalars.contains { $0.properties.isWhitespace || $0.value < 32 }
            return plain ? nil : "write a name without spaces, e.g. gpt-4o-mini or llama3.1:8b"
        case .count:
            guard let n = Int(word), n >= 1 else { return "write a whole number of at least 1, e.g. 20" }
            return nil
        case .integer:
            return Int(word) == nil ? "write a whole number, e.g. 42" : nil
        case .number(let range):
            guard let x = Double(word), x.isFinite, range.contains(x) else {
                let (low, high) = (RoomSetting.text(range.lowerBound), RoomSetting.text(range.upperBound))
                return "write a number from \(low) to \(high)"
            }
            return nil
        case .flag:
            return RoomSetting.flag(word) == nil ? "write yes or no" : nil
        case .date:
            return Timestamp(frontMatter: word) == nil && LocalDate(iso: word) == nil
                ? "write a date or time, e.g. 2026-11-21 or 2026-11-21T09:30:00+09:00" : nil
        }
    }

    /// Whether the value is a number or a yes/no, written plain in YAML (`temperature: 0.7`).
    public var isTyped: Bool {
        switch kind {
        case .count, .integer, .number, .flag: return true
        case .text, .name, .date: return false
        }
    }

    /// `yes`, `true`, `on` → true; `no`, `false`, `off` → false (any case); else nil.
    public static func flag(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "yes", "true", "on": return true
        case "no", "false", "off": return false
        default: return nil
        }
    }

    static func text(_ x: Double) -> String { x == x.rounded() ? String(Int(x)) : String(x) }
}
