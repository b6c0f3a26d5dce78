import CGit2
import CVaultObjects
import Foundation
import VaultCore

/// `vault resolve`: repairs what other tools leave in a vault, losing nothing.
///
/// - An unfinished `git merge` (a `git pull` made without vault's merge driver): each conflicted
///   file is merged from git's three versions in the index (ancestor, this side, the other)
///   with vault's rules, unless the person already resolved it by hand (the file has no conflict
///   markers and differs from this side's version: then it is kept as they left it). The merge
///   commit gets both parents, as `git commit` would have made it.
/// - Files with conflict markers committed or left in them: merged from the sides the markers hold.
/// - Conflict copies made by Syncthing, Dropbox or vault: merged into their originals (rooms by
///   message id, with no common ancestor: a union) and removed, in one commit.
public final class VaultResolve {
    let vault: Vault
    let history: GitHistory
    /// This machine's caps on what an unfinished merge brings in (`VaultSync.machineLimits`).
    public var machineLimits = IncomingLimits()

    public init(vault: Vault, history: GitHistory) {
        self.vault = vault.history === history ? vault : vault.with(history: history)
        self.history = history
    }

    /// Does everything there is to do; returns a line per thing done (empty: nothing to do).
    public func run() throws(VaultError) -> [String] {
        try vault.change { change throws(VaultError) -> [String] in
            try repair(candidates: nil, copies: true, before: change)
        }
    }

    /// The repairs, inside the vault's lock, each a change of its own made before `change`'s
    /// commit (`Change.preceding`): an unfinished merge (its merge commit), then markers in
    /// `candidates` (nil: every room, entry and `vault.yml`) and (with `copies`) conflict
    /// copies (one `resolve: …` commit, hand edits of those files committed first).
    func repair(candidates: [String]?, copies: Bool, before change: Change) throws(VaultError) -> [String] {
        var done: [String] = []
        if FileIO.exists(history.gitDirectory + "/MERGE_HEAD") {
            // What the other side brought passes the gate before vault writes or commits any of
            // it (git checked its paths; vault's rules are stricter).
            if let theirs = try history.referenceCommit("MERGE_HEAD") {
                defer { git_commit_free(theirs) }
                try history.admit(
                    commit: theirs, limits: try history.incomingLimits(machine: machineLimits, vault: vault.config.limits))
            }
            // git's merge, finished with its own parents: the index and files are git's, so the
            // commit is made here (`Change.commit(by:)`), not by `VaultHistory.commit`.
            try change.preceding(handEdits: .partOfTheChange) { finishing throws(VaultError) in
                try finishing.commit { () throws(VaultError) -> Bool in
                    done += try finishMerge()
                    return true
                }
            }
        }
        done += try change.preceding { resolving throws(VaultError) -> [String] in
            try resolveMarkersAndCopies(candidates: candidates, copies: copies, in: resolving)
        }
        return done
    }

    /// Merges `ours` and `theirs` of `path` by its kind; for a diary entry or other file whose
    /// changes overlap, keeps ours and writes theirs as a conflict copy next to it, named by
    /// `copyName` (the path and the copy's bytes).
    static func merged(
        path: String, base: [UInt8]?, ours: [UInt8], theirs: [UInt8], union: Bool,
        copyName: (String, [UInt8]) -> String = VaultResolve.copyName(for:copy:)
    ) throws(VaultError) -> (bytes: [UInt8], copy: (path: String, bytes: [UInt8])?, notes: [String]) {
        var result = try Merge.file(path: path, base: base, ours: ours, theirs: theirs, newer: .theirs)
        if union, let other = result.conflictCopy, VaultPath.kind(of: path) == .diaryEntry {
            // Folding a copy with no common ancestor: the other version's text is added below.
            result.bytes = Merge.appendingBody(of: other, to: result.bytes)
            result.conflictCopy = nil
            result.notes.removeAll(where: Merge.pointsToConflictCopy)  // there is no copy: it is in the file
            result.notes.append("the other version's text is added at the end")
        }
        let copy = result.conflictCopy.map { (copyName(path, $0), $0) }
        return (result.bytes, copy, result.notes)
    }

    /// The name of a conflict copy that comes from no commit: after this merge, its time and the
    /// copy's bytes (`ConflictCopy.versionID`).
    static func copyName(for path: String, copy: [UInt8]) -> String {
        ConflictCopy.name(for: path, machine: "merge", time: Date(), version: ConflictCopy.versionID(of: copy))
    }

    // MARK: An unfinished git merge

