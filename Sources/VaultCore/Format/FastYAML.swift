/// A reader for the small, safe subset of YAML that front-matter nearly always is.
///
/// It accepts, for one top-level key:
/// - `key: plain scalar` (optionally followed by ` # comment`),
/// - `key: "double quoted"` and `key: 'single quoted'`,
/// - `key: |` / `key: |-` followed by indented lines,
/// - `key: [a, b, c]` with plain items,
/// - `key:` followed by `  - item` lines with plain or quoted items,
/// - `key:` with nothing (an empty string).
///
/// Whatever it does not recognise makes it answer `nil`; the caller then
/// lets Yams read the whole block. It never accepts text that YAML would
/// read differently (that is the only rule that matters here).
enum FastYAML {
    /// The key of a top-level `key:` line (`start..<end` without trailing blanks), or `nil`.
    static func key(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> String? {
        let first = b[start]
        guard !isIndicator(first) else { return nil }
        var i = start
        while i < end {
            let c = b[i]
            if c == UInt8(ascii: ":") {
                if i + 1 == end || b[i + 1] == 32 {
                    var e = i
                    while e > start, b[e - 1] == 32 { e -= 1 }
                    // YAML takes a key of 1,024 characters at most without `?` (fuzzing found longer ones read).
                    guard e > start, b.string(start..<i).unicodeScalars.count <= 1024 else { return nil }
                    return b.string(start..<e)
                }
            } else if c == UInt8(ascii: "#") && i > start && b[i - 1] == 32 {
                return nil
            } else if c == 9 || c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") {
                return nil
            }
            i += 1
        }
        return nil
    }

    /// Whether `range` of `b` holds a character YAML reads differently from this line reader:
    /// a tab in a line's indentation, a carriage return not followed by a line feed, NEL, LS or
    /// PS (YAML line breaks), a
    /// byte-order mark (dropped by YAML), or a character YAML does not allow at all (C0 and C1
    /// controls other than tab, line feed and carriage return; DEL; U+FFFE, U+FFFF). Such a
    /// block is left to Yams, which reads it as YAML does or names the line it refuses.
    /// Found by fuzzing (`Fuzz/regressions/room`).
    static func needsYAML(_ b: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        var i = range.lowerBound
        let end = range.upperBound
        // Only spaces and tabs since the line began: a tab there is indentation, which YAML
        // refuses (even on a line of nothing else), and this reader would skip.
        var lineStart = true
        while i < end {
            let c = b[i]
            if c == 0x09 && lineStart { return true }
            if c == 0x0A {
                lineStart = true
                i += 1
                continue
            }
            if c != 0x20 && c != 0x09 { lineStart = false }
            if c >= 0x20 && c < 0x7F || c == 0x09 {
                i += 1
                continue
            }
            if c == 0x0D {
                if i + 1 < end && b[i + 1] == 0x0A {
                    lineStart = true
                    i += 2
                    continue
                }
                return true
            }
            if c < 0x20 || c == 0x7F { return true }
            // Multi-byte (valid UTF-8, checked before): C2 80–9F, E2 80 A8/A9, EF BB BF, EF BF BE/BF.
            let next = i + 1 < end ? b[i + 1] : 0
            let third = i + 2 < end ? b[i + 2] : 0
            if c == 0xC2 && next >= 0x80 && next <= 0x9F { return true }
            if c == 0xE2 && next == 0x80 && (third == 0xA8 || third == 0xA9) { return true }
            if c == 0xEF && next == 0xBB && third == 0xBF { return true }
            if c == 0xEF && next == 0xBF && (third == 0xBE || third == 0xBF) { return true }
            i += 1
        }
        return false
    }

