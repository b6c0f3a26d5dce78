import Foundation
import Testing
import VaultCore
import VaultTestSupport

/// `vault sync` between machines: every way two machines' changes can meet, each checked for
/// loss with the parser and with `git`.
@Suite struct SyncMergeTests {
    let room = "rooms/독서-모임-발제문.md"
    let entry = "diary/2026/2026-11-21-첫눈.md"

    @Test func bothSidesAppendToOneRoom() throws {
        let w = try SyncWorld()
        let before = try w.ids("laptop", room)
        try w.chat("laptop", room, "노트북에서 보낸 질문")
        try w.chat("desktop", room, "데스크톱에서 보낸 질문")
        let laptopIDs = try w.ids("laptop", room)
        let desktopIDs = try w.ids("desktop", room)
        try w.expectOK(w.vault("laptop", ["sync"]))
        let r = try w.vault("desktop", ["sync"])
        try w.expectOK(r)
        #expect(r.stdout.contains("2 new messages in 1 room"), "report: \(r.stdout)")
        try w.expectOK(w.vault("laptop", ["sync"]))
        #expect(try w.files("laptop") == w.files("desktop"))
        let merged = try w.ids("desktop", room)
        #expect(Set(merged) == Set(laptopIDs).union(desktopIDs))
        #expect(Array(merged.prefix(before.count)) == before)
        // In time order, each question followed by its own reply.
        let text = try w.read("desktop", room)
        let messages = try RoomFile(parsing: Array(text.utf8), path: room).messages
        let times = messages.map(\.timestamp.date)
        #expect(times == times.sorted())
        for question in ["노트북에서 보낸 질문", "데스크톱에서 보낸 질문"] {
            let i = try #require(messages.firstIndex { $0.body == question })
            #expect(messages[i + 1].role == .assistant && messages[i + 1].body.contains(question))
        }
        #expect(!text.contains("<<<<<<<"))
        // The merge commit has both parents; the remote has it.
        let parents = try git(["log", "-1", "--format=%P", "HEAD~0"], in: w.path("desktop")).split(separator: " ")
        #expect(parents.count == 2)
        #expect(try git(["rev-parse", "main"], in: w.remote) == git(["rev-parse", "HEAD"], in: w.path("laptop")))
        try w.expectHealthy("laptop")
        try w.expectHealthy("desktop")
    }

