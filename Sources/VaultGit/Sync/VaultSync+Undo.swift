import CGit2
import Foundation
import VaultCore

extension VaultSync {
    /// Puts the vault back as it was before the last sync: the branch moves back to
    /// `refs/vault/sync/before` and the files follow. Refused when commits were made since the
    /// sync (they would be lost); the undone merge stays reachable as `refs/vault/sync/undone`,
    /// and the remote is not touched. Unread marks the sync added to the files it restores are
    /// taken back.
    ///
    /// Uncommitted edits (a file saved in an editor, a new or deleted file) are never committed
    /// nor touched: every edited file stays as it is, uncommitted. One the sync had also changed
    /// keeps the edited version, which holds what the sync brought into it
    /// (`UndoReport.editedAndSynced`); the others come back as they were before the sync. So not
    /// a word is lost, even when the undo is killed half-way.
    public func undo() throws(VaultError) -> UndoReport {
        let syncLock = try holdSyncLock().lock
        defer { withExtendedLifetime(syncLock) {} }
        return try vault.change { _ throws(VaultError) -> UndoReport in
            guard let before = try history.referenceCommit(VaultSync.beforeRef),
                let after = try history.referenceCommit(VaultSync.afterRef)
            else {
                throw VaultError.input(.noSyncToUndo)
            }
            defer { git_commit_free(before); git_commit_free(after) }
            guard let head = try history.headCommit() else { throw VaultError.input(.noSyncToUndo) }
            defer { git_commit_free(head.commit); git_tree_free(head.tree) }
            guard git_oid_equal(git_commit_id(head.commit), git_commit_id(after)) != 0 else {
                throw VaultError.input(.commitsAfterSync(String(oidString(git_commit_id(after)).prefix(7))))
            }
            var beforeTree: OpaquePointer?
            try GitFailure.check(git_commit_tree(&beforeTree, before), "read the tree before the sync")
            defer { git_tree_free(beforeTree) }
            let edited = try history.workTreeChanges()
            let changes = try history.directChanges(from: head.tree, to: beforeTree!)
            let restored = changes.filter { !edited.contains($0.path) }
            let kept = changes.map(\.path).filter { edited.contains($0) }
            // A room the sync renamed comes back under its old name, its marks with it.
            let renames = try history.renamedRooms(in: restored, from: beforeTree!, to: head.tree)
            var marks = try history.newMessages(
                in: restored.filter { c in !renames.contains { $0.now == c.path } }, from: beforeTree!, to: head.tree)
            for r in renames {
                let ids = try history.messageIDs(r.now, in: head.tree).subtracting(try history.messageIDs(r.before, in: beforeTree!))
                if !ids.isEmpty { marks.append((r.now, ids.sorted())) }
            }
            try history.checkoutAndMoveBranch(
                restored, replacing: head.tree, to: git_commit_id(before).pointee, from: head.commit,
                message: "vault: sync --undo")
            // The edited files' index entries follow the branch: their edits show as uncommitted.
            try history.resetIndexEntries(kept, to: beforeTree!)
            try history.setReference(VaultSync.undoneRef, to: git_commit_id(after).pointee)
            history.deleteReference(VaultSync.afterRef)
            history.deleteReference(VaultSync.beforeRef)
            UnreadMarks.remove(marks, root: vault.root)
            UnverifiedMarks.remove(marks, root: vault.root)
            for r in renames { UnverifiedMarks.move(from: r.now, to: r.before, root: vault.root) }
            return UndoReport(
                restored: oidString(git_commit_id(before)), undone: oidString(git_commit_id(after)),
                paths: restored.map(\.path), keptEdits: edited, editedAndSynced: kept)
        }
    }
}

/// What `vault sync --undo` did.
public struct UndoReport: Sendable, Codable {
    /// The commit the branch is back at.
    public var restored: String
    /// The sync's commit, kept as `refs/vault/sync/undone`.
    public var undone: String
    /// The files brought back to their version before the sync.
    public var paths: [String]
    /// Uncommitted edits, left as they were and still uncommitted.
    public var keptEdits: [String] = []
    /// Of those, the files the sync had changed: they keep the edited version, so what the sync
    /// brought into them is still there.
    public var editedAndSynced: [String] = []
}

