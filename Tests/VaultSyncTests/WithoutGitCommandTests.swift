import Foundation
import Testing
import VaultCore
import VaultTestSupport

/// A machine without the `git` command: sync and clone go through libgit2 for remotes on the
/// same machine (a path, `file://`), and say what to install for the others.
@Suite struct WithoutGitCommandTests {
    let room = "rooms/독서-모임-발제문.md"
    /// A PATH with nothing on it: neither `git` nor anything else.
    let noGit = ["PATH": "/nonexistent"]

    @Test func cloneAndSyncThroughLibgit2() throws {
        let w = try SyncWorld()
        let usb = "file://" + w.remote
        let laptop = w.folder.path + "/laptop-nogit"
        try w.expectOK(w.vault("x", ["clone", usb, laptop], in: w.folder.path, environment: noGit))
        #expect(FileManager.default.fileExists(atPath: laptop + "/vault.yml"))
        try w.chat("desktop", room, "데스크톱에서")
        try w.expectOK(w.vault("desktop", ["sync"]))
        try w.expectOK(
            runVault(["chat", room, "git 없는 노트북에서", "--provider", "offline"], in: laptop, environment: noGit))
        let dry = try runVault(["sync", "--dry-run"], in: laptop, environment: noGit)
        try w.expectOK(dry)
        #expect(dry.stdout.contains("would come in: 1 commit"), "\(dry.stdout)")
        #expect(try git(["for-each-ref", "refs/vault"], in: laptop) == "")
        let r = try runVault(["sync"], in: laptop, environment: noGit)
        try w.expectOK(r)
        #expect(
            r.stdout.contains("2 new messages in 1 room") && r.stdout.contains("your changes were sent"), "\(r.stdout)")
        #expect(try git(["rev-parse", "main"], in: w.remote) == git(["rev-parse", "HEAD"], in: laptop))
        #expect(try git(["config", "branch.main.remote"], in: laptop) == "origin\n")
        try w.expectOK(w.vault("desktop", ["sync"]))
        let text = try String(contentsOfFile: w.path("desktop") + "/" + room, encoding: .utf8)
        #expect(text.contains("git 없는 노트북에서") && text.contains("데스크톱에서"))
        _ = try git(["fsck", "--strict", "--no-progress"], in: laptop)
        #expect(try git(["status", "--porcelain"], in: laptop) == "")
    }

    @Test func networkRemotesNeedTheGitCommand() throws {
        let w = try SyncWorld(clones: [])
        try w.expectOK(w.vault("laptop", ["remote", "add", "server", "me@example.invalid:vault.git"]))
        let head = try git(["rev-parse", "HEAD"], in: w.path("laptop"))
        let r = try runVault(["sync", "server"], in: w.path("laptop"), environment: noGit)
        #expect(r.status == 1)
        #expect(r.stderr.contains("needs the `git` command"), "\(r.stderr)")
        #expect(try git(["rev-parse", "HEAD"], in: w.path("laptop")) == head)
        let c = try runVault(
            ["clone", "https://example.invalid/v.git", w.folder.path + "/c"], in: w.folder.path, environment: noGit)
        #expect(c.status == 1 && c.stderr.contains("needs the `git` command"), "\(c.stderr)")
        #expect(!FileManager.default.fileExists(atPath: w.folder.path + "/c"))
    }
}
