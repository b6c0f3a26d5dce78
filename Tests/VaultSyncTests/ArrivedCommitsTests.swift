import Foundation
import Testing
import VaultCore
import VaultTestSupport

/// Every way commits arrive is checked as `vault sync` checks them (issue #36): a plain `git
/// pull`, a `vault clone`, a plain `git clone`; the next vault command checks the commits HEAD
/// reaches that no check saw (`.vault/authorship-checked`), and a command with nothing new checks
/// nothing. The people, keys and machines are `SignedCommitTests.People`'s: their own HOME, their
/// own `ssh-keygen` keys, a real bare remote.
@Suite struct ArrivedCommitsTests {
    typealias People = SignedCommitTests.People
    static let room = SignedCommitTests.room

    /// `git pull` as a person types it, in `machine`'s vault (git's own identity for a merge).
    static func pull(_ p: People, _ machine: String) throws {
        try git(
            ["-c", "user.name=T", "-c", "user.email=t@example.com", "pull", "--quiet", "--no-rebase", "--no-edit",
                "origin", "main"], in: p.world.path(machine))
    }

    /// Mallory, signed with her own key, writes as Ada and pushes with `vault sync`; returns the message.
    static func forgeAsAda(_ p: People) throws -> Message {
        try p.sync("mal")
        try p.be("mal", "Ada Kim <ada@example.com>")
        try p.say("mal", "I (Ada) agree to send you $5000")
        try p.sync("mal")
        try p.be("mal", People.names["mal"]!)
        return try #require(try p.messages("mal").last)
    }

    /// `vault show trip` on `machine`: the marks it prints.
    static func shownMarks(_ p: People, _ machine: String, in folder: String? = nil) throws -> [String] {
        let show = try folder.map { try p.world.vault(machine, ["show", "trip"], in: $0, environment: p.environment[String(machine.prefix(3))]!) }
            ?? p.vault(machine, ["show", "trip"])
        try p.world.expectOK(show)
        return show.stdout.split(separator: "\n").filter { $0.contains("⚠️ unverified author") }.map(String.init)
    }

    /// Whether git's own check (`git log --show-signature` with vault's allowed signers) finds a
    /// good signature by the named person's key on the commit that first holds each message,
    /// exactly where vault shows no mark.
    static func expectGitAgrees(_ p: People, _ machine: String, root: String, marks: [String: String?]) throws {
        let signers = p.world.folder.path + "/allowed-signers-" + machine
        let printed = try p.world.vault(
            machine, ["people", "--allowed-signers"], in: root, environment: p.environment[String(machine.prefix(3))]!)
        try p.world.expectOK(printed)
        try Data(printed.stdout.utf8).write(to: URL(fileURLWithPath: signers))
        let messages = try RoomFile(parsing: Array(try String(contentsOfFile: root + "/" + room, encoding: .utf8).utf8), path: room)
            .messages
        #expect(messages.count >= 3)
        for message in messages {
            let first = try git(["log", "--reverse", "--format=%H", "-S", message.id, "--", room], in: root)
                .split(separator: "\n").first.map(String.init)
            let commit = try #require(first, "\(message.id)")
            let shown = try git(
                ["-c", "gpg.ssh.allowedSignersFile=" + signers, "log", "--show-signature", "-1", "--format=%H", commit],
                in: root)
            let principal = message.author.map(\.attributeValue) ?? "?"
            let good = shown.contains("Good \"git\" signature for \(principal) with ED25519 key")
            #expect(good == (marks[message.id] ?? nil == nil), "\(machine) \(message.id) \(message.body): git says \(shown)")
        }
    }

