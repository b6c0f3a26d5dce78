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
        var live = LiveWorld(room: room, folder: w.folder.path)
        for (machine, person) in people {
            var e = env[machine]!
            e["VAULT_MACHINE"] = machine
            e["PATH"] = SyncWorld.pathWithVault
            e["VAULT_LOCK_TIMEOUT"] = "60"
            live.machines.append(.init(name: machine, root: w.path(machine), environment: e, person: Person(text: person)!.name))
        }
        try live.typeAtOnce()
    }

    /// The same over smart HTTP (git's http-backend behind Basic auth): two people in a room,
    /// each identified by git's user.name.
    @Test func twoPeopleTypingAtOnceOverHTTP() throws {
        let token = "shared-rooms-token"
        let w = NetWorld()
        _ = try w.bareRepository()
        let server = try GitHTTPServer(root: w.remotes, token: token)
        w.serve(server.url("notes"), by: server)
        let env = ["VAULT_GIT_TOKEN": token]
        try w.makeFirst("laptop", env)
        try w.expectOK(w.clone("desktop", env))
        var live = LiveWorld(room: "rooms/독서-모임-발제문.md", folder: w.folder.path)
        for machine in ["laptop", "desktop"] {
            live.machines.append(
                .init(name: machine, root: w.path(machine), environment: w.environment(machine, env), person: "Person on \(machine)"))
        }
        try live.typeAtOnce()
    }

    /// The same over ssh (Debian's sshd on 127.0.0.1), three people.
    @Test func threePeopleTypingAtOnceOverSSH() throws {
        let peer = try SSHPeer()
        let w = NetWorld()
        let bare = try w.bareRepository()
        w.serve(peer.url(bare), by: peer)
        let env = ["HOME": peer.home]
        try w.makeFirst("laptop", env)
        try w.expectOK(w.clone("desktop", env))
        try w.expectOK(w.clone("phone", env))
        var live = LiveWorld(room: "rooms/독서-모임-발제문.md", folder: w.folder.path)
        for machine in ["laptop", "desktop", "phone"] {
            live.machines.append(
                .init(name: machine, root: w.path(machine), environment: w.environment(machine, env), person: "Person on \(machine)"))
        }
        try live.typeAtOnce()
    }

    /// While the remote cannot be reached `vault watch` waits longer each time (said once per
    /// wait), and once it can, says so and shows what came in meanwhile.
    @Test func watchBacksOffWhileTheRemoteIsAwayAndComesBack() throws {
        let (w, env) = try world(["a-ada": "Ada Kim", "b-bogum": "박보검"])
        let out = w.folder.path + "/watch.out"
        let err = w.folder.path + "/watch.err"
        _ = FileManager.default.createFile(atPath: out, contents: nil)
        _ = FileManager.default.createFile(atPath: err, contents: nil)
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
                usleep(50_000)  // sleep: poll interval, with a deadline
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

/// Machines that each run `vault watch ROOM` while their people say messages at the same moment.
struct LiveWorld {
    struct Machine {
        var name: String
        var root: String
        /// The whole environment `vault` runs with on this machine.
        var environment: [String: String]
        /// Who this machine's person is (the author their messages must carry).
        var person: String
    }

    let room: String
    let folder: String
    var machines: [Machine] = []

    init(room: String, folder: String) {
        self.room = room
        self.folder = folder
    }

    private func vault(_ m: Machine, _ arguments: [String]) throws -> RunResult {
        let process = vaultProcess(arguments, in: m.root)
        process.environment = m.environment
        return try run(process)
    }

    private func messages(_ m: Machine) -> [Message] {
        guard let bytes = FileManager.default.contents(atPath: m.root + "/" + room) else { return [] }
        return (try? RoomFile(parsing: Array(bytes), path: room).messages) ?? []
    }

    /// Starts a watch on every machine, has each say three messages (`NAME n`) at once, waits
    /// until every machine holds them all in one order, and checks authors, what each watch
    /// showed, and that nothing is left unread.
    func typeAtOnce(count: Int = 3) throws {
        let before = messages(machines[0]).count
        var watchers: [(machine: Machine, process: Process, output: String)] = []
        defer { for w in watchers where w.process.isRunning { w.process.terminate() } }
        for m in machines {
            let output = folder + "/watch-" + m.name + ".txt"
            _ = FileManager.default.createFile(atPath: output, contents: nil)
            let process = vaultProcess(["watch", VaultPath.stem(of: room), "--interval", "0.3", "--max-interval", "1"], in: m.root)
            process.environment = m.environment
            process.standardOutput = FileHandle(forWritingAtPath: output)
            process.standardError = FileHandle.nullDevice
            try process.run()
            watchers.append((m, process, output))
        }
        let failures = Mutex<[String]>([])
        let world = self
        DispatchQueue.concurrentPerform(iterations: machines.count) { i in
            let m = world.machines[i]
            for n in 1...count {
                do {
                    let r = try world.vault(m, ["say", VaultPath.stem(of: world.room), "\(m.name) \(n)"])
                    if r.status != 0 { failures.withLock { $0.append(r.stderr) } }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        let total = before + count * machines.count
        let deadline = Date().addingTimeInterval(90)
        while Date() < deadline {
            let all = machines.map { messages($0).map(\.id) }
            if all[0].count == total, all.allSatisfy({ $0 == all[0] }) { break }
            usleep(100_000)  // sleep: poll interval, with a deadline
        }
        let first = messages(machines[0])
        #expect(first.count == total, "\(first.map(\.body))")
        for m in machines.dropFirst() {
            #expect(messages(m).map(\.id) == first.map(\.id), "\(m.name) has another order")
        }
        let said = Array(first.dropFirst(before))
        for message in said {
            let writer = machines.first { message.body.hasPrefix($0.name + " ") }
            #expect(writer != nil && message.author?.name == writer?.person, "\(message.body): \(message.author?.name ?? "-")")
        }
        // Each watch shows every message the others wrote (waited for: it prints what a sync
        // brought in just after the sync wrote the room), never its own.
        for w in watchers {
            let others = said.filter { !$0.body.hasPrefix(w.machine.name + " ") }.map { "\n\($0.body)\n" }
            let shownBy = Date().addingTimeInterval(20)
            var shown = ""
            while Date() < shownBy {
                shown = (try? String(contentsOfFile: w.output, encoding: .utf8)) ?? ""
                if others.allSatisfy({ shown.contains($0) }) { break }
                usleep(100_000)  // sleep: poll interval, with a deadline
            }
            for text in others { #expect(shown.contains(text), "\(w.machine.name) did not show \(text): \(shown)") }
            for message in said where message.body.hasPrefix(w.machine.name + " ") {
                #expect(!shown.contains("\n\(message.body)\n"), "\(w.machine.name) showed its own \(message.body)")
            }
            for message in said where !message.body.hasPrefix(w.machine.name + " ") {
                #expect(shown.contains("\(message.author?.name ?? "?") · "), "\(w.machine.name): \(shown)")
            }
        }
        // What the watches showed is read: each marks an arrival read just after printing it, so
        // its marks are waited for (a loaded machine runs the two steps far apart).
        func unread(_ m: Machine) throws -> (Int?, String) {
            let r = try vault(m, ["rooms", "--json"])
            let rooms = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]]
            return (rooms?.first { $0["path"] as? String == room }?["unread"] as? Int, r.stdout)
        }
        let readBy = Date().addingTimeInterval(20)
        while Date() < readBy, try machines.contains(where: { try unread($0).0 != 0 }) {
            usleep(100_000)  // sleep: poll interval: every unread count cleared, deadline readBy
        }
        for w in watchers {
            w.process.terminate()
            w.process.waitUntilExit()
        }
        for m in machines {
            let (count, listing) = try unread(m)
            #expect(count == 0, "\(m.name): \(listing)")
            #expect(try git(["status", "--porcelain"], in: m.root) == "", "\(m.name)")
            _ = try git(["fsck", "--strict", "--no-progress"], in: m.root)
        }
    }
}
