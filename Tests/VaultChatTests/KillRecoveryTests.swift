import Foundation
import Testing
import VaultTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// A `vault` killed before it commits what it wrote: the next command of any kind that changes
/// the vault commits it (`recover: …`), so `git status` is clean after it. And SIGTERM while
/// the editor of `vault edit` is open waits for the editor, then commits.
@Suite struct KillRecoveryTests {
    @Test func aTurnKilledWhileTheReplyStreamsIsCommittedByTheNextCommand() throws {
        let (server, vault) = try startChat()
        defer { server.stop() }
        let subjects = try vault.subjects()
        // `stall` sends its first piece, then nothing for 30 s.
        let run = try BackgroundVault(
            ["chat", ChatVault.title, "죽기 전에 보낸 질문", "--provider", "local", "--model", "stall"], vault: vault)
        try run.waitForOutput(ServerText.firstPiece.trimmingCharacters(in: .whitespaces), seconds: 10)
        kill(run.process.processIdentifier, SIGKILL)
        _ = try run.wait(seconds: 10)
        #expect(run.process.terminationReason == .uncaughtSignal)
        // Killed: the message is in the room, not in git.
        let status = try git(["-c", "core.quotepath=off", "status", "--porcelain"], in: vault.path)
        #expect(status == " M \(ChatVault.roomPath)\n")

        // A command on something else: it commits what the killed turn left, then its own change.
        let write = try vault.vault(["write", "다른 일", "--body", "방과 상관없는 일기"])
        #expect(write.status == 0, "\(write.stderr)")
        let now = try vault.subjects()
        try #require(now.count == subjects.count + 2, "\(now)")
        let why = "left uncommitted by `vault chat`, which stopped before its commit"
        #expect(now[1] == "recover: \(ChatVault.roomPath) (\(why))")
        #expect(now[0].hasPrefix("diary: add "), "\(now)")
        #expect(try vault.porcelain() == "")
        let committed = roomMessages(Array(try git(["show", "HEAD:" + ChatVault.roomPath], in: vault.path).utf8))
        #expect(committed.map(\.body) == ["죽기 전에 보낸 질문"])
        // The record of the killed turn is gone, and the write left none.
        let records = (try? FileManager.default.contentsOfDirectory(atPath: vault.path + "/.vault/intents")) ?? []
        #expect(records.isEmpty, "\(records)")
    }

    @Test func sigtermWhileTheEditorIsOpenWaitsForItAndCommits() throws {
        let vault = try ChatVault(baseURL: nil)
        let subjects = try vault.subjects()
        let tools = TemporaryDirectory("editor-stand-in")
        // The editor: says it is open, waits until told to save, appends a line and exits.
        try tools.write(
            "editor.sh",
            "#!/bin/sh\ntouch \"$EDITOR_OPEN\"\nwhile [ ! -e \"$EDITOR_SAVE\" ]; do sleep 0.01; done\n"
                + "printf '편집기에서 쓴 줄\\n' >> \"$1\"\n")
        chmod(tools.path + "/editor.sh", 0o755)
        var editing = vault
        editing.environment["EDITOR"] = tools.path + "/editor.sh"
        editing.environment["VISUAL"] = ""
        editing.environment["EDITOR_OPEN"] = tools.path + "/open"
        editing.environment["EDITOR_SAVE"] = tools.path + "/save"
        let run = try BackgroundVault(["edit", ChatVault.roomPath], vault: editing)
        while !FileManager.default.fileExists(atPath: tools.path + "/open") {
            guard run.process.isRunning else {
                throw FixtureError("vault edit ended before the editor opened: \(run.stderr)")
            }
            usleep(5_000)  // sleep: poll interval: the editor opening, until vault ends
        }
        kill(run.process.processIdentifier, SIGTERM)
        try tools.write("save", "")
        let done = try run.wait(seconds: 20)
        #expect(run.process.terminationReason == .exit, "vault died of SIGTERM with the editor open")
        #expect(done.status == 128 + SIGTERM, "status \(done.status); stderr \(done.stderr)")
        #expect(try vault.dir.readText(ChatVault.roomPath).hasSuffix("편집기에서 쓴 줄\n"))
        #expect(try vault.subjects() == ["edit: \(ChatVault.roomPath)"] + subjects)
        #expect(try vault.porcelain() == "")
    }
}
