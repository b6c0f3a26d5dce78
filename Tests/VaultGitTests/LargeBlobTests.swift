import Foundation
import Testing
import VaultTestSupport

@testable import VaultCore
@testable import VaultGit

/// Large files (a long room) are committed as blobs read in pieces, and the compressed pieces
/// of the unchanged beginning are copied from the version committed before. Every version is
/// checked with the git command line: `git cat-file` gives back the file's bytes and
/// `git fsck --strict` finds nothing wrong, whatever happened to the previous version.
@Suite struct LargeBlobTests {
    static let path = "rooms/long.md"

    /// About `size` bytes of varied text (it compresses, as real rooms do, but not to nothing).
    static func text(_ size: Int, seed: UInt64) -> [UInt8] {
        var random = SeededRandom(seed: seed)
        let words = ["부산", "여행", "일정", "해운대", "광안리", "the", "plan", "day", "```swift", "let x = 1", "## 제목", "- 목록"]
        var out: [UInt8] = []
        out.reserveCapacity(size + 100)
        while out.count < size {
            for _ in 0..<(3 + Int(random.next() % 9)) {
                out += Array(words[Int(random.next() % UInt64(words.count))].utf8)
                out.append(32)
            }
            out += Array(String(random.next() % 100_000).utf8)
            out.append(10)
        }
        return out
    }

    func setUp() throws -> (TemporaryDirectory, GitHistory) {
        let dir = try initVault("vault-large")
        let vault = try Vault(root: dir.path)
        return (dir, try GitHistory(vault: dir.path, config: vault.config))
    }

    /// The compressed stream of the file in the loose object of the blob at `rev:path`: what
    /// follows the zlib header and the stored block holding "blob <size>\0".
    func objectFile(_ dir: TemporaryDirectory, _ rev: String) throws -> [UInt8] {
        let id = try git(["rev-parse", "\(rev):\(LargeBlobTests.path)"], in: dir.path).trimmingCharacters(
            in: .whitespacesAndNewlines)
        let object = try dir.read(".git/objects/\(id.prefix(2))/\(id.dropFirst(2))")
        try #require(object.count > 7 && object[2] == 0, "not written by vault's blob writer")
        let headerLength = Int(object[3]) | Int(object[4]) << 8
        return Array(object[(7 + headerLength)...])
    }

    func commonPrefix(_ a: [UInt8], _ b: [UInt8]) -> Int {
        var i = 0
        while i < min(a.count, b.count), a[i] == b[i] { i += 1 }
        return i
    }

