import Foundation
import Testing
import VaultTestSupport

/// An editor whose buffer went stale: while `vault edit` had the file open, a chat turn or
/// `vault tag` changed and committed it, and the editor then saved the version it was given
/// (with the person's changes). The save is merged with what was committed meanwhile, so the
/// `edit:` commit takes away only what the person saw and removed.
///
/// Each editor is a shell script that keeps a copy of the file it was given, runs the other
/// command while it is "open" (the command runs in its own process, as from another
/// terminal), then saves its copy, changed, over the file.
@Suite struct StaleEditorBufferTests {
    private let room = "rooms/부산-여행.md"

    /// A vault with the room `부산 여행` holding one answered question.
    private func vaultWithAConversation() throws -> DiaryVault {
        let vault = try DiaryVault.fresh()
        try expectDiarySuccess(try vault.run(["room", "new", "부산 여행"]), vault)
        try expectDiarySuccess(try vault.run(["chat", "부산", "처음 물은 말", "--provider", "offline"]), vault)
        return vault
    }

    /// The script: copies the file, runs `meanwhile` (exit 97 if it fails), then saves the copy
    /// with `change` (shell lines reading the copy at `$given`, writing `$1`).
    private func staleEditor(_ editors: DiaryEditors, meanwhile: String, change: String) throws -> String {
        let given = editors.dir.path + "/given"
        return try editors.make(
            "stale",
            .script(
                "given='\(given)'\ncp \"$1\" \"$given\"\n\(meanwhile) </dev/null >/dev/null"
                    + " 2>'\(editors.dir.path)/meanwhile.err' || exit 97\n\(change)"))
    }

    private func chatCommand(_ vault: DiaryVault, _ message: String) -> String {
        "'\(Project.vaultExecutable)' chat --vault '\(vault.root)' 부산 '\(message)' --provider offline"
    }

    @Test func aChatTurnMadeWhileTheRoomIsOpenSurvivesAStaleSave() throws {
        let vault = try vaultWithAConversation()
        let editors = DiaryEditors()
        let editor = try staleEditor(
            editors, meanwhile: chatCommand(vault, "편집 중에 보낸 질문"),
            change: "sed 's/처음 물은 말/고쳐 쓴 말/' \"$given\" > \"$1\"\nprintf '손으로 쓴 줄\\n' >> \"$1\"")
        let r = try vault.run(["edit", room], editor: editor, extra: ["VAULT_LOCK_TIMEOUT": "5"])
        let errors = (try? editors.dir.readText("meanwhile.err")) ?? ""
        try expectDiarySuccess(r, vault)
        #expect(r.stdout.contains("kept 2 messages that arrived while you were editing"), "\(r.stdout) \(errors)")
        let text = try vault.readText(room)
        let parsed = parseRoom(text)
        // The turn made meanwhile, the person's change to an old message, and the added line.
        #expect(parsed.messages.count == 4, "\(parsed.messages.map(\.header))\n\(text)")
        #expect(parsed.messages.map(\.body).contains("편집 중에 보낸 질문"), "the chat turn was lost:\n\(text)")
        #expect(parsed.messages.first?.body == "고쳐 쓴 말", "the person's edit was lost:\n\(text)")
        #expect(parsed.pending?.contains("손으로 쓴 줄") == true, "the added line was lost:\n\(text)")
        // History: the turn's own commit, then the edit, which removes none of its lines.
        let subjects = try vault.subjects()
        #expect(Array(subjects.prefix(2)) == ["edit: \(room)", "chat: 부산 여행 (+2 messages)"], "\(subjects)")
        let removed = try vault.git(["diff", "--unified=0", "HEAD~1", "HEAD", "--", room])
            .split(separator: "\n").filter { $0.hasPrefix("-") && !$0.hasPrefix("---") }
        #expect(removed.allSatisfy { $0.contains("처음 물은 말") }, "the edit commit removed: \(removed)")
        #expect(try vault.committed(room) == vault.read(room))
        #expect(try vault.status() == "")
    }

    /// `:wq` with no change writes the buffer it was given back: the turn stays, nothing is
    /// committed by the edit, and nothing is left for the next command to commit.
    @Test func aStaleSaveWithNoChangeKeepsTheTurnAndCommitsNothing() throws {
        let vault = try vaultWithAConversation()
        let editors = DiaryEditors()
        let editor = try staleEditor(
            editors, meanwhile: chatCommand(vault, "편집 중에 보낸 질문"), change: "cat \"$given\" > \"$1\"")
        let r = try vault.run(["edit", room], editor: editor, extra: ["VAULT_LOCK_TIMEOUT": "5"])
        try expectDiarySuccess(r, vault)
        #expect(r.stdout.contains("No change in \(room)."), "\(r.stdout)")
        let text = try vault.readText(room)
        #expect(parseRoom(text).messages.count == 4, "\(text)")
        #expect(try vault.subjects().first == "chat: 부산 여행 (+2 messages)")
        #expect(try vault.committed(room) == vault.read(room))
        #expect(try vault.status() == "")
    }

    /// A diary entry tagged while it is open: the tag and the person's line both stay.
    @Test func aTagAddedWhileTheEntryIsOpenSurvivesAStaleSave() throws {
        let vault = try DiaryVault.fresh()
        try expectDiarySuccess(
            try vault.run(["write", "바다", "--date", "2026-03-01", "--body", "파도가 높았다.\n"]), vault)
        let entry = "diary/2026/2026-03-01-바다.md"
        let editors = DiaryEditors()
        let tag = "'\(Project.vaultExecutable)' tag --vault '\(vault.root)' '\(entry)' +부산"
        let editor = try staleEditor(
            editors, meanwhile: tag, change: "cat \"$given\" > \"$1\"\nprintf '저녁에 다시 썼다.\\n' >> \"$1\"")
        let r = try vault.run(["edit", entry], editor: editor, extra: ["VAULT_LOCK_TIMEOUT": "5"])
        let errors = (try? editors.dir.readText("meanwhile.err")) ?? ""
        try expectDiarySuccess(r, vault)
        #expect(r.stdout.contains("kept the changes made to it while you were editing"), "\(r.stdout) \(errors)")
        let text = try vault.readText(entry)
        #expect(text.contains("부산"), "the tag was lost:\n\(text)")
        #expect(text.contains("저녁에 다시 썼다."), "the person's line was lost:\n\(text)")
        let subjects = try vault.subjects()
        #expect(subjects.first?.hasPrefix("diary: edit") == true, "\(subjects)")
        #expect(subjects.dropFirst().first?.hasPrefix("tag:") == true, "\(subjects)")
        #expect(try vault.committed(entry) == vault.read(entry))
        #expect(try vault.status() == "")
    }
}