    private func finishMerge() throws(VaultError) -> [String] {
        var index: OpaquePointer?
        try GitFailure.check(git_repository_index(&index, history.repo), "open the index")
        defer { git_index_free(index) }
        try GitFailure.check(git_index_read(index, 1), "read the index")
        struct Conflict { var path: String; var base: git_oid?; var ours: git_oid?; var theirs: git_oid? }
        var conflicts: [Conflict] = []
        if git_index_has_conflicts(index) == 1 {
            var iterator: OpaquePointer?
            try GitFailure.check(git_index_conflict_iterator_new(&iterator, index), "read the conflicts")
            var a: UnsafePointer<git_index_entry>?
            var o: UnsafePointer<git_index_entry>?
            var t: UnsafePointer<git_index_entry>?
            while git_index_conflict_next(&a, &o, &t, iterator) == 0 {
                guard let any = o ?? t ?? a else { continue }
                conflicts.append(
                    Conflict(
                        path: String(cString: any.pointee.path), base: a?.pointee.id, ours: o?.pointee.id,
                        theirs: t?.pointee.id))
            }
            git_index_conflict_iterator_free(iterator)
        }
        var done: [String] = []
        var written: [String] = []
        for c in conflicts {
            let full = vault.absolute(c.path)
            let onDisk = FileIO.exists(full) ? try FileIO.read(full) : nil
            let oursBytes = try c.ours.map { id throws(VaultError) in try history.blobBytes(id) }
            if let onDisk, ConflictMarkers.lines(in: onDisk).isEmpty, onDisk != oursBytes, c.ours != nil,
                c.theirs != nil
            {
                done.append("\(c.path): kept as you resolved it")
                written.append(c.path)
                continue
            }
            let theirsBytes = try c.theirs.map { id throws(VaultError) in try history.blobBytes(id) }
            let baseBytes = try c.base.map { id throws(VaultError) in try history.blobBytes(id) }
            switch (oursBytes, theirsBytes) {
            case (let o?, let t?):
                let m = try VaultResolve.merged(path: c.path, base: baseBytes, ours: o, theirs: t, union: false)
                try FileIO.write(m.bytes, to: full)
                written.append(c.path)
                done += m.notes.map { "\(c.path): \($0)" }
                if let copy = m.copy {
                    try FileIO.write(copy.bytes, to: vault.absolute(copy.path))
                    written.append(copy.path)
                    done.append(
                        "\(c.path): both sides changed the same lines; the other version is saved as \(copy.path)")
                }
                done.append("\(c.path): merged")
            case (let only?, nil), (nil, let only?):
                try FileIO.makeDirectory(FileIO.parent(of: full))
                try FileIO.write(only, to: full)
                written.append(c.path)
                done.append("\(c.path): deleted on one side and changed on the other: the changed version is kept")
            case (nil, nil):
                continue
            }
        }
        for path in written {
            try GitFailure.check(git_index_add_bypath(index, path), "add \(path) to the index")
        }
        try GitFailure.check(git_index_write(index), "write the index")
        var tree = git_oid()
        try GitFailure.check(git_index_write_tree(&tree, index), "write the merged tree")
        guard let head = try history.headCommit() else {
            // `git merge` on a branch with no commit fast-forwards: MERGE_HEAD without HEAD is not git's doing.
            throw VaultError.internal(
                InternalError(
                    "a merge is in progress on a branch with no commit",
                    context: "MERGE_HEAD in \(history.gitDirectory)", changedNothing: false))
        }
        defer { git_commit_free(head.commit); git_tree_free(head.tree) }
        var parents: [OpaquePointer] = [head.commit]
        let mergeHeads = String(decoding: try FileIO.read(history.gitDirectory + "/MERGE_HEAD"), as: UTF8.self)
        for line in mergeHeads.split(separator: "\n") {
            var oid = git_oid()
            guard git_oid_fromstr(&oid, String(line)) == 0 else { continue }
            var commit: OpaquePointer?
            try GitFailure.check(git_commit_lookup(&commit, history.repo, &oid), "read the commit being merged")
            parents.append(commit!)
        }
        defer { parents.dropFirst().forEach { git_commit_free($0) } }
        let subject = (try? FileIO.read(history.gitDirectory + "/MERGE_MSG"))
            .flatMap { String(decoding: $0, as: UTF8.self).split(separator: "\n").first.map(String.init) } ?? "Merge"
        let commit = try history.writeCommit(tree: tree, parents: parents, message: "\(subject) (resolved by vault)")
        try history.moveBranch(to: commit, from: head.commit, message: "vault: resolve")
        git_repository_state_cleanup(history.repo)
        done.append("finished the merge (\(subject)) as \(oidString([commit]).prefix(7))")
        return done
    }

    // MARK: Markers and conflict copies

