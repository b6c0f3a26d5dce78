import Foundation
import Testing
import VaultTestSupport

@testable import VaultCore
@testable import VaultGit

#if canImport(Glibc)
import Glibc
#endif

/// The commit engine and symbolic links: a link is committed as git commits it (mode 120000,
/// its blob the link's own text), never what it points to; a path beyond a linked folder is
/// refused, as `git add` refuses it. Checked with the git command line.
@Suite struct SymlinkCommitTests {
    static let secret = "OUTSIDE-SECRET-b71d02"

    func setUp() throws -> (TemporaryDirectory, TemporaryDirectory, GitHistory) {
        let dir = try initVault("vault-links")
        let outside = TemporaryDirectory("vault-outside")
        let secret = SymlinkCommitTests.secret
        try outside.write("secret.md", "---\ntitle: \(secret)\n---\n\n\(secret)\n")
        // Large too, so the path that reads big files in pieces is covered as well.
        try outside.write("big.md", Array(repeating: Array("\(secret)\n".utf8), count: 20_000).flatMap { $0 })
        let vault = try Vault(root: dir.path)
        return (dir, outside, try GitHistory(vault: dir.path, config: vault.config))
    }

    func objectsHoldTheSecret(_ dir: TemporaryDirectory) throws -> Bool {
        try git(["cat-file", "--batch-all-objects", "--batch"], in: dir.path).contains(SymlinkCommitTests.secret)
    }

    @Test(arguments: ["secret.md", "big.md"])
    func aLinkIsCommittedAsGitCommitsIt(target: String) throws {
        let (dir, outside, history) = try setUp()
        try FileManager.default.createDirectory(atPath: dir.path + "/rooms", withIntermediateDirectories: true)
        let full = outside.path + "/" + target
        try #require(symlink(full, dir.path + "/rooms/leak.md") == 0)
        try history.prepare(["rooms/leak.md"])
        try history.commit(["rooms/leak.md"], message: "link")
        #expect(try git(["ls-files", "-s", "rooms/leak.md"], in: dir.path).hasPrefix("120000 "))
        #expect(try git(["ls-tree", "HEAD", "rooms/leak.md"], in: dir.path).hasPrefix("120000 blob "))
        #expect(try gitBytes("HEAD:rooms/leak.md", in: dir.path) == Array(full.utf8))
        #expect(try !objectsHoldTheSecret(dir), "the link's target was committed")
        try expectRepositoryClean(dir.path)
        // The same link is not a hand edit: nothing more to commit.
        let count = try commitCount(dir.path)
        try history.prepare(["rooms/leak.md"])
        #expect(try commitCount(dir.path) == count)
        // Replaced by a file of the same name: a regular file again (100644).
        unlink(dir.path + "/rooms/leak.md")
        try dir.write("rooms/leak.md", "---\ntitle: 이제 파일\n---\n")
        try history.prepare(["rooms/leak.md"])
        #expect(try commitCount(dir.path) == count + 1)
        #expect(try git(["ls-tree", "HEAD", "rooms/leak.md"], in: dir.path).hasPrefix("100644 blob "))
        try expectRepositoryClean(dir.path)
    }

    /// A regular file whose bytes are a link's text is still a change of kind: committed.
    @Test func aFileReplacingALinkWithTheSameBytesIsAChange() throws {
        let (dir, _, history) = try setUp()
        try FileManager.default.createDirectory(atPath: dir.path + "/rooms", withIntermediateDirectories: true)
        try #require(symlink("target.md", dir.path + "/rooms/a.md") == 0)
        try history.commit(["rooms/a.md"], message: "link")
        unlink(dir.path + "/rooms/a.md")
        try dir.write("rooms/a.md", "target.md")
        let count = try commitCount(dir.path)
        try history.prepare(["rooms/a.md"])
        #expect(try commitCount(dir.path) == count + 1)
        #expect(try git(["ls-tree", "HEAD", "rooms/a.md"], in: dir.path).hasPrefix("100644 blob "))
        try expectRepositoryClean(dir.path)
    }

    @Test func aPathBeyondALinkedFolderIsRefused() throws {
        let (dir, outside, history) = try setUp()
        try FileManager.default.createDirectory(atPath: dir.path + "/diary", withIntermediateDirectories: true)
        try #require(symlink(outside.path, dir.path + "/diary/2026") == 0)
        let head = try git(["rev-parse", "HEAD"], in: dir.path)
        #expect(throws: VaultError.self) { try history.commit(["diary/2026/secret.md"], message: "beyond") }
        #expect(throws: VaultError.self) { try history.prepare(["diary/2026/secret.md"]) }
        do {
            try history.commit(["diary/2026/secret.md"], message: "beyond")
        } catch {
            #expect("\(error)".contains("diary/2026"), "\(error)")
            #expect("\(error)".contains("symbolic link"), "\(error)")
        }
        #expect(try git(["rev-parse", "HEAD"], in: dir.path) == head)
        #expect(try !objectsHoldTheSecret(dir))
    }
}
