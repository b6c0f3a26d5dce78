import Foundation

/// Commits an attacker makes with plain git: trees written byte by byte
/// (`git hash-object -t tree --literally`, which checks nothing), so any name and any mode can
/// be in them: `..`, `.GIT`, a symbolic link named `.vault`, a control character, a submodule.
///
///     let id = try CraftedCommit.make(in: clone, adding: [.init(["rooms", "..", "..", "x"], "pwned")])
///     try git(["push", "origin", id + ":refs/heads/main"], in: clone)
public enum CraftedCommit {
    /// One entry to add: its path as components (each may hold anything but `/`), its mode,
    /// and the blob's bytes (a link's target; a submodule's commit id in hex).
    public struct Entry {
        public var components: [[UInt8]]
        public var mode: String
        public var bytes: [UInt8]

        public init(_ components: [String], _ text: String, mode: String = "100644") {
            self.components = components.map { Array($0.utf8) }
            self.mode = mode
            self.bytes = Array(text.utf8)
        }

        public init(_ components: [String], bytes: [UInt8], mode: String = "100644") {
            self.components = components.map { Array($0.utf8) }
            self.mode = mode
            self.bytes = bytes
        }
    }

    /// A commit on top of `parent` in the repository `repo` whose tree is the parent's with
    /// `adding`; nothing else changes (no ref moves). Returns its id.
    public static func make(in repo: String, parent: String = "HEAD", adding: [Entry], message: String = "update")
        throws -> String
    {
        let scratch = TemporaryDirectory("vault-crafted")
        var root = Folder()
        // The parent's files, as they are.
        let listing = try git(["ls-tree", "-r", "-z", "--full-tree", parent], in: repo)
        for record in listing.split(separator: "\0") {
            guard let tab = record.firstIndex(of: "\t") else { continue }
            let fields = record[..<tab].split(separator: " ")
            let path = record[record.index(after: tab)...].split(separator: "/").map { Array($0.utf8) }
            root.insert(path[...], Leaf(mode: String(fields[0]), oid: String(fields[2])))
        }
        for entry in adding {
            let oid: String
            if entry.mode == "160000" {
                oid = String(decoding: entry.bytes, as: UTF8.self)
            } else {
                try scratch.write("blob", entry.bytes)
                oid = try git(["hash-object", "-w", scratch.path + "/blob"], in: repo)
                    .trimmingCharacters(in: .whitespacesAndNewlines)
            }
            root.insert(entry.components[...], Leaf(mode: entry.mode, oid: oid))
        }
        let tree = try root.write(in: repo, scratch: scratch)
        return try git(
            ["-c", "user.name=Mallory", "-c", "user.email=m@example.com", "commit-tree", tree, "-p", parent, "-m", message],
            in: repo
        ).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    struct Leaf {
        var mode: String
        var oid: String
    }

    /// A folder being built: its files and its folders, by name as bytes.
    struct Folder {
        var leaves: [[UInt8]: Leaf] = [:]
        var folders: [[UInt8]: Folder] = [:]

        mutating func insert(_ path: ArraySlice<[UInt8]>, _ leaf: Leaf) {
            guard let first = path.first else { return }
            if path.count == 1 {
                leaves[first] = leaf
            } else {
                folders[first, default: Folder()].insert(path.dropFirst(), leaf)
            }
        }

        /// Writes this folder and those in it as raw tree objects; returns its id.
        func write(in repo: String, scratch: TemporaryDirectory) throws -> String {
            var entries: [(name: [UInt8], mode: String, oid: String, isTree: Bool)] = []
            for (name, leaf) in leaves { entries.append((name, leaf.mode, leaf.oid, false)) }
            for (name, folder) in folders {
                entries.append((name, "40000", try folder.write(in: repo, scratch: scratch), true))
            }
            // git's order: a folder's name compares as if it ended in `/`.
            entries.sort { a, b in
                (a.name + (a.isTree ? [0x2F] : [])).lexicographicallyPrecedes(b.name + (b.isTree ? [0x2F] : []))
            }
            var raw: [UInt8] = []
            for e in entries {
                raw += Array(e.mode.utf8) + [0x20] + e.name + [0]
                var hex = Array(e.oid.utf8)[...]
                while hex.count >= 2 {
                    raw.append(UInt8(String(decoding: hex.prefix(2), as: UTF8.self), radix: 16)!)
                    hex = hex.dropFirst(2)
                }
            }
            try scratch.write("tree", raw)
            return try git(["hash-object", "-t", "tree", "--literally", "-w", scratch.path + "/tree"], in: repo)
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }
}
