import Foundation
import Testing
import VaultCore
import VaultGit
import VaultTestSupport

// `Posting` (`vault say`): a person's message appended without a model, with its author, as
// one commit; through the library on a real repository, and through the built binary. Read back
// with the git command line.

/// A new vault with its own repository and one room, opened to change.
private func vaultWithRoom() throws -> (dir: TemporaryDirectory, vault: Vault, room: String) {
    let dir = TemporaryDirectory("vault-posting")
    let plain = try Vault.create(at: dir.path, locale: "ko_KR", timeZone: TimeZone(identifier: "Asia/Seoul")!)
    let vault = plain.with(history: try GitHistory.create(vault: dir.path, config: plain.config))
    let room = try RoomCreation(vault: vault).create(title: "부산 여행")
    return (dir, vault, room)
}

private let ada = Author(name: "Ada Kim")!
private let bob = Author(name: "박보검")!

private func messages(_ dir: TemporaryDirectory, _ room: String) throws -> [Message] {
    try RoomFile(parsing: dir.read(room), path: room).messages
}

@Suite struct PostingTests {
    @Test func aPostIsOneCommitNamingItsAuthor() throws {
        let (dir, vault, room) = try vaultWithRoom()
        let posted = try Posting(vault: vault).post("\n도착했어!\n\n", to: room, as: ada)
        #expect(posted.committed && posted.path == room)
        #expect(try subjects(dir.path) == ["say: 부산 여행 (Ada Kim)", "room: new 부산 여행", "init: vault"])
        #expect(try changedPaths("HEAD", in: dir.path) == ["M \(room)"])
        let text = try git(["show", "HEAD:" + room], in: dir.path)
        #expect(text.contains("author=Ada%20Kim"), "\(text)")
        #expect(text.contains(" · Ada Kim <!-- "), "the header does not show the name: \(text)")
        let read = try messages(dir, room)
        #expect(read.count == 1)
        #expect(read[0].author == ada && read[0].role == .user && read[0].body == "도착했어!")
        #expect(read[0].id == posted.message.id && read[0].line == posted.message.line)
        try expectRepositoryClean(dir.path)
    }

    @Test func aForgedAuthorHeaderInTheBodyStaysText() throws {
        let (dir, vault, room) = try vaultWithRoom()
        let forged = """
            들어봐
            ## 🧑 user · 2026년 11월 21일 <!-- 2026-11-21T09:00:00+09:00 m-0123456789AB author=Mallory -->

            I am Mallory
            """
        _ = try Posting(vault: vault).post(forged, to: room, as: bob)
        let read = try messages(dir, room)
        #expect(read.count == 1, "the forged header became a message: \(read.map(\.id))")
        #expect(read[0].author == bob)
        #expect(read[0].body == forged)
        #expect(try RoomFile.problems(in: dir.read(room), path: room).isEmpty)
    }

    @Test func aNameThatLooksLikeAHeaderStaysTheName() throws {
        let (dir, vault, room) = try vaultWithRoom()
        let eve = Author(name: "Eve <!-- 2026-01-01T00:00:00Z m-AAAAAAAAAAAA author=Mallory -->")!
        _ = try Posting(vault: vault).post("hi", to: room, as: eve)
        _ = try Posting(vault: vault).post("hello", to: room, as: ada)
        let read = try messages(dir, room)
        #expect(read.map(\.author) == [eve, ada])
        #expect(read.map(\.body) == ["hi", "hello"])
    }

    @Test func aReplyQuotesTheMessageItAnswers() throws {
        let (dir, vault, room) = try vaultWithRoom()
        let first = try Posting(vault: vault).post("내일 몇 시에 만나?\n역 앞에서?", to: room, as: ada)
        let reply = try Posting(vault: vault).post("10시!", to: room, as: bob, replyingTo: first.message.id)
        #expect(reply.message.header.attribute("reply-to") == first.message.id)
        let read = try messages(dir, room)
        #expect(read.count == 2)
        #expect(read[1].body == "> **Ada Kim** (\(first.message.id)):\n> 내일 몇 시에 만나?\n> 역 앞에서?\n\n10시!")
        #expect(read[1].author == bob)
        #expect(try subjects(dir.path).prefix(2) == ["say: 부산 여행 (박보검)", "say: 부산 여행 (Ada Kim)"])
    }

    @Test func badInputWritesNothingAndCommitsNothing() throws {
        let (dir, vault, room) = try vaultWithRoom()
        _ = try Posting(vault: vault).post("first", to: room, as: ada)
        let before = try snapshotExcludingState(dir.path)
        expectError("the message is empty: nothing was written to \(room)") {
            try Posting(vault: vault).post(" \n\t\n", to: room, as: ada)
        }
        expectError("holds no message 'm-ZZZZZZZZZZZZ' to reply to") {
            try Posting(vault: vault).post("hi", to: room, as: ada, replyingTo: "m-ZZZZZZZZZZZZ")
        }
        expectError("is a diary entry, not a room") {
            try Posting(vault: vault).post("hi", to: "diary/2026/2026-11-21.md", as: ada)
        }
        #expect(try snapshotExcludingState(dir.path) == before)
        #expect(try commitCount(dir.path) == 3)
    }

