import CGit2
import Foundation
import VaultCore

/// Merge commits vault did not make, checked as vault checks its own: a `git pull` by hand
/// whose conflict the person settled by keeping one side (`git commit -a` after git left its own
/// version with no markers), another tool's merge, a merge made on another machine and pushed.
/// What such a merge dropped (a message or entry text one parent had and neither the merge nor
/// the parents' common ancestor has: `Integrity.lostVersions`) is given back: a room's messages
/// into the room as it is now (`Merge.handEdits`, messages only), an entry's text as a conflict
/// copy beside it, unless the room or entry has it again by then.
///
/// `vault sync` runs it on every commit that reached the branch since the last check (its own
/// pull, the person's `git pull`, a fast-forward): the commits reachable from HEAD and not from
/// `refs/vault/sync/checked`, which it moves to HEAD afterwards. Merges vault made itself (their
/// `Vault-Machine:` trailer) were checked when they were made and are passed over.
struct DroppedByMerges {
    let history: GitHistory
    static let checkedRef = "refs/vault/sync/checked"
    /// How many commits one check walks at most (a first sync of a long history).
    static let walkLimit = 2_000

    /// What one merge dropped of one file.
    struct Loss {
        var path: String
        /// The merge's short id.
        var commit: String
        var time: Date
        var machine: String
        /// The parent's version of the file, which holds what the merge dropped.
        var version: [UInt8]
        /// The versions the merge had to start from and made: the common ancestor's and its own.
        var known: [[UInt8]]
        var labels: [String]
    }

    /// The losses of the merges among the commits reachable from HEAD and not from `checkedRef`.
    func losses() throws(VaultError) -> [Loss] {
        var walk: OpaquePointer?
        try GitFailure.check(git_revwalk_new(&walk, history.repo), "walk the history")
        defer { git_revwalk_free(walk) }
        guard git_revwalk_push_head(walk) == 0 else { return [] }
        var checked = git_oid()
        if git_reference_name_to_id(&checked, history.repo, DroppedByMerges.checkedRef) == 0 {
            _ = git_revwalk_hide(walk, &checked)
        }
        var out: [Loss] = []
        var oid = git_oid()
        var seen = 0
        while git_revwalk_next(&oid, walk) == 0, seen < DroppedByMerges.walkLimit {
            seen += 1
            var commit: OpaquePointer?
            try GitFailure.check(git_commit_lookup(&commit, history.repo, &oid), "read a commit")
            defer { git_commit_free(commit) }
            guard git_commit_parentcount(commit) == 2 else { continue }
            // A merge vault made (its `Vault-Machine:` trailer) was checked before it was written
            // (`verify`); one that only claims so could as well have deleted in a commit of its own.
            let message = git_commit_message(commit).map { String(cString: $0) } ?? ""
            if message.contains("\nVault-Machine: ") { continue }
            out += try losses(of: commit!)
        }
        return out
    }

    /// Moves `checkedRef` to HEAD: everything up to it was checked.
    func markChecked() throws(VaultError) {
        guard let head = try history.headCommit() else { return }
        defer { git_commit_free(head.commit); git_tree_free(head.tree) }
        try history.setReference(DroppedByMerges.checkedRef, to: git_commit_id(head.commit).pointee)
    }

    /// What the merge `commit` (two parents) dropped of what its parents made.
    private func losses(of commit: OpaquePointer) throws(VaultError) -> [Loss] {
        var parents: [OpaquePointer] = []
        var trees: [OpaquePointer] = []
        defer {
            trees.forEach { git_tree_free($0) }
            parents.forEach { git_commit_free($0) }
        }
        for k in 0..<2 {
            var parent: OpaquePointer?
            try GitFailure.check(git_commit_parent(&parent, commit, UInt32(k)), "read a merge's parent")
            parents.append(parent!)
            var tree: OpaquePointer?
            try GitFailure.check(git_commit_tree(&tree, parent), "read a merge's parent's tree")
            trees.append(tree!)
        }
        var mergeTree: OpaquePointer?
        try GitFailure.check(git_commit_tree(&mergeTree, commit), "read a merge's tree")
        defer { git_tree_free(mergeTree) }
        var baseTree: OpaquePointer?
        var a = git_commit_id(parents[0]).pointee
        var b = git_commit_id(parents[1]).pointee
        var baseID = git_oid()
        if git_merge_base(&baseID, history.repo, &a, &b) == 0 {
            var base: OpaquePointer?
            if git_commit_lookup(&base, history.repo, &baseID) == 0 {
                _ = git_commit_tree(&baseTree, base)
                git_commit_free(base)
            }
        }
        defer { git_tree_free(baseTree) }
        // Only the paths the merge made differ from a parent can have lost anything.
        var paths = Set<String>()
        for tree in trees {
            for change in try history.directChanges(from: tree, to: mergeTree!) { paths.insert(change.path) }
        }
        var versions = (base: [String: [UInt8]](), ours: [String: [UInt8]](), theirs: [String: [UInt8]](),
            result: [String: [UInt8]]())
        func read(_ tree: OpaquePointer?, _ path: String, into map: inout [String: [UInt8]]) throws(VaultError) {
            if let id = history.blob(at: path, in: tree) { map[path] = try history.blobBytes(id) }
        }
        for path in paths where [.room, .volume, .diaryEntry].contains(VaultPath.kind(of: path)) {
            try read(trees[0], path, into: &versions.ours)
            try read(trees[1], path, into: &versions.theirs)
            try read(baseTree, path, into: &versions.base)
            try read(mergeTree, path, into: &versions.result)
        }
        let lost = Integrity.lostVersions(
            base: versions.base, ours: versions.ours, theirs: versions.theirs, result: versions.result)
        guard !lost.isEmpty else { return [] }
        let side = history.side(commit, tree: mergeTree!)
        var byFile: [String: Loss] = [:]
        for item in lost {
            let key = "\(item.side == .ours ? 0 : 1)\(item.path)"
            let version = (item.side == .ours ? versions.ours : versions.theirs)[item.path] ?? []
            byFile[key, default: Loss(
                path: item.path, commit: side.shortID, time: side.time, machine: side.machine, version: version,
                known: [versions.base[item.path], versions.result[item.path]].compactMap { $0 }, labels: [])
            ].labels.append(item.label)
        }
        return byFile.keys.sorted().map { byFile[$0]! }
    }

