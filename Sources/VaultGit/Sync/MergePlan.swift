import CGit2
import Foundation
import VaultCore

/// The changes a merge of two commits makes to the first one's tree, with vault's rules
/// (`TreeMerge`): the one merge `vault sync` makes, and `vault resolve` when it finishes a merge
/// plain git left unfinished, so both give the same files for the same two commits.
struct MergePlan {
    var changes: [TreeMerge.Change]
    var outcome: TreeMerge.Outcome
    var fastForward: Bool
    /// The common ancestor's commit (nil: a fast-forward, or no common history).
    var base: git_oid?
}

extension GitHistory {
    /// The tree of the commit `id` (nil: no commit, as a plan without a common ancestor has);
    /// the caller frees it.
    func tree(ofCommit id: git_oid?) throws(VaultError) -> OpaquePointer? {
        guard var id else { return nil }
        var commit: OpaquePointer?
        try GitFailure.check(git_commit_lookup(&commit, repo, &id), "read the common ancestor")
        defer { git_commit_free(commit) }
        var tree: OpaquePointer?
        try GitFailure.check(git_commit_tree(&tree, commit), "read the common ancestor's tree")
        return tree
    }

    /// The changes to HEAD's tree a merge with `theirs` makes (blobs written, nothing else).
    func plannedMerge(ours head: (commit: OpaquePointer, tree: OpaquePointer), theirs: OpaquePointer)
        throws(VaultError)
        -> MergePlan
    {
        var oursID = git_commit_id(head.commit).pointee
        var theirsID = git_commit_id(theirs).pointee
        var theirsTree: OpaquePointer?
        try GitFailure.check(git_commit_tree(&theirsTree, theirs), "read the remote's tree")
        defer { git_tree_free(theirsTree) }
        if git_graph_descendant_of(repo, &theirsID, &oursID) == 1 {
            let changes = try directChanges(from: head.tree, to: theirsTree!)
            return MergePlan(changes: changes, outcome: TreeMerge.Outcome(), fastForward: true)
        }
        var baseID = git_oid()
        var baseTree: OpaquePointer?
        let found = git_merge_base(&baseID, repo, &oursID, &theirsID)
        Trace.mark("sync merge: merge base found")
        if found == 0 {
            var baseCommit: OpaquePointer?
            try GitFailure.check(git_commit_lookup(&baseCommit, repo, &baseID), "read the common ancestor")
            defer { git_commit_free(baseCommit) }
            try GitFailure.check(git_commit_tree(&baseTree, baseCommit), "read the common ancestor's tree")
        } else if found != GIT_ENOTFOUND.rawValue {
            try GitFailure.check(found, "find the common ancestor")
        }
        defer { git_tree_free(baseTree) }
        let merge = TreeMerge(history: self)
        let outcome = try merge.merge(
            base: baseTree, ours: side(head.commit, tree: head.tree),
            theirs: side(theirs, tree: theirsTree!))
        return MergePlan(changes: outcome.changes, outcome: outcome, fastForward: false, base: found == 0 ? baseID : nil)
    }

