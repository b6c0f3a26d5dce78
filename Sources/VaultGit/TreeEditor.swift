import CGit2
import VaultCore

#if canImport(Glibc)
import Glibc
#endif

/// Builds a new tree from an old one by replacing, adding or removing a few paths, working
/// on the raw tree objects.
///
/// A vault keeps thousands of rooms in one folder, so the `rooms` tree object is large
/// (about 60 bytes an entry). libgit2's tree builder parses every entry into its own
/// structure and re-sorts them; for one changed file out of 20,000 that is most of the
/// cost of a commit. Here the raw bytes are searched and spliced, and only the trees on
/// the changed paths are written, through libgit2's object database.
final class TreeEditor {
    let repo: OpaquePointer
    let objects: ObjectStore
    var odb: OpaquePointer { objects.odb }
    /// Raw trees read or written in this process, by id: the hand-edit check and the commit
    /// that follows read the same large folder tree, and inflating it is not free.
    private var cache: [String: [UInt8]] = [:]

    init(repo: OpaquePointer, objects: ObjectStore) {
        self.repo = repo
        self.objects = objects
    }

    /// A change: `oid` nil removes the path.
    struct Change {
        var components: ArraySlice<Substring>
        var oid: git_oid?
        var kind: Kind = .keep
    }

    /// What a changed path's entry is.
    enum Kind {
        /// As the entry it replaces (a new one: a file).
        case keep
        /// A file: 100644, or 100755 when it was so (a link that became a file: 100644).
        case file
        /// A symbolic link: 120000, its blob the link's text.
        case link
    }

    static let treeMode: [UInt8] = Array("40000".utf8)
    static let blobMode: [UInt8] = Array("100644".utf8)
    static let linkMode: [UInt8] = Array("120000".utf8)

    /// The new root tree after `changes` (nil if it ends up empty); each entry keeps its mode.
    func apply(_ changes: [(path: String, oid: git_oid?)], to root: git_oid?) throws(VaultError) -> git_oid? {
        try update(root, changes.map { Change(components: $0.path.split(separator: "/")[...], oid: $0.oid) })
    }

    /// The new root tree after `changes` of files and symbolic links (nil if it ends up empty).
    func apply(_ changes: [(path: String, oid: git_oid?, isLink: Bool)], to root: git_oid?) throws(VaultError)
        -> git_oid?
    {
        try update(
            root,
            changes.map {
                Change(components: $0.path.split(separator: "/")[...], oid: $0.oid, kind: $0.isLink ? .link : .file)
            })
    }

    private func update(_ treeID: git_oid?, _ changes: [Change]) throws(VaultError) -> git_oid? {
        // Taken out of the cache, so the splice below edits it in place instead of copying it
        // (the `rooms` tree of a 50,000-file vault is 1.2 MB); the new tree takes its place.
        var raw = try treeID.map { id throws(VaultError) in try take(id) } ?? []
        // Group by first component; a leaf change and a subtree change never share a name here.
        var order: [Substring] = []
        var groups: [Substring: [Change]] = [:]
        for c in changes {
            guard let first = c.components.first else { continue }
            if groups[first] == nil { order.append(first) }
            groups[first, default: []].append(c)
        }
        for name in order {
            let group = groups[name]!
            let nameBytes = Array(name.utf8)
            if group.count == 1 && group[0].components.count == 1 {
                // A file in this tree.
                let found = TreeEditor.find(raw, nameBytes, isTree: false)
                let existing = found.map { Array(raw[$0.mode]) }
                let mode: [UInt8]
                switch group[0].kind {
                case .keep: mode = existing ?? TreeEditor.blobMode
                case .link: mode = TreeEditor.linkMode
                case .file: mode = existing.flatMap { $0 == TreeEditor.linkMode ? nil : $0 } ?? TreeEditor.blobMode
                }
                try splice(&raw, found: found, name: nameBytes, isTree: false, mode: mode, oid: group[0].oid)
            } else {
                // A folder: update the subtree, then its entry here.
                let found = TreeEditor.find(raw, nameBytes, isTree: true)
                var child: git_oid?
                if let f = found, raw[f.mode] == TreeEditor.treeMode[...] {
                    child = TreeEditor.oid(raw, at: f.oid)
                }
                let sub = group.map { Change(components: $0.components.dropFirst(), oid: $0.oid, kind: $0.kind) }
                let newChild = try update(child, sub)
                try splice(&raw, found: found, name: nameBytes, isTree: true, mode: TreeEditor.treeMode, oid: newChild)
            }
        }
        if raw.isEmpty { return nil }
        let out = try objects.write(raw, type: GIT_OBJECT_TREE, "write a tree")
        remember(out, raw)
        return out
    }

