import Foundation
import Testing
import VaultCore
import VaultGit
import VaultTestSupport

// The library's workflows driven through their API alone (no `vault` process), against a real
// repository, read back with the git command line: each change is one commit with its
// message, a hand edit made before it is committed first as its own commit, and bad input
// changes no file and makes no commit.

/// A new vault with its own repository (`init: vault`), opened to change.
private func newVault() throws -> (dir: TemporaryDirectory, vault: Vault) {
    let dir = TemporaryDirectory("vault-workflow")
    let plain = try Vault.create(at: dir.path, locale: "ko_KR", timeZone: TimeZone(identifier: "Asia/Seoul")!)
    let history = try GitHistory.create(vault: dir.path, config: plain.config)
    return (dir, plain.with(history: history))
}

/// An entry written from text, committed: the vault's second commit.
private func firstEntry(_ vault: Vault) throws -> String {
    let writing = DiaryWriting(vault: vault, zone: TimeZone(identifier: "Asia/Seoul")!)
    let entry = try writing.newEntry(title: "첫눈", date: "2026-11-21T22:30", tags: [])
    return try writing.write(entry, text: "눈이 왔다.\n").path
}

/// Appends a line to a file the way a person's editor would (no vault involved).
private func editByHand(_ dir: TemporaryDirectory, _ path: String, _ line: String = "손으로 쓴 줄") throws {
    try dir.write(path, try dir.readText(path) + line + "\n")
}

/// `body` fails with a `VaultError` whose message contains `fragment`.
func expectError(
    _ fragment: String, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> some Any
) {
    do {
        _ = try body()
        Issue.record("no error; expected one with \"\(fragment)\"", sourceLocation: sourceLocation)
    } catch let error as VaultError {
        #expect(error.description.contains(fragment), "\(error.description)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("not a VaultError: \(error)", sourceLocation: sourceLocation)
    }
}

/// A test editor: appends `text` to the file and succeeds.
private func appendingEditor(_ text: String) -> TextEditor {
    TextEditor(name: "test-editor") { path throws(VaultError) in
        var bytes = try FileIO.read(path)
        bytes += Array(text.utf8)
        try FileIO.write(bytes, to: path)
        return .succeeded
    }
}

/// The file at HEAD is the file on disk, byte for byte, and nothing is left uncommitted.
private func expectCommitted(
    _ dir: TemporaryDirectory, _ path: String, sourceLocation: SourceLocation = #_sourceLocation
) throws {
    #expect(try gitBytes("HEAD:" + path, in: dir.path) == dir.read(path), sourceLocation: sourceLocation)
    try expectRepositoryClean(dir.path, sourceLocation: sourceLocation)
}

@Suite struct ChangeTests {
    @Test func aChangeCommitsItsWritesOnceWithItsMessage() throws {
        let (dir, vault) = try newVault()
        let made = try vault.change { change throws(VaultError) -> Bool in
            try change.write(Array("a\n".utf8), to: "attachments/a.txt")
            try change.write(Array("b\n".utf8), to: "attachments/b.txt")
            return try change.commit(message: "test: two files")
        }
        #expect(made)
        #expect(try subjects(dir.path) == ["test: two files", "init: vault"])
        #expect(try changedPaths("HEAD", in: dir.path) == ["A attachments/a.txt", "A attachments/b.txt"])
        try expectCommitted(dir, "attachments/b.txt")
    }

    @Test func aHandEditIsCommittedBeforeTheChangesFirstWrite() throws {
        let (dir, vault) = try newVault()
        try vault.change { change throws(VaultError) in
            try change.write(Array("one\n".utf8), to: "attachments/a.txt")
            try change.commit(message: "test: add")
        }
        try dir.write("attachments/a.txt", "one\nby hand\n")
        try vault.change(["attachments/a.txt"]) { change throws(VaultError) in
            try change.write(Array("one\nby hand\nby vault\n".utf8), to: "attachments/a.txt")
            try change.commit(message: "test: change")
        }
        #expect(try subjects(dir.path) == ["test: change", "edit: attachments/a.txt", "test: add", "init: vault"])
        #expect(try gitBytes("HEAD~1:attachments/a.txt", in: dir.path) == Array("one\nby hand\n".utf8))
        try expectCommitted(dir, "attachments/a.txt")
    }

