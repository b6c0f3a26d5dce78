import Foundation
import Testing
import VaultCore
import VaultGit
import VaultImport
import VaultTestSupport

/// The ChatGPT and Claude readers through the import workflow, on a real vault and repository.
@Suite struct ChatExportImportingTests {
    func vault() throws -> (TemporaryDirectory, Vault) {
        let dir = TemporaryDirectory("vault-import-chat")
        let made = try Initializing.run(at: dir.path, locale: "ko_KR", timeZone: TimeZone(identifier: "Asia/Seoul")!, settings: .ofThisTest)
        return (dir, made.vault.with(history: try GitHistory(vault: dir.path, config: made.vault.config)))
    }

    @Test func aChatGPTZipImportsOnceAndAgainChangesNothing() throws {
        let export = try ChatGPTFixture.folder(split: true)
        try makeZip(export.path + "/export.zip", try export.files().map { ($0, try export.read($0)) })
        let (dir, vault) = try vault()
        let first = try Importing(vault: vault).run(ChatGPTReader(), paths: [export.path + "/export.zip"])
        // Two conversations, the first with two branches; 11 + 1 + 2 transcript and branch messages.
        #expect(first.roomsNew == 4 && first.branches == 2 && first.attachments == 1 && first.committed)
        #expect(first.messagesAdded == 11 + 2 + 3)
        let again = try Importing(vault: vault).run(ChatGPTReader(), paths: [export.path + "/export.zip"])
        #expect(again.roomsNew == 0 && again.roomsUpdated == 0 && again.messagesAdded == 0 && !again.committed)
        #expect(try git(["status", "--porcelain"], in: dir.path).isEmpty)
    }

    @Test func aClaudeExportImportsWithItsBranch() throws {
        let export = try ClaudeFixture.folder()
        let (dir, vault) = try vault()
        defer { withExtendedLifetime(dir) {} }
        let report = try Importing(vault: vault).run(ClaudeReader(), paths: [export.path])
        #expect(report.roomsNew == 3 && report.branches == 1 && report.attachments == 1)
        #expect(report.messagesAdded == 8 + 2 + 2)
    }
}
