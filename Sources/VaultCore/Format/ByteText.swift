#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The line ending a file uses. Lines the tool adds use the file's own.
public enum LineEnding: String, Sendable, Hashable {
    case lf = "\n"
    case crlf = "\r\n"

    var bytes: [UInt8] { self == .lf ? [10] : [13, 10] }

    /// The ending of the first line; `lf` for a file with a single line.
    static func detect(_ b: UnsafeBufferPointer<UInt8>, from start: Int) -> LineEnding {
        guard let nl = b.firstNewline(from: start) else { return .lf }
        return nl > start && b[nl - 1] == 13 ? .crlf : .lf
    }

    /// The line ending of a file's bytes (after a byte-order mark): its first line's.
    static func of(_ bytes: [UInt8]) -> LineEnding {
        bytes.withUnsafeBufferPointer { b in
            detect(b, from: b.count >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF ? 3 : 0)
        }
    }

    /// `bytes` with every line ending written as this one: `\n` → `\r\n`, or `\r\n` → `\n`. A
    /// carriage return that ends no line is kept. For a merge of versions whose line endings differ.
    public func converting(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(self == .crlf ? bytes.count + bytes.count / 16 : bytes.count)
        for (i, byte) in bytes.enumerated() {
            switch (self, byte) {
            case (.crlf, 10) where i == 0 || bytes[i - 1] != 13: out += [13, 10]
            case (.lf, 13) where i + 1 < bytes.count && bytes[i + 1] == 10: continue
            default: out.append(byte)
            }
        }
        return out
    }
}

extension UnsafeBufferPointer where Element == UInt8 {
    /// Index of the next `\n` at or after `from`, found with `memchr`.
    @inline(__always)
    func firstNewline(from: Int) -> Int? {
        guard from < count, let base = baseAddress else { return nil }
        guard let hit = memchr(base + from, 10, count - from) else { return nil }
        return base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
    }

    /// The end of the line's content: before `\r\n` or `\n`, or `end` for the last line.
    @inline(__always)
    func contentEnd(lineStart: Int, newline: Int?) -> Int {
        guard let nl = newline else { return count }
        return nl > lineStart && self[nl - 1] == 13 ? nl - 1 : nl
    }

    /// The end of `start..<end` without trailing spaces, tabs and `\r`.
    @inline(__always)
    func trimmedEnd(_ start: Int, _ end: Int) -> Int {
        var e = end
        while e > start, self[e - 1] == 32 || self[e - 1] == 9 || self[e - 1] == 13 { e -= 1 }
        return e
    }

    func string(_ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: self[range]), as: UTF8.self)
    }

    func hasPrefix(_ prefix: StaticString, at i: Int, end: Int) -> Bool {
        let n = prefix.utf8CodeUnitCount
        guard end - i >= n else { return false }
        let p = prefix.utf8Start
        for k in 0..<n where self[i + k] != p[k] { return false }
        return true
    }

    func hasSuffix(_ suffix: StaticString, start: Int, end: Int) -> Bool {
        let n = suffix.utf8CodeUnitCount
        guard end - start >= n else { return false }
        let p = suffix.utf8Start
        for k in 0..<n where self[end - n + k] != p[k] { return false }
        return true
    }

    /// 1-based line number of byte `offset` (counts the `\n` before it).
    func lineNumber(of offset: Int) -> Int {
        var line = 1
        var i = 0
        while let nl = firstNewline(from: i), nl < offset {
            line += 1
            i = nl + 1
        }
        return line
    }
}

