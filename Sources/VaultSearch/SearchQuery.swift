import Foundation
import VaultCore

/// What to look for, and where.
///
/// A literal pattern matches a line when the line's `SearchText.key` contains the pattern's
/// (NFC, and case folded when the search ignores case). A regular expression (`isRegex`) is
/// ICU's syntax, matched against the line in NFC.
public struct SearchQuery: Sendable {
    public enum CaseMode: String, Sendable {
        /// Ignores case unless the pattern holds an upper-case letter (as rg's `--smart-case`).
        case smart
        case insensitive
        case sensitive
    }

    public enum Scope: Sendable, Equatable {
        case everything
        case rooms
        case diary
        /// One item, by its path relative to the vault.
        case item(String)
    }

    public var pattern: String
    public var isRegex = false
    public var caseMode = CaseMode.smart
    public var scope = Scope.everything
    /// Only messages of this role (hits in front-matter and diary entries have none and are left out).
    public var role: Role?
    /// Only messages whose header names this author (`author=`), compared in NFC ignoring case;
    /// messages without an author, front-matter and diary entries are left out.
    public var author: String?
    /// Only hits whose day (the message's, the entry's, else the item's `created`) is in this range.
    public var since: LocalDate?
    public var until: LocalDate?
    /// Only items whose front-matter `tags` hold this tag.
    public var tag: String?
    /// Only whether an item has a hit is wanted (`vault search -l`): an item keeps only its
    /// first hit, and the lines after it are checked (UTF-8) but not matched or read further.
    public var firstHitOnly = false

    public init(pattern: String) {
        self.pattern = pattern
    }

    /// An author's name as `author` compares it: NFC, case folded, spaces around it removed.
    static func authorKey(_ name: String) -> String {
        name.trimmingCharacters(in: .whitespaces).precomposedStringWithCanonicalMapping.lowercased()
    }

    /// Whether case is ignored: as asked, or, for `smart`, when the pattern has no upper-case
    /// letter (in a regular expression, the letter of an escape like `\S` does not count).
    public var ignoresCase: Bool {
        switch caseMode {
        case .insensitive: return true
        case .sensitive: return false
        case .smart:
            var escaped = false
            for ch in pattern {
                if isRegex && escaped {
                    escaped = false
                    continue
                }
                if isRegex && ch == "\\" {
                    escaped = true
                    continue
                }
                if ch.isUppercase { return false }
            }
            return true
        }
    }

    /// Throws the error the search would give for this pattern (empty, or an invalid regular
    /// expression, with where it goes wrong), before anything is read.
    public func validate() throws(VaultError) {
        _ = try LineMatcher(self)
    }

    /// Whether the search can use the index: it needs text of three characters or more that
    /// every hit must hold.
    var needle: String { isRegex ? RegexLiteral.required(in: pattern) ?? "" : pattern }
}

/// Finds matches in one line, exactly: the scan's prefilter only proposes lines.
final class LineMatcher: @unchecked Sendable {
    let folding: Bool
    /// The pattern's key (literal search), as scalars.
    let key: [Unicode.Scalar]
    let regex: NSRegularExpression?
    /// Bytes every matching line holds in its key (the literal, or what a regular expression
    /// requires); empty when nothing is known (every line is a candidate).
    let needle: [UInt8]
    /// How the scan looks for `needle` in a file's bytes (NFC ones; others are normalized).
    let mode: NeedleMode
    /// `needle`, to find as it is (`bytes` mode, and in case-folded or normalized text).
    let finder: Finder
    /// `needle`, to find with ASCII letters in either case (`ascii` mode).
    let asciiFinder: Finder?

    /// What text not in NFC could hide from the byte scan, for this pattern.
    let nfcRisk: NFCRisk

    enum NFCRisk {
        /// Nothing: the needle's characters are ASCII (not `K`, `;`, `` ` ``, which NFC makes of
        /// other characters) and nothing folds into them. A line the bytes propose is still
        /// tested in NFC, so a base letter followed by a combining mark is no hit.
        case none
        /// Decomposed Hangul: the needle adds Hangul syllables to the above.
        case hangulJamo
        /// Anything: every piece is surveyed.
        case any
    }

    enum NeedleMode {
        /// As it is: case is not ignored, or the needle holds nothing case folding produces.
        case bytes
        /// In the bytes with ASCII letters lower-cased: an ASCII needle, ignoring case.
        case ascii
        /// In the case-folded bytes.
        case folded
    }

