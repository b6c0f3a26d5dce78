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
        try history.commit(["rooms/b.md", "rooms/a.md", "rooms/a-b.md", "rooms/a.md.bak.md", "diary/2026/x.md"], message: "add")
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
        #expect(try git(["ls-tree", "-r", "--name-only", "HEAD"], in: root) == ".gitattributes\n.gitignore\nvault.yml\n")
        #expect(try git(["fsck", "--strict"], in: root) == "")
        #expect(try git(["status", "--porcelain"], in: root) == "")
    }
}