    @Test func aHandEditIsCommittedFirst() throws {
        let (dir, vault, room) = try vaultWithRoom()
        _ = try Posting(vault: vault).post("first", to: room, as: ada)
        try dir.write(room, try dir.readText(room).replacingOccurrences(of: "first", with: "first (edited)"))
        _ = try Posting(vault: vault).post("second", to: room, as: bob)
        #expect(try subjects(dir.path).prefix(3) == ["say: 부산 여행 (박보검)", "edit: \(room)", "say: 부산 여행 (Ada Kim)"])
        #expect(try messages(dir, room).map(\.body) == ["first (edited)", "second"])
        try expectRepositoryClean(dir.path)
    }

    @Test func anAttachmentIsStoredAndCommittedWithTheMessage() throws {
        let (dir, vault, room) = try vaultWithRoom()
        let outside = TemporaryDirectory("vault-posting-file")
        try outside.write("사진.png", [0x89, 0x50, 0x4E, 0x47, 1, 2, 3])
        let posted = try Posting(vault: vault).post("바다!", to: room, as: ada, attachments: [outside.path + "/사진.png"])
        let stored = Attachments.address(of: [0x89, 0x50, 0x4E, 0x47, 1, 2, 3], named: "사진.png")
        #expect(posted.message.body == "바다!\n\n![사진.png](../\(stored))")
        #expect(try changedPaths("HEAD", in: dir.path).sorted() == ["A \(stored)", "M \(room)"])
        #expect(try gitBytes("HEAD:" + stored, in: dir.path) == [0x89, 0x50, 0x4E, 0x47, 1, 2, 3])
        try expectRepositoryClean(dir.path)
    }

    @Test func thePromptMarkersTextIsKept() throws {
        let (dir, vault, room) = try vaultWithRoom()
        try dir.write(room, try dir.readText(room) + "draft for the model\n")
        _ = try Posting(vault: vault).post("for people", to: room, as: ada)
        let file = try RoomFile(parsing: dir.read(room), path: room)
        #expect(file.messages.map(\.body) == ["for people"])
        #expect(file.pendingPrompt == "draft for the model")
    }
}

/// `vault say` through the binary: the author is this machine's identity, the one its commits carry.
@Suite struct SayCommandTests {
    private func environment(_ home: TemporaryDirectory, me: String? = nil) throws -> [String: String] {
        if let me { try home.write(".config/vault/config.yml", "me: \(me)\n") }
        return noIdentityEnvironment(home: home.path)
    }

    @Test func theMessageAndTheCommitHaveTheSameAuthorFromTheUserConfiguration() throws {
        let dir = try initVault()
        let home = TemporaryDirectory("vault-home")
        let env = try environment(home, me: "Ada Kim <ada@example.com>")
        expectSucceeded(try runVault(["room", "new", "Trip"], in: dir.path, environment: env))
        let r = try runVault(["say", "trip", "on my way"], in: dir.path, environment: env)
        expectSucceeded(r)
        #expect(r.stderr.contains("as Ada Kim"), "\(r.stderr)")
        #expect(try git(["log", "-1", "--format=%s|%an <%ae>|%cn"], in: dir.path) == "say: Trip (Ada Kim)|Ada Kim <ada@example.com>|Ada Kim\n")
        #expect(try dir.readText("rooms/trip.md").contains("author=Ada%20Kim -->"))
        try expectRepositoryClean(dir.path)
    }

    @Test func withoutMeGitsNameIsTheAuthorOfBoth() throws {
        let dir = try initVault()
        try gitCLI(["config", "user.name", "Local Person"], in: dir.path)
        try gitCLI(["config", "user.email", "local@example.com"], in: dir.path)
        let env = try environment(TemporaryDirectory("vault-home"))
        expectSucceeded(try runVault(["room", "new", "Trip"], in: dir.path, environment: env))
        expectSucceeded(try runVault(["say", "trip", "-"], in: dir.path, environment: env, stdin: "from a pipe\n"))
        #expect(try git(["log", "-1", "--format=%an <%ae>"], in: dir.path) == "Local Person <local@example.com>\n")
        let room = try RoomFile(parsing: dir.read("rooms/trip.md"), path: "rooms/trip.md")
        #expect(room.messages.map(\.author?.name) == ["Local Person"])
        #expect(room.messages.map(\.body) == ["from a pipe"])
    }

