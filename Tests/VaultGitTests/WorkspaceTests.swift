import Foundation
import Testing
import VaultCore
import VaultGit
import VaultTestSupport

// A shared vault: `people:` in vault.yml, `members:` in rooms, joining and leaving (one commit
// each, only the members line changed), and what `vault rooms` and `vault people` show.

private func config(_ text: String) throws(VaultError) -> VaultConfig {
    try VaultConfig(parsing: Array(("format: 1\n" + text).utf8))
}

private let people = [
    Person(text: "Ada Kim <ada@example.com>")!, Person(text: "박보검")!, Person(name: "Chris", email: "c@example.com")!,
    Person(text: "Adam")!,
]

@Suite struct PeopleTests {
    @Test func peopleAreReadInTheirThreeForms() throws {
        let c = try config("people:\n  - Ada Kim <ada@example.com>\n  - 박보검\n  - name: Chris\n    email: c@example.com\n")
        #expect(c.people.map(\.name) == ["Ada Kim", "박보검", "Chris"])
        #expect(c.people.map(\.email) == ["ada@example.com", nil, "c@example.com"])
        #expect(try config("locale: en_US\n").people.isEmpty)
    }

    @Test func aPersonVaultCannotReadIsAnErrorWithItsLine() throws {
        for (text, line) in [
            ("people:\n  - Ada\n  - <x@example.com>\n", 4), ("people: Ada\n", 2), ("people:\n  - name: \"a\\nb\"\n", 3),
        ] {
            do {
                _ = try config(text)
                Issue.record("no error for \(text)")
            } catch {
                #expect(error.description.contains("vault.yml:\(line): "), "\(text): \(error.description)")
                #expect(error.description.contains("people"), "\(error.description)")
            }
        }
    }

    @Test func aNameFindsItsPerson() throws {
        #expect(try Workspace.person("ada kim", among: people).name == "Ada Kim")
        #expect(try Workspace.person("C@EXAMPLE.COM", among: people).name == "Chris")
        #expect(try Workspace.person("박", among: people).name == "박보검")
        #expect(try Workspace.person("Adam", among: people).name == "Adam")
        for (typed, message) in [
            ("ad", "'ad' could be Ada Kim or Adam: write more of the name"),
            ("Eve", "'Eve' is not one of the vault's people (Ada Kim, 박보검, Chris, Adam)"),
        ] {
            do {
                _ = try Workspace.person(typed, among: people)
                Issue.record("no error for \(typed)")
            } catch {
                #expect(error.description.contains(message), "\(error.description)")
            }
        }
        do {
            _ = try Workspace.person("Ada", among: [])
            Issue.record("no error without people")
        } catch {
            #expect(error.description.contains("vault.yml lists none"), "\(error.description)")
        }
        #expect(
            try Workspace.members(creator: "Ada Kim", with: ["박", "ada kim", "Chris", "chris"], people: people)
                == ["Ada Kim", "박보검", "Chris"])
    }

    @Test func aRoomsKindFollowsItsMembers() {
        #expect(RoomKind(members: []) == .own)
        #expect(RoomKind(members: ["a", "b"]) == .direct)
        #expect(RoomKind(members: ["a"]) == .group && RoomKind(members: ["a", "b", "c"]) == .group)
    }
}

@Suite struct MembershipTests {
    private func sharedRoom() throws -> (TemporaryDirectory, Vault, String) {
        let dir = TemporaryDirectory("vault-members")
        let plain = try Vault.create(at: dir.path, locale: "en_US", timeZone: TimeZone(identifier: "UTC")!)
        let vault = plain.with(history: try GitHistory.create(vault: dir.path, config: plain.config))
        let room = try RoomCreation(vault: vault).create(title: "Trip", members: ["Ada Kim", "박보검"])
        return (dir, vault, room)
    }

    @Test func joiningAndLeavingChangeOnlyTheMembersLineAndKeepTheMessages() throws {
        let (dir, vault, room) = try sharedRoom()
        #expect(try dir.readText(room).contains("\nmembers: [Ada Kim, 박보검]\n"))
        let chris = Author(name: "Chris")!
        let bogum = Author(name: "박보검")!
        _ = try Posting(vault: vault).post("안녕", to: room, as: bogum)
        #expect(try Membership(vault: vault).join(room, as: chris) == .changed(["Ada Kim", "박보검", "Chris"]))
        #expect(try Membership(vault: vault).leave(room, as: bogum) == .changed(["Ada Kim", "Chris"]))
        #expect(try subjects(dir.path).prefix(2) == ["room: Trip: 박보검 left", "room: Trip: Chris joined"])
        let diff = try diffLines("HEAD", path: room, in: dir.path)
        #expect(diff.added == ["members: [Ada Kim, Chris]"] && diff.removed == ["members: [Ada Kim, 박보검, Chris]"])
        let file = try RoomFile(parsing: dir.read(room), path: room)
        #expect(file.messages.map(\.body) == ["안녕"] && file.messages.first?.author == bogum)
        try expectRepositoryClean(dir.path)
    }

