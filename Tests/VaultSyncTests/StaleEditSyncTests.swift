import Foundation
import Testing
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
}
