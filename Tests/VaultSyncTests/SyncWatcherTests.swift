import Foundation
import Testing
import VaultCore
import VaultTestSupport

/// `vault sync` asks the search's inotify watcher which rooms and entries changed since the
/// last sync instead of stamping every file (`GitHistory.workTreeChanges(asking:)`). Whatever
/// a person changes between syncs is committed and pushed all the same.
@Suite struct SyncWatcherTests {
    let room = "rooms/김치찌개-레시피.md"

    /// How the sync found its hand edits, from its trace.
    func scan(_ r: RunResult) -> String {
        r.stderr.split(separator: "\n").first { $0.contains("sync: watcher answered") }.map(String.init) ?? "(not asked)"
    }

    func sync(_ w: SyncWorld, _ machine: String = "laptop", _ more: [String: String] = [:]) throws -> RunResult {
        var env = ["VAULT_TRACE": "1"]
        for (k, v) in more { env[k] = v }
        let r = try w.vault(machine, ["sync"], environment: env)
        try w.expectOK(r)
        return r
    }

    @Test func everyKindOfHandEditIsSyncedThroughTheWatcher() throws {
        let w = try SyncWorld()
        let laptop = w.path("laptop")
        _ = try sync(w)  // the first question: "everything", every file looked at, the point kept
        #expect(FileManager.default.fileExists(atPath: laptop + "/.vault/sync-watch"))
        try waitUntilSettled([laptop], window: 3)  // older than the racy window (`FolderStamps.racyWindow`): the stamps are kept
        _ = try sync(w)
        let quiet = try sync(w)
        #expect(scan(quiet).contains("0 changed"), "\(scan(quiet))")

        // An edit in place of a room: no folder changes; only the watcher sees it.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: laptop + "/" + room))
        handle.seekToEndOfFile()
        handle.write(Data("손으로 덧붙인 줄\n".utf8))
        try handle.close()
        let edited = try sync(w)
        #expect(scan(edited).contains("1 changed"), "\(scan(edited))")
        #expect(edited.stdout.contains(room), "\(edited.stdout)")
        #expect(try git(["status", "--porcelain"], in: laptop) == "")

        // vault.yml, which no watcher watches, edited in place: its stamp tells.
        try waitUntilSettled([laptop], window: 3)
        _ = try sync(w)
        let config = try FileHandle(forWritingTo: URL(fileURLWithPath: laptop + "/vault.yml"))
        config.seekToEndOfFile()
        config.write(Data("# 손으로 쓴 주석\n".utf8))
        try config.close()
        let configured = try sync(w)
        #expect(configured.stdout.contains("vault.yml"), "\(configured.stdout)")
        #expect(try git(["status", "--porcelain"], in: laptop) == "")

        // A new entry (its folder changes: every file is looked at), and a room removed.
        try w.write("laptop", "diary/2026/2026-11-30-새-일기.md", "---\ntitle: 새 일기\n---\n\n새로 쓴 일기\n")
        _ = try sync(w)
        try FileManager.default.removeItem(atPath: laptop + "/" + room)
        _ = try sync(w)
        #expect(try git(["status", "--porcelain"], in: laptop) == "")

        // Everything reached the other machine.
        try w.expectOK(w.vault("desktop", ["sync"]))
        #expect(try w.files("desktop") == w.files("laptop"))
        try w.expectHealthy("laptop")
        try w.expectHealthy("desktop")
    }

    /// In format 2 (rooms in `rooms/<yyyy>/`) the watcher watches the year folders too: an edit
    /// in place of a room there, which no folder's times show, is synced through it; a file in a
    /// hidden folder under `rooms/`, which it does not watch, is found by its stamp.
    @Test func roomsInYearFoldersAreSyncedThroughTheWatcher() throws {
        let w = try SyncWorld()
        let laptop = w.path("laptop")
        try w.expectOK(w.vault("laptop", ["migrate"]))
        let moved = try #require(
            try FileManager.default.contentsOfDirectory(atPath: laptop + "/rooms").map { "rooms/\($0)/김치찌개-레시피.md" }
                .first { FileManager.default.fileExists(atPath: laptop + "/" + $0) })
        _ = try sync(w)
        try waitUntilSettled([laptop], window: 3)
        _ = try sync(w)
        let quiet = try sync(w)
        #expect(scan(quiet).contains("0 changed"), "\(scan(quiet))")
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: laptop + "/" + moved))
        handle.seekToEndOfFile()
        handle.write(Data("연도 폴더에서 덧붙인 줄\n".utf8))
        try handle.close()
        let edited = try sync(w)
        #expect(scan(edited).contains("1 changed"), "\(scan(edited))")
        #expect(edited.stdout.contains(moved), "\(edited.stdout)")
        #expect(try git(["status", "--porcelain"], in: laptop) == "")
        try w.write("laptop", "rooms/.drafts/note.md", "숨긴 폴더\n")
        try w.expectOK(w.vault("laptop", ["sync"], environment: ["VAULT_TRACE": "1"]))
        #expect(try git(["ls-files", "rooms/.drafts"], in: laptop).contains("note.md"))
        try w.expectOK(w.vault("desktop", ["sync"]))
        #expect(try w.read("desktop", moved).hasSuffix("연도 폴더에서 덧붙인 줄\n"))
        try w.expectHealthy("laptop")
        try w.expectHealthy("desktop")
    }

    @Test func anIgnoredFileTheWatcherNamesIsNotCommitted() throws {
        let w = try SyncWorld(clones: [])
        let laptop = w.path("laptop")
        try w.write("laptop", ".gitignore", try w.read("laptop", ".gitignore") + "rooms/draft-*.md\n")
        try w.write("laptop", "rooms/draft-메모.md", "---\ntitle: 초안\n---\n")
        _ = try sync(w)
        try waitUntilSettled([laptop], window: 3)
        _ = try sync(w)
        // Edited in place: no folder changes, so only the watcher names it; git ignores it.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: laptop + "/rooms/draft-메모.md"))
        handle.seekToEndOfFile()
        handle.write(Data("고친 초안\n".utf8))
        try handle.close()
        let r = try sync(w)
        #expect(scan(r).contains("1 changed"), "\(scan(r))")
        #expect(!r.stdout.contains("draft"), "\(r.stdout)")
        #expect(try !git(["ls-files", "rooms"], in: laptop).contains("draft"))
        #expect(try w.read("laptop", "rooms/draft-메모.md").hasSuffix("고친 초안\n"))
    }

    @Test func withoutTheWatcherEveryFileIsLookedAt() throws {
        let w = try SyncWorld(clones: [])
        try FileManager.default.removeItem(atPath: w.path("laptop") + "/.vault/sync-watch")
        let r = try sync(w, "laptop", ["VAULT_NO_WATCH": "1"])
        #expect(scan(r) == "(not asked)")
        #expect(!FileManager.default.fileExists(atPath: w.path("laptop") + "/.vault/sync-watch"))
    }
}