    @Test func joiningTwiceOrLeavingARoomOneIsNotInWritesNothing() throws {
        let (dir, vault, room) = try sharedRoom()
        let before = try snapshotExcludingState(dir.path)
        #expect(try Membership(vault: vault).join(room, as: Author(name: "ada kim")!) == .alreadySo)
        #expect(try Membership(vault: vault).leave(room, as: Author(name: "Chris")!) == .alreadySo)
        #expect(try snapshotExcludingState(dir.path) == before)
        #expect(try commitCount(dir.path) == 2)
    }

    @Test func theLastToLeaveLeavesNoMembers() throws {
        let (dir, vault, room) = try sharedRoom()
        _ = try Membership(vault: vault).leave(room, as: Author(name: "Ada Kim")!)
        #expect(try Membership(vault: vault).leave(room, as: Author(name: "박보검")!) == .changed([]))
        #expect(try !dir.readText(room).contains("members"))
    }
}

/// `vault room new --with`, `room join`/`leave`, `vault rooms` in sections and `vault people`,
/// through the binary; each machine's person from its own user configuration.
@Suite struct WorkspaceCommandTests {
    private func workspace() throws -> (TemporaryDirectory, (String) throws -> [String: String]) {
        let dir = try initVault()
        try append("people:\n  - Ada Kim <ada@example.com>\n  - 박보검\n  - Chris\n", to: "vault.yml", in: dir)
        try gitCLI(["commit", "-qam", "people"], in: dir.path)
        let homes = TemporaryDirectory("vault-homes")
        let env = { (person: String) throws -> [String: String] in
            try homes.write(person + "/.config/vault/config.yml", "me: \(person)\n")
            return noIdentityEnvironment(home: homes.path + "/" + person)
        }
        return (dir, env)
    }

