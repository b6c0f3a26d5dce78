import Foundation
import Testing
import VaultTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Commits in repositories and on files that are not the usual case: a repository made by
/// hand with no commit yet, and a file vault cannot read.
@Suite struct CommitEdgeTests {
    /// `git init` by hand in a vault folder leaves a repository with no commit: the next
    /// change makes the vault its first commit, then commits itself, and `git status` is clean.
    @Test func aRepositoryWithNoCommitYetGetsTheVaultAsItsFirstCommit() throws {
        let dir = try Project.copyOfSampleVault()
        let original = try dir.snapshot()
        let roomBefore = try dir.read(offlineRoom)
        try gitCLI(["init", "-q", "-b", "main"], in: dir.path)

        let r = try runVault(["chat", offlineRoom, "손으로 만든 저장소"], in: dir.path)
        expectSucceeded(r)
        #expect(
            try subjects(dir.path) == [
                "chat: \(offlineRoomTitle) (+2 messages)", "init: vault (the repository had no commit yet)",
            ])
        #expect(try treeFiles("HEAD~1", in: dir.path) == original.keys.sorted())
        #expect(try gitBytes("HEAD~1:" + offlineRoom, in: dir.path) == roomBefore)
        #expect(try changedPaths("HEAD", in: dir.path) == ["M " + offlineRoom])
        #expect(try gitBytes("HEAD:" + offlineRoom, in: dir.path) == dir.read(offlineRoom))
        try expectRepositoryClean(dir.path)

        // `vault room new` too.
        let other = try Project.copyOfSampleVault()
        try gitCLI(["init", "-q", "-b", "main"], in: other.path)
        expectSucceeded(try runVault(["room", "new", "첫 방"], in: other.path))
        #expect(try subjects(other.path) == ["room: new 첫 방", "init: vault (the repository had no commit yet)"])
        #expect(try changedPaths("HEAD", in: other.path) == ["A rooms/첫-방.md"])
        try expectRepositoryClean(other.path)
    }

    /// A room vault cannot read (its permissions) is never committed as deleted: the command
    /// stops with one line naming the file and what to do, and no commit, file or index changes.
    /// As root the permission check needs vault run without the capabilities that bypass it.
    @Test func anUnreadableRoomIsNeverCommittedAsDeleted() throws {
        let dir = try sampleVaultWithHistory()
        expectSucceeded(try runVault(["chat", offlineRoom, "두 번째 질문"], in: dir.path))
        let head = try gitCLI(["rev-parse", "HEAD"], in: dir.path)
        let path = dir.path + "/" + offlineRoom
        let bytes = try dir.read(offlineRoom)
        // A hand edit, then the file made unreadable: vault must neither drop nor lose it.
        try append("손으로 고친 줄\n", to: offlineRoom, in: dir)
        let edited = try dir.read(offlineRoom)
        let index = try dir.read(".git/index")
        chmod(path, 0)
        defer { chmod(path, 0o644) }

        let attempts = [
            ["restore", offlineRoom, "--at", "HEAD~1"], ["rm", offlineRoom, "--yes"], ["chat", offlineRoom, "세 번째"],
        ]
        for arguments in attempts {
            let r = try runWithoutReadOverride(arguments, in: dir.path)
            expectFailure(r, [offlineRoomSlug, "Permission denied"])
            #expect(r.stderr.split(separator: "\n").count == 1, "not one line: \(r.stderr)")
            #expect(try gitCLI(["rev-parse", "HEAD"], in: dir.path) == head, "`\(arguments[0])` committed")
            #expect(try dir.read(".git/index") == index, "`\(arguments[0])` changed the index")
            #expect(try treeFiles("HEAD", in: dir.path).contains(offlineRoom))
            #expect(try dir.read(offlineRoom) == edited)
        }
        #expect(try gitBytes("HEAD:" + offlineRoom, in: dir.path) == bytes)
    }

    /// `vault` with `arguments`, unable to read what its permissions forbid even as root.
    func runWithoutReadOverride(_ arguments: [String], in directory: String) throws -> RunResult {
        guard getuid() == 0 else { return try runVault(arguments, in: directory) }
        let process = vaultProcess(arguments, in: directory)
        process.arguments = ["--bounding-set=-dac_override,-dac_read_search", Project.vaultExecutable] + arguments
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        return try run(process)
    }
}