    /// (a) Three machines with their own keys; Mallory's forgery reaches Ada and Bob by a plain
    /// `git pull`: their next `vault rooms` says so, counts it unverified (and, on Ada's
    /// machine, unread: it claims to be her), `show` and MCP `read` mark it and nothing else, and
    /// `git log --show-signature` agrees with vault on every message.
    @Test func aForgeryPulledByPlainGitIsMarkedOnEveryMachine() throws {
        let p = try People(signed: true)
        try p.say("ada", "hi from Ada")
        try p.sync("ada")
        try p.sync("bob")
        try p.say("bob", "hi from Bob")
        try p.sync("bob")
        let forged = try Self.forgeAsAda(p)
        for machine in ["ada", "bob"] {
            let root = p.world.path(machine)
            let before = try git(["rev-parse", "HEAD"], in: root)
            let unreadBefore = try p.counts(machine).unread
            try Self.pull(p, machine)
            #expect(try git(["rev-parse", "HEAD"], in: root) != before, "the pull brought commits")
            #expect(try git(["status", "--porcelain"], in: root).isEmpty)
            let rooms = try p.vault(machine, ["rooms"])
            try p.world.expectOK(rooms)
            #expect(rooms.stdout.contains("(1 unverified)"), "\(machine): \(rooms.stdout)")
            #expect(
                rooms.stderr.contains("1 message that came in outside `vault sync` marked unverified"),
                "\(machine): \(rooms.stderr)")
            let counts = try p.counts(machine)
            #expect(counts.unverified == 1, "\(machine)")
            // A marked message is unread (on Ada's machine it claims to be her); what else a plain
            // `git pull` brings is not made unread, as before.
            #expect(counts.unread == unreadBefore + 1, "\(machine): \(counts), \(unreadBefore) before")
            let marks = try Self.shownMarks(p, machine)
            #expect(marks.count == 1, "\(machine): \(marks)")
            #expect(marks.first?.contains("written as Ada Kim, but its commit") == true, "\(marks)")
            #expect(marks.first?.contains("is signed by Mallory's key") == true, "\(marks)")
            let read = try p.mcpRead(machine)
            #expect(read[forged.id]! != nil, "\(read)")
            #expect(read.filter { $0.value != nil }.count == 1, "\(read)")
            try Self.expectGitAgrees(p, machine, root: root, marks: read)
            // Pulled and checked, the vault stays as git left it: nothing committed, nothing changed.
            #expect(try git(["status", "--porcelain"], in: root).isEmpty)
        }
        #expect(try p.counts("ada").unread == 0, "shown once")
        #expect(try p.counts("ada").unverified == 1, "reading leaves the mark")
    }

    /// The unsigned case by `git pull`: Bob commits a message as Ada with plain git; on Ada's
    /// machine the next command marks it and it is unread. Her own messages are neither.
    @Test func aClaimToBeYouPulledByPlainGitIsMarkedInAnUnsignedVault() throws {
        let p = try People(signed: false, machines: ["ada", "bob"])
        try p.say("ada", "from my laptop")
        try p.sync("ada")
        try p.sync("bob")
        try p.say("bob", "안녕")
        let bob = p.world.path("bob")
        let text = try p.world.read("bob", Self.room)
            + "\n## 🧑 user · x · Ada Kim <!-- 2026-11-21T09:00:00+09:00 m-0000000PULL1 author=Ada%20Kim -->\n\n"
            + "I (Ada) agree to send you $5000\n"
        try p.world.write("bob", Self.room, text)
        try git(["-c", "user.name=Bob Lee", "-c", "user.email=bob@example.com", "commit", "--quiet", "-am", "by hand"], in: bob)
        try git(["push", "--quiet", "origin", "HEAD:main"], in: bob)
        try Self.pull(p, "ada")
        #expect(try p.counts("ada") == (unread: 1, unverified: 1), "the forged one; Bob's came by plain git")
        let marks = try Self.shownMarks(p, "ada")
        #expect(marks.count == 1 && marks[0].contains("claims to be you, but was written as Bob Lee <bob@example.com>, not by vault"), "\(marks)")
        // A sync after it finds nothing more to mark.
        let report = try p.sync("ada")
        #expect(!report.contains("unverified"), "\(report)")
        #expect(try p.counts("ada").unverified == 1)
    }

    /// (b) A fresh `vault clone` of a remote whose history holds a forgery (signed vault, and the
    /// forgery long buried under later messages) marks it before the clone is first read: the
    /// clone's `rooms` and `show` mark it, `git log --show-signature` agrees.
    @Test func aFreshVaultCloneMarksAForgeryInItsHistory() throws {
        let p = try People(signed: true)
        try p.say("ada", "hi from Ada")
        try p.sync("ada")
        let forged = try Self.forgeAsAda(p)
        try p.sync("bob")
        for n in 1...3 { try p.say("bob", "later \(n)") }
        try p.sync("bob")
        let root = p.world.folder.path + "/ada-new"
        let clone = try p.world.vault("ada", ["clone", p.world.remote, root], in: p.world.folder.path, environment: p.environment["ada"]!)
        try p.world.expectOK(clone)
        // Marked by the clone itself, before any other command: the marks file is there.
        let marks = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: root + "/.vault/unverified.json")))
            as? [String: [String: String]]
        #expect(marks?[Self.room]?.keys.sorted() == [forged.id], "\(String(describing: marks))")
        let rooms = try p.world.vault("ada", ["rooms", "--json"], in: root, environment: p.environment["ada"]!)
        #expect(rooms.stdout.contains("\"unverified\" : 1") || rooms.stdout.contains("\"unverified\":1"), "\(rooms.stdout)")
        let shown = try Self.shownMarks(p, "ada", in: root)
        #expect(shown.count == 1 && shown[0].contains("is signed by Mallory's key"), "\(shown)")
        try Self.expectGitAgrees(p, "ada", root: root, marks: [forged.id: "marked"])
    }

    /// (c) A plain `git clone` followed by any vault command (here `vault status`) marks the
    /// forgery; the clone's own earlier messages by Ada, made by vault on her machine, are not.
    @Test func aPlainGitCloneIsCheckedByTheFirstVaultCommand() throws {
        let p = try People(signed: false, machines: ["ada", "bob"])
        try p.say("ada", "from my laptop")
        try p.sync("ada")
        try p.sync("bob")
        try p.say("bob", "안녕")
        let text = try p.world.read("bob", Self.room)
            + "\n## 🧑 user · x · Ada Kim <!-- 2026-11-21T09:00:00+09:00 m-000000CLONE author=Ada%20Kim -->\n\nit is me\n"
        try p.world.write("bob", Self.room, text)
        try p.sync("bob")
        let root = p.world.folder.path + "/ada-git"
        try git(["clone", "--quiet", p.world.remote, root], in: p.world.folder.path)
        let status = try p.world.vault("ada", ["status"], in: root, environment: p.environment["ada"]!)
        try p.world.expectOK(status)
        #expect(status.stderr.contains("1 message that came in outside `vault sync` marked unverified"), "\(status.stderr)")
        let shown = try Self.shownMarks(p, "ada", in: root)
        #expect(shown.count == 1 && shown[0].contains("claims to be you, but was written as Bob Lee"), "\(shown)")
        let room = try RoomFile(parsing: Array(try String(contentsOfFile: root + "/" + Self.room, encoding: .utf8).utf8), path: Self.room)
        #expect(room.messages.contains { $0.body.contains("from my laptop") }, "Ada's own message is there, unmarked")
        // The command changed no file of the vault: git sees nothing to commit.
        #expect(try git(["status", "--porcelain"], in: root).isEmpty)
    }

    /// (d) Nothing new, nothing checked: a command after the check, or after a commit vault made
    /// here, walks no commit (`VAULT_TRACE=1`); one after a `git pull` does.
    @Test func nothingNewChecksNothing() throws {
        let p = try People(signed: false, machines: ["ada", "bob"])
        let traced = p.environment["ada"]!.merging(["VAULT_TRACE": "1"]) { $1 }
        func walked() throws -> Bool {
            let r = try p.world.vault("ada", ["rooms"], environment: traced)
            try p.world.expectOK(r)
            return r.stderr.contains("authorship: HEAD moved since the last check")
        }
        _ = try walked()  // whatever the set-up left
        #expect(try !walked(), "nothing new")
        try p.say("ada", "mine")  // a commit vault made here
        #expect(try !walked(), "after vault's own commit")
        try p.sync("ada")
        #expect(try !walked(), "after a sync")
        try p.say("bob", "from Bob")
        try p.sync("bob")
        try Self.pull(p, "ada")
        let brought = try git(["rev-list", "--count", "ORIG_HEAD..HEAD"], in: p.world.path("ada"))
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let r = try p.world.vault("ada", ["rooms"], environment: traced)
        #expect(r.stderr.contains("authorship: HEAD moved since the last check"), "\(r.stderr)")
        // Exactly the commits the pull brought: none of the history before them.
        #expect(r.stderr.contains("authorship: \(brought) commits walked"), "\(brought): \(r.stderr)")
        #expect(try !walked(), "checked once")
    }

    /// (e) `git reset --hard` back past the forgery and forward again: the mark goes with the
    /// message and comes back with it, once, not unread again, and nothing else is marked.
    @Test func aResetBackAndForwardKeepsTheMarks() throws {
        let p = try People(signed: true, machines: ["ada", "bob", "mal"])
        let forged = try Self.forgeAsAda(p)
        try Self.pull(p, "ada")
        let ada = p.world.path("ada")
        let forward = try git(["rev-parse", "HEAD"], in: ada).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try p.counts("ada") == (unread: 1, unverified: 1))
        #expect(try Self.shownMarks(p, "ada").count == 1)
        #expect(try p.counts("ada") == (unread: 0, unverified: 1), "shown: read, still marked")
        try git(["reset", "--quiet", "--hard", "HEAD~1"], in: ada)
        #expect(try p.messages("ada").allSatisfy { $0.id != forged.id })
        #expect(try p.counts("ada") == (unread: 0, unverified: 0), "the message is not there")
        #expect(try Self.shownMarks(p, "ada").isEmpty)
        try git(["reset", "--quiet", "--hard", forward], in: ada)
        #expect(try p.counts("ada") == (unread: 0, unverified: 1), "back, read as before")
        #expect(try Self.shownMarks(p, "ada").count == 1)
        let file = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: ada + "/.vault/unverified.json")))
            as? [String: [String: String]]
        #expect(file?.mapValues { $0.keys.sorted() } == [Self.room: [forged.id]], "\(String(describing: file))")
        // Back and forward once more, then a sync: still one mark.
        try git(["reset", "--quiet", "--hard", "HEAD~1"], in: ada)
        #expect(try p.counts("ada").unverified == 0)
        // A sync that brings it back marks it as a sync marks what it brings: once, and unread.
        try p.sync("ada")
        #expect(try p.counts("ada") == (unread: 1, unverified: 1), "the sync brought it back")
        let again = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: ada + "/.vault/unverified.json")))
            as? [String: [String: String]]
        #expect(again?.mapValues { $0.keys.sorted() } == [Self.room: [forged.id]], "\(String(describing: again))")
    }

    /// `vault sync --undo` of a sync that renamed a room puts the room's marks back under its old
    /// name (they had moved with the rename).
    @Test func undoingASyncThatRenamedARoomMovesItsMarksBack() throws {
        let p = try People(signed: false, machines: ["ada", "bob"])
        let text = try p.world.read("bob", Self.room)
            + "\n## 🧑 user · x <!-- 2026-11-21T09:00:00+09:00 m-00000000UNDO author=Ada%20Kim -->\n\nit is me\n"
        try p.world.write("bob", Self.room, text)
        try p.sync("bob")
        #expect(try p.sync("ada").contains("m-00000000UNDO: claims to be you"))
        let bob = p.world.path("bob")
        try FileManager.default.moveItem(atPath: bob + "/" + Self.room, toPath: bob + "/rooms/trip-2.md")
        try p.sync("bob")
        #expect(try p.sync("ada").contains("rooms/trip.md → rooms/trip-2.md"))
        let moved = try p.vault("ada", ["show", "trip-2"])
        #expect(moved.stdout.contains("⚠️ unverified author: claims to be you"), "\(moved.stdout)")
        try p.world.expectOK(p.vault("ada", ["sync", "--undo"]))
        #expect(FileManager.default.fileExists(atPath: p.world.path("ada") + "/" + Self.room))
        #expect(try Self.shownMarks(p, "ada").count == 1, "the mark is back with the room's old name")
        #expect(try p.counts("ada").unverified == 1)
    }
}
