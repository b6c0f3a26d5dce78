import Foundation
import Testing
import VaultTestSupport

/// Format 3: a room's file past 2 MiB gives its older messages to volumes
/// (`volumes/<room>/0001.md`, …) before its next message, so a turn's commit hashes a small file;
/// every reader of the whole room (show, export, check, rm, restore, a reply to an old message)
/// reads the volumes as part of it. Checked with real repositories and the `git` command line.
@Suite struct VolumeTests {
    static let room = "rooms/long.md"

    /// The text of a room's `count` messages (about 450 bytes each), ids `m-000000000000`, ….
    static func messages(_ count: Int, from first: Int = 0) -> String {
        var text = ""
        for i in first..<(first + count) {
            let role = i % 2 == 0 ? "user" : "assistant"
            text +=
                "## \(role == "user" ? "🧑" : "🤖") \(role) · then "
                + "<!-- 2026-01-01T10:\(String(format: "%02d", i % 60)):00+09:00 m-\(String(format: "%012d", i)) -->\n\n"
            text += "메시지 \(i): 부산 여행 일정과 숙소 낱말\(i)끝\n"
            text += String(repeating: "line of an answer with some words in it \(i)\n", count: 8) + "\n"
        }
        return text
    }

    static let head = "---\ntitle: 긴 대화\ncreated: 2026-01-01T09:00:00+09:00\n---\n\n서문: 손으로 쓴 메모\n\n"

