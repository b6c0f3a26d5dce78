import Foundation
import Testing
import VaultTestSupport

/// The notes the library returns (`VaultKit`'s reading workflows) reach the person on standard
/// error, printed by the command line, never by the library; the output is the room as read.
@Suite struct SessionNotesTests {
    static let markedRoom = """
        ---
        title: Marked
        created: 2026-09-08T22:40:12+09:00
        ---

        ## 🧑 user · 2026-09-08 22:41 <!-- 2026-09-08T22:41:30+09:00 m-57YHMDWECGV6 -->

        hello
        <<<<<<< HEAD
        ours line
        =======
        theirs line
        >>>>>>> origin/main

        """

    @Test func showPrintsTheConflictWarningItGetsBackAndThisMachinesSide() throws {
        let vault = try freshVault()
        try vault.write("rooms/marked.md", Self.markedRoom)
        let before = try vault.snapshot()
        let show = try runVault(["show", "marked"], in: vault.path)
        #expect(show.status == 0, "\(show.stderr)")
        #expect(
            show.stderr
                == "vault: warning: rooms/marked.md:9: git left conflict markers in this file; showing this machine's"
                + " side only. `vault resolve` merges both sides, losing nothing.\n", "\(show.stderr)")
        #expect(show.stdout.contains("ours line"))
        #expect(!show.stdout.contains("theirs line") && !show.stdout.contains("<<<<<<<"))
        #expect(try vault.snapshot() == before)
    }
}
