import CGit2
import CVaultObjects
import Foundation
import Testing
import VaultTestSupport

@testable import VaultCore
@testable import VaultGit

#if canImport(Glibc)
import Glibc
#endif

/// How a commit reaches the disk: the branch is locked and compared before anything is
/// flushed, the lock holding the new id is flushed together with the commit's objects, and the
/// files of each step are flushed at once (`cvault_fsync_together`). Each test uses a real
/// repository and checks it with the `git` command line.
@Suite struct CommitFlushTests {
    let room = "rooms/부산-여행.md"

    private func vaultWithRoom() throws -> (TemporaryDirectory, GitHistory) {
        let dir = try initVault("vault-flush")
        for arguments in [["room", "new", "부산 여행"], ["chat", "부산", "hello"]] {
            expectSucceeded(try runVault(arguments, in: dir.path))
        }
        let vault = try Vault(root: dir.path)
        return (dir, try GitHistory(vault: dir.path, config: vault.config))
    }

    /// Every file under `.git/objects`, relative to it.
    private func objectFiles(_ dir: TemporaryDirectory) -> Set<String> {
        Set(dir.files().filter { $0.hasPrefix(".git/objects/") })
    }

    /// A commit whose branch another program moved after vault read it is refused before any of
    /// its objects reaches `.git/objects`: no object, no temporary file, no lock is left, the
    /// branch stays where the other program put it, and the repository checks clean.
    @Test func aBranchMovedMeanwhileStopsTheCommitBeforeItsObjectsAreWritten() throws {
        let (dir, history) = try vaultWithRoom()
        let head = try #require(try history.headCommit())
        defer {
            git_commit_free(head.commit)
            git_tree_free(head.tree)
        }
        // Another git program commits after vault read HEAD.
        try gitCLI(["commit", "-q", "--allow-empty", "-m", "another program"], in: dir.path)
        let moved = try gitCLI(["rev-parse", "HEAD"], in: dir.path)
        let before = objectFiles(dir)

        cvault_odb_writer_begin_batch(history.objects.writer)
        defer { cvault_odb_writer_abandon_batch(history.objects.writer) }
        let text = Array("a file no commit names\n".utf8)
        let blob = try history.writeBlob(text)
        let root = git_tree_id(head.tree).pointee
        let tree = try #require(try history.trees.apply([(path: "rooms/new.md", oid: blob, isLink: false)], to: root))
        var refused: VaultError?
        do throws(VaultError) {
            try history.makeCommit(tree: tree, parent: head.commit, message: "chat: never made")
        } catch {
            refused = error
        }
        let error = try #require(refused)
        guard case .repository(.branchMoved(let branch, _)) = error else {
            Issue.record("not a moved branch: \(error)")
            return
        }
        #expect(branch == "refs/heads/main")
        // Only the batch's temporary files exist (nothing renamed in), and the commit's end
        // (`GitHistory.commit` abandons its batch) removes them.
        let written = objectFiles(dir).subtracting(before)
        #expect(written.allSatisfy { $0.contains("/tmp_obj_vault_") }, "objects renamed in: \(written)")
        cvault_odb_writer_abandon_batch(history.objects.writer)
        #expect(objectFiles(dir) == before, "left: \(objectFiles(dir).subtracting(before))")
        #expect(!dir.files().contains { $0.contains("tmp_obj_vault") || $0.hasSuffix(".lock") })
        #expect(try gitCLI(["rev-parse", "HEAD"], in: dir.path) == moved)
        let blobID = GitHistory.hex(blob)
        #expect(try gitRun(["cat-file", "-e", blobID], in: dir.path).status != 0, "the blob was written")
        let fsck = try gitRun(["fsck", "--strict", "--full"], in: dir.path)
        #expect(fsck.status == 0, "\(fsck.stderr)")
    }

