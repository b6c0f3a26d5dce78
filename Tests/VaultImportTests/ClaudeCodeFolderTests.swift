import Foundation
import Testing
import VaultCore
import VaultImport
import VaultTestSupport

/// Real `~/.claude/projects` folders (issue #37): subagents whose session's log is gone or
/// empty, subagents under `<session>/subagents/workflows/<run>/`, files of snapshot lines only,
/// a first line of 900 KB, a line written twice (broken, then whole). Written from the shape
/// public descriptions give: every line of a subagent carries `isSidechain: true`, the parent's
/// `sessionId` and its own `agentId`; Claude Code writes `sessionId` near a line's start,
/// before `message`. Imported into a real vault: every line is imported or named, each text
/// once, a second import changes nothing.
@Suite struct ClaudeCodeFolderTests {
    static let s1 = "11111111-aaaa-4000-8000-000000000001"
    static let s2 = "22222222-bbbb-4000-8000-000000000002"

    /// A line as Claude Code orders its keys (`sessionId` before `message`).
    static func line(
        _ type: String, _ uuid: String, session: String, parent: String? = nil, agent: String? = nil, _ time: String,
        _ message: [String: Any]?
    ) -> String {
        func json(_ value: Any) -> String { jsonText(value) }
        var parts = [
            "\"parentUuid\":\(parent.map(json) ?? "null")", "\"isSidechain\":\(agent != nil)", "\"userType\":\"external\"",
            "\"cwd\":\"/home/me/x\"", "\"sessionId\":\(json(session))", "\"version\":\"2.0.0\"",
        ]
        if let agent { parts.append("\"agentId\":\(json(agent))") }
        parts.append("\"type\":\(json(type))")
        if let message { parts.append("\"message\":\(json(message))") }
        parts += ["\"uuid\":\(json(uuid))", "\"timestamp\":\(json(time))"]
        return "{" + parts.joined(separator: ",") + "}"
    }

    static func prompt(_ uuid: String, _ session: String, agent: String? = nil, _ time: String, _ text: String) -> String {
        line("user", uuid, session: session, agent: agent, time, ["role": "user", "content": text])
    }

    static func reply(_ uuid: String, _ session: String, agent: String? = nil, parent: String, _ time: String, _ text: String)
        -> String
    {
        line(
            "assistant", uuid, session: session, parent: parent, agent: agent, time,
            ["id": "msg_" + uuid, "role": "assistant", "model": "claude-sonnet-4-5", "content": [["type": "text", "text": text]]])
    }

    static let snapshot = #"{"type":"file-history-snapshot","messageId":"m0","snapshot":{"trackedFileBackups":{}},"isSnapshotUpdate":false}"#

