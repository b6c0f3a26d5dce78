import CGit2
import Foundation
import VaultCore

/// A three-way merge of two commits' trees, file by file, with vault's rules (`Merge` in
/// VaultCore): rooms by message id, diary entries and other text by lines (a conflict copy
/// where changes overlap, never markers), `vault.yml` key by key.
///
/// The two sides' changes are read as tree diffs from the merge base (libgit2's
/// `git_diff_tree_to_tree`, which skips unchanged folders by id, with rename detection), so
/// the cost grows with what changed, not with the size of the vault. Paths changed on one side
/// only take that side's version; paths changed on both are merged by their kind; an edit
/// beats a deletion; a rename on one side and an edit on the other gives the edit under the
/// new name; two rooms made under one name on both sides are kept apart (one renamed).
struct TreeMerge {
    /// One side of the merge.
    struct Side {
        var commit: OpaquePointer
        var tree: OpaquePointer
        /// The machine that made it (the `Vault-Machine:` trailer of its commit, else its author).
        var machine: String
        var time: Date
        /// The commit's short id (7 hex digits): what makes its conflict copies' names unique.
        var shortID: String { String(oidString(git_commit_id(commit)).prefix(7)) }

        /// The name of the conflict copy of `path` that holds this side's version (the side that
        /// lost): its machine, its commit time and its short id, the same on every machine.
        func conflictCopyName(of path: String) -> String {
            ConflictCopy.name(for: path, machine: machine, time: time, version: shortID)
        }
    }

    /// Whether `theirs` is the later side, whose change wins a tie (both changed one
    /// front-matter key, overlapping lines): the later commit, ties by the greater commit id, so
    /// every machine (and `vault merge-driver` in a `git pull`) picks the same.
    static func theirsIsNewer(ours: Side, theirs: Side) -> Bool {
        if ours.time != theirs.time { return theirs.time > ours.time }
        return oidString(git_commit_id(theirs.commit)) > oidString(git_commit_id(ours.commit))
    }

    /// A path of the result that differs from ours, and its new blob (nil: removed).
    struct Change {
        var path: String
        var oid: git_oid?
    }

    /// What the merge did, for the report.
    struct Outcome {
        var changes: [Change] = []
        var notes: [String] = []
        var renamed: [(from: String, to: String)] = []
        var conflictCopies: [String] = []
        /// Paths deleted on one side whose edit on the other side was kept.
        var keptEdits: [String] = []
        /// The base paths of files that live under another name now (renamed on one side or on
        /// both), whose base version the no-loss check compares with.
        var movedFromBase: [String] = []
        /// A file's name on the incoming side where the merge kept this side's other name (renamed
        /// differently on both sides): merged name → the incoming side's (no rename here, so not
        /// in `renamed`), for reading what the incoming side has of it (`Authorship`).
        var theirsNames: [String: String] = [:]
    }

    let history: GitHistory