    init(_ query: SearchQuery) throws(VaultError) {
        folding = query.ignoresCase
        if query.pattern.isEmpty { throw VaultError.input(.emptyPattern) }
        if query.isRegex {
            if let problem = RegexLiteral.problem(in: query.pattern) {
                throw VaultError.input(
                    .invalidRegex(
                        pattern: query.pattern, position: problem.position + 1, column: problem.column,
                        reason: problem.reason))
            }
            do {
                regex = try NSRegularExpression(
                    pattern: SearchText.nfc(query.pattern),
                    options: folding ? [.caseInsensitive] : [])
            } catch {
                throw VaultError.input(.rejectedRegex(query.pattern))
            }
            key = []
            needle = Array(SearchText.key(RegexLiteral.required(in: query.pattern) ?? "", folding: folding).utf8)
        } else {
            regex = nil
            let k = SearchText.key(query.pattern, folding: folding)
            key = Array(k.unicodeScalars)
            needle = Array(k.utf8)
        }
        let scalars = String(decoding: needle, as: UTF8.self).unicodeScalars
        if !folding || !scalars.contains(where: { SearchText.foldImages.contains($0.value) }) {
            mode = .bytes
        } else if needle.allSatisfy({ $0 < 0x80 }) {
            mode = .ascii
        } else {
            mode = .folded
        }
        finder = Finder(needle)
        asciiFinder = mode == .ascii ? Finder(needle, ignoringASCIICase: true) : nil
        // Ignoring case changes nothing for a needle in `bytes` mode (Korean text, digits).
        nfcRisk = mode == .bytes ? LineMatcher.risk(of: scalars) : .any
    }

    static func risk(of needle: String.UnicodeScalarView) -> NFCRisk {
        // No needle (a regular expression without a literal): every line is tested anyway.
        if needle.isEmpty { return .any }
        var hangul = false
        for u in needle {
            switch u.value {
            case 0x4B, 0x3B, 0x60: return .any
            case 0..<0x80: continue
            case 0xAC00...0xD7A3: hangul = true
            default: return .any
            }
        }
        return hangul ? .hangulJamo : .none
    }

    /// `matches(in:plain:nfc:)` appended to `spans`: a literal found in the bytes themselves
    /// makes no array of its own.
    func appendMatches(
        in bytes: UnsafeBufferPointer<UInt8>, plain: Bool, nfc: Bool = false, to spans: inout [Range<Int>]
    ) {
        if regex == nil && plain && mode != .folded {
            guard let base = bytes.baseAddress else { return }
            let m = needle.count
            (asciiFinder ?? finder).occurrences(in: base, bytes.count) { at in
                spans.append(at..<(at + m))
                return true
            }
            return
        }
        spans += matches(in: bytes, plain: plain, nfc: nfc)
    }

    /// The byte ranges of every match in the line `bytes` (UTF-8, no line ending), in order.
    /// `plain`: the line is NFC and holds nothing that folds into ASCII (the piece's survey),
    /// so a literal needle in `bytes` or `ascii` mode is found in the bytes themselves.
    /// `nfc`: the line is NFC as it is (a regular expression then runs on the line itself).
    func matches(in bytes: UnsafeBufferPointer<UInt8>, plain: Bool, nfc: Bool = false) -> [Range<Int>] {
        if let regex, nfc || plain {
            return Self.matches(of: regex, inNFC: String(decoding: bytes, as: UTF8.self))
        }
        if regex == nil && plain && mode != .folded {
            var ranges: [Range<Int>] = []
            guard let base = bytes.baseAddress else { return [] }
            (asciiFinder ?? finder).occurrences(in: base, bytes.count) { at in
                ranges.append(at..<(at + needle.count))
                return true
            }
            return ranges
        }
        return matches(in: String(decoding: bytes, as: UTF8.self))
    }

    /// The byte ranges of the matches of `regex` in `line`, which is NFC already: its key for a
    /// regular expression is itself, so no key is built; ICU's UTF-16 offsets are turned into
    /// UTF-8 ones by walking the line once, forwards.
    static func matches(of regex: NSRegularExpression, inNFC line: String) -> [Range<Int>] {
        var found: [NSRange] = []
        regex.enumerateMatches(in: line, range: NSRange(location: 0, length: line.utf16.count)) { result, _, _ in
            if let r = result?.range, r.length > 0 { found.append(r) }
        }
        guard !found.isEmpty else { return [] }
        // UTF-16 offsets in increasing order (starts and ends), mapped to UTF-8 in one pass.
        var ranges: [Range<Int>] = []
        ranges.reserveCapacity(found.count)
        var utf16 = 0
        var utf8 = 0
        var scalars = line.unicodeScalars.makeIterator()
        func advance(to offset: Int) -> Int {
            while utf16 < offset, let scalar = scalars.next() {
                utf16 += scalar.utf16.count
                utf8 += UTF8.width(scalar)
            }
            return utf8
        }
        for r in found {
            let start = advance(to: r.location)
            ranges.append(start..<advance(to: r.location + r.length))
        }
        return ranges
    }

