import CGit2
import Foundation
import VaultCore

/// Conflict markers that came in by a commit: someone using plain git committed a room, an entry
/// or `vault.yml` as a line-based `git merge` left it, and pushed.
///
/// A file with markers stands for two versions. When the commit that put this very file in place
/// is a merge, its two parents hold those versions exactly: they are merged over their common
/// ancestor's with vault's rules (`VaultResolve.merged`), whoever made the commit. Otherwise
/// (markers left by a rebase, a cherry-pick or a stash, or a file changed again after them)
/// the sides are the ones the markers hold (`ConflictMarkers.split`).
///
/// `vault sync` looks at every file an incoming tree brings (a fast-forward too) with
/// `repair(_:against:)`; `vault resolve` repairs committed markers with `sides(of:bytes:)`.
struct IncomingMarkers {
    let history: GitHistory

    /// The versions a file with conflict markers stands for.
    struct Sides {
        var base: [UInt8]?
        /// The first parent's version (nil: that side deleted the file).
        var ours: [UInt8]?
        /// The second parent's version (nil: that side deleted the file).
        var theirs: [UInt8]?
        /// The name of a conflict copy of theirs' version: after the second parent (its machine, time
        /// and short id), so every clone repairing the same commit writes the same copy.
        var copyName: (String, [UInt8]) -> String
        /// Where the sides come from, for the report: "the two parents of 1a2b3c4".
        var origin: String
    }

    /// The sides of `path`, whose bytes on disk are `bytes`, when HEAD holds those bytes: the
    /// markers were committed. nil when they are not HEAD's, or no merge commit made them.
    func sides(of path: String, bytes: [UInt8]) throws(VaultError) -> Sides? {
        guard let head = try history.headCommit() else { return nil }
        defer { git_commit_free(head.commit); git_tree_free(head.tree) }
        guard let blob = history.blob(at: path, in: head.tree), try history.blobBytes(blob) == bytes else {
            return nil
        }
        return try sides(of: path, blob: blob, from: head.commit)
    }

    /// When files `theirs` brings in (those that differ from `oursTree`) hold conflict markers,
    /// replaces `theirs` with a new commit on top of it in which each is merged from its two
    /// sides, with a conflict copy where a diary entry's sides overlap (the old commit is freed,
    /// the new one is the caller's). Returns what it did, a line per file (empty: nothing).
    func repair(_ theirs: inout OpaquePointer, against oursTree: OpaquePointer) throws(VaultError) -> [String] {
        var notes: [String] = []
        var theirsTree: OpaquePointer?
        try GitFailure.check(git_commit_tree(&theirsTree, theirs), "read the remote's tree")
        defer { git_tree_free(theirsTree) }
        var updates: [(path: String, oid: git_oid?)] = []
        var repaired: [String] = []
        for change in try history.directChanges(from: oursTree, to: theirsTree!) {
            guard VaultPath.kind(of: change.path) != .other, let oid = change.oid else { continue }
            let bytes = try history.blobBytes(oid)
            guard !ConflictMarkers.lines(in: bytes).isEmpty else { continue }
            guard let sides = try sides(of: change.path, blob: oid, from: theirs) ?? IncomingMarkers.split(bytes) else {
                continue
            }
            let merged = try IncomingMarkers.merge(change.path, sides)
            updates.append((change.path, try history.writeBlob(merged.bytes)))
            notes += merged.notes.map { "\(change.path): \($0)" }
            if let copy = merged.copy {
                updates.append((copy.path, try history.writeBlob(copy.bytes)))
                notes.append(
                    "\(change.path): both sides changed the same lines; the other version is saved as \(copy.path)")
            }
            notes.append("\(change.path): conflict markers that came in by a commit merged away (\(sides.origin))")
            repaired.append(change.path)
        }
        guard !updates.isEmpty,
            let tree = try history.trees.apply(updates, to: git_tree_id(theirsTree).pointee)
        else { return notes }
        var id = try history.writeCommit(
            tree: tree, parents: [theirs],
            message: "resolve: conflict markers merged away in " + repaired.joined(separator: ", "))
        var commit: OpaquePointer?
        try GitFailure.check(git_commit_lookup(&commit, history.repo, &id), "read the repair's commit")
        git_commit_free(theirs)
        theirs = commit!
        return notes
    }

    /// The merged file for `sides` (`VaultResolve.merged`'s rules), and its conflict copy.
    static func merge(_ path: String, _ sides: Sides) throws(VaultError)
        -> (bytes: [UInt8], copy: (path: String, bytes: [UInt8])?, notes: [String])
    {
        switch (sides.ours, sides.theirs) {
        case (let o?, let t?):
            return try VaultResolve.merged(
                path: path, base: sides.base, ours: o, theirs: t, union: sides.base == nil, copyName: sides.copyName)
        case (let only?, nil), (nil, let only?):
            return (only, nil, ["deleted on one side and changed on the other: the changed version is kept"])
        case (nil, nil):
            return ([], nil, [])
        }
    }