    /// Merges `theirs` into `ours` over `base` (nil: no common history) and writes the merged
    /// files' blobs; the caller writes the tree, the commit and the files.
    func merge(base: OpaquePointer?, ours: Side, theirs: Side) throws(VaultError) -> Outcome {
        let oursEdits = try history.treeChanges(from: base, to: ours.tree)
        Trace.mark("tree merge: our changes read (\(oursEdits.byBase.count + oursEdits.added.count))")
        let theirsEdits = try history.treeChanges(from: base, to: theirs.tree)
        Trace.mark("tree merge: their changes read (\(theirsEdits.byBase.count + theirsEdits.added.count))")
        let theirsNewer = TreeMerge.theirsIsNewer(ours: ours, theirs: theirs)
        var outcome = Outcome()
        var result: [String: git_oid?] = [:]  // path → new blob (nil: absent), for paths that may differ from ours
        var claimed: [String: (oid: git_oid, fromBase: String?)] = [:]
        var roomMoves: [(from: String, to: String)] = []

        // Paths of the base changed on either side.
        let touched = Set(oursEdits.byBase.keys).union(theirsEdits.byBase.keys).sorted()
        func edits(_ basePath: String) -> (base: git_oid?, ours: PathEdit, theirs: PathEdit) {
            let baseOID = oursEdits.baseIDs[basePath] ?? theirsEdits.baseIDs[basePath]
            return (
                baseOID, oursEdits.byBase[basePath] ?? PathEdit(path: basePath, oid: baseOID),
                theirsEdits.byBase[basePath] ?? PathEdit(path: basePath, oid: baseOID)
            )
        }
        // The files both sides changed, merged on every core before the walk below uses them.
        let premerged = try premerge(
            touched.compactMap { basePath -> PendingMerge? in
                let (baseOID, o, t) = edits(basePath)
                guard let oursOID = o.oid, let theirsOID = t.oid, !GitHistory.same(o.oid, t.oid),
                    !GitHistory.same(o.oid, baseOID), !GitHistory.same(t.oid, baseOID)
                else { return nil }
                let path = TreeMerge.livingName(of: basePath, ours: o.path, theirs: t.path, theirsNewer: theirsNewer)
                return PendingMerge(basePath: basePath, path: path ?? basePath, base: baseOID, ours: oursOID, theirs: theirsOID)
            }, theirsNewer: theirsNewer)
        for basePath in touched {
            let (baseOID, o, t) = edits(basePath)
            // Where it lives now: a rename on one side wins; both renamed differently: the later side's name.
            var path = TreeMerge.livingName(of: basePath, ours: o.path, theirs: t.path, theirsNewer: theirsNewer)
            if let a = o.path, let b = t.path, a != b, a != basePath, b != basePath {
                if !theirsNewer { outcome.theirsNames[a] = b }
                outcome.notes.append("\(basePath) was renamed to \(a) here and to \(b) there: kept \(path!)")
            }
            if let p = path, p != basePath, o.path == basePath || t.path == basePath {
                outcome.renamed.append((basePath, p))
            }
            if o.path != basePath || t.path != basePath { outcome.movedFromBase.append(basePath) }
            // Its content.
            let content: git_oid?
            if GitHistory.same(o.oid, t.oid) {
                content = o.oid
            } else if GitHistory.same(o.oid, baseOID) {
                content = t.oid
            } else if GitHistory.same(t.oid, baseOID) {
                content = o.oid
            } else if o.oid == nil || t.oid == nil {
                content = o.oid ?? t.oid  // an edit beats a deletion
                outcome.keptEdits.append(path ?? basePath)
                outcome.notes.append(
                    "\(path ?? basePath): deleted on one side and edited on the other: the edited version is kept")
                if path == nil { path = o.path ?? t.path ?? basePath }
            } else {
                content = try mergeFile(
                    path: path ?? basePath, base: baseOID, ours: o.oid!, theirs: t.oid!, ours: ours, theirs: theirs,
                    theirsNewer: theirsNewer, premerged: premerged[basePath], outcome: &outcome)
            }
            if basePath != path { result[basePath] = .some(nil) }
            // Renamed differently on both sides and the other side's name kept: our name goes
            // (the file is one file, not two), unless another file's merge claims that path.
            if let a = o.path, a != basePath, let p = path, a != p, claimed[a] == nil {
                result[a] = .some(nil)
                outcome.renamed.append((a, p))
            }
            // Every name a room had, on either side, that is not its name now: its volumes follow.
            if let p = path, VaultPath.kind(of: p) == .room {
                for name in Set([basePath, o.path, t.path].compactMap { $0 }) where name != p && VaultPath.kind(of: name) == .room {
                    roomMoves.append((name, p))
                }
            }
            if let p = path, let c = content {
                result[p] = c
                claimed[p] = (c, basePath)
            } else if let p = path {
                result[p] = .some(nil)
            }
        }
        Trace.mark("tree merge: changed paths merged")
        // Paths new on either side.
        let added = Set(oursEdits.added.keys).union(theirsEdits.added.keys).sorted()
        for path in added {
            let o = oursEdits.added[path]
            let t = theirsEdits.added[path]
            var content: git_oid
            switch (o, t) {
            case (let a?, nil): content = a
            case (nil, let b?): content = b
            case (let a?, let b?):
                if GitHistory.same(a, b) {
                    content = a
                } else {
                    content = try mergeAdded(
                        path: path, ours: a, theirs: b, oursSide: ours, theirsSide: theirs, theirsNewer: theirsNewer,
                        outcome: &outcome, result: &result)
                }
            default: continue
            }
            if let earlier = claimed[path], !GitHistory.same(earlier.oid, content) {
                // A rename on one side onto a name the other side created: both kept apart.
                content = try mergeAdded(
                    path: path, ours: earlier.oid, theirs: content, oursSide: ours, theirsSide: theirs,
                    theirsNewer: theirsNewer, outcome: &outcome, result: &result)
            }
            result[path] = content
        }
        Trace.mark("tree merge: added paths merged")
        try carryVolumes(roomMoves, ours: ours, theirsNewer: theirsNewer, outcome: &outcome, result: &result)
        try oneFilePerMessage(base: base, ours: ours, outcome: &outcome, result: &result)
        // Only what differs from ours is a change.
        for (path, oid) in result.sorted(by: { $0.key < $1.key }) {
            let current = history.blob(at: path, in: ours.tree)
            if !GitHistory.same(current, oid) { outcome.changes.append(Change(path: path, oid: oid)) }
        }
        Trace.mark("tree merge: compared with ours")
        return outcome
    }

