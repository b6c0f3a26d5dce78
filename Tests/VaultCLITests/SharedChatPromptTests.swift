import Foundation
import Testing
import VaultCore
import VaultTestSupport

/// The chat prompt in a room shared with people, on a real pseudo-terminal
/// (`ChatPromptTests.drive`): what is typed is a message to people (no model asked), sent to the
/// remote at once; `@assistant` asks the model; what the others wrote meanwhile is shown.
@Suite struct SharedChatPromptTests {
    /// A bare remote, Ada's vault `a` with the room `trip` shared with 박보검, his clone `b`, and
    /// Ada's "from ada" sent before his prompt opens.
    private struct Shared {
        var world: TemporaryDirectory
        var remote: String
        var a: String
        var b: String
        var ada: [String: String]
        var bogum: [String: String]
    }

    private func shared() throws -> Shared {
        let world = TemporaryDirectory("vault-shared-prompt")
        let remote = world.path + "/remote.git"
        try git(["init", "--quiet", "--bare", remote], in: world.path)
        let vaultDir = (Project.vaultExecutable as NSString).deletingLastPathComponent
        func env(_ person: String, _ machine: String) throws -> [String: String] {
            try world.write("home-\(machine)/.config/vault/config.yml", "me: \(person)\n")
            return [
                "XDG_CONFIG_HOME": world.path + "/home-\(machine)/.config", "XDG_STATE_HOME": world.path + "/state-\(machine)",
                "VAULT_MACHINE": machine, "PATH": vaultDir + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"),
            ]
        }
        let ada = try env("Ada Kim", "laptop")
        let bogum = try env("박보검", "desktop")
        let a = world.path + "/a"
        let b = world.path + "/b"
        func ok(_ r: RunResult) { #expect(r.status == 0, "\(r.stderr)") }
        ok(try runVault(["init", a, "--locale", "en_US", "--time-zone", "UTC"], in: world.path, environment: ada))
        try world.write("a/vault.yml", try world.readText("a/vault.yml") + "people:\n  - Ada Kim\n  - 박보검\n")
        try git(["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qam", "people"], in: a)
        ok(try runVault(["room", "new", "Trip", "--with", "박보검"], in: a, environment: ada))
        ok(try runVault(["remote", "add", "origin", remote], in: a, environment: ada))
        ok(try runVault(["sync"], in: a, environment: ada))
        ok(try runVault(["clone", remote, b], in: world.path, environment: bogum))
        ok(try runVault(["say", "trip", "from ada"], in: a, environment: ada))
        ok(try runVault(["sync"], in: a, environment: ada))

        return Shared(world: world, remote: remote, a: a, b: b, ada: ada, bogum: bogum)
    }

    @Test func thePromptPostsSendsAtOnceAndShowsWhatOthersWrote() throws {
        let s = try shared()
        let (world, remote, b, bogum) = (s.world, s.remote, s.b, s.bogum)
        let session = try ChatPromptTests.drive(
            [
                ("from ada", ""), ("you> ", "hello people\r"), ("(saved to", ""), ("you> ", "@assistant hi\r"),
                ("(saved to", ""), ("you> ", "\u{04}"),
            ],
            [Project.vaultExecutable, "chat", "trip"], in: b, environment: bogum, scratch: world)
        #expect(session.status == 0, "\(session.output)")
        #expect(session.output.contains("Ada Kim:\nfrom ada\n"), "the message from Ada was not shown: \(session.output)")
        let room = try RoomFile(parsing: world.read("b/rooms/trip.md"), path: "rooms/trip.md").messages
        #expect(room.map(\.body).prefix(3) == ["from ada", "hello people", "@assistant hi"], "\(room.map(\.body))")
        #expect(room.map { $0.author?.name } == ["Ada Kim", "박보검", "박보검", "echo"], "\(room.map { $0.author?.name })")
        #expect(room.map(\.role) == [.user, .user, .user, .assistant])
        // Both were sent at once: the remote has them.
        let pushed = try git(["log", "--format=%s", "main"], in: remote)
        #expect(pushed.contains("say: Trip (박보검)") && pushed.contains("chat: Trip (+2 messages)"), "\(pushed)")
        // Shown in the prompt: read.
        let rooms = try runVault(["rooms", "--json"], in: b, environment: bogum)
        #expect(rooms.stdout.contains(#""unread" : 0"#), "\(rooms.stdout)")
    }

    /// What another person says while a line is being typed is shown above it, and the line
    /// typed so far stays as it was.
    @Test func whatArrivesWhileTypingIsShownAboveTheLine() throws {
        let s = try shared()
        var bogum = s.bogum
        bogum["VAULT_WATCH_INTERVAL"] = "0.3"
        // Ada answers once 박보검's first message reached the remote (he is typing his second then).
        let answered = DispatchSemaphore(value: 0)
        let (remote, a, ada) = (s.remote, s.a, s.ada)
        Thread {
            defer { answered.signal() }
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline {
                if (try? git(["log", "--format=%s", "main"], in: remote))?.contains("say: Trip (박보검)") == true { break }
                usleep(50_000)  // sleep: poll interval: the remote holding the first say, deadline 60 s
            }
            _ = try? runVault(["say", "trip", "second from ada"], in: a, environment: ada)
            _ = try? runVault(["sync"], in: a, environment: ada)
        }.start()
        let session = try ChatPromptTests.drive(
            [
                ("from ada", ""), ("you> ", "first\r"), ("(saved to", ""), ("you> ", "half typed"),
                ("second from ada", " line\r"), ("(saved to", ""), ("you> ", "\u{04}"),
            ],
            [Project.vaultExecutable, "chat", "trip"], in: s.b, environment: bogum, scratch: s.world)
        answered.wait()
        #expect(session.status == 0, "\(session.output)")
        #expect(session.output.contains("Ada Kim:\nsecond from ada\n"), "\(session.output)")
        let room = try RoomFile(parsing: s.world.read("b/rooms/trip.md"), path: "rooms/trip.md").messages
        // (Two messages written within one second on two machines are ordered by the merge.)
        #expect(room.last?.body == "half typed line", "\(room.map(\.body))")
        let authors = Dictionary(uniqueKeysWithValues: room.map { ($0.body, $0.author?.name ?? "-") })
        #expect(
            authors == ["from ada": "Ada Kim", "first": "박보검", "second from ada": "Ada Kim", "half typed line": "박보검"])
    }
}
