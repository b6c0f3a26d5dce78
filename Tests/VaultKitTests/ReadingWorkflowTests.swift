import Foundation
import Testing
import VaultChat
import VaultCore
import VaultGit
import VaultKit
import VaultSearch
import VaultTestSupport

// The reading workflows every front end shares, through the library alone: what they return
// (pages, entries, notes), that they print nothing, and that a cancelled handle stops them.

@Suite struct RoomReadingTests {
    @Test func pagesAreCutByMessages() throws {
        let dir = try Project.copyOfSampleVault()
        let session = try VaultSession(root: dir.path, access: .readOnly, settings: .ofThisTest)
        let reading = RoomReading(vault: session.vault)
        let path = "rooms/sf-trip-packing-list.md"
        let whole = try reading.read(path)
        #expect(whole.total ?? 0 >= 3)
        #expect(whole.messages.count == whole.total)
        #expect(whole.notes.isEmpty)
        #expect(!whole.shownFromOneSide)
        let last = try reading.read(path, messages: .last(2))
        #expect(last.offset == whole.room.messages.count - 2)
        #expect(last.messages.map(\.id) == whole.room.messages.suffix(2).map(\.id))
        let middle = try reading.read(path, messages: .range(offset: 1, count: 1))
        #expect(middle.offset == 1 && middle.messages.map(\.id) == [whole.room.messages[1].id])
        // Past the end and below zero: an empty page or the first messages, never a crash.
        #expect(try reading.read(path, messages: .range(offset: 999, count: 5)).messages.isEmpty)
        #expect(try reading.read(path, messages: .range(offset: -3, count: 1)).offset == 0)
        #expect(try reading.read(path, messages: .last(999)).messages.count == whole.total)
    }

    @Test func theLastMessagesOfALongRoomAreReadFromItsEnd() throws {
        let dir = try newVault()
        var text = "---\ntitle: Long\ncreated: 2026-01-01T00:00:00+09:00\n---\n"
        let body = String(repeating: "A line of a long room. ", count: 40)
        for k in 0..<2000 {
            let role = k % 2 == 0 ? "🧑 user" : "🤖 assistant"
            let id = "m-" + String(format: "%012d", k)
            text += "\n## \(role) · x <!-- 2026-01-01T00:00:00+09:00 \(id) -->\n\n\(k): \(body)\n"
        }
        try dir.write("rooms/long.md", text)
        #expect(try dir.read("rooms/long.md").count > RoomFile.wholeReadLimit)
        let session = try VaultSession(root: dir.path, access: .readOnly, settings: .ofThisTest)
        let reading = RoomReading(vault: session.vault)
        let whole = try reading.read("rooms/long.md")
        let last = try reading.read("rooms/long.md", messages: .last(3))
        #expect(last.room.elision != nil)
        #expect(last.offset == nil && last.total == nil)
        #expect(last.messages.map(\.id) == whole.room.messages.suffix(3).map(\.id))
        #expect(last.messages.last?.body == whole.room.messages.last?.body)
        #expect(whole.total == 2000 && whole.offset == 0)
    }

    @Test func aFileWithConflictMarkersIsReadAsThisMachinesSideWithAWarning() throws {
        let dir = try newVault()
        try dir.write("rooms/conflict.md", Fixtures.roomWithConflictMarkers(title: "Conflict"))
        let before = try dir.snapshot()
        let session = try VaultSession(root: dir.path, access: .readOnly, settings: .ofThisTest)
        let page = try RoomReading(vault: session.vault).read("rooms/conflict.md")
        #expect(page.shownFromOneSide)
        #expect(page.messages.first?.body.contains("ours line") == true)
        #expect(page.messages.first?.body.contains("theirs line") == false)
        #expect(page.notes.count == 1)
        #expect(page.notes.first?.kind == .warning)
        #expect(page.notes.first?.text.contains("rooms/conflict.md:9: git left conflict markers") == true)
        #expect(try dir.snapshot() == before)
    }

    @Test func unreadMarksAreClearedOnlyAsAStepOfTheirOwn() throws {
        let dir = try Project.copyOfSampleVault()
        let session = try VaultSession(root: dir.path, access: .readOnly, settings: .ofThisTest)
        let path = "rooms/sf-trip-packing-list.md"
        UnreadMarks.add([(path: path, ids: ["m-E0BFJEMHDRQ3"])], root: dir.path)
        let reading = RoomReading(vault: session.vault)
        _ = try reading.read(path)
        #expect(UnreadMarks.load(root: dir.path)[path] == ["m-E0BFJEMHDRQ3"])
        reading.markRead(path)
        #expect(UnreadMarks.load(root: dir.path)[path] == nil)
    }

    @Test func aDiaryEntryWithConflictMarkersIsReadAsThisMachinesSide() throws {
        let dir = try newVault()
        try dir.write("diary/2026/2026-11-21.md", "# 2026-11-21\n\n<<<<<<< HEAD\nmine\n=======\nyours\n>>>>>>> b\n")
        let session = try VaultSession(root: dir.path, access: .readOnly, settings: .ofThisTest)
        let (entry, notes) = try EntryReading(vault: session.vault).read("diary/2026/2026-11-21.md")
        #expect(entry.body.contains("mine") && !entry.body.contains("yours"))
        #expect(notes.map(\.kind) == [.warning])
    }
}

