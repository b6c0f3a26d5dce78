#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Merge {
    /// Any other text file: a three-way line merge; on overlap, ours is kept and `conflictCopy` holds theirs.
    /// Binary files (a NUL byte, or invalid UTF-8): ours kept, theirs as conflictCopy, unless one side equals base.
    ///
    /// Changes that do not overlap are all applied (a change made the same way on both sides once);
    /// changes that overlap or touch make the whole merge a conflict: the result is ours, unchanged,
    /// and theirs is handed back whole. With no base, the same file on both sides merges; different
    /// files are a conflict.
    package static func text(base: [UInt8]?, ours: [UInt8], theirs: [UInt8]) -> FileMerge {
        if ours == theirs || theirs == base { return FileMerge(bytes: ours) }
        if ours == base { return FileMerge(bytes: theirs) }
        guard let base else {
            return FileMerge(bytes: ours, notes: [addedOnBoth], conflictCopy: theirs)
        }
        guard isText(base), isText(ours), isText(theirs) else {
            let note = keptOurs("a binary file changed on both sides")
            return FileMerge(bytes: ours, notes: [note], conflictCopy: theirs)
        }
        let merge = LineMerge(base: base, ours: ours, theirs: theirs)
        if merge.hasConflict {
            return FileMerge(bytes: ours, notes: [overlapped], conflictCopy: theirs)
        }
        return FileMerge(bytes: merge.merged { o, _ in Array(o) })
    }

    /// Diary entries: front-matter key by key, body by a three-way line merge.
    ///
    /// Front-matter keys merge as in a room, except that of two different `updated` times the later
    /// one wins. The heading and body (everything after the front-matter) merge line by line; where
    /// the two sides' changes overlap, the body stays ours' and `conflictCopy` is theirs' whole file.
    /// With no base, the same entry on both sides merges; different entries are a conflict.
    ///
    /// - Throws: `VaultError.malformed` when a version does not parse as a diary entry.
    ///
    /// With `keepingBoth` (folding a conflict copy into its original: there is no copy to hand back),
    /// where the changes overlap both sides' lines are kept, ours first, and the rest merges as usual.
    package static func diaryEntry(
        base: [UInt8]?, ours: [UInt8], theirs: [UInt8], path: String, newer: Newer, keepingBoth: Bool = false
    ) throws(VaultError) -> FileMerge {
        let (base, ours, theirs) = inOneLineEnding(base: base, ours: ours, theirs: theirs, newer: newer)
        let o = try DiaryFile(parsing: ours, path: path)
        let t = try DiaryFile(parsing: theirs, path: path)
        var b: DiaryFile?
        if let base { b = try DiaryFile(parsing: base, path: path) }
        if ours == theirs || theirs == base { return FileMerge(bytes: ours) }
        if ours == base { return FileMerge(bytes: theirs) }
        guard let b else { return FileMerge(bytes: ours, notes: [addedOnBoth], conflictCopy: theirs) }

        let eol = pick(b.lineEnding, o.lineEnding, t.lineEnding, newer: newer)
        let bom = pick(hasByteOrderMark(b.bytes), hasByteOrderMark(ours), hasByteOrderMark(theirs), newer: newer)
        func rest(_ d: DiaryFile) -> [UInt8] {
            Array(d.bytes[(d.frontMatter?.range.upperBound ?? (hasByteOrderMark(d.bytes) ? 3 : 0))...])
        }
        let fm = frontMatter(
            base: FrontMatterParts(b.frontMatter, in: b.bytes, eol: eol),
            ours: FrontMatterParts(o.frontMatter, in: ours, eol: eol),
            theirs: FrontMatterParts(t.frontMatter, in: theirs, eol: eol), newer: newer, eol: eol,
            laterTime: diaryLaterTimeKeys)
        var notes = fm.notes
        var conflictCopy: [UInt8]?
        let text = LineMerge(base: rest(b), ours: rest(o), theirs: rest(t))
        let body: [UInt8]
        if text.hasConflict && keepingBoth {
            body = text.merged { o, t in
                var both = Array(o)
                if let last = both.last, last != 10 { both += eol.bytes }
                return both + Array(t)
            }
            notes.append(keptBoth)
        } else if text.hasConflict {
            body = rest(o)
            notes.append(overlapped)
            conflictCopy = theirs
        } else {
            body = text.merged { o, _ in Array(o) }
        }
        let head = fm.parts.block
        let out = (bom ? [0xEF, 0xBB, 0xBF] : []) + (body.isEmpty ? head : head.terminated(eol)) + body
        guard (try? DiaryFile(parsing: out, path: path)) != nil else {
            return FileMerge(
                bytes: ours, notes: notes + [keptOurs("the merged entry would not read back")], conflictCopy: theirs)
        }
        return FileMerge(bytes: out, notes: notes, conflictCopy: conflictCopy)
    }

    /// vault.yml: key by key (top-level keys), like front-matter.
    ///
    /// Each top-level key is one unit with the lines below it (a nested mapping such as `providers:`
    /// included): changed on one side, that side's lines; changed differently on both, the newer
    /// side's, with a note. Comments and key order are kept as in front-matter. A file the key
    /// reader cannot take apart (a `---` line inside) is merged as text.
    ///
    /// - Throws: `VaultError.malformed` when a version is not valid UTF-8 or not a YAML mapping.
    package static func config(base: [UInt8]?, ours: [UInt8], theirs: [UInt8], newer: Newer) throws(VaultError)
        -> FileMerge
    {
        let o = try ConfigParts(ours)
        let t = try ConfigParts(theirs)
        var b: ConfigParts?
        if let base { b = try ConfigParts(base) }
        if ours == theirs || theirs == base { return FileMerge(bytes: ours) }
        if ours == base { return FileMerge(bytes: theirs) }
        guard let op = o.parts, let tp = t.parts, b == nil || b?.parts != nil else {
            return text(base: base, ours: ours, theirs: theirs)
        }
        let eol = pick(b?.lineEnding, o.lineEnding, t.lineEnding, newer: newer)!
        let merged = frontMatter(base: b?.parts ?? .absent(eol), ours: op, theirs: tp, newer: newer, eol: eol)
        let inner = merged.parts.inner
        if inner == op.inner { return FileMerge(bytes: ours, notes: merged.notes) }
        if inner == tp.inner { return FileMerge(bytes: theirs, notes: merged.notes) }
        let bom = pick(
            b.map { hasByteOrderMark($0.bytes) }, hasByteOrderMark(ours), hasByteOrderMark(theirs), newer: newer)!
        let out = (bom ? [0xEF, 0xBB, 0xBF] : []) + inner
        guard let check = try? ConfigParts(out), check.parts != nil else {
            return FileMerge(
                bytes: ours, notes: merged.notes + [keptOurs("the merged vault.yml would not read back")],
                conflictCopy: theirs)
        }
        return FileMerge(bytes: out, notes: merged.notes)
    }

    private static let overlapped = keptOurs("both sides changed the same lines")
    static let keptBoth = "both versions changed the same lines: both are kept there, this file's lines first"
    private static let addedOnBoth = keptOurs("added on both sides with different contents")

    static func hasByteOrderMark(_ b: [UInt8]) -> Bool { b.starts(with: [0xEF, 0xBB, 0xBF]) }

    /// Valid UTF-8 without NUL bytes.
    static func isText(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { b in
            guard let base = b.baseAddress else { return true }
            return memchr(base, 0, b.count) == nil && UTF8Check.isValid(b)
        }
    }
}

