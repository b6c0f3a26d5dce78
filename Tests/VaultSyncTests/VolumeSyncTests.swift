import Foundation
import Testing
import VaultCore
import VaultTestSupport

/// Format 3 between machines: two clones of a long room roll it over into volumes at different
/// points while both talk in it, offline. The volumes merge as rooms do (by message id: two
/// volumes of one number are one union), the room's file three-way: no word lost, none doubled.
@Suite(.serialized) struct VolumeSyncTests {
    static let room = "rooms/long.md"

    static func messages(_ range: Range<Int>, tag: String = "") -> String {
        var text = ""
        for i in range {
            let role = i % 2 == 0 ? "user" : "assistant"
            text +=
                "## \(role == "user" ? "🧑" : "🤖") \(role) · then "
                + "<!-- 2026-01-01T10:\(String(format: "%02d", i % 60)):00+09:00 m-\(tag)\(String(format: "%012d", i)) -->\n\n"
            text += "메시지 \(i)\(tag): 부산 여행 일정\n" + String(repeating: "line of an answer with some words \(i)\n", count: 8) + "\n"
        }
        return text
    }

    /// Every message id of the room, its volumes' first, and every volume's path.
    func ids(_ world: SyncWorld, _ machine: String) throws -> (ids: [String], volumes: [String]) {
        let folder = world.path(machine) + "/volumes/long"
        let volumes = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted().map { "volumes/long/" + $0 }
        var ids: [String] = []
        for path in volumes + [VolumeSyncTests.room] {
            ids += try RoomFile(parsing: Array(world.read(machine, path).utf8), path: path).messages.map(\.id)
        }
        return (ids, volumes)
    }

    /// Merged by `vault sync`, or by a plain `git pull` (vault's merge driver, from `.gitattributes`).
    @Test(arguments: [false, true]) func rolloversAtDifferentPointsAndTurnsOnBothMachinesLoseNothing(byGitPull: Bool) throws {
        let world = try SyncWorld("laptop", clones: [], sample: false)
        try world.expectOK(world.vault("laptop", ["migrate"]))
        #expect(try world.read("laptop", ".gitattributes").contains("volumes/**/*.md merge=vault"))
        let head = "---\ntitle: 긴 대화\ncreated: 2026-01-01T09:00:00+09:00\n---\n\n"
        try world.write("laptop", VolumeSyncTests.room, head + VolumeSyncTests.messages(0..<5200) + promptMarkerText + "\n")
        try world.expectOK(world.vault("laptop", ["sync"]))
        try world.clone("desktop")
        #expect(try ids(world, "desktop").ids.count == 5200)

        // Offline: the desktop adds 600 messages by hand and says something (its rollover cuts
        // later); the laptop talks (its rollover cuts at the first 5,200's point).
        let path = world.path("desktop") + "/" + VolumeSyncTests.room
        var text = try world.read("desktop", VolumeSyncTests.room)
        text = text.replacingOccurrences(
            of: promptMarkerText, with: VolumeSyncTests.messages(5200..<5800, tag: "d") + promptMarkerText)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        try world.expectOK(world.vault("desktop", ["say", "long", "데스크톱에서 한 말"]))
        try world.chat("laptop", "long", "노트북에서 한 질문")
        let laptop = try ids(world, "laptop")
        let desktop = try ids(world, "desktop")
        #expect(laptop.volumes == ["volumes/long/0001.md"], "\(laptop.volumes)")
        #expect(desktop.volumes == ["volumes/long/0001.md", "volumes/long/0002.md"], "\(desktop.volumes)")
        #expect(
            try world.read("laptop", laptop.volumes[0]) != (try world.read("desktop", desktop.volumes[0])),
            "the two machines cut at different points")

