import CVaultScan
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Byte-level passes over a file's bytes: the fast part of the scan.
enum TextScan {
    /// The offset of the first byte of `p[0..<n]` that is not valid UTF-8 (an overlong form, a
    /// surrogate, a truncated or stray sequence), or nil when it is all valid. Runs of ASCII are
    /// skipped eight bytes at a time. (Whether text is NFC is `survey`'s question.)
    static func firstInvalidUTF8(_ p: UnsafePointer<UInt8>, _ n: Int) -> Int? {
        var i = 0
        while i < n {
            while i + 8 <= n {
                let word = UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self)
                if word & 0x8080_8080_8080_8080 != 0 { break }
                i += 8
            }
            guard i < n else { break }
            let b0 = p[i]
            if b0 < 0x80 {
                i += 1
            } else if b0 < 0xC2 {
                return i
            } else if b0 < 0xE0 {
                guard i + 1 < n, p[i + 1] & 0xC0 == 0x80 else { return i }
                i += 2
            } else if b0 < 0xF0 {
                guard i + 2 < n, p[i + 1] & 0xC0 == 0x80, p[i + 2] & 0xC0 == 0x80 else { return i }
                if b0 == 0xE0 && p[i + 1] < 0xA0 { return i }  // overlong
                if b0 == 0xED && p[i + 1] >= 0xA0 { return i }  // a surrogate
                i += 3
            } else if b0 < 0xF5 {
                guard i + 3 < n, p[i + 1] & 0xC0 == 0x80, p[i + 2] & 0xC0 == 0x80, p[i + 3] & 0xC0 == 0x80
                else { return i }
                if b0 == 0xF0 && p[i + 1] < 0x90 { return i }
                if b0 == 0xF4 && p[i + 1] >= 0x90 { return i }
                i += 4
            } else {
                return i
            }
        }
        return nil
    }

    /// Whether `p[0..<n]` is valid UTF-8 (`vs_utf8_valid`: 32 bytes at a time).
    static func isValidUTF8(_ p: UnsafePointer<UInt8>, _ n: Int) -> Bool { vs_utf8_valid(p, n) != 0 }

    /// What a quick look at `p[0..<n]` finds: a code point that can make it not NFC, and one
    /// whose case folding holds ASCII (`ß`, `ſ`, `K` (Kelvin), `ﬁ`, …). Eight bytes at a time:
    /// only the lead bytes of such code points (`C3`–`E3`, `EA`, `EF`–`F4`) are looked at
    /// closer, and Hangul syllables (`EA B0`–`ED`) never. Assumes valid UTF-8 (a file with hits
    /// is checked by `firstInvalidUTF8`).
    static func survey(_ p: UnsafePointer<UInt8>, _ n: Int) -> (unstable: Bool, foldsToASCII: Bool) {
        var unstable = false
        var foldsToASCII = false
        let table = SearchText.unstableLow
        return table.withUnsafeBufferPointer { unstableLow in
            func look(_ i: Int) {
                let b0 = p[i]
                guard i + 1 < n else { return }
                var cp: UInt32
                if b0 < 0xE0 {
                    cp = UInt32(b0 & 0x1F) << 6 | UInt32(p[i + 1] & 0x3F)
                } else if b0 < 0xF0 {
                    if b0 == 0xEA && p[i + 1] >= 0xB0 { return }  // Hangul syllables
                    guard i + 2 < n else { return }
                    cp = UInt32(b0 & 0x0F) << 12 | UInt32(p[i + 1] & 0x3F) << 6 | UInt32(p[i + 2] & 0x3F)
                } else {
                    guard i + 3 < n else { return }
                    cp = UInt32(b0 & 0x07) << 18 | UInt32(p[i + 1] & 0x3F) << 12 | UInt32(p[i + 2] & 0x3F) << 6
                        | UInt32(p[i + 3] & 0x3F)
                }
                if cp < 0x30000 {
                    if unstableLow[Int(cp >> 6)] & (1 << UInt64(cp & 63)) != 0 { unstable = true }
                } else if SearchText.isUnstable(cp) {
                    unstable = true
                }
                if SearchText.foldsToASCII(cp) { foldsToASCII = true }
            }
            // The lead bytes of `C3`–`E3`, `EF`–`F4`, or `EA` not followed by `B0`–`BF` (Hangul
            // syllables `가`–`꿯`; `EB`–`ED` are never looked at), found by `vs_next_survey_lead`
            // 32 or 16 bytes at a time.
            var i = 0
            while true {
                i = vs_next_survey_lead(p, i, n)
                guard i < n else { break }
                look(i)
                if unstable && foldsToASCII { return (true, true) }
                i += 1
            }
            return (unstable, foldsToASCII)
        }
    }

    /// Whether `p[0..<n]` holds a conjoining Hangul jamo (U+1100–U+11FF: `E1 84`–`E1 87`), the
    /// only way Hangul syllables are written other than NFC (a Mac's decomposed names and text).
    static func containsConjoiningJamo(_ p: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        var i = 0
        while i < n {
            guard let hit = memchr(p + i, 0xE1, n - i) else { return false }
            let at = UnsafeRawPointer(hit) - UnsafeRawPointer(p)
            if at + 1 < n && p[at + 1] >= 0x84 && p[at + 1] <= 0x87 { return true }
            i = at + 1
        }
        return false
    }

    /// Case folds valid, NFC UTF-8 `p[0..<n]` into `out` (cleared first): ASCII by a table,
    /// code points in cased blocks by `SearchText.appendFolded`, everything else copied. Line
    /// feeds are never added or removed, so line numbers agree with the file's.
    static func fold(_ p: UnsafePointer<UInt8>, _ n: Int, into out: inout [UInt8]) {
        out.removeAll(keepingCapacity: true)
        out.reserveCapacity(n + 16)
        let cased = SearchText.casedBMP
        var i = 0
        while i < n {
            let b0 = p[i]
            if b0 < 0x80 {
                out.append(b0 >= 0x41 && b0 <= 0x5A ? b0 | 0x20 : b0)
                i += 1
                continue
            }
            let width = b0 < 0xE0 ? 2 : b0 < 0xF0 ? 3 : 4
            var cp: UInt32
            switch width {
            case 2: cp = UInt32(b0 & 0x1F) << 6 | UInt32(p[i + 1] & 0x3F)
            case 3: cp = UInt32(b0 & 0x0F) << 12 | UInt32(p[i + 1] & 0x3F) << 6 | UInt32(p[i + 2] & 0x3F)
            default:
                cp = UInt32(b0 & 0x07) << 18 | UInt32(p[i + 1] & 0x3F) << 12 | UInt32(p[i + 2] & 0x3F) << 6
                    | UInt32(p[i + 3] & 0x3F)
            }
            let isCased = cp < 0x10000 ? cased[Int(cp >> 6)] : SearchTables.cased.contains(cp >> 6)
            if isCased, let scalar = Unicode.Scalar(cp) {
                var folded = String.UnicodeScalarView()
                SearchText.appendFolded(scalar, to: &folded)
                for f in folded { out.append(contentsOf: Array(String(f).utf8)) }
            } else {
                for k in 0..<width { out.append(p[i + k]) }
            }
            i += width
        }
    }

    /// The number of line feeds in `p[from..<to]` (`vs_count_byte`).
    static func lineFeeds(_ p: UnsafePointer<UInt8>, from: Int, to: Int) -> Int {
        to > from ? vs_count_byte(p + from, to - from, 0x0A) : 0
    }

    /// The start of the line holding offset `i`.
    static func lineStart(_ p: UnsafePointer<UInt8>, before i: Int, floor: Int = 0) -> Int {
        guard i > floor else { return i }
        let back = vs_last_byte(p + floor, 0x0A, i - floor)
        return back < i - floor ? floor + back + 1 : floor
    }

    /// The end of the line holding offset `i` (its line feed, or `n`).
    static func lineEnd(_ p: UnsafePointer<UInt8>, from i: Int, _ n: Int) -> Int {
        guard i < n, let hit = memchr(p + i, 0x0A, n - i) else { return n }
        return UnsafeRawPointer(hit) - UnsafeRawPointer(p)
    }
}

