import Foundation
import Testing
import VaultCore
import VaultTestSupport

@testable import VaultCLI

/// Names people type: every form a room or an entry may be named by, each ambiguity, "did you
/// mean" for a mistyped name or subcommand, `-` for standard input and output, and Korean paths
/// printed as text.
@Suite struct NameFormsTests {
    /// A vault with the rooms 부산 여행 and 부산 맛집 and two entries of 2026-11-21.
    func namedVault() throws -> TemporaryDirectory {
        let vault = try freshVault()
        for title in ["부산 여행", "부산 맛집", "Weekly plans"] {
            expectSuccess(try runVault(["room", "new", title], in: vault.path))
        }
        for title in ["아침", "저녁"] {
            expectSuccess(
                try runVault(["write", title, "--date", "2026-11-21", "--body", "\(title) 일기"], in: vault.path))
        }
        expectSuccess(try runVault(["write", "산책", "--date", "2026-11-22", "--body", "걸었다"], in: vault.path))
        return vault
    }

    /// The path `vault diff NAME` resolved NAME to (it names it: "PATH is the same as …").
    func resolved(_ name: String, in vault: TemporaryDirectory, from folder: String? = nil) throws -> String? {
        let r = try runVault(["diff", name], in: folder.map { vault.path + "/" + $0 } ?? vault.path)
        guard r.status == 0, let end = r.stdout.range(of: " is the same as") else { return nil }
        return String(r.stdout[..<end.lowerBound])
    }

    @Test func everyFormOfARoomsNameFindsIt() throws {
        let vault = try namedVault()
        let room = "rooms/부산-여행.md"
        let forms: [(String, String?)] = [
            ("rooms/부산-여행.md", nil),  // a path from the vault, as the shell completes it
            ("./rooms/부산-여행.md", nil),
            ("부산-여행.md", "rooms"),  // a path from inside rooms/
            ("../rooms/부산-여행.md", "diary"),
            ("부산-여행.md", nil),  // the file name, from anywhere
            ("부산-여행", nil),  // the slug
            ("부산 여", nil),  // a title prefix
            ("부산 여행", nil),  // the title
            ("부산-여행".decomposedStringWithCanonicalMapping, nil),  // typed on a Mac (NFD)
            ("rooms/부산-여행.md".decomposedStringWithCanonicalMapping, nil),
        ]
        for (name, folder) in forms {
            #expect(try resolved(name, in: vault, from: folder) == room, "\(name) from \(folder ?? ".")")
        }
        #expect(try resolved("weekly", in: vault) == "rooms/weekly-plans.md")
    }

    @Test func everyFormOfADiaryEntrysNameFindsIt() throws {
        let vault = try namedVault()
        let walk = "diary/2026/2026-11-22-산책.md"
        for name in ["2026-11-22", walk, "2026-11-22-산책", "2026-11-22-산책.md", "산책"] {
            #expect(try resolved(name, in: vault) == walk, "\(name)")
        }
    }

    func expectRefused(
        _ arguments: [String], in vault: TemporaryDirectory, status: Int32 = 1, saying parts: [String],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let before = try vault.snapshot()
        let result = try runVault(arguments, in: vault.path)
        #expect(result.status == status, "\(arguments): \(result.stderr)", sourceLocation: sourceLocation)
        for part in parts {
            #expect(result.stderr.contains(part), "\(arguments): \(result.stderr)", sourceLocation: sourceLocation)
        }
        expectUnchanged(before, try vault.snapshot(), sourceLocation: sourceLocation)
    }

    @Test func anAmbiguousNameListsTheCandidates() throws {
        let vault = try namedVault()
        try expectRefused(
            ["room", "set", "부산", "model", "m"], in: vault,
            saying: ["'부산' matches more than one item: rooms/부산-맛집.md, rooms/부산-여행.md"])
        try expectRefused(
            ["chat", "2026-11-21", "hi", "--provider", "offline"], in: vault,
            saying: ["'2026-11-21' matches more than one item: ", "2026-11-21-아침.md", "2026-11-21-저녁.md"])
        // A file name with .md that is both a room's and an entry's.
        try vault.write("rooms/산책.md", "---\ntitle: 산책 방\n---\n\n" + RoomFile.promptMarkerLine + "\n")
        _ = try git(["add", "-A"], in: vault.path)
        _ = try git(["-c", "user.name=T", "-c", "user.email=t@e", "commit", "-qm", "x"], in: vault.path)
        try vault.write("diary/2026/산책.md", "# 산책\n\n또 걸었다\n")
        try expectRefused(
            ["tag", "산책.md", "+x"], in: vault,
            saying: ["'산책.md' matches more than one item: ", "rooms/산책.md", "diary/2026/산책.md"])
    }

