import Foundation
import Testing
import VaultTestSupport

/// An editor that exits with a failure (`vim` after `:cq`, a crash, a GUI editor that returns
/// early): every command that runs `$VISUAL`/`$EDITOR` (`edit`, `today`, `write`) keeps what the
/// editor saved, says so, commits it, and never writes over the file after the editor ran.
/// When the editor saved nothing, nothing changes, `.git/` included.
///
/// The editors are shell scripts standing in for a person's editor (`DiaryEditors`).
@Suite struct EditorFailureTests {
    /// A vault with one entry and one room, committed.
    private func vaultWithAnEntryAndARoom() throws -> (DiaryVault, entry: String, room: String) {
        let vault = try DiaryVault.fresh()
        try expectDiarySuccess(try vault.run(["write", "지킬 글", "--date", "2026-03-01", "--body", "지켜야 할 문장.\n"]), vault)
        try expectDiarySuccess(try vault.run(["room", "new", "부산 여행"]), vault)
        return (vault, "diary/2026/2026-03-01-지킬-글.md", "rooms/부산-여행.md")
    }

    /// The shell lines of an editor that saves in one of three ways, then exits with status 4.
    private func savingThenFailing(_ how: String) -> String {
        switch how {
        case "append": "printf '반쯤 쓴 글\\n' >> \"$1\"\nexit 4"
        case "empty": ": > \"$1\"\nexit 4"
        // Saved by rename, as vim and most GUI editors do.
        default: "printf 'all replaced\\n' > \"$1.tmp\" && mv \"$1.tmp\" \"$1\"\nexit 4"
        }
    }

    private func expected(_ how: String, from before: [UInt8]) -> [UInt8] {
        switch how {
        case "append": before + Array("반쯤 쓴 글\n".utf8)
        case "empty": []
        default: Array("all replaced\n".utf8)
        }
    }

    @Test(arguments: ["entry", "room"], ["append", "empty", "replace"])
    func editKeepsAndCommitsWhatAFailingEditorSaved(item: String, saving: String) throws {
        let (vault, entry, room) = try vaultWithAnEntryAndARoom()
        let path = item == "entry" ? entry : room
        let before = try vault.read(path)
        let history = try vault.subjects()
        let editors = DiaryEditors()
        let editor = try editors.make("crash", .script(savingThenFailing(saving)))
        let r = try vault.run(["edit", path], editor: editor)
        expectUserError(r, ["editor", "exit status 4", path, "kept"])
        #expect(r.status == 1)
        #expect(r.stderr.split(separator: "\n").count == 1, "more than one line: \(r.stderr)")
        #expect(editors.runs("crash").count == 1, "the editor did not run")
        // What the editor saved is on disk, byte for byte: not the old bytes, not touched by vault.
        #expect(try vault.read(path) == expected(saving, from: before))
        // … and committed, as one commit of that file.
        let subjects = try vault.subjects()
        #expect(subjects.count == history.count + 1, "\(subjects)")
        #expect(subjects.first?.contains("editor") == true, "\(subjects)")
        #expect(try vault.changedPaths() == ["M \(path)"])
        #expect(try vault.committed(path) == expected(saving, from: before))
        #expect(try vault.status() == "")
    }

    @Test(arguments: [["edit", "diary/2026/2026-03-01-지킬-글.md"], ["edit", "rooms/부산-여행.md"], ["edit", "부산"]])
    func aFailingEditorThatSavedNothingChangesNothing(arguments: [String]) throws {
        let (vault, _, _) = try vaultWithAnEntryAndARoom()
        let before = try vault.snapshot()
        let editors = DiaryEditors()
        let editor = try editors.make("quit", .fail(1))
        let r = try vault.run(arguments, editor: editor)
        try expectDiaryFailure(r, ["editor", "exit status 1", "saved nothing"], vault, unchangedFrom: before)
        #expect(r.stderr.split(separator: "\n").count == 1, "more than one line: \(r.stderr)")
        #expect(editors.runs("quit").count == 1, "the editor did not run")
        #expect(try vault.status() == "")
    }

    /// The case: a chat turn lands in the room while the editor is open, then the editor
    /// quits with a failure without saving. The old code wrote the room's old bytes back and
    /// lost the turn; now the turn stays, committed by the chat, and `edit` commits nothing.
    @Test func aChatTurnThatLandedWhileTheEditorWasOpenIsKept() throws {
        let (vault, _, room) = try vaultWithAnEntryAndARoom()
        let editors = DiaryEditors()
        let log = editors.dir.path
        let chat =
            "'\(Project.vaultExecutable)' chat --vault '\(vault.root)' 부산 '편집기가 열린 동안 보낸 말'"
            + " </dev/null >/dev/null 2>'\(log)/chat.err'; echo \"chat $?\" >> '\(log)/chat.status'\nexit 1"
        let editor = try editors.make("quitter", .script(chat))
        let r = try vault.run(["edit", room], editor: editor, extra: ["VAULT_LOCK_TIMEOUT": "5"])
        expectUserError(r, ["editor", "exit status 1", "saved nothing"])
        let status = (try? editors.dir.readText("chat.status")) ?? "never ran"
        let chatErrors = (try? editors.dir.readText("chat.err")) ?? ""
        try #require(status == "chat 0\n", "the chat run from the editor: \(status) \(chatErrors)")
        let text = try vault.readText(room)
        #expect(text.contains("편집기가 열린 동안 보낸 말"), "the chat turn was lost:\n\(text)")
        let parsed = parseRoom(text)
        #expect(parsed.messages.count == 2, "\(parsed.messages.map(\.header))")
        #expect(try vault.subjects().first == "chat: 부산 여행 (+2 messages)")
        #expect(try vault.committed(room) == vault.read(room))
        #expect(try vault.status() == "")
    }