/// A needle to find in bytes, as `vs_find` looks for it: two of its bytes (the rarest) compared
/// at 32 positions at a time, the whole needle only where both are in place; with
/// `ignoringASCIICase`, ASCII letters match in either case (the needle is lower-case).
final class Finder: @unchecked Sendable {
    private let finder: UnsafeMutablePointer<vs_finder>
    let count: Int

    init(_ needle: [UInt8], ignoringASCIICase: Bool = false) {
        guard let made = needle.withUnsafeBufferPointer({ vs_finder_make($0.baseAddress, $0.count, ignoringASCIICase ? 1 : 0) })
        else { fatalError("out of memory making a finder") }
        finder = made
        count = needle.count
    }

    deinit { vs_finder_free(finder) }

    /// Offsets of every occurrence in `p[0..<n]`, each after the end of the last, until `found`
    /// returns false.
    func occurrences(in p: UnsafePointer<UInt8>, _ n: Int, _ found: (Int) -> Bool) {
        guard count > 0 else { return }
        var next = 0
        while true {
            let at = vs_find(finder, p, next, n)
            guard at < n, found(at) else { return }
            next = at + count
        }
    }

    /// The lines of `p[0..<n]` that hold an occurrence, in order: `found` gets each one's start
    /// and returns whether to go on. After an occurrence the search resumes at the next line,
    /// and a line's start is looked for back to the end of the line before it only, so a line of
    /// any length (one with an occurrence at every byte) is gone through once: linear in `n`.
    func lines(in p: UnsafePointer<UInt8>, _ n: Int, _ found: (Int) -> Bool) {
        guard count > 0 else { return }
        var next = 0
        while true {
            let at = vs_find(finder, p, next, n)
            guard at < n, found(TextScan.lineStart(p, before: at, floor: next)) else { return }
            next = TextScan.lineEnd(p, from: at, n) + 1
            guard next < n else { return }
        }
    }
}
