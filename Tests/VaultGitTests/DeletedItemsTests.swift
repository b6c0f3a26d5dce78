import Foundation
import Testing
import VaultTestSupport

/// `vault log` and `vault restore` find a room however it went: removed by hand (never
/// committed), by a `vault rm` killed before its commit, or by a commit any number of commits
/// back. Checked with the git command line.
@Suite struct DeletedItemsTests {
    let room = "rooms/부산-여행.md"

    /// A fresh vault with the room `부산 여행` holding one chat turn, and another room.
    private func vaultWithRoom() throws -> TemporaryDirectory {
        let dir = try initVault()
        for arguments in [["room", "new", "부산 여행"], ["chat", "부산", "hello"], ["room", "new", "Other room"]] {
            expectSucceeded(try runVault(arguments, in: dir.path))
        }
        return dir
    }

    /// The room's file deleted the way `how` says, then found by `log` and brought back by
    /// `restore`, byte for byte, with nothing lost: the deletion is committed first (as a hand
    /// edit), then the restore.
    func expectFoundAndRestored(
        _ dir: TemporaryDirectory, bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation
    )
        throws
    {
        let commitsOfRoom = try git(["log", "--format=%h", "--", room], in: dir.path).split(separator: "\n")
        let log = try runVault(["log", "부산"], in: dir.path)
        #expect(log.status == 0, "vault log: \(log.stderr)", sourceLocation: sourceLocation)
        #expect(log.stdout.contains("room: new 부산 여행"), "\(log.stdout)", sourceLocation: sourceLocation)
        #expect(
            // A line per commit; the files each changed follow it, indented.
            log.stdout.split(separator: "\n").filter { !$0.hasPrefix(" ") }.count == commitsOfRoom.count,
            "\(log.stdout)",
            sourceLocation: sourceLocation)
        let restore = try runVault(["restore", "부산"], in: dir.path)
        #expect(restore.status == 0, "vault restore: \(restore.stderr)", sourceLocation: sourceLocation)
        #expect(try dir.read(room) == bytes, "the restored room differs", sourceLocation: sourceLocation)
        #expect(try gitBytes("HEAD:" + room, in: dir.path) == bytes, sourceLocation: sourceLocation)
        #expect(
            try subjects(dir.path).first?.hasPrefix("restore: \(room) (as of ") == true, sourceLocation: sourceLocation)
        try expectRepositoryClean(dir.path, sourceLocation: sourceLocation)
    }

    @Test func aRoomDeletedByHandIsFoundAndRestored() throws {
        let dir = try vaultWithRoom()
        let bytes = try dir.read(room)
        try FileManager.default.removeItem(atPath: dir.path + "/" + room)
        try expectFoundAndRestored(dir, bytes: bytes)
        // The deletion by hand is in the history, as its own commit before the restore.
        #expect(try subjects(dir.path).dropFirst().first == "edit: \(room)")
    }

    /// `vault rm` killed (SIGKILL) after it removed the file and before it committed.
    @Test func aRoomRemovedByAKilledRmIsFoundAndRestored() throws {
        let dir = try vaultWithRoom()
        let bytes = try dir.read(room)
        let killed = try runVault(
            ["rm", "부산", "--yes"], in: dir.path, environment: ["VAULT_CRASH_AT": "before-commit"])
        #expect(killed.status == 128 + SIGKILL || killed.status == SIGKILL, "\(killed.status) \(killed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/" + room))
        #expect(try subjects(dir.path).first == "room: new Other room", "the killed rm committed")
        try expectFoundAndRestored(dir, bytes: bytes)
    }

    /// A room removed, then 2,100 commits made on top (by git, quickly): still found.
    @Test func aRoomRemovedThousandsOfCommitsAgoIsFoundAndRestored() throws {
        let dir = try vaultWithRoom()
        let bytes = try dir.read(room)
        expectSucceeded(try runVault(["rm", "부산", "--yes"], in: dir.path))
        let head = try git(["rev-parse", "HEAD"], in: dir.path).trimmingCharacters(in: .whitespacesAndNewlines)
        var stream = ""
        for k in 1...2100 {
            let note = "note \(k)\n"
            stream += "commit refs/heads/main\nmark :\(k)\ncommitter T <t@example.com> \(1_700_000_000 + k) +0000\n"
            stream += "data \("notes \(k)".utf8.count)\nnotes \(k)\n"
            stream += k == 1 ? "from \(head)\n" : "from :\(k - 1)\n"
            stream += "M 100644 inline notes/log.txt\ndata \(note.utf8.count)\n\(note)\n"
        }
        try git(["fast-import", "--quiet"], in: dir.path, stdin: stream)
        try git(["reset", "--quiet", "--hard"], in: dir.path)
        #expect(try commitCount(dir.path) > 2100)
        try expectFoundAndRestored(dir, bytes: bytes)
    }
}
