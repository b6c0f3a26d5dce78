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
            try git(["-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "-m", "notes \(round)"], in: dir.path)
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
        let tally = try #require(Int(try dir.readText(".vault/loose-bytes")))
        #expect(tally > 0 && tally < 2000, "\(tally)")
        #expect(try git(["count-objects", "-v"], in: dir.path).contains("packs: 0"))
        // More commits pass it: packed, and the tally starts again.
        for k in 1...6 {
            let chat = try runVault(["chat", "짐 싸기", "챙길 것 \(k)"], in: dir.path)
            #expect(chat.status == 0, "\(chat.stderr)")
        }
        #expect(!(try git(["count-objects", "-v"], in: dir.path)).contains("packs: 0"), "not packed")
        #expect(try looseCount(dir) < before / 10, "not packed")
        #expect(try Int(dir.readText(".vault/loose-bytes")) ?? -1 < 2000)
        #expect(try git(["fsck", "--strict"], in: dir.path) == "")
        #expect(try git(["status", "--porcelain"], in: dir.path) == "")
        #expect(try git(["log", "--format=%s"], in: dir.path).split(separator: "\n").count >= 8)
    }
}
