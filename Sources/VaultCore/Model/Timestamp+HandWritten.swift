extension Timestamp {
    /// Reads a front-matter date or time in any of the forms people and other tools write
    /// (FORMAT.md, "Front-matter"), keeping the text as written.
    ///
    /// Message headers are strict RFC 3339 (`init(rfc3339:)`); a front-matter `created` or
    /// `updated` comes from Obsidian, Jekyll, Hugo or a person's fingers, so it is read in all
    /// of these forms:
    ///
    ///     2025-08-15                            a bare date (Obsidian, Hugo, Jekyll)
    ///     2025-08-15T10:30, 2025-08-15 10:30    a local time, with or without seconds
    ///     2025-08-15T10:30:00.250               … and a fraction
    ///     2025-08-15 10:30:00 +0900             Jekyll
    ///     2025-08-15 10:30:00 -0700 MST         Go's time.String (Hugo templates)
    ///     2025-08-15T10:30:00+09:00, …Z, …+0900, …+09   RFC 3339 and ISO 8601
    ///
    /// A form without an offset has `hasOffset == false`: its day is the date written, and its
    /// instant is taken as if in UTC. The text is never rewritten: `text` gives it back byte
    /// for byte.
    ///
    /// - Returns: nil when the text is none of these (`yesterday`, `2025-02-30`, `15.08.2025`).
    public init?(frontMatter text: some StringProtocol) {
        let s = String(text)
        if let strict = Timestamp(rfc3339: s) {
            self = strict
            return
        }
        guard let parsed = Array(s.utf8).withUnsafeBufferPointer({ Timestamp.parseHandWritten($0) }) else { return nil }
        self.init(seconds: parsed.seconds, offset: parsed.offset ?? 0, hasOffset: parsed.offset != nil, text: s)
    }

    /// The instant (as if UTC when there is no offset) and the offset, or nil.
    static func parseHandWritten(_ b: UnsafeBufferPointer<UInt8>) -> (seconds: Double, offset: Int?)? {
        var i = 0
        let n = b.count
        func isDigit(_ k: Int) -> Bool { k < n && b[k] >= 48 && b[k] <= 57 }
        /// `width` digits at `i` (which moves past them), or nil.
        func number(_ width: Int) -> Int? {
            var value = 0
            for _ in 0..<width {
                guard isDigit(i) else { return nil }
                value = value * 10 + Int(b[i] - 48)
                i += 1
            }
            return value
        }
        func take(_ c: UInt8) -> Bool {
            guard i < n, b[i] == c else { return false }
            i += 1
            return true
        }
        guard let year = number(4), take(UInt8(ascii: "-")), let month = number(2), take(UInt8(ascii: "-")),
            let day = number(2), (1...12).contains(month), day >= 1, day <= LocalDate.daysIn(month: month, year: year)
        else { return nil }
        let midnight = Double(LocalDate.daysSince1970(year: year, month: month, day: day)) * 86400
        if i == n { return (midnight, nil) }
        // The time: `T`, `t` or one space, then hh:mm[:ss[.fraction]].
        guard take(UInt8(ascii: "T")) || take(UInt8(ascii: "t")) || take(32) else { return nil }
        guard let hour = number(2), take(UInt8(ascii: ":")), let minute = number(2), hour < 24, minute < 60 else {
            return nil
        }
        var second = 0
        var fraction = 0.0
        if take(UInt8(ascii: ":")) {
            guard let s = number(2), s <= 60 else { return nil }
            second = min(s, 59)
            if take(UInt8(ascii: ".")) {
                var scale = 0.1
                let start = i
                while isDigit(i) {
                    fraction += Double(b[i] - 48) * scale
                    scale /= 10
                    i += 1
                }
                guard i > start, i - start <= 9 else { return nil }
            }
        }
        let local = midnight + Double(hour * 3600 + minute * 60 + second) + fraction
        if i == n { return (local, nil) }
        // The zone: after one optional space, `Z`, or ±hh, ±hhmm, ±hh:mm (then, after a numeric
        // offset, an optional abbreviation such as `MST`, which the offset already says).
        _ = take(32)
        if take(UInt8(ascii: "Z")) || take(UInt8(ascii: "z")) {
            return i == n ? (local, 0) : nil
        }
        guard i < n, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") else { return nil }
        let sign = b[i] == UInt8(ascii: "-") ? -1 : 1
        i += 1
        guard let oh = number(2), oh < 24 else { return nil }
        var om = 0
        if i < n && b[i] != 32 {
            _ = take(UInt8(ascii: ":"))
            guard let m = number(2), m < 60 else { return nil }
            om = m
        }
        if take(32) {
            let start = i
            while i < n, b[i] >= UInt8(ascii: "A"), b[i] <= UInt8(ascii: "Z") { i += 1 }
            guard i - start >= 1, i - start <= 5 else { return nil }
        }
        guard i == n else { return nil }
        let offset = sign * (oh * 3600 + om * 60)
        return (local - Double(offset), offset)
    }
}
