import Foundation
import Testing
import VaultTestSupport

/// vault refuses to commit where it should not, says why, and changes nothing.
@Suite struct RepositorySafetyTests {
    // MARK: A vault inside another repository

    @Test func vaultInsideAnotherRepositoryIsRefusedUntilItHasItsOwn() throws {
        let outer = TemporaryDirectory("vault-outer")
        try gitCLI(["init", "-q", "-b", "main"], in: outer.path)
        try outer.write("README.txt", "the outer project\n")
        try gitCLI(["add", "README.txt"], in: outer.path)
        try gitCLI(["commit", "-q", "-m", "outer: first"], in: outer.path)
        let sample = try Project.copyOfSampleVault()
        let vaultDir = outer.path + "/notes/vault"
        try FileManager.default.createDirectory(atPath: outer.path + "/notes", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: sample.path, toPath: vaultDir)
        let vault = outer.path + "/notes/vault"

        let outerLog = try git(["log", "--format=%H %s"], in: outer.path)
        let outerStatus = try git(["status", "--porcelain"], in: outer.path)
        let outerGitDir = try fullSnapshot(outer.path + "/.git")
        let vaultFiles = try snapshotExcludingState(vault)

        let attempts: [[String]] = [
            ["chat", offlineRoom, "hello"],
            ["room", "new", "New room"],
            ["rm", offlineRoom, "--yes"],
        ]
        for args in attempts {
            let r = try runVault(args, in: vault)
            expectFailure(r, [outer.path, "never commits there", "vault init"])
            #expect(!FileManager.default.fileExists(atPath: vault + "/.git"), "\(args) made a repository in the vault")
            expectSameFiles(vaultFiles, try snapshotExcludingState(vault))
            #expect(try git(["log", "--format=%H %s"], in: outer.path) == outerLog)
            #expect(try git(["status", "--porcelain"], in: outer.path) == outerStatus)
            expectSameFiles(outerGitDir, try fullSnapshot(outer.path + "/.git"))
        }

        // What the message suggests: `vault init` on the vault gives it its own repository.
        let initResult = try runVault(["init", "notes/vault"], in: outer.path)
        expectSucceeded(initResult)
        #expect(FileManager.default.fileExists(atPath: vault + "/.git"), "vault init made no repository in the vault")
        let chat = try runVault(["chat", offlineRoom, "hello"], in: vault)
        expectSucceeded(chat)
        if FileManager.default.fileExists(atPath: vault + "/.git") {
            #expect(try subjects(vault).first == "chat: \(offlineRoomTitle) (+2 messages)")
            #expect(try git(["rev-parse", "--show-toplevel"], in: vault).trimmingCharacters(in: .newlines) == vault)
            try expectRepositoryClean(vault)
        }
        // The outer repository got no commit.
        #expect(try git(["log", "--format=%H %s"], in: outer.path) == outerLog)
        #expect(try commitCount(outer.path) == 1)
    }

    @Test func initOfANewFolderInsideAnotherRepositoryGivesItItsOwn() throws {
        let outer = TemporaryDirectory("vault-outer")
        try gitCLI(["init", "-q", "-b", "main"], in: outer.path)
        try outer.write("README.txt", "the outer project\n")
        try gitCLI(["add", "README.txt"], in: outer.path)
        try gitCLI(["commit", "-q", "-m", "outer: first"], in: outer.path)
        let outerLog = try git(["log", "--format=%H %s"], in: outer.path)
        let outerIndex = try outer.read(".git/index")

        let r = try runVault(["init", "journal", "--locale", "en_US", "--time-zone", "UTC"], in: outer.path)
        expectSucceeded(r)
        let vault = outer.path + "/journal"
        #expect(try git(["rev-parse", "--show-toplevel"], in: vault) == vault + "\n")
        #expect(try subjects(vault) == ["init: vault"])
        expectSucceeded(try runVault(["room", "new", "Trip"], in: vault))
        #expect(try subjects(vault) == ["room: new Trip", "init: vault"])
        try expectRepositoryClean(vault)
        #expect(try git(["log", "--format=%H %s"], in: outer.path) == outerLog)
        #expect(try outer.read(".git/index") == outerIndex, "the outer repository's index changed")
    }