    /// Both sides changed a file of the base: merged by its kind.
    private func mergeFile(
        path: String, base: git_oid?, ours oursID: git_oid, theirs theirsID: git_oid, ours: Side, theirs: Side,
        theirsNewer: Bool, premerged: Result<FileMerge, VaultError>?, outcome: inout Outcome
    ) throws(VaultError) -> git_oid {
        let merged: FileMerge
        if let premerged {
            merged = try premerged.get()
        } else {
            let b = try base.map { id throws(VaultError) in try history.blobBytes(id) }
            let o = try history.blobBytes(oursID)
            let t = try history.blobBytes(theirsID)
            merged = try Merge.committed(path: path, base: b, ours: o, theirs: t, newer: theirsNewer ? .theirs : .ours)
        }
        outcome.notes += merged.notes.map { "\(path): \($0)" }
        if let copy = merged.conflictCopy {
            let copyPath = (theirsNewer ? ours : theirs).conflictCopyName(of: path)
            outcome.conflictCopies.append(copyPath)
            outcome.changes.append(Change(path: copyPath, oid: try history.writeBlob(copy)))
        }
        return try history.writeBlob(merged.bytes)
    }

    /// Where a file of the base lives after the merge: a rename on one side wins; renamed
    /// differently on both sides, the later side's name; nil when it is deleted.
    static func livingName(of basePath: String, ours a: String?, theirs b: String?, theirsNewer: Bool) -> String? {
        switch (a, b) {
        case (nil, nil): return nil
        case (let p?, nil), (nil, let p?): return p
        case (let a?, let b?):
            if a == b { return a }
            if a == basePath { return b }
            if b == basePath { return a }
            return theirsNewer ? b : a
        }
    }

    /// A file both sides changed, to be merged by `Merge.committed` (`premerge`).
    struct PendingMerge {
        var basePath: String
        var path: String
        var base: git_oid?
        var ours: git_oid
        var theirs: git_oid
    }

