import Foundation

/// What a merge of one file produced.
///
/// The merge functions in `Merge` are pure: they take the three versions of a file (the common
/// ancestor, this machine's, the other machine's) and give the merged bytes, lines for the sync
/// report, and, when a text merge could not combine the two sides, the other side's whole file
/// to keep next to the merged one.
///
///     let result = try Merge.room(base: base, ours: ours, theirs: theirs, path: "rooms/busan.md", newer: .theirs)
///     for note in result.notes { print("rooms/busan.md: \(note)") }
public struct FileMerge: Sendable, Equatable {
    /// The merged file.
    public var bytes: [UInt8]
    /// Lines for the sync report, written for a person, e.g.
    /// `title: both sides changed it; kept "Busan trip" (the later change)`.
    public var notes: [String]
    /// For a text merge whose changes overlapped: the other side's whole file, to be saved next to the
    /// merged one as a conflict copy (the caller names and writes it). nil when the merge was clean.
    public var conflictCopy: [UInt8]?

    public init(bytes: [UInt8], notes: [String] = [], conflictCopy: [UInt8]? = nil) {
        self.bytes = bytes
        self.notes = notes
        self.conflictCopy = conflictCopy
    }

    /// The same merge reported from the other side: for a merge called with the sides swapped
    /// (the other machine's version passed as `ours`, to be kept), whose notes would otherwise
    /// say that this machine's version was kept.
    public func reportedFromTheOtherSide() -> FileMerge {
        var swapped = self
        swapped.notes = notes.map { note in
            note.hasSuffix(Merge.keptOursEnding)
                ? String(note.dropLast(Merge.keptOursEnding.count)) + Merge.keptTheirsEnding : note
        }
        return swapped
    }
}