    func expectCommitted(_ dir: TemporaryDirectory, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let committed = try gitBytes("HEAD:" + LargeBlobTests.path, in: dir.path)
        #expect(
            committed == (try dir.read(LargeBlobTests.path)), "git does not read back the file",
            sourceLocation: sourceLocation)
        #expect(try git(["fsck", "--strict", "--no-dangling"], in: dir.path).isEmpty, sourceLocation: sourceLocation)
        try expectRepositoryClean(dir.path, sourceLocation: sourceLocation)
    }

    @Test func appendsReuseTheCompressedBeginningAndGitReadsEveryVersion() throws {
        let (dir, history) = try setUp()
        var bytes = LargeBlobTests.text(2_000_000, seed: 1)
        try dir.write(LargeBlobTests.path, bytes)
        try history.commit([LargeBlobTests.path], message: "chat: long (+1 message)")
        try expectCommitted(dir)
        for round in 0..<3 {
            let before = try objectFile(dir, "HEAD")
            bytes += LargeBlobTests.text(3000, seed: UInt64(10 + round))
            try dir.write(LargeBlobTests.path, bytes)
            try history.commit([LargeBlobTests.path], message: "chat: long (+2 messages)")
            try expectCommitted(dir)
            // All but the last piece of the old version's compressed stream is the same bytes.
            let after = try objectFile(dir, "HEAD")
            #expect(
                commonPrefix(before, after) > before.count * 8 / 10,
                "round \(round): \(commonPrefix(before, after)) of \(before.count)")
            #expect(after.count < bytes.count, "compressed")
        }
        // Each version is whole in history.
        let first = try gitBytes("HEAD~3:" + LargeBlobTests.path, in: dir.path)
        #expect(first == Array(bytes[..<first.count]))
        #expect(first.count == 2_000_000 + (first.count - 2_000_000))
    }

    /// A change near the start (same length, so only the bytes differ): the pieces after it
    /// are compressed again, never copied; git reads the new bytes.
    @Test func aChangeNearTheStartIsCompressedAgain() throws {
        let (dir, history) = try setUp()
        var bytes = LargeBlobTests.text(1_000_000, seed: 2)
        try dir.write(LargeBlobTests.path, bytes)
        try history.commit([LargeBlobTests.path], message: "one")
        let before = try objectFile(dir, "HEAD")
        bytes[100] = bytes[100] == UInt8(ascii: "x") ? UInt8(ascii: "y") : UInt8(ascii: "x")
        bytes += Array("끝\n".utf8)
        try dir.write(LargeBlobTests.path, bytes)
        try history.commit([LargeBlobTests.path], message: "two")
        try expectCommitted(dir)
        #expect(commonPrefix(before, try objectFile(dir, "HEAD")) < 1000)
    }

    /// The previous version packed by `git gc` (its loose object gone), or its layout damaged:
    /// the whole file is compressed, correctly.
    @Test(arguments: ["packed", "damaged layout", "no layout"])
    func withoutAUsablePreviousVersionTheBlobIsStillRight(what: String) throws {
        let (dir, history) = try setUp()
        var bytes = LargeBlobTests.text(800_000, seed: 3)
        try dir.write(LargeBlobTests.path, bytes)
        try history.commit([LargeBlobTests.path], message: "one")
        let layouts = dir.path + "/.vault/blobs"
        let names = try FileManager.default.contentsOfDirectory(atPath: layouts)
        try #require(names.count == 1)
        switch what {
        case "packed": try git(["gc", "--quiet", "--prune=now"], in: dir.path)
        case "damaged layout":
            var text = try dir.readText(".vault/blobs/" + names[0])
            text = text.replacingOccurrences(of: "\n1", with: "\n9")
            try dir.write(".vault/blobs/" + names[0], text)
        default: try FileManager.default.removeItem(atPath: layouts + "/" + names[0])
        }
        bytes += LargeBlobTests.text(5000, seed: 4)
        try dir.write(LargeBlobTests.path, bytes)
        try history.commit([LargeBlobTests.path], message: "two")
        try expectCommitted(dir)
    }

    /// Cut back to exactly where a piece ended, then to less: both read back.
    @Test func aFileCutAtAPieceBoundaryIsRight() throws {
        let (dir, history) = try setUp()
        let bytes = LargeBlobTests.text(600_000, seed: 5)
        try dir.write(LargeBlobTests.path, bytes)
        try history.commit([LargeBlobTests.path], message: "one")
        try dir.write(LargeBlobTests.path, Array(bytes[..<(Int(GitHistory.blobPieceSize) * 3)]))
        try history.commit([LargeBlobTests.path], message: "two")
        try expectCommitted(dir)
        try dir.write(LargeBlobTests.path, Array(bytes[..<(Int(GitHistory.blobPieceSize) * 2 + 17)]))
        try history.commit([LargeBlobTests.path], message: "three")
        try expectCommitted(dir)
    }

    /// What a commit learnt about the file's version lets the next hand-edit check skip reading it;
    /// a change of the file (any write) makes it learn again.
    @Test func theHandEditCheckUsesWhatTheLastCommitLearnt() throws {
        let (dir, history) = try setUp()
        let bytes = LargeBlobTests.text(700_000, seed: 6)
        try dir.write(LargeBlobTests.path, bytes)
        try history.commit([LargeBlobTests.path], message: "one")
        let facts = try #require(FileFacts.current(root: dir.path, relative: LargeBlobTests.path))
        let head = try git(["rev-parse", "HEAD:" + LargeBlobTests.path], in: dir.path).trimmingCharacters(
            in: .whitespacesAndNewlines)
        #expect(facts.blob == head)
        try history.prepare([LargeBlobTests.path])
        #expect(try commitCount(dir.path) == 2, "nothing to commit")
        // Edited by hand (same size, in place): the stamp changes, the edit is committed on its own.
        var edited = bytes
        edited[5] = edited[5] == UInt8(ascii: "a") ? UInt8(ascii: "b") : UInt8(ascii: "a")
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: dir.path + "/" + LargeBlobTests.path))
        try handle.write(contentsOf: Data(edited))
        try handle.close()
        #expect(FileFacts.current(root: dir.path, relative: LargeBlobTests.path) == nil)
        try history.prepare([LargeBlobTests.path])
        #expect(try subjects(dir.path).first == "edit: " + LargeBlobTests.path)
        try expectCommitted(dir)
    }
}
