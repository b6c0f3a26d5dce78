import CCrypto
import CGit2
import Foundation
import Testing
import VaultCore
import VaultTestSupport

@testable import VaultGit

/// The raw tree splicing and the index patcher, checked by the git command line.
@Suite struct TreeAndIndexTests {
    @Test func treeOrderIsGits() {
        func cmp(_ a: String, _ aTree: Bool, _ b: String, _ bTree: Bool) -> Int {
            TreeEditor.compare(Array(a.utf8), aTree, Array(b.utf8), bTree)
        }
        #expect(cmp("a.md", false, "a", true) < 0)  // '.' sorts before the '/' a folder gets
        #expect(cmp("a", true, "a0", false) < 0)  // '/' sorts before '0'
        #expect(cmp("a", false, "a.md", false) < 0)  // a prefix first
        #expect(cmp("부산.md", false, "abc.md", false) > 0)  // bytes, not characters
        #expect(cmp("same", true, "same", true) == 0)
    }

    /// Trees are cached by their id's hex digits (a key made from a dangling pointer once
    /// made every lookup miss, and could have returned another tree).
    @Test func treeCacheKeysAreTheIdsHexDigits() {
        var a = git_oid()
        var b = git_oid()
        withUnsafeMutableBytes(of: &a.id) { for k in 0..<20 { $0[k] = UInt8(k * 13 % 256) } }
        withUnsafeMutableBytes(of: &b.id) { for k in 0..<20 { $0[k] = UInt8(255 - k) } }
        #expect(TreeEditor.key(a) == "000d1a2734414e5b6875828f9ca9b6c3d0ddeaf7")
        #expect(TreeEditor.key(b) == "fffefdfcfbfaf9f8f7f6f5f4f3f2f1f0efeeedec")
        #expect(TreeEditor.key(a) == TreeEditor.key(a))
    }

