import CGit2
import Foundation
import VaultCore

#if canImport(Glibc)
    import Glibc
#endif

/// Finding rooms and diary entries that are gone, in the whole history.
///
/// A room can be gone from the folder in three ways: removed by a commit (`vault rm`, or git),
/// any number of commits ago; removed by hand and not committed yet; or removed by a `vault rm`
/// killed before it committed. The first is found by walking every commit and comparing its
/// folder's tree with its parents' (only what differs is read: two raw trees share most of their
/// bytes, and entries in the shared beginning and end are the same entries); the other two are
/// paths HEAD still has that the folder does not.
extension GitHistory {
    /// Paths below `folders` (`rooms`, `diary`) that some commit had and the vault's folder does
    /// not have now, sorted: removed by a commit (however long ago), by hand, or by a killed
    /// command.
    public func deletedPaths(under folders: [String]) throws(VaultError) -> [String] {
        var candidates = Set<String>()
        for folder in folders {
            for path in try removals(under: folder).keys { candidates.insert(path) }
        }
        if let head = try headCommit() {
            defer {
                git_commit_free(head.commit)
                git_tree_free(head.tree)
            }
            let rootID = git_tree_id(head.tree).pointee
            for folder in folders {
                if let tree = try subtree(folder, of: rootID) {
                    try allFiles(in: tree, prefix: folder + "/") { candidates.insert($0) }
                }
            }
        }
        return candidates.filter { !FileIO.exists(root + "/" + $0) }.sorted()
    }

