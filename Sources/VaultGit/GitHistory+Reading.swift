import CGit2
import Foundation
import VaultCore

/// One commit, as `vault log` shows it.
public struct HistoryEntry: Sendable, Codable, Hashable {
    /// Full commit id.
    public var id: String
    /// The first seven characters of the id.
    public var shortID: String { String(id.prefix(7)) }
    /// Commit time with the committer's offset, as written (vault writes the vault zone's).
    public var time: String
    public var author: String
    public var summary: String
    /// The paths the commit changed (added, changed or deleted), compared with its first
    /// parent; every path for the first commit.
    public var files: [String]
}

/// Which commits `GitHistory.log` lists.
public struct LogFilter: Sendable {
    /// Only commits that changed this path.
    public var path: String?
    /// Only commits made on or after this day, in `zone`.
    public var since: LocalDate?
    /// Only commits made on or before this day, in `zone`.
    public var until: LocalDate?
    /// The zone the days are in (the vault's).
    public var zone: TimeZone
    /// At most this many.
    public var limit: Int

    public init(
        path: String? = nil, since: LocalDate? = nil, until: LocalDate? = nil, zone: TimeZone = .gmt, limit: Int = 50
    ) {
        self.path = path
        self.since = since
        self.until = until
        self.zone = zone
        self.limit = limit
    }
}

extension GitHistory {
    /// Commits from HEAD backwards, newest first; with `path`, only those that changed it
    /// (including the one that deleted it).
    public func log(path: String? = nil, limit: Int = 50) throws(VaultError) -> [HistoryEntry] {
        try log(LogFilter(path: path, limit: limit))
    }

