import Foundation
import Testing
import VaultCore
import VaultTestSupport

/// `vault restore` of a room removed here that lives on under another name elsewhere (renamed
/// by hand on another machine and edited there): it says so, names the room, changes nothing;
/// `--anyway` is the person's choice to have both.
@Suite struct RestoreRenamedTests {
    @Test func restoringARoomThatLivesOnUnderAnotherNameSaysSo() throws {
        let w = try SyncWorld()
        let room = "rooms/독서-모임-발제문.md"
        let renamed = "rooms/발제문-새-이름.md"
        let laptop = w.path("laptop")
        try FileManager.default.moveItem(atPath: laptop + "/" + room, toPath: laptop + "/" + renamed)
        try w.chat("laptop", "발제문-새-이름", "새 이름으로 한 질문")
        try w.expectOK(w.vault("laptop", ["sync"]))
        try w.expectOK(w.vault("desktop", ["rm", room, "--yes"]))
        try w.expectOK(w.vault("desktop", ["sync"]))
        #expect(FileManager.default.fileExists(atPath: w.path("desktop") + "/" + renamed), "the edit beat the removal")
        let files = try w.files("desktop")
        let head = try git(["rev-parse", "HEAD"], in: w.path("desktop"))
        let refused = try w.vault("desktop", ["restore", room])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("lives on as \(renamed)") && refused.stderr.contains("--anyway"), "\(refused.stderr)")
        #expect(try w.files("desktop") == files, "nothing changed")
        #expect(try git(["rev-parse", "HEAD"], in: w.path("desktop")) == head)
        let anyway = try w.vault("desktop", ["restore", room, "--anyway"])
        try w.expectOK(anyway)
        #expect(FileManager.default.fileExists(atPath: w.path("desktop") + "/" + room))
        try w.expectHealthy("desktop")
    }
}