/// The merge rules of `vault sync`, one function per kind of file.
///
/// Every function is pure (no git, no I/O) and deterministic. The room merge is also symmetric:
/// merging `(base, A, B)` with `newer: .theirs` gives the same bytes as `(base, B, A)` with
/// `newer: .ours`, so two machines that merge the same three versions agree byte for byte.
///
/// Whatever one side changed and the other did not is taken from the side that changed it;
/// only where both changed the same thing differently does a rule pick (the newer change, the
/// later `updated`), keep both (messages, pending text), or keep ours and hand back theirs as a
/// conflict copy (text). A merge never writes conflict markers.
package enum Merge {
    /// Which side's change wins when both sides changed the same front-matter key or config key differently.
    package enum Newer: Sendable { case ours, theirs }

    /// The merge of one file by its kind, the one place a path's kind picks its rule: a room by
    /// message id (`room`), a diary entry by front-matter key and line (`diaryEntry`), `vault.yml`
    /// key by key (`config`), anything else by line (`text`).
    ///
    ///     let merged = try Merge.file(path: "rooms/busan.md", base: b, ours: o, theirs: t, newer: .theirs)
    package static func file(path: String, base: [UInt8]?, ours: [UInt8], theirs: [UInt8], newer: Newer)
        throws(VaultError) -> FileMerge
    {
        switch VaultPath.kind(of: path) {
        case .room, .volume: return try room(base: base, ours: ours, theirs: theirs, path: path, newer: newer)
        case .diaryEntry: return try diaryEntry(base: base, ours: ours, theirs: theirs, path: path, newer: newer)
        case .config: return try config(base: base, ours: ours, theirs: theirs, newer: newer)
        case .other: return text(base: base, ours: ours, theirs: theirs)
        }
    }

    /// Whether `a` at `oldPath` and `b` at `newPath` are one room, volume or diary entry under
    /// two names: a file a person renamed (`mv`, `git mv`, Obsidian, VS Code) and perhaps
    /// edited. Rooms and volumes by `isSameRoom` (a message id in common, or the same `created`
    /// and title while one has no message); entries by the same `created` value, else the same
    /// body; files of two kinds never.
    ///
    ///     Merge.isSameItem(old, new, oldPath: "rooms/errors.md", newPath: "rooms/errors2.md") // true
    package static func isSameItem(_ a: [UInt8], _ b: [UInt8], oldPath: String, newPath: String) -> Bool {
        let kind = VaultPath.kind(of: newPath)
        guard VaultPath.kind(of: oldPath) == kind else { return false }
        switch kind {
        case .room, .volume: return isSameRoom(a, b, path: newPath)
        case .diaryEntry:
            if a == b { return true }
            guard let x = try? DiaryFile(parsing: a, path: oldPath), let y = try? DiaryFile(parsing: b, path: newPath)
            else { return false }
            if let created = x.frontMatter?.string("created"), !created.isEmpty {
                return y.frontMatter?.string("created") == created
            }
            let body = x.body.trimmingCharacters(in: .whitespacesAndNewlines)
            return !body.isEmpty && body == y.body.trimmingCharacters(in: .whitespacesAndNewlines)
        case .config, .other: return false
        }
    }

    /// The merge of one file from two commits, the rule `vault sync` and `vault merge-driver`
    /// (`git pull`) share so both write the same bytes: `file`, except that where a text merge's
    /// changes overlap the newer side's version is kept and the older side's is the conflict copy,
    /// and an ancestor with conflict markers committed in it merges as no ancestor (rooms: a
    /// union), which loses nothing.
    ///
    ///     let merged = try Merge.committed(path: "diary/2026/x.md", base: b, ours: o, theirs: t, newer: .theirs)
    ///     // merged.conflictCopy: ours, when both sides changed the same lines
    package static func committed(path: String, base: [UInt8]?, ours: [UInt8], theirs: [UInt8], newer: Newer)
        throws(VaultError) -> FileMerge
    {
        let kind = VaultPath.kind(of: path)
        let base = base.flatMap { kind != .other && !ConflictMarkers.lines(in: $0).isEmpty ? nil : $0 }
        switch kind {
        case .room, .volume, .config:
            return try file(path: path, base: base, ours: ours, theirs: theirs, newer: newer)
        case .diaryEntry, .other:
            guard newer == .theirs else { return try file(path: path, base: base, ours: ours, theirs: theirs, newer: .ours) }
            return try file(path: path, base: base, ours: theirs, theirs: ours, newer: .ours).reportedFromTheOtherSide()
        }
    }

    /// The three versions in one line ending, when theirs differ (one side converted the file):
    /// the ending the side that changed it chose (`pick`), so a version that differs from another
    /// only in its line endings is the same version for the merge, and the result has one ending.
    /// Versions that already share their ending are returned as they are.
    static func inOneLineEnding(base: [UInt8]?, ours: [UInt8], theirs: [UInt8], newer: Newer)
        -> (base: [UInt8]?, ours: [UInt8], theirs: [UInt8])
    {
        let endings = (base.map(LineEnding.of), LineEnding.of(ours), LineEnding.of(theirs))
        let eol = pick(endings.0, endings.1, endings.2, newer: newer)!
        guard endings.0.map({ $0 != eol }) ?? false || endings.1 != eol || endings.2 != eol else {
            return (base, ours, theirs)
        }
        return (base.map(eol.converting), eol.converting(ours), eol.converting(theirs))
    }

    /// The version both sides agree on, else the one that changed (the other equals base), else the
    /// newer one: the three-way pick used for single values (a BOM, a marker line).
    static func pick<T: Equatable>(_ base: T, _ ours: T, _ theirs: T, newer: Newer) -> T {
        if ours == theirs { return ours }
        if ours == base { return theirs }
        if theirs == base { return ours }
        return newer == .ours ? ours : theirs
    }

    /// `(older, newer)` of two sides' values.
    static func ordered<T>(_ ours: T, _ theirs: T, newer: Newer) -> (older: T, newer: T) {
        newer == .ours ? (theirs, ours) : (ours, theirs)
    }

    /// `count` things, in words: "1 message", "2 messages".
    package static func counted(_ count: Int, _ singular: String, _ plural: String) -> String {
        "\(count) \(count == 1 ? singular : plural)"
    }

    /// The note for a merge that kept ours and handed back theirs as the conflict copy.
    static func keptOurs(_ why: String) -> String { why + keptOursEnding }

    static let keptOursEnding = ": kept this side's version, the other side's is in the conflict copy"
    static let keptTheirsEnding =
        ": kept the other side's version (the later commit), this side's is in the conflict copy"

    /// A value as a note shows it: quoted and cut short.
    static func shown(_ value: FrontMatterValue?) -> String {
        switch value {
        case nil: return "no value (removed)"
        case .string(let s)?:
            var t = s.replacingOccurrences(of: "\n", with: "\\n")
            if t.count > 60 { t = String(t.prefix(57)) + "…" }
            return "\"\(t)\""
        case .list(let items)?:
            let t = "[" + items.joined(separator: ", ") + "]"
            return t.count > 60 ? String(t.prefix(57)) + "…]" : t
        case .other?: return "a nested value"
        }
    }
}

extension Array where Element == UInt8 {
    /// True when the bytes end with a line feed.
    var endsWithNewline: Bool { last == 10 }

    /// The bytes followed by a line ending when they do not end with one and are not empty: so that
    /// what comes next starts on its own line.
    func terminated(_ eol: LineEnding) -> [UInt8] {
        isEmpty || endsWithNewline ? self : self + eol.bytes
    }
}
