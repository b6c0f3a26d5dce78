import Foundation
import Testing
import VaultCore
import VaultTestSupport

/// The sync report's new messages are the ones this machine never had.
@Suite struct SyncReportTruthTests {
    /// The laptop removed a room both machines had; the desktop talked in it, so the merge kept
    /// it; the laptop's next sync is a fast-forward that brings it back. New: only the
    /// desktop's turn, not the messages the laptop had before it removed the room.
    @Test func aRoomBroughtBackByAFastForwardCountsOnlyWhatIsNew() throws {
        let w = try SyncWorld()
        let room = "rooms/독서-모임-발제문.md"
        try w.chat("laptop", room, "지우기 전의 질문")
        try w.expectOK(w.vault("laptop", ["sync"]))
        try w.expectOK(w.vault("desktop", ["sync"]))
        let had = Set(try w.ids("laptop", room))
        try w.expectOK(w.vault("laptop", ["rm", room, "--yes"]))
        try w.expectOK(w.vault("laptop", ["sync"]))
        try w.chat("desktop", room, "그 뒤에 한 질문")
        let new = Set(try w.ids("desktop", room)).subtracting(had)
        try w.expectOK(w.vault("desktop", ["sync"]))
        let r = try w.vault("laptop", ["sync", "--json"])
        try w.expectOK(r)
        #expect(try git(["log", "-1", "--format=%P", "HEAD"], in: w.path("laptop")).split(separator: " ").count == 2,
            "the desktop's merge, fast-forwarded to")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let reported = ((json["rooms"] as? [[String: Any]]) ?? []).flatMap { ($0["newMessageIDs"] as? [String]) ?? [] }
        #expect(Set(reported) == new, "reported \(reported.count), new \(new.count)")
        #expect(Set(try w.ids("laptop", room)) == had.union(new))
    }
}