    /// The byte ranges (in `line`, UTF-8) of every match, in order; empty when none.
    func matches(in line: String) -> [Range<Int>] {
        let mapped = MappedKey(line, folding: regex == nil && folding)
        if let regex {
            let text = String(String.UnicodeScalarView(mapped.scalars))
            var found: [NSRange] = []
            regex.enumerateMatches(in: text, range: NSRange(location: 0, length: text.utf16.count)) { result, _, _ in
                if let r = result?.range, r.length > 0 { found.append(r) }
            }
            // UTF-16 offsets in increasing order, turned into scalar indices in one pass.
            var scalar = 0
            var utf16 = 0
            func advance(to offset: Int) -> Int {
                while utf16 < offset && scalar < mapped.scalars.count {
                    utf16 += mapped.scalars[scalar].utf16.count
                    scalar += 1
                }
                return scalar
            }
            return found.map { r in
                let start = advance(to: r.location)
                return mapped.original(start..<advance(to: r.location + r.length))
            }
        }
        var ranges: [Range<Int>] = []
        let s = mapped.scalars
        guard !key.isEmpty, s.count >= key.count else { return [] }
        var i = 0
        while i + key.count <= s.count {
            if s[i] == key[0] && s[i..<(i + key.count)].elementsEqual(key) {
                ranges.append(mapped.original(i..<(i + key.count)))
                i += key.count
            } else {
                i += 1
            }
        }
        return ranges
    }
}

/// A line's key (NFC, case folded when asked) as scalars, each with the UTF-8 range of the
/// line it came from, so a match in the key maps back to the line as it is in the file.
struct MappedKey {
    var scalars: [Unicode.Scalar] = []
    var origin: [Range<Int>] = []

    init(_ line: String, folding: Bool) {
        scalars.reserveCapacity(line.utf8.count)
        var offset = 0
        let stable = !line.unicodeScalars.contains { SearchText.isUnstable($0.value) }
        if stable {
            for scalar in line.unicodeScalars {
                let width = UTF8.width(scalar)
                append(scalar, folding: folding, from: offset..<(offset + width))
                offset += width
            }
        } else {
            // NFC composes within a character (a base and its marks, a syllable's jamo): one
            // character at a time, each keeping the bytes it came from.
            for character in line {
                let width = character.utf8.count
                let nfc = SearchText.nfc(String(character)).unicodeScalars
                append(nfc, folding: folding, from: offset..<(offset + width))
                offset += width
            }
        }
    }

    private mutating func append(_ text: String.UnicodeScalarView, folding: Bool, from range: Range<Int>) {
        for scalar in text { append(scalar, folding: folding, from: range) }
    }

    private mutating func append(_ scalar: Unicode.Scalar, folding: Bool, from range: Range<Int>) {
        let v = scalar.value
        if !folding || v < 0x41 || (v > 0x5A && v < 0x80) {
            scalars.append(scalar)
            origin.append(range)
        } else if v <= 0x5A {
            scalars.append(Unicode.Scalar(UInt8(v + 32)))
            origin.append(range)
        } else {
            var folded = String.UnicodeScalarView()
            SearchText.appendFolded(scalar, to: &folded)
            for f in folded {
                scalars.append(f)
                origin.append(range)
            }
        }
    }

    /// The line's bytes that the key's scalars `range` came from.
    func original(_ range: Range<Int>) -> Range<Int> {
        guard !range.isEmpty else {
            let at =
                range.lowerBound < origin.count
                ? origin[range.lowerBound].lowerBound : (origin.last?.upperBound ?? 0)
            return at..<at
        }
        return origin[range.lowerBound].lowerBound..<origin[range.upperBound - 1].upperBound
    }
}

/// What can be learnt from a regular expression without running it: the literal text every
/// match holds (to find candidate lines fast, and to use the index), and the first problem
/// in its syntax, with its position (ICU's error says only that the pattern is invalid).
enum RegexLiteral {
    struct Problem {
        /// Position of the problem (0-based, in characters).
        var position: Int
        /// Column on a terminal (characters before it, wide ones counting 2).
        var column: Int
        var reason: String
    }