    /// Before the merge commit is written: the text of every version of every message and diary
    /// entry either side made is in the result (`Integrity.lost`), in the merged file or in a
    /// conflict copy. Otherwise nothing is changed and the sync (or the resolve) stops.
    ///
    /// The rooms and volumes it reads are parsed once, on every core, into `parsed`, which the
    /// report (`describe`) reads them from after it.
    func verify(
        _ plan: MergePlan, ours: (commit: OpaquePointer, tree: OpaquePointer), theirs: OpaquePointer, result: git_oid,
        parsed: ParsedRooms = ParsedRooms()
    ) throws(VaultError) {
        var theirsTree: OpaquePointer?
        try GitFailure.check(git_commit_tree(&theirsTree, theirs), "read the remote's tree")
        defer { git_tree_free(theirsTree) }
        var oursID = git_commit_id(ours.commit).pointee
        var theirsID = git_commit_id(theirs).pointee
        var baseID = git_oid()
        var baseTree: OpaquePointer?
        if git_merge_base(&baseID, repo, &oursID, &theirsID) == 0 {
            var c: OpaquePointer?
            if git_commit_lookup(&c, repo, &baseID) == 0 {
                _ = git_commit_tree(&baseTree, c)
                git_commit_free(c)
            }
        }
        defer { git_tree_free(baseTree) }
        // The paths either side changed: only they can have lost anything. The result's version
        // of each is the change's, else ours (the result tree is ours with the changes applied).
        var resultBlobs: [String: git_oid?] = [:]
        for change in plan.changes { resultBlobs[change.path] = change.oid }
        var paths = Set(plan.changes.map(\.path))
        for (from, to) in plan.outcome.renamed { paths.insert(from); paths.insert(to) }
        // A file renamed on both sides, differently: its base version is under the base's name.
        for p in plan.outcome.movedFromBase { paths.insert(p) }
        for p in plan.outcome.keptEdits { paths.insert(p) }
        var blobs = (base: [String: git_oid](), ours: [String: git_oid](), theirs: [String: git_oid](),
            result: [String: git_oid]())
        for path in paths where [.room, .volume, .diaryEntry].contains(VaultPath.kind(of: path)) {
            let oursBlob = blob(at: path, in: ours.tree)
            blobs.ours[path] = oursBlob
            blobs.theirs[path] = blob(at: path, in: theirsTree)
            blobs.base[path] = blob(at: path, in: baseTree)
            if let change = resultBlobs[path] { blobs.result[path] = change } else { blobs.result[path] = oursBlob }
        }
        // Every room's and volume's versions parsed at once, on every core.
        var rooms: [(id: git_oid, path: String)] = []
        for side in [blobs.base, blobs.ours, blobs.theirs, blobs.result] {
            for (path, id) in side where VaultPath.kind(of: path) != .diaryEntry { rooms.append((id, path)) }
        }
        try parsed.prefetch(rooms, in: self)
        func read(_ side: [String: git_oid]) throws(VaultError) -> [String: Integrity.Version] {
            var out: [String: Integrity.Version] = [:]
            for (path, id) in side {
                if VaultPath.kind(of: path) == .diaryEntry {
                    out[path] = Integrity.Version(bytes: try blobBytes(id))
                } else {
                    let version = try parsed.version(id, path: path, in: self)
                    out[path] = Integrity.Version(bytes: version.bytes, room: .some(version.room))
                }
            }
            return out
        }
        let versions = (base: try read(blobs.base), ours: try read(blobs.ours), theirs: try read(blobs.theirs),
            result: try read(blobs.result))
        let missing = Integrity.lostVersions(
            base: versions.base, ours: versions.ours, theirs: versions.theirs, result: versions.result
        ).map(Integrity.described)
        if !missing.isEmpty {
            let lost = missing.prefix(5).joined(separator: "; ")
            throw VaultError.internal(
                InternalError(
                    "the merge would lose the text of \(missing.count) version(s) (\(lost))",
                    context: "the remote's commit is \(oidString(git_commit_id(theirs)).prefix(12))"))
        }
    }
}

/// The no-loss check of a merge, on the files' bytes: text, not ids.
///
/// Each side's version of a message (by id) or a diary entry (by `id`, else path) counts when it
/// differs from the base's version of the same message or entry: a version a side left as it
/// was may go (the other side deleted or changed it on purpose). Every version that counts must
/// be in the result, found by the hash of its text (trailing white space aside, as the merge
/// compares) among all the messages or entries of the result's files, conflict copies included.
/// An entry merged line by line matches neither side whole; it counts as kept when one result
/// file of that entry holds every line the side added to the base's text.
///
///     Integrity.lost(base: [:], ours: ["rooms/a.md": a], theirs: ["rooms/a.md": b], result: ["rooms/a.md": a])
///     // ["rooms/a.md: message m-01JPA3K8Z4QX (theirs' version)", …]
enum Integrity {
    /// What one file holds: its messages' or entry's texts, by key.
    private struct Item {
        var key: String
        var hash: Int
        var label: String
        /// An entry's body lines (empty for a message).
        var lines: [Substring] = []
    }

    /// The versions `ours` and `theirs` made (path → bytes) that are not in `result`, as
    /// `path: what (whose version)`; empty when nothing is lost.
    static func lost(
        base: [String: [UInt8]], ours: [String: [UInt8]], theirs: [String: [UInt8]], result: [String: [UInt8]]
    ) -> [String] {
        lostVersions(base: base, ours: ours, theirs: theirs, result: result).map(described)
    }

    /// `path: what (whose version)`.
    static func described(_ lost: Lost) -> String {
        "\(lost.path): \(lost.label) (\(lost.side == .ours ? "this side's" : "the other side's") version)"
    }

    /// A file's version as the check reads it: its bytes, and (a room or a volume) its parse
    /// when the caller has it already (nil inside: it does not read as one).
    struct Version {
        var bytes: [UInt8]
        var room: RoomFile?? = nil
    }

    /// One version `lostVersions` found missing: in which side's file, and what.
    struct Lost {
        enum Side { case ours, theirs }
        var side: Side
        var path: String
        /// `message m-01JPA3K8Z4QX`, or `the entry's text`.
        var label: String
    }

    /// `lost`, as the side, path and label of each missing version.
    static func lostVersions(
        base: [String: [UInt8]], ours: [String: [UInt8]], theirs: [String: [UInt8]], result: [String: [UInt8]]
    ) -> [Lost] {
        func versions(_ files: [String: [UInt8]]) -> [String: Version] { files.mapValues { Version(bytes: $0) } }
        return lostVersions(base: versions(base), ours: versions(ours), theirs: versions(theirs), result: versions(result))
    }