/// `vault.yml` taken apart like front-matter: its lines are read as a front-matter block between
/// two added `---` lines.
private struct ConfigParts {
    let bytes: [UInt8]
    let lineEnding: LineEnding
    /// nil when the file holds a line that would end such a block (`---`, `...`).
    let parts: FrontMatterParts?

    init(_ bytes: [UInt8]) throws(VaultError) {
        self.bytes = bytes
        let start = Merge.hasByteOrderMark(bytes) ? 3 : 0
        let content = Array(bytes[start...])
        let eol: LineEnding = content.withUnsafeBufferPointer { LineEnding.detect($0, from: 0) }
        lineEnding = eol
        guard Merge.isText(content) else {
            throw VaultError.malformed([FormatProblem(path: VaultPath.config, line: 1, kind: .invalidUTF8)])
        }
        let fence = Array("---".utf8) + eol.bytes
        let wrapped = fence + content.terminated(eol) + fence
        let fm: FrontMatter?
        do {
            fm = try wrapped.withUnsafeBufferPointer { b throws(FormatProblemList) in
                try FrontMatter.parse(b, from: 0, path: VaultPath.config, firstLine: 0)
            }
        } catch {
            throw VaultError.malformed(error.problems)
        }
        guard let fm, fm.range.upperBound == wrapped.count else {
            parts = nil
            return
        }
        parts = FrontMatterParts(fm, in: wrapped, eol: eol)
    }
}