    /// The longest run of literal characters that every match holds, or nil when none is
    /// certain (an alternation at the top level, or no literal at all).
    static func required(in pattern: String) -> String? {
        let chars = Array(pattern)
        var runs: [String] = []
        var current = ""
        var depth = 0
        var i = 0
        func cut() {
            if !current.isEmpty { runs.append(current) }
            current = ""
        }
        while i < chars.count {
            let c = chars[i]
            let next: Character? = i + 1 < chars.count ? chars[i + 1] : nil
            let optional = next == "?" || next == "*" || next == "{"
            switch c {
            case "\\":
                guard let e = next else { return nil }
                let literal: Character? =
                    e.isLetter || e.isNumber ? nil : e  // \w, \d, \b, \1 … are not literal text
                let after: Character? = i + 2 < chars.count ? chars[i + 2] : nil
                if depth == 0, let literal, after != "?", after != "*", after != "{" {
                    current.append(literal)
                    if after == "+" { cut() }
                } else {
                    cut()
                }
                i += 2
                continue
            case "|" where depth == 0:
                return nil
            case "(":
                depth += 1
                cut()
            case ")":
                depth -= 1
                cut()
            case "[":
                cut()
                // Skip the class.
                var j = i + 1
                if j < chars.count && chars[j] == "^" { j += 1 }
                if j < chars.count && chars[j] == "]" { j += 1 }
                while j < chars.count && chars[j] != "]" {
                    if chars[j] == "\\" { j += 1 }
                    j += 1
                }
                i = j + 1
                continue
            case ".", "^", "$", "?", "*", "+", "{", "}":
                cut()
            default:
                if depth == 0 && !optional {
                    current.append(c)
                    if next == "+" { cut() }
                } else {
                    cut()
                }
            }
            i += 1
        }
        cut()
        return runs.max { $0.unicodeScalars.count < $1.unicodeScalars.count }
    }

    /// The first structural problem of `pattern`: an unclosed or unopened group or class, a
    /// trailing backslash, a repetition of nothing, a bad `{m,n}`.
    static func problem(in pattern: String) -> Problem? {
        let chars = Array(pattern)
        var open: [Int] = []
        var canRepeat = false
        var i = 0
        func problem(_ at: Int, _ reason: String) -> Problem {
            let column = chars[..<at].reduce(0) { $0 + (($1.unicodeScalars.first?.properties.isIdeographic ?? false)
                || ($1.unicodeScalars.first.map { (0xAC00...0xD7A3).contains($0.value) } ?? false) ? 2 : 1) }
            return Problem(position: at, column: column, reason: reason)
        }
        while i < chars.count {
            let c = chars[i]
            switch c {
            case "\\":
                if i + 1 >= chars.count { return problem(i, "a backslash ends the pattern (write \\\\ for one)") }
                i += 2
                canRepeat = true
                continue
            case "(":
                open.append(i)
                canRepeat = false
                if i + 1 < chars.count && chars[i + 1] == "?" { i += 1 }
            case ")":
                if open.isEmpty { return problem(i, "')' closes no group") }
                open.removeLast()
                canRepeat = true
            case "[":
                var j = i + 1
                if j < chars.count && chars[j] == "^" { j += 1 }
                if j < chars.count && chars[j] == "]" { j += 1 }
                var depth = 1
                while j < chars.count && depth > 0 {
                    if chars[j] == "\\" {
                        j += 2
                        continue
                    }
                    if chars[j] == "[" { depth += 1 }
                    if chars[j] == "]" { depth -= 1 }
                    j += 1
                }
                if depth > 0 { return problem(i, "'[' opens a class that is never closed with ']'") }
                i = j
                canRepeat = true
                continue
            case "*", "+", "?":
                if !canRepeat { return problem(i, "'\(c)' repeats nothing") }
                // A lazy or possessive suffix may follow once.
                if i + 1 < chars.count && (chars[i + 1] == "?" || chars[i + 1] == "+") { i += 1 }
                canRepeat = false
            case "{":
                guard let close = chars[i...].firstIndex(of: "}") else {
                    canRepeat = true
                    break
                }
                let inside = String(chars[(i + 1)..<close])
                let parts = inside.split(separator: ",", omittingEmptySubsequences: false)
                let numbers = parts.count <= 2 && parts.allSatisfy { $0.isEmpty || Int($0) != nil } && !parts[0].isEmpty
                if numbers {
                    if !canRepeat { return problem(i, "'{' repeats nothing") }
                    if parts.count == 2, let lo = Int(parts[0]), let hi = Int(parts[1]), hi < lo {
                        return problem(i, "{\(inside)}: the maximum is below the minimum")
                    }
                    i = close + 1
                    canRepeat = false
                    continue
                }
                canRepeat = true
            case "|":
                canRepeat = false
            default:
                canRepeat = true
            }
            i += 1
        }
        if let unclosed = open.last { return problem(unclosed, "'(' opens a group that is never closed with ')'") }
        return nil
    }
}
