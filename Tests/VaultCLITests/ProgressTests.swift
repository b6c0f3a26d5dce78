import Foundation
import Testing
import VaultCore
import VaultTestSupport

/// Progress on standard error: drawn through a real pseudo-terminal (`ColorAndPagerTests`'
/// driver), never when standard error is a pipe. `VAULT_PROGRESS_DELAY=0` draws from the start.
@Suite struct ProgressTests {
    let terminal = ColorAndPagerTests()

    func vaultWithDiary(entries: Int) throws -> TemporaryDirectory {
        let vault = try freshVault()
        for n in 1...entries {
            let day = String(format: "2026-11-%02d", n)
            try vault.write("diary/2026/\(day).md", "---\ncreated: \(day)T09:00:00+09:00\n---\n\nDay \(n) in 부산\n")
        }
        return vault
    }

    @Test func exportShowsProgressOnATerminalAndNoneIntoAPipe() throws {
        let vault = try vaultWithDiary(entries: 3)
        let now = ["VAULT_PROGRESS_DELAY": "0"]
        let drawn = try terminal.onTerminal(["export", "--diary", "-o", "out.md"], in: vault, environment: now)
        #expect(drawn.status == 0, "\(drawn.output)")
        #expect(drawn.output.contains("\rreading 1/3 entries"), "\(drawn.output.debugDescription)")
        #expect(drawn.output.contains("\rexporting 1/3 items"), "\(drawn.output.debugDescription)")
        // Cleared at the end: the last thing written is the line blanked.
        let cleared = "\r" + String(repeating: " ", count: 19) + "\r"
        #expect(drawn.output.hasSuffix(cleared), "\(drawn.output.debugDescription)")
        let file = try vault.readText("out.md")
        // Standard error a pipe: nothing of it, and standard output exactly the file's bytes.
        let piped = try runVault(["export", "--diary"], in: vault.path, environment: now)
        #expect(piped.status == 0 && piped.stderr == "", "\(piped.stderr.debugDescription)")
        #expect(piped.stdout == file)
    }

    @Test func aQuickCommandShowsNoProgressOnATerminal() throws {
        let vault = try vaultWithDiary(entries: 2)
        let r = try terminal.onTerminal(["export", "--diary", "-o", "out.md"], in: vault)
        #expect(r.status == 0 && r.output == "", "\(r.output.debugDescription)")
    }

    @Test func indexBuildShowsProgressOnATerminalAndNoneIntoAPipe() throws {
        let vault = try vaultWithDiary(entries: 5)
        let now = ["VAULT_PROGRESS_DELAY": "0", "VAULT_PAGER": "cat"]
        let drawn = try terminal.onTerminal(
            ["search", "--index", "부산", "--files-with-matches", "--color", "never"], in: vault, environment: now)
        #expect(drawn.status == 0, "\(drawn.output)")
        #expect(drawn.output.contains("\rindexing "), "\(drawn.output.debugDescription)")
        #expect(drawn.output.contains("/5 files"), "\(drawn.output.debugDescription)")
        // A second vault, its index not built: piped, no progress; output as without the index.
        let other = try vaultWithDiary(entries: 5)
        let scanned = try runVault(["search", "--no-index", "부산", "--files-with-matches"], in: other.path)
        let piped = try runVault(
            ["search", "--index", "부산", "--files-with-matches"], in: other.path, environment: now)
        #expect(piped.status == 0 && piped.stdout == scanned.stdout, "\(piped.stdout)")
        #expect(!piped.stderr.contains("\r") && !piped.stderr.contains("indexing"), "\(piped.stderr)")
        #expect(piped.stderr.hasPrefix("vault: search index: 5 files read"), "\(piped.stderr)")
    }
}