    /// Paths below `folder` that a commit removed, each with the commit that still had it (the
    /// most recent such commit); the whole history is walked. With `wanted`, the walk stops
    /// once that path is found.
    func removals(under folder: String, stoppingAt wanted: String? = nil) throws(VaultError) -> [String: git_oid] {
        var walk: OpaquePointer?
        try GitFailure.check(git_revwalk_new(&walk, repo), "walk the history")
        defer { git_revwalk_free(walk) }
        git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL.rawValue | GIT_SORT_TIME.rawValue)
        guard git_revwalk_push_head(walk) == 0 else { return [:] }
        var found: [String: git_oid] = [:]
        var oid = git_oid()
        while git_revwalk_next(&oid, walk) == 0 {
            var commit: OpaquePointer?
            try GitFailure.check(git_commit_lookup(&commit, repo, &oid), "read a commit")
            defer { git_commit_free(commit) }
            let folderTree = try subtree(folder, of: git_commit_tree_id(commit).pointee)
            for k in 0..<git_commit_parentcount(commit) {
                var parent: OpaquePointer?
                try GitFailure.check(git_commit_parent(&parent, commit, k), "read a commit's parent")
                defer { git_commit_free(parent) }
                guard let parentTree = try subtree(folder, of: git_commit_tree_id(parent).pointee) else { continue }
                let parentID = git_commit_id(parent).pointee
                try removedFiles(from: parentTree, to: folderTree, prefix: folder + "/") { path in
                    if found[path] == nil { found[path] = parentID }
                }
            }
            if let wanted, found[wanted] != nil { break }
        }
        return found
    }

    /// The last version of a path the vault's folder no longer has: its bytes and the commit
    /// that had them. HEAD's, when HEAD still has it (removed by hand, or by a killed command);
    /// else that of the most recent commit before the one that removed it, however long ago.
    public func lastVersion(of path: String) throws(VaultError) -> (bytes: [UInt8], revision: String)? {
        if let head = try headCommit() {
            defer {
                git_commit_free(head.commit)
                git_tree_free(head.tree)
            }
            if let bytes = try contents(of: path, in: head.commit) {
                return (bytes, oidString(git_commit_id(head.commit)))
            }
        }
        guard let folder = path.split(separator: "/").first.map(String.init), folder != path else { return nil }
        guard var had = try removals(under: folder, stoppingAt: path)[path] else { return nil }
        var commit: OpaquePointer?
        try GitFailure.check(git_commit_lookup(&commit, repo, &had), "read a commit")
        defer { git_commit_free(commit) }
        guard let bytes = try contents(of: path, in: commit!) else { return nil }
        return (bytes, oidString(git_commit_id(commit)))
    }

    /// The tree at `path` (`rooms`, `diary/2026`) below the tree `root`, or nil.
    func subtree(_ path: String, of root: git_oid) throws(VaultError) -> git_oid? {
        var current = root
        for part in path.split(separator: "/") {
            let raw = try trees.read(current)
            guard let entry = TreeEditor.find(raw, Array(part.utf8), isTree: true),
                TreeEditor.isTreeMode(raw, entry.mode)
            else { return nil }
            current = TreeEditor.oid(raw, at: entry.oid)
        }
        return current
    }

    /// One entry of a raw tree.
    struct RawEntry {
        var bytes: Range<Int>
        var name: Range<Int>
        var isTree: Bool
        var oid: Int
    }

    static func entries(of raw: [UInt8]) -> [RawEntry] {
        var out: [RawEntry] = []
        TreeEditor.forEachEntry(raw) { buffer, entry, mode, name, oid in
            out.append(
                RawEntry(bytes: entry, name: name, isTree: mode.count == 5 && buffer[mode.lowerBound] == 52, oid: oid))
            return true
        }
        return out
    }

    /// Calls `body` with every file path the tree `old` (at `prefix`) has and the tree `new`
    /// does not (nil: an empty tree). Entries in the bytes both trees begin or end with are the
    /// same entries and are not looked at; each other entry of `old` is looked up in `new`.
    func removedFiles(from old: git_oid, to new: git_oid?, prefix: String, _ body: (String) -> Void) throws(VaultError)
    {
        guard let new else { return try allFiles(in: old, prefix: prefix, body) }
        if GitHistory.same(old, new) { return }
        let a = try trees.read(old)
        let b = try trees.read(new)
        let oldEntries = GitHistory.entries(of: a)
        let newEntries = GitHistory.entries(of: b)
        let (head, tail) = a.withUnsafeBytes { x in b.withUnsafeBytes { y in GitHistory.sharedEnds(x, y) } }
        let shift = b.count - a.count
        for e in oldEntries {
            if e.bytes.upperBound <= head { continue }
            if e.bytes.lowerBound >= a.count - tail, GitHistory.startsEntry(newEntries, at: e.bytes.lowerBound + shift)
            {
                continue
            }
            let name = String(decoding: a[e.name], as: UTF8.self)
            if let match = GitHistory.lookUp(a, e, in: b, newEntries) {
                if e.isTree, match.isTree {
                    try removedFiles(
                        from: TreeEditor.oid(a, at: e.oid), to: TreeEditor.oid(b, at: match.oid),
                        prefix: prefix + name + "/", body)
                }
            } else if e.isTree {
                try allFiles(in: TreeEditor.oid(a, at: e.oid), prefix: prefix + name + "/", body)
            } else {
                body(prefix + name)
            }
        }
    }

    /// Every file path in the tree `tree`, below `prefix`.
    func allFiles(in tree: git_oid, prefix: String, _ body: (String) -> Void) throws(VaultError) {
        let raw = try trees.read(tree)
        for e in GitHistory.entries(of: raw) {
            let name = String(decoding: raw[e.name], as: UTF8.self)
            if e.isTree {
                try allFiles(in: TreeEditor.oid(raw, at: e.oid), prefix: prefix + name + "/", body)
            } else {
                body(prefix + name)
            }
        }
    }

    /// The lengths of the bytes `a` and `b` begin with and end with alike (not overlapping).
    static func sharedEnds(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> (head: Int, tail: Int) {
        let n = min(a.count, b.count)
        var head = 0
        while head < n, a[head] == b[head] { head += 1 }
        var tail = 0
        while tail < n - head, a[a.count - 1 - tail] == b[b.count - 1 - tail] { tail += 1 }
        return (head, tail)
    }

    /// Whether an entry of `entries` starts at `offset`.
    static func startsEntry(_ entries: [RawEntry], at offset: Int) -> Bool {
        var (low, high) = (0, entries.count)
        while low < high {
            let mid = (low + high) / 2
            if entries[mid].bytes.lowerBound < offset { low = mid + 1 } else { high = mid }
        }
        return low < entries.count && entries[low].bytes.lowerBound == offset
    }

    /// The entry of `b` with the name (and kind: file or folder) of `e`, an entry of `a`.
    static func lookUp(_ a: [UInt8], _ e: RawEntry, in b: [UInt8], _ entries: [RawEntry]) -> RawEntry? {
        let name = Array(a[e.name])
        return b.withUnsafeBytes { raw -> RawEntry? in
            var (low, high) = (0, entries.count)
            while low < high {
                let mid = (low + high) / 2
                let candidate = UnsafeRawBufferPointer(rebasing: raw[entries[mid].name])
                let order = TreeEditor.compare(candidate, entries[mid].isTree, name, e.isTree)
                if order == 0 { return entries[mid] }
                if order < 0 { low = mid + 1 } else { high = mid }
            }
            return nil
        }
    }
}