    @Test func aChangeThatThrowsBeforeItsCommitCommitsNothing() throws {
        let (dir, vault) = try newVault()
        expectError("name a room") {
            try vault.change { change throws(VaultError) in
                try change.write(Array("x\n".utf8), to: "attachments/x.txt")
                throw VaultError.input(.emptyName)
            }
        }
        #expect(try subjects(dir.path) == ["init: vault"])
    }
}

@Suite struct DiaryWorkflowTests {
    @Test func writingAnEntryFromTextIsOneCommit() throws {
        let (dir, vault) = try newVault()
        let path = try firstEntry(vault)
        #expect(path.hasPrefix("diary/2026/2026-11-21"))
        let text = try dir.readText(path)
        #expect(text.contains("title: 첫눈") && text.hasSuffix("눈이 왔다.\n"))
        #expect(try subjects(dir.path) == ["diary: add 2026-11-21 첫눈", "init: vault"])
        try expectCommitted(dir, path)
    }

    @Test func anEmptyEntryOrABadTagWritesNothingAndCommitsNothing() throws {
        let (dir, vault) = try newVault()
        let writing = DiaryWriting(vault: vault)
        let before = try snapshotExcludingState(dir.path)
        let entry = try writing.newEntry(title: "빈", date: "2026-11-21", tags: [])
        expectError("the entry is empty: nothing was written") {
            try writing.write(entry, text: " \n\n")
        }
        expectError("'a,b' is not a tag") {
            try writing.newEntry(title: nil, date: nil, tags: ["a,b"])
        }
        #expect(try snapshotExcludingState(dir.path) == before)
        #expect(try subjects(dir.path) == ["init: vault"])
    }

    @Test func writingInTheEditorCommitsWhatItSaved() throws {
        let (dir, vault) = try newVault()
        let writing = DiaryWriting(vault: vault)
        let entry = try writing.newEntry(title: "편집기", date: "2026-11-22T08:00", tags: ["겨울"])
        let result = try writing.write(entry, editor: appendingEditor("편집기에서 쓴 글.\n"))
        #expect(result.kind == .written && result.problems.isEmpty)
        #expect(try dir.readText(result.path).hasSuffix("편집기에서 쓴 글.\n"))
        #expect(try subjects(dir.path) == ["diary: add 2026-11-22 편집기", "init: vault"])
        try expectCommitted(dir, result.path)
    }

    @Test func anEditorThatFailsAndSavesNothingLeavesNoEntryAndNoCommit() throws {
        let (dir, vault) = try newVault()
        let writing = DiaryWriting(vault: vault)
        let failing = TextEditor(name: "false") { _ throws(VaultError) in .failed("exit status 1") }
        let entry = try writing.newEntry(title: "실패", date: "2026-11-22", tags: [])
        expectError("the editor 'false' failed (exit status 1) and saved nothing: no entry was made") {
            try writing.write(entry, editor: failing)
        }
        #expect(vault.diaryPaths().isEmpty)
        #expect(try subjects(dir.path) == ["init: vault"])
    }