    private func resolveMarkersAndCopies(candidates: [String]?, copies: Bool, in change: Change) throws(VaultError)
        -> [String]
    {
        var done: [String] = []
        var paths: [String] = []
        var pending: [(path: String, bytes: [UInt8]?)] = []
        let scanned =
            candidates?.filter { VaultPath.kind(of: $0) != .other }
            ?? (vault.roomPaths() + vault.diaryPaths() + [VaultPath.config])
        for path in scanned {
            guard let bytes = try? FileIO.read(vault.absolute(path)), !ConflictMarkers.lines(in: bytes).isEmpty else {
                continue
            }
            // Committed markers are merged from the two parents of the merge that made them, when
            // there is one: the same result on every clone that repairs them.
            let markers = IncomingMarkers(history: history)
            guard let sides = try markers.sides(of: path, bytes: bytes) ?? IncomingMarkers.split(bytes) else {
                continue
            }
            let m = try IncomingMarkers.merge(path, sides)
            pending.append((path, m.bytes))
            if let copy = m.copy { pending.append((copy.path, copy.bytes)) }
            done += m.notes.map { "\(path): \($0)" }
            done.append("\(path): conflict markers merged away (\(sides.origin))")
        }
        for (copy, original) in copies ? vault.conflictCopies() : [] {
            let ours = try FileIO.read(vault.absolute(original))
            let theirs = try FileIO.read(vault.absolute(copy))
            // A diary entry merges three-way from the version both came from, when history knows it.
            let shared = VaultPath.kind(of: original) == .diaryEntry
                ? try versionBothCameFrom(copy: copy, original: original) : nil
            let m = try Merge.fold(
                copy: theirs, into: pending.last(where: { $0.path == original })?.bytes ?? ours,
                base: shared?.bytes, path: original)
            pending.removeAll { $0.path == original }
            pending.append((original, m.bytes))
            pending.append((copy, nil))
            done += m.notes.map { "\(original): \($0)" }
            let from = shared.map { " (from the version of \(original) in commit \($0.commit))" } ?? ""
            done.append("\(copy): merged into \(original)\(from) and removed")
        }
        guard !pending.isEmpty else { return done }
        paths = pending.map(\.path)
        change.include(paths)
        try change.commitHandEdits()
        for (path, bytes) in pending {
            if let bytes {
                try change.write(bytes, to: path)
            } else {
                try change.remove(path)
            }
        }
        try change.commit(message: "resolve: " + Set(paths).sorted().joined(separator: ", "))
        return done
    }
}

extension VaultResolve {
    /// The version of `original` that it and its conflict copy `copy` both came from, with the
    /// short id of the commit that holds it; nil when history does not tell.
    ///
    /// The commit that added the copy says: a merge (vault's sync, a `git merge`) made it from
    /// its two parents, so the original as it was at their common ancestor; a commit that
    /// changed the original as it added the copy (a sync tool replaced the file and saved the
    /// other version next to it) started from the original of its parent. A copy not committed
    /// yet, or added by a commit that left the original as it was, has no known common version.
    func versionBothCameFrom(copy: String, original: String) throws(VaultError) -> (bytes: [UInt8], commit: String)? {
        guard let head = try history.headCommit() else { return nil }
        defer { git_commit_free(head.commit); git_tree_free(head.tree) }
        guard history.blob(at: copy, in: head.tree) != nil else { return nil }
        var walk: OpaquePointer?
        try GitFailure.check(git_revwalk_new(&walk, history.repo), "walk the history")
        defer { git_revwalk_free(walk) }
        git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL.rawValue | GIT_SORT_TIME.rawValue)
        try GitFailure.check(git_revwalk_push_head(walk), "walk the history")
        var oid = git_oid()
        while git_revwalk_next(&oid, walk) == 0 {
            var commit: OpaquePointer?
            try GitFailure.check(git_commit_lookup(&commit, history.repo, &oid), "read a commit")
            defer { git_commit_free(commit) }
            var parents: [(commit: OpaquePointer?, tree: OpaquePointer?)] = []
            defer { for p in parents { git_tree_free(p.tree); git_commit_free(p.commit) } }
            for k in 0..<git_commit_parentcount(commit) {
                var parent: OpaquePointer?
                try GitFailure.check(git_commit_parent(&parent, commit, k), "read a commit's parent")
                var tree: OpaquePointer?
                let read = git_commit_tree(&tree, parent)
                parents.append((parent, tree))
                try GitFailure.check(read, "read a commit's tree")
            }
            // Still there in a parent: the commit that added the copy is further back.
            if parents.contains(where: { history.blob(at: copy, in: $0.tree) != nil }) { continue }
            var baseID: git_oid
            if parents.count >= 2 {
                var a = git_commit_id(parents[0].commit).pointee
                var b = git_commit_id(parents[1].commit).pointee
                baseID = git_oid()
                guard git_merge_base(&baseID, history.repo, &a, &b) == 0 else { return nil }
            } else if let parent = parents.first {
                var tree: OpaquePointer?
                guard git_commit_tree(&tree, commit) == 0 else { return nil }
                defer { git_tree_free(tree) }
                let before = history.blob(at: original, in: parent.tree)
                let after = history.blob(at: original, in: tree)
                guard var b = before, var a = after, git_oid_equal(&b, &a) == 0 else { return nil }
                baseID = git_commit_id(parent.commit).pointee
            } else {
                return nil
            }
            var baseCommit: OpaquePointer?
            var baseTree: OpaquePointer?
            try GitFailure.check(git_commit_lookup(&baseCommit, history.repo, &baseID), "read the common ancestor")
            defer { git_commit_free(baseCommit) }
            try GitFailure.check(git_commit_tree(&baseTree, baseCommit), "read the common ancestor's tree")
            defer { git_tree_free(baseTree) }
            guard let blob = history.blob(at: original, in: baseTree) else { return nil }
            return (try history.blobBytes(blob), String(oidString([baseID]).prefix(7)))
        }
        return nil
    }
}

/// The hex id of a commit id.
func oidString(_ ids: [git_oid]) -> String {
    var id = ids[0]
    return oidString(&id)
}