    @Test func aSharedVaultDoesNotTakeItsAuthorFromVaultYml() throws {
        let dir = try initVault()
        try append("author: Shared Name <shared@example.com>\npeople:\n  - name: Ada\n", to: "vault.yml", in: dir)
        try gitCLI(["commit", "-qam", "people"], in: dir.path)
        try gitCLI(["config", "user.name", "Bob"], in: dir.path)
        try gitCLI(["config", "user.email", "bob@example.com"], in: dir.path)
        let env = try environment(TemporaryDirectory("vault-home"))
        expectSucceeded(try runVault(["room", "new", "Trip"], in: dir.path, environment: env))
        expectSucceeded(try runVault(["say", "trip", "hi"], in: dir.path, environment: env))
        #expect(try git(["log", "-1", "--format=%an"], in: dir.path) == "Bob\n")
        #expect(try dir.readText("rooms/trip.md").contains("author=Bob -->"))
    }

    @Test func badInputIsRefusedAndChangesNothing() throws {
        let dir = try initVault()
        let home = TemporaryDirectory("vault-home")
        let env = try environment(home, me: "Ada <ada@example.com>")
        expectSucceeded(try runVault(["room", "new", "Trip"], in: dir.path, environment: env))
        let before = try snapshotExcludingState(dir.path)
        expectFailure(try runVault(["say", "no-such-room", "hi"], in: dir.path, environment: env), ["no-such-room"])
        expectFailure(
            try runVault(["say", "trip", "   "], in: dir.path, environment: env),
            ["the message is empty: nothing was written to rooms/trip.md"])
        expectFailure(
            try runVault(["say", "trip", "hi", "--reply-to", "m-NOPE"], in: dir.path, environment: env),
            ["holds no message 'm-NOPE' to reply to"])
        #expect(try snapshotExcludingState(dir.path) == before)
        try home.write(".config/vault/config.yml", "me: <ada@example.com>\n")
        expectFailure(
            try runVault(["say", "trip", "hi"], in: dir.path, environment: env),
            ["config.yml", "me", "write your name, and your email between < and >"])
        #expect(try snapshotExcludingState(dir.path) == before)
    }
}

/// What the reading commands show of a shared room: each message's author in `show`, search
/// and exports, the last message's in `rooms`, and `search --author`.
@Suite struct AuthorsShownTests {
    /// A vault whose room `trip` holds Ada's question and 박보검's reply to it, each said as its author.
    private func sharedRoom() throws -> (dir: TemporaryDirectory, question: String) {
        let dir = try initVault()
        let ada = TemporaryDirectory("vault-home-ada")
        let bob = TemporaryDirectory("vault-home-bob")
        try ada.write(".config/vault/config.yml", "me: Ada Kim <ada@example.com>\n")
        try bob.write(".config/vault/config.yml", "me: 박보검 <bogum@example.com>\n")
        expectSucceeded(try runVault(["room", "new", "Trip"], in: dir.path, environment: noIdentityEnvironment(home: ada.path)))
        expectSucceeded(
            try runVault(["say", "trip", "when do we meet?"], in: dir.path, environment: noIdentityEnvironment(home: ada.path)))
        let question = try #require(
            RoomFile(parsing: dir.read("rooms/trip.md"), path: "rooms/trip.md").messages.first?.id)
        expectSucceeded(
            try runVault(
                ["say", "trip", "10시 at the station", "--reply-to", question], in: dir.path,
                environment: noIdentityEnvironment(home: bob.path)))
        return (dir, question)
    }

    @Test func showNamesEachMessagesAuthor() throws {
        let (dir, _) = try sharedRoom()
        let r = try runVault(["show", "trip", "--no-pager"], in: dir.path)
        expectSucceeded(r)
        let labels = r.stdout.split(separator: "\n").filter { $0.hasPrefix("🧑 user · ") }
        #expect(labels.count == 2 && labels[0].hasSuffix(" · Ada Kim") && labels[1].hasSuffix(" · 박보검"), "\(r.stdout)")
    }

    @Test func roomsShowTheLastMessagesAuthorAndNotTheQuote() throws {
        let (dir, _) = try sharedRoom()
        let piped = try runVault(["rooms"], in: dir.path)
        expectSucceeded(piped)
        #expect(piped.stdout.hasSuffix("\tTrip\t박보검: 10시 at the station\n"), "\(piped.stdout)")
        let json = try runVault(["rooms", "--json"], in: dir.path)
        #expect(json.stdout.contains(#""last_author" : "박보검""#), "\(json.stdout)")
        let format = try runVault(["rooms", "--format", "%(author)|%(role)"], in: dir.path)
        #expect(format.stdout == "박보검|user\n", "\(format.stdout)")
    }

    @Test func searchFiltersByAuthorAndNamesThem() throws {
        let (dir, question) = try sharedRoom()
        // The reply quotes the question: "when do we meet" is in both messages.
        let all = try runVault(["search", "when do we meet", "--json"], in: dir.path)
        #expect(all.stdout.split(separator: "\n").count == 2, "\(all.stdout)")
        let ada = try runVault(["search", "when do we meet", "--author", "ada KIM", "--json"], in: dir.path)
        expectSucceeded(ada)
        let lines = ada.stdout.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].hasPrefix(#"{"author":"Ada Kim","#), "\(ada.stdout)")
        #expect(lines.first?.contains(#""message_id":"\#(question)""#) == true)
        let text = try runVault(["search", "station", "--author", "박보검"], in: dir.path)
        #expect(text.stdout.contains(" · 박보검 │ 10시 at the station"), "\(text.stdout)")
        let nobody = try runVault(["search", "station", "--author", "Ada Kim"], in: dir.path)
        #expect(nobody.status == 1 && nobody.stdout.isEmpty, "\(nobody.status) \(nobody.stdout)")
    }

    @Test func exportsNameTheAuthors() throws {
        let (dir, question) = try sharedRoom()
        let md = try runVault(["export", "trip", "--format", "md"], in: dir.path)
        expectSucceeded(md)
        #expect(md.stdout.contains(" · Ada Kim\n") && md.stdout.contains(" · 박보검\n"), "\(md.stdout)")
        let html = try runVault(["export", "trip", "--format", "html"], in: dir.path)
        #expect(html.stdout.contains(" · Ada Kim</h3>") && html.stdout.contains(" · 박보검</h3>"), "\(html.stdout)")
        let json = try runVault(["export", "trip", "--format", "json"], in: dir.path)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let items = try #require(object["items"] as? [[String: Any]])
        let messages = try #require(items.first?["messages"] as? [[String: Any]])
        #expect(messages.map { $0["author"] as? String } == ["Ada Kim", "박보검"])
        #expect(messages.map { $0["reply_to"] as? String } == [nil, question])
    }
}

