import Foundation
import Testing
import VaultCore
import VaultTestSupport

/// Authorship you can check (issue #36, item 8): an `author=` is a claim anyone can type; the
/// commit that brought the message says who made it, and an SSH signature proves it.
///
/// Each machine is its own person (`me:` in its own user configuration, in its own HOME) and,
/// signed, has its own key made by `ssh-keygen` and git config signing every commit as `git
/// commit -S` would (`gpg.format ssh`, `user.signingkey`, `commit.gpgsign`). They sync through a
/// real bare repository (`git init --bare`, git's own default branch).
@Suite struct SignedCommitTests {
    static let room = "rooms/trip.md"

    /// Three people on three machines: Ada (`ada`), Bob (`bob`) and Mallory (`mal`), sharing `Trip`.
    final class People {
        let world: SyncWorld
        private(set) var environment: [String: [String: String]] = [:]
        private(set) var publicKey: [String: String] = [:]
        static let names = ["ada": "Ada Kim <ada@example.com>", "bob": "Bob Lee <bob@example.com>",
            "mal": "Mallory <mal@example.com>"]

        init(signed: Bool, machines: [String] = ["ada", "bob", "mal"]) throws {
            world = try SyncWorld(machines[0], clones: Array(machines.dropFirst()), sample: false)
            for machine in machines {
                let home = world.folder.path + "/home-" + machine
                try FileManager.default.createDirectory(atPath: home + "/.config/vault", withIntermediateDirectories: true)
                try FileManager.default.createDirectory(atPath: home + "/.ssh", withIntermediateDirectories: true)
                environment[machine] = ["HOME": home, "XDG_CONFIG_HOME": home + "/.config"]
                try be(machine, People.names[String(machine.prefix(3))]!)
                guard signed else { continue }
                let key = home + "/.ssh/id_ed25519"
                try SignedCommitTests.run("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", machine, "-f", key])
                publicKey[machine] = try String(contentsOfFile: key + ".pub", encoding: .utf8)
                    .trimmingCharacters(in: .whitespacesAndNewlines)
                let root = world.path(machine)
                try git(["config", "gpg.format", "ssh"], in: root)
                try git(["config", "user.signingkey", key + ".pub"], in: root)
                try git(["config", "commit.gpgsign", "true"], in: root)
            }
            // vault.yml lists the people, each with their key; written on the first machine.
            var people = "people:\n"
            for machine in ["ada", "bob", "mal"] {
                let (name, email) = Identity.parse(People.names[machine]!).map { ($0.name, $0.email!) }!
                people += "  - name: \(name)\n    email: \(email)\n"
                if let key = publicKey[machine] { people += "    key: \(key)\n" }
            }
            let first = machines[0]
            try world.write(first, "vault.yml", try world.read(first, "vault.yml") + people)
            try world.expectOK(vault(first, ["room", "new", "Trip", "--with", "Bob", "--with", "Mallory"]))
            try world.expectOK(vault(first, ["sync"]))
            for other in machines.dropFirst() { try world.expectOK(vault(other, ["sync"])) }
        }

        /// The machine's person is `person` from now on (`me:`).
        func be(_ machine: String, _ person: String) throws {
            let config = environment[machine]!["XDG_CONFIG_HOME"]! + "/vault/config.yml"
            try Data("me: \(person)\n".utf8).write(to: URL(fileURLWithPath: config))
        }

        func vault(_ machine: String, _ arguments: [String]) throws -> RunResult {
            try world.vault(machine, arguments, environment: environment[machine]!)
        }

        func say(_ machine: String, _ text: String) throws {
            try world.expectOK(vault(machine, ["say", "trip", text]))
        }

        /// Syncs, and returns what the report printed.
        @discardableResult
        func sync(_ machine: String) throws -> String {
            let r = try vault(machine, ["sync"])
            try world.expectOK(r)
            return r.stdout
        }

