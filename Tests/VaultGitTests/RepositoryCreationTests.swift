import Foundation
import Testing
import VaultTestSupport

/// A vault copied without a repository gets one at its first change, and only then.
@Suite struct RepositoryOnFirstChangeTests {
    @Test func firstChatInACopiedVaultMakesTheRepository() throws {
        let dir = try Project.copyOfSampleVault()
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/.git"))
        let original = try dir.snapshot()
        let roomBefore = try dir.read(offlineRoom)

        let r = try runVault(["chat", offlineRoom, "첫 질문입니다"], in: dir.path)
        expectSucceeded(r)
        #expect(
            r.stderr.contains("made a git repository in \(dir.path)"),
            "stderr does not say a repository was made: \(r.stderr)")

        #expect(try subjects(dir.path) == ["chat: \(offlineRoomTitle) (+2 messages)", "init: vault"])
        // The first commit holds every file of the copied vault, byte for byte, and nothing else.
        #expect(try treeFiles("HEAD~1", in: dir.path) == original.keys.sorted())
        for (path, bytes) in original where path != offlineRoom {
            #expect(try gitBytes("HEAD~1:" + path, in: dir.path) == bytes, "\(path) differs in init: vault")
        }
        #expect(try gitBytes("HEAD~1:" + offlineRoom, in: dir.path) == roomBefore)
        // The chat commit changes only the room, adding its two messages.
        #expect(try changedPaths("HEAD", in: dir.path) == ["M " + offlineRoom])
        let (added, _) = try diffLines("HEAD", path: offlineRoom, in: dir.path)
        #expect(added.compactMap { parseHeaderLine($0)?.role } == ["user", "assistant"])
        #expect(added.contains("첫 질문입니다"))
        #expect(try gitBytes("HEAD:" + offlineRoom, in: dir.path) == dir.read(offlineRoom))
        try expectRepositoryClean(dir.path)
    }

    @Test func roomNewInACopiedVaultMakesTheRepositoryToo() throws {
        let dir = try Project.copyOfSampleVault()
        let original = try dir.snapshot()
        let r = try runVault(["room", "new", "부산 여행 둘째"], in: dir.path)
        expectSucceeded(r)
        #expect(r.stderr.contains("made a git repository"))
        #expect(try subjects(dir.path) == ["room: new 부산 여행 둘째", "init: vault"])
        #expect(try treeFiles("HEAD~1", in: dir.path) == original.keys.sorted())
        #expect(try changedPaths("HEAD", in: dir.path) == ["A rooms/부산-여행-둘째.md"])
        try expectRepositoryClean(dir.path)
    }

    @Test func failingCommandsMakeNoRepository() throws {
        let dir = try Project.copyOfSampleVault()
        let before = try dir.snapshot()
        let attempts: [([String], String?, [String])] = [
            (["chat", "no-such-room", "hello"], nil, ["no-such-room"]),
            (["chat", offlineRoom, ""], "", ["nothing to send"]),
            (["chat", offlineRoom, "  \n\n  "], "", ["nothing to send"]),
            (["chat", offlineRoom], "", ["nothing to send"]),
            (["chat", "rooms/부산-여행.md", "hello", "--provider", "nowhere"], nil, ["'nowhere'", "not configured"]),
            (["chat", "rooms/김치찌개-레시피.md", "hello"], nil, ["'ollama'", "not configured"]),
            (["room", "new", "   "], nil, ["title"]),
            (["rm", "no-such-room", "--yes"], nil, ["no-such-room"]),
            (["rm", offlineRoom], nil, ["--yes"]),
        ]
        for (args, stdin, fragments) in attempts {
            let r = try runVault(args, in: dir.path, stdin: stdin)
            expectFailure(r, fragments)
            #expect(
                !FileManager.default.fileExists(atPath: dir.path + "/.git"),
                "`vault \(args.joined(separator: " "))` made a repository")
            #expect(!r.stderr.contains("made a git repository"), "\(args): \(r.stderr)")
            expectSameFiles(before, try dir.snapshot())
        }
    }
}