    @Test func editingCommitsAHandEditFirstThenTheEditWithUpdatedSet() throws {
        let (dir, vault) = try newVault()
        let path = try firstEntry(vault)
        try editByHand(dir, path)
        let result = try Editing(vault: vault).edit(path, in: appendingEditor("편집기에서 더한 줄\n"))
        #expect(result.kind == .saved)
        let text = try dir.readText(path)
        #expect(text.contains("updated: ") && text.hasSuffix("손으로 쓴 줄\n편집기에서 더한 줄\n"))
        #expect(
            try subjects(dir.path) == [
                "diary: edit 2026-11-21 첫눈", "edit: \(path)", "diary: add 2026-11-21 첫눈", "init: vault",
            ])
        try expectCommitted(dir, path)
    }

    @Test func editingWithNoChangeCommitsNothing() throws {
        let (dir, vault) = try newVault()
        let path = try firstEntry(vault)
        let before = try dir.read(path)
        let untouched = TextEditor(name: "true") { _ throws(VaultError) in .succeeded }
        #expect(try Editing(vault: vault).edit(path, in: untouched).kind == .unchanged)
        #expect(try dir.read(path) == before)
        #expect(try commitCount(dir.path) == 2)
    }

    @Test func taggingCommitsAHandEditFirstThenTheTags() throws {
        let (dir, vault) = try newVault()
        let path = try firstEntry(vault)
        try editByHand(dir, path)
        let tagging = Tagging(vault: vault, now: vault.now())
        let (tagged, tags) = try tagging.tag(.diaryEntry(path), adding: ["겨울", "눈"], removing: [])
        #expect(tagged == path && tags == ["겨울", "눈"])
        #expect(try dir.readText(path).contains("tags: [겨울, 눈]"))
        #expect(
            try subjects(dir.path).prefix(2) == ["tag: 2026-11-21 첫눈 +겨울 +눈", "edit: \(path)"])
        try expectCommitted(dir, path)
    }

    @Test func taggingARoomIsRefusedAndCommitsNothing() throws {
        let (dir, vault) = try newVault()
        let room = try RoomCreation(vault: vault).create(title: "부산 여행")
        let before = try snapshotExcludingState(dir.path)
        expectError("\(room) is a room; tags belong to diary entries") {
            try Tagging(vault: vault, now: vault.now()).tag(.room(room), adding: ["x"], removing: [])
        }
        #expect(try snapshotExcludingState(dir.path) == before)
        #expect(try commitCount(dir.path) == 2)
    }
}

@Suite struct RoomWorkflowTests {
    @Test func aNewRoomIsOneCommit() throws {
        let (dir, vault) = try newVault()
        let path = try RoomCreation(vault: vault).create(title: " 부산 여행 ", model: "gpt-x")
        #expect(path == "rooms/부산-여행.md")
        let text = try dir.readText(path)
        #expect(text.contains("title: 부산 여행") && text.contains("model: gpt-x"))
        #expect(try subjects(dir.path) == ["room: new 부산 여행", "init: vault"])
        try expectCommitted(dir, path)
        expectError("give the room a title") {
            try RoomCreation(vault: vault).create(title: "  ")
        }
        #expect(try commitCount(dir.path) == 2)
    }

    @Test func settingAKeyCommitsAHandEditFirstThenTheSetting() throws {
        let (dir, vault) = try newVault()
        let path = try RoomCreation(vault: vault).create(title: "부산 여행")
        try editByHand(dir, path)
        let settings = RoomSettings(vault: vault)
        #expect(try settings.set("model", to: "gpt-y", inRoom: path) == .set)
        #expect(try dir.readText(path).contains("model: gpt-y"))
        #expect(try subjects(dir.path).prefix(3) == ["room: 부산 여행: set model", "edit: \(path)", "room: new 부산 여행"])
        try expectCommitted(dir, path)
        // The same value again: nothing written, nothing committed.
        #expect(try settings.set("model", to: "gpt-y", inRoom: path) == .alreadySo)
        #expect(try settings.set("model", to: nil, inRoom: path) == .removed)
        #expect(try subjects(dir.path).prefix(2) == ["room: 부산 여행: unset model", "room: 부산 여행: set model"])
    }

