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
    func verify(
        _ plan: MergePlan, ours: (commit: OpaquePointer, tree: OpaquePointer), theirs: OpaquePointer, result: git_oid
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
        var versions = (base: [String: [UInt8]](), ours: [String: [UInt8]](), theirs: [String: [UInt8]](),
            result: [String: [UInt8]]())
        func read(_ blob: git_oid??, _ path: String, into map: inout [String: [UInt8]]) throws(VaultError) {
            if case .some(.some(let id)) = blob { map[path] = try blobBytes(id) }
        }
        for path in paths where [.room, .volume, .diaryEntry].contains(VaultPath.kind(of: path)) {
            let oursBlob = blob(at: path, in: ours.tree)
            try read(oursBlob, path, into: &versions.ours)
            try read(blob(at: path, in: theirsTree), path, into: &versions.theirs)
            try read(blob(at: path, in: baseTree), path, into: &versions.base)
            try read(resultBlobs[path] ?? oursBlob, path, into: &versions.result)
        }
        let missing = Integrity.lost(
            base: versions.base, ours: versions.ours, theirs: versions.theirs, result: versions.result)
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
        lostVersions(base: base, ours: ours, theirs: theirs, result: result).map {
            "\($0.path): \($0.label) (\($0.side == .ours ? "this side's" : "the other side's") version)"
        }
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
        var baseHashes: [String: Set<Int>] = [:]
        var baseLines: [String: [Substring: Int]] = [:]
        for (path, bytes) in base {
            for item in items(in: bytes, path: path) {
                baseHashes[item.key, default: []].insert(item.hash)
                for line in item.lines { baseLines[item.key, default: [:]][line, default: 0] += 1 }
            }
        }
        var present = Set<Int>()
        var resultLines: [String: [[Substring: Int]]] = [:]
        for (path, bytes) in result {
            for item in items(in: bytes, path: path) {
                present.insert(item.hash)
                if !item.lines.isEmpty { resultLines[item.key, default: []].append(counted(item.lines)) }
            }
        }
        var missing: [Lost] = []
        for (side, files) in [(Lost.Side.ours, ours), (.theirs, theirs)] {
            for (path, bytes) in files.sorted(by: { $0.key < $1.key }) {
                for item in items(in: bytes, path: path)
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
    private static func items(in bytes: [UInt8], path: String) -> [Item] {
        switch VaultPath.kind(of: path) {
        case .room, .volume:
            guard let room = try? RoomFile(parsing: bytes, path: path) else { return [whole(bytes, path)] }
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