    /// `Merge.committed` of each of `pending`, by base path, the merges run on every core: the
    /// three versions read first (libgit2 is used from one thread), then each file merged by one
    /// worker, which shares nothing with the others (the merge is a function of the bytes). The
    /// results are taken in the order the merge walks the files, so the tree, the notes and a
    /// failure are those of merging one file after another. Fewer than two: none merged here.
    private func premerge(_ pending: [PendingMerge], theirsNewer: Bool)
        throws(VaultError) -> [String: Result<FileMerge, VaultError>]
    {
        guard pending.count >= 2 else { return [:] }
        // Up to 256 MiB of versions held at once; the files past that are merged one by one in the walk.
        var versions: [(base: [UInt8]?, ours: [UInt8], theirs: [UInt8])] = []
        var held = 0
        for p in pending where held < 256 << 20 {
            let v = (
                try p.base.map { id throws(VaultError) in try history.blobBytes(id) }, try history.blobBytes(p.ours),
                try history.blobBytes(p.theirs)
            )
            held += (v.0?.count ?? 0) + v.1.count + v.2.count
            versions.append(v)
        }
        let pending = Array(pending.prefix(versions.count))
        let newer: Merge.Newer = theirsNewer ? .theirs : .ours
        let jobs = zip(pending.map(\.path), versions).map { (path: $0.0, base: $0.1.base, ours: $0.1.ours, theirs: $0.1.theirs) }
        let results = jobs.mapOnEveryCore { v in
            Result { () throws(VaultError) -> FileMerge in
                try Merge.committed(path: v.path, base: v.base, ours: v.ours, theirs: v.theirs, newer: newer)
            }
        }
        var byBase: [String: Result<FileMerge, VaultError>] = [:]
        for (p, r) in zip(pending, results) { byBase[p.basePath] = r }
        Trace.mark("tree merge: \(pending.count) files merged on every core")
        return byBase
    }

    /// A room's volumes follow it (FORMAT.md, *Room volumes*): a volume one side wrote (a
    /// rollover) under the name the room has no more (renamed on the other side, or on both)
    /// moves to the folder of the name it has now, and is merged with a volume of the same
    /// number there as two volumes are (by message id: each message once).
    private func carryVolumes(
        _ moves: [(from: String, to: String)], ours: Side, theirsNewer: Bool, outcome: inout Outcome,
        result: inout [String: git_oid?]
    ) throws(VaultError) {
        for (from, to) in moves {
            let oldFolder = VaultPath.volumeFolder(ofRoom: from)
            let newFolder = VaultPath.volumeFolder(ofRoom: to)
            // The old folder's volumes in the result: ours, as the merge left them, and those it added.
            var found: [String: git_oid] = [:]
            if let tree = try history.subtree(oldFolder, of: git_tree_id(ours.tree).pointee) {
                let raw = try history.trees.read(tree)
                for e in GitHistory.entries(of: raw) where !e.isTree {
                    let path = oldFolder + "/" + String(decoding: raw[e.name], as: UTF8.self)
                    if case .some(let kept) = result[path] {
                        if let kept { found[path] = kept }
                    } else {
                        found[path] = TreeEditor.oid(raw, at: e.oid)
                    }
                }
            }
            for (path, oid) in result where path.hasPrefix(oldFolder + "/") {
                if let oid, !path.dropFirst(oldFolder.count + 1).contains("/") { found[path] = oid }
            }
            for (path, oid) in found.sorted(by: { $0.key < $1.key }) where VaultPath.room(ofVolume: path) == from {
                let target = newFolder + "/" + String(path.dropFirst(oldFolder.count + 1))
                let there: git_oid?
                if case .some(let value) = result[target] { there = value } else { there = history.blob(at: target, in: ours.tree) }
                if let there, !GitHistory.same(there, oid) {
                    let merged = try Merge.committed(
                        path: target, base: nil, ours: try history.blobBytes(there), theirs: try history.blobBytes(oid),
                        newer: theirsNewer ? .theirs : .ours)
                    outcome.notes += merged.notes.map { "\(target): \($0)" }
                    result[target] = try history.writeBlob(merged.bytes)
                } else if there == nil {
                    result[target] = oid
                }
                result[path] = .some(nil)
                outcome.renamed.append((path, target))
            }
        }
    }

