import Foundation
import Testing
import VaultCore
import VaultTestSupport

/// Rooms several people share through one remote, each machine its own person (`me:` in its
/// own user configuration): what one says arrives on the others with its author.
@Suite struct SharedRoomTests {
    let room = "rooms/trip.md"

    /// A world of `machines` with a room `trip`, each machine's environment naming its person.
    private func world(_ people: [String: String]) throws -> (SyncWorld, [String: [String: String]]) {
        let names = people.keys.sorted()
        let w = try SyncWorld(names[0], clones: Array(names.dropFirst()), sample: false)
        var environments: [String: [String: String]] = [:]
        for (machine, person) in people {
            let home = w.folder.path + "/home-" + machine
            try FileManager.default.createDirectory(atPath: home + "/.config/vault", withIntermediateDirectories: true)
            try Data("me: \(person)\n".utf8).write(to: URL(fileURLWithPath: home + "/.config/vault/config.yml"))
            environments[machine] = ["XDG_CONFIG_HOME": home + "/.config"]
        }
        try w.expectOK(w.vault(names[0], ["room", "new", "Trip"], environment: environments[names[0]]!))
        try w.expectOK(w.vault(names[0], ["sync"], environment: environments[names[0]]!))
        for other in names.dropFirst() { try w.expectOK(w.vault(other, ["sync"], environment: environments[other]!)) }
        return (w, environments)
    }

    @Test func theSyncReportNamesWhoWroteWhatCameIn() throws {
        let (w, env) = try world(["a-laptop": "Ada Kim <ada@example.com>", "b-desktop": "박보검 <bogum@example.com>"])
        try w.expectOK(w.vault("a-laptop", ["say", "trip", "first"], environment: env["a-laptop"]!))
        try w.expectOK(w.vault("a-laptop", ["say", "trip", "second"], environment: env["a-laptop"]!))
        try w.expectOK(w.vault("a-laptop", ["sync"], environment: env["a-laptop"]!))
        try w.expectOK(w.vault("b-desktop", ["say", "trip", "세 번째"], environment: env["b-desktop"]!))
        let r = try w.vault("b-desktop", ["sync"], environment: env["b-desktop"]!)
        try w.expectOK(r)
        #expect(r.stdout.contains("  Trip (rooms/trip.md): +2 from Ada Kim — \""), "\(r.stdout)")
        try w.expectOK(w.vault("a-laptop", ["say", "trip", "fourth"], environment: env["a-laptop"]!))
        try w.expectOK(w.vault("a-laptop", ["sync"], environment: env["a-laptop"]!))
        let json = try w.vault("b-desktop", ["sync", "--json"], environment: env["b-desktop"]!)
        try w.expectOK(json)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let rooms = try #require(object["rooms"] as? [[String: Any]])
        #expect(rooms.first?["authors"] as? [String] == ["Ada Kim"], "\(json.stdout)")
        // Both machines hold the four messages in one order, each with its author.
        for machine in ["a-laptop", "b-desktop"] {
            try w.expectOK(w.vault(machine, ["sync"], environment: env[machine]!))
        }
        let a = try RoomFile(parsing: Array(w.read("a-laptop", room).utf8), path: room).messages
        let b = try RoomFile(parsing: Array(w.read("b-desktop", room).utf8), path: room).messages
        #expect(a.map(\.id) == b.map(\.id))
        // (Messages written in one second on two machines are ordered by the merge, the same everywhere.)
        let authors = Dictionary(uniqueKeysWithValues: a.map { ($0.body, $0.author?.name) })
        #expect(authors == ["first": "Ada Kim", "second": "Ada Kim", "세 번째": "박보검", "fourth": "Ada Kim"])
        try w.expectHealthy("a-laptop")
        try w.expectHealthy("b-desktop")
    }

    /// Unread counts are each machine's, and what I wrote myself (on my other machine) is never unread.
    @Test func unreadCountsAreEachPersonsOwn() throws {
        let (w, env) = try world([
            "a-laptop": "Ada Kim <ada@example.com>", "b-desktop": "박보검 <bogum@example.com>",
            "c-phone": "Ada Kim <ada@example.com>",
        ])
        func unread(_ machine: String) throws -> Int {
            let r = try w.vault(machine, ["rooms", "--json"], environment: env[machine]!)
            try w.expectOK(r)
            let rooms = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
            return try #require(rooms.first { $0["path"] as? String == room }?["unread"] as? Int)
        }
        try w.expectOK(w.vault("a-laptop", ["say", "trip", "one"], environment: env["a-laptop"]!))
        try w.expectOK(w.vault("a-laptop", ["say", "trip", "two"], environment: env["a-laptop"]!))
        try w.expectOK(w.vault("a-laptop", ["sync"], environment: env["a-laptop"]!))
        try w.expectOK(w.vault("b-desktop", ["say", "trip", "셋"], environment: env["b-desktop"]!))
        try w.expectOK(w.vault("b-desktop", ["sync"], environment: env["b-desktop"]!))
        try w.expectOK(w.vault("c-phone", ["sync"], environment: env["c-phone"]!))
        try w.expectOK(w.vault("a-laptop", ["sync"], environment: env["a-laptop"]!))
        #expect(try unread("a-laptop") == 1)
        #expect(try unread("b-desktop") == 2)
        #expect(try unread("c-phone") == 1, "Ada's own two messages count as unread on her phone")
        try w.expectOK(w.vault("c-phone", ["show", "trip"], environment: env["c-phone"]!))
        #expect(try unread("c-phone") == 0)
        #expect(try unread("a-laptop") == 1)
    }
}
