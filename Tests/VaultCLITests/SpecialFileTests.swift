import Foundation
import Testing
import VaultTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Files that are not files, and vault's own state reached through a link: a FIFO or a device
/// where a room is, `.vault` or `.git` made a symbolic link. Every command ends at once with a
/// one-line message (never waits on a FIFO, never reads a device without end), `vault check`
/// lists them, and nothing in the vault or outside it changes.
@Suite struct SpecialFileTests {
    static let commands: [[String]] = [
        ["show", "rooms/special.md"], ["show", "rooms/special.md", "--raw"], ["export", "rooms/special.md"],
        ["chat", "rooms/special.md", "hello", "--provider", "offline"], ["retry", "rooms/special.md"],
        ["room", "set", "rooms/special.md", "model", "x"], ["edit", "rooms/special.md"],
    ]

    @Test(arguments: ["FIFO", "character device"])
    func everyCommandRefusesASpecialFileAtOnce(kind: String) throws {
        let dir = try Project.copyOfSampleVault()
        #expect(try runVault(["init", "."], in: dir.path).status == 0)
        let before = try git(["rev-parse", "HEAD"], in: dir.path)
        let files = try dir.snapshot().filter { !$0.key.hasPrefix(".git/") }
        let special = dir.path + "/rooms/special.md"
        // 1, 8: /dev/random's numbers.
        #expect((kind == "FIFO" ? mkfifo(special, 0o644) : mknod(special, S_IFCHR | 0o644, dev_t(1 << 8 | 8))) == 0)
        for arguments in SpecialFileTests.commands {
            let command = arguments.joined(separator: " ")
            let started = Date()
            let r = try runVault(arguments, in: dir.path, environment: ["EDITOR": "true", "VISUAL": "true"])
            #expect(r.status == 1, "vault \(command): \(r.stderr)")
            #expect(
                r.stderr.contains("rooms/special.md: not a regular file (a \(kind))"), "vault \(command): \(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1, "vault \(command): \(r.stderr)")
            #expect(Date().timeIntervalSince(started) < 30, "vault \(command) waited")
        }
        let check = try runVault(["check"], in: dir.path)
        #expect(check.status == 1)
        #expect((check.stdout + check.stderr).contains("rooms/special.md:1: not a regular file (a \(kind))"))
        #expect(try git(["rev-parse", "HEAD"], in: dir.path) == before)
        #expect(unlink(special) == 0)
        #expect(try dir.snapshot().filter { !$0.key.hasPrefix(".git/") } == files)
        // Listings and search go past it.
        #expect(try runVault(["rooms"], in: dir.path).status == 0)
        #expect(try runVault(["search", "부산", "-l"], in: dir.path).status == 0)
    }

    @Test(arguments: [".vault", ".git"])
    func aLinkInPlaceOfVaultsOwnStateIsRefused(name: String) throws {
        let dir = try Project.copyOfSampleVault()
        #expect(try runVault(["init", "."], in: dir.path).status == 0)
        let outside = TemporaryDirectory("vault-redirect")
        let full = dir.path + "/" + name
        if name == ".git" {
            try FileManager.default.moveItem(atPath: full, toPath: outside.path + "/git")
            #expect(symlink(outside.path + "/git", full) == 0)
        } else {
            try? FileManager.default.removeItem(atPath: full)
            #expect(symlink(outside.path, full) == 0)
        }
        let outsideBefore = try outside.snapshot()
        let roomBefore = try dir.readText("rooms/부산-여행.md")
        for arguments in [["chat", "부산", "안녕", "--provider", "offline"], ["status"], ["write", "x", "--body", "y"]] {
            let command = arguments.joined(separator: " ")
            let r = try runVault(arguments, in: dir.path)
            #expect(r.status == 1, "vault \(command): \(r.stdout)\(r.stderr)")
            #expect(r.stderr.contains("\(name) is a symbolic link"), "vault \(command): \(r.stderr)")
            #expect(r.stderr.contains("never follows a link"), "vault \(command): \(r.stderr)")
        }
        #expect(try outside.snapshot() == outsideBefore)
        #expect(try dir.readText("rooms/부산-여행.md") == roomBefore)
    }
}
