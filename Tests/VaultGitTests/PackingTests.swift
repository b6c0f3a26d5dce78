import Foundation
import Testing
import VaultTestSupport

/// Loose objects do not pile up: past git's `gc.auto` threshold a vault commit starts
/// `git gc --auto`, as `git commit` does. Checked with the git command line.
@Suite struct PackingTests {
    /// A vault whose history holds at least `perFolder` loose objects in `objects/17` (the
    /// folder git samples), committed by the git command line with packing off; then
    /// `gc.auto` set to `limit`, and packing in the foreground so the test sees its result.
    func vaultWithLooseObjects(limit: Int, perFolder: Int = 3) throws -> TemporaryDirectory {
        let dir = try initVault("vault-pack")
        try git(["config", "gc.auto", "0"], in: dir.path)
        let folder = dir.path + "/.git/objects/17"
        func inFolder() -> Int { ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).count }
        // Notes until enough of their blobs have ids starting with 17 (one in 256 does).
        var round = 0
        while inFolder() < perFolder {
            for k in 0..<1500 { try dir.write("notes/\(round)/\(k).txt", "note \(round) \(k)\n") }
            try git(["add", "notes"], in: dir.path)
            try git(
                ["-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "-m", "notes \(round)"],
                in: dir.path)
            round += 1
        }
        try git(["config", "gc.auto", String(limit)], in: dir.path)
        try git(["config", "gc.autoDetach", "false"], in: dir.path)
        return dir
    }

    func looseCount(_ dir: TemporaryDirectory) throws -> Int {
        let lines = try git(["count-objects", "-v"], in: dir.path).split(separator: "\n")
        let count = try #require(lines.first { $0.hasPrefix("count: ") })
        return try #require(Int(count.dropFirst(7)))
    }

    @Test func pastTheThresholdACommitPacksTheRepository() throws {
        let dir = try vaultWithLooseObjects(limit: 20)
        let before = try looseCount(dir)
        #expect(before > 1000)
        let made = try runVault(["room", "new", "짐 싸기"], in: dir.path)
        #expect(made.status == 0, "\(made.stderr)")
        let after = try looseCount(dir)
        #expect(after < 50, "\(after) loose objects left of \(before)")
        #expect(!(try git(["count-objects", "-v"], in: dir.path)).contains("packs: 0"))
        // The history is whole and the working tree clean.
        #expect(try git(["log", "-1", "--format=%s"], in: dir.path) == "room: new 짐 싸기\n")
        #expect(try git(["fsck", "--strict"], in: dir.path) == "")
        #expect(try git(["status", "--porcelain"], in: dir.path) == "")
        // And vault keeps committing into the packed repository.
        let chat = try runVault(["chat", "짐 싸기", "여권 챙기기"], in: dir.path)
        #expect(chat.status == 0, "\(chat.stderr)")
        #expect(try git(["log", "-1", "--format=%s"], in: dir.path).hasPrefix("chat: 짐 싸기 (+2 messages"))
        #expect(try git(["fsck", "--strict"], in: dir.path) == "")
    }

