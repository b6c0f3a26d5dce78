import Foundation
import Testing
import VaultCore
import VaultTestSupport

/// A message edited differently on two machines is kept in two versions by the sync, and stays
/// visible until the person settles it: `show` marks both (in the vault's language), `check`
/// lists it with its room and lines, and `vault resolve ROOM --keep ID` / `--keep-both` settles
/// it in one commit.
@Suite struct ConflictVersionsTests {
    static let room = "rooms/김치찌개-레시피.md"

    /// Two machines that edited the room's first message differently, synced both ways: the
    /// message's id and the other version's.
    func conflicted() throws -> (SyncWorld, original: String, other: String) {
        let w = try SyncWorld()
        let text = try w.read("laptop", Self.room)
        let parsed = try RoomFile(parsing: Array(text.utf8), path: Self.room)
        let first = try #require(parsed.messages.first)
        let line = try #require(first.body.split(separator: "\n").first)
        try w.write("laptop", Self.room, text.replacingOccurrences(of: String(line), with: "노트북의 수정"))
        try w.write("desktop", Self.room, text.replacingOccurrences(of: String(line), with: "데스크톱의 수정"))
        try w.expectOK(w.vault("laptop", ["sync"]))
        try w.expectOK(w.vault("desktop", ["sync"]))
        try w.expectOK(w.vault("laptop", ["sync"]))
        let merged = try RoomFile(parsing: Array(try w.read("laptop", Self.room).utf8), path: Self.room)
        let pair = try #require(merged.conflicts.first)
        #expect(merged.conflicts.count == 1)
        #expect(pair.original.id == first.id)
        return (w, pair.original.id, pair.other.id)
    }

    @Test func bothVersionsStayVisibleUntilSettled() throws {
        let (w, original, other) = try conflicted()
        let shown = try w.vault("laptop", ["show", "김치찌개-레시피", "--color", "never"])
        #expect(shown.stdout.contains("⚠️ 충돌: 두 기기에서 다르게 고친 메시지, 버전 1/2 (이것만 남기려면 `vault resolve 김치찌개-레시피 --keep \(original)`)"), "\(shown.stdout)")
        #expect(shown.stdout.contains("버전 2/2 (이것만 남기려면 `vault resolve 김치찌개-레시피 --keep \(other)`)"))
        let checked = try w.vault("laptop", ["check"])
        #expect(checked.stdout.contains("\(Self.room):") && checked.stdout.contains("two versions of message \(original)"), "\(checked.stdout)")
        #expect(!checked.stdout.contains("no problems"))
        let status = try w.vault("laptop", ["status"])
        #expect(status.stdout.contains("two versions of a message: \(Self.room) \(original) and \(other)"), "\(status.stdout)")
        let json = try w.vault("laptop", ["status", "--json"])
        #expect(json.stdout.contains("\"unsettled\"") && json.stdout.contains(other), "\(json.stdout)")
        // The MCP server's read marks both versions (the official SDK as the client).
        let mcp = Process()
        mcp.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        mcp.arguments = ["python3", Project.root + "/Tests/Fixtures/mcp_client.py", "conflict", Project.vaultExecutable,
                         w.path("laptop"), "김치찌개-레시피", original, other]
        var env = ProcessInfo.processInfo.environment
        env["VAULT_DIR"] = nil
        env["VAULT_MACHINE"] = "laptop"
        mcp.environment = env
        let read = try run(mcp)
        #expect(read.status == 0, "\(read.stdout)\(read.stderr)")
    }

    @Test(arguments: ["first", "second", "both"])
    func resolvingKeepsWhatThePersonChose(choice: String) throws {
        let (w, original, other) = try conflicted()
        let arguments = choice == "both" ? ["--keep-both"] : ["--keep", choice == "first" ? original : other]
        let r = try w.vault("laptop", ["resolve", "김치찌개-레시피"] + arguments)
        try w.expectOK(r)
        let text = try w.read("laptop", Self.room)
        let room = try RoomFile(parsing: Array(text.utf8), path: Self.room)
        #expect(room.conflicts.isEmpty)
        #expect(!text.contains("conflict="), "\(text.prefix(600))")
        switch choice {
        case "first":
            #expect(text.contains("노트북의 수정") != text.contains("데스크톱의 수정"))
            #expect(room.messages.contains { $0.id == original } && !room.messages.contains { $0.id == other })
        case "second":
            #expect(text.contains("노트북의 수정") != text.contains("데스크톱의 수정"))
            // The kept version has the message's own id back.
            #expect(room.messages.contains { $0.id == original } && !room.messages.contains { $0.id == other })
        default:
            #expect(text.contains("노트북의 수정") && text.contains("데스크톱의 수정"))
            #expect(room.messages.contains { $0.id == original } && room.messages.contains { $0.id == other })
        }
        #expect(try git(["log", "-1", "--format=%s"], in: w.path("laptop")).hasPrefix("resolve: 김치찌개 레시피: kept"))
        let checked = try w.vault("laptop", ["check"])
        #expect(!checked.stdout.contains("two versions"), "\(checked.stdout)")
        try w.expectHealthy("laptop")
        // Settled on one machine, settled on the other after a sync.
        try w.expectOK(w.vault("laptop", ["sync"]))
        try w.expectOK(w.vault("desktop", ["sync"]))
        #expect(try w.read("desktop", Self.room) == text)
    }

    @Test func aVersionThatIsNotThereIsRefusedAndNothingChanges() throws {
        let (w, original, other) = try conflicted()
        let before = try w.files("laptop")
        let log = try git(["log", "--format=%H"], in: w.path("laptop"))
        let wrong = try w.vault("laptop", ["resolve", "김치찌개-레시피", "--keep", "m-NOSUCHMESSAGE"])
        #expect(wrong.status != 0)
        #expect(wrong.stderr.contains("'m-NOSUCHMESSAGE' is no version") && wrong.stderr.contains(original) && wrong.stderr.contains(other), "\(wrong.stderr)")
        let how = try w.vault("laptop", ["resolve", "김치찌개-레시피"])
        #expect(how.status == 64 && how.stderr.contains("--keep ID"), "\(how.status) \(how.stderr)")
        let none = try w.vault("laptop", ["resolve", "부산-여행", "--keep-both"])
        #expect(none.status != 0 && none.stderr.contains("nothing to settle"), "\(none.stderr)")
        #expect(try w.files("laptop") == before)
        #expect(try git(["log", "--format=%H"], in: w.path("laptop")) == log)
    }
}