    /// A room's messages are one sequence over its file and its volumes (FORMAT.md, *Room
    /// volumes*), though each file merges on its own: two clones that cut volumes at different
    /// messages leave a message in two files (two volumes, or a volume and the room's file).
    /// It stays in one: the version that changed from the ancestor's (an edit wins, as in a
    /// room), else the earliest file's (volumes in order, the room's file last). Two different
    /// edits are both kept where they are, as a room keeps two versions.
    private func oneFilePerMessage(
        base: OpaquePointer?, ours: Side, outcome: inout Outcome, result: inout [String: git_oid?]
    ) throws(VaultError) {
        // Only a merge that writes a volume can put a message in a second file.
        var rooms = Set<String>()
        for path in result.keys where VaultPath.kind(of: path) == .volume {
            if let room = VaultPath.room(ofVolume: path) { rooms.insert(room) }
        }
        for room in rooms.sorted() {
            let folder = VaultPath.volumeFolder(ofRoom: room)
            // The room's files in the result: volumes in order, then its file.
            var names = Set<String>()
            if let tree = try history.subtree(folder, of: git_tree_id(ours.tree).pointee) {
                let raw = try history.trees.read(tree)
                for e in GitHistory.entries(of: raw) where !e.isTree {
                    names.insert(folder + "/" + String(decoding: raw[e.name], as: UTF8.self))
                }
            }
            for path in result.keys where path.hasPrefix(folder + "/") && !path.dropFirst(folder.count + 1).contains("/") {
                names.insert(path)
            }
            func blob(_ path: String) -> git_oid? {
                if case .some(let kept) = result[path] { return kept }
                return history.blob(at: path, in: ours.tree)
            }
            let volumes = names.filter { VaultPath.room(ofVolume: $0) == room && blob($0) != nil }.sorted()
            guard !volumes.isEmpty else { continue }
            var files: [(path: String, messages: [(id: String, content: ArraySlice<UInt8>)])] = []
            for path in volumes + [room] {
                guard let id = blob(path), let messages = try? Merge.messageContents(of: try history.blobBytes(id), path: path)
                else { continue }
                files.append((path, messages))
            }
            var places: [String: [Int]] = [:]
            for (k, file) in files.enumerated() {
                for m in file.messages where places[m.id]?.last != k { places[m.id, default: []].append(k) }
            }
            let twice = places.filter { $0.value.count > 1 }
            guard !twice.isEmpty else { continue }
            let ancestor = try baseContents(of: room, in: base, ids: Set(twice.keys))
            var removals: [Int: Set<String>] = [:]
            for (id, where_) in twice {
                let versions = where_.map { k in (k, files[k].messages.first { $0.id == id }!.content) }
                let changed = versions.filter { $0.1 != ancestor[id] }
                let keep: [Int]
                if changed.isEmpty {
                    keep = [where_[0]]
                } else if Set(changed.map { Array($0.1) }).count == 1 {
                    keep = [changed[0].0]
                } else {
                    continue  // two different edits: both stay, as two versions
                }
                for k in where_ where !keep.contains(k) { removals[k, default: []].insert(id) }
            }
            for (k, ids) in removals.sorted(by: { $0.key < $1.key }) {
                let path = files[k].path
                let bytes = try history.blobBytes(blob(path)!)
                result[path] = try history.writeBlob(try Merge.removingMessages(ids, from: bytes, path: path))
            }
            if !removals.isEmpty {
                let n = removals.values.reduce(0) { $0 + $1.count }
                outcome.notes.append(
                    "\(room): \(Merge.counted(n, "message", "messages")) that two machines had put in different"
                        + " volumes kept in one")
            }
        }
    }

    /// The ancestor's version of the messages `ids` of `room`, from its file and its volumes.
    private func baseContents(of room: String, in base: OpaquePointer?, ids: Set<String>) throws(VaultError)
        -> [String: ArraySlice<UInt8>]
    {
        guard let base else { return [:] }
        var paths = [room]
        let folder = VaultPath.volumeFolder(ofRoom: room)
        if let tree = try history.subtree(folder, of: git_tree_id(base).pointee) {
            let raw = try history.trees.read(tree)
            for e in GitHistory.entries(of: raw) where !e.isTree {
                paths.append(folder + "/" + String(decoding: raw[e.name], as: UTF8.self))
            }
        }
        var out: [String: ArraySlice<UInt8>] = [:]
        for path in paths {
            guard let id = history.blob(at: path, in: base),
                let messages = try? Merge.messageContents(of: try history.blobBytes(id), path: path)
            else { continue }
            for m in messages where ids.contains(m.id) && out[m.id] == nil { out[m.id] = m.content }
        }
        return out
    }

