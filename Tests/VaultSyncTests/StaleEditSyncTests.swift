import Foundation
import Testing
import VaultCore
import VaultTestSupport

/// Issue #22, item 3: a stale editor buffer must not delete another machine's messages
/// everywhere. The desktop opens a room in `vault edit`; the laptop chats and syncs; the
/// desktop syncs while its editor is open (the laptop's message comes in), and the editor
/// then saves the buffer it was given plus a line.
@Suite struct StaleEditSyncTests {
    @Test func aMessageSyncedInWhileTheEditorWasOpenStaysOnBothMachines() throws {
        let w = try SyncWorld()
        let room = "rooms/김치찌개-레시피.md"
        try w.chat("laptop", room, "노트북에서 보낸 질문")
        try w.expectOK(w.vault("laptop", ["sync"]))
        let laptopIDs = try w.ids("laptop", room)

        // The editor: keeps what it was given, runs a sync as from another terminal, then
        // saves what it was given plus a line.
        let scratch = TemporaryDirectory("stale-editor")
        let script = scratch.path + "/editor.sh"
        try Data(
            """
            #!/bin/sh
            cp "$1" '\(scratch.path)/given'
            vault sync </dev/null >'\(scratch.path)/sync.out' 2>&1 || exit 97
            { cat '\(scratch.path)/given'; printf '데스크톱에서 손으로 쓴 줄\\n'; } > "$1"

            """.utf8
        ).write(to: URL(fileURLWithPath: script))
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script)
        let r = try w.vault("desktop", ["edit", room], environment: ["EDITOR": script, "VISUAL": ""])
        let syncOutput = (try? String(contentsOfFile: scratch.path + "/sync.out", encoding: .utf8)) ?? ""
        try w.expectOK(r)
        #expect(r.stdout.contains("kept 2 messages that arrived while you were editing"), "\(r.stdout) \(syncOutput)")
        #expect(Set(laptopIDs).isSubset(of: Set(try w.ids("desktop", room))), "lost on the desktop: \(r.stdout)")

        try w.expectOK(w.vault("desktop", ["sync"]))
        try w.expectOK(w.vault("laptop", ["sync"]))
        for machine in ["laptop", "desktop"] {
            let text = try w.read(machine, room)
            #expect(text.contains("노트북에서 보낸 질문"), "the laptop's message is gone on \(machine):\n\(text)")
            #expect(text.contains("데스크톱에서 손으로 쓴 줄"), "the desktop's line is gone on \(machine):\n\(text)")
            #expect(Set(laptopIDs).isSubset(of: Set(try w.ids(machine, room))), "ids on \(machine)")
            try w.expectHealthy(machine)
        }
        #expect(try w.files("laptop") == w.files("desktop"))
    }

    /// The same race with any other editor (vim, VS Code, a script): no base is handed over, so
    /// vault finds the version the save was made from in the room's history (`StaleSave`).
    @Test func aStaleSaveByAnyEditorKeepsWhatArrivedAndASecondRemovalIsMeant() throws {
        let w = try SyncWorld()
        let room = "rooms/김치찌개-레시피.md"
        let buffer = try w.read("desktop", room)  // the editor reads the file
        try w.chat("laptop", room, "노트북에서 보낸 질문")
        try w.expectOK(w.vault("laptop", ["sync"]))
        let laptopIDs = try w.ids("laptop", room)
        try w.expectOK(w.vault("desktop", ["sync"]))  // the laptop's turn comes in
        let arrived = Set(laptopIDs)
        #expect(try w.ids("desktop", room) == laptopIDs)
        // The editor saves its buffer plus a line: the two arrived messages are not in it.
        try w.write("desktop", room, buffer + "데스크톱에서 손으로 쓴 줄\n")
        let sync = try w.vault("desktop", ["sync"])
        try w.expectOK(sync)
        #expect(sync.stdout.contains("\(room): kept 2 messages that arrived after it was read"), "\(sync.stdout)")
        for machine in ["desktop", "laptop"] {
            if machine == "laptop" { try w.expectOK(w.vault("laptop", ["sync"])) }
            let text = try w.read(machine, room)
            #expect(Set(try w.ids(machine, room)) == arrived, "ids on \(machine):\n\(text)")
            #expect(text.contains("데스크톱에서 손으로 쓴 줄"), "the desktop's line is gone on \(machine):\n\(text)")
            try w.expectHealthy(machine)
        }
        let subjects = try git(["log", "--format=%s", "--", room], in: w.path("desktop"))
        #expect(subjects.contains("edit: \(room) (kept messages a stale save lacked)"), "\(subjects)")

        // The person meant it: they remove the two messages again, and this time it stays so.
        try w.write("desktop", room, buffer + "데스크톱에서 손으로 쓴 줄\n")
        let again = try w.vault("desktop", ["sync"])
        try w.expectOK(again)
        #expect(!again.stdout.contains("kept"), "\(again.stdout)")
        try w.expectOK(w.vault("laptop", ["sync"]))
        let originalIDs = try RoomFile(parsing: Array(buffer.utf8), path: room).messages.map(\.id)
        for machine in ["desktop", "laptop"] {
            #expect(try w.ids(machine, room) == originalIDs, "on \(machine)")
            try w.expectHealthy(machine)
        }
    }

    /// One machine: a chat turn lands while another editor has the room open; the editor's
    /// older save, committed by the next command, keeps the turn.
    @Test func aChatTurnSurvivesAStaleSaveOnOneMachine() throws {
        let w = try SyncWorld(clones: [])
        let room = "rooms/김치찌개-레시피.md"
        let buffer = try w.read("laptop", room)
        try w.chat("laptop", room, "첫 질문")
        let withTurn = try w.ids("laptop", room)
        try w.write("laptop", room, buffer + "\n손으로 쓴 줄\n")
        let status = try git(["status", "--porcelain"], in: w.path("laptop"))
        #expect(status.contains("M"), "\(status)")
        let r = try w.vault("laptop", ["room", "set", room, "temperature", "0.5"])
        try w.expectOK(r)
        #expect(r.stderr.contains("\(room): kept 2 messages that arrived after it was read"), "\(r.stderr)")
        #expect(try w.ids("laptop", room) == withTurn)
        #expect(try w.read("laptop", room).contains("손으로 쓴 줄"))
        try w.expectHealthy("laptop")
        // A save that has every message is committed as it is, with no note.
        try w.write("laptop", room, try w.read("laptop", room) + "\n또 한 줄\n")
        let plain = try w.vault("laptop", ["room", "set", room, "temperature", "0.6"])
        try w.expectOK(plain)
        #expect(!plain.stderr.contains("kept"), "\(plain.stderr)")
    }
}
