import Foundation

/// Changes one front-matter key by rewriting only that key's lines.
///
/// The new value is written in the plainest YAML that reads back as exactly
/// that value (plain, double-quoted, or a `|` block), and the result is parsed
/// again before it is returned, so a change can never leave a file the
/// parser rejects or a value that reads back differently.
package enum FrontMatterEditor {
    /// The bytes with `key` set to `value`, or removed when `value` is `nil`.
    ///
    /// - Parameter typed: the value is a number or a yes/no of a typed setting (`temperature:
    ///   0.7`, `vision: no`): written plain, so that YAML reads it as the number it is, where a text
    ///   that looks like one is quoted.
    package static func setting(
        _ key: String, to value: FrontMatterValue?, in bytes: [UInt8], frontMatter: FrontMatter?, path: String,
        lineEnding: LineEnding, typed: Bool = false
    ) throws(VaultError) -> [UInt8] {
        guard !key.isEmpty, FastYAML.isSafePlain(Substring(key)),
            key.utf8.allSatisfy({ $0 > 32 && $0 != UInt8(ascii: ":") && $0 != UInt8(ascii: "#") })
        else { throw VaultError.input(.invalidKey(key)) }
        let eol = lineEnding.rawValue
        let rendered =
            value.map { v in
                if typed, case .string(let s) = v, !s.isEmpty, FastYAML.isSafePlain(Substring(s)),
                    s.unicodeScalars.allSatisfy(isPrintable)
                {
                    return "\(key): \(s)" + eol
                }
                return render(key: key, value: v).map { $0 + eol }.joined()
            } ?? ""
        if let fm = frontMatter, fm.lacksOpening {
            // Rewritten, the block would be read as the body's text by other programs: the
            // person puts the `---` back first (`vault check` says where).
            throw VaultError.malformed([FormatProblem(path: path, line: 1, kind: .noOpeningFrontMatter)])
        }
        var out: [UInt8]
        if let fm = frontMatter {
            if let entry = fm.entries.first(where: { $0.key == key }) {
                // A list changed by adding and removing items keeps its style (a block list a
                // block list, each item's quotes and comments), when that reads back right.
                if case .list(let new)? = value, case .list(let old)? = fm.values[key],
                    let patched = patchingList(String(decoding: bytes[entry.range], as: UTF8.self), from: old, to: new, eol: eol)
                {
                    let candidate = Array(bytes[..<entry.range.lowerBound]) + Array(patched.utf8)
                        + Array(bytes[entry.range.upperBound...])
                    let reread = try? candidate.withUnsafeBufferPointer { b throws(FormatProblemList) in
                        try FrontMatter.parse(b, from: candidate.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0, path: path)
                    }
                    if reread?.values[key] == value { return candidate }
                }
                out =
                    Array(bytes[..<entry.range.lowerBound]) + Array(rendered.utf8)
                    + Array(bytes[entry.range.upperBound...])
            } else if fm.values[key] != nil {
                throw VaultError.input(.keyNotRewritable(path: path, key: key))
            } else if value == nil {
                return bytes
            } else {
                out = Array(bytes[..<fm.closingLineStart]) + Array(rendered.utf8) + Array(bytes[fm.closingLineStart...])
            }
        } else {
            guard value != nil else { return bytes }
            let start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
            out = Array(bytes[..<start]) + Array(("---" + eol + rendered + "---" + eol).utf8) + Array(bytes[start...])
        }
        // Read it back: the change must parse and give the value asked for.
        let check: FrontMatter?
        do {
            check = try out.withUnsafeBufferPointer { b throws(FormatProblemList) in
                try FrontMatter.parse(b, from: out.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0, path: path)
            }
        } catch {
            throw VaultError.malformed(error.problems)
        }
        guard check?.values[key] == value else {
            throw VaultError.input(.valueNotWritable(path: path, key: key))
        }
        return out
    }

    /// A list key's lines (`text`, as written) changed from `old` to `new` in place, when `new`
    /// is `old` less some items plus some at its end: a block list (`tags:` then `  - 출장`
    /// lines) loses the removed items' lines and gets a line for each added one, indented as
    /// its last item; a flow list on one line (`tags: [a, "b"]  # note`) keeps the kept items
    /// as written. Anything else (a single string, a list over several flow lines, nothing left)
    /// is nil: written anew by `render`.
    static func patchingList(_ text: String, from old: [String], to new: [String], eol: String) -> String? {
        let removed = Set(old).subtracting(new)
        let kept = old.filter { !removed.contains($0) }
        guard !new.isEmpty, Array(new.prefix(kept.count)) == kept else { return nil }
        let added = new.dropFirst(kept.count)
        var lines = text.components(separatedBy: eol)
        if lines.last == "" { lines.removeLast() }
        guard let first = lines.first, let colon = first.firstIndex(of: ":") else { return nil }
        let rest = first[first.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        if rest.isEmpty || rest.hasPrefix("#") {
            // A block list: every other line an item (`- x`), a comment or blank.
            var out = [first]
            var indent: String?
            var lastItem = 0
            for line in lines.dropFirst() {
                let trimmed = line.drop { $0 == " " }
                if trimmed.hasPrefix("- ") || trimmed == "-" {
                    indent = String(line.prefix(line.count - trimmed.count))
                    if let value = plainItem(trimmed.dropFirst(1)), removed.contains(value) { continue }
                    out.append(line)
                    lastItem = out.count
                } else if trimmed.isEmpty || trimmed.hasPrefix("#") {
                    out.append(line)
                } else {
                    return nil
                }
            }
            guard let indent else { return nil }
            if lastItem == 0 { lastItem = 1 }
            out.insert(contentsOf: added.map { indent + "- " + scalar($0) }, at: lastItem)
            return out.map { $0 + eol }.joined()
        }
        // A flow list on one line.
        guard lines.count == 1, rest.hasPrefix("["), let close = rest.lastIndex(of: "]") else { return nil }
        let after = rest[rest.index(after: close)...]
        guard after.trimmingCharacters(in: .whitespaces).isEmpty || after.trimmingCharacters(in: .whitespaces).hasPrefix("#")
        else { return nil }
        let inside = rest[rest.index(after: rest.startIndex)..<close]
        guard !inside.contains(where: { "[]{}".contains($0) }) else { return nil }
        var items = inside.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        items.removeAll { item in plainItem(Substring(item)).map(removed.contains) ?? false }
        items += added.map(scalar)
        let key = first[..<colon]
        return "\(key): [\(items.joined(separator: ", "))]\(after)" + eol
    }

    /// An item as written (after `- `, or between a flow list's commas) as its value: plain or
    /// quoted, a comment after it left out; nil when it is more than that.
    private static func plainItem(_ raw: Substring) -> String? {
        var text = raw.trimmingCharacters(in: .whitespaces)
        if let hash = text.range(of: " #") { text = String(text[..<hash.lowerBound]).trimmingCharacters(in: .whitespaces) }
        if text.count >= 2, let q = text.first, q == "\"" || q == "'", text.last == q {
            let inner = String(text.dropFirst().dropLast())
            return q == "'" ? inner.replacingOccurrences(of: "''", with: "'") : (inner.contains("\\") ? nil : inner)
        }
        return text
    }

    /// The YAML lines (without line endings) that write `key: value`.
    package static func render(key: String, value: FrontMatterValue) -> [String] {
        switch value {
        case .string(let s):
            if s.utf8.contains(10) {
                if let block = literalBlock(s) { return ["\(key): \(block.indicator)"] + block.lines }
                return ["\(key): \(doubleQuoted(s))"]
            }
            return ["\(key): \(scalar(s))"]
        case .list(let items):
            if items.allSatisfy({ isPlainWritable($0) && !$0.contains(where: { ",[]{}:".contains($0) }) }) {
                return ["\(key): [\(items.joined(separator: ", "))]"]
            }
            return ["\(key):"] + items.map { "  - \(scalar($0))" }
        case .other(let yaml):
            return ["\(key):"] + yaml.split(separator: "\n").map { "  " + $0 }
        }
    }

    static func scalar(_ s: String) -> String {
        isPlainWritable(s) ? s : doubleQuoted(s)
    }

    /// Plain, and not a word that YAML 1.1 tools read as a boolean, null or number.
    static func isPlainWritable(_ s: String) -> Bool {
        guard !s.isEmpty, FastYAML.isSafePlain(Substring(s)), !s.utf8.contains(13) else { return false }
        let reserved: Set<String> = ["y", "yes", "n", "no", "true", "false", "on", "off", "null", "~"]
        if reserved.contains(s.lowercased()) { return false }
        if Double(s) != nil || s.hasPrefix("0x") || s.hasPrefix("0o") { return false }
        return s.unicodeScalars.allSatisfy(isPrintable)
    }

    /// Whether YAML takes `scalar` as it is, as text: not a control character (C0, DEL, C1),
    /// not a line break YAML knows besides line feed (NEL, LS, PS), not a byte-order mark nor
    /// U+FFFE/U+FFFF. Anything else is written escaped (`\uXXXX`), or YAML refuses the file or
    /// reads another value (found by fuzzing: `Fuzz/regressions/writer`).
    static func isPrintable(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x20...0x7E, 0xA0...0x2027, 0x202A...0xD7FF, 0xE000...0xFEFE, 0xFF00...0xFFFD, 0x10000...: return true
        default: return false
        }
    }

    static func doubleQuoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            case "\0": out += "\\0"
            default:
                if !isPrintable(scalar) {
                    out += "\\u" + String(format: "%04X", scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// A `|` or `|-` block for text that reads back exactly, or `nil` when one cannot.
    static func literalBlock(_ s: String) -> (indicator: String, lines: [String])? {
        var text = Substring(s)
        let keep = text.hasSuffix("\n")
        if keep { text = text.dropLast() }
        if text.hasSuffix("\n") || text.isEmpty { return nil }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        for line in lines {
            if line.utf8.contains(13) || line.utf8.contains(9) { return nil }
            if !line.isEmpty && line.utf8.allSatisfy({ $0 == 32 }) { return nil }
            if !line.unicodeScalars.allSatisfy(isPrintable) { return nil }
        }
        // YAML takes the indentation from the first non-empty line: it must not start with a space.
        // (Bytes, not characters: a space and a combining mark after it are one character; fuzzing.)
        if lines.first(where: { !$0.isEmpty })?.utf8.first == 32 { return nil }
        return (keep ? "|" : "|-", lines.map { $0.isEmpty ? "" : "  " + $0 })
    }
}
