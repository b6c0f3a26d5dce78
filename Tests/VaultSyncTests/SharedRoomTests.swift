import Foundation
import Synchronization
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

    /// Three people typing in one room at the same moment, each machine running `vault watch`:
    /// every message reaches every machine, in one order, with its author; each watch shows what
    /// the others wrote as it arrives and marks it read.
    @Test func threePeopleTypingAtOnceWithWatchSeeOneConversation() throws {
        let people = ["a-ada": "Ada Kim <ada@example.com>", "b-bogum": "박보검", "c-chris": "Chris"]
        let (w, env) = try world(people)
        let machines = people.keys.sorted()
        var watchers: [(machine: String, process: Process, output: String)] = []
        for machine in machines {
            let output = w.folder.path + "/watch-" + machine + ".txt"
            FileManager.default.createFile(atPath: output, contents: nil)
            var e = env[machine]!
            e["VAULT_MACHINE"] = machine
            e["PATH"] = SyncWorld.pathWithVault
            e["VAULT_LOCK_TIMEOUT"] = "60"
            let process = vaultProcess(
                ["watch", "trip", "--interval", "0.3", "--max-interval", "1"], in: w.path(machine), environment: e)
            process.standardOutput = FileHandle(forWritingAtPath: output)
            process.standardError = FileHandle.nullDevice
            try process.run()
            watchers.append((machine, process, output))
        }
        defer {
            for watcher in watchers where watcher.process.isRunning { watcher.process.terminate() }
        }
        // Three messages each, the three machines at once.
        let failures = Mutex<[String]>([])
        // Read only, from each thread: the world's machines and their environments.
        nonisolated(unsafe) let w2 = w
        DispatchQueue.concurrentPerform(iterations: machines.count) { i in
            let machine = machines[i]
            for n in 1...3 {
                do {
                    let r = try w2.vault(machine, ["say", "trip", "\(machine) \(n)"], environment: env[machine]!)
                    if r.status != 0 { failures.withLock { $0.append(r.stderr) } }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        // Until every machine has the nine messages in one order (the watchers sync every 0.3 s).
        func messages(_ machine: String) -> [Message] {
            (try? RoomFile(parsing: Array(w.read(machine, room).utf8), path: room).messages) ?? []
        }
        let deadline = Date().addingTimeInterval(90)
        while Date() < deadline {
            let all = machines.map { messages($0).map(\.id) }
            if all[0].count == 9, all.allSatisfy({ $0 == all[0] }) { break }
            usleep(100_000)
        }
        let first = messages(machines[0])
        #expect(first.count == 9, "\(first.map(\.body))")
        for machine in machines.dropFirst() {
            #expect(messages(machine).map(\.id) == first.map(\.id), "\(machine) has another order")
        }
        for message in first {
            let writer = String(message.body.split(separator: " ")[0])
            #expect(message.author?.name == Person(text: people[writer]!)?.name, "\(message.body): \(message.author?.name ?? "-")")
        }
        // Each watch showed every message the two others wrote, with its author (waited for: a
        // watch prints what its last sync brought in just after the sync wrote the room).
        let shownBy = Date().addingTimeInterval(20)
        for watcher in watchers {
            let others = first.filter { !$0.body.hasPrefix(watcher.machine) }.map { "\n\($0.body)\n" }
            while Date() < shownBy {
                let shown = (try? String(contentsOfFile: watcher.output, encoding: .utf8)) ?? ""
                if others.allSatisfy({ shown.contains($0) }) { break }
                usleep(100_000)
            }
        }
        for watcher in watchers {
            let shown = try String(contentsOfFile: watcher.output, encoding: .utf8)
            for message in first where !message.body.hasPrefix(watcher.machine) {
                #expect(shown.contains("\(message.author!.name) · "), "\(watcher.machine): \(shown)")
                #expect(shown.contains("\n\(message.body)\n"), "\(watcher.machine) did not show \(message.body): \(shown)")
            }
            for message in first where message.body.hasPrefix(watcher.machine) {
                #expect(!shown.contains("\n\(message.body)\n"), "\(watcher.machine) showed its own \(message.body)")
            }
        }
        for watcher in watchers {
            watcher.process.terminate()
            watcher.process.waitUntilExit()
        }
        // What the watches showed is read: nothing is unread anywhere.
        for machine in machines {
            let r = try w.vault(machine, ["rooms", "--json"], environment: env[machine]!)
            let rooms = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
            #expect(rooms.first { $0["path"] as? String == room }?["unread"] as? Int == 0, "\(machine): \(r.stdout)")
            try w.expectHealthy(machine)
        }
    }

    /// While the remote cannot be reached `vault watch` waits longer each time (said once per
    /// wait), and once it can, says so and shows what came in meanwhile.
    @Test func watchBacksOffWhileTheRemoteIsAwayAndComesBack() throws {
        let (w, env) = try world(["a-ada": "Ada Kim", "b-bogum": "박보검"])
        let out = w.folder.path + "/watch.out"
        let err = w.folder.path + "/watch.err"
        FileManager.default.createFile(atPath: out, contents: nil)
        FileManager.default.createFile(atPath: err, contents: nil)
        var e = env["b-bogum"]!
        e["VAULT_MACHINE"] = "b-bogum"
        e["PATH"] = SyncWorld.pathWithVault
        try FileManager.default.moveItem(atPath: w.remote, toPath: w.remote + ".away")
        let watch = vaultProcess(["watch", "--interval", "0.2", "--max-interval", "0.8"], in: w.path("b-bogum"), environment: e)
        watch.standardOutput = FileHandle(forWritingAtPath: out)
        watch.standardError = FileHandle(forWritingAtPath: err)
        try watch.run()
        defer { if watch.isRunning { watch.terminate() } }
        func waitFor(_ text: String, in file: String) -> String {
            let deadline = Date().addingTimeInterval(30)
            var now = ""
            while Date() < deadline {
                now = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
                if now.contains(text) { break }
                usleep(50_000)
            }
            return now
        }
        let failing = waitFor("trying again in 0.8 s", in: err)
        #expect(failing.contains("trying again in 0.4 s") && failing.contains("trying again in 0.8 s"), "\(failing)")
        try FileManager.default.moveItem(atPath: w.remote + ".away", toPath: w.remote)
        let back = waitFor("synced again", in: err)
        #expect(back.contains("vault: synced again"), "\(back)")
        // Each wait is said once, however many syncs failed at the longest.
        #expect(back.components(separatedBy: "trying again in 0.8 s").count == 2, "\(back)")
        try w.expectOK(w.vault("a-ada", ["say", "trip", "다시 연결됐어?"], environment: env["a-ada"]!))
        try w.expectOK(w.vault("a-ada", ["sync"], environment: env["a-ada"]!))
        let shown = waitFor("다시 연결됐어?", in: out)
        #expect(shown.hasPrefix("Trip · Ada Kim · ") && shown.contains("\n다시 연결됐어?\n"), "\(shown)")
        watch.terminate()
        watch.waitUntilExit()
    }

    @Test func watchWithoutARemoteSaysSoAndEnds() throws {
        let w = try SyncWorld("solo", clones: [], sample: false)
        try w.expectOK(w.vault("solo", ["remote", "remove", "origin"]))
        let r = try w.vault("solo", ["watch", "--interval", "0.2"])
        #expect(r.status != 0 && r.stderr.contains("vault: error: "), "\(r.status) \(r.stderr)")
        #expect(r.stderr.contains("remote"), "\(r.stderr)")
    }
}