    @Test func aRoomThatCannotBeReadIsNotChangedOrCommitted() throws {
        let (dir, vault) = try newVault()
        try dir.write("rooms/broken.md", "---\ntitle: [unclosed\n---\n")
        let before = try snapshotExcludingState(dir.path)
        // Line 2, where the unclosed `[` is (the parser notices on line 3).
        expectError("rooms/broken.md:2: the front-matter is not valid YAML") {
            try RoomSettings(vault: vault).set("model", to: "m", inRoom: "rooms/broken.md")
        }
        #expect(try snapshotExcludingState(dir.path) == before)
        #expect(try subjects(dir.path) == ["init: vault"])
    }
}

@Suite struct RemovalAndRestoreWorkflowTests {
    @Test func removingCommitsAHandEditFirstAndRestoreBringsBackEitherVersion() throws {
        let (dir, vault) = try newVault()
        let path = try RoomCreation(vault: vault).create(title: "부산 여행")
        let made = try dir.read(path)
        try editByHand(dir, path)
        let edited = try dir.read(path)
        let removal = Removal(vault: vault)
        let target = removal.target(of: .room(path))
        #expect(target == .item(path: path, title: "부산 여행"))
        try removal.remove(target)
        #expect(!FileIO.exists(vault.absolute(path)))
        #expect(try subjects(dir.path).prefix(2) == ["rm: \(path) (부산 여행)", "edit: \(path)"])
        #expect(try changedPaths("HEAD", in: dir.path) == ["D \(path)"])

        let history = try GitHistory(vault: dir.path, config: vault.config)
        let restore = VaultGit.Restore(vault: vault, history: history)
        let short = try restore.restore(path, at: nil)
        #expect(try dir.read(path) == edited)
        #expect(try subjects(dir.path).first == "restore: \(path) (as of \(short))")
        try expectCommitted(dir, path)
        let first = try git(["rev-list", "--skip=3", "-n", "1", "HEAD"], in: dir.path)
        let again = try restore.restore(path, at: String(first.prefix(12)))
        #expect(try dir.read(path) == made)
        #expect(try subjects(dir.path).first == "restore: \(path) (as of \(again))")
        #expect(try commitCount(dir.path) == 6)
    }

    @Test func restoringAFileAsItAlreadyIsChangesNothing() throws {
        let (dir, vault) = try newVault()
        let path = try RoomCreation(vault: vault).create(title: "부산 여행")
        let restore = VaultGit.Restore(vault: vault, history: try GitHistory(vault: dir.path, config: vault.config))
        expectError("\(path) exists; say which version to bring back with --at REV") {
            try restore.restore(path, at: nil)
        }
        expectError("\(path) is already as it was at ") { try restore.restore(path, at: "HEAD") }
        #expect(try commitCount(dir.path) == 2)
        try expectRepositoryClean(dir.path)
    }

    @Test func removingASymbolicLinkRemovesTheLinkOnly() throws {
        let (dir, vault) = try newVault()
        let room = try RoomCreation(vault: vault).create(title: "부산 여행")
        #expect(symlink("부산-여행.md", dir.path + "/rooms/link.md") == 0)
        let target = Removal(vault: vault).target(of: .room("rooms/link.md"))
        #expect(target == .link(path: "rooms/link.md", target: "부산-여행.md"))
        try Removal(vault: vault).remove(target)
        #expect(FileIO.kind(of: dir.path + "/rooms/link.md") == nil)
        #expect(FileIO.exists(vault.absolute(room)))
        // Never committed, so its removal is no commit either.
        #expect(try commitCount(dir.path) == 2)
    }
}

@Suite struct SyncAndRemoteWorkflowTests {
    /// A bare repository on this machine, made as a person makes it, to sync with.
    private func bareRemote() throws -> TemporaryDirectory {
        let remote = TemporaryDirectory("vault-workflow-remote")
        try git(["init", "--bare", "-q", remote.path], in: remote.path)
        return remote
    }