        try world.expectOK(world.vault("laptop", ["sync"]))
        if byGitPull {
            let desktopPath = world.path("desktop")
            let branch = try git(["rev-parse", "--abbrev-ref", "HEAD"], in: desktopPath)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let pull = Process()
            pull.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            pull.arguments = [
                "git", "-c", "user.name=T", "-c", "user.email=t@example.com", "pull", "--no-rebase", "--no-edit",
                "origin", branch,
            ]
            pull.currentDirectoryURL = URL(fileURLWithPath: desktopPath)
            var env = ProcessInfo.processInfo.environment
            env["PATH"] = SyncWorld.pathWithVault
            pull.environment = env
            let pulled = try run(pull)
            #expect(pulled.status == 0, "\(pulled.stdout) \(pulled.stderr)")
            #expect(try git(["status", "--porcelain"], in: desktopPath) == "", "the pull merged every file")
        }
        let synced = try world.vault("desktop", ["sync"])
        try world.expectOK(synced)
        try world.expectOK(world.vault("laptop", ["sync"]))
        #expect(try world.files("laptop") == (try world.files("desktop")))
        let after = try ids(world, "desktop")
        let expected = Set(laptop.ids).union(desktop.ids)
        #expect(expected.count == 5200 + 600 + 1 + 2)
        #expect(Set(after.ids) == expected, "lost: \(expected.subtracting(after.ids).sorted().prefix(5))")
        #expect(after.ids.count == expected.count, "doubled: \(after.ids.count - expected.count) messages")
        let all = try world.vault("desktop", ["show", "long", "--no-pager"]).stdout
        for words in ["메시지 0: ", "메시지 5799d: ", "데스크톱에서 한 말", "노트북에서 한 질문"] {
            #expect(all.contains(words), "\(words) shown")
        }
        try world.expectHealthy("laptop")
        try world.expectHealthy("desktop")
    }

    /// A room renamed by hand on one machine (its volumes' folder with it, as `vault check` asks)
    /// while the other, offline, talked in it and rolled it over into new volumes: after the
    /// syncs the new volumes are in the renamed room's folder, each message once.
    @Test func volumesRolledOverElsewhereFollowARenamedRoom() throws {
        let world = try SyncWorld("laptop", clones: ["desktop"])
        world.environment = ["VAULT_TEST_VOLUME_SIZES": "2048,512,1024"]  // volumes of a few kilobytes
        try world.expectOK(world.vault("laptop", ["migrate"]))
        try world.expectOK(world.vault("laptop", ["sync"]))
        try world.expectOK(world.vault("desktop", ["sync"]))
        let year = try #require(
            (try FileManager.default.contentsOfDirectory(atPath: world.path("laptop") + "/rooms")).first { year in
                FileManager.default.fileExists(atPath: world.path("laptop") + "/rooms/\(year)/부산-여행.md")
            })
        let (room, renamed) = ("rooms/\(year)/부산-여행.md", "rooms/\(year)/부산-가을-여행.md")
        try world.chat("laptop", "부산-여행", "첫 질문")
        try world.expectOK(world.vault("laptop", ["sync"]))
        try world.expectOK(world.vault("desktop", ["sync"]))
        let folder = { (r: String) in VaultPath.volumeFolder(ofRoom: r) }
        #expect(FileManager.default.fileExists(atPath: world.path("desktop") + "/" + folder(room)), "rolled over")
        // The laptop renames the room and its volumes' folder, and syncs.
        let laptop = world.path("laptop")
        try FileManager.default.moveItem(atPath: laptop + "/" + room, toPath: laptop + "/" + renamed)
        try FileManager.default.moveItem(atPath: laptop + "/" + folder(room), toPath: laptop + "/" + folder(renamed))
        try world.expectOK(world.vault("laptop", ["sync"]))
        // The desktop, offline, talks on under the old name: more volumes there.
        let before = try FileManager.default.contentsOfDirectory(atPath: world.path("desktop") + "/" + folder(room)).count
        for question in ["둘째 질문", "셋째 질문", "넷째 질문", "다섯째 질문"] { try world.chat("desktop", "부산-여행", question) }
        let after = try FileManager.default.contentsOfDirectory(atPath: world.path("desktop") + "/" + folder(room)).count
        #expect(after > before, "the desktop wrote new volumes: \(before) → \(after)")
        var expected = Set<String>()
        for m in ["laptop", "desktop"] {
            for (path, bytes) in try world.files(m) where path.hasPrefix(folder(room) + "/") || path.hasPrefix(folder(renamed) + "/") || path == room || path == renamed {
                expected.formUnion(try RoomFile(parsing: bytes, path: path).messages.map(\.id))
            }
        }
        try world.expectOK(world.vault("desktop", ["sync"]))
        try world.expectOK(world.vault("laptop", ["sync"]))
        #expect(try world.files("laptop") == (try world.files("desktop")))
        let files = try world.files("desktop")
        #expect(!files.keys.contains { $0.hasPrefix(folder(room) + "/") || $0 == room }, "nothing under the old name")
        var ids: [String] = []
        for (path, bytes) in files.sorted(by: { $0.key < $1.key })
        where path.hasPrefix(folder(renamed) + "/") || path == renamed {
            ids += try RoomFile(parsing: bytes, path: path).messages.map(\.id)
        }
        #expect(Set(ids) == expected, "lost: \(expected.subtracting(ids).sorted().prefix(5))")
        #expect(ids.count == Set(ids).count, "\(ids.count - Set(ids).count) messages twice")
        try world.expectHealthy("laptop")
        try world.expectHealthy("desktop")
    }

    /// The issue's case: the desktop renames a room by hand (`mv`) and talks on until it rolls
    /// over (its older messages into the new name's volumes), while the laptop adds to it under
    /// the old name. The sync pairs the two names as one room by its messages, not the old file
    /// with the new volume: one room, each message once, no folder left under the old name.
    @Test func aRoomRenamedAndRolledOverMeetsTurnsUnderItsOldName() throws {
        let world = try SyncWorld("laptop", clones: ["desktop"])
        world.environment = ["VAULT_TEST_VOLUME_SIZES": "2048,512,1024"]
        try world.expectOK(world.vault("laptop", ["migrate"]))
        try world.expectOK(world.vault("laptop", ["sync"]))
        try world.expectOK(world.vault("desktop", ["sync"]))
        let year = try #require(
            (try FileManager.default.contentsOfDirectory(atPath: world.path("laptop") + "/rooms")).first { year in
                FileManager.default.fileExists(atPath: world.path("laptop") + "/rooms/\(year)/김치찌개-레시피.md")
            })
        let (room, renamed) = ("rooms/\(year)/김치찌개-레시피.md", "rooms/\(year)/찌개-모음.md")
        let folder = { (r: String) in VaultPath.volumeFolder(ofRoom: r) }
        let desktop = world.path("desktop")
        try FileManager.default.moveItem(atPath: desktop + "/" + room, toPath: desktop + "/" + renamed)
        for question in ["새 이름의 첫 질문", "둘째 질문", "셋째 질문", "넷째 질문"] { try world.chat("desktop", "찌개-모음", question) }
        #expect(FileManager.default.fileExists(atPath: desktop + "/" + folder(renamed)), "rolled over under the new name")
        try world.chat("laptop", "김치찌개-레시피", "옛 이름으로 한 질문 OLD-NAME-TURN")
        var expected = Set<String>()
        for m in ["laptop", "desktop"] {
            for (path, bytes) in try world.files(m)
            where path.hasPrefix(folder(room) + "/") || path.hasPrefix(folder(renamed) + "/") || path == room || path == renamed {
                expected.formUnion(try RoomFile(parsing: bytes, path: path).messages.map(\.id))
            }
        }
        try world.expectOK(world.vault("laptop", ["sync"]))
        try world.expectOK(world.vault("desktop", ["sync"]))
        try world.expectOK(world.vault("laptop", ["sync"]))
        #expect(try world.files("laptop") == (try world.files("desktop")))
        let files = try world.files("desktop")
        #expect(!files.keys.contains { $0.hasPrefix(folder(room) + "/") || $0 == room }, "nothing under the old name")
        #expect(!FileManager.default.fileExists(atPath: desktop + "/" + folder(room)), "no empty folder left")
        var ids: [String] = []
        for (path, bytes) in files.sorted(by: { $0.key < $1.key })
        where path.hasPrefix(folder(renamed) + "/") || path == renamed {
            ids += try RoomFile(parsing: bytes, path: path).messages.map(\.id)
        }
        #expect(Set(ids) == expected, "lost: \(expected.subtracting(ids).sorted().prefix(5))")
        #expect(ids.count == Set(ids).count, "\(ids.count - Set(ids).count) messages twice")
        #expect(String(decoding: files[renamed] ?? [], as: UTF8.self).contains("OLD-NAME-TURN")
            || files.contains { $0.key.hasPrefix(folder(renamed)) && String(decoding: $0.value, as: UTF8.self).contains("OLD-NAME-TURN") })
        try world.expectHealthy("laptop")
        try world.expectHealthy("desktop")
    }

    /// The report counts the messages that arrived in a volume (the other machine rolled the
    /// room over while talking, and so did this one: the volumes merge) as the new messages
    /// they are, and nothing this machine had.
    @Test func messagesThatArriveInVolumesAreCountedAsNew() throws {
        let world = try SyncWorld("laptop", clones: ["desktop"])
        world.environment = ["VAULT_TEST_VOLUME_SIZES": "2048,512,1024"]
        try world.expectOK(world.vault("laptop", ["migrate"]))
        try world.expectOK(world.vault("laptop", ["sync"]))
        try world.expectOK(world.vault("desktop", ["sync"]))
        let room = try #require(
            try world.files("desktop").keys.first { $0.hasPrefix("rooms/") && $0.hasSuffix("/김치찌개-레시피.md") })
        let before = Set(try world.files("laptop").filter { $0.key.hasPrefix("volumes/") || $0.key == room }
            .flatMap { try RoomFile(parsing: $0.value, path: $0.key).messages.map(\.id) })
        for k in 1...8 { try world.chat("desktop", "김치찌개-레시피", "질문 \(k)") }
        let after = Set(try world.files("desktop").filter { $0.key.hasPrefix("volumes/") || $0.key == room }
            .flatMap { try RoomFile(parsing: $0.value, path: $0.key).messages.map(\.id) })
        let rolled = Set(try world.files("desktop").filter { $0.key.hasPrefix(VaultPath.volumeFolder(ofRoom: room) + "/") }
            .flatMap { try RoomFile(parsing: $0.value, path: $0.key).messages.map(\.id) })
        #expect(!rolled.intersection(after.subtracting(before)).isEmpty, "some new messages are in volumes already")
        try world.expectOK(world.vault("desktop", ["sync"]))
        // The laptop talked meanwhile too, offline, and rolled over at its own points: the volumes merge.
        for question in ["노트북의 첫 질문", "노트북의 둘째 질문"] { try world.chat("laptop", "김치찌개-레시피", question) }
        let r = try world.vault("laptop", ["sync", "--json"])
        try world.expectOK(r)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let rooms = (json["rooms"] as? [[String: Any]]) ?? []
        let reported = rooms.flatMap { ($0["newMessageIDs"] as? [String]) ?? [] }
        #expect(Set(reported) == after.subtracting(before), "reported \(reported.count), new \(after.subtracting(before).count)")
        #expect(reported.count == Set(reported).count, "each once")
        // One truth: the room's unread count in `vault rooms --json` is the report's new
        // messages, those that merged into volumes too, and no other room has any.
        let listed = try world.vault("laptop", ["rooms", "--json"])
        try world.expectOK(listed)
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        let unread = rows.first { $0["path"] as? String == room }?["unread"] as? Int
        #expect(unread == reported.count, "unread \(unread ?? -1), reported \(reported.count)")
        #expect(rows.reduce(0) { $0 + (($1["unread"] as? Int) ?? 0) } == reported.count, "no other unread mark")
    }
}

private let promptMarkerText = "<!-- vault:prompt · write your next message below this line, then run `vault chat` -->"