    /// A commit of many files (an import) writes its objects into one pack of its own, which
    /// git reads and checks, instead of a loose file each; later commits write loose objects.
    @Test func aCommitOfManyFilesIsOnePack() throws {
        let dir = try initVault("vault-pack")
        let journal = TemporaryDirectory("jrnl")
        let entries = (0..<300).map { k in
            let day = String(format: "2025-%02d-%02d", k / 28 + 1, k % 28 + 1)
            return "[\(day) 09:\(String(format: "%02d", k % 60))] Entry \(k). Text of entry \(k).\n"
        }
        try journal.write("journal.txt", entries.joined(separator: "\n"))
        let loose = try looseCount(dir)
        let r = try runVault(["import", "jrnl", journal.path + "/journal.txt"], in: dir.path)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("300 entries new"), "\(r.stdout)")
        let counts = try git(["count-objects", "-v"], in: dir.path)
        #expect(counts.contains("packs: 1\n"), "\(counts)")
        #expect(try looseCount(dir) == loose, "the import wrote loose objects: \(counts)")
        let packs = try FileManager.default.contentsOfDirectory(atPath: dir.path + "/.git/objects/pack")
        #expect(packs.filter { $0.hasSuffix(".pack") }.count == 1 && packs.filter { $0.hasSuffix(".idx") }.count == 1
            && packs.allSatisfy { !$0.hasPrefix("tmp_") }, "\(packs)")
        let idx = try #require(packs.first { $0.hasSuffix(".idx") })
        let verified = try git(["verify-pack", "-v", ".git/objects/pack/" + idx], in: dir.path)
        // 300 blobs, the trees of diary/ and its year folders, the root tree, the commit.
        #expect(verified.contains("non delta: 304 objects"), "\(verified.suffix(300))")
        #expect(verified.hasSuffix(": ok\n"))
        #expect(try git(["fsck", "--strict", "--full"], in: dir.path) == "")
        #expect(try git(["status", "--porcelain"], in: dir.path) == "")
        #expect(try git(["show", "HEAD:diary/2025/2025-01-01-entry-0.md"], in: dir.path).contains("Text of entry 0."))
        // The next commit of one file is a loose object again, and the history stays whole.
        let w = try runVault(["write", "Later", "--body", "one more"], in: dir.path)
        #expect(w.status == 0, "\(w.stderr)")
        #expect(try looseCount(dir) > loose)
        #expect(try git(["fsck", "--strict", "--full"], in: dir.path) == "")
    }

    @Test func gcAutoZeroTurnsPackingOff() throws {
        let dir = try vaultWithLooseObjects(limit: 0)
        let before = try looseCount(dir)
        let made = try runVault(["room", "new", "짐 싸기"], in: dir.path)
        #expect(made.status == 0, "\(made.stderr)")
        #expect(try looseCount(dir) >= before, "objects were packed although gc.auto is 0")
        #expect(try git(["count-objects", "-v"], in: dir.path).contains("packs: 0"))
    }

    @Test func belowTheThresholdsNothingIsPacked() throws {
        let dir = try vaultWithLooseObjects(limit: 6700, perFolder: 1)
        let made = try runVault(["room", "new", "짐 싸기"], in: dir.path)
        #expect(made.status == 0, "\(made.stderr)")
        #expect(try git(["count-objects", "-v"], in: dir.path).contains("packs: 0"))
    }

    /// Few but large loose objects (the 1.2 MB tree of a 20,000-room folder, once per commit)
    /// are packed once what vault wrote passes `vault.looseObjectBytes`, counted in
    /// `.vault/loose-bytes` across commands.
    @Test func looseObjectsArePackedBySize() throws {
        let dir = try vaultWithLooseObjects(limit: 6700, perFolder: 1)
        try git(["config", "vault.looseObjectBytes", "2000"], in: dir.path)
        let before = try looseCount(dir)
        // The first commit writes less than 2,000 bytes of objects: counted, not packed.
        let made = try runVault(["room", "new", "짐 싸기"], in: dir.path)
        #expect(made.status == 0, "\(made.stderr)")
        // "<bytes> <objects>"
        let fields = try dir.readText(".vault/loose-bytes").split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        #expect(fields.count == 2, "\(fields)")
        let tally = try #require(fields.first)
        #expect(tally > 0 && tally < 2000, "\(tally)")
        #expect(fields.last ?? 0 >= 3, "a blob, a tree or two and a commit: \(fields)")
        #expect(try git(["count-objects", "-v"], in: dir.path).contains("packs: 0"))
        // More commits pass it: packed, and the tally starts again.
        for k in 1...6 {
            let chat = try runVault(["chat", "짐 싸기", "챙길 것 \(k)"], in: dir.path)
            #expect(chat.status == 0, "\(chat.stderr)")
        }
        #expect(!(try git(["count-objects", "-v"], in: dir.path)).contains("packs: 0"), "not packed")
        #expect(try looseCount(dir) < before / 10, "not packed")
        // The tally started again, and stays below what is packed now (the threshold is the
        // larger of vault.looseObjectBytes and the packs).
        let counts = try git(["count-objects", "-v"], in: dir.path).split(separator: "\n")
        let packLine = try #require(counts.first { $0.hasPrefix("size-pack: ") })
        let packed = try #require(Int(packLine.dropFirst(11))) * 1024
        let left = try dir.readText(".vault/loose-bytes").split(separator: " ").first.flatMap { Int($0) } ?? -1
        #expect(left >= 0 && left < max(2000, packed), "\(left) loose bytes counted, \(packed) packed")
        #expect(try git(["fsck", "--strict"], in: dir.path) == "")
        #expect(try git(["status", "--porcelain"], in: dir.path) == "")
        #expect(try git(["log", "--format=%s"], in: dir.path).split(separator: "\n").count >= 8)
    }

    /// Bytes of every file below `path`.
    func bytes(under path: String) -> Int {
        var total = 0
        let e = FileManager.default.enumerator(atPath: path)
        while let p = e?.nextObject() as? String {
            let attributes = try? FileManager.default.attributesOfItem(atPath: path + "/" + p)
            if attributes?[.type] as? FileAttributeType == .typeRegular { total += (attributes?[.size] as? Int) ?? 0 }
        }
        return total
    }

    /// What `git gc` keeps of the same history: `.git` copied and packed by git itself.
    func bytesGitKeeps(_ dir: TemporaryDirectory) throws -> Int {
        let copy = TemporaryDirectory("vault-pack-git")
        try FileManager.default.copyItem(atPath: dir.path + "/.git", toPath: copy.path + "/repo.git")
        try git(["--git-dir", copy.path + "/repo.git", "gc", "--quiet", "--prune=now"], in: copy.path)
        return bytes(under: copy.path + "/repo.git")
    }

    /// A long room, a new blob of the whole room on every turn: the loose objects pile up by
    /// bytes, not by number (`objects/17`, which `git gc --auto` samples, stays nearly empty:
    /// a 52 MB room grew `.git` to 1.8 GB in 124 turns). vault packs them by its own count of
    /// what it wrote, and `.git` stays within a small factor of what `git gc` keeps.
    @Test func aLongRoomsHistoryStaysNearWhatGitKeeps() throws {
        let dir = try initVault("vault-pack-long")
        try git(["config", "vault.looseObjectBytes", String(1 << 20)], in: dir.path)
        try git(["config", "gc.autoDetach", "false"], in: dir.path)
        let made = try runVault(["room", "new", "긴 방"], in: dir.path)
        #expect(made.status == 0, "\(made.stderr)")
        // About 2 MB of text that compresses like chat does (words from a small vocabulary).
        var rng = SeededRandom(seed: 52)
        let words = ["부산", "여행", "the", "model", "answer", "김치찌개", "swift", "actor", "내일", "because", "모임", "list"]
        var text = ""
        while text.utf8.count < 2_000_000 {
            text += (0..<12).map { _ in words.randomElement(using: &rng)! }.joined(separator: " ") + ".\n"
        }
        let room = "rooms/긴-방.md"
        var original = try dir.readText(room)
        let marker = try #require(original.range(of: "<!-- vault:prompt"))
        original.insert(contentsOf: text + "\n", at: marker.lowerBound)
        try dir.write(room, original)
        var largest = 0
        for turn in 1...16 {
            let chat = try runVault(["chat", "긴 방", "turn \(turn)"], in: dir.path)
            #expect(chat.status == 0, "\(chat.stderr)")
            largest = max(largest, bytes(under: dir.path + "/.git"))
        }
        #expect(!(try git(["count-objects", "-v"], in: dir.path)).contains("packs: 0"), "never packed")
        let ours = bytes(under: dir.path + "/.git")
        let theirs = try bytesGitKeeps(dir)
        // Packed each time the loose bytes pass max(1 MiB, the packs): at most the packs, that
        // much loose, and one turn's objects more; git keeps the packs.
        #expect(largest <= 3 * theirs + 2 << 20, ".git reached \(largest) bytes; git gc keeps \(theirs)")
        #expect(ours <= 3 * theirs + 2 << 20, ".git is \(ours) bytes; git gc keeps \(theirs)")
        #expect(try git(["fsck", "--strict"], in: dir.path) == "")
        #expect(try git(["status", "--porcelain"], in: dir.path) == "")
        #expect(try git(["log", "--format=%s"], in: dir.path).split(separator: "\n").count == 19)
    }

    /// Loose objects are counted as vault writes them, not estimated from `objects/17`: past
    /// `gc.auto` objects written, the repository is packed though that folder is empty.
    @Test func looseObjectsArePackedByTheirCountNotBySampling() throws {
        let dir = try initVault("vault-pack-count")
        try git(["config", "gc.auto", "40"], in: dir.path)
        try git(["config", "gc.autoDetach", "false"], in: dir.path)
        let made = try runVault(["room", "new", "짐 싸기"], in: dir.path)
        #expect(made.status == 0, "\(made.stderr)")
        for k in 1...12 {
            let chat = try runVault(["chat", "짐 싸기", "챙길 것 \(k)"], in: dir.path)
            #expect(chat.status == 0, "\(chat.stderr)")
        }
        // 13 commits of a blob, two trees and a commit each: over 40 objects, packed. A pack
        // packs every loose object and the count starts again, and packing starts once more
        // than 40 were written since: never more than 40 are loose after a turn. (git's own
        // estimate may pack earlier too, when an object lands in `objects/17`: then fewer.)
        #expect(!(try git(["count-objects", "-v"], in: dir.path)).contains("packs: 0"), "not packed")
        #expect(try looseCount(dir) <= 40)
        #expect(try git(["fsck", "--strict"], in: dir.path) == "")
        #expect(try git(["status", "--porcelain"], in: dir.path) == "")
    }
}