    /// `lostVersions` of versions some of which are parsed already.
    static func lostVersions(
        base: [String: Version], ours: [String: Version], theirs: [String: Version], result: [String: Version]
    ) -> [Lost] {
        // Every file's items (its messages parsed and their texts hashed) made first, on every core.
        let sides = [base, result, ours, theirs]
        var jobs: [(side: Int, path: String, version: Version)] = []
        for (k, files) in sides.enumerated() { for (path, version) in files { jobs.append((k, path, version)) } }
        let made = jobs.map { (path: $0.path, version: $0.version) }.mapOnEveryCore { job in
            Integrity.items(in: job.version, path: job.path)
        }
        var bySide = [[String: [Item]]](repeating: [:], count: sides.count)
        for (job, items) in zip(jobs, made) { bySide[job.side][job.path] = items }
        func itemsOf(_ side: Int, _ path: String) -> [Item] { bySide[side][path] ?? [] }

        var baseHashes: [String: Set<Int>] = [:]
        var baseLines: [String: [Substring: Int]] = [:]
        for path in base.keys {
            for item in itemsOf(0, path) {
                baseHashes[item.key, default: []].insert(item.hash)
                for line in item.lines { baseLines[item.key, default: [:]][line, default: 0] += 1 }
            }
        }
        var present = Set<Int>()
        var resultLines: [String: [[Substring: Int]]] = [:]
        for path in result.keys {
            for item in itemsOf(1, path) {
                present.insert(item.hash)
                if !item.lines.isEmpty { resultLines[item.key, default: []].append(counted(item.lines)) }
            }
        }
        var missing: [Lost] = []
        for (k, side, files) in [(2, Lost.Side.ours, ours), (3, .theirs, theirs)] {
            for path in files.keys.sorted() {
                for item in itemsOf(k, path)
                where baseHashes[item.key]?.contains(item.hash) != true && !present.contains(item.hash) {
                    // An entry merged line by line: every line the side added is in one file of it.
                    let base = baseLines[item.key] ?? [:]
                    let added = counted(item.lines).filter { $0.value > base[$0.key, default: 0] }
                    let merged = !item.lines.isEmpty && baseHashes[item.key] != nil
                        && (resultLines[item.key] ?? []).contains { file in
                            added.allSatisfy { file[$0.key, default: 0] >= $0.value - base[$0.key, default: 0] }
                        }
                    if !merged { missing.append(Lost(side: side, path: path, label: item.label)) }
                }
            }
        }
        return missing
    }

    private static func counted(_ lines: [Substring]) -> [Substring: Int] {
        var out: [Substring: Int] = [:]
        for line in lines { out[line, default: 0] += 1 }
        return out
    }

    /// The messages of a room, or the entry of a diary file; a file that does not read is one
    /// item of its whole bytes.
    private static func items(in version: Version, path: String) -> [Item] {
        let bytes = version.bytes
        switch VaultPath.kind(of: path) {
        case .room, .volume:
            let parsed: RoomFile?
            if case .some(let room) = version.room { parsed = room } else { parsed = try? RoomFile(parsing: bytes, path: path) }
            guard let room = parsed else { return [whole(bytes, path)] }
            return room.messages.map { Item(key: $0.id, hash: hash(trimmed($0.body)), label: "message \($0.id)") }
        case .diaryEntry:
            guard let entry = try? DiaryFile(parsing: bytes, path: path) else { return [whole(bytes, path)] }
            let body = trimmed(String(decoding: LineEnding.lf.converting(Array(entry.body.utf8)), as: UTF8.self))
            let key = entry.id.map { "entry:" + $0 } ?? "file:" + path
            return [
                Item(
                    key: key, hash: hash(body), label: "the entry's text",
                    lines: body.split(separator: "\n", omittingEmptySubsequences: false))
            ]
        default:
            return []
        }
    }

    private static func whole(_ bytes: [UInt8], _ path: String) -> Item {
        Item(key: "file:" + path, hash: hash(Substring(String(decoding: bytes, as: UTF8.self))), label: "the file")
    }

    /// The text without trailing white space (trailing blank lines are no edit: FORMAT.md, "Merging").
    private static func trimmed(_ text: String) -> Substring {
        var end = text.endIndex
        while end > text.startIndex, text[text.index(before: end)].isWhitespace { end = text.index(before: end) }
        return text[..<end]
    }

    /// A hash of the text's bytes (not of its characters: canonically equal texts in other
    /// normalizations are different versions), line endings aside: a room merge writes a
    /// message in the file's one line ending (FORMAT.md, "Line endings").
    private static func hash(_ text: Substring) -> Int {
        var h = Hasher()
        LineEnding.lf.converting(Array(text.utf8)).withUnsafeBytes { h.combine(bytes: $0) }
        return h.finalize()
    }
}
