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
        try expectUnreadAsReported(w, "laptop", json)
    }

    /// One room renamed differently on both machines (by `mv`), and talked in on both: whichever
    /// name the merge keeps, each machine's report counts only the other's turn.
    @Test func aRoomRenamedOnBothSidesCountsOnlyTheOtherSidesTurn() throws {
        let w = try SyncWorld()
        let room = "rooms/독서-모임-발제문.md"
        var own: [String: Set<String>] = [:]
        for (machine, name) in [("laptop", "발제문-노트북"), ("desktop", "발제문-데스크톱")] {
            let folder = w.path(machine)
            try FileManager.default.moveItem(atPath: folder + "/" + room, toPath: folder + "/rooms/\(name).md")
            let before = Set(try w.ids(machine, "rooms/\(name).md"))
            try w.chat(machine, name, "\(machine)에서 이름을 바꾸고 한 질문")
            own[machine] = Set(try w.ids(machine, "rooms/\(name).md")).subtracting(before)
        }
        try w.expectOK(w.vault("laptop", ["sync"]))
        for (machine, other) in [("desktop", "laptop"), ("laptop", "desktop")] {
            let r = try w.vault(machine, ["sync", "--json"])
            try w.expectOK(r)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
            let reported = Set(((json["rooms"] as? [[String: Any]]) ?? []).flatMap { ($0["newMessageIDs"] as? [String]) ?? [] })
            #expect(reported.isDisjoint(with: own[machine]!), "\(machine) reported its own turn as new")
            #expect(reported == own[other]!, "\(machine): reported \(reported.count), the other's turn \(own[other]!.count)")
            try expectUnreadAsReported(w, machine, json)
        }
    }

    /// One truth for the report: each room's unread count in `vault rooms --json` (the unread
    /// marks the sync wrote) is the report's new messages that are not the person's own.
    private func expectUnreadAsReported(
        _ w: SyncWorld, _ machine: String, _ report: [String: Any], sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let r = try w.vault(machine, ["rooms", "--json"])
        try w.expectOK(r)
        let rooms = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
        let unread = Dictionary(rooms.compactMap { row in (row["path"] as? String).map { ($0, row["unread"] as? Int ?? 0) } },
            uniquingKeysWith: { a, _ in a })
        let reported = (report["rooms"] as? [[String: Any]]) ?? []
        #expect(!reported.isEmpty, sourceLocation: sourceLocation)
        var expected = 0
        for room in reported {
            let path = try #require(room["path"] as? String)
            let new = Set((room["newMessageIDs"] as? [String]) ?? [])
            let own = Set((room["ownMessageIDs"] as? [String]) ?? [])
            let count = new.subtracting(own).count
            expected += count
            let said: Comment = "\(machine) \(path): unread \(unread[path] ?? -1), reported \(new.count) new, \(own.count) own"
            #expect(unread[path] == count, said, sourceLocation: sourceLocation)
        }
        let total = unread.values.reduce(0, +)
        #expect(total == expected, "no unread mark the report did not count", sourceLocation: sourceLocation)
    }
}