    @Test func aRemoteIsAddedAndRemovedThroughTheLibrary() throws {
        let (dir, vault) = try newVault()
        let remote = try bareRemote()
        let remotes = Remotes(vault: vault, history: vault.history as! GitHistory)
        // `.gitattributes` emptied by hand: the merge driver's lines are missing.
        try dir.write(".gitattributes", "# mine\n")
        try remotes.add(name: "origin", url: remote.path)
        #expect(try git(["config", "--get", "remote.origin.url"], in: dir.path) == remote.path + "\n")
        #expect(try remotes.list().map(\.name) == ["origin"])
        // The merge driver's lines: a commit of its own through the change path, the hand edit first.
        #expect(
            try subjects(dir.path) == [
                "sync: vault's merge driver for rooms, diary entries and vault.yml", "edit: .gitattributes",
                "init: vault",
            ])
        #expect(try dir.readText(".gitattributes").hasPrefix("# mine\n"))
        #expect(try gitBytes("HEAD^:.gitattributes", in: dir.path) == Array("# mine\n".utf8))
        try expectCommitted(dir, ".gitattributes")
        expectError("already a remote named 'origin'") { try remotes.add(name: "origin", url: remote.path) }
        expectError("cannot name a remote") { try remotes.add(name: "no good", url: remote.path) }

        try remotes.remove(name: "origin")
        #expect(try git(["remote"], in: dir.path) == "")
        #expect(try remotes.list().isEmpty)
        expectError("no remote named 'origin'") { try remotes.remove(name: "origin") }
        // Adding it again finds the merge driver registered: no second commit.
        try remotes.add(name: "origin", url: remote.path)
        #expect(try subjects(dir.path).count == 3)
    }

    @Test func syncCommitsHandEditsFirstAsTheirOwnCommitThenMerges() throws {
        let (dir, vault) = try newVault()
        let remote = try bareRemote()
        let history = vault.history as! GitHistory
        let path = try firstEntry(vault)
        try Remotes(vault: vault, history: history).add(name: "origin", url: remote.path)
        let first = try VaultSync(vault: vault, history: history).sync()
        #expect(first.pushed)

        // Another machine (plain git) adds a file and pushes; here the entry is edited by hand.
        let other = TemporaryDirectory("vault-workflow-other")
        try git(["clone", "-q", "--branch", "main", remote.path, other.path], in: other.path)
        try other.write("attachments/note.txt", "from the other machine\n")
        try git(["add", "attachments/note.txt"], in: other.path)
        try git(
            ["-c", "user.name=Other", "-c", "user.email=o@example.org", "commit", "-q", "-m", "other: note"],
            in: other.path)
        try git(["push", "-q", "origin", "main"], in: other.path)
        try editByHand(dir, path)

        let report = try VaultSync(vault: vault, history: history).sync()
        #expect(report.handEdits == [path])
        #expect(report.pushed)
        // The hand edit is its own commit, the merge's first parent; the merge is the change's commit.
        #expect(try git(["log", "-1", "--format=%s", "HEAD^1"], in: dir.path) == "edit: \(path)\n")
        #expect(try changedPaths("HEAD^1", in: dir.path) == ["M \(path)"])
        #expect(try git(["log", "-1", "--format=%s", "HEAD^2"], in: dir.path) == "other: note\n")
        #expect(try git(["log", "-1", "--format=%s", "HEAD"], in: dir.path).hasPrefix("sync: merge origin/main"))
        try expectCommitted(dir, path)
        #expect(try dir.readText("attachments/note.txt") == "from the other machine\n")
        #expect(try git(["rev-parse", "main"], in: remote.path) == git(["rev-parse", "HEAD"], in: dir.path))
    }
}

/// A provider that saves the room the way an editor would (a new file renamed over it) while
/// its reply comes, then answers.
private struct EditorSavingProvider: ChatProvider {
    let file: String
    let line: String
    var name: String { "editor-saving" }
    func label(model: String) -> String { "test" }
    func reply(to request: ChatRequest, onText: (String) -> Void) throws(ProviderFailure) -> ReplyEnding {
        let bytes = (try? FileIO.read(file)) ?? []
        try? FileIO.write(bytes + Array((line + "\n").utf8), to: file)
        onText("답장입니다.")
        return ReplyEnding()
    }
}