    /// A path created on both sides with different contents.
    private func mergeAdded(
        path: String, ours: git_oid, theirs: git_oid, oursSide: Side, theirsSide: Side, theirsNewer: Bool,
        outcome: inout Outcome, result: inout [String: git_oid?]
    ) throws(VaultError) -> git_oid {
        let o = try history.blobBytes(ours)
        let t = try history.blobBytes(theirs)
        let rule = try Merge.addedTwice(
            path: path, ours: o, theirs: t, newer: theirsNewer ? .theirs : .ours,
            isTaken: { name in (result[name].map { $0 != nil } ?? false) || ((try? history.headBlob(name)) ?? nil) != nil })
        switch rule {
        case .apart(let later, let newPath):
            let (kept, moved) = later == .theirs ? (ours, theirs) : (theirs, ours)
            result[newPath] = moved
            outcome.renamed.append((path, newPath))
            outcome.notes.append(Merge.keptApart(path, newPath: newPath))
            return kept
        case .merged(let merged):
            outcome.notes += merged.notes.map { "\(path): \($0)" }
            if let copy = merged.conflictCopy {
                let copyPath = (theirsNewer ? oursSide : theirsSide).conflictCopyName(of: path)
                outcome.conflictCopies.append(copyPath)
                result[copyPath] = try history.writeBlob(copy)
            }
            return try history.writeBlob(merged.bytes)
        }
    }
}

/// What one side changed since the base.
struct TreeChanges {
    /// Base paths modified, deleted or renamed: where each went, and its new blob.
    var byBase: [String: PathEdit] = [:]
    /// The base's blob of each path in `byBase`.
    var baseIDs: [String: git_oid] = [:]
    /// New paths and their blobs.
    var added: [String: git_oid] = [:]
}

/// What one side did to a path of the base.
struct PathEdit {
    /// Where it is now; nil: deleted.
    var path: String?
    var oid: git_oid?
}

extension GitHistory {
    /// The changes from tree `old` (nil: empty) to `new`, renames found as `git diff -M` does.
    func treeChanges(from old: OpaquePointer?, to new: OpaquePointer) throws(VaultError) -> TreeChanges {
        let diff = try treeDiff(from: old, to: new, findingRenames: true)
        defer { git_diff_free(diff) }
        Trace.mark("tree merge: trees compared, renames found (\(git_diff_num_deltas(diff)) deltas)")
        var changes = TreeChanges()
        for delta in GitHistory.deltas(of: diff) {
            let oldPath = String(cString: delta.old_file.path)
            let newPath = String(cString: delta.new_file.path)
            switch delta.status {
            case GIT_DELTA_ADDED:
                changes.added[newPath] = delta.new_file.id
            case GIT_DELTA_DELETED:
                changes.byBase[oldPath] = PathEdit(path: nil, oid: nil)
                changes.baseIDs[oldPath] = delta.old_file.id
            case GIT_DELTA_MODIFIED, GIT_DELTA_TYPECHANGE:
                changes.byBase[oldPath] = PathEdit(path: newPath, oid: delta.new_file.id)
                changes.baseIDs[oldPath] = delta.old_file.id
            case GIT_DELTA_RENAMED where VaultPath.kind(of: oldPath) != VaultPath.kind(of: newPath):
                // Alike, but not one file renamed: a room's older messages moved to a new volume
                // (format 3), say, are not the room moved there. A deletion and a new file.
                changes.byBase[oldPath] = PathEdit(path: nil, oid: nil)
                changes.baseIDs[oldPath] = delta.old_file.id
                changes.added[newPath] = delta.new_file.id
            case GIT_DELTA_RENAMED:
                changes.baseIDs[oldPath] = delta.old_file.id
                if VaultPath.kind(of: oldPath) == .room,
                    !Merge.isSameItem(
                        try blobBytes(delta.old_file.id), try blobBytes(delta.new_file.id), oldPath: oldPath,
                        newPath: newPath)
                {
                    // Two rooms alike in their bytes (one made from the other's text), not one room renamed.
                    changes.byBase[oldPath] = PathEdit(path: nil, oid: nil)
                    changes.added[newPath] = delta.new_file.id
                } else {
                    changes.byBase[oldPath] = PathEdit(path: newPath, oid: delta.new_file.id)
                }
            default:
                continue
            }
        }
        try pairRoomsByIdentity(&changes)
        return changes
    }

