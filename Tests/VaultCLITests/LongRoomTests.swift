import Foundation
import Testing
import VaultTestSupport

/// Chat turns on a long room (thousands of messages, megabytes): only its end is read and
/// written, and what is on disk and in git is exactly what a turn on a short room gives. And a
/// crash in the middle of an append: the next command finishes it, so no half message stays.
@Suite struct LongRoomTests {
    static let path = "rooms/long.md"

    /// A vault whose room `long` has `count` messages (about 400 bytes each), committed.
    func longRoomVault(count: Int) throws -> TemporaryDirectory {
        let dir = try freshVault()
        var text = "---\ntitle: long\ncreated: 2026-01-01T09:00:00+09:00\n---\n\n"
        for i in 0..<count {
            let role = i % 2 == 0 ? "user" : "assistant"
            let minute = String(format: "%02d", i % 60)
            text +=
                "## \(role == "user" ? "🧑" : "🤖") \(role) · then "
                + "<!-- 2026-01-01T10:\(minute):00+09:00 m-\(String(format: "%012d", i)) -->\n\n"
            text +=
                "메시지 \(i): 부산 여행 일정과 숙소, 그리고 맛집 이야기.\n```\n"
                + "\\## 🧑 user · in a fence <!-- 2026-01-01T10:00:00+09:00 m-FENCEFENCE01 -->\n```\n"
            text += String(repeating: "line of an answer with some words in it \(i)\n", count: 6) + "\n"
        }
        text += promptMarker + "\n"
        try dir.write(LongRoomTests.path, text)
        try git(["add", LongRoomTests.path], in: dir.path)
        try git(
            ["-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "-m", "long room"], in: dir.path)
        return dir
    }

    /// The 1-based line of the last line that starts with `prefix`.
    func lastLine(startingWith prefix: String, in text: String) -> Int? {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        return lines.lastIndex { $0.hasPrefix(prefix) }.map { $0 + 1 }
    }

    @Test func aTurnOnALongRoomAppendsOnlyAtTheEndAndCommits() throws {
        let dir = try longRoomVault(count: 3000)
        let before = try dir.read(LongRoomTests.path)
        #expect(before.count > 1_000_000)
        for question in ["첫 질문", "두 번째 질문"] {
            let start = try dir.read(LongRoomTests.path)
            let r = try runVault(["chat", "long", question], in: dir.path)
            expectSuccess(r)
            let after = try dir.read(LongRoomTests.path)
            let text = String(decoding: after, as: UTF8.self)
            // Everything before the old prompt marker is unchanged, byte for byte.
            let marker = Array((promptMarker + "\n").utf8)
            #expect(Array(start.suffix(marker.count)) == marker)
            #expect(Array(after.prefix(start.count - marker.count)) == Array(start.dropLast(marker.count)))
            #expect(text.hasSuffix(promptMarker + "\n"))
            #expect(text.contains("\n\n" + question + "\n\n"), "the message is in the room")
            // The line reported is the reply's header line in the file.
            let replyLine = try #require(lastLine(startingWith: "## 🤖 assistant", in: text))
            #expect(r.stderr.contains("(saved to \(LongRoomTests.path), line \(replyLine))"), "\(r.stderr)")
            #expect(try git(["show", "HEAD:" + LongRoomTests.path], in: dir.path) == text)
            #expect(try git(["log", "-1", "--format=%s"], in: dir.path) == "chat: long (+2 messages)\n")
        }
        #expect(try git(["rev-list", "--count", "HEAD"], in: dir.path) == "4\n", "init, the room, two turns")
        #expect(try git(["status", "--porcelain"], in: dir.path).isEmpty)
        #expect(try git(["fsck", "--strict", "--no-dangling"], in: dir.path).isEmpty)
        try expectCheckClean(dir.path)
    }

    /// A hand edit anywhere in a long room is committed on its own before the turn.
    @Test func aHandEditOfALongRoomIsCommittedFirst() throws {
        let dir = try longRoomVault(count: 2000)
        expectSuccess(try runVault(["chat", "long", "first"], in: dir.path))
        var text = try dir.readText(LongRoomTests.path)
        text = text.replacingOccurrences(of: "메시지 7: ", with: "메시지 7 (고침): ")
        try Data(text.utf8).write(to: URL(fileURLWithPath: dir.path + "/" + LongRoomTests.path), options: .atomic)
        expectSuccess(try runVault(["chat", "long", "second"], in: dir.path))
        let log = try git(["log", "-3", "--format=%s"], in: dir.path)
        #expect(log == "chat: long (+2 messages)\nedit: \(LongRoomTests.path)\nchat: long (+2 messages)\n", "\(log)")
        let edit = try git(["show", "HEAD~1:" + LongRoomTests.path], in: dir.path)
        #expect(edit.contains("메시지 7 (고침): ") && !edit.contains("second"))
        #expect(try git(["status", "--porcelain"], in: dir.path).isEmpty)
    }

    /// The process dies with half of the new message written (`VAULT_CRASH_AT`, a test hook
    /// that calls `_exit` there). The next vault command, even one that only reads, finishes
    /// the write: the room holds the whole message, parses, and the turn after it commits.
    @Test(arguments: [3000, 3])
    func aCrashInTheMiddleOfAnAppendIsFinishedByTheNextCommand(messages: Int) throws {
        let dir = try longRoomVault(count: messages)
        let crashed = try runVault(
            ["chat", "long", "살아남은 메시지"], in: dir.path, environment: ["VAULT_CRASH_AT": "tail-write"])
        #expect(crashed.status == 137, "\(crashed.stderr)")
        let torn = try dir.readText(LongRoomTests.path)
        #expect(!torn.hasSuffix(promptMarker + "\n"), "the crash left half a message")

        let shown = try runVault(["show", "--raw", "long"], in: dir.path)
        expectSuccess(shown)
        let text = try dir.readText(LongRoomTests.path)
        #expect(text.hasSuffix("\n\n살아남은 메시지\n\n" + promptMarker + "\n"), "\(text.suffix(300))")
        #expect(shown.stdout == text)
        try expectCheckClean(dir.path)

        let next = try runVault(["chat", "long", "다음"], in: dir.path)
        expectSuccess(next)
        let final = try dir.readText(LongRoomTests.path)
        #expect(final.contains("\n\n살아남은 메시지\n\n## 🧑 user"))
        #expect(try git(["show", "HEAD:" + LongRoomTests.path], in: dir.path) == final)
        #expect(try git(["status", "--porcelain"], in: dir.path).isEmpty)
        #expect(try git(["fsck", "--strict", "--no-dangling"], in: dir.path).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/.vault/recovered"))
    }
}