/// UTF-8 validation that reports where the first bad byte is.
package enum UTF8Check {
    /// Offset of the first byte that is not part of valid UTF-8, or `nil` when all is valid.
    package static func firstInvalidByte(_ b: UnsafeBufferPointer<UInt8>) -> Int? {
        isValid(b) ? nil : locateInvalidByte(b)
    }

    // Eight bytes at a time, with 64-bit integer arithmetic ("SIMD within a register").
    // Every lane's high bit (0x80) carries one flag. For each word:
    // - a lead byte (>= C0) requires a continuation byte (10xxxxxx) one lane later, a lead
    //   of three or four bytes (>= E0, >= F0) two and three lanes later too; the lanes that
    //   are continuation bytes must be exactly the lanes that are required, with the
    //   requirements of the previous word's last lanes carried in;
    // - C0, C1 and F5–FF never occur;
    // - the byte after E0 is >= A0, after ED <= 9F (no surrogates), after F0 >= 90, after
    //   F4 <= 8F (nothing above U+10FFFF).
    // That is the whole of UTF-8's well-formedness table. No branch depends on the text,
    // which is what makes Hangul-heavy text (a lead byte every third byte) fast.
    private static let high: UInt64 = 0x8080_8080_8080_8080
    private static let low7: UInt64 = 0x7F7F_7F7F_7F7F_7F7F

    @inline(__always)
    private static func lanes(_ w: UInt64, equalTo v: UInt8) -> UInt64 {
        let x = w ^ (UInt64(v) &* 0x0101_0101_0101_0101)
        return ~(((x & low7) &+ low7) | x) & high
    }

    static func isValid(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = b.baseAddress else { return true }
        let n = b.count
        var i = 0
        var errors: UInt64 = 0
        var carryRequired: UInt64 = 0
        var carryE0: UInt64 = 0, carryED: UInt64 = 0, carryF0: UInt64 = 0, carryF4: UInt64 = 0
        while i < n {
            var w: UInt64
            if i + 8 <= n {
                w = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
            } else {
                // The tail, padded with zero bytes (ASCII): a sequence cut off by the end fails.
                w = 0
                for k in 0..<(n - i) { w |= UInt64(base[i + k]) << (8 * UInt64(k)) }
            }
            i += 8
            if w & high == 0 && carryRequired == 0 { continue }
            let continuation = w & ~(w << 1) & high
            let lead = w & (w << 1) & high
            let lead3 = lead & (w << 2)
            let lead4 = lead3 & (w << 3)
            let required = (lead << 8) | (lead3 << 16) | (lead4 << 24) | carryRequired
            carryRequired = (lead >> 56) | (lead3 >> 48) | (lead4 >> 40)
            errors |= required ^ continuation
            errors |= lanes(w & 0xFEFE_FEFE_FEFE_FEFE, equalTo: 0xC0)
            errors |= ((((w & 0x0F0F_0F0F_0F0F_0F0F) &+ 0x0B0B_0B0B_0B0B_0B0B) & 0x1010_1010_1010_1010) << 3) & lead4
            let e0 = lanes(w, equalTo: 0xE0), ed = lanes(w, equalTo: 0xED)
            let f0 = lanes(w, equalTo: 0xF0), f4 = lanes(w, equalTo: 0xF4)
            let afterE0 = (e0 << 8) | carryE0, afterED = (ed << 8) | carryED
            let afterF0 = (f0 << 8) | carryF0, afterF4 = (f4 << 8) | carryF4
            carryE0 = e0 >> 56
            carryED = ed >> 56
            carryF0 = f0 >> 56
            carryF4 = f4 >> 56
            let bit5 = w << 2, bit4 = w << 3
            errors |= afterE0 & ~bit5
            errors |= afterED & bit5
            errors |= afterF0 & ~(bit5 | bit4)
            errors |= afterF4 & (bit5 | bit4)
        }
        return errors == 0 && carryRequired == 0
    }

    /// The exact, byte-by-byte search for the first invalid byte, used once a file is known to be bad.
    private static func locateInvalidByte(_ b: UnsafeBufferPointer<UInt8>) -> Int? {
        var i = 0
        let n = b.count
        while i < n {
            // Fast path: 8 ASCII bytes at a time.
            if i + 8 <= n {
                let word = UnsafeRawPointer(b.baseAddress! + i).loadUnaligned(as: UInt64.self)
                if word & 0x8080_8080_8080_8080 == 0 {
                    i += 8
                    continue
                }
            }
            let c = b[i]
            if c < 0x80 {
                i += 1
                continue
            }
            // Fast path for the common 3-byte sequences (Hangul, kana, CJK): E1–EC, EE–EF.
            if i + 2 < n, c >= 0xE1, c <= 0xEF, c != 0xED, b[i + 1] & 0xC0 == 0x80, b[i + 2] & 0xC0 == 0x80 {
                i += 3
                continue
            }
            let length: Int
            var low: UInt8 = 0x80
            var high: UInt8 = 0xBF
            switch c {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; high = 0x9F
            case 0xF0: length = 4; low = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; high = 0x8F
            default: return i
            }
            guard i + length <= n else { return i }
            let second = b[i + 1]
            guard second >= low, second <= high else { return i }
            for k in 2..<max(length, 2) where b[i + k] & 0xC0 != 0x80 { return i }
            i += length
        }
        return nil
    }
}
