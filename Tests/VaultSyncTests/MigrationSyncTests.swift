import Foundation
import Testing
import VaultCore
import VaultTestSupport

/// Sync between the two layouts: one machine migrates (`vault migrate`: rooms moved to
/// `rooms/<yyyy>/`), another still edits and makes rooms in `rooms/` offline. No word may be
/// lost, no room doubled.
@Suite(.serialized) struct MigrationSyncTests {
    @Test func anEditMadeInTheOldLayoutLandsInTheMovedRoom() throws {
        let world = try SyncWorld("laptop", clones: ["desktop"])
        let room = "rooms/부산-여행.md"
        #expect(FileManager.default.fileExists(atPath: world.path("desktop") + "/" + room))
        // The laptop migrates and syncs.
        let migrated = try world.vault("laptop", ["migrate"])
        try world.expectOK(migrated)
        try world.expectOK(world.vault("laptop", ["sync"]))
        let moved = try #require(
            (try FileManager.default.contentsOfDirectory(atPath: world.path("laptop") + "/rooms")).compactMap { year in
                FileManager.default.fileExists(atPath: world.path("laptop") + "/rooms/\(year)/부산-여행.md")
                    ? "rooms/\(year)/부산-여행.md" : nil
            }.first)
        // Meanwhile, offline, the desktop talks in the room where it was, edits it by hand and makes a room.
        try world.chat("desktop", "부산-여행", "오프라인에서 한 말")
        try world.write("desktop", room, try world.read("desktop", room) + "\n손으로 덧붙인 줄\n")
        try world.expectOK(world.vault("desktop", ["room", "new", "새 방"]))
        let ids = try world.ids("desktop", room)
        try world.expectOK(world.vault("desktop", ["sync"]))
        // The desktop's words are in the moved file; the old path is gone; the new room stays where it was made.
        let desktop = world.path("desktop")
        #expect(!FileManager.default.fileExists(atPath: desktop + "/" + room))
        let text = try world.read("desktop", moved)
        #expect(text.contains("오프라인에서 한 말") && text.contains("손으로 덧붙인 줄"), "\(text)")
        #expect(Set(ids).isSubset(of: Set(try world.ids("desktop", moved))))
        #expect(FileManager.default.fileExists(atPath: desktop + "/rooms/새-방.md"))
        #expect(try world.read("desktop", "vault.yml").contains("format: 3"))
        let listed = try world.vault("desktop", ["rooms", "--format", "%(path)"]).stdout
        #expect(listed.split(separator: "\n").filter { $0.hasSuffix("/부산-여행.md") }.count == 1, "\(listed)")
        try world.expectHealthy("desktop")
        // The laptop gets it all; migrating again files the room made in the old layout.
        try world.expectOK(world.vault("laptop", ["sync"]))
        #expect(try world.read("laptop", moved) == text)
        let again = try world.vault("laptop", ["migrate"])
        try world.expectOK(again)
        #expect(again.stdout.contains("Moved 1 room"), "\(again.stdout)")
        try world.expectOK(world.vault("laptop", ["sync"]))
        try world.expectOK(world.vault("desktop", ["sync"]))
        #expect(try world.files("laptop") == (try world.files("desktop")))
        #expect(!FileManager.default.fileExists(atPath: desktop + "/rooms/새-방.md"))
        try world.expectHealthy("laptop")
        try world.expectHealthy("desktop")
    }
}