    /// `vault init` says that the vault gets a repository of its own inside another one,
    /// whether the folder exists already or is made by init.
    @Test(arguments: [true, false]) func initNamesTheOuterRepository(folderExists: Bool) throws {
        let outer = TemporaryDirectory("vault-outer")
        try gitCLI(["init", "-q", "-b", "main"], in: outer.path)
        if folderExists {
            try FileManager.default.createDirectory(atPath: outer.path + "/journal", withIntermediateDirectories: true)
        }
        let r = try runVault(["init", "journal", "--locale", "en_US", "--time-zone", "UTC"], in: outer.path)
        expectSucceeded(r)
        #expect(
            r.stderr.contains("inside the git repository \(outer.path)"),
            "init does not mention the outer repository: \(r.stderr)")
        #expect(try git(["rev-parse", "--show-toplevel"], in: outer.path + "/journal") == outer.path + "/journal\n")
    }

    // MARK: Locks left by git

    @Test func aLeftoverIndexLockStopsTheChatUntilUnlocked() throws {
        let dir = try sampleVaultWithHistory()
        let lock = dir.path + "/.git/index.lock"
        try dir.write(".git/index.lock", "")
        let before = try fullSnapshot(dir.path)
        let commits = try commitCount(dir.path)

        let refused = try runVault(["chat", offlineRoom, "hello"], in: dir.path)
        expectFailure(refused, ["index.lock", "vault unlock"])
        expectSameFiles(before, try fullSnapshot(dir.path))
        #expect(try commitCount(dir.path) == commits)

        // A fresh lock may belong to a running git: plain unlock keeps it and fails.
        let plain = try runVault(["unlock"], in: dir.path)
        #expect(plain.status != 0, "vault unlock removed or accepted a fresh lock: \(plain.stdout)")
        #expect(plain.stderr.contains("index.lock"), "unlock does not name the lock it kept: \(plain.stderr)")
        #expect(FileManager.default.fileExists(atPath: lock), "vault unlock removed a fresh lock")

        let forced = try runVault(["unlock", "--force"], in: dir.path)
        expectSucceeded(forced)
        #expect(
            forced.stdout.contains("removed \(lock)"), "unlock --force does not say what it removed: \(forced.stdout)")
        #expect(!FileManager.default.fileExists(atPath: lock))

        let chat = try runVault(["chat", offlineRoom, "hello"], in: dir.path)
        expectSucceeded(chat)
        #expect(try commitCount(dir.path) == commits + 1)
        #expect(try subjects(dir.path).first == "chat: \(offlineRoomTitle) (+2 messages)")
        try expectRepositoryClean(dir.path)
    }

    @Test func unlockRemovesOnlyLocksOlderThanAMinute() throws {
        let dir = try sampleVaultWithHistory()
        let branch = try git(["symbolic-ref", "HEAD"], in: dir.path).trimmingCharacters(in: .whitespacesAndNewlines)
        let index = dir.path + "/.git/index.lock"
        let ref = dir.path + "/.git/" + branch + ".lock"
        try dir.write(".git/index.lock", "")
        try dir.write(".git/" + branch + ".lock", "")
        try age(index, by: 120)

        // A branch lock blocks vault's commit too.
        let before = try fullSnapshot(dir.path)
        let refused = try runVault(["chat", offlineRoom, "hello"], in: dir.path)
        expectFailure(refused, ["lock", "vault unlock"])
        expectSameFiles(before, try fullSnapshot(dir.path))

        let r = try runVault(["unlock"], in: dir.path)
        #expect(r.stdout.contains("removed \(index)"), "the old lock was not removed: \(r.stdout) \(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: index))
        #expect(FileManager.default.fileExists(atPath: ref), "a fresh lock was removed without --force")
        #expect(r.status != 0, "a lock was kept, yet unlock succeeded")

        try age(ref, by: 61)
        let again = try runVault(["unlock"], in: dir.path)
        expectSucceeded(again)
        #expect(!FileManager.default.fileExists(atPath: ref))

        let none = try runVault(["unlock"], in: dir.path)
        expectSucceeded(none)
        #expect(none.stdout.contains("No lock files"))

        expectSucceeded(try runVault(["chat", offlineRoom, "hello"], in: dir.path))
        try expectRepositoryClean(dir.path)
    }

    // MARK: Git operations in progress

    /// Two branches that change the same line of `rooms/부산-여행.md`; returns the other branch's name.
    private func conflictingBranches(in dir: TemporaryDirectory) throws -> String {
        let path = "rooms/부산-여행.md"
        let main = try git(["symbolic-ref", "--short", "HEAD"], in: dir.path).trimmingCharacters(
            in: .whitespacesAndNewlines)
        try gitCLI(["switch", "-q", "-c", "side"], in: dir.path)
        try append("written on the side branch\n", to: path, in: dir)
        try gitCLI(["commit", "-q", "-am", "side: edit"], in: dir.path)
        try gitCLI(["switch", "-q", main], in: dir.path)
        try append("written on the main branch\n", to: path, in: dir)
        try gitCLI(["commit", "-q", "-am", "main: edit"], in: dir.path)
        return "side"
    }

    @Test func aMergeInProgressIsRefused() throws {
        let dir = try sampleVaultWithHistory()
        let side = try conflictingBranches(in: dir)
        let merge = try gitRun(["merge", side], in: dir.path)
        try #require(merge.status != 0, "the merge did not conflict: \(merge.stdout)")
        try #require(FileManager.default.fileExists(atPath: dir.path + "/.git/MERGE_HEAD"))
        let head = try git(["rev-parse", "HEAD"], in: dir.path)
        let before = try fullSnapshot(dir.path)

        let r = try runVault(["chat", offlineRoom, "hello"], in: dir.path)
        expectFailure(r, ["merge"])
        #expect(r.stderr.contains("in the middle of"), "the message does not say a merge is in progress: \(r.stderr)")
        expectSameFiles(before, try fullSnapshot(dir.path))
        #expect(try git(["rev-parse", "HEAD"], in: dir.path) == head)
        #expect(FileManager.default.fileExists(atPath: dir.path + "/.git/MERGE_HEAD"))

        let room = try runVault(["room", "new", "During the merge"], in: dir.path)
        expectFailure(room, ["merge"])
        expectSameFiles(before, try fullSnapshot(dir.path))

        // Once the merge is given up, vault commits again.
        try gitCLI(["merge", "--abort"], in: dir.path)
        expectSucceeded(try runVault(["chat", offlineRoom, "hello"], in: dir.path))
        try expectRepositoryClean(dir.path)
    }

    @Test func aRebaseInProgressIsRefused() throws {
        let dir = try sampleVaultWithHistory()
        let main = try git(["symbolic-ref", "--short", "HEAD"], in: dir.path).trimmingCharacters(
            in: .whitespacesAndNewlines)
        let side = try conflictingBranches(in: dir)
        try gitCLI(["switch", "-q", side], in: dir.path)
        let rebase = try gitRun(["rebase", main], in: dir.path)
        try #require(rebase.status != 0, "the rebase did not stop on a conflict: \(rebase.stdout)")
        let gitDir = dir.path + "/.git"
        try #require(
            FileManager.default.fileExists(atPath: gitDir + "/rebase-merge")
                || FileManager.default.fileExists(atPath: gitDir + "/rebase-apply"))
        let before = try fullSnapshot(dir.path)

        let r = try runVault(["chat", offlineRoom, "hello"], in: dir.path)
        expectFailure(r, ["rebase", "in the middle of"])
        expectSameFiles(before, try fullSnapshot(dir.path))

        try gitCLI(["rebase", "--abort"], in: dir.path)
        try gitCLI(["switch", "-q", main], in: dir.path)
        expectSucceeded(try runVault(["chat", offlineRoom, "hello"], in: dir.path))
        try expectRepositoryClean(dir.path)
    }

    /// Not one of the three refusals the README lists, but vault refuses it, so the
    /// same rule applies: the refusal comes before any file is written.
    @Test func aDetachedHeadIsRefusedWithoutChangingFiles() throws {
        let dir = try sampleVaultWithHistory()
        try gitCLI(["switch", "-q", "--detach", "HEAD"], in: dir.path)
        let before = try dir.snapshot().filter { !$0.key.hasPrefix(".git/") }
        let head = try git(["rev-parse", "HEAD"], in: dir.path)

        let r = try runVault(["chat", offlineRoom, "hello"], in: dir.path)
        expectFailure(r, ["detached"])
        // The room must not hold an uncommitted message after the refusal.
        expectSameFiles(before, try dir.snapshot().filter { !$0.key.hasPrefix(".git/") })
        #expect(try git(["rev-parse", "HEAD"], in: dir.path) == head)
        #expect(try git(["status", "--porcelain"], in: dir.path) == "")
    }
}

/// Path → bytes of every file below `root` except vault's local state (`.vault/`), `.git/` included.
func snapshotExcludingState(_ root: String) throws -> [String: [UInt8]] {
    try fullSnapshot(root).filter { !$0.key.hasPrefix(".vault/") }
}
