extension Merge {
    /// Folds a conflict copy into its original (`vault resolve`): the result holds both, and
    /// there is no copy left to hand anything back in.
    ///
    /// With `base`, the original's version both the copy and the original came from, a diary
    /// entry merges three-way: what each changed since is applied once, and where both changed
    /// the same lines both are kept (`diaryEntry(keepingBoth:)`); the lines neither changed, its
    /// date heading among them, stay once. Without one (a sync tool's copy with no history in
    /// common), the copy's body is added below the original's, whole. Rooms merge by message id.
    ///
    ///     Merge.fold(copy: theirs, into: ours, base: shared, path: "diary/2026/2026-11-21-첫눈.md")
    ///     // bytes: ours with the copy's changes; notes: what was done, in words
    package static func fold(copy: [UInt8], into original: [UInt8], base: [UInt8]?, path: String)
        throws(VaultError) -> FileMerge
    {
        guard VaultPath.kind(of: path) == .diaryEntry else {
            return try file(path: path, base: base, ours: original, theirs: copy, newer: .theirs)
        }
        var result = try diaryEntry(
            base: base, ours: original, theirs: copy, path: path, newer: .theirs, keepingBoth: true)
        if let other = result.conflictCopy {
            // Nothing to hand it back in: the copy's text goes below, and the notes do not point
            // to a conflict copy that is about to be removed.
            result.bytes = appendingBody(of: other, to: result.bytes)
            result.conflictCopy = nil
            result.notes.removeAll(where: pointsToConflictCopy)
            result.notes.append(
                base == nil
                    ? "no version both came from is known: the copy's text is added at the end, whole"
                    : "the two versions could not be merged line by line: the copy's text is added at the end, whole")
        } else if base != nil, result.bytes != original, result.bytes != copy {
            result.notes.append("merged with the copy line by line, from the version both came from")
        }
        return result
    }

    /// Whether `note` says a version was handed back as a conflict copy: untrue once the caller
    /// keeps that version in the file instead.
    package static func pointsToConflictCopy(_ note: String) -> Bool {
        note.hasSuffix(keptOursEnding) || note.hasSuffix(keptTheirsEnding)
    }

    /// `bytes` with the body of `other` (after its front-matter) appended, after a blank line.
    package static func appendingBody(of other: [UInt8], to bytes: [UInt8]) -> [UInt8] {
        var body = other[...]
        let text = String(decoding: other, as: UTF8.self)
        if text.hasPrefix("---\n") || text.hasPrefix("---\r\n"),
            let close = text.range(of: "\n---", range: text.index(text.startIndex, offsetBy: 3)..<text.endIndex)
        {
            let afterClose =
                text[close.upperBound...].firstIndex(of: "\n").map { text.index(after: $0) } ?? text.endIndex
            body = other[text.utf8.distance(from: text.startIndex, to: afterClose)...]
        }
        var out = bytes
        if !out.isEmpty && out.last != 10 { out.append(10) }
        out.append(10)
        out += body
        return out
    }
}
