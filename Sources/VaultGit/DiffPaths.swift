import Foundation

/// Paths in a diff's header lines as text: libgit2, like git with `core.quotePath`, writes a
/// path with bytes past ASCII in C quotes with octal escapes
/// (`"a/rooms/\353\266\200\354\202\260.md"`), which no person reads as `부산`.
///
/// A quoted path is written plain when it decodes to UTF-8 with no control character, quote or
/// backslash (which stay quoted, as git writes them); the file's lines are never touched.
///
///     DiffPaths.readable(#"--- "a/rooms/\353\266\200\354\202\260.md""#)   // --- a/rooms/부산.md
enum DiffPaths {
    /// `diff` with the quoted paths of its header lines (`diff --git`, `---`, `+++`) decoded.
    static func readable(_ diff: String) -> String {
        guard diff.contains("\"") else { return diff }
        var lines = diff.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for i in lines.indices {
            let line = lines[i]
            if line.hasPrefix("@@") { break }
            guard line.hasPrefix("diff --git ") || line.hasPrefix("--- ") || line.hasPrefix("+++ ") else { continue }
            lines[i] = unquotingPaths(in: line)
        }
        return lines.joined(separator: "\n")
    }

    /// `line` with each `"…"` that decodes to a plain UTF-8 path written without quotes.
    static func unquotingPaths(in line: String) -> String {
        var out = ""
        var rest = Substring(line)
        while let open = rest.firstIndex(of: "\"") {
            out += rest[..<open]
            let body = rest[rest.index(after: open)...]
            guard let (decoded, end) = decode(body) else {
                out += rest[open...]
                return out
            }
            let quoted = rest[open...end]
            let plain = decoded.unicodeScalars.allSatisfy {
                $0.value >= 0x20 && $0.value != 0x7F && $0 != "\"" && $0 != "\\"
            }
            out += plain ? decoded : String(quoted)
            rest = rest[rest.index(after: end)...]
        }
        return out + rest
    }

    /// The text of a C-quoted string whose opening quote is just before `body`, and the index of
    /// its closing quote; nil when it is not closed or not UTF-8.
    static func decode(_ body: Substring) -> (String, String.Index)? {
        var bytes: [UInt8] = []
        var i = body.startIndex
        let escapes: [Character: UInt8] = [
            "n": 10, "t": 9, "r": 13, "a": 7, "b": 8, "f": 12, "v": 11, "\"": 34, "\\": 92,
        ]
        while i < body.endIndex {
            let c = body[i]
            if c == "\"" {
                guard let text = String(validating: bytes, as: UTF8.self) else { return nil }
                return (text, i)
            }
            if c == "\\" {
                i = body.index(after: i)
                guard i < body.endIndex else { return nil }
                let e = body[i]
                if let octal = e.wholeNumberValue, octal < 8 {
                    var value = 0
                    var count = 0
                    while i < body.endIndex, count < 3, let d = body[i].wholeNumberValue, d < 8 {
                        value = value * 8 + d
                        count += 1
                        i = body.index(after: i)
                    }
                    guard value < 256 else { return nil }
                    bytes.append(UInt8(value))
                    continue
                }
                guard let byte = escapes[e] else { return nil }
                bytes.append(byte)
            } else {
                bytes.append(contentsOf: Array(String(c).utf8))
            }
            i = body.index(after: i)
        }
        return nil
    }
}