    @Test func roomsAreListedInSectionsForEachPerson() throws {
        let (dir, env) = try workspace()
        expectSucceeded(try runVault(["room", "new", "Weekend", "--with", "박", "--with", "chris"], in: dir.path, environment: env("Ada Kim")))
        expectSucceeded(try runVault(["room", "new", "Just us", "--with", "박보검"], in: dir.path, environment: env("Ada Kim")))
        expectSucceeded(try runVault(["room", "new", "Notes"], in: dir.path, environment: env("Ada Kim")))
        expectSucceeded(try runVault(["say", "just-us", "점심 먹자"], in: dir.path, environment: env("박보검")))
        #expect(try dir.readText("rooms/weekend.md").contains("\nmembers: [Ada Kim, 박보검, Chris]\n"))
        let ada = try runVault(["rooms"], in: dir.path, environment: (try env("Ada Kim")).merging(["COLUMNS": "100"]) { $1 })
        #expect(ada.stdout.hasPrefix("Groups\n"), "\(ada.stdout)")
        #expect(ada.stdout.contains("Just us") && ada.stdout.contains("박보검: 점심 먹자"), "\(ada.stdout)")
        // A direct room is named by the other person first, for each of the two.
        #expect(ada.stdout.contains("박보검 · Just us"), "\(ada.stdout)")
        let bogum = try runVault(["rooms"], in: dir.path, environment: (try env("박보검")).merging(["COLUMNS": "100"]) { $1 })
        #expect(bogum.stdout.contains("Ada Kim · Just us"), "\(bogum.stdout)")
        // Into a pipe the row keeps the room's own title (its path first), for scripts.
        let piped = try runVault(["rooms"], in: dir.path, environment: env("Ada Kim"))
        #expect(piped.stdout.contains("\tJust us\t") && !piped.stdout.contains("박보검 · Just us"), "\(piped.stdout)")
        let headings = { (out: String) in out.split(separator: "\n").filter { !$0.hasPrefix(" ") }.map(String.init) }
        #expect(headings(ada.stdout) == ["Groups", "Direct messages", "Your rooms"], "\(ada.stdout)")
        // The headings are in the listing's language, like the rest of its words.
        let korean = try runVault(
            ["rooms", "--locale", "ko_KR"], in: dir.path, environment: (try env("Ada Kim")).merging(["COLUMNS": "100"]) { $1 })
        #expect(headings(korean.stdout) == ["그룹", "1:1 대화", "내 방"], "\(korean.stdout)")
        let chris = try runVault(["rooms"], in: dir.path, environment: (try env("Chris")).merging(["COLUMNS": "100"]) { $1 })
        #expect(headings(chris.stdout) == ["Groups", "Your rooms", "Not joined"], "\(chris.stdout)")
        let kinds = try runVault(["rooms", "--format", "%(slug)|%(kind)|%(members)"], in: dir.path, environment: env("Chris"))
        #expect(
            Set(kinds.stdout.split(separator: "\n")) == ["weekend|group|Ada Kim, 박보검, Chris", "just-us|direct|Ada Kim, 박보검", "notes|own|"],
            "\(kinds.stdout)")
        let notJoined = chris.stdout.components(separatedBy: "Not joined\n").last ?? ""
        #expect(notJoined.contains("Just us") && !notJoined.contains("Weekend"), "\(chris.stdout)")
    }

    @Test func joinLeaveAndPeople() throws {
        let (dir, env) = try workspace()
        expectSucceeded(try runVault(["room", "new", "Weekend", "--with", "박보검"], in: dir.path, environment: env("Ada Kim")))
        expectSucceeded(try runVault(["say", "weekend", "토요일 어때?"], in: dir.path, environment: env("박보검")))
        let join = try runVault(["room", "join", "weekend"], in: dir.path, environment: env("Chris"))
        expectSucceeded(join)
        #expect(join.stdout == "rooms/weekend.md: Chris joined; members: Ada Kim, 박보검, Chris.\n", "\(join.stdout)")
        let leave = try runVault(["room", "leave", "weekend"], in: dir.path, environment: env("박보검"))
        #expect(leave.stdout.contains("박보검 left; members: Ada Kim, Chris. Your messages stay in the room."))
        #expect(try git(["log", "-2", "--format=%s|%an"], in: dir.path) == "room: Weekend: 박보검 left|박보검\nroom: Weekend: Chris joined|Chris\n")
        let people = try runVault(["people"], in: dir.path, environment: env("Chris"))
        expectSucceeded(people)
        let lines = people.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines[0].hasPrefix("Ada Kim <ada@example.com>") && lines[0].hasSuffix("—"), "\(people.stdout)")
        #expect(lines[1].hasPrefix("박보검") && lines[1].hasSuffix("· Weekend: 토요일 어때?"), "\(people.stdout)")
        #expect(lines[2].hasPrefix("Chris (you)"), "\(people.stdout)")
        let json = try runVault(["people", "--json"], in: dir.path, environment: env("Chris"))
        #expect(json.stdout.contains(#""preview" : "토요일 어때?""#), "\(json.stdout)")
    }

    /// The hint `room new` prints names the command to talk in the room with: `vault say` in a
    /// room shared with people (`vault chat` there would send each message to a model), `vault
    /// chat` in one's own room.
    @Test func aSharedRoomsHintIsVaultSay() throws {
        let (dir, env) = try workspace()
        let shared = try runVault(["room", "new", "주말 계획", "--with", "박보검"], in: dir.path, environment: env("Ada Kim"))
        expectSucceeded(shared)
        #expect(
            shared.stdout == "Made rooms/주말-계획.md. Talk in it with `vault say 주말-계획 \"…\"`"
                + " (`vault say 주말-계획 \"@assistant …\"` asks the model).\n", "\(shared.stdout)")
        #expect(!shared.stdout.contains("vault chat"), "\(shared.stdout)")
        let own = try runVault(["room", "new", "메모"], in: dir.path, environment: env("Ada Kim"))
        #expect(own.stdout == "Made rooms/메모.md. Talk in it with `vault chat 메모 \"…\"`.\n", "\(own.stdout)")
    }

    @Test func anUnknownPersonIsRefusedAndNothingIsMade() throws {
        let (dir, env) = try workspace()
        let before = try snapshotExcludingState(dir.path)
        let r = try runVault(["room", "new", "Weekend", "--with", "Eve"], in: dir.path, environment: env("Ada Kim"))
        expectFailure(r, ["'Eve' is not one of the vault's people (Ada Kim, 박보검, Chris)"])
        #expect(try snapshotExcludingState(dir.path) == before)
    }
}
