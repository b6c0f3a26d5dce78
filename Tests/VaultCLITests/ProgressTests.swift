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

    /// Writes `count` attachments of some KiB of text each into `vault` (committed by the next
    /// sync as hand edits): objects enough for git to show each step of a transfer.
    func addFiles(_ vault: String, named name: String, count: Int, seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        try FileManager.default.createDirectory(atPath: vault + "/attachments", withIntermediateDirectories: true)
        for k in 0..<count {
            let words = (0..<400).map { _ in String(random.next() % 100_000, radix: 36) }
            try (words.joined(separator: " ") + "\n").write(
                toFile: vault + "/attachments/\(name)-\(k).txt", atomically: true, encoding: .utf8)
        }
    }

    /// The pieces of what a terminal showed, as `\r` and `\n` cut it.
    func pieces(_ output: String) -> [Substring] {
        output.split(whereSeparator: { $0 == "\r" || $0 == "\n" })
    }

    /// `vault sync` and `vault clone` draw their transfers' steps (`sending`, `receiving` …
    /// objects) on a terminal, clear the line before the report, and never pass git's own text
    /// through; into a pipe they write nothing on standard error. Each run on the terminal goes
    /// from a scratch folder (`--vault`, a path to clone into) so the driver script stays out
    /// of the vaults.
    @Test func syncAndCloneShowTransferProgressOnATerminalAndNoneIntoAPipe() throws {
        let vault = try vaultWithDiary(entries: 3)
        let remote = TemporaryDirectory("vault-progress-remote")
        try git(["init", "--quiet", "--bare", "-b", "main", remote.path + "/r.git"], in: remote.path)
        let url = "file://" + remote.path + "/r.git"
        expectSuccess(try runVault(["remote", "add", "origin", url], in: vault.path))
        try addFiles(vault.path, named: "first", count: 150, seed: 5)
        let scratch = TemporaryDirectory("vault-progress-scratch")
        let now = ["VAULT_PROGRESS_DELAY": "0"]

        let pushed = try terminal.onTerminal(["sync", "--vault", vault.path], in: scratch, environment: now)
        #expect(pushed.status == 0, "\(pushed.output)")
        let drawn = pieces(pushed.output)
        #expect(drawn.contains { $0.hasPrefix("sending ") && $0.contains("objects") }, "\(drawn)")
        // The report comes after the line was cleared, on a line of its own; git's words never show.
        #expect(pushed.output.contains(" \rSynced with origin"), "\(pushed.output.debugDescription)")
        #expect(drawn.contains { $0.hasPrefix("Synced with origin") }, "\(drawn)")
        #expect(!pushed.output.contains("Writing objects") && !pushed.output.contains("remote:"), "\(drawn)")

        let cloned = try terminal.onTerminal(["clone", url, "b"], in: scratch, environment: now)
        #expect(cloned.status == 0, "\(cloned.output)")
        let received = pieces(cloned.output)
        #expect(received.contains { $0.hasPrefix("receiving ") && $0.contains("objects") }, "\(received)")
        #expect(received.contains { $0.hasPrefix("Cloned \(url) into ") }, "\(received)")
        #expect(!cloned.output.contains("Receiving objects"), "\(received)")

        // Into a pipe: a clone, a push, and a fetch of as many objects, with nothing on standard error.
        let quietClone = try runVault(["clone", url, "c"], in: scratch.path, environment: now)
        #expect(quietClone.status == 0 && quietClone.stderr == "", "\(quietClone.stderr.debugDescription)")
        #expect(quietClone.stdout.hasPrefix("Cloned \(url) into "), "\(quietClone.stdout)")
        try addFiles(vault.path, named: "second", count: 150, seed: 6)
        let quietPush = try runVault(["sync"], in: vault.path, environment: now)
        #expect(quietPush.status == 0 && quietPush.stderr == "", "\(quietPush.stderr.debugDescription)")
        let quietFetch = try runVault(["sync"], in: scratch.path + "/c", environment: now)
        #expect(quietFetch.status == 0 && quietFetch.stderr == "", "\(quietFetch.stderr.debugDescription)")
        #expect(quietFetch.stdout.contains("Synced with origin"), "\(quietFetch.stdout)")

        // The same fetch on a terminal shows what it receives.
        let fetched = try terminal.onTerminal(
            ["sync", "--vault", scratch.path + "/b"], in: scratch, environment: now)
        #expect(fetched.status == 0, "\(fetched.output)")
        #expect(pieces(fetched.output).contains { $0.hasPrefix("receiving ") }, "\(fetched.output.debugDescription)")
        #expect(
            try git(["rev-parse", "HEAD"], in: scratch.path + "/b") == git(["rev-parse", "HEAD"], in: vault.path))
    }

    /// A remote that refuses the push (its pre-receive hook) after the progress was drawn: the
    /// line is cleared and the error is the same one line as without a terminal.
    @Test func aRefusedPushKeepsItsMessageWithProgressOn() throws {
        let vault = try vaultWithDiary(entries: 3)
        let remote = TemporaryDirectory("vault-progress-remote")
        let bare = remote.path + "/r.git"
        try git(["init", "--quiet", "--bare", "-b", "main", bare], in: remote.path)
        try "#!/bin/sh\necho 'pushes are closed today' >&2\nexit 1\n".write(
            toFile: bare + "/hooks/pre-receive", atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: bare + "/hooks/pre-receive")
        expectSuccess(try runVault(["remote", "add", "origin", "file://" + bare], in: vault.path))
        try addFiles(vault.path, named: "refused", count: 150, seed: 7)
        let scratch = TemporaryDirectory("vault-progress-scratch")
        let now = ["VAULT_PROGRESS_DELAY": "0"]

        let piped = try runVault(["sync"], in: vault.path, environment: now)
        #expect(piped.status == 1, "\(piped.stderr)")
        let message = piped.stderr.trimmingCharacters(in: .newlines)
        #expect(message.hasPrefix("vault: error: origin refused the push"), "\(message)")
        #expect(!message.contains("\r") && !message.contains("\n"), "\(message.debugDescription)")

        let shown = try terminal.onTerminal(["sync", "--vault", vault.path], in: scratch, environment: now)
        #expect(shown.status == 1, "\(shown.output)")
        let drawn = pieces(shown.output)
        #expect(drawn.contains { $0.hasPrefix("sending ") }, "\(drawn)")
        #expect(drawn.contains { $0 == message }, "\(shown.output.debugDescription)")
        #expect(shown.output.contains(" \r" + message), "\(shown.output.debugDescription)")
        #expect(!shown.output.contains("pushes are closed") && !shown.output.contains("remote:"), "\(drawn)")
    }
}
