import Foundation
import Testing
import VaultCore
import VaultGit
import VaultKit
import VaultTestSupport

// A front end opens a vault through `VaultSession` only: for change, with its history (every
// change a commit); read-only, with every change refused before anything is locked, written or
// committed. Notes come back to the front end, never on standard error.

@Suite struct VaultSessionTests {
    private let zone = TimeZone(identifier: "Asia/Seoul")!

    @Test func aReadOnlySessionRefusesAWriteAndChangesNothing() throws {
        let dir = try newVault()
        // A repository with one commit, so "no commit made" is something to check.
        let first = try VaultSession(root: dir.path, access: .change, settings: .ofThisTest)
        let writing = DiaryWriting(vault: first.vault, zone: zone)
        _ = try writing.write(try writing.newEntry(title: "첫눈", date: "2026-11-21T22:30", tags: []), text: "눈.\n")
        let commits = commitCount(dir)
        #expect(commits >= 1)
        let before = try dir.snapshot()

        let session = try VaultSession(root: dir.path, access: .readOnly, settings: .ofThisTest)
        #expect(session.vault.isReadOnly)
        #expect(session.vault.history == nil)
        let reader = DiaryWriting(vault: session.vault, zone: zone)
        let entry = try reader.newEntry(title: "둘째", date: "2026-11-22T08:00", tags: [])
        let error = expectVaultError("is open read-only: vault will not change its files") {
            try reader.write(entry, text: "안 써진다.\n")
        }
        if case .readOnly? = error {} else { Issue.record("not .readOnly: \(String(describing: error))") }
        expectVaultError("nothing was locked, written or committed") {
            try Tagging(vault: session.vault, now: session.vault.now()).tag(
                try session.vault.resolve("2026-11-21", workingDirectory: dir.path), adding: ["x"], removing: [])
        }
        expectVaultError("will not keep a message") {
            try session.vault.keepAsPendingPrompt("hi", inRoom: "rooms/none.md")
        }
        expectVaultError("will not make or change its git repository") { try session.repository() }
        expectVaultError("will not commit into its git repository") { try session.changingExistingRepository() }
        expectVaultError("will not sync") { try session.vault.takeSyncLock() }

        #expect(try dir.snapshot() == before)
        #expect(commitCount(dir) == commits)
        // The lock is free: taken at once.
        #expect(throws: Never.self) { _ = try VaultLock(vaultRoot: dir.path, timeout: 0) }
        // Reading the history is what a read-only session may do.
        #expect(try session.existingRepository().log(limit: 50).count == commits)
    }

    @Test func aChangeSessionCommitsEveryChange() throws {
        let dir = try newVault()
        let session = try VaultSession(root: dir.path, access: .change, settings: .ofThisTest)
        #expect(!session.vault.isReadOnly)
        let writing = DiaryWriting(vault: session.vault, zone: zone)
        let result = try writing.write(
            try writing.newEntry(title: "첫눈", date: "2026-11-21T22:30", tags: []), text: "눈이 왔다.\n")
        let subjects = try git(["log", "--format=%s"], in: dir.path)
        #expect(subjects.hasPrefix("diary: add 2026-11-21 첫눈\n"), "\(subjects)")
        #expect(try git(["-c", "core.quotepath=false", "show", "--name-only", "--format=", "HEAD"], in: dir.path).contains(result.path))
        #expect(try git(["status", "--porcelain"], in: dir.path).isEmpty)
    }

    @Test func notesComeBackInsteadOfBeingPrinted() throws {
        let dir = try newVault()
        let notes = NoteList()
        let ((), printed) = try capturingStandardError {
            let session = try VaultSession(root: dir.path, access: .change, settings: .ofThisTest, notes: notes.sink)
            let writing = DiaryWriting(vault: session.vault, zone: zone)
            _ = try writing.write(try writing.newEntry(title: "첫눈", date: "2026-11-21T22:30", tags: []), text: "눈.\n")
        }
        // (Other tests' runner lines may land there meanwhile: the descriptor is the process's.)
        #expect(!printed.contains("vault:") && !printed.contains("git repository"), "printed: \(printed)")
        // The vault had no repository: making one is the person's to know.
        let all = notes.all
        #expect(all.contains { $0.kind == .note && $0.text.contains("made a git repository in \(dir.path)") }, "\(all)")
        #expect(notes.taken().count == all.count)
        #expect(notes.all.isEmpty)
    }

    @Test func aRequestGetsItsOwnNotes() throws {
        let dir = try newVault()
        let sessionNotes = NoteList()
        let session = try VaultSession(root: dir.path, access: .change, settings: .ofThisTest, notes: sessionNotes.sink)
        let request = NoteList()
        let vault = session.vault.reporting(to: request.sink)
        vault.report(.warning("only this request's"))
        #expect(request.all == [.warning("only this request's")])
        #expect(sessionNotes.all.isEmpty)
        #expect(vault.history != nil)
    }

    @Test func oneSessionTakesChangesFromManyThreadsEachItsOwnCommit() throws {
        let dir = try newVault()
        let session = try VaultSession(root: dir.path, access: .change, settings: .ofThisTest)
        let failures = NoteList()
        DispatchQueue.concurrentPerform(iterations: 8) { k in
            let writing = DiaryWriting(vault: session.vault, zone: zone)
            do {
                let entry = try writing.newEntry(title: "thread \(k)", date: "2026-11-\(10 + k)T09:00", tags: [])
                _ = try writing.write(entry, text: "from thread \(k)\n")
            } catch {
                failures.add(.warning("\(k): \(error)"))
            }
        }
        #expect(failures.all.isEmpty, "\(failures.all)")
        let subjects = try git(["log", "--format=%s"], in: dir.path).split(separator: "\n")
        #expect(subjects.filter { $0.hasPrefix("diary: add") }.count == 8, "\(subjects)")
        #expect(try git(["status", "--porcelain"], in: dir.path).isEmpty)
        #expect(try git(["fsck", "--strict"], in: dir.path).isEmpty)
    }

    @Test func openingNoVaultSaysWhereItLooked() throws {
        let dir = TemporaryDirectory("vault-kit-none")
        expectVaultError("is not a vault") {
            try VaultSession(locating: dir.path, workingDirectory: "/", access: .readOnly, settings: .standard)
        }
        #expect(dir.files().isEmpty)
    }
}
