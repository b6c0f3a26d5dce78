import Foundation
import Testing
import VaultCore
import VaultTestSupport

/// The sync report is the truth: its summary line counts everything it lists, and a message
/// counts as new only when this machine never had it (issue #22, item 9).
@Suite struct SyncReportTests {
    let entry = "diary/2026/2026-11-21-첫눈.md"
    let room = "rooms/부산-여행.md"

    /// The first line of a `vault sync` report.
    private func summary(_ r: RunResult) -> String {
        String(r.stdout.split(separator: "\n").first ?? "")
    }

    /// The report as JSON.
    private func json(_ r: RunResult) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
    }

    @Test func aConflictCopyThatCameInIsCountedInTheSummary() throws {
        let w = try SyncWorld()
        let original = try w.read("laptop", entry)
        try w.write("laptop", entry, original.replacingOccurrences(of: "아침에 첫눈이 왔다.", with: "아침에 첫눈이 펑펑 왔다."))
        try w.write("desktop", entry, original.replacingOccurrences(of: "아침에 첫눈이 왔다.", with: "새벽에 첫눈이 조금 왔다."))
        try w.expectOK(w.vault("laptop", ["sync"]))
        let r = try w.vault("desktop", ["sync"])
        try w.expectOK(r)
        #expect(r.stdout.contains("  conflict copy: "), "\(r.stdout)")
        #expect(!summary(r).contains("nothing new came in"), "\(r.stdout)")
        #expect(summary(r).contains("1 conflict copy"), "\(r.stdout)")
    }

    @Test func aFrontMatterKeyBothSidesChangedIsCountedInTheSummary() throws {
        let w = try SyncWorld()
        try w.expectOK(w.vault("laptop", ["room", "set", room, "model", "model-from-laptop"]))
        try w.expectOK(w.vault("desktop", ["room", "set", room, "model", "model-from-desktop"]))
        try w.expectOK(w.vault("laptop", ["sync"]))
        let r = try w.vault("desktop", ["sync"])
        try w.expectOK(r)
        // Whichever side won, one side's value was dropped: a note says so, and the summary counts it.
        let notes = r.stdout.split(separator: "\n").filter { $0.hasPrefix("  note: ") }
        #expect(!notes.isEmpty, "\(r.stdout)")
        #expect(!summary(r).contains("nothing new came in"), "\(r.stdout)")
        #expect(summary(r).contains("\(notes.count) note"), "\(r.stdout)")
    }

    /// A Syncthing copy in the vault's folder is committed and sent as a hand edit: the report
    /// says so, and says how to fold it in; the dry run says it would be.
    @Test func aSyncToolsConflictCopyCommittedAsAHandEditIsNamedInTheReport() throws {
        let w = try SyncWorld()
        let copy = "rooms/부산-여행.sync-conflict-20261123-101500-ABCDEFG.md"
        try w.write("desktop", copy, try w.read("desktop", room) + "싱크싱이 남긴 줄\n")
        let dry = try w.vault("desktop", ["sync", "--dry-run"])
        try w.expectOK(dry)
        #expect(dry.stdout.contains("note: \(copy) is a conflict copy of \(room)"), "\(dry.stdout)")
        #expect(dry.stdout.contains("would be committed as a hand edit"), "\(dry.stdout)")
        let r = try w.vault("desktop", ["sync"])
        try w.expectOK(r)
        #expect(r.stdout.contains("committed your hand edits first: \(copy)"), "\(r.stdout)")
        #expect(r.stdout.contains("note: \(copy) is a conflict copy of \(room)"), "\(r.stdout)")
        #expect(r.stdout.contains("was committed as a hand edit") && r.stdout.contains("`vault resolve`"), "\(r.stdout)")
        #expect(!summary(r).contains("nothing new came in"), "\(r.stdout)")
    }

    /// A sync that repaired conflict markers (a `resolve: …` commit, the file rewritten) and
    /// then stopped at a malformed room never says "nothing was written": it says what it
    /// committed before it stopped, and the repair is there as it says.
    @Test func aSyncThatStopsAfterARepairSaysWhatItCommitted() throws {
        let w = try SyncWorld()
        let marked = "rooms/김치찌개-레시피.md"
        let broken = "rooms/swift-concurrency-공부.md"
        let text = try w.read("desktop", marked)
        try w.write(
            "desktop", marked, text + "\n<<<<<<< HEAD\n내 줄\n=======\n남의 줄\n>>>>>>> origin/main\n")
        try w.chat("laptop", broken, "노트북의 질문")
        try w.expectOK(w.vault("laptop", ["sync"]))
        try w.write("desktop", broken, "---\ntitle: [unclosed\n---\n")
        let r = try w.vault("desktop", ["sync"])
        #expect(r.status != 0, "\(r.stdout)")
        let log = try git(["log", "--format=%s", "-3"], in: w.path("desktop"))
        try #require(log.contains("resolve: \(marked)"), "no repair was committed: \(log)\n\(r.stderr)")
        #expect(!r.stderr.contains("nothing was written"), "\(r.stderr)")
        #expect(r.stderr.contains("rooms/swift-concurrency-공부.md:2: "), "the cause is not named: \(r.stderr)")
        #expect(r.stderr.contains("before it stopped, vault committed"), "\(r.stderr)")
        #expect(r.stderr.contains("\(marked): conflict markers merged away"), "the repair is not named: \(r.stderr)")
        #expect(!(try w.read("desktop", marked)).contains("<<<<<<<"))
    }

    /// `vault resolve` folds a diary conflict copy that a sync made three-way, from the version
    /// both came from: both sides' changed lines are kept, the date heading and the paragraphs
    /// neither changed appear once, and the notes never point to the copy it removed.
    @Test func resolveFoldsADiaryCopyThreeWayAndSaysSo() throws {
        let w = try SyncWorld()
        let original = try w.read("laptop", entry)
        try w.write("laptop", entry, original.replacingOccurrences(of: "아침에 첫눈이 왔다.", with: "아침에 첫눈이 펑펑 왔다."))
        try w.write("desktop", entry, original.replacingOccurrences(of: "아침에 첫눈이 왔다.", with: "새벽에 첫눈이 조금 왔다."))
        try w.expectOK(w.vault("laptop", ["sync"]))
        try w.expectOK(w.vault("desktop", ["sync"]))
        let copies = try w.files("desktop").keys.filter { ConflictCopy.original(of: $0) == entry }
        try #require(copies.count == 1)
        let r = try w.vault("desktop", ["resolve"])
        try w.expectOK(r)
        #expect(!FileManager.default.fileExists(atPath: w.path("desktop") + "/" + copies[0]))
        let text = try w.read("desktop", entry)
        func count(_ needle: String) -> Int { text.components(separatedBy: needle).count - 1 }
        #expect(count("펑펑 왔다") == 1 && count("새벽에 첫눈이 조금 왔다") == 1, "\(text)")
        #expect(count("# 2026년 11월 21일 토요일") == 1, "the heading is duplicated: \(text)")
        #expect(count("외투를 대충 걸치고") == 1 && count("오후엔 독서 모임") == 1, "\(text)")
        #expect(!r.stdout.contains("in the conflict copy"), "\(r.stdout)")
        #expect(r.stdout.contains("\(copies[0]): merged into \(entry) (from the version of \(entry) in commit "), "\(r.stdout)")
        #expect(r.stdout.contains("both are kept there"), "\(r.stdout)")
        try w.expectHealthy("desktop")
    }

    /// A sync tool's copy with no history in common is added below, whole, and the note says why.
    @Test func resolveFoldsACopyWithNoKnownAncestorByAddingItAndSaysSo() throws {
        let w = try SyncWorld(clones: [])
        let copy = "diary/2026/2026-11-21-첫눈.sync-conflict-20261123-101500-ABCDEFG.md"
        let original = try w.read("laptop", entry)
        try w.write("laptop", copy, original.replacingOccurrences(of: "아침에 첫눈이 왔다.", with: "새벽에 첫눈이 조금 왔다."))
        try w.write("laptop", entry, original.replacingOccurrences(of: "아침에 첫눈이 왔다.", with: "아침에 첫눈이 펑펑 왔다."))
        let r = try w.vault("laptop", ["resolve"])
        try w.expectOK(r)
        let text = try w.read("laptop", entry)
        #expect(text.contains("펑펑 왔다") && text.contains("새벽에 첫눈이 조금 왔다"), "\(text)")
        #expect(!r.stdout.contains("in the conflict copy"), "\(r.stdout)")
        #expect(r.stdout.contains("no version both came from is known"), "\(r.stdout)")
        #expect(r.stdout.contains("\(copy): merged into \(entry) and removed"), "\(r.stdout)")
        try w.expectHealthy("laptop")
    }

    /// A conflict copy another machine committed comes in as a conflict copy, not as a new room.
    @Test func aConflictCopyFromAnotherMachineIsReportedAsOneNotAsANewRoom() throws {
        let w = try SyncWorld()
        let copy = "rooms/부산-여행.sync-conflict-20261123-101500-ABCDEFG.md"
        try w.write("laptop", copy, try w.read("laptop", room) + "싱크싱이 남긴 줄\n")
        try w.expectOK(w.vault("laptop", ["sync"]))
        let r = try w.vault("desktop", ["sync"])
        try w.expectOK(r)
        #expect(r.stdout.contains("  conflict copy: \(copy)"), "\(r.stdout)")
        #expect(!r.stdout.contains("new room") && !r.stdout.contains("new message"), "\(r.stdout)")
        #expect(summary(r).contains("1 conflict copy"), "\(r.stdout)")
    }

    @Test func ownMessagesInARoomRenamedThereAreNotNew() throws {
        let w = try SyncWorld()
        let renamed = "rooms/부산.md"
        try FileManager.default.moveItem(
            atPath: w.path("laptop") + "/" + room, toPath: w.path("laptop") + "/" + renamed)
        try w.chat("desktop", room, "이름이 바뀔 방에 쓴 내 질문")
        try w.expectOK(w.vault("laptop", ["sync"]))
        let r = try w.vault("desktop", ["sync", "--json"])
        try w.expectOK(r)
        #expect(try w.read("desktop", renamed).contains("이름이 바뀔 방에 쓴 내 질문"))
        let report = try json(r)
        let rooms = try #require(report["rooms"] as? [[String: Any]])
        let counted = rooms.flatMap { $0["newMessageIDs"] as? [String] ?? [] }
        #expect(counted.isEmpty, "desktop's own messages were counted as new: \(rooms)")
        #expect((report["renamed"] as? [[String: Any]])?.count == 1, "\(report)")
        // And in words: a rename, no new room, no new message.
        try w.expectOK(w.vault("laptop", ["sync"]))
        try FileManager.default.moveItem(
            atPath: w.path("laptop") + "/" + renamed, toPath: w.path("laptop") + "/" + room)
        try w.chat("desktop", renamed, "또 내 질문")
        try w.expectOK(w.vault("laptop", ["sync"]))
        let text = try w.vault("desktop", ["sync"])
        try w.expectOK(text)
        #expect(text.stdout.contains("renamed: \(renamed) → \(room)"), "\(text.stdout)")
        #expect(!text.stdout.contains("new room") && !text.stdout.contains("new message"), "\(text.stdout)")
        #expect(summary(text).contains("1 renamed"), "\(text.stdout)")
    }

    /// A room renamed on the laptop (by `mv`), taken by the desktop as a fast-forward: one
    /// rename in the report, not the old name removed and the new one changed (#38, review).
    @Test func aRoomRenamedElsewhereIsARenameInAFastForwardsReport() throws {
        let w = try SyncWorld()
        let renamed = "rooms/부산.md"
        try FileManager.default.moveItem(
            atPath: w.path("laptop") + "/" + room, toPath: w.path("laptop") + "/" + renamed)
        try w.expectOK(w.vault("laptop", ["sync"]))
        let r = try w.vault("desktop", ["sync", "--json"])
        try w.expectOK(r)
        #expect(try git(["log", "-1", "--format=%P", "HEAD"], in: w.path("desktop")).split(separator: " ").count == 1,
            "a fast-forward to the laptop's commit")
        let report = try json(r)
        let renames = (report["renamed"] as? [[String: Any]]) ?? []
        #expect(renames.count == 1 && renames.first?["from"] as? String == room && renames.first?["to"] as? String == renamed,
            "\(report)")
        #expect(((report["deleted"] as? [String]) ?? []).isEmpty, "\(report)")
        #expect(((report["changed"] as? [String]) ?? []).isEmpty, "\(report)")
        #expect(((report["rooms"] as? [[String: Any]]) ?? []).isEmpty, "\(report)")
    }

    /// A merge's report is made once (it was made for the commit's subject and again for the
    /// report, ~25 ms on the benchmark's vault): `VAULT_TRACE` shows the step once.
    @Test func aMergesReportIsDescribedOnce() throws {
        let w = try SyncWorld()
        try w.chat("laptop", "부산-여행", "노트북에서 한 질문")
        try w.expectOK(w.vault("laptop", ["sync"]))
        try w.write("desktop", entry, try w.read("desktop", entry) + "\n데스크톱에서 덧붙인 줄.\n")
        let r = try w.vault("desktop", ["sync"], environment: ["VAULT_TRACE": "1"])
        try w.expectOK(r)
        #expect(try git(["log", "-1", "--format=%P", "HEAD"], in: w.path("desktop")).split(separator: " ").count == 2,
            "a merge")
        let described = r.stderr.split(separator: "\n").filter { $0.contains("vault trace:") && $0.contains("described") }
        #expect(described.count == 1, "\(described)")
    }

    @Test func ownMessagesInARoomDeletedHereAndEditedThereAreNotNew() throws {
        let w = try SyncWorld()
        let before = Set(try w.ids("laptop", room))
        try w.expectOK(w.vault("desktop", ["rm", room, "--yes"]))
        try w.chat("laptop", room, "지워진 줄 모르고 쓴 질문")
        let added = Set(try w.ids("laptop", room)).subtracting(before)
        try #require(!added.isEmpty && !before.isEmpty)
        try w.expectOK(w.vault("laptop", ["sync"]))
        let r = try w.vault("desktop", ["sync", "--json"])
        try w.expectOK(r)
        #expect(try w.read("desktop", room).contains("지워진 줄 모르고 쓴 질문"))
        let rooms = try #require(try json(r)["rooms"] as? [[String: Any]])
        let counted = Set(rooms.flatMap { $0["newMessageIDs"] as? [String] ?? [] })
        #expect(counted == added, "new: \(counted.count), expected the \(added.count) the laptop wrote")
    }
}