    /// The same with an editor that saved the person's words before it failed: the words and the
    /// turn both stay (the editor appended to the file the turn had written).
    @Test func aChatTurnAndTheWordsOfAFailingEditorBothStay() throws {
        let (vault, _, room) = try vaultWithAnEntryAndARoom()
        let editors = DiaryEditors()
        let chat =
            "'\(Project.vaultExecutable)' chat --vault '\(vault.root)' 부산 '편집 중에 보낸 말'"
            + " </dev/null >/dev/null 2>'\(editors.dir.path)/chat.err'\nprintf '손으로 쓴 메모\\n' >> \"$1\"\nexit 2"
        let editor = try editors.make("saver", .script(chat))
        let history = try vault.subjects()
        let r = try vault.run(["edit", room], editor: editor, extra: ["VAULT_LOCK_TIMEOUT": "5"])
        expectUserError(r, ["editor", "exit status 2", "kept"])
        let text = try vault.readText(room)
        #expect(text.contains("편집 중에 보낸 말"), "the chat turn was lost:\n\(text)")
        #expect(text.hasSuffix("손으로 쓴 메모\n"), "the editor's words were lost:\n\(text)")
        #expect(try vault.subjects().count == history.count + 2)
        #expect(try vault.committed(room) == vault.read(room))
        #expect(try vault.status() == "")
    }

    /// An editor that removes the file: the removal is kept and committed (`vault restore`
    /// brings the file back), whether the editor then succeeds or fails.
    @Test(arguments: [0, 3])
    func aFileRemovedInTheEditorStaysRemovedAndTheRemovalIsCommitted(status: Int32) throws {
        let (vault, _, room) = try vaultWithAnEntryAndARoom()
        let history = try vault.subjects()
        let editors = DiaryEditors()
        let r = try vault.run(["edit", room], editor: try editors.make("remover", .script("rm \"$1\"\nexit \(status)")))
        if status == 0 {
            try expectDiarySuccess(r, vault)
            #expect(r.stdout.contains("removed in the editor"), "\(r.stdout)")
        } else {
            expectUserError(r, ["editor", "exit status 3", room, "removed", "vault restore"])
            #expect(r.stderr.split(separator: "\n").count == 1, "more than one line: \(r.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: vault.root + "/" + room), "vault wrote the file back")
        #expect(try vault.subjects() == ["edit: \(room) (removed in the editor)"] + history)
        #expect(try vault.changedPaths() == ["D \(room)"])
        #expect(try vault.status() == "")
        try expectDiarySuccess(try vault.run(["restore", room]), vault)
        #expect(FileManager.default.fileExists(atPath: vault.root + "/" + room))
    }

    @Test func aNewEntryRemovedByAFailingEditorLeavesNothing() throws {
        let vault = try DiaryVault.fresh()
        let before = try vault.snapshot()
        let editors = DiaryEditors()
        let remover = try editors.make("remover", .script("rm \"$1\"\nexit 6"))
        let r = try vault.run(["write", "사라질 글", "--editor"], editor: remover)
        try expectDiaryFailure(
            r, ["editor", "exit status 6", "removed", "no entry was made"], vault, unchangedFrom: before)
        #expect(vault.diaryFiles() == [])
        #expect(try vault.status() == "")
    }

    @Test(arguments: ["append", "replace"])
    func todayKeepsAndCommitsWhatAFailingEditorSavedInTodaysEntry(saving: String) throws {
        let vault = try DiaryVault.fresh()
        let editors = DiaryEditors()
        try expectDiarySuccess(try vault.run(["today"], editor: try editors.make("first", .append("아침.\n"))), vault)
        let path = try #require(vault.diaryFiles().first)
        let before = try vault.read(path)
        let history = try vault.subjects()
        let r = try vault.run(["today"], editor: try editors.make("crash", .script(savingThenFailing(saving))))
        expectUserError(r, ["editor", "exit status 4", path, "kept"])
        #expect(vault.diaryFiles() == [path], "another entry was made")
        #expect(try vault.read(path) == expected(saving, from: before))
        #expect(try vault.subjects().count == history.count + 1)
        #expect(try vault.committed(path) == expected(saving, from: before))
        #expect(try vault.status() == "")
    }

    @Test(arguments: [["write", "--editor"], ["write", "제목", "--editor"], ["today"]])
    func aNewEntryKeepsAndCommitsWhatAFailingEditorSaved(arguments: [String]) throws {
        let vault = try DiaryVault.fresh()
        let history = try vault.subjects()
        let editors = DiaryEditors()
        let r = try vault.run(arguments, editor: try editors.make("crash", .appendThenFail("급히 쓴 글\n", 5)))
        let files = vault.diaryFiles()
        try #require(files.count == 1, "the words are gone: \(files); stderr: \(r.stderr)")
        expectUserError(r, ["editor", "exit status 5", files[0], "kept"])
        #expect(r.stderr.split(separator: "\n").count == 1, "more than one line: \(r.stderr)")
        #expect(try vault.readText(files[0]).hasSuffix("급히 쓴 글\n"))
        #expect(try vault.subjects().count == history.count + 1)
        #expect(try vault.committed(files[0]) == vault.read(files[0]))
        #expect(try vault.status() == "")
    }
}