    @Test func anUnknownNameSuggestsTheNearest() throws {
        let vault = try namedVault()
        try expectRefused(
            ["chat", "부산-여헹", "hi", "--provider", "offline"], in: vault,
            saying: ["no room or diary entry matches '부산-여헹'. Did you mean '부산-여행'?"])
        try expectRefused(
            ["room", "set", "weeky-plans", "model", "m"], in: vault, saying: ["Did you mean 'weekly-plans'?"])
        try expectRefused(
            ["show", "2026-11-22-산잭"], in: vault, saying: ["Did you mean '2026-11-22-산책'?"])
        let far = try runVault(["show", "전혀 다른 이름"], in: vault.path)
        #expect(far.status == 1)
        #expect(!far.stderr.contains("Did you mean"), "\(far.stderr)")
    }

    @Test func anUnknownSubcommandSuggestsTheNearest() throws {
        let vault = try namedVault()
        try expectRefused(
            ["room", "sett", "부산-여행", "model", "m"], in: vault, status: 64,
            saying: ["vault: error: 'sett' is not a command of `vault room`\n  did you mean `vault room set`?\n"])
        try expectRefused(
            ["rooms-list"], in: vault, status: 64,
            saying: ["vault: error: 'rooms-list' is not a command of `vault`\n  `vault --help` lists its commands\n"])
        try expectRefused(["rom"], in: vault, status: 64, saying: ["did you mean `vault rm` or `vault room`?"])
        try expectRefused(["serach", "x"], in: vault, status: 64, saying: ["did you mean `vault search`?"])
        #expect(CommandSuggestion.nearest(for: ["remote", "ad"]) == "`vault remote add`")
        #expect(CommandSuggestion.nearest(for: ["zzzzzz"]) == nil)
        #expect(CommandSuggestion.nearest(for: ["chat", "부산"]) == nil)
    }

    @Test func aDashIsStandardInputOrOutput() throws {
        let vault = try namedVault()
        let export = try runVault(["export", "부산-여행", "-o", "-"], in: vault.path)
        expectSuccess(export)
        #expect(export.stdout.contains("부산 여행"), "\(export.stdout)")
        #expect(!FileManager.default.fileExists(atPath: vault.path + "/-"), "export -o - wrote a file named -")
        let chat = try runVault(
            ["chat", "부산-여행", "-", "--provider", "offline"], in: vault.path, stdin: "표준 입력에서 온 질문\n")
        expectSuccess(chat)
        #expect(try vault.readText("rooms/부산-여행.md").contains("표준 입력에서 온 질문"))
        let write = try runVault(["write", "파이프", "--body", "-"], in: vault.path, stdin: "파이프로 쓴 일기\n")
        expectSuccess(write)
        let entry = try #require(
            try FileManager.default.subpathsOfDirectory(atPath: vault.path + "/diary").first { $0.contains("파이프") })
        #expect(try vault.readText("diary/" + entry).contains("파이프로 쓴 일기"))
        #expect(try !vault.readText("diary/" + entry).contains("\n-\n"))
    }

    @Test func diffAndLogPrintKoreanPathsAsText() throws {
        let vault = try namedVault()
        try vault.write("rooms/부산-여행.md", try vault.readText("rooms/부산-여행.md") + "손으로 쓴 줄\n")
        let diff = try runVault(["diff", "부산-여행"], in: vault.path)
        expectSuccess(diff)
        #expect(diff.stdout.contains("--- a/rooms/부산-여행.md\n+++ b/rooms/부산-여행.md\n"), "\(diff.stdout)")
        #expect(diff.stdout.hasPrefix("diff --git a/rooms/부산-여행.md b/rooms/부산-여행.md\n"), "\(diff.stdout)")
        #expect(!diff.stdout.contains("\\3"), "\(diff.stdout)")
        let log = try runVault(["log", "부산-여행"], in: vault.path)
        expectSuccess(log)
        #expect(log.stdout.contains("room: new 부산 여행"), "\(log.stdout)")
        #expect(!log.stdout.contains("\\3") && !log.stderr.contains("\\3"))
    }
}