extension GitHistory {
    /// The message ids each room of `changes` has in `new` and not in `old` (room path → ids).
    func newMessages(in changes: [TreeMerge.Change], from old: OpaquePointer, to new: OpaquePointer)
        throws(VaultError) -> [(path: String, ids: [String])]
    {
        var out: [(path: String, ids: [String])] = []
        for change in changes where VaultPath.kind(of: change.path) == .room {
            func ids(_ tree: OpaquePointer) throws(VaultError) -> Set<String> {
                guard let blob = blob(at: change.path, in: tree) else { return [] }
                let room = try? RoomFile(parsing: try blobBytes(blob), path: change.path)
                return Set(room?.messages.map(\.id) ?? [])
            }
            let added = try ids(new).subtracting(try ids(old))
            if !added.isEmpty { out.append((change.path, added.sorted())) }
        }
        return out
    }

    /// The rooms of `changes` (from `new` back to `old`) that `new` has under another name than
    /// `old` (one room removed and one added that are one item, `Merge.isSameItem`).
    func renamedRooms(in changes: [TreeMerge.Change], from old: OpaquePointer, to new: OpaquePointer)
        throws(VaultError) -> [(now: String, before: String)]
    {
        let rooms = changes.filter { VaultPath.kind(of: $0.path) == .room }
        let gone = rooms.filter { $0.oid == nil }.map(\.path)  // in `new` only
        let back = rooms.compactMap { c in c.oid.map { (c.path, $0) } }.filter { blob(at: $0.0, in: new) == nil }
        guard !gone.isEmpty, !back.isEmpty, gone.count * back.count <= 10_000 else { return [] }
        var out: [(now: String, before: String)] = []
        for path in gone {
            guard let id = blob(at: path, in: new) else { continue }
            let bytes = try blobBytes(id)
            for (oldPath, oldID) in back where !out.contains(where: { $0.before == oldPath }) {
                if Merge.isSameItem(try blobBytes(oldID), bytes, oldPath: oldPath, newPath: path) {
                    out.append((path, oldPath))
                    break
                }
            }
        }
        return out
    }

    /// The ids of the messages of the room at `path` in `tree`.
    func messageIDs(_ path: String, in tree: OpaquePointer) throws(VaultError) -> Set<String> {
        guard let id = blob(at: path, in: tree) else { return [] }
        return Set((try? RoomFile(parsing: try blobBytes(id), path: path))?.messages.map(\.id) ?? [])
    }

    /// Sets the index entries of `paths` to their version in `tree` (removed where it has none),
    /// whatever the files in the work tree hold.
    func resetIndexEntries(_ paths: [String], to tree: OpaquePointer) throws(VaultError) {
        guard !paths.isEmpty else { return }
        var index: OpaquePointer?
        try GitFailure.check(git_repository_index(&index, repo), "open the index")
        defer { git_index_free(index) }
        try GitFailure.check(git_index_read(index, 0), "read the index")
        for path in paths {
            var entry: OpaquePointer?
            guard git_tree_entry_bypath(&entry, tree, path) == 0 else {
                if git_index_get_bypath(index, path, 0) != nil {
                    try GitFailure.check(git_index_remove_bypath(index, path), "remove \(path) from the index")
                }
                continue
            }
            defer { git_tree_entry_free(entry) }
            var item = git_index_entry()
            item.id = git_tree_entry_id(entry).pointee
            item.mode = UInt32(git_tree_entry_filemode(entry).rawValue)
            let code = path.withCString { name -> Int32 in
                item.path = name
                return git_index_add(index, &item)
            }
            try GitFailure.check(code, "put \(path) in the index")
        }
        try GitFailure.check(git_index_write(index), "write the index")
    }
}