    /// The files to write so that HEAD's tree (the files as committed) holds again what `losses`
    /// dropped, and a line for the person per file; nothing for what is back already.
    func restoring(_ losses: [Loss]) throws(VaultError) -> (writes: [(path: String, bytes: [UInt8])], notes: [String]) {
        guard !losses.isEmpty, let head = try history.headCommit() else { return ([], []) }
        defer { git_commit_free(head.commit); git_tree_free(head.tree) }
        var current: [String: [UInt8]] = [:]
        var notes: [String] = []
        func now(_ path: String) throws(VaultError) -> [UInt8]? {
            if let bytes = current[path] { return bytes }
            return try history.blob(at: path, in: head.tree).map { id throws(VaultError) in try history.blobBytes(id) }
        }
        for loss in losses {
            let kind = VaultPath.kind(of: loss.path)
            let room = kind == .volume ? VaultPath.room(ofVolume: loss.path) ?? loss.path : loss.path
            if kind == .room || kind == .volume, let bytes = try now(room),
                let dropped = try? RoomFile(parsing: loss.version, path: loss.path)
            {
                // Each message the merge dropped, unless the room (or one of its volumes) has its id again.
                let there = try idsOfRoom(room, bytes: bytes, in: head.tree)
                let missing = dropped.messages.filter { m in
                    loss.labels.contains("message \(m.id)") && !there.contains(m.id)
                }
                guard !missing.isEmpty else { continue }
                let restored = try Merge.handEdits(
                    loss.version, onto: bytes, known: loss.known, path: room, onlyMessages: true)
                guard restored.bytes != bytes else { continue }
                current[room] = restored.bytes
                notes.append(
                    "\(room): \(Merge.counted(missing.count, "message", "messages")) that the merge \(loss.commit)"
                        + " (\(loss.machine)) dropped \(missing.count == 1 ? "is" : "are") back")
            } else if kind == .diaryEntry || kind == .room || kind == .volume {
                // Kept as a conflict copy beside it, named after the merge: the same on every machine.
                let copy = ConflictCopy.name(for: loss.path, machine: loss.machine, time: loss.time, version: loss.commit)
                guard history.blob(at: copy, in: head.tree) == nil, current[copy] == nil else { continue }
                if let bytes = try now(loss.path), Integrity.lost(
                    base: [:], ours: [loss.path: loss.version], theirs: [:], result: [loss.path: bytes]).isEmpty
                {
                    continue
                }
                current[copy] = loss.version
                notes.append("\(loss.path): the text the merge \(loss.commit) (\(loss.machine)) dropped is kept in \(copy)")
            }
        }
        return (current.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }, notes)
    }

    /// The message ids of the room at `path` (its file's `bytes`) and of its volumes in `tree`.
    private func idsOfRoom(_ path: String, bytes: [UInt8], in tree: OpaquePointer) throws(VaultError) -> Set<String> {
        var ids = Set((try? RoomFile(parsing: bytes, path: path))?.messages.map(\.id) ?? [])
        let folder = VaultPath.volumeFolder(ofRoom: path)
        guard let sub = try history.subtree(folder, of: git_tree_id(tree).pointee) else { return ids }
        let raw = try history.trees.read(sub)
        for e in GitHistory.entries(of: raw) where !e.isTree {
            let volume = folder + "/" + String(decoding: raw[e.name], as: UTF8.self)
            let bytes = try history.blobBytes(TreeEditor.oid(raw, at: e.oid))
            for m in (try? RoomFile(parsing: bytes, path: volume))?.messages ?? [] { ids.insert(m.id) }
        }
        return ids
    }
}