    /// When the branch's lock cannot be flushed, the commit's objects are not renamed in
    /// either: the error names the lock, and `.git/objects` holds no new file and no
    /// temporary file.
    @Test func aLockThatCannotBeFlushedLeavesNoObject() throws {
        let (dir, history) = try vaultWithRoom()
        let before = objectFiles(dir)
        cvault_odb_writer_begin_batch(history.objects.writer)
        defer { cvault_odb_writer_abandon_batch(history.objects.writer) }
        let blob = try history.writeBlob(Array("kept out\n".utf8))
        #expect(objectFiles(dir).contains { $0.contains("tmp_obj_vault") }, "the batch wrote no temporary file")
        // A descriptor that is not open: its flush fails (EBADF), as a failing disk's would.
        let closed = open(dir.path + "/.git/HEAD", O_RDONLY | O_CLOEXEC)
        close(closed)
        var fds = [closed]
        let lockPath = dir.path + "/.git/refs/heads/main.lock"
        let code = withCStrings([lockPath]) { names in
            cvault_odb_writer_flush_batch_with(history.objects.writer, &fds, names.baseAddress, 1)
        }
        #expect(code < 0)
        let message = String(cString: git_error_last().pointee.message)
        #expect(message.contains(lockPath) && message.contains("cannot write"), "\(message)")
        #expect(objectFiles(dir) == before, "left: \(objectFiles(dir).subtracting(before))")
        #expect(try gitRun(["cat-file", "-e", GitHistory.hex(blob)], in: dir.path).status != 0)
        let fsck = try gitRun(["fsck", "--strict", "--full"], in: dir.path)
        #expect(fsck.status == 0, "\(fsck.stderr)")
    }

    /// `cvault_fsync_together` flushes more files than it runs threads at once (16) and names
    /// the first that failed, with its errno; with every file good it answers -1 and the files
    /// hold what was written.
    @Test func filesFlushedTogetherReportTheFirstFailure() throws {
        let dir = TemporaryDirectory("fsync-together")
        var fds: [Int32] = []
        for k in 0..<20 {
            let fd = open(dir.path + "/f\(k)", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            #expect(fd >= 0)
            let bytes = Array("file \(k)\n".utf8)
            #expect(write(fd, bytes, bytes.count) == bytes.count)
            fds.append(fd)
        }
        defer { for fd in fds where fd >= 0 { close(fd) } }
        #expect(cvault_fsync_together(fds, fds.count) == -1)
        for k in 0..<20 { #expect(try dir.readText("f\(k)") == "file \(k)\n") }
        // The 18th (in the second round of threads) is not open any more.
        close(fds[17])
        fds[17] = -1
        var withBad = fds
        withBad[17] = 1_000_000
        errno = 0
        #expect(cvault_fsync_together(withBad, withBad.count) == 17)
        #expect(errno == EBADF)
        #expect(cvault_fsync_together(withBad, 0) == -1)
    }

    /// A chat turn killed once its objects are flushed leaves the branch's lock too (taken
    /// before the flush); the next turn proves it a dead vault's, removes it and commits both
    /// turns, and `git fsck` finds nothing wrong.
    @Test func aTurnKilledAfterTheFlushLeavesTheBranchLockTheNextTurnRemoves() throws {
        let (dir, _) = try vaultWithRoom()
        let killed = try runVault(
            ["chat", "부산", "killed turn"], in: dir.path, environment: ["VAULT_CRASH_AT": "objects-written"])
        #expect(killed.status == SIGKILL)
        #expect(FileManager.default.fileExists(atPath: dir.path + "/.git/refs/heads/main.lock"))
        let blocked = try gitRun(["commit", "--allow-empty", "-m", "x"], in: dir.path)
        #expect(blocked.status != 0, "git committed past vault's locks")
        expectSucceeded(try runVault(["chat", "부산", "next turn"], in: dir.path))
        let committed = try String(decoding: gitBytes("HEAD:" + room, in: dir.path), as: UTF8.self)
        #expect(committed.contains("killed turn") && committed.contains("next turn"))
        #expect(!dir.files().contains { $0.hasSuffix(".lock") && $0.hasPrefix(".git/") })
        let fsck = try gitRun(["fsck", "--strict", "--full"], in: dir.path)
        #expect(fsck.status == 0, "\(fsck.stderr)")
        try expectRepositoryClean(dir.path)
    }
}