    /// A vault of `format` whose room `long` has `count` messages, committed.
    func vault(format: Int = 3, count: Int = 6000) throws -> TemporaryDirectory {
        let dir = try freshVault()
        let config = try dir.readText("vault.yml")
        #expect(config.contains("format: 1\n"))
        try dir.write("vault.yml", config.replacingOccurrences(of: "format: 1\n", with: "format: \(format)\n"))
        try dir.write(VolumeTests.room, VolumeTests.head + VolumeTests.messages(count) + promptMarker + "\n")
        try git(["add", "-A"], in: dir.path)
        try git(["-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "-m", "long room"], in: dir.path)
        return dir
    }

    /// The messages' ids in the room's volumes and its file, in order (FORMAT.md's header rule).
    func ids(_ dir: TemporaryDirectory) throws -> [String] {
        var out: [String] = []
        for path in try volumes(dir) + [VolumeTests.room] {
            out += parseRoom(try dir.readText(path)).messages.map(\.header.id)
        }
        return out
    }

    func volumes(_ dir: TemporaryDirectory) throws -> [String] {
        let folder = dir.path + "/volumes/long"
        guard FileManager.default.fileExists(atPath: folder) else { return [] }
        return try FileManager.default.contentsOfDirectory(atPath: folder).sorted().map { "volumes/long/" + $0 }
    }

    /// The bytes from a file's first message header up to its prompt marker (or end).
    func messagePart(_ bytes: [UInt8]) -> [UInt8] {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let start = text.range(of: "\n## ")?.lowerBound else { return [] }
        let from = text.utf8.distance(from: text.startIndex, to: start) + 1
        let end = bytes.lastPromptMarkerOffset() ?? bytes.count
        return Array(bytes[from..<end])
    }

    @Test func aLongRoomGivesItsOlderMessagesToVolumesAndReadsAsOne() throws {
        let dir = try vault()
        let before = try dir.read(VolumeTests.room)
        #expect(before.count > 2 * 1024 * 1024)
        let shownBefore = try runVault(["show", "long", "--no-pager"], in: dir.path)
        expectSuccess(shownBefore)

        expectSuccess(try runVault(["chat", "long", "첫 질문"], in: dir.path))
        let log = try git(["log", "-3", "--format=%s"], in: dir.path).split(separator: "\n")
        #expect(log.count == 3 && log[0] == "chat: 긴 대화 (+2 messages)", "\(log)")
        #expect(log[1].hasPrefix("volumes: rooms/long.md, ") && log[1].hasSuffix(" to volumes/long/0001.md–0002.md"), "\(log)")
        // One commit of the move: the volumes added, the room's file made shorter; nothing else.
        let moved = try git(["show", "--name-status", "--format=", "HEAD~1"], in: dir.path)
        #expect(moved == "M\trooms/long.md\nA\tvolumes/long/0001.md\nA\tvolumes/long/0002.md\n", "\(moved)")
        let volumes = try volumes(dir)
        #expect(volumes == ["volumes/long/0001.md", "volumes/long/0002.md"])
        for path in volumes {
            let text = try dir.readText(path)
            #expect(text.hasPrefix("---\ntitle: 긴 대화\nroom: rooms/long.md\nvolume: \(path.hasSuffix("1.md") ? 1 : 2)\n---\n\n## "), "\(text.prefix(120))")
            #expect(try dir.read(path).count < 2 * 1024 * 1024 + 4096, "a volume ends at the first message past 2 MiB")
        }
        // The messages moved byte for byte: the volumes' messages, then the file's, are the room's
        // messages as they were, followed by the turn's two.
        let file = try dir.read(VolumeTests.room)
        #expect(file.count < 300 * 1024, "the room's file keeps its newest messages: \(file.count) bytes")
        #expect(String(decoding: file, as: UTF8.self).hasPrefix(VolumeTests.head + "## "), "front-matter and preamble stay")
        var joined: [UInt8] = []
        for path in volumes { joined += messagePart(try dir.read(path)) }
        let original = messagePart(before)
        let now = joined + messagePart(file)
        #expect(Array(now.prefix(original.count)) == original, "the messages are those of before, byte for byte")
        #expect(String(decoding: now.dropFirst(original.count), as: UTF8.self).contains("첫 질문"))
        let ids = try ids(dir)
        #expect(ids.count == 6002 && Set(ids).count == 6002, "each message once: \(ids.count)")

        // Read as one room: show (the same text as before, and the turn), export, a reply to a
        // message in a volume.
        let shown = try runVault(["show", "long", "--no-pager"], in: dir.path)
        expectSuccess(shown)
        #expect(shown.stdout.hasPrefix(shownBefore.stdout.replacingOccurrences(of: promptMarker, with: "").prefix(4000)))
        for i in [0, 1, 2999, 5999] { #expect(shown.stdout.contains("메시지 \(i): "), "message \(i) shown") }
        #expect(shown.stdout.contains("첫 질문"))
        let exported = try runVault(["export", "long", "--format", "json"], in: dir.path)
        expectSuccess(exported)
        let json = try JSONSerialization.jsonObject(with: Data(exported.stdout.utf8)) as? [String: Any]
        let items = try #require(json?["items"] as? [[String: Any]])
        #expect((items.first?["messages"] as? [Any])?.count == 6002)
        let replied = try runVault(["say", "long", "그 말에 답해요", "--reply-to", "m-000000000003"], in: dir.path)
        expectSuccess(replied)
        #expect(try dir.readText(VolumeTests.room).contains("메시지 3: 부산 여행"), "the quoted message from the volume")

        // The next turn changes only the room's file: no volume is written or rehashed.
        expectSuccess(try runVault(["chat", "long", "두 번째 질문"], in: dir.path))
        #expect(try git(["show", "--name-only", "--format=", "HEAD"], in: dir.path) == "rooms/long.md\n")
        // A volume edited by hand is committed first, on its own, by the room's next turn.
        let volume = try dir.readText(volumes[0])
        try dir.write(volumes[0], volume.replacingOccurrences(of: "메시지 7: ", with: "메시지 7 (고침): "))
        expectSuccess(try runVault(["chat", "long", "세 번째 질문"], in: dir.path))
        #expect(try git(["log", "-2", "--format=%s"], in: dir.path).hasSuffix("edit: \(volumes[0])\n"))
        #expect(try git(["show", "--name-only", "--format=", "HEAD"], in: dir.path) == "rooms/long.md\n")
        #expect(try git(["status", "--porcelain"], in: dir.path).isEmpty)
        #expect(try git(["fsck", "--strict", "--no-dangling"], in: dir.path).isEmpty)
        try expectCheckClean(dir.path)
        #expect(try runVault(["check"], in: dir.path).stdout == "3 files checked, no problems.\n", "the volumes are checked too")
    }

    @Test func removingAndRestoringARoomTakesItsVolumesWithIt() throws {
        let dir = try vault()
        expectSuccess(try runVault(["chat", "long", "질문"], in: dir.path))
        let shown = try runVault(["show", "long", "--no-pager"], in: dir.path).stdout
        let files = try vaultFiles(dir.path)
        expectSuccess(try runVault(["rm", "long", "--yes"], in: dir.path))
        #expect(try git(["log", "-1", "--format=%s"], in: dir.path) == "rm: rooms/long.md (긴 대화), and its 2 volumes\n")
        #expect(try git(["ls-files", "volumes", "rooms"], in: dir.path).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/volumes"), "no empty folder is left")
        let restored = try runVault(["restore", "long"], in: dir.path)
        expectSuccess(restored)
        #expect(try git(["log", "-1", "--format=%s"], in: dir.path).hasSuffix(", and its 2 volumes\n"))
        #expect(try vaultFiles(dir.path) == files)
        #expect(try runVault(["show", "long", "--no-pager"], in: dir.path).stdout == shown)
        // Restored to a revision from before the volumes: the file as it was, the volumes gone.
        let first = try git(["rev-list", "--max-parents=0", "HEAD"], in: dir.path)
        let beforeVolumes = try git(["log", "--format=%h", "--grep=^long room$"], in: dir.path)
        #expect(!first.isEmpty && !beforeVolumes.isEmpty)
        let back = beforeVolumes.trimmingCharacters(in: .whitespacesAndNewlines)
        expectSuccess(try runVault(["restore", "long", "--at", back], in: dir.path))
        #expect(try volumes(dir).isEmpty)
        #expect(try ids(dir).count == 6000)
        #expect(try git(["status", "--porcelain"], in: dir.path).isEmpty)
        try expectCheckClean(dir.path)
    }

    /// Killed (SIGKILL) after writing the volumes and before rewriting the file: the messages are
    /// in both (none lost); the next message's rollover removes them from the file and writes
    /// none twice, and everything is committed.
    @Test func aRolloverKilledHalfwayIsFinishedWithoutDoubles() throws {
        let dir = try vault()
        let before = try dir.read(VolumeTests.room)
        let killed = try runVault(["chat", "long", "다음"], in: dir.path, environment: ["VAULT_CRASH_AT": "rollover-volumes-written"])
        #expect(killed.status == SIGKILL, "not killed: \(killed.status) \(killed.stderr)")
        #expect(try dir.read(VolumeTests.room) == before, "the room's file is as it was")
        let written = try volumes(dir)
        #expect(written == ["volumes/long/0001.md", "volumes/long/0002.md"])
        #expect(try ids(dir).count > 6000, "the moved messages are in both, none lost")
        let volume = try dir.readText(written[0])

        expectSuccess(try runVault(["chat", "long", "다음"], in: dir.path))
        let ids = try ids(dir)
        #expect(ids.count == 6002 && Set(ids).count == 6002, "\(ids.count) messages, \(Set(ids).count) different")
        #expect(try volumes(dir) == written, "no volume written twice")
        #expect(try dir.readText(written[0]) == volume, "the volume written is kept as it is")
        let subjects = try git(["log", "-4", "--format=%s"], in: dir.path)
        #expect(subjects.contains("volumes: rooms/long.md, "), "\(subjects)")
        #expect(try git(["status", "--porcelain", "--untracked-files=all"], in: dir.path).isEmpty)
        #expect(try git(["fsck", "--strict", "--no-dangling"], in: dir.path).isEmpty)
        try expectCheckClean(dir.path)
    }

    /// The same, the volumes written by hand as a killed rollover leaves them, of another size:
    /// the next rollover fills the newest one on and removes what they hold from the file.
    @Test func aRolloverFinishesWhatVolumesAlreadyHold() throws {
        let dir = try vault()
        let volume = "---\ntitle: 긴 대화\nroom: rooms/long.md\nvolume: 1\n---\n\n" + VolumeTests.messages(3000)
        try dir.write("volumes/long/0001.md", volume)
        expectSuccess(try runVault(["chat", "long", "다음"], in: dir.path))
        let ids = try ids(dir)
        #expect(ids.count == 6002 && Set(ids).count == 6002, "\(ids.count) messages, \(Set(ids).count) different")
        #expect(try dir.readText("volumes/long/0001.md").hasPrefix(volume), "the volume written is kept, then filled")
        #expect(try git(["status", "--porcelain"], in: dir.path).isEmpty)
        try expectCheckClean(dir.path)
    }

    /// A message edited in the room's file while another version of it is in a volume (edited on
    /// one machine while another moved it): the rollover moves it with an id of its own, marked
    /// `conflict=` as a merge marks the second of two versions, so no volume holds one id twice.
    @Test func aMessageWhoseOtherVersionIsInAVolumeGetsAnIdOfItsOwn() throws {
        let dir = try freshVault()
        let config = try dir.readText("vault.yml")
        try dir.write("vault.yml", config.replacingOccurrences(of: "format: 1\n", with: "format: 3\n"))
        let head = "---\ntitle: long\nroom: rooms/long.md\nvolume: 1\n---\n\n"
        try dir.write("volumes/long/0001.md", head + VolumeTests.messages(6))
        let edited = VolumeTests.messages(1, from: 5).replacingOccurrences(of: "끝\n", with: "끝 (고침)\n")
        try dir.write(VolumeTests.room, VolumeTests.head + edited + VolumeTests.messages(34, from: 6) + promptMarker + "\n")
        try git(["add", "-A"], in: dir.path)
        try git(["-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "-m", "setup"], in: dir.path)
        let small = ["VAULT_TEST_VOLUME_SIZES": "4096,1024,8192"]
        expectSuccess(try runVault(["say", "long", "다음"], in: dir.path, environment: small))
        let volume = try dir.readText("volumes/long/0001.md")
        #expect(volume.hasPrefix(head + VolumeTests.messages(6)), "the volume's own messages stay as they were")
        #expect(volume.contains(" conflict=m-000000000005 -->\n\n메시지 5: 부산 여행 일정과 숙소 낱말5끝 (고침)\n"), "\(volume.suffix(600))")
        let ids = try ids(dir)
        #expect(ids.count == Set(ids).count && ids.count == 6 + 35 + 1, "\(ids.count) messages, \(Set(ids).count) ids")
        // The two versions are listed until the person settles them; nothing else is wrong.
        let check = try runVault(["check"], in: dir.path)
        #expect(check.stdout.hasPrefix("volumes/long/0001.md:") && check.stdout.contains("warning: two versions of message m-000000000005"), "\(check.stdout)")
        #expect(check.stdout.hasSuffix("1 problem.\n"), "\(check.stdout)")
    }

    /// A flat vault given `format: 3` by hand rolls its rooms over in place; `vault migrate` then
    /// files each room by year with its volumes, in the same commit of renames.
    @Test func migratingMovesARoomsVolumesWithIt() throws {
        let dir = try vault()
        expectSuccess(try runVault(["chat", "long", "질문"], in: dir.path))
        let shown = try runVault(["show", "long", "--no-pager"], in: dir.path).stdout
        #expect(try volumes(dir).count == 2)
        expectSuccess(try runVault(["migrate"], in: dir.path))
        let moved = try git(["-c", "core.quotePath=false", "show", "-M", "--name-status", "--format=", "HEAD"], in: dir.path)
        #expect(moved.contains("R100\trooms/long.md\trooms/2026/long.md\n"), "\(moved)")
        for n in ["0001", "0002"] {
            #expect(moved.contains("R100\tvolumes/long/\(n).md\tvolumes/2026/long/\(n).md\n"), "\(moved)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/volumes/long"), "no empty folder is left")
        let after = try runVault(["show", "long", "--no-pager"], in: dir.path).stdout
        #expect(after == shown.replacingOccurrences(of: "rooms/long.md", with: "rooms/2026/long.md"), "the same room, at its new path")
        #expect(try git(["status", "--porcelain"], in: dir.path).isEmpty)
        try expectCheckClean(dir.path)
    }

    /// An import that brings a room of megabytes into a vault of an older format suggests format 3;
    /// after `vault migrate`, the room's first turn gives its older messages to volumes.
    @Test func importingALongConversationSuggestsFormat3() throws {
        let dir = try freshVault()
        let logs = TemporaryDirectory("claude-logs")
        let session = "7a0c2a1e-0000-4000-8000-00000000000b"
        let line = { (o: [String: Any]) in String(decoding: try! JSONSerialization.data(withJSONObject: o), as: UTF8.self) }
        var lines: [String] = []
        var parent: Any = NSNull()
        for i in 0..<2400 {
            let user = i % 2 == 0
            let text = "메시지 \(i): " + String(repeating: "부산 여행 이야기 \(i) ", count: 40)
            lines.append(line([
                "type": user ? "user" : "assistant", "uuid": "u\(i)", "parentUuid": parent, "sessionId": session,
                "timestamp": String(format: "2026-03-01T09:%02d:%02d.000Z", i / 60 % 60, i % 60), "cwd": "/p", "isSidechain": false,
                "message": user ? ["role": "user", "content": text] as [String: Any]
                    : ["role": "assistant", "content": [["type": "text", "text": text]]] as [String: Any],
            ]))
            parent = "u\(i)"
        }
        try logs.write("p/\(session).jsonl", lines.joined(separator: "\n") + "\n")
        let imported = try runVault(["import", "claude-code", logs.path + "/p/\(session).jsonl"], in: dir.path)
        expectSuccess(imported)
        #expect(imported.stdout.contains("1 room is 2 MiB or more (rooms/"), "\(imported.stdout)")
        #expect(imported.stdout.contains("`vault migrate` (format 3)"), "\(imported.stdout)")
        expectSuccess(try runVault(["migrate"], in: dir.path))
        let room = try #require(try FileManager.default.subpathsOfDirectory(atPath: dir.path + "/rooms").first { $0.hasSuffix(".md") })
        let name = String((room as NSString).lastPathComponent.dropLast(3))
        expectSuccess(try runVault(["say", name, "이어서"], in: dir.path))
        #expect(FileManager.default.fileExists(atPath: dir.path + "/volumes"), "the room rolled over")
        try expectCheckClean(dir.path)
    }

    @Test func formatsBefore3KeepALongRoomInOneFile() throws {
        let dir = try vault(format: 2)
        expectSuccess(try runVault(["chat", "long", "질문"], in: dir.path))
        #expect(try volumes(dir).isEmpty)
        #expect(try git(["show", "--name-only", "--format=", "HEAD"], in: dir.path) == "rooms/long.md\n")
        #expect(try git(["rev-list", "--count", "HEAD"], in: dir.path) == "3\n", "init, the room, the turn")
    }

    /// A short room, or one long for its pending text alone, writes no volume.
    @Test func aFileLongForItsPendingTextAloneWritesNoVolume() throws {
        let dir = try vault(count: 4)
        let pending = String(repeating: "다음에 보낼 긴 초안 한 줄\n", count: 80_000)
        try dir.write(VolumeTests.room, try dir.readText(VolumeTests.room) + pending)
        #expect(try dir.read(VolumeTests.room).count > 2 * 1024 * 1024)
        expectSuccess(try runVault(["say", "long", "짧은 말"], in: dir.path))
        #expect(try volumes(dir).isEmpty)
        #expect(try git(["status", "--porcelain"], in: dir.path).isEmpty)
    }

    @Test func checkReportsAVolumeWhoseRoomIsGoneAndAFileThatIsNoVolume() throws {
        let dir = try vault()
        expectSuccess(try runVault(["chat", "long", "질문"], in: dir.path))
        try FileManager.default.moveItem(atPath: dir.path + "/rooms/long.md", toPath: dir.path + "/rooms/renamed.md")
        try dir.write("volumes/long/notes.md", "# mine\n")
        let files = try vaultFiles(dir.path)
        let check = try runVault(["check"], in: dir.path)
        #expect(check.status != 0)
        #expect(check.stdout.contains("volumes/long/0001.md:1: a volume of rooms/long.md, which is not there"), "\(check.stdout)")
        #expect(check.stdout.contains("volumes/long/notes.md:1: not a volume"), "\(check.stdout)")
        #expect(try vaultFiles(dir.path) == files, "check changes nothing")
    }

    /// One message id in two volumes of a room under two texts (what two clones that cut
    /// volumes at different messages, one of them having edited it, could leave: #38's item 6):
    /// `vault check` names the message and both files, and changes nothing.
    @Test func checkFindsOneMessageInTwoVolumes() throws {
        let dir = try vault(count: 12_000)
        expectSuccess(try runVault(["chat", "long", "질문"], in: dir.path))
        let written = try volumes(dir)
        try #require(written.count >= 2, "\(written)")
        let header = "<!-- 2026-01-01T10:00:00+09:00 m-000000000000 -->"
        #expect(try dir.readText(written[0]).contains(header))
        let last = written[written.count - 1]
        try dir.write(last, try dir.readText(last) + "## 🧑 user · then \(header)\n\n같은 id, 다른 글\n\n")
        let files = try vaultFiles(dir.path)
        let check = try runVault(["check"], in: dir.path)
        #expect(check.status != 0)
        #expect(
            check.stdout.contains("\(last):") && check.stdout.contains("the message id m-000000000000 is in \(written[0]) too"),
            "\(check.stdout)")
        #expect(try vaultFiles(dir.path) == files, "check changes nothing")
    }
}
