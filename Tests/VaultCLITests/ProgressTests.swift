import Foundation
import Testing
@testable import VaultCLI
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

    /// A transfer's line: the count, the bytes and the rate in binary units, as git counts them.
    @Test func aTransferLineShowsItsBytesAndRate() {
        let event = ProgressEvent("receiving", done: 4512, of: 10240, unit: "objects", bytes: 13_002_342)
        #expect(
            ProgressLine.text(event, bytesPerSecond: 3_250_585)
                == "receiving 4,512/10,240 objects, 12.4 MiB, 3.1 MiB/s")
        #expect(ProgressLine.text(event) == "receiving 4,512/10,240 objects, 12.4 MiB")
        #expect(ProgressLine.text(ProgressEvent("resolving", done: 3, of: 7, unit: "deltas")) == "resolving 3/7 deltas")
        #expect(ProgressLine.size(1) == "1 byte" && ProgressLine.size(812) == "812 bytes")
        #expect(ProgressLine.size(421_499) == "411.6 KiB" && ProgressLine.size(3 << 30) == "3.0 GiB")
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
        try git(["init", "--quiet", "--bare", remote.path + "/r.git"], in: remote.path)
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
        try git(["init", "--quiet", "--bare", bare], in: remote.path)
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

    /// Runs argv[2:] with a new pseudo-terminal as its controlling terminal (ssh asks for a
    /// passphrase on `/dev/tty`), answers argv[1] to each "passphrase for key" it shows, prints
    /// all it wrote there and exits with its status.
    static let answeringDriver = """
        import os, sys, fcntl, termios, subprocess, signal
        signal.alarm(60)
        answer = sys.argv[1].encode() + b"\\n"
        master, slave = os.openpty()
        def own_terminal():
            os.setsid()
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)
        child = subprocess.Popen(sys.argv[2:], stdin=slave, stdout=slave, stderr=slave, preexec_fn=own_terminal)
        os.close(slave)
        out, answered = b"", 0
        while True:
            try:
                piece = os.read(master, 65536)
            except OSError:
                break
            if not piece:
                break
            out += piece
            while out.count(b"passphrase for key") > answered:
                answered += 1
                os.write(master, answer)
        sys.stdout.buffer.write(out)
        sys.exit(child.wait())
        """

    /// On a terminal, ssh still asks for a key's passphrase, once for the fetch and once for the
    /// push, and each question starts on a clean line: the fetch's progress is cleared before
    /// the push connects. The sync goes through with both transfers drawn.
    @Test func sshAsksForThePassphraseOnACleanLineBetweenTransfers() throws {
        let peer = try SSHPeer()
        let remote = TemporaryDirectory("vault-progress-remote")
        let bare = remote.path + "/r.git"
        try makeBareRepository(at: bare)
        // A key with a passphrase, allowed on the server, and an ssh config that offers only it.
        let key = remote.path + "/locked_ed25519"
        let passphrase = "open sesame 열려라"
        let keygen = Process()
        keygen.executableURL = URL(fileURLWithPath: "/usr/bin/ssh-keygen")
        keygen.arguments = ["-q", "-t", "ed25519", "-N", passphrase, "-C", "locked", "-f", key]
        let made = try run(keygen)
        #expect(made.status == 0, "\(made.stderr)")
        let authorized = peer.serverDirectory + "/authorized_keys"
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: authorized))
        handle.seekToEndOfFile()
        handle.write(try Data(contentsOf: URL(fileURLWithPath: key + ".pub")))
        try handle.close()
        let config = remote.path + "/ssh_config"
        try """
            Host 127.0.0.1
                Port \(peer.port)
                User root
                IdentityFile \(key)
                IdentitiesOnly yes
                IdentityAgent none
                UserKnownHostsFile \(peer.knownHostsPath)
                GlobalKnownHostsFile /dev/null
                StrictHostKeyChecking yes
                PasswordAuthentication no
                KbdInteractiveAuthentication no

            """.write(toFile: config, atomically: true, encoding: .utf8)
        let home = TemporaryDirectory("vault-progress-home")
        let locked = [
            "HOME": home.path, "GIT_SSH_COMMAND": "ssh -F \(config)", "SSH_AUTH_SOCK": "", "GIT_CONFIG_NOSYSTEM": "1",
            "VAULT_PROGRESS_DELAY": "0",
        ]
        // The other machine, and the piped runs, use the peer's key without a passphrase.
        let open = peer.environment().merging(["GIT_CONFIG_NOSYSTEM": "1"]) { $1 }
        let url = peer.sshURL(bare)
        let laptop = try vaultWithDiary(entries: 3)
        expectSuccess(try runVault(["remote", "add", "origin", url], in: laptop.path))
        expectSuccess(try runVault(["sync"], in: laptop.path, environment: open))
        let scratch = TemporaryDirectory("vault-progress-scratch")
        expectSuccess(try runVault(["clone", url, "desktop"], in: scratch.path, environment: open))
        let desktop = scratch.path + "/desktop"
        try addFiles(laptop.path, named: "laptop", count: 150, seed: 8)
        expectSuccess(try runVault(["sync"], in: laptop.path, environment: open))
        try addFiles(desktop, named: "desktop", count: 5, seed: 9)

        let script = scratch.path + "/.answering-driver.py"
        try Self.answeringDriver.write(toFile: script, atomically: true, encoding: .utf8)
        let process = vaultProcess(["sync"], in: desktop, environment: locked)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, passphrase, Project.vaultExecutable, "sync"]
        let r = try run(process)
        let output = r.stdout.replacingOccurrences(of: "\r\n", with: "\n")
        #expect(r.status == 0, "\(output.debugDescription)")
        let prompts = output.components(separatedBy: "Enter passphrase for key").dropLast()
        #expect(prompts.count == 2, "\(output.debugDescription)")
        // Before each question: nothing yet, a line end, or a progress line cleared (only spaces).
        for before in prompts {
            var text = Substring(before)
            while text.hasSuffix("\r") { text = text.dropLast() }
            let line = text.split(separator: "\r", omittingEmptySubsequences: false).last ?? ""
            #expect(
                text.isEmpty || text.hasSuffix("\n") || (!line.isEmpty && line.allSatisfy { $0 == " " }),
                "a question over a progress line: \(String(before.suffix(120)).debugDescription)")
        }
        let drawn = pieces(output)
        #expect(drawn.contains { $0.hasPrefix("receiving ") }, "\(output.debugDescription)")
        #expect(drawn.contains { $0.hasPrefix("sending ") }, "\(output.debugDescription)")
        #expect(try git(["rev-parse", "HEAD"], in: bare) == git(["rev-parse", "HEAD"], in: desktop))
    }
}