@Suite struct DiaryQueryTests {
    private let zone = TimeZone(identifier: "Asia/Seoul")!

    private func vaultWithEntries() throws -> (TemporaryDirectory, VaultSession) {
        let dir = try newVault()
        let session = try VaultSession(root: dir.path, access: .change, settings: .ofThisTest)
        let writing = DiaryWriting(vault: session.vault, zone: zone)
        for (date, tags) in [("2026-11-01T09:00", ["travel"]), ("2026-11-10T09:00", []), ("2026-11-20T09:00", ["travel"])]
        {
            _ = try writing.write(try writing.newEntry(title: "e", date: date, tags: tags), text: "text \(date)\n")
        }
        return (dir, session)
    }

    @Test func datesAndTagChooseEntriesNewestFirstOrOldestFirst() throws {
        let (dir, session) = try vaultWithEntries()
        defer { withExtendedLifetime(dir) {} }
        let vault = session.vault
        let day = { (s: String) in LocalDate(year: 2026, month: 11, day: Int(s)!) }
        let all = try DiaryQuery().entries(in: vault)
        #expect(all.compactMap(\.date) == [day("20"), day("10"), day("01")], "\(all) \(vault.diaryPaths())")
        #expect(try DiaryQuery(from: day("05")).entries(in: vault).compactMap(\.date) == [day("20"), day("10")])
        #expect(try DiaryQuery(to: day("10")).entries(in: vault).compactMap(\.date) == [day("10"), day("01")])
        #expect(try DiaryQuery(tag: "travel").entries(in: vault).compactMap(\.date) == [day("20"), day("01")])
        #expect(
            try DiaryQuery(tag: "travel").entriesOldestFirst(in: vault).compactMap(\.date) == [day("01"), day("20")])
        let typed = try DiaryQuery(since: "2026-11-10", until: "2026-11-10", tag: nil, timeZone: zone)
        #expect(try typed.entries(in: vault).compactMap(\.date) == [day("10")])
        #expect(typed.filters == ["from 2026-11-10", "until 2026-11-10"])
    }

    @Test func anUnreadableDayIsRefused() throws {
        expectVaultError("cannot read the date 'not a day'") { try DiaryQuery(since: "not a day", until: nil, tag: nil, timeZone: zone) }
    }
}

@Suite struct SearchingTests {
    @Test func withoutAnIndexEveryFileIsScannedAndSkippedFilesComeBackAsNotes() throws {
        let dir = try Project.copyOfSampleVault()
        try dir.write("rooms/broken.md", Array("---\ntitle: San Francisco\n---\n\nSan Francisco ".utf8) + [0xFF, 0xFE, 0x0A])
        let session = try VaultSession(root: dir.path, access: .readOnly, settings: .ofThisTest)
        var query = SearchQuery(pattern: "San Francisco")
        query.caseMode = .sensitive
        let outcome = try Searching(index: .never).run(VaultSearch(vault: session.vault), query)
        #expect(!outcome.usedIndex)
        #expect(outcome.results.items.map(\.path).contains("rooms/sf-trip-packing-list.md"))
        #expect(
            outcome.notes.contains { $0.kind == .warning && $0.text.hasPrefix("skipped rooms/broken.md") },
            "\(outcome.notes) \(outcome.results.skipped)")
    }
}

@Suite struct RecentActivityTests {
    @Test func commitsAndHandEditsInTheWindowAreListed() throws {
        let dir = try newVault()
        let session = try VaultSession(root: dir.path, access: .change, settings: .ofThisTest)
        let zone = session.vault.config.timeZone
        let writing = DiaryWriting(vault: session.vault, zone: zone)
        let today = session.vault.now().localDate
        let written = try writing.write(try writing.newEntry(title: "오늘", date: nil, tags: []), text: "글.\n").path
        let room = try RoomCreation(vault: session.vault).create(title: "Recent room")
        try dir.write(room, try dir.readText(room) + "\nA line by hand.\n")

        let activity = RecentActivity(vault: session.vault, history: try session.existingRepository())
        let recent = try activity.changes(from: today, to: nil)
        let paths = recent.items.map(\.path)
        #expect(Set(paths) == [written, room], "\(paths)")
        let edited = try #require(recent.items.first { $0.path == room })
        #expect(edited.editedByHand && edited.isRoom && edited.exists)
        #expect(!edited.changes.isEmpty)
        let entry = try #require(recent.items.first { $0.path == written })
        #expect(!entry.editedByHand && !entry.isRoom)
        #expect(entry.changes.first?.summary.hasPrefix("diary: add") == true)
        // The last hour: the same items; an hour that ended before they were made: none.
        let hour = try activity.changes(since: Date().addingTimeInterval(-3600))
        #expect(Set(hour.items.map(\.path)) == [written, room])
        #expect(try activity.changes(since: Date().addingTimeInterval(-7200), until: Date().addingTimeInterval(-3600)).items.isEmpty)
        // A window that ended before today holds nothing.
        let before = LocalDate(year: 2000, month: 1, day: 1)
        #expect(try activity.changes(from: nil, to: before).items.isEmpty)
    }
}

