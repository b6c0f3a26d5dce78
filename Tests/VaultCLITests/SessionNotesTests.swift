import Foundation
import Testing
import VaultTestSupport

/// The notes the library returns (`VaultKit`'s reading workflows) reach the person on standard
/// error, printed by the command line, never by the library; the output is the room as read.
@Suite struct SessionNotesTests {
    @Test func showPrintsTheConflictWarningItGetsBackAndThisMachinesSide() throws {
        let vault = try freshVault()
        try vault.write("rooms/marked.md", Fixtures.roomWithConflictMarkers(title: "Marked"))
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
