import Foundation

/// Changes one front-matter key by rewriting only that key's lines.
///
/// The new value is written in the plainest YAML that reads back as exactly
/// that value (plain, double-quoted, or a `|` block), and the result is parsed
/// again before it is returned, so a change can never leave a file the
/// parser rejects or a value that reads back differently.
public enum FrontMatterEditor {
    /// The bytes with `key` set to `value`, or removed when `value` is `nil`.
    ///
    /// - Parameter typed: the value is a number or a yes/no of a typed setting (`temperature:
    ///   0.7`, `vision: no`): written plain, so that YAML reads it as the number it is, where a text
    ///   that looks like one is quoted.
    public static func setting(
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

    /// The YAML lines (without line endings) that write `key: value`.
    public static func render(key: String, value: FrontMatterValue) -> [String] {
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
