import Foundation
import Testing
import VaultCore
import VaultTestSupport

/// The README's set-up (`git init --bare`, git's own default branch, then `vault sync`) read by
/// plain git: `git clone` of the remote checks the vault out, on the branch vault pushes.
@Suite struct PlainGitCloneTests {
    @Test func aPlainGitCloneOfTheRemoteChecksOutTheVault() throws {
        let w = try SyncWorld(clones: [])
        let clone = w.folder.path + "/by-git"
        let out = try git(["clone", "-q", w.remote, clone], in: w.folder.path)
        #expect(!out.contains("nonexistent ref"), "\(out)")
        #expect(try git(["symbolic-ref", "HEAD"], in: w.remote).trimmingCharacters(in: .whitespacesAndNewlines)
            == "refs/heads/main")
        #expect(FileManager.default.fileExists(atPath: clone + "/rooms/독서-모임-발제문.md"), "checked out")
        #expect(try SyncWorld.files(at: clone) == (try w.files("laptop")).filter { !$0.key.hasPrefix(".vault/") })
    }

    /// A remote whose HEAD names a branch it has is left as its owner set it.
    @Test func aRemoteHeadThatNamesABranchIsLeftAlone() throws {
        let w = try SyncWorld(clones: [])
        _ = try git(["branch", "-q", "other", "main"], in: w.remote)
        _ = try git(["symbolic-ref", "HEAD", "refs/heads/other"], in: w.remote)
        try w.chat("laptop", "rooms/독서-모임-발제문.md", "또 한 질문")
        try w.expectOK(w.vault("laptop", ["sync"]))
        #expect(try git(["symbolic-ref", "HEAD"], in: w.remote).trimmingCharacters(in: .whitespacesAndNewlines)
            == "refs/heads/other")
    }
}
