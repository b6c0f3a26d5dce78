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
                    return e > start ? b.string(start..<e) : nil
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
        let rest = String(decoding: UnsafeBufferPointer(rebasing: b[v..<first.upperBound]), as: UTF8.self)
        let more = lines.dropFirst()
        let moreContent = more.filter { b.trimmedEnd($0.lowerBound, $0.upperBound) > $0.lowerBound }
        let restTrimmed = trimTrailingBlanks(rest)

        if restTrimmed.isEmpty || restTrimmed.hasPrefix("#") {
            if moreContent.isEmpty { return .string("") }
            return blockList(b, moreContent)
        }
        if restTrimmed == "|" || restTrimmed == "|-" {
            return literalBlock(b, Array(more), keep: restTrimmed == "|")
        }
        guard moreContent.isEmpty else { return nil }  // multi-line plain scalars: leave to YAML
        if restTrimmed.hasPrefix("[") {
            return flowList(restTrimmed)
        }
        return scalar(restTrimmed).map { .string($0) }
    }

    static func trimTrailingBlanks(_ s: String) -> String {
        var t = Substring(s)
        while let l = t.last, l == " " || l == "\t" { t = t.dropLast() }
        return String(t)
    }

    /// A scalar on one line: quoted, or plain with an optional ` # comment`.
    static func scalar(_ text: String) -> String? {
        guard let c = text.utf8.first else { return "" }
        if c == UInt8(ascii: "\"") { return doubleQuoted(text) }
        if c == UInt8(ascii: "'") { return singleQuoted(text) }
        return plain(text)
    }

    static func plain(_ text: String) -> String? {
        var value = Substring(text)
        if let hash = value.utf8Find(" #") { value = value[..<hash] }
        while let l = value.last, l == " " || l == "\t" { value = value.dropLast() }
        guard isSafePlain(value) else { return nil }
        return String(value)
    }

    /// True when `s` reads back as exactly this string from a plain YAML scalar on one line.
    static func isSafePlain(_ s: Substring) -> Bool {
        guard let first = s.utf8.first else { return false }
        if isIndicator(first) {
            // "-x", "?x", ":x" are plain when not followed by a space; keep it simple and refuse.
            return false
        }
        if s.utf8Find(": ") != nil || s.hasSuffix(":") || s.utf8Find(" #") != nil || s.utf8.contains(9) { return false }
        if let last = s.last, last == " " { return false }
        return true
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
                    guard let code = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(code) else { return nil }
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

    static func flowList(_ text: String) -> FrontMatterValue? {
        var t = Substring(text)
        if let hash = t.utf8Find(" #"), t[..<hash].hasSuffix("]") { t = t[..<hash] }
        while let l = t.last, l == " " { t = t.dropLast() }
        guard t.hasPrefix("["), t.hasSuffix("]") else { return nil }
        let inner = t.dropFirst().dropLast()
        if inner.contains(where: { "[]{}\"'#".contains($0) }) { return nil }
        if inner.allSatisfy({ $0 == " " }) { return .list([]) }
        var items: [String] = []
        for part in inner.split(separator: ",", omittingEmptySubsequences: false) {
            var item = part
            while item.first == " " { item = item.dropFirst() }
            while item.last == " " { item = item.dropLast() }
            guard isSafePlain(item), !item.utf8.contains(UInt8(ascii: ":")) else { return nil }
            items.append(String(item))
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
            let text = trimTrailingBlanks(b.string(v..<line.upperBound))
            guard let item = scalar(text), !item.isEmpty || text.isEmpty else { return nil }
            items.append(item)
        }
        return .list(items)
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