        /// `vault rooms --json`'s row of the room: (unread, unverified).
        func counts(_ machine: String) throws -> (unread: Int, unverified: Int) {
            let r = try vault(machine, ["rooms", "--json"])
            try world.expectOK(r)
            let rooms = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
            let row = try #require(rooms.first { $0["path"] as? String == SignedCommitTests.room })
            return (row["unread"] as? Int ?? -1, row["unverified"] as? Int ?? -1)
        }

        /// MCP `read` of the room: message id → its `unverified` field (nil when the field is null).
        func mcpRead(_ machine: String) throws -> [String: String?] {
            let lines = [
                #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
                #"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
                #"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read","arguments":{"item":"trip"}}}"#,
                #"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"list_rooms","arguments":{}}}"#,
            ]
            let run = try runVault(
                ["mcp"], in: world.path(machine),
                environment: environment[machine]!.merging(["VAULT_MACHINE": machine, "PATH": SyncWorld.pathWithVault]) { $1 },
                stdin: lines.joined(separator: "\n") + "\n")
            let answer = try #require(run.stdout.split(separator: "\n").first { $0.contains(#""id":2"#) })
            let object = try #require(try JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any])
            let result = try #require(object["result"] as? [String: Any])
            let structured = try #require(result["structuredContent"] as? [String: Any], "\(answer)")
            let messages = try #require(structured["messages"] as? [[String: Any]])
            var out: [String: String?] = [:]
            for m in messages { out[m["id"] as! String] = m["unverified"] as? String }
            // list_rooms counts them as `rooms --json` does.
            let listing = try #require(run.stdout.split(separator: "\n").first { $0.contains(#""id":3"#) })
            let listed = try #require(try JSONSerialization.jsonObject(with: Data(listing.utf8)) as? [String: Any])
            let rooms = try #require(((listed["result"] as? [String: Any])?["structuredContent"] as? [String: Any])?["rooms"] as? [[String: Any]])
            let trip = try #require(rooms.first { $0["path"] as? String == SignedCommitTests.room })
            #expect(trip["unverified"] as? Int == out.values.filter { $0 != nil }.count, "\(listing)")
            return out
        }