@Suite struct ChatTurnCommitTests {
    @Test func aTurnCommitsTheRoomItReadOnceAsItIsOnDisk() throws {
        let (dir, vault) = try newVault()
        let path = try RoomCreation(vault: vault).create(title: "부산")
        for text in ["첫 질문", "두 번째 질문"] {
            let room = try ChatTurn.read(path, in: vault)
            let turn = ChatTurn(vault: vault, roomPath: path, provider: OfflineProvider(), model: "m", room: room)
            _ = try turn.run(message: text) { _ in }
            #expect(try subjects(dir.path).first == "chat: 부산 (+2 messages)")
            try expectCommitted(dir, path)
        }
        #expect(try dir.readText(path).contains("두 번째 질문"))
    }

    @Test func anEditBetweenTheReadAndTheTurnIsCommittedFirstOnItsOwn() throws {
        let (dir, vault) = try newVault()
        let path = try RoomCreation(vault: vault).create(title: "부산")
        let room = try ChatTurn.read(path, in: vault)
        try editByHand(dir, path, "읽은 뒤에 쓴 줄")
        let turn = ChatTurn(vault: vault, roomPath: path, provider: OfflineProvider(), model: "m", room: room)
        _ = try turn.run(message: "질문") { _ in }
        #expect(try subjects(dir.path).prefix(3) == ["chat: 부산 (+2 messages)", "edit: \(path)", "room: new 부산"])
        #expect(try diffLines("HEAD^", path: path, in: dir.path).added == ["읽은 뒤에 쓴 줄"])
        #expect(try String(decoding: gitBytes("HEAD:" + path, in: dir.path), as: UTF8.self).contains("읽은 뒤에 쓴 줄"))
        try expectCommitted(dir, path)
    }

    @Test func anEditSavedWhileTheReplyComesIsNeitherLostNorTakenForTheTurns() throws {
        let (dir, vault) = try newVault()
        let path = try RoomCreation(vault: vault).create(title: "부산")
        let provider = EditorSavingProvider(file: vault.absolute(path), line: "답을 기다리며 쓴 줄")
        let room = try ChatTurn.read(path, in: vault)
        let turn = ChatTurn(vault: vault, roomPath: path, provider: provider, model: "m", room: room)
        _ = try turn.run(message: "질문") { _ in }
        #expect(
            try subjects(dir.path).prefix(3) == [
                "chat: 부산 (+1 message)", "edit: \(path) (while waiting for the reply)", "room: new 부산",
            ])
        // The person's save, with the turn's question, is the edit commit; the reply is the turn's.
        let edited = String(decoding: try gitBytes("HEAD^:" + path, in: dir.path), as: UTF8.self)
        #expect(edited.contains("답을 기다리며 쓴 줄") && edited.contains("질문") && !edited.contains("답장입니다."))
        let final = String(decoding: try gitBytes("HEAD:" + path, in: dir.path), as: UTF8.self)
        #expect(final.contains("답을 기다리며 쓴 줄") && final.contains("답장입니다."))
        try expectCommitted(dir, path)
    }

    @Test func knownBytesStandForTheFileOnlyWhileItKeepsTheirStamp() throws {
        let (dir, vault) = try newVault()
        let path = try RoomCreation(vault: vault).create(title: "부산")
        // Known bytes of a version the file no longer has: the file is read, its edit committed.
        let (old, stamp) = try FileIO.readStamped(vault.absolute(path))
        try editByHand(dir, path)
        try vault.change([path]) { change throws(VaultError) in
            change.know(old, of: path, stamp: stamp)
            #expect(try change.commitHandEdits() == [path])
        }
        #expect(try subjects(dir.path).first == "edit: \(path)")
        try expectCommitted(dir, path)
        // Known bytes with the file's own stamp are what is hashed and committed: the file is not
        // read again (here they differ from it on purpose, to show it).
        let (current, now) = try FileIO.readStamped(vault.absolute(path))
        var stand = current
        stand[stand.count - 2] = UInt8(ascii: "X")
        try vault.change([path]) { change throws(VaultError) in
            change.know(stand, of: path, stamp: now)
            try change.commit(message: "test: known bytes")
        }
        #expect(try gitBytes("HEAD:" + path, in: dir.path) == stand)
    }
}

