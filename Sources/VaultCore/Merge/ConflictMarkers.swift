#if canImport(Glibc)
import Glibc
#endif

/// Conflict markers that `git merge` without vault's driver leaves in a file.
///
/// A conflict block is a `<<<<<<< ` line, ours' lines, optionally a `||||||| ` line and base's lines
/// (git's `diff3` and `zdiff3` styles), a `=======` line, theirs' lines and a `>>>>>>> ` line.
/// Marker lines that do not form such a block (a lone `=======` under a Markdown heading, say)
/// are text.
///
///     if let (_, ours, theirs) = ConflictMarkers.split(bytes) {
///         let merged = try Merge.room(base: nil, ours: ours, theirs: theirs, path: path, newer: .theirs)
///     }
package enum ConflictMarkers {
    /// 1-based lines of `<<<<<<< `, `|||||||`, `=======`, `>>>>>>> ` marker lines, only when they form a
    /// complete conflict block (a start, a separator, an end, in order); empty when the file has none.
    package static func lines(in bytes: [UInt8]) -> [Int] {
        blocks(TextLines(bytes)).flatMap { block in
            [block.start, block.base, block.separator, block.end].compactMap { $0.map { $0 + 1 } }
        }
    }

    /// The two (or three, with diff3's `|||||||` section) versions a marked file stands for: every conflict
    /// block replaced by its ours part, by its theirs part, and (when every block has a base section) by
    /// its base part. nil when the file has no complete conflict block.
    package static func split(_ bytes: [UInt8]) -> (base: [UInt8]?, ours: [UInt8], theirs: [UInt8])? {
        let lines = TextLines(bytes)
        let found = blocks(lines)
        guard !found.isEmpty else { return nil }
        var ours: [UInt8] = []
        var theirs: [UInt8] = []
        var base: [UInt8]? = found.allSatisfy { $0.base != nil } ? [] : nil
        var at = 0
        for block in found {
            let common = lines.bytes(at..<block.start)
            ours += common
            theirs += common
            base? += common
            ours += lines.bytes((block.start + 1)..<(block.base ?? block.separator))
            if let b = block.base { base? += lines.bytes((b + 1)..<block.separator) }
            theirs += lines.bytes((block.separator + 1)..<block.end)
            at = block.end + 1
        }
        let rest = lines.bytes(at..<lines.count)
        ours += rest
        theirs += rest
        base? += rest
        return (base, ours, theirs)
    }

    /// A complete block's marker lines (0-based).
    struct Block {
        var start: Int
        var base: Int?
        var separator: Int
        var end: Int
    }

    enum Marker {
        case start, base, separator, end
    }

    /// Which marker a line is: seven marker characters, then the end of the line or (for all but
    /// `=======`) a space and a label.
    static func marker(_ line: ArraySlice<UInt8>) -> Marker? {
        line.withUnsafeBufferPointer { marker($0, 0, $0.count) }
    }

    /// Which marker the line `start..<end` of `b` is (line ending included or not), if any.
    static func marker(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Marker? {
        var end = end
        while end > start, b[end - 1] == 10 || b[end - 1] == 13 { end -= 1 }
        guard end - start >= 7 else { return nil }
        let c = b[start]
        for i in (start + 1)..<(start + 7) where b[i] != c { return nil }
        let labelled = end - start == 7 || b[start + 7] == 32
        switch c {
        case UInt8(ascii: "<"): return labelled ? .start : nil
        case UInt8(ascii: "|"): return labelled ? .base : nil
        case UInt8(ascii: ">"): return labelled ? .end : nil
        case UInt8(ascii: "="):
            for i in (start + 7)..<end where b[i] != 32 && b[i] != 9 { return nil }
            return .separator
        default: return nil
        }
    }

    /// The complete conflict blocks, in order. A start marker inside an unfinished block starts the
    /// block again; markers out of order leave the block unfinished.
    static func blocks(_ lines: TextLines) -> [Block] {
        var found: [Block] = []
        var start: Int?
        var base: Int?
        var separator: Int?
        for i in 0..<lines.count {
            guard let kind = marker(lines[i]) else { continue }
            switch kind {
            case .start:
                start = i
                base = nil
                separator = nil
            case .base:
                if start != nil, base == nil, separator == nil { base = i }
            case .separator:
                if start != nil, separator == nil { separator = i }
            case .end:
                if let s = start, let sep = separator {
                    found.append(Block(start: s, base: base, separator: sep, end: i))
                }
                start = nil
                base = nil
                separator = nil
            }
        }
        return found
    }
}

extension ConflictMarkers {
    /// The problem `vault check` reports for a file with conflict markers, at the first marker's line.
    package static func problem(in bytes: [UInt8], path: String) -> FormatProblem? {
        guard mayContain(bytes), let first = lines(in: bytes).first else { return nil }
        return FormatProblem(path: path, line: first, kind: .conflictMarkers)
    }

    /// Whether `bytes` hold a line starting `<<<<<<<` at all (a fast scan: most files do not).
    static func mayContain(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { b in
            guard let base = b.baseAddress, b.count >= 7 else { return false }
            var i = 0
            while i <= b.count - 7 {
                guard let hit = memchr(base + i, Int32(UInt8(ascii: "<")), b.count - 7 - i + 1) else { return false }
                let at = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                if at == 0 || b[at - 1] == 10, (1..<7).allSatisfy({ b[at + $0] == UInt8(ascii: "<") }) { return true }
                i = at + 1
            }
            return false
        }
    }
}