    /// The index after a merge holds each file the merge wrote with the merged blob and the
    /// file's own stat data (`GitHistory.updateIndex` splices the records): `git diff-files`,
    /// which trusts the stat data and refreshes nothing, finds no file changed, and the index is
    /// HEAD's tree; a file the merge removed is gone from it.
    @Test func theIndexAfterAMergeHoldsTheWrittenFiles() throws {
        let w = try SyncWorld()
        try w.chat("laptop", room, "노트북에서 보낸 질문")
        try w.chat("desktop", room, "데스크톱에서 보낸 질문")
        try FileManager.default.removeItem(atPath: w.path("laptop") + "/" + entry)
        try w.expectOK(w.vault("laptop", ["sync"]))
        try w.expectOK(w.vault("desktop", ["sync"]))
        let desktop = w.path("desktop")
        #expect(try git(["log", "-1", "--format=%P", "HEAD"], in: desktop).split(separator: " ").count == 2)
        #expect(try git(["diff-files", "--name-status"], in: desktop) == "")
        #expect(try git(["diff-index", "--cached", "--name-status", "HEAD"], in: desktop) == "")
        let merged = try git(["rev-parse", "HEAD:" + room], in: desktop).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try git(["ls-files", "-s", room], in: desktop).contains(" \(merged) 0\t"))
        #expect(try git(["ls-files", entry], in: desktop) == "")
        // The fast-forward on the other machine, the same.
        try w.expectOK(w.vault("laptop", ["sync"]))
        #expect(try git(["diff-files", "--name-status"], in: w.path("laptop")) == "")
        #expect(try git(["diff-index", "--cached", "--name-status", "HEAD"], in: w.path("laptop")) == "")
        try w.expectHealthy("laptop")
        try w.expectHealthy("desktop")
    }

    /// One room renamed differently on both machines, and an old message edited on one: the
    /// later name is kept, with the edit. (The no-loss check once compared the unedited side's
    /// message with no base version, because the base name was neither side's, and stopped
    /// the sync: found by `scripts/soak-sync.sh`, seed 1, 300 operations.)
    @Test func aRoomRenamedDifferentlyOnBothSidesKeepsTheEdit() throws {
        let w = try SyncWorld()
        let busan = "rooms/부산-여행.md"
        let ids = try w.ids("laptop", busan)
        #expect(ids.count >= 2)
        var text = try w.read("desktop", busan)
        let lines = text.components(separatedBy: "\n")
        let firstHeader = try #require(lines.firstIndex { $0.hasPrefix("## ") })
        let body = try #require(lines[firstHeader...].first { !$0.isEmpty && !$0.hasPrefix("#") && !$0.hasPrefix("<") })
        text = text.replacingOccurrences(of: body + "\n", with: body + " (고친 말)\n")
        try FileManager.default.removeItem(atPath: w.path("desktop") + "/" + busan)
        try w.write("desktop", "rooms/데스크톱-이름.md", text)
        try w.expectOK(w.vault("desktop", ["sync"]))
        try FileManager.default.moveItem(atPath: w.path("laptop") + "/" + busan, toPath: w.path("laptop") + "/rooms/노트북-이름.md")
        let synced = try w.vault("laptop", ["sync"])
        try w.expectOK(synced)
        try w.expectOK(w.vault("desktop", ["sync"]))
        #expect(try w.files("laptop") == (try w.files("desktop")))
        let rooms = try w.files("laptop").keys.filter { $0.hasSuffix("이름.md") }
        #expect(rooms.count == 1, "one room, under the later commit's name: \(rooms)")
        let kept = try #require(rooms.first)
        #expect(try w.read("laptop", kept).contains(body + " (고친 말)\n"), "the edit is kept")
        #expect(Set(try w.ids("laptop", kept)) == Set(ids))
        try w.expectHealthy("laptop")
        try w.expectHealthy("desktop")
    }

    @Test func bothEditTheSameOldMessageKeepsBothVersions() throws {
        let w = try SyncWorld()
        let room = "rooms/김치찌개-레시피.md"
        let original = try w.read("laptop", room)
        let id = try #require(try w.ids("laptop", room).first)
        let body = try #require(
            try RoomFile(parsing: Array(original.utf8), path: room).messages.first?.body.split(separator: "\n").first)
        try w.write("laptop", room, original.replacingOccurrences(of: String(body), with: "노트북의 수정"))
        try w.write("desktop", room, original.replacingOccurrences(of: String(body), with: "데스크톱의 수정"))
        try w.expectOK(w.vault("laptop", ["sync"]))
        try w.expectOK(w.vault("desktop", ["sync"]))
        try w.expectOK(w.vault("laptop", ["sync"]))
        let text = try w.read("laptop", room)
        #expect(text.contains("노트북의 수정") && text.contains("데스크톱의 수정"))
        #expect(text.contains("conflict=\(id)"))
        #expect(try w.files("laptop") == w.files("desktop"))
        try w.expectHealthy("laptop")
    }

    /// One machine converts a room to CRLF line endings, the other edits a message: the sync
    /// keeps the edit once (no `conflict=` version; the loss check counts line endings as no
    /// change), in CRLF throughout, the same on both machines.
    @Test func aRoomConvertedToCRLFKeepsTheOtherMachinesEdit() throws {
        let w = try SyncWorld()
        let room = "rooms/김치찌개-레시피.md"
        let original = try w.read("laptop", room)
        // A line of the reply, a message of many lines (its CRLF version differs from its LF one).
        let line = "- 묵은지가 너무 시면"
        #expect(original.contains("\n" + line))
        try w.write("laptop", room, original.replacingOccurrences(of: "\n", with: "\r\n"))
        try w.write("desktop", room, original.replacingOccurrences(of: line, with: "- 데스크톱의 수정: 묵은지가 너무 시면"))
        let text = try syncedInCRLF(w, room)
        #expect(text.contains("데스크톱의 수정") && !text.contains("\r\n" + line))
        #expect(!text.contains("conflict="))
    }

    /// `path` after the laptop, the desktop and the laptop again synced: the same files on both,
    /// both healthy, and `path` in CRLF throughout.
    private func syncedInCRLF(_ w: SyncWorld, _ path: String) throws -> String {
        try w.expectOK(w.vault("laptop", ["sync"]))
        try w.expectOK(w.vault("desktop", ["sync"]))
        try w.expectOK(w.vault("laptop", ["sync"]))
        let bytes = Array(try w.read("laptop", path).utf8)
        let lineFeeds = bytes.indices.filter { bytes[$0] == 10 }
        #expect(lineFeeds.allSatisfy { $0 > 0 && bytes[$0 - 1] == 13 }, "one line ending: CRLF")
        #expect(try w.files("laptop") == w.files("desktop"))
        try w.expectHealthy("laptop")
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The same for a diary entry merged line by line: one machine converts it to CRLF and edits
    /// one line, the other edits another line; both edits, no conflict copy, CRLF throughout
    /// (the no-loss check matches the LF side's added lines in the CRLF result).
    @Test func anEntryConvertedToCRLFMergesLineByLine() throws {
        let w = try SyncWorld()
        let original = try w.read("laptop", entry)
        let (first, second) = ("아침에 첫눈이 왔다.", "집에 와서 냉동해 둔 단호박 수프를 데워 먹었다.")
        #expect(original.contains(first) && original.contains(second))
        try w.write(
            "laptop", entry,
            original.replacingOccurrences(of: first, with: "노트북: 첫눈").replacingOccurrences(of: "\n", with: "\r\n"))
        try w.write("desktop", entry, original.replacingOccurrences(of: second, with: "데스크톱: 수프"))
        let text = try syncedInCRLF(w, entry)
        #expect(text.contains("노트북: 첫눈") && text.contains("데스크톱: 수프"))
        #expect(!(try w.files("laptop").keys.contains { $0.contains(".conflict-") }))
    }

    @Test func sameFrontMatterKeyChangedOnBothSidesLaterWins() throws {
        let w = try SyncWorld()
        try w.expectOK(w.vault("laptop", ["room", "set", room, "model", "model-from-laptop"]))
        try w.expectOK(w.vault("desktop", ["room", "set", room, "model", "model-from-desktop"]))
        try w.expectOK(w.vault("laptop", ["sync"]))
        let r = try w.vault("desktop", ["sync"])
        try w.expectOK(r)
        let text = try w.read("desktop", room)
        // The later commit wins (commit time, then commit id, the same on every machine).
        func stamp(_ revision: String) throws -> (time: Int, id: String) {
            let parts = try git(["log", "-1", "--format=%ct %H", revision], in: w.path("desktop")).split(separator: " ")
            return (Int(parts[0])!, parts[1].trimmingCharacters(in: .whitespacesAndNewlines))
        }
        let ours = try stamp("HEAD^1")  // the desktop's commit
        let theirs = try stamp("HEAD^2")  // the laptop's
        let laptopWins = theirs.time > ours.time || (theirs.time == ours.time && theirs.id > ours.id)
        let (winner, loser) =
            laptopWins ? ("model-from-laptop", "model-from-desktop") : ("model-from-desktop", "model-from-laptop")
        #expect(text.contains("model: \(winner)"))
        #expect(!text.contains(loser))
        #expect(text.components(separatedBy: "\nmodel:").count == 2, "one model key")
        #expect(r.stdout.contains("model"), "the report names the key: \(r.stdout)")
        try w.expectHealthy("desktop")
    }

    @Test func overlappingDiaryEditsMakeAConflictCopyNeverMarkers() throws {
        let w = try SyncWorld()
        let original = try w.read("laptop", entry)
        try w.write("laptop", entry, original.replacingOccurrences(of: "아침에 첫눈이 왔다.", with: "아침에 첫눈이 펑펑 왔다."))
        try w.write("desktop", entry, original.replacingOccurrences(of: "아침에 첫눈이 왔다.", with: "새벽에 첫눈이 조금 왔다."))
        try w.expectOK(w.vault("laptop", ["sync"]))
        let r = try w.vault("desktop", ["sync"])
        try w.expectOK(r)
        #expect(r.stdout.contains("conflict copy"), "report: \(r.stdout)")
        let files = try w.files("desktop")
        let copies = files.keys.filter { $0.contains(".conflict-") }
        #expect(copies.count == 1)
        let all = files.values.map { String(decoding: $0, as: UTF8.self) }.joined()
        #expect(all.contains("펑펑") && all.contains("새벽에 첫눈이 조금"))
        #expect(!all.contains("<<<<<<<") && !all.contains(">>>>>>>"))
        try w.expectOK(w.vault("laptop", ["sync"]))
        #expect(try w.files("laptop") == w.files("desktop"))
        try w.expectHealthy("desktop")
    }

    @Test func nonOverlappingDiaryEditsMergeCleanly() throws {
        let w = try SyncWorld()
        let original = try w.read("laptop", entry)
        try w.write("laptop", entry, original + "\n노트북에서 덧붙인 줄\n")
        try w.write("desktop", entry, original.replacingOccurrences(of: "아침에 첫눈이 왔다.", with: "아침에 첫눈이 펑펑 왔다."))
        try w.expectOK(w.vault("laptop", ["sync"]))
        try w.expectOK(w.vault("desktop", ["sync"]))
        let text = try w.read("desktop", entry)
        #expect(text.contains("노트북에서 덧붙인 줄") && text.contains("펑펑"))
        #expect(try w.files("desktop").keys.allSatisfy { !$0.contains(".conflict-") })
    }

    @Test func editBeatsDelete() throws {
        let w = try SyncWorld()
        try w.expectOK(w.vault("laptop", ["rm", entry, "--yes"]))
        try w.write("desktop", entry, try w.read("desktop", entry) + "\n지우지 마세요\n")
        try w.expectOK(w.vault("laptop", ["sync"]))
        let r = try w.vault("desktop", ["sync"])
        try w.expectOK(r)
        #expect(try w.read("desktop", entry).contains("지우지 마세요"))
        try w.expectOK(w.vault("laptop", ["sync"]))
        #expect(try w.read("laptop", entry).contains("지우지 마세요"))
    }

    @Test func renameOnOneSideEditOnTheOtherLandsInTheRenamedFile() throws {
        let w = try SyncWorld()
        let renamed = "rooms/독서-모임.md"
        try FileManager.default.moveItem(
            atPath: w.path("laptop") + "/" + room, toPath: w.path("laptop") + "/" + renamed)
        try w.chat("desktop", room, "이름이 바뀐 방에 들어갈 질문")
        try w.expectOK(w.vault("laptop", ["sync"]))
        try w.expectOK(w.vault("desktop", ["sync"]))
        #expect(!FileManager.default.fileExists(atPath: w.path("desktop") + "/" + room))
        #expect(try w.read("desktop", renamed).contains("이름이 바뀐 방에 들어갈 질문"))
        try w.expectHealthy("desktop")
    }

    @Test func twoRoomsMadeUnderOneNameAreKeptApart() throws {
        let w = try SyncWorld()
        try w.expectOK(w.vault("laptop", ["room", "new", "같은 이름"]))
        try w.chat("laptop", "rooms/같은-이름.md", "노트북의 방")
        try w.expectOK(w.vault("desktop", ["room", "new", "같은 이름"]))
        try w.chat("desktop", "rooms/같은-이름.md", "데스크톱의 방")
        try w.expectOK(w.vault("laptop", ["sync"]))
        let r = try w.vault("desktop", ["sync"])
        try w.expectOK(r)
        let one = try w.read("desktop", "rooms/같은-이름.md")
        let two = try w.read("desktop", "rooms/같은-이름-2.md")
        #expect(one.contains("노트북의 방") != two.contains("노트북의 방"))
        #expect(one.contains("데스크톱의 방") != two.contains("데스크톱의 방"))
        #expect(r.stdout.contains("renamed"), "report: \(r.stdout)")
    }

    @Test func pendingPromptsOnBothSidesAreBothKept() throws {
        let w = try SyncWorld()
        try w.write("laptop", room, try w.read("laptop", room) + "노트북에서 쓰다 만 질문\n")
        try w.write("desktop", room, try w.read("desktop", room) + "데스크톱에서 쓰다 만 질문\n")
        try w.expectOK(w.vault("laptop", ["sync"]))
        try w.expectOK(w.vault("desktop", ["sync"]))
        let pending = try #require(try RoomFile(parsing: Array(w.read("desktop", room).utf8), path: room).pendingPrompt)
        #expect(pending.contains("노트북에서 쓰다 만 질문") && pending.contains("데스크톱에서 쓰다 만 질문"))
    }
}