@Suite struct InitializingWorkflowTests {
    @Test func aNewFolderBecomesAVaultWithItsFilesInTheFirstCommit() throws {
        let dir = TemporaryDirectory("vault-init")
        let root = dir.path + "/노트"
        let made = try Initializing.run(at: root, locale: "ko_KR", timeZone: TimeZone(identifier: "Asia/Seoul")!, settings: .ofThisTest)
        #expect(made.madeVault)
        #expect(made.outerRepository == nil)
        #expect(made.vault.config.locale == "ko_KR")
        #expect(try git(["rev-parse", "--show-toplevel"], in: root).hasSuffix("/노트\n"))
        #expect(try subjects(root).count == 1)
        #expect(try git(["ls-files"], in: root).contains("vault.yml"))
        #expect(try git(["status", "--porcelain"], in: root) == "")
    }

    @Test func aVaultWithoutARepositoryGetsOneAndAVaultWithOneIsRefusedUnchanged() throws {
        let (dir, vault) = try newVault()
        _ = try firstEntry(vault)
        // Copied without its .git: the same files, a repository of its own again.
        let copy = TemporaryDirectory("vault-init-copy")
        try FileManager.default.removeItem(atPath: copy.path)
        try FileManager.default.copyItem(atPath: dir.path, toPath: copy.path)
        try FileManager.default.removeItem(atPath: copy.path + "/.git")
        let given = try Initializing.run(at: copy.path, locale: "en_US", timeZone: TimeZone(identifier: "UTC")!, settings: .ofThisTest)
        #expect(!given.madeVault)
        #expect(given.vault.config.locale == "ko_KR", "the vault's own settings are kept")
        #expect(try git(["status", "--porcelain"], in: copy.path) == "")
        #expect(try git(["ls-files", "diary"], in: copy.path).contains(".md"))
        // Already a vault with its own repository: refused, nothing changed, no commit.
        let before = try git(["rev-parse", "HEAD"], in: dir.path)
        let config = try dir.read("vault.yml")
        expectError("already a vault") {
            try Initializing.run(at: dir.path, locale: "en_US", timeZone: TimeZone(identifier: "UTC")!, settings: .ofThisTest)
        }
        #expect(try git(["rev-parse", "HEAD"], in: dir.path) == before)
        #expect(try dir.read("vault.yml") == config)
    }

    @Test func aFolderInsideAnotherRepositoryGetsARepositoryOfItsOwn() throws {
        let outer = TemporaryDirectory("vault-init-outer")
        _ = try git(["init", "-q"], in: outer.path)
        let made = try Initializing.run(
            at: outer.path + "/notes", locale: "en_US", timeZone: TimeZone(identifier: "UTC")!, settings: .ofThisTest)
        #expect(made.outerRepository.map { $0.hasPrefix(outer.path) || outer.path.hasSuffix($0) } == true)
        #expect(try git(["rev-parse", "--show-toplevel"], in: outer.path + "/notes").hasSuffix("/notes\n"))
        #expect(try git(["status", "--porcelain"], in: outer.path) == "?? notes/\n")
    }