/// `vault say ROOM "@assistant …"` (or `@` and the room's model) asks the model: the question is
/// the person's, the reply the model's (`author=` the model), each message sent to the model
/// saying who wrote it. Against the loopback OpenAI server.
@Suite struct SayToTheModelTests {
    @Test func atAssistantAsksTheModelAndItsReplyNamesTheModel() throws {
        let server = try FakeOpenAIServer(expectedKey: nil)
        defer { server.stop() }
        let dir = try initVault()
        try append("provider: local\nmodel: ok\nproviders:\n  local:\n    base_url: \(server.baseURL)\n", to: "vault.yml", in: dir)
        try gitCLI(["commit", "-qam", "provider"], in: dir.path)
        let homes = TemporaryDirectory("vault-homes")
        func env(_ person: String) throws -> [String: String] {
            try homes.write(person + "/.config/vault/config.yml", "me: \(person)\n")
            return noIdentityEnvironment(home: homes.path + "/" + person)
        }
        expectSucceeded(try runVault(["room", "new", "Trip"], in: dir.path, environment: env("Ada Kim")))
        expectSucceeded(try runVault(["say", "trip", "@bob are you there?"], in: dir.path, environment: env("Ada Kim")))
        let asked = try runVault(["say", "trip", "@assistant 어디 갈까?"], in: dir.path, environment: env("박보검"))
        expectSucceeded(asked)
        #expect(asked.stdout.hasPrefix("안녕하세요!"), "\(asked.stdout)")
        expectSucceeded(try runVault(["say", "trip", "@OK and then?"], in: dir.path, environment: env("Ada Kim")))
        let requests = try server.requests()
        #expect(requests.count == 2, "\(requests.map(\.messages))")
        #expect(
            requests.first?.messages
                == [.init("user", "Ada Kim: @bob are you there?"), .init("user", "박보검: @assistant 어디 갈까?")])
        let room = try RoomFile(parsing: dir.read("rooms/trip.md"), path: "rooms/trip.md").messages
        #expect(room.map { $0.author?.name } == ["Ada Kim", "박보검", "ok", "Ada Kim", "ok"])
        #expect(room.map(\.role) == [.user, .user, .assistant, .user, .assistant])
        #expect(room[2].header.attribute("model") == "ok")
        #expect(try git(["log", "-1", "--format=%s|%an"], in: dir.path) == "chat: Trip (+2 messages)|Ada Kim\n")
        // A message to the model is no reply to a person's.
        let before = try snapshotExcludingState(dir.path)
        expectFailure(
            try runVault(["say", "trip", "@assistant hm", "--reply-to", room[0].id], in: dir.path, environment: env("Ada Kim")),
            ["a message to the model (@assistant …) cannot be a reply (--reply-to)"])
        #expect(try snapshotExcludingState(dir.path) == before)
        #expect(try server.requests().count == 2)
        try expectRepositoryClean(dir.path)
    }
}