    /// The sides the markers of `bytes` hold (with the ancestor, when diff3-style markers carry it).
    static func split(_ bytes: [UInt8]) -> Sides? {
        guard let found = ConflictMarkers.split(bytes) else { return nil }
        return Sides(
            base: found.base, ours: found.ours, theirs: found.theirs, copyName: VaultResolve.copyName(for:copy:),
            origin: "from the sides the markers hold")
    }

    /// The sides of `path` from the merge commit that put `blob` there, found from `start` back.
    private func sides(of path: String, blob: git_oid, from start: OpaquePointer) throws(VaultError) -> Sides? {
        guard var mergeID = introducingMerge(of: path, blob: blob, from: start) else { return nil }
        var merge: OpaquePointer?
        try GitFailure.check(git_commit_lookup(&merge, history.repo, &mergeID), "read the commit with the markers")
        defer { git_commit_free(merge) }
        var first: OpaquePointer?
        var second: OpaquePointer?
        try GitFailure.check(git_commit_parent(&first, merge, 0), "read the merge's first parent")
        defer { git_commit_free(first) }
        try GitFailure.check(git_commit_parent(&second, merge, 1), "read the merge's second parent")
        defer { git_commit_free(second) }
        let ours = try version(of: path, in: first!)
        let theirs = try version(of: path, in: second!)
        // A parent with markers of its own is no side: the markers are read instead.
        for side in [ours, theirs] {
            if let side, !ConflictMarkers.lines(in: side).isEmpty { return nil }
        }
        var base: [UInt8]?
        var firstID = git_commit_id(first).pointee
        var secondID = git_commit_id(second).pointee
        var baseID = git_oid()
        if git_merge_base(&baseID, history.repo, &firstID, &secondID) == 0 {
            var baseCommit: OpaquePointer?
            try GitFailure.check(git_commit_lookup(&baseCommit, history.repo, &baseID), "read the common ancestor")
            defer { git_commit_free(baseCommit) }
            base = try version(of: path, in: baseCommit!)
            if let b = base, !ConflictMarkers.lines(in: b).isEmpty { base = nil }
        }
        let loser = history.side(second!, tree: try tree(of: second!))
        defer { git_tree_free(loser.tree) }
        let (machine, time, version) = (loser.machine, loser.time, loser.shortID)
        let short = String(oidString(&mergeID).prefix(7))
        return Sides(
            base: base, ours: ours, theirs: theirs,
            copyName: { path, _ in ConflictCopy.name(for: path, machine: machine, time: time, version: version) },
            origin: "from the two parents of \(short)")
    }

    /// The merge commit (two parents) that made `path` the blob `blob`: followed back from `start`
    /// through the parents that have the same blob, to the commit none of whose parents has it.
    /// nil when that commit is not a merge, or is too far back.
    private func introducingMerge(of path: String, blob: git_oid, from start: OpaquePointer) -> git_oid? {
        var queue = [git_commit_id(start).pointee]
        var seen = Set<String>()
        var steps = 0
        while !queue.isEmpty, steps < 5_000 {
            var id = queue.removeFirst()
            steps += 1
            guard seen.insert(oidString(&id)).inserted else { continue }
            var commit: OpaquePointer?
            guard git_commit_lookup(&commit, history.repo, &id) == 0 else { continue }
            defer { git_commit_free(commit) }
            let count = git_commit_parentcount(commit)
            var same: [git_oid] = []
            for i in 0..<count {
                var parent: OpaquePointer?
                guard git_commit_parent(&parent, commit, i) == 0 else { continue }
                defer { git_commit_free(parent) }
                var tree: OpaquePointer?
                guard git_commit_tree(&tree, parent) == 0 else { continue }
                defer { git_tree_free(tree) }
                if GitHistory.same(history.blob(at: path, in: tree), blob) {
                    same.append(git_commit_id(parent).pointee)
                }
            }
            if same.isEmpty { return count == 2 ? id : nil }
            queue += same
        }
        return nil
    }

    private func tree(of commit: OpaquePointer) throws(VaultError) -> OpaquePointer {
        var tree: OpaquePointer?
        try GitFailure.check(git_commit_tree(&tree, commit), "read a commit's tree")
        return tree!
    }

    /// `path`'s bytes in `commit` (nil: absent).
    private func version(of path: String, in commit: OpaquePointer) throws(VaultError) -> [UInt8]? {
        let tree = try tree(of: commit)
        defer { git_tree_free(tree) }
        return try history.blob(at: path, in: tree).map { id throws(VaultError) in try history.blobBytes(id) }
    }
}