    @Test func entriesWithNoDateOfTheirOwnAreDatedByTheCommitThatAddedThem() throws {
        let (dir, vault) = try newVault()
        let dated = try firstEntry(vault)
        // A plain Markdown file with no front-matter and no date in its name, committed, then
        // its modification time moved to 2001: the listing dates it by its first commit.
        try dir.write("diary/생각.md", "제목 없는 글\n")
        _ = try git(["add", "diary/생각.md"], in: dir.path)
        _ = try git(["-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm", "add"], in: dir.path)
        let old = Date(timeIntervalSince1970: 978_307_200)
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: dir.path + "/diary/생각.md")
        let plain = try #require(vault.diarySummaries().first { $0.path == "diary/생각.md" })
        #expect(plain.dateSource == "modified")
        let all = vault.diarySummariesDatedByHistory()
        let byHistory = try #require(all.first { $0.path == "diary/생각.md" })
        #expect(byHistory.dateSource == "history")
        #expect(byHistory.date.map { $0.year >= 2026 } == true, "\(String(describing: byHistory.date))")
        #expect(all.map(\.path).contains(dated))
        #expect(all.first?.path == "diary/생각.md", "newest first: committed today, after the 2026-11-21 entry")
    }
}

/// `EntryEditing` (`vault mcp`'s `edit_entry`): each operation one commit over the version on
/// disk, front-matter kept byte for byte but `updated`; an edit that finds nothing to do
/// changes nothing and makes no commit.
@Suite struct EntryEditingTests {
    func edit(_ vault: Vault, _ path: String, _ op: EntryEditing.Operation) throws -> EntryEditing.Result {
        try EntryEditing(vault: vault, now: vault.now()).edit(path, op)
    }

    @Test func eachOperationIsOneCommitAndTheFrontMatterStays() throws {
        let (dir, vault) = try newVault()
        let path = try firstEntry(vault)
        _ = try edit(vault, path, .append("## 저녁\n\n코코아."))
        _ = try edit(vault, path, .prepend("머리말."))
        _ = try edit(vault, path, .replaceSection(heading: "저녁", with: "차."))
        _ = try edit(vault, path, .findReplace(find: "눈이", replacement: "첫눈이", expectedCount: 1))
        let entry = try DiaryFile(parsing: try dir.read(path), path: path)
        #expect(entry.body.trimmingCharacters(in: .newlines) == "머리말.\n\n첫눈이 왔다.\n\n## 저녁\n\n차.")
        #expect(entry.title == "첫눈" && entry.updated != nil)
        #expect(
            try subjects(dir.path).prefix(4) == [
                "diary: edit 2026-11-21 첫눈 (find and replace)", "diary: edit 2026-11-21 첫눈 (replace section)",
                "diary: edit 2026-11-21 첫눈 (prepend)", "diary: edit 2026-11-21 첫눈 (append)",
            ])
        try expectCommitted(dir, path)
    }

    @Test func aHandEditIsCommittedFirstAndKept() throws {
        let (dir, vault) = try newVault()
        let path = try firstEntry(vault)
        try editByHand(dir, path)
        _ = try edit(vault, path, .append("덧붙임."))
        #expect(try dir.readText(path).contains("손으로 쓴 줄\n\n덧붙임.\n"))
        #expect(try subjects(dir.path).prefix(2) == ["diary: edit 2026-11-21 첫눈 (append)", "edit: \(path)"])
        try expectCommitted(dir, path)
    }

    @Test func anEditWithNothingToDoChangesNothing() throws {
        let (dir, vault) = try newVault()
        let path = try firstEntry(vault)
        let room = try RoomCreation(vault: vault).create(title: "부산 여행")
        let before = try snapshotExcludingState(dir.path)
        expectError("occurs 0 times, not the 1 expected") {
            try edit(vault, path, .findReplace(find: "비가", replacement: "x", expectedCount: 1))
        }
        expectError("occurs 1 times, not the 2 expected") {
            try edit(vault, path, .findReplace(find: "눈이", replacement: "x", expectedCount: 2))
        }
        expectError("it has no heading \"없는\"") { try edit(vault, path, .replaceSection(heading: "없는", with: "x")) }
        expectError("the entry is empty") { try edit(vault, path, .append("  \n")) }
        expectError("is a room") { try edit(vault, room, .append("x")) }
        #expect(try snapshotExcludingState(dir.path) == before)
        #expect(try commitCount(dir.path) == 3)
    }
}