    static func isIndicator(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "-"), UInt8(ascii: "?"), UInt8(ascii: ":"), UInt8(ascii: ","), UInt8(ascii: "["),
            UInt8(ascii: "]"), UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "#"), UInt8(ascii: "&"),
            UInt8(ascii: "*"), UInt8(ascii: "!"), UInt8(ascii: "|"), UInt8(ascii: ">"), UInt8(ascii: "'"),
            UInt8(ascii: "\""), UInt8(ascii: "%"), UInt8(ascii: "@"), UInt8(ascii: "`"), 32, 9:
            return true
        default:
            return false
        }
    }

    /// The value of one entry, given its lines (first is `key: …`), or `nil` when outside the subset.
    ///
    /// Works on bytes: front-matter is read for every file of a listing, and `Character`
    /// operations (grapheme breaking) would cost more than the rest of the parse.
    static func value(_ b: UnsafeBufferPointer<UInt8>, lines: [Range<Int>]) -> FrontMatterValue? {
        let first = lines[0]
        // Find the ": " or final ":" that ends the key (the key has no quotes or '#').
        var colon = first.lowerBound
        while colon < first.upperBound {
            if b[colon] == UInt8(ascii: ":"), colon + 1 == first.upperBound || b[colon + 1] == 32 { break }
            colon += 1
        }
        var v = colon + 1
        while v < first.upperBound, b[v] == 32 { v += 1 }
        let end = b.trimmedEnd(v, first.upperBound)
        let more = lines.dropFirst()
        let hasMoreContent = more.contains { b.trimmedEnd($0.lowerBound, $0.upperBound) > $0.lowerBound }

        if v == end || b[v] == UInt8(ascii: "#") {
            if !hasMoreContent { return .string("") }
            return blockList(b, more.filter { b.trimmedEnd($0.lowerBound, $0.upperBound) > $0.lowerBound })
        }
        if b[v] == UInt8(ascii: "|") && (end == v + 1 || (end == v + 2 && b[v + 1] == UInt8(ascii: "-"))) {
            return literalBlock(b, Array(more), keep: end == v + 1)
        }
        guard !hasMoreContent else { return nil }  // multi-line plain scalars: leave to YAML
        if b[v] == UInt8(ascii: "[") {
            return flowList(b, v, end)
        }
        return scalar(b, v, end).map { .string($0) }
    }

    /// A scalar on one line (`start..<end`, no trailing blanks): quoted, or plain with an optional ` # comment`.
    static func scalar(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> String? {
        guard start < end else { return "" }
        switch b[start] {
        case UInt8(ascii: "\""):
            // No escapes and the closing quote last: the common case, read directly.
            if let close = (start + 1..<end).first(where: {
                b[$0] == UInt8(ascii: "\"") || b[$0] == UInt8(ascii: "\\")
            }),
                b[close] == UInt8(ascii: "\""), isEmptyOrComment(b, close + 1, end)
            {
                return b.string((start + 1)..<close)
            }
            return doubleQuoted(b.string(start..<end))
        case UInt8(ascii: "'"):
            return singleQuoted(b.string(start..<end))
        default:
            var e = end
            var i = start
            while i + 1 < end {
                if b[i] == 32 && b[i + 1] == UInt8(ascii: "#") {
                    e = b.trimmedEnd(start, i)
                    break
                }
                i += 1
            }
            return isSafePlain(b, start, e) ? b.string(start..<e) : nil
        }
    }

    /// Nothing, or only a ` # comment`, in `start..<end`.
    static func isEmptyOrComment(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Bool {
        start == end || (b[start] == 32 && b.trimmedEnd(start, end) > start
            && b[(start..<end).first { b[$0] != 32 && b[$0] != 9 }!] == UInt8(ascii: "#"))
    }

    /// True when `start..<end` reads back as exactly these bytes from a plain YAML scalar on one line.
    static func isSafePlain(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Bool {
        guard start < end, !isIndicator(b[start]), b[end - 1] != 32, b[end - 1] != UInt8(ascii: ":") else {
            return false
        }
        for i in start..<end {
            let c = b[i]
            if c == 9 || c < 32 && c != 9 { return false }
            if i + 1 < end {
                if c == UInt8(ascii: ":") && b[i + 1] == 32 { return false }
                if c == 32 && b[i + 1] == UInt8(ascii: "#") { return false }
            }
        }
        return true
    }

    static func isSafePlain(_ s: Substring) -> Bool {
        var copy = String(s)
        return copy.withUTF8 { isSafePlain($0, 0, $0.count) }
    }

    static func trimTrailingBlanks(_ s: String) -> String {
        var t = Substring(s)
        while let l = t.last, l == " " || l == "\t" { t = t.dropLast() }
        return String(t)
    }

    static func doubleQuoted(_ text: String) -> String? {
        var out = ""
        var it = text.unicodeScalars.dropFirst().makeIterator()
        var closed = false
        while let c = it.next() {
            if c == "\"" {
                closed = true
                break
            }
            if c == "\\" {
                guard let e = it.next() else { return nil }
                switch e {
                case "\\": out += "\\"
                case "\"": out += "\""
                case "/": out += "/"
                case "n": out += "\n"
                case "t", "\t": out += "\t"
                case "r": out += "\r"
                case "0": out += "\0"
                case " ": out += " "
                case "u":
                    var hex = ""
                    for _ in 0..<4 { guard let h = it.next() else { return nil }; hex.unicodeScalars.append(h) }
                    // Four hex digits exactly (`UInt32(_:radix:)` takes a sign too: "\u+00e" was read; fuzzing).
                    guard hex.unicodeScalars.allSatisfy(\.properties.isASCIIHexDigit),
                        let code = UInt32(hex, radix: 16),
                        let scalar = Unicode.Scalar(code)
                    else { return nil }
                    out.unicodeScalars.append(scalar)
                default: return nil
                }
            } else {
                out.unicodeScalars.append(c)
            }
        }
        guard closed else { return nil }
        var tail = ""
        while let c = it.next() { tail.unicodeScalars.append(c) }
        let t = tail.trimmingBlanks
        guard t.isEmpty || (t.hasPrefix("#") && tail.hasPrefix(" ")) else { return nil }
        return out
    }

    static func singleQuoted(_ text: String) -> String? {
        var out = ""
        var chars = Substring(text).dropFirst()
        while let c = chars.first {
            chars = chars.dropFirst()
            if c == "'" {
                if chars.first == "'" {
                    out.append("'")
                    chars = chars.dropFirst()
                    continue
                }
                let t = String(chars).trimmingBlanks
                guard t.isEmpty || (t.hasPrefix("#") && chars.first == " ") else { return nil }
                return out
            }
            out.append(c)
        }
        return nil
    }

    static func flowList(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> FrontMatterValue? {
        // "[a, b]" optionally followed by " # comment".
        var close = start + 1
        while close < end, b[close] != UInt8(ascii: "]") {
            switch b[close] {
            case UInt8(ascii: "["), UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "\""), UInt8(ascii: "'"),
                UInt8(ascii: "#"), UInt8(ascii: ":"):
                return nil
            default: close += 1
            }
        }
        guard close < end, isEmptyOrComment(b, close + 1, end) else { return nil }
        var items: [String] = []
        var itemStart = start + 1
        if b.trimmedEnd(itemStart, close) == itemStart && (itemStart..<close).allSatisfy({ b[$0] == 32 }) {
            return .list([])
        }
        for i in (start + 1)...close where i == close || b[i] == UInt8(ascii: ",") {
            var s = itemStart
            while s < i, b[s] == 32 { s += 1 }
            let e = b.trimmedEnd(s, i)
            guard isSafePlain(b, s, e) else { return nil }
            items.append(b.string(s..<e))
            itemStart = i + 1
        }
        return .list(items)
    }

    static func blockList(_ b: UnsafeBufferPointer<UInt8>, _ lines: [Range<Int>]) -> FrontMatterValue? {
        var items: [String] = []
        var indent: Int?
        for line in lines {
            var i = line.lowerBound
            while i < line.upperBound, b[i] == 32 { i += 1 }
            let width = i - line.lowerBound
            if i < line.upperBound, b[i] == UInt8(ascii: "#") { continue }
            guard width > 0, indent == nil || indent == width, i + 1 < line.upperBound,
                b[i] == UInt8(ascii: "-"), b[i + 1] == 32
            else { return nil }
            indent = width
            var v = i + 2
            while v < line.upperBound, b[v] == 32 { v += 1 }
            let end = b.trimmedEnd(v, line.upperBound)
            // An empty item followed by a tab: YAML refuses it (fuzzing); leave it to YAML.
            if end == v, (v..<line.upperBound).contains(where: { b[$0] == 9 }) { return nil }
            guard let item = scalar(b, v, end), !item.isEmpty || end == v else { return nil }
            items.append(item)
        }
        // Only comments below the key: YAML reads an empty value, not an empty list (fuzzing).
        return items.isEmpty ? nil : .list(items)
    }

    /// `|` (keep one final newline) and `|-` (strip it) blocks with a uniform indentation.
    static func literalBlock(_ b: UnsafeBufferPointer<UInt8>, _ lines: [Range<Int>], keep: Bool) -> FrontMatterValue? {
        var indent: Int?
        var out: [String] = []
        for line in lines {
            let end = b.trimmedEnd(line.lowerBound, line.upperBound)
            if end == line.lowerBound {
                // Spaces on an empty line may be content in YAML; leave those to Yams.
                guard line.isEmpty else { return nil }
                out.append("")
                continue
            }
            var i = line.lowerBound
            while i < end, b[i] == 32 { i += 1 }
            if b[i] == 9 { return nil }
            let width = i - line.lowerBound
            if indent == nil { indent = width }
            guard let ind = indent, width >= ind, ind > 0 else { return nil }
            out.append(b.string((line.lowerBound + ind)..<line.upperBound))
        }
        while out.last == "" { out.removeLast() }
        let text = out.joined(separator: "\n")
        return .string(keep && !text.isEmpty ? text + "\n" : text)
    }
}

extension String {
    var trimmingBlanks: String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return String(s)
    }
}

extension Substring {
    /// Index of the first occurrence of an ASCII `pattern`, searched byte by byte.
    func utf8Find(_ pattern: StaticString) -> Index? {
        let p = UnsafeBufferPointer(start: pattern.utf8Start, count: pattern.utf8CodeUnitCount)
        let u = utf8
        var i = u.startIndex
        while i != u.endIndex {
            if u[i] == p[0] {
                var j = u.index(after: i)
                var k = 1
                while k < p.count, j != u.endIndex, u[j] == p[k] {
                    j = u.index(after: j)
                    k += 1
                }
                if k == p.count { return i }
            }
            i = u.index(after: i)
        }
        return nil
    }
}