    /// Commits from HEAD backwards, newest first, as `filter` narrows them. The walk stops at the
    /// first commit older than `since` (commits are walked by time, as `git log --since` does).
    /// A path is followed across a commit that renamed it with its bytes unchanged (`vault
    /// migrate` moving a room into its year's folder), as `git log --follow` does: the commits
    /// before it are those that changed its former name.
    public func log(_ filter: LogFilter) throws(VaultError) -> [HistoryEntry] {
        guard filter.limit > 0, let head = try headCommit() else { return [] }
        git_commit_free(head.commit)
        git_tree_free(head.tree)
        var walk: OpaquePointer?
        try GitFailure.check(git_revwalk_new(&walk, repo), "walk the history")
        defer { git_revwalk_free(walk) }
        git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL.rawValue | GIT_SORT_TIME.rawValue)
        try GitFailure.check(git_revwalk_push_head(walk), "walk the history")
        var out: [HistoryEntry] = []
        var oid = git_oid()
        var path = filter.path
        while out.count < filter.limit, git_revwalk_next(&oid, walk) == 0 {
            var commit: OpaquePointer?
            try GitFailure.check(git_commit_lookup(&commit, repo, &oid), "read a commit")
            defer { git_commit_free(commit) }
            var changed = true
            if let followed = path {
                changed = try changes(commit!, followed)
                // Renamed here: older commits hold it under its former name.
                if changed, let former = try renamedFrom(commit!, followed) { path = former }
            }
            if filter.since != nil || filter.until != nil {
                let seconds = Double(git_commit_time(commit))
                let day = Timestamp(date: Date(timeIntervalSince1970: seconds), timeZone: filter.zone).localDate
                if let since = filter.since, day < since { break }
                if let until = filter.until, day > until { continue }
            }
            if changed { out.append(try entry(commit!)) }
        }
        return out
    }

    /// The path `path` had in `commit`'s first parent when `commit` added it by an exact rename
    /// (a path of the parent removed by `commit`, with the same bytes; one with the same file
    /// name first); nil when `commit` did not add it, or made it anew.
    func renamedFrom(_ commit: OpaquePointer, _ path: String) throws(VaultError) -> String? {
        guard let blob = try blobID(in: commit, path), git_commit_parentcount(commit) > 0 else { return nil }
        var parent: OpaquePointer?
        guard git_commit_parent(&parent, commit, 0) == 0 else { return nil }
        defer { git_commit_free(parent) }
        guard try blobID(in: parent!, path) == nil else { return nil }
        let diff = try diffWithFirstParent(commit)
        defer { git_diff_free(diff) }
        let name = VaultPath.stem(of: path)
        var found: [String] = []
        for var delta in GitHistory.deltas(of: diff) where delta.status == GIT_DELTA_DELETED {
            if oidString(&delta.old_file.id) == blob { found.append(String(cString: delta.old_file.path)) }
        }
        return found.first { VaultPath.stem(of: $0) == name } ?? found.first
    }

    /// The name the file at `path` in HEAD had in `target`, followed back along first parents
    /// across exact renames (`renamedFrom`); nil when it had no other name there, or `target`
    /// is not on that line of commits.
    func formerPath(of path: String, at target: OpaquePointer) throws(VaultError) -> String? {
        guard let head = try headCommit() else { return nil }
        git_tree_free(head.tree)
        var current: OpaquePointer? = head.commit
        defer { git_commit_free(current) }
        var name = path
        let targetID = oidString(git_commit_id(target))
        while let c = current, oidString(git_commit_id(c)) != targetID {
            if let former = try renamedFrom(c, name) { name = former }
            var parent: OpaquePointer?
            guard git_commit_parentcount(c) > 0, git_commit_parent(&parent, c, 0) == 0 else { return nil }
            git_commit_free(c)
            current = parent
        }
        return name == path ? nil : name
    }

    func entry(_ commit: OpaquePointer) throws(VaultError) -> HistoryEntry {
        let offsetMinutes = Int(git_commit_time_offset(commit))
        let seconds = Double(git_commit_time(commit))
        let time = Timestamp(
            date: Date(timeIntervalSince1970: seconds), timeZone: TimeZone(secondsFromGMT: offsetMinutes * 60) ?? .gmt)
        let author = git_commit_author(commit).map { String(cString: $0.pointee.name) } ?? ""
        let summary = git_commit_summary(commit).map { String(cString: $0) } ?? ""
        return HistoryEntry(
            id: oidString(git_commit_id(commit)), time: time.text, author: author, summary: summary,
            files: try changedPaths(commit))
    }

    /// The paths `commit` changed compared with its first parent (with none: every path), in
    /// the tree's order. Folders that did not change are skipped by their ids.
    func changedPaths(_ commit: OpaquePointer) throws(VaultError) -> [String] {
        let diff = try diffWithFirstParent(commit)
        defer { git_diff_free(diff) }
        return GitHistory.deltas(of: diff).map { delta in
            String(cString: (delta.status == GIT_DELTA_DELETED ? delta.old_file : delta.new_file).path)
        }
    }

    /// The diff of `commit`'s tree from its first parent's (from no tree for a first commit);
    /// the caller frees it with `git_diff_free`. Folders that did not change are skipped by their ids.
    func diffWithFirstParent(_ commit: OpaquePointer) throws(VaultError) -> OpaquePointer {
        var tree: OpaquePointer?
        try GitFailure.check(git_commit_tree(&tree, commit), "read a commit's tree")
        defer { git_tree_free(tree) }
        var parent: OpaquePointer?
        var parentTree: OpaquePointer?
        if git_commit_parentcount(commit) > 0, git_commit_parent(&parent, commit, 0) == 0 {
            try GitFailure.check(git_commit_tree(&parentTree, parent), "read a commit's tree")
        }
        defer {
            git_tree_free(parentTree)
            git_commit_free(parent)
        }
        return try treeDiff(from: parentTree, to: tree, "compare a commit with its parent")
    }

    /// True when `commit` changed `path` compared with its first parent.
    func changes(_ commit: OpaquePointer, _ path: String) throws(VaultError) -> Bool {
        let now = try blobID(in: commit, path)
        var parent: OpaquePointer?
        guard git_commit_parentcount(commit) > 0, git_commit_parent(&parent, commit, 0) == 0 else { return now != nil }
        defer { git_commit_free(parent) }
        return try blobID(in: parent!, path) != now
    }

    /// The id of `path`'s blob in `commit`, or `nil` when the path is not there.
    func blobID(in commit: OpaquePointer, _ path: String) throws(VaultError) -> String? {
        var tree: OpaquePointer?
        try GitFailure.check(git_commit_tree(&tree, commit), "read a commit's tree")
        defer { git_tree_free(tree) }
        var entry: OpaquePointer?
        guard git_tree_entry_bypath(&entry, tree, path) == 0 else { return nil }
        defer { git_tree_entry_free(entry) }
        return oidString(git_tree_entry_id(entry))
    }

    /// The commit a revision names (`HEAD~2`, an id, a branch).
    func commit(_ revision: String) throws(VaultError) -> OpaquePointer {
        var object: OpaquePointer?
        let code = git_revparse_single(&object, repo, revision)
        guard code == 0 else {
            throw VaultError.input(.unknownRevision(revision))
        }
        var commit: OpaquePointer?
        let peeled = git_object_peel(&commit, object, GIT_OBJECT_COMMIT)
        git_object_free(object)
        try GitFailure.check(peeled, "read the commit '\(revision)'")
        return commit!
    }

    /// The bytes of `path` as of `revision`, or `nil` when it did not exist then.
    /// The bytes of `path` at `revision`, under the name it had there when it was renamed since
    /// with its bytes unchanged (`formerPath`: a room `vault migrate` moved); nil when it was
    /// not there.
    public func contents(of path: String, at revision: String) throws(VaultError) -> [UInt8]? {
        let c = try commit(revision)
        defer { git_commit_free(c) }
        if let bytes = try contents(of: path, in: c) { return bytes }
        guard let former = try formerPath(of: path, at: c) else { return nil }
        return try contents(of: former, in: c)
    }

    /// Every file below `folder` at `revision` (a room's volumes), with its bytes, sorted by
    /// path; none when the folder was not there.
    public func files(under folder: String, at revision: String) throws(VaultError) -> [(path: String, bytes: [UInt8])] {
        let c = try commit(revision)
        defer { git_commit_free(c) }
        guard let tree = try subtree(folder, of: git_commit_tree_id(c).pointee) else { return [] }
        var paths: [String] = []
        try allFiles(in: tree, prefix: folder + "/") { paths.append($0) }
        var out: [(String, [UInt8])] = []
        for path in paths.sorted(by: VaultPath.precedes) {
            if let bytes = try contents(of: path, in: c) { out.append((path, bytes)) }
        }
        return out
    }

    /// The bytes of `path` in HEAD (`VaultHistory`): nil when HEAD has no such file, or the
    /// repository no commit yet.
    public func committedVersion(of path: String) throws(VaultError) -> [UInt8]? {
        guard let head = try headCommit() else { return nil }
        defer { git_commit_free(head.commit); git_tree_free(head.tree) }
        return try contents(of: path, in: head.commit)
    }

    func contents(of path: String, in commit: OpaquePointer) throws(VaultError) -> [UInt8]? {
        var tree: OpaquePointer?
        try GitFailure.check(git_commit_tree(&tree, commit), "read a commit's tree")
        defer { git_tree_free(tree) }
        var entry: OpaquePointer?
        guard git_tree_entry_bypath(&entry, tree, path) == 0 else { return nil }
        defer { git_tree_entry_free(entry) }
        var blob: OpaquePointer?
        try GitFailure.check(git_blob_lookup(&blob, repo, git_tree_entry_id(entry)), "read \(path)")
        defer { git_blob_free(blob) }
        let size = Int(git_blob_rawsize(blob))
        guard size > 0, let raw = git_blob_rawcontent(blob) else { return [] }
        return Array(UnsafeRawBufferPointer(start: raw, count: size))
    }

    /// A unified diff from `old` to `new` (both shown as `path`, in UTF-8 text even past ASCII),
    /// or "" when they are equal.
    public func unifiedDiff(_ old: [UInt8]?, _ new: [UInt8]?, path: String, context: Int = 3) throws(VaultError)
        -> String
    {
        var options = git_diff_options()
        git_diff_options_init(&options, UInt32(GIT_DIFF_OPTIONS_VERSION))
        options.context_lines = UInt32(context)
        var patch: OpaquePointer?
        let oldBytes = old ?? []
        let newBytes = new ?? []
        let code = oldBytes.withUnsafeBytes { o in
            newBytes.withUnsafeBytes { n in
                git_patch_from_buffers(
                    &patch, old == nil ? nil : o.baseAddress, o.count, path, new == nil ? nil : n.baseAddress, n.count,
                    path, &options)
            }
        }
        try GitFailure.check(code, "compare the versions of \(path)")
        defer { git_patch_free(patch) }
        var buf = git_buf()
        defer { git_buf_dispose(&buf) }
        try GitFailure.check(git_patch_to_buf(&buf, patch), "write the diff")
        guard let ptr = buf.ptr else { return "" }
        // Paths as text, not octal escapes (`DiffPaths`).
        return DiffPaths.readable(String(decoding: UnsafeRawBufferPointer(start: ptr, count: buf.size), as: UTF8.self))
    }

    /// When `path` was first committed (the oldest commit that changed it), or nil.
    public func firstCommitTime(of path: String) throws(VaultError) -> Timestamp? {
        try log(path: path, limit: 100_000).last.flatMap { Timestamp(rfc3339: $0.time) }
    }

    /// The first seven characters of a commit id, or of HEAD when `revision` is nil.
    public func shortID(_ revision: String = "HEAD") throws(VaultError) -> String {
        String(try commitID(revision).prefix(7))
    }

    /// The full id of the commit a revision names (`HEAD~1` → `4ab2f9f…`).
    public func commitID(_ revision: String) throws(VaultError) -> String {
        let c = try commit(revision)
        defer { git_commit_free(c) }
        return oidString(git_commit_id(c))
    }

    /// Removes lock files left by a crashed git program, anywhere in the git folder but its
    /// objects (`Leftovers.gitLocks`). Only files untouched for `olderThan` seconds are removed
    /// unless `force`; returns the removed and the kept paths.
    public static func removeStaleLocks(
        vault root: String, olderThan: Double = 60, force: Bool = false
    ) -> (removed: [String], kept: [String]) {
        var removed: [String] = []
        var kept: [String] = []
        for lock in Leftovers.gitLocks(gitDirectory: root + "/.git") where FileIO.exists(lock) {
            let age =
                Date().timeIntervalSince1970
                - ((try? FileManager.default.attributesOfItem(atPath: lock)[.modificationDate] as? Date)?
                    .timeIntervalSince1970 ?? 0)
            if force || age >= olderThan, unlink(lock) == 0 {
                removed.append(lock)
            } else {
                kept.append(lock)
            }
        }
        return (removed, kept)
    }
}

func oidString(_ oid: UnsafePointer<git_oid>?) -> String {
    guard let oid else { return "" }
    var buffer = [CChar](repeating: 0, count: 41)
    git_oid_tostr(&buffer, 41, oid)
    return String(decoding: buffer.prefix(40).map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