    /// A project folder: session 1's subagents (one under `workflows/`) without its log,
    /// session 2's log empty and its subagent's `agent-*.jsonl` beside it, a snapshot-only log.
    func project(in world: HostileWorld) throws -> String {
        let p = "-home-me-x"
        try world.exports.write("\(p)/\(Self.s1)/subagents/agent-a1.jsonl", [
            Self.prompt("k1", Self.s1, agent: "a1", "2026-05-01T10:00:00.000Z", "TOK-K1 find the config"),
            Self.reply("k2", Self.s1, agent: "a1", parent: "k1", "2026-05-01T10:00:01.000Z", "TOK-K2 it is in etc"),
        ].joined(separator: "\n") + "\n")
        try world.exports.write("\(p)/\(Self.s1)/subagents/agent-a1.meta.json", #"{"agentType":"general-purpose","spawnDepth":1}"#)
        try world.exports.write("\(p)/\(Self.s1)/subagents/workflows/run-7/agent-b2.jsonl", [
            Self.prompt("k3", Self.s1, agent: "b2", "2026-05-01T10:01:00.000Z", "TOK-K3 review the change"),
            Self.reply("k4", Self.s1, agent: "b2", parent: "k3", "2026-05-01T10:01:01.000Z", "TOK-K4 looks right"),
        ].joined(separator: "\n") + "\n")
        try world.exports.write("\(p)/\(Self.s2).jsonl", "")
        try world.exports.write("\(p)/agent-c3.jsonl", [
            Self.prompt("k5", Self.s2, agent: "c3", "2026-05-02T09:00:00.000Z", "TOK-K5 list the tests"),
            Self.reply("k6", Self.s2, agent: "c3", parent: "k5", "2026-05-02T09:00:01.000Z", "TOK-K6 there are four"),
        ].joined(separator: "\n") + "\n")
        try world.exports.write("\(p)/33333333-cccc-4000-8000-000000000003.jsonl", Self.snapshot + "\n" + Self.snapshot + "\n")
        return world.exports.path + "/" + p
    }

    @Test func subagentsWithoutTheirSessionAreRoomsAndTheSessionFoundLaterJoinsThem() throws {
        let world = try HostileWorld()
        let folder = try project(in: world)
        let report = try world.expectImported(ClaudeCodeReader(), [folder])
        #expect(report.roomsNew == 3 && report.branches == 3 && report.messagesAdded == 6, "\(report)")
        #expect(report.skippedLines == ["file-history-snapshot": 2])
        #expect(report.summary.contains("2 lines of types vault does not import (file-history-snapshot 2)"), "\(report.summary)")
        // Linked to their session: `fork_of` is the session's id.
        let rooms = try report.paths.filter { $0.hasPrefix("rooms/") }.map { try world.dir.readText($0) }
        #expect(rooms.filter { $0.contains("fork_of: \(Self.s1)") }.count == 2)
        #expect(rooms.filter { $0.contains("fork_of: \(Self.s2)") }.count == 1)
        let tokens = (1...6).map { "TOK-K\($0)" }
        try expectWhole(tokens, world, ClaudeCodeReader(), [folder], first: report)

        // The session's own log turns up (restored from a backup): its transcript is a room, and
        // the subagents' rooms are found as its branches, nothing written twice.
        try world.exports.write("-home-me-x/\(Self.s1).jsonl", [
            #"{"type":"summary","summary":"Config work","leafUuid":"t2"}"#,
            Self.prompt("t1", Self.s1, "2026-05-01T09:59:00.000Z", "TOK-K7 tidy the config"),
            Self.reply("t2", Self.s1, parent: "t1", "2026-05-01T10:02:00.000Z", "TOK-K8 done"),
        ].joined(separator: "\n") + "\n")
        let later = try world.expectImported(ClaudeCodeReader(), [folder])
        #expect(later.roomsNew == 1 && later.roomsUnchanged == 3 && later.messagesAdded == 2, "\(later)")
        for token in tokens + ["TOK-K7", "TOK-K8"] { #expect(try occurrences(token, in: world) == 1, "\(token)") }
    }

    @Test func aLinkUnderSubagentsIsNamedNotPassedOver() throws {
        let world = try HostileWorld()
        let folder = try project(in: world)
        try world.outside.write("elsewhere/agent-z9.jsonl", Self.prompt("z1", Self.s1, agent: "z9", "2026-05-01T10:00:00.000Z", HostileWorld.secret))
        #expect(symlink(world.outside.path + "/elsewhere", folder + "/\(Self.s1)/subagents/workflows/linked") == 0)
        try world.expectRefused(
            ClaudeCodeReader(), [folder],
            "EXPORT/-home-me-x/\(Self.s1)/subagents/workflows/linked: is a symbolic link; vault reads no link or special file in an export, only its regular files")
        let report = try Importing(vault: world.vault).run(ClaudeCodeReader(), paths: [folder], keepGoing: true)
        #expect(report.leftOut.count == 1 && report.roomsNew == 3)
        try world.expectSecretNowhere()
    }

    @Test func aLineWrittenBrokenThenWholeKeepsTheWholeOne() throws {
        let world = try HostileWorld()
        let broken = #"{"parentUuid":null,"isSidechain":false,"sessionId":"\#(Self.s1)","type":"user","uuid":"d1","timestamp":"2026-05-01T10:00:00.000Z"}"#
        try world.exports.write("-home-me-x/\(Self.s1).jsonl", [
            #"{"type":"summary","summary":"Twice","leafUuid":"d2"}"#, broken, "{\"parentUuid\":null,\"sessionId\":\"cut",
            Self.prompt("d1", Self.s1, "2026-05-01T10:00:00.000Z", "TOK-W1 the whole line"),
            Self.reply("d2", Self.s1, parent: "d1", "2026-05-01T10:00:01.000Z", "TOK-W2 answer"),
        ].joined(separator: "\n") + "\n")
        let folder = world.exports.path + "/-home-me-x"
        let report = try Importing(vault: world.vault).run(ClaudeCodeReader(), paths: [folder], keepGoing: true)
        #expect(report.leftOut == ["\(folder)/\(Self.s1).jsonl, at line 3: is not valid JSON"], "\(report.leftOut)")
        #expect(report.roomsNew == 1 && report.messagesAdded == 2)
        #expect(try occurrences("TOK-W1", in: world) == 1)
        #expect(try occurrences("TOK-W2", in: world) == 1)
    }

    /// A subagent's log alone whose `parentUuid`s form a cycle (and no `agentId`): still its
    /// own room, every line once, no endless walk.
    @Test func aSubagentLogWhoseParentsFormACycleIsImportedWhole() throws {
        let world = try HostileWorld()
        try world.exports.write("-home-me-c/agent-x.jsonl", [
            Self.line("user", "c1", session: Self.s2, parent: "c2", agent: nil, "2026-05-03T09:00:00.000Z", ["role": "user", "content": "CTOK-1 start"])
                .replacingOccurrences(of: "\"isSidechain\":false", with: "\"isSidechain\":true"),
            Self.line("assistant", "c2", session: Self.s2, parent: "c1", agent: nil, "2026-05-03T09:00:01.000Z",
                      ["id": "msg_c2", "role": "assistant", "content": [["type": "text", "text": "CTOK-2 loop"]]])
                .replacingOccurrences(of: "\"isSidechain\":false", with: "\"isSidechain\":true"),
        ].joined(separator: "\n") + "\n")
        let folder = world.exports.path + "/-home-me-c"
        let report = try world.expectImported(ClaudeCodeReader(), [folder])
        #expect(report.roomsNew == 1 && report.messagesAdded == 2, "\(report)")
        try expectWhole(["CTOK-1", "CTOK-2"], world, ClaudeCodeReader(), [folder], first: report)
    }

    /// A content block newer than vault, in a prompt and in a reply: kept as its JSON, marked,
    /// counted.
    @Test func aBlockTypeNewerThanVaultIsKeptMarkedAndCounted() throws {
        let world = try HostileWorld()
        try world.exports.write("-home-me-n/\(Self.s1).jsonl", [
            #"{"type":"summary","summary":"New blocks","leafUuid":"n2"}"#,
            Self.line("user", "n1", session: Self.s1, "2026-05-04T09:00:00.000Z",
                      ["role": "user", "content": [["type": "text", "text": "NTOK-1 hi"], ["type": "voice_note", "transcript": "NTOK-2 said"]]]),
            Self.line("assistant", "n2", session: Self.s1, parent: "n1", "2026-05-04T09:00:01.000Z",
                      ["id": "msg_n2", "role": "assistant", "content": [["type": "hologram", "payload": "NTOK-3 shown"]]]),
        ].joined(separator: "\n") + "\n")
        let folder = world.exports.path + "/-home-me-n"
        let report = try world.expectImported(ClaudeCodeReader(), [folder])
        #expect(report.unknownBlocks == ["voice_note": 1, "hologram": 1] && report.messagesAdded == 2, "\(report)")
        let room = try world.dir.readText(try #require(report.paths.first { $0.hasPrefix("rooms/") }))
        #expect(room.contains("Unknown block: voice_note") && room.contains("Unknown block: hologram"))
        try expectWhole(["NTOK-1", "NTOK-2", "NTOK-3"], world, ClaudeCodeReader(), [folder], first: report)
    }

    @Test func aFolderOfSnapshotsOnlySaysWhatItHeld() throws {
        let world = try HostileWorld()
        try world.exports.write("-home-me-y/s.jsonl", Self.snapshot + "\n")
        let before = try world.state()
        let report = try Importing(vault: world.vault).run(ClaudeCodeReader(), paths: [world.exports.path + "/-home-me-y"])
        #expect(report.summary == "1 line of types vault does not import (file-history-snapshot 1)")
        let after = try world.state()
        #expect(!report.committed && after == before)
    }

    @Test func autoDetectReadsPastEmptyAndSnapshotFilesAndLongFirstLines() throws {
        let world = try HostileWorld()
        let p = world.exports.path + "/-home-me-z"
        try world.exports.write("-home-me-z/0-empty.jsonl", "")
        try world.exports.write("-home-me-z/1-snapshots.jsonl", Self.snapshot + "\n" + Self.snapshot + "\n")
        let pasted = String(repeating: "TOK-L1 a long paste ", count: 45_000)  // 900 KB
        try world.exports.write("-home-me-z/2-long.jsonl", Self.prompt("l1", Self.s1, "2026-05-01T10:00:00.000Z", pasted) + "\n")
        #expect(ClaudeCodeReader.recognizes(p + "/2-long.jsonl"))
        #expect(!ClaudeCodeReader.recognizes(p + "/1-snapshots.jsonl"))
        #expect(ClaudeCodeReader.recognizes(p))
        #expect(ImportReaders.detect(p) == .claudeCode)
        #expect(ImportReaders.detect(world.exports.path) == .claudeCode)
    }
}