        func messages(_ machine: String) throws -> [Message] {
            try RoomFile(parsing: Array(world.read(machine, SignedCommitTests.room).utf8), path: SignedCommitTests.room).messages
        }
    }

    static func run(_ program: String, _ arguments: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: program)
        p.arguments = arguments
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "\(program) \(arguments)")
    }

    /// Two people with their own keys exchange signed commits; a third, listed with a key of her
    /// own, makes her vault write as Ada: on Ada's and Bob's machines the message is marked
    /// (`sync`, `rooms`, `show`, MCP `read`), unread on Ada's, and `git log --show-signature`
    /// agrees with vault on every message: verified exactly when git finds a good signature by the
    /// key of the person the message names.
    @Test func aForgedAuthorIsMarkedOnEveryMachineAndGitLogAgrees() throws {
        let p = try People(signed: true)
        try p.say("ada", "hi from Ada")
        try p.sync("ada")
        let bobsView = try p.sync("bob")
        #expect(!bobsView.contains("unverified"), "\(bobsView)")
        try p.say("bob", "hi from Bob")
        try p.sync("bob")
        // Mallory's vault writes as Ada, signed with Mallory's own key.
        try p.sync("mal")
        try p.be("mal", "Ada Kim <ada@example.com>")
        try p.say("mal", "I (Ada) agree to send you $5000")
        try p.sync("mal")
        let forged = try #require(try p.messages("mal").last)
        #expect(forged.author?.name == "Ada Kim")
        for machine in ["ada", "bob"] {
            // A dry run says so first, and marks nothing.
            let dry = try p.vault(machine, ["sync", "--dry-run"])
            try p.world.expectOK(dry)
            #expect(dry.stdout.contains("unverified: \(Self.room) \(forged.id): written as Ada Kim"), "\(dry.stdout)")
            let report = try p.sync(machine)
            #expect(report.contains("1 unverified"), "\(machine): \(report)")
            #expect(
                report.contains("unverified: \(Self.room) \(forged.id): written as Ada Kim, but its commit")
                    && report.contains("is signed by Mallory's key"), "\(machine): \(report)")
            #expect(try p.counts(machine).unverified == 1, "\(machine)")
            // Ada's room: Bob's message and the forged one are unread (before: only Bob's).
            if machine == "ada" { #expect(try p.counts("ada").unread == 2) }
            let show = try p.vault(machine, ["show", "trip"])
            try p.world.expectOK(show)
            let marked = try #require(show.stdout.range(of: "⚠️ unverified author: written as Ada Kim"), "\(show.stdout)")
            #expect(show.stdout[marked.upperBound...].contains("I (Ada) agree to send you $5000"))
            #expect(show.stdout.components(separatedBy: "unverified author").count == 2, "\(show.stdout)")
            let read = try p.mcpRead(machine)
            #expect(read[forged.id]! != nil, "\(read)")
            #expect(read.filter { $0.value != nil }.count == 1, "\(read)")
        }
        #expect(try p.counts("ada").unread == 0, "shown")
        #expect(try p.counts("ada").unverified == 1, "reading leaves the mark")
        // git's own check agrees with vault's on every message of the room, on both machines.
        for machine in ["ada", "bob"] {
            let root = p.world.path(machine)
            let signers = p.world.folder.path + "/allowed-signers"
            // The file `vault people --allowed-signers` prints, as a person would point git at it.
            let printed = try p.vault(machine, ["people", "--allowed-signers"])
            try p.world.expectOK(printed)
            #expect(
                printed.stdout.split(separator: "\n").map(String.init).sorted()
                    == ["Ada%20Kim": "ada", "Bob%20Lee": "bob", "Mallory": "mal"]
                    .map { "\($0.key) namespaces=\"git\" \(p.publicKey[$0.value]!)" }.sorted(),
                "\(printed.stdout)")
            try Data(printed.stdout.utf8).write(to: URL(fileURLWithPath: signers))
            let marks = try p.mcpRead(machine)
            for message in try p.messages(machine) {
                let first = try git(["log", "--reverse", "--format=%H", "-S", message.id, "--", Self.room], in: root)
                    .split(separator: "\n").first.map(String.init)
                let commit = try #require(first, "\(message.id)")
                let shown = try git(
                    ["-c", "gpg.ssh.allowedSignersFile=" + signers, "log", "--show-signature", "-1", "--format=%H", commit],
                    in: root)
                let principal = message.author.map(\.attributeValue) ?? "?"
                let good = shown.contains("Good \"git\" signature for \(principal) with ED25519 key")
                #expect(good == (marks[message.id]! == nil), "\(machine) \(message.id) \(message.body): git says \(shown)")
            }
        }
        // Both write before syncing: Ada's sync makes a merge commit.
        try p.say("ada", "at the same time")
        try p.say("bob", "me too")
        try p.sync("bob")
        let merged = try p.sync("ada")
        #expect(!merged.contains("unverified"), "\(merged)")
        // Every commit vault made once signing was on (merges too) is signed by its machine's key,
        // as git sees it: Ada's and Bob's by their own, Mallory's (written as Ada) by Mallory's.
        let signers = p.world.folder.path + "/allowed-signers"
        let log = try git(
            ["-c", "gpg.ssh.allowedSignersFile=" + signers, "log", "--format=%G?%x09%GS%x09%(trailers:key=Vault-Machine,valueonly,separator=)%x09%s"],
            in: p.world.path("ada"))
        let principal = ["ada": "Ada%20Kim", "bob": "Bob%20Lee", "mal": "Mallory"]
        var checked = 0
        for line in log.split(separator: "\n") {
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard f.count >= 4, let expected = principal[f[2]] else { continue }
            if f[0] == "N" && f[3].hasPrefix("init") { continue }  // made before signing was set up
            #expect(f[0] == "G" && f[1] == expected, "\(line)")
            checked += 1
        }
        #expect(checked >= 6, "\(log)")
        #expect(log.contains("G\tAda%20Kim\tada\tsync: merge"), "a merge commit signed: \(log)")
        try p.world.expectHealthy("ada")
        try p.world.expectHealthy("bob")
    }

    /// A message of Ada's edited in place by Mallory (same id, another text; Mallory's vault commits
    /// the hand edit, signed with her own key): marked on Ada's and Bob's machines as an edit Ada's
    /// key did not sign; Ada editing her own message on her own machine is not marked.
    @Test func anEditOfAnotherPersonsMessageIsMarked() throws {
        let p = try People(signed: true)
        try p.say("ada", "meet at 10")
        try p.sync("ada")
        for m in ["bob", "mal"] { try p.sync(m) }
        let original = try #require(try p.messages("mal").last)
        let text = try p.world.read("mal", Self.room)
        try p.world.write("mal", Self.room, text.replacingOccurrences(of: "meet at 10", with: "send Mallory $5000"))
        try p.sync("mal")  // the hand edit, committed and signed by Mallory's machine
        for machine in ["ada", "bob"] {
            let report = try p.sync(machine)
            #expect(report.contains("1 unverified"), "\(machine): \(report)")
            #expect(
                report.contains("unverified: \(Self.room) \(original.id): edited: written as Ada Kim, but its commit")
                    && report.contains("signed by Mallory's key"), "\(machine): \(report)")
            let show = try p.vault(machine, ["show", "trip"])
            let marked = try #require(show.stdout.range(of: "⚠️ unverified author: edited: "), "\(show.stdout)")
            #expect(show.stdout[marked.upperBound...].contains("send Mallory $5000"))
            #expect(try p.mcpRead(machine)[original.id]! != nil)
        }
        // Ada changes her own message again, on her own machine: nothing is marked anywhere new.
        let mine = try p.world.read("ada", Self.room)
        try p.world.write("ada", Self.room, mine.replacingOccurrences(of: "send Mallory $5000", with: "meet at 11"))
        try p.sync("ada")
        let report = try p.sync("bob")
        #expect(!report.contains("unverified"), "\(report)")
    }

    /// A message brought by a commit nobody signed (plain git, a hand edit committed without a key)
    /// in a signed vault is marked; its author another person, it still counts as unread once.
    @Test func anUnsignedCommitInASignedVaultIsMarked() throws {
        let p = try People(signed: true, machines: ["ada", "bob"])
        try p.say("bob", "signed")
        try p.sync("bob")
        // Bob writes a message as himself by hand and commits it with plain git, unsigned.
        let root = p.world.path("bob")
        let text = try p.world.read("bob", Self.room)
            + "\n## 🧑 user · x · Bob Lee <!-- 2026-11-21T09:00:00+09:00 m-00000000UNS1 author=Bob%20Lee -->\n\nunsigned\n"
        try p.world.write("bob", Self.room, text)
        try git(
            ["-c", "commit.gpgsign=false", "-c", "user.name=Bob Lee", "-c", "user.email=bob@example.com", "commit",
                "--quiet", "-am", "by hand"], in: root)
        try git(["push", "--quiet", "origin", "HEAD:main"], in: root)
        let report = try p.sync("ada")
        #expect(report.contains("unverified: \(Self.room) m-00000000UNS1: its commit") && report.contains("is not signed"), "\(report)")
        #expect(report.components(separatedBy: "\n  unverified: ").count == 2, "one message marked: \(report)")
        #expect(try p.counts("ada") == (unread: 2, unverified: 1))
        let log = try git(["-c", "gpg.ssh.allowedSignersFile=/dev/null", "log", "--show-signature", "-1", "--format=%H"], in: root)
        #expect(!log.contains("Good \"git\" signature"), "\(log)")
    }

    /// The issue's case, without keys: Bob commits a message with `author=Ada%20Kim`. On Ada's
    /// machines it is unread and marked; her own messages from her other machine are neither.
    @Test func aMessageClaimingToBeYouFromAnotherPersonIsUnreadAndMarked() throws {
        let p = try People(signed: false, machines: ["ada", "bob", "ada-phone"])
        try p.say("ada", "from my laptop")
        try p.sync("ada")
        try p.sync("bob")
        try p.say("bob", "안녕")
        // Bob adds a message as Ada by hand; his vault commits it (as Bob) with the next sync.
        let text = try p.world.read("bob", Self.room)
            + "\n## 🧑 user · x · Ada Kim <!-- 2026-11-21T09:00:00+09:00 m-00000000F0RG author=Ada%20Kim -->\n\n"
            + "I (Ada) agree to send you $5000\n"
        try p.world.write("bob", Self.room, text)
        try p.sync("bob")
        let report = try p.sync("ada")
        #expect(report.contains("1 unverified"), "\(report)")
        #expect(
            report.contains("unverified: \(Self.room) m-00000000F0RG: claims to be you, but was written as Bob Lee <bob@example.com> on bob"),
            "\(report)")
        #expect(try p.counts("ada") == (unread: 2, unverified: 1), "Bob's message and the forged one")
        let rooms = try p.vault("ada", ["rooms"])
        #expect(rooms.stdout.contains("(2 new) (1 unverified) "), "\(rooms.stdout)")
        let show = try p.vault("ada", ["show", "trip"])
        #expect(show.stdout.contains("⚠️ unverified author: claims to be you"), "\(show.stdout)")
        // Ada's phone: her laptop's message is hers (not unread, not marked), the forged one is neither.
        let phone = try p.sync("ada-phone")
        #expect(phone.contains("m-00000000F0RG: claims to be you"), "\(phone)")
        #expect(phone.components(separatedBy: "\n  unverified: ").count == 2, "one message marked: \(phone)")
        #expect(try p.counts("ada-phone") == (unread: 2, unverified: 1), "Bob's two; Ada's own one is hers")
        // An unsigned vault otherwise works as before: no other mark anywhere.
        #expect(try p.counts("bob").unverified == 0)
        // `vault sync --undo` takes the sync back, and its marks with it.
        try p.world.expectOK(p.vault("ada-phone", ["sync", "--undo"]))
        #expect(try p.counts("ada-phone").unverified == 0)
    }

    /// A room renamed differently on both machines: Bob's edit of Ada's message in it is checked
    /// against Ada's version under the name it had here, Bob's read under Bob's name even when the
    /// merge keeps Ada's (`TreeMerge.Outcome.theirsNames`), and marked on Ada's machine.
    @Test func anEditInARoomRenamedOnBothSidesIsMarked() throws {
        let p = try People(signed: false, machines: ["ada", "bob"])
        try p.say("ada", "meet at 10")
        try p.sync("ada")
        try p.sync("bob")
        let original = try #require(try p.messages("bob").last)
        for (machine, name) in [("ada", "trip-ada"), ("bob", "trip-bob")] {
            let folder = p.world.path(machine)
            try FileManager.default.moveItem(atPath: folder + "/" + Self.room, toPath: folder + "/rooms/\(name).md")
        }
        let text = try p.world.read("bob", "rooms/trip-bob.md")
        try p.world.write("bob", "rooms/trip-bob.md", text.replacingOccurrences(of: "meet at 10", with: "send Bob $5000"))
        try p.sync("bob")
        let report = try p.sync("ada")
        // Whichever name the merge keeps (by the commits' times), Bob's version is read under
        // Bob's name and Ada's under hers.
        #expect(report.contains("\(original.id): edited: claims to be you"), "\(report)")
    }

    /// A marked message keeps its mark when its room is renamed: by hand here (`mv`, committed
    /// by the next vault command), or on another machine and brought by a sync (#36: the marks
    /// were kept by the room's old path, so a rename lost them).
    @Test func aMarkStaysWithItsMessageWhenTheRoomIsRenamed() throws {
        let p = try People(signed: false, machines: ["ada", "bob"])
        let text = try p.world.read("bob", Self.room)
            + "\n## 🧑 user · x <!-- 2026-11-21T09:00:00+09:00 m-00000000MOVE author=Ada%20Kim -->\n\nit is me\n"
        try p.world.write("bob", Self.room, text)
        try p.sync("bob")
        #expect(try p.sync("ada").contains("m-00000000MOVE: claims to be you"))
        func marked(_ machine: String, _ name: String) throws -> Bool {
            let show = try p.vault(machine, ["show", name])
            try p.world.expectOK(show)
            return show.stdout.contains("⚠️ unverified author: claims to be you")
        }
        #expect(try marked("ada", "trip"))
        // Renamed by hand on Ada's machine; the next sync commits the rename.
        let ada = p.world.path("ada")
        try FileManager.default.moveItem(atPath: ada + "/" + Self.room, toPath: ada + "/rooms/trip-2.md")
        try p.sync("ada")
        #expect(try marked("ada", "trip-2"), "after a rename by hand")
        // Renamed on Bob's machine, and brought by a fast-forward.
        try p.sync("bob")
        let bob = p.world.path("bob")
        try FileManager.default.moveItem(atPath: bob + "/rooms/trip-2.md", toPath: bob + "/rooms/trip-3.md")
        try p.sync("bob")
        let report = try p.sync("ada")
        #expect(report.contains("rooms/trip-2.md → rooms/trip-3.md"), "\(report)")
        #expect(try marked("ada", "trip-3"), "after a rename that came in")
        let rooms = try p.vault("ada", ["rooms", "--json"])
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(rooms.stdout.utf8)) as? [[String: Any]])
        #expect(rows.first { $0["path"] as? String == "rooms/trip-3.md" }?["unverified"] as? Int == 1, "\(rows)")
    }

    /// A claim to be you spelled in another case is the same claim: marked, and unread.
    @Test func aClaimInAnotherCaseIsTheSameClaim() throws {
        let p = try People(signed: false, machines: ["ada", "bob"])
        let text = try p.world.read("bob", Self.room)
            + "\n## 🧑 user · x <!-- 2026-11-21T09:00:00+09:00 m-0000000CASE1 author=ADA%20KIM -->\n\nit is me\n"
        try p.world.write("bob", Self.room, text)
        try p.sync("bob")
        let report = try p.sync("ada")
        #expect(report.contains("unverified: \(Self.room) m-0000000CASE1: claims to be you"), "\(report)")
        #expect(try p.counts("ada") == (unread: 1, unverified: 1))
    }

    /// A key that cannot sign (its file gone) stops the commit: the message names the key and how
    /// to turn signing off, HEAD does not move, and nothing unsigned is committed.
    @Test func aKeyThatCannotSignStopsTheCommitAndCommitsNothing() throws {
        let p = try People(signed: true, machines: ["ada", "bob"])
        let root = p.world.path("ada")
        let head = try git(["rev-parse", "HEAD"], in: root)
        try git(["config", "user.signingkey", p.world.folder.path + "/no-such-key.pub"], in: root)
        let say = try p.vault("ada", ["say", "trip", "never unsigned"])
        #expect(say.status == 1, "\(say.stdout)\(say.stderr)")
        #expect(say.stderr.contains("cannot sign the commit with \(p.world.folder.path)/no-such-key.pub"), "\(say.stderr)")
        #expect(say.stderr.contains("git config commit.gpgsign false"), "\(say.stderr)")
        #expect(try git(["rev-parse", "HEAD"], in: root) == head)
        #expect(try git(["cat-file", "-p", "HEAD"], in: root).contains("gpgsig -----BEGIN SSH SIGNATURE-----"))
        // What was said waits in the file, uncommitted, as after any commit that failed.
        #expect(try p.world.read("ada", Self.room).contains("never unsigned"))
        #expect(try git(["status", "--porcelain"], in: root).contains(Self.room))
        #expect(try FileManager.default.contentsOfDirectory(atPath: root + "/.git").filter { $0.hasPrefix("vault-sign") }.isEmpty)
        // Put right, the next command commits what waited, signed.
        try git(["config", "user.signingkey", p.environment["ada"]!["HOME"]! + "/.ssh/id_ed25519.pub"], in: root)
        try p.sync("ada")
        #expect(try git(["cat-file", "-p", "HEAD"], in: root).contains("gpgsig -----BEGIN SSH SIGNATURE-----"))
        #expect(try git(["status", "--porcelain"], in: root).isEmpty)
        #expect(try git(["show", "HEAD:" + Self.room], in: root).contains("never unsigned"))
    }
}