@Suite struct CancellationTests {
    @Test func aCancelledHandleStopsEveryReadingWorkflowBeforeItStarts() throws {
        let dir = try Project.copyOfSampleVault()
        let session = try VaultSession(root: dir.path, access: .readOnly, settings: .ofThisTest)
        let cancel = Cancellation()
        cancel.cancel()
        expectVaultError("cancelled while reading rooms/sf-trip-packing-list.md") {
            try RoomReading(vault: session.vault).read("rooms/sf-trip-packing-list.md", cancellation: cancel)
        }
        expectVaultError("cancelled while listing the diary") {
            try DiaryQuery().entries(in: session.vault, cancellation: cancel)
        }
        expectVaultError("cancelled while searching") {
            try Searching(index: .never).run(
                VaultSearch(vault: session.vault), SearchQuery(pattern: "x"), cancellation: cancel)
        }
        expectVaultError("cancelled while looking for hand edits") {
            try RecentActivity(vault: session.vault, history: nil).changes(from: nil, to: nil, cancellation: cancel)
        }
        // A handle cancelled by its source (the CLI's: a signal recorded) reads it each time.
        let flag = NoteList()
        let wired = Cancellation(whenever: { !flag.all.isEmpty })
        #expect(!wired.isCancelled)
        flag.add(.note("signal"))
        #expect(wired.isCancelled)
    }

    @Test func aChatTurnCancelledMidReplyStopsKeepsWhatCameCommitsItAndLeavesNoLock() throws {
        let server = try FakeOpenAIServer(expectedKey: nil)
        let dir = try newVault()
        let session = try VaultSession(root: dir.path, access: .change, settings: .ofThisTest)
        let vault = session.vault
        let path = try RoomCreation(vault: vault).create(title: "Endless")
        let cancel = Cancellation()
        let turn = try ChatTurn.forRoom(
            path, try ChatTurn.read(path, in: vault), in: vault, provider: nil, model: "forever",
            environment: ["OPENAI_BASE_URL": server.baseURL], cancellation: cancel)
        let (streamed, error) = runCancelling(turn, cancel, afterCharacters: 200)
        // Stopped: what came is kept (an error for the front end to show, or none at all).
        if let error { #expect(error.description.contains("interrupted"), "\(error)") }
        #expect(streamed.count > 200)
        let room = try vault.readRoom(path)
        #expect(room.messages.map(\.role.rawValue) == ["user", "assistant"])
        // What came is committed, nothing is left over, and the lock is free.
        #expect(try git(["status", "--porcelain"], in: dir.path).isEmpty)
        #expect(try gitBytesText("HEAD:" + path, in: dir.path) == (try dir.readText(path)))
        #expect(throws: Never.self) { _ = try VaultLock(vaultRoot: dir.path, timeout: 0) }
    }
}

/// The file as the commit has it, read with the `git` command.
private func gitBytesText(_ spec: String, in directory: String) throws -> String {
    try git(["show", spec], in: directory)
}

/// Runs `turn`, cancelling `cancel` once more than `count` characters of the reply came.
private func runCancelling(_ turn: ChatTurn, _ cancel: Cancellation, afterCharacters count: Int) -> (String, VaultError?)
{
    var streamed = ""
    do throws(VaultError) {
        _ = try turn.run(message: "count forever") { text in
            streamed += text
            if streamed.count > count { cancel.cancel() }
        }
        return (streamed, nil)
    } catch {
        return (streamed, error)
    }
}

@Suite struct RoomQueryTests {
    @Test func roomsAreChosenByTheDayOfTheirLastActivity() throws {
        let dir = try Project.copyOfSampleVault()
        let session = try VaultSession(root: dir.path, access: .readOnly, settings: .ofThisTest)
        let vault = session.vault
        let all = try RoomQuery().rooms(in: vault)
        #expect(all.count == vault.roomPaths().count)
        let zone = vault.config.timeZone
        let days = all.compactMap { room in
            room.lastActivity.flatMap(Timestamp.init(rfc3339:)).map { Timestamp(date: $0.date, timeZone: zone).localDate }
        }
        let newest = try #require(days.max())
        let onlyNewest = try RoomQuery(from: newest, to: newest).rooms(in: vault)
        #expect(!onlyNewest.isEmpty)
        #expect(onlyNewest.count == days.filter { $0 == newest }.count)
        #expect(try RoomQuery(from: LocalDate(year: 2100, month: 1, day: 1)).rooms(in: vault).isEmpty)
        let cancel = Cancellation()
        cancel.cancel()
        expectVaultError("cancelled while listing the rooms") { try RoomQuery().rooms(in: vault, cancellation: cancel) }
    }
}