    private func remember(_ id: git_oid, _ raw: [UInt8]) {
        if cache.count > 16 { cache.removeAll() }
        cache[TreeEditor.key(id)] = raw
    }

    /// The cache key of a tree id: its hex digits.
    static func key(_ id: git_oid) -> String {
        var copy = id
        return oidString(&copy)
    }

    /// The raw tree `id`, no longer cached (its only copy, to edit).
    private func take(_ id: git_oid) throws(VaultError) -> [UInt8] {
        if let raw = cache.removeValue(forKey: TreeEditor.key(id)) { return raw }
        return try readFromDatabase(id)
    }

    func read(_ id: git_oid) throws(VaultError) -> [UInt8] {
        if let raw = cache[TreeEditor.key(id)] { return raw }
        let raw = try readFromDatabase(id)
        remember(id, raw)
        return raw
    }

    private func readFromDatabase(_ id: git_oid) throws(VaultError) -> [UInt8] {
        var oid = id
        var object: OpaquePointer?
        try GitFailure.check(git_odb_read(&object, odb, &oid), "read a tree")
        defer { git_odb_object_free(object) }
        guard git_odb_object_type(object) == GIT_OBJECT_TREE else {
            throw VaultError.repository(.damaged("holds a file where a folder is expected"))
        }
        let size = git_odb_object_size(object)
        guard size > 0, let data = git_odb_object_data(object) else { return [] }
        return Array(UnsafeRawBufferPointer(start: data, count: size))
    }

    /// Where an entry lies in raw tree bytes.
    struct Found {
        var entry: Range<Int>
        var mode: Range<Int>
        var oid: Int
    }

    /// Replaces, inserts (in git's order) or removes the entry `name`.
    private func splice(
        _ raw: inout [UInt8], found: Found?, name: [UInt8], isTree: Bool, mode: [UInt8], oid: git_oid?
    ) throws(VaultError) {
        var entry: [UInt8] = []
        if var oid {
            entry = mode + [32] + name + [0]
            withUnsafeBytes(of: &oid.id) { entry += $0 }
        }
        if let found {
            raw.replaceSubrange(found.entry, with: entry)
        } else if !entry.isEmpty {
            raw.insert(contentsOf: entry, at: TreeEditor.insertionPoint(raw, name, isTree: isTree))
        }
    }

    static func oid(_ raw: [UInt8], at offset: Int) -> git_oid {
        var oid = git_oid()
        withUnsafeMutableBytes(of: &oid.id) { dst in
            for k in 0..<20 { dst[k] = raw[offset + k] }
        }
        return oid
    }