    /// A room deleted and a room added that are one room (`Merge.isSameItem`: a message id in
    /// common) are one room renamed, whatever their bytes: a room renamed and rolled over
    /// (format 3) keeps only its newest messages in the file under its new name, which git's
    /// similarity does not pair with the old file (it pairs the old file with the volume).
    private func pairRoomsByIdentity(_ changes: inout TreeChanges) throws(VaultError) {
        let deleted = changes.byBase.filter { $0.value.path == nil && VaultPath.kind(of: $0.key) == .room }.keys.sorted()
        var added = changes.added.keys.filter { VaultPath.kind(of: $0) == .room }.sorted()
        guard !deleted.isEmpty, !added.isEmpty, deleted.count * added.count <= 10_000 else { return }
        // A new room's new volumes hold its older messages: those it shares with the old room.
        var volumes: [String: [String]] = [:]
        for path in changes.added.keys where VaultPath.kind(of: path) == .volume {
            if let room = VaultPath.room(ofVolume: path) { volumes[room, default: []].append(path) }
        }
        var addedBytes: [String: [UInt8]] = [:]
        func bytes(_ path: String) throws(VaultError) -> [UInt8] {
            if let b = addedBytes[path] { return b }
            let b = try blobBytes(changes.added[path]!)
            addedBytes[path] = b
            return b
        }
        for old in deleted {
            guard let baseID = changes.baseIDs[old] else { continue }
            let before = try blobBytes(baseID)
            for new in added {
                var same = Merge.isSameItem(before, try bytes(new), oldPath: old, newPath: new)
                for volume in volumes[new] ?? [] where !same {
                    same = Merge.isSameRoom(before, try bytes(volume), path: volume)
                }
                guard same else { continue }
                changes.byBase[old] = PathEdit(path: new, oid: changes.added[new])
                changes.added[new] = nil
                added.removeAll { $0 == new }
                break
            }
        }
    }

    /// The bytes of a blob.
    func blobBytes(_ id: git_oid) throws(VaultError) -> [UInt8] {
        var oid = id
        var blob: OpaquePointer?
        try GitFailure.check(git_blob_lookup(&blob, repo, &oid), "read a file from the repository")
        defer { git_blob_free(blob) }
        let size = Int(git_blob_rawsize(blob))
        guard size > 0, let raw = git_blob_rawcontent(blob) else { return [] }
        return Array(UnsafeRawBufferPointer(start: raw, count: size))
    }

    /// The blob of `path` in `tree` (nil: no tree, or no such file), found by libgit2's binary
    /// search of the parsed trees; for the many lookups of a merge in large folders.
    func blob(at path: String, in tree: OpaquePointer?) -> git_oid? {
        guard let tree else { return nil }
        var entry: OpaquePointer?
        guard git_tree_entry_bypath(&entry, tree, path) == 0 else { return nil }
        defer { git_tree_entry_free(entry) }
        guard git_tree_entry_type(entry) == GIT_OBJECT_BLOB else { return nil }
        return git_tree_entry_id(entry).pointee
    }

    /// The blob of `path` in HEAD, if any.
    func headBlob(_ path: String) throws(VaultError) -> git_oid? {
        guard let head = try headCommit() else { return nil }
        defer { git_commit_free(head.commit); git_tree_free(head.tree) }
        return try trees.blob(at: path, in: git_tree_id(head.tree).pointee)
    }

    static func same(_ a: git_oid?, _ b: git_oid?) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case (let x?, let y?): return same(x, y)
        default: return false
        }
    }
}
