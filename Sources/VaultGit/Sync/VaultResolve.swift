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
            // git's merge, finished with vault's merge and its own parents: the commit is made
            // here (`Change.commit(by:)`), not by `VaultHistory.commit`.
            var edited: [String] = []
            try change.preceding(handEdits: .partOfTheChange) { finishing throws(VaultError) in
                try finishing.commit { () throws(VaultError) -> Bool in
                    let finished = try finishMerge()
                    done += finished.done
                    edited = finished.handEdited
                    return true
                }
            }
            // What the person changed meanwhile: a commit of its own after the merge, as every hand edit.
            if !edited.isEmpty {
                let committed = try change.preceding(edited) { editing throws(VaultError) in
                    try editing.commitHandEdits()
                }
                done += committed.map { "\($0): committed as your edit" }
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

    /// Finishes the merge a `git pull` (or `git merge`) left unfinished with vault's own merge of
    /// the same two commits (`plannedMerge`), whatever git's index holds (rename/rename,
    /// rename/delete, modify/delete, add/add, markers): the files `vault sync` alone makes of
    /// those commits, checked to lose nothing (`verify`), committed with both parents as
    /// `git commit` would have. What the person changed in the files meanwhile (a message typed
    /// into the conflicted room, an entry edited) is put onto that result (`Merge.handEdits`) and
    /// left for the next commit, `edit: …`, of its own: it is never part of the merge, and never lost.
    ///
    /// - Returns: the lines for the person, and the paths that hold the person's own changes.
    private func finishMerge() throws(VaultError) -> (done: [String], handEdited: [String]) {
        guard let head = try history.headCommit() else {
            // `git merge` on a branch with no commit fast-forwards: MERGE_HEAD without HEAD is not git's doing.
            throw VaultError.internal(
                InternalError(
                    "a merge is in progress on a branch with no commit",
                    context: "MERGE_HEAD in \(history.gitDirectory)", changedNothing: false))
        }
        defer { git_commit_free(head.commit); git_tree_free(head.tree) }
        var others: [OpaquePointer] = []
        defer { others.forEach { git_commit_free($0) } }
        let mergeHeads = String(decoding: try FileIO.read(history.gitDirectory + "/MERGE_HEAD"), as: UTF8.self)
        for line in mergeHeads.split(separator: "\n") {
            var oid = git_oid()
            guard git_oid_fromstr(&oid, String(line)) == 0 else { continue }
            var commit: OpaquePointer?
            try GitFailure.check(git_commit_lookup(&commit, history.repo, &oid), "read the commit being merged")
            others.append(commit!)
        }
        guard others.count == 1, let theirs = others.first else {
            throw VaultError.internal(
                InternalError(
                    "git left a merge of \(others.count) commits at once; vault finishes a merge of two (run"
                        + " `git merge --abort`, then `vault sync`)",
                    context: "MERGE_HEAD in \(history.gitDirectory)"))
        }
        // Every version git's index holds of each path (stages 0 to 3), and the paths in conflict.
        var index: OpaquePointer?
        try GitFailure.check(git_repository_index(&index, history.repo), "open the index")
        defer { git_index_free(index) }
        try GitFailure.check(git_index_read(index, 1), "read the index")
        var staged: [String: [git_oid]] = [:]
        var paths = Set<String>()
        if git_index_has_conflicts(index) == 1 {
            var iterator: OpaquePointer?
            try GitFailure.check(git_index_conflict_iterator_new(&iterator, index), "read the conflicts")
            defer { git_index_conflict_iterator_free(iterator) }
            var a: UnsafePointer<git_index_entry>?
            var o: UnsafePointer<git_index_entry>?
            var t: UnsafePointer<git_index_entry>?
            while git_index_conflict_next(&a, &o, &t, iterator) == 0 {
                for entry in [a, o, t] {
                    guard let entry else { continue }
                    let path = String(cString: entry.pointee.path)
                    paths.insert(path)
                    staged[path, default: []].append(entry.pointee.id)
                }
            }
        }
        paths.formUnion(try history.workTreeChanges())
        for path in paths {
            if let entry = git_index_get_bypath(index, path, 0) { staged[path, default: []].append(entry.pointee.id) }
        }

        // Vault's merge of the two commits, as `vault sync` makes it.
        cvault_odb_writer_begin_batch(history.objects.writer)
        defer { cvault_odb_writer_abandon_batch(history.objects.writer) }
        let plan = try history.plannedMerge(ours: head, theirs: theirs)
        var theirsTree: OpaquePointer?
        try GitFailure.check(git_commit_tree(&theirsTree, theirs), "read the tree of the commit being merged")
        defer { git_tree_free(theirsTree) }
        var resultID: git_oid
        if plan.fastForward {
            resultID = git_tree_id(theirsTree).pointee
        } else {
            guard let tree = try history.trees.apply(
                plan.changes.map { ($0.path, $0.oid) }, to: git_tree_id(head.tree).pointee)
            else {
                throw VaultError.internal(InternalError("the merge would leave the vault empty", context: "MERGE_HEAD"))
            }
            try history.verify(plan, ours: head, theirs: theirs, result: tree)
            resultID = tree
        }
        var resultTree: OpaquePointer?
        try GitFailure.check(git_tree_lookup(&resultTree, history.repo, &resultID), "read the merged tree")
        defer { git_tree_free(resultTree) }
        let baseTree = try history.tree(ofCommit: plan.base)
        defer { git_tree_free(baseTree) }
        paths.formUnion(plan.changes.map(\.path))

        // Each file: the merge's version, unless the person changed it meanwhile.
        var done = plan.outcome.notes
        var writes: [String: git_oid?] = [:]
        var onDisk: [String: git_oid?] = [:]
        var edits: [(path: String, bytes: [UInt8], known: [[UInt8]])] = []
        var ownNewFiles: [String] = []
        for path in paths.sorted() {
            guard IncomingPath.problem(with: path) == nil else { continue }
            let disk = try history.blobID(ofFile: path)
            onDisk[path] = disk
            let merged = history.blob(at: path, in: resultTree)
            if GitHistory.same(disk, merged) { continue }
            var known = staged[path] ?? []
            for tree in [head.tree, theirsTree, baseTree] {
                if let id = history.blob(at: path, in: tree) { known.append(id) }
            }
            guard let disk, !known.contains(where: { GitHistory.same($0, disk) }) else {
                writes[path] = merged  // only what git left there (or git moved it away): the merge decides
                continue
            }
            if known.isEmpty && merged == nil {
                ownNewFiles.append(path)  // a file the person made: theirs, committed as it is
                continue
            }
            let bytes = try FileIO.read(vault.absolute(path))
            edits.append((path, bytes, try known.map { id throws(VaultError) in try history.blobBytes(id) }))
        }
        var handEdited: [String] = []
        var kept: [String: [UInt8]] = [:]
        for edit in edits {
            // Where the file lives after the merge: its path, or the name the merge moved it to.
            var target = edit.path
            if history.blob(at: edit.path, in: resultTree) == nil {
                let sample = ConflictMarkers.split(edit.bytes)?.ours ?? edit.bytes
                for change in plan.changes where change.oid != nil && change.path != edit.path {
                    if Merge.isSameItem(
                        sample, try history.blobBytes(change.oid!), oldPath: edit.path, newPath: change.path)
                    {
                        target = change.path
                        break
                    }
                }
            }
            var onto = kept[target]
            if onto == nil, let id = history.blob(at: target, in: resultTree) { onto = try history.blobBytes(id) }
            let split = ConflictMarkers.split(edit.bytes)
            let versions = split.map { [$0.ours, $0.theirs] } ?? [edit.bytes]
            var changed = false
            for version in versions where !edit.known.contains(version) {
                guard let current = onto else {
                    onto = version
                    changed = true
                    continue
                }
                do throws(VaultError) {
                    let result = try Merge.handEdits(version, onto: current, known: edit.known, path: target)
                    changed = changed || result.bytes != current
                    onto = result.bytes
                } catch {
                    // A version that does not read as its kind: left as the person wrote it, for them to see.
                    onto = nil
                    break
                }
            }
            guard let result = onto else {
                writes[edit.path] = nil
                ownNewFiles.append(edit.path)
                done.append("\(edit.path): your changes do not read as a \(VaultPath.kind(of: edit.path)); left as they are")
                continue
            }
            guard changed else {
                writes[edit.path] = history.blob(at: edit.path, in: resultTree)
                continue
            }
            kept[target] = result
            handEdited.append(target)
            if target != edit.path {
                writes[edit.path] = .some(nil)
                handEdited.append(edit.path)
            }
            done.append(
                target == edit.path
                    ? "\(edit.path): what you changed during the merge is kept"
                    : "\(edit.path): what you changed during the merge is kept in \(target), its name after the merge")
        }
        for (path, bytes) in kept {
            writes[path] = try history.writeBlob(bytes)
            if onDisk[path] == nil { onDisk[path] = try history.blobID(ofFile: path) }
        }
        writes = writes.filter { !ownNewFiles.contains($0.key) }

        // The merge commit, then the files, the branch and git's index, as a sync moves them.
        let subject = (try? FileIO.read(history.gitDirectory + "/MERGE_MSG"))
            .flatMap { String(decoding: $0, as: UTF8.self).split(separator: "\n").first.map(String.init) } ?? "Merge"
        let commit = try history.writeCommit(
            tree: resultID, parents: [head.commit, theirs], message: "\(subject) (resolved by vault)")
        let changes = writes.sorted { $0.key < $1.key }.map { TreeMerge.Change(path: $0.key, oid: $0.value) }
        let touched = Array(Set(paths).union(writes.keys)).filter { !ownNewFiles.contains($0) }.sorted()
        CommitIntent.add(touched, root: history.root)
        try history.checkout(changes) { path in onDisk[path] ?? nil }
        try history.moveBranch(to: commit, from: head.commit, message: "vault: resolve")
        git_repository_state_cleanup(history.repo)
        try history.indexAsCommitted(touched, tree: resultTree!, index: index!)
        CommitIntent.remove(touched, root: history.root)
        done.append("finished the merge (\(subject)) as \(oidString([commit]).prefix(7)), with vault's merge of the two commits")
        return (done, Array(Set(handEdited + ownNewFiles)).sorted())
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