    /// New folders, new files among existing ones, replaced and removed files, in one commit:
    /// the trees must be exactly what git would write, and the index must agree with HEAD.
    @Test func commitsThatAddReplaceAndRemoveAreWhatGitWouldWrite() throws {
        let dir = TemporaryDirectory("vault-git")
        let root = dir.path
        try Vault.create(at: root, locale: "en_US", timeZone: TimeZone(identifier: "UTC")!)
        let vault = try Vault(root: root)
        let history = try GitHistory.create(vault: root, config: vault.config)
        for name in ["rooms/b.md", "rooms/a.md", "rooms/a-b.md", "rooms/a.md.bak.md", "diary/2026/x.md"] {
            try dir.write(name, "first \(name)\n")
        }
        try history.commit(
            ["rooms/b.md", "rooms/a.md", "rooms/a-b.md", "rooms/a.md.bak.md", "diary/2026/x.md"], message: "add")
        try dir.write("rooms/a.md", "second\n")
        try dir.write("diary/2027/01/y.md", "new folder twice over\n")
        try FileManager.default.removeItem(atPath: root + "/rooms/b.md")
        try dir.write("rooms/0.md", "sorts first\n")
        try history.commit(["rooms/a.md", "diary/2027/01/y.md", "rooms/b.md", "rooms/0.md"], message: "change")

        #expect(try git(["fsck", "--strict"], in: root) == "")
        #expect(try git(["status", "--porcelain"], in: root) == "")
        _ = try git(["diff", "--cached", "--quiet"], in: root)  // throws when the index differs from HEAD
        let files = try git(["ls-tree", "-r", "--name-only", "HEAD"], in: root).split(separator: "\n").map(String.init)
        #expect(files == [
            ".gitattributes", ".gitignore", "diary/2026/x.md", "diary/2027/01/y.md", "rooms/0.md", "rooms/a-b.md",
            "rooms/a.md", "rooms/a.md.bak.md", "vault.yml",
        ])
        #expect(try git(["show", "HEAD:rooms/a.md"], in: root) == "second\n")
        #expect(try git(["log", "--format=%s"], in: root) == "change\nadd\ninit: vault\n")
        // git itself, writing the same index from scratch, gets the same entries.
        let ours = try git(["ls-files", "--stage"], in: root)
        _ = try git(["read-tree", "HEAD"], in: root)
        #expect(try git(["ls-files", "--stage"], in: root) == ours)
    }

    /// Removing the last file of a folder removes the folder from the tree.
    @Test func emptiedFoldersDisappear() throws {
        let dir = TemporaryDirectory("vault-git")
        let root = dir.path
        try Vault.create(at: root, locale: "en_US", timeZone: TimeZone(identifier: "UTC")!)
        let history = try GitHistory.create(vault: root, config: try Vault(root: root).config)
        try dir.write("diary/2026/only.md", "x\n")
        try history.commit(["diary/2026/only.md"], message: "add")
        try FileManager.default.removeItem(atPath: root + "/diary/2026/only.md")
        try history.commit(["diary/2026/only.md"], message: "rm")
        #expect(
            try git(["ls-tree", "-r", "--name-only", "HEAD"], in: root) == ".gitattributes\n.gitignore\nvault.yml\n")
        #expect(try git(["fsck", "--strict"], in: root) == "")
        #expect(try git(["status", "--porcelain"], in: root) == "")
    }

    /// vault's object writer: trees stored (zlib level 0), blobs compressed, each object once,
    /// and all of it read back by git as written.
    @Test func objectsAreWrittenTreesStoredBlobsCompressedAndGitReadsThem() throws {
        let dir = TemporaryDirectory("vault-git")
        let root = dir.path
        try Vault.create(at: root, locale: "en_US", timeZone: TimeZone(identifier: "UTC")!)
        let history = try GitHistory.create(vault: root, config: try Vault(root: root).config)
        var names: [String] = []
        // Fewer than `packedCommitFiles` (256): a commit of more writes one pack (PackingTests).
        for k in 0..<250 {
            let name = "rooms/room-\(k).md"
            try dir.write(name, String(repeating: "같은 말을 여러 번 되풀이하는 방 \(k)\n", count: 40))
            names.append(name)
        }
        try history.commit(names, message: "add")
        func objectFile(_ spec: String) throws -> (path: String, size: Int, contentSize: Int) {
            let id = try git(["rev-parse", spec], in: root).trimmingCharacters(in: .whitespacesAndNewlines)
            let path = root + "/.git/objects/" + id.prefix(2) + "/" + id.dropFirst(2)
            let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
            let contentSize = try #require(
                Int(try git(["cat-file", "-s", id], in: root).trimmingCharacters(in: .whitespacesAndNewlines)))
            return (path, size, contentSize)
        }
        let tree = try objectFile("HEAD:rooms")
        #expect(
            tree.size > tree.contentSize, "the rooms tree was compressed: \(tree.size) of \(tree.contentSize) bytes")
        let blob = try objectFile("HEAD:rooms/room-7.md")
        #expect(
            blob.size * 4 < blob.contentSize, "the blob was not compressed: \(blob.size) of \(blob.contentSize) bytes")
        // Read-only files, like git's.
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: tree.path)[.posixPermissions] as? Int)
        #expect(mode == 0o444)
        // git reads every object back as written, and finds nothing wrong.
        #expect(
            try git(["show", "HEAD:rooms/room-7.md"], in: root)
                == String(repeating: "같은 말을 여러 번 되풀이하는 방 7\n", count: 40))
        #expect(try git(["ls-tree", "--name-only", "HEAD:rooms"], in: root).split(separator: "\n").count == 250)
        #expect(try git(["fsck", "--strict", "--full"], in: root) == "")
        // No temporary files are left in the object folders.
        let objects = try FileManager.default.subpathsOfDirectory(atPath: root + "/.git/objects")
        #expect(!objects.contains { $0.contains("tmp_obj") }, "\(objects.filter { $0.contains("tmp") })")
        // Writing the same content again adds no object.
        let count = objects.count
        try dir.write("rooms/room-7.md", "changed\n")
        try history.commit(["rooms/room-7.md"], message: "change")
        try dir.write("rooms/room-7.md", String(repeating: "같은 말을 여러 번 되풀이하는 방 7\n", count: 40))
        try history.commit(["rooms/room-7.md"], message: "back")
        let after = try FileManager.default.subpathsOfDirectory(atPath: root + "/.git/objects").filter {
            !$0.hasSuffix("/")
        }
        // change: blob, rooms tree, root tree, commit (+ up to one new fan-out folder each);
        // back: the old blob and both old trees exist, so only the commit is new.
        #expect(after.count <= count + 4 * 2 + 1 * 2, "\(after.count - count) new entries")
        #expect(try git(["rev-parse", "HEAD:rooms"], in: root) == git(["rev-parse", "HEAD~2:rooms"], in: root))
        #expect(try git(["status", "--porcelain"], in: root) == "")
    }

    /// The index's checksum taken from the SHA-1 states a commit saved (`IndexDigests`) is the
    /// one hashing it whole gives; the states are taken (forged ones give another checksum);
    /// a damaged side file, or one of another index, is not.
    @Test func indexChecksumFromSavedStatesIsTheWholeHash() throws {
        let dir = TemporaryDirectory("vault-index-digests")
        let root = dir.path
        _ = try git(["init", "-q"], in: root)
        for k in 0..<3000 { try dir.write("diary/entry-number-\(1000 + k)-of-a-large-index.md", "entry \(k)\n") }
        try dir.write("rooms/a.md", "a\n")
        _ = try git(["add", "."], in: root)
        let side = root + "/.git/vault-index-digests"
        let oid = git_oid()  // the patcher records the id it is given
        func patch(_ old: [UInt8], digests: String?) -> [UInt8] {
            var out: [UInt8] = []
            let done = IndexPatcher.patch([.init(path: "rooms/a.md", oid: oid)], old: old, workdir: root, digests: digests) {
                out += $0
                return true
            }
            #expect(done)
            return out
        }
        func saved(_ index: [UInt8]) -> [SHA_CTX] { index.withUnsafeBytes { IndexDigests.read(side, of: $0) } }
        let first = try FileIO.read(root + "/.git/index")
        #expect(first.count > 4 * IndexDigests.step)  // the change lies past several states
        // No side file yet: hashed whole, and the new index's states saved.
        let whole1 = patch(first, digests: nil)
        #expect(patch(first, digests: side) == whole1)
        #expect(saved(whole1).count == (whole1.count - 20) / IndexDigests.step)
        #expect(saved(first).isEmpty)  // they are the new index's, not the old one's

        // The next commit of the file resumes from them, and gets the same bytes.
        try dir.write("rooms/a.md", "a, changed\n")
        let whole2 = patch(whole1, digests: nil)
        #expect(whole2 != whole1)
        #expect(patch(whole1, digests: side) == whole2)
        #expect(saved(whole2).count == (whole2.count - 20) / IndexDigests.step)

        // Forged states with a valid file around them are taken: the checksum then differs.
        var empty = SHA_CTX()
        SHA1_Init(&empty)
        let states = Array(repeating: empty, count: saved(whole2).count)
        IndexDigests.save(states, size: whole2.count, checksum: Array(whole2.suffix(20)), to: side)
        #expect(saved(whole2).count == states.count)
        let genuine = patch(whole2, digests: nil)
        #expect(patch(whole2, digests: side).suffix(20) != genuine.suffix(20))

        // A damaged side file is not taken.
        IndexDigests.save(states, size: whole2.count, checksum: Array(whole2.suffix(20)), to: side)
        var bytes = try FileIO.read(side)
        bytes[IndexDigests.headerSize + 3] ^= 1
        try Data(bytes).write(to: URL(fileURLWithPath: side))
        #expect(saved(whole2).isEmpty)
        #expect(patch(whole2, digests: side) == genuine)

        // Nor one of another index (git wrote the index since).
        _ = patch(whole2, digests: side)
        #expect(!saved(whole2).isEmpty)
        try dir.write("rooms/a.md", "a, by git\n")
        _ = try git(["add", "rooms/a.md"], in: root)
        let byGit = try FileIO.read(root + "/.git/index")
        #expect(saved(byGit).isEmpty)
    }

    /// Commits through the side file of states keep the index what git reads and HEAD's.
    @Test func commitsOnALargeIndexKeepItGits() throws {
        let dir = TemporaryDirectory("vault-git")
        let root = dir.path
        try Vault.create(at: root, locale: "en_US", timeZone: TimeZone(identifier: "UTC")!)
        let vault = try Vault(root: root)
        let history = try GitHistory.create(vault: root, config: vault.config)
        let entries = (0..<3000).map { "diary/2026/entry-number-\(1000 + $0)-of-a-large-index.md" }
        for name in entries { try dir.write(name, "entry \(name)\n") }
        try dir.write("rooms/a.md", "a\n")
        try history.commit(entries + ["rooms/a.md"], message: "add")
        for turn in 1...3 {
            try dir.write("rooms/a.md", "a\n" + String(repeating: "turn\n", count: turn))
            try history.commit(["rooms/a.md"], message: "turn \(turn)")
            #expect(try git(["status", "--porcelain"], in: root) == "")
            _ = try git(["diff", "--cached", "--quiet"], in: root)  // throws when the index differs from HEAD
        }
        let index = try FileIO.read(root + "/.git/index")
        #expect(!index.withUnsafeBytes { IndexDigests.read(root + "/.git/vault-index-digests", of: $0) }.isEmpty)
        #expect(try git(["fsck", "--strict"], in: root) == "")
    }
}