    /// Walks the entries of a raw tree: (entry range, mode range, name range, oid offset).
    /// `body` returns false to stop. Scans with `memchr`: a folder of 20,000 rooms is a
    /// 1.2 MB tree, walked on every commit into it.
    static func forEachEntry(
        _ raw: [UInt8], _ body: (UnsafeRawBufferPointer, Range<Int>, Range<Int>, Range<Int>, Int) -> Bool
    ) {
        raw.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            let count = buffer.count
            var i = 0
            while i < count {
                let start = i
                guard let space = memchr(base + i, 32, count - i) else { return }
                let modeEnd = base.distance(to: UnsafeRawPointer(space))
                let nameStart = modeEnd + 1
                guard nameStart <= count, let nul = memchr(base + nameStart, 0, count - nameStart) else { return }
                let nameEnd = base.distance(to: UnsafeRawPointer(nul))
                let oid = nameEnd + 1
                i = oid + 20
                guard i <= count, body(buffer, start..<i, start..<modeEnd, nameStart..<nameEnd, oid) else { return }
            }
        }
    }

    static func isTreeMode(_ raw: [UInt8], _ mode: Range<Int>) -> Bool { raw[mode] == treeMode[...] }

    static func find(_ raw: [UInt8], _ name: [UInt8], isTree: Bool) -> Found? {
        var result: Found?
        name.withUnsafeBytes { wanted in
            forEachEntry(raw) { buffer, entry, mode, nameRange, oid in
                if nameRange.count == wanted.count,
                    wanted.count == 0
                        || memcmp(buffer.baseAddress! + nameRange.lowerBound, wanted.baseAddress!, wanted.count) == 0
                {
                    result = Found(entry: entry, mode: mode, oid: oid)
                    return false
                }
                return true
            }
        }
        return result
    }

    /// The offset before the first entry that sorts after `name` in git's tree order, where a
    /// folder's name compares as if it ended in `/`.
    static func insertionPoint(_ raw: [UInt8], _ name: [UInt8], isTree: Bool) -> Int {
        var point = raw.count
        forEachEntry(raw) { buffer, entry, mode, nameRange, _ in
            let entryName = UnsafeRawBufferPointer(rebasing: buffer[nameRange])
            let entryIsTree = mode.count == 5 && buffer[mode.lowerBound] == 52  // "40000"
            if compare(entryName, entryIsTree, name, isTree) > 0 {
                point = entry.lowerBound
                return false
            }
            return true
        }
        return point
    }

    static func compare(_ a: UnsafeRawBufferPointer, _ aIsTree: Bool, _ b: [UInt8], _ bIsTree: Bool) -> Int {
        let n = min(a.count, b.count)
        for k in 0..<n where a[k] != b[k] { return a[k] < b[k] ? -1 : 1 }
        let ca: UInt8 = a.count > n ? a[n] : (aIsTree ? 47 : 0)
        let cb: UInt8 = b.count > n ? b[n] : (bIsTree ? 47 : 0)
        return ca == cb ? 0 : (ca < cb ? -1 : 1)
    }

    static func compare(_ a: [UInt8], _ aIsTree: Bool, _ b: [UInt8], _ bIsTree: Bool) -> Int {
        a.withUnsafeBytes { compare($0, aIsTree, b, bIsTree) }
    }

    /// The blob id of `path` in the tree `root`, reading only the trees on the path.
    func blob(at path: String, in root: git_oid) throws(VaultError) -> git_oid? {
        try entry(at: path, in: root)?.oid
    }

    /// The blob id of `path` in the tree `root` and whether it is a symbolic link (mode 120000).
    func entry(at path: String, in root: git_oid) throws(VaultError) -> (oid: git_oid, isLink: Bool)? {
        var current = root
        let parts = path.split(separator: "/")
        for (k, part) in parts.enumerated() {
            let raw = try read(current)
            guard let found = TreeEditor.find(raw, Array(part.utf8), isTree: k < parts.count - 1) else { return nil }
            let isTree = TreeEditor.isTreeMode(raw, found.mode)
            if k == parts.count - 1 {
                return isTree ? nil : (TreeEditor.oid(raw, at: found.oid), raw[found.mode] == TreeEditor.linkMode[...])
            }
            guard isTree else { return nil }
            current = TreeEditor.oid(raw, at: found.oid)
        }
        return nil
    }
}
