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

/// The same set-up over a network, where vault cannot reach the remote's HEAD: `git init --bare`
/// on the "server" (git's own default branch, `master`, unborn), then `vault sync` of a vault on
/// `main` over ssh (`SSHPeer`) and smart HTTP (`GitHTTPServer`). The remote's HEAD is asked
/// before the first push (protocol v2 says where an unborn HEAD points) and the vault's branch
/// goes there, so a plain `git clone` checks the vault out; `vault clone`, a second vault's sync
/// and plain `git pull`/`git push` in the first vault work on that branch.
@Suite struct PlainGitCloneOverNetworkTests {
    static let room = "rooms/독서-모임-발제문.md"

    @Test func overSSHAPlainGitCloneChecksOutTheVault() throws {
        let peer = try SSHPeer()
        let w = NetWorld()
        let bare = try w.bareRepository()
        w.serve(peer.url(bare), by: peer)
        try expectPlainGitWorks(w, bare: bare, env: ["HOME": peer.home])
    }

    @Test func overHTTPAPlainGitCloneChecksOutTheVault() throws {
        let w = NetWorld()
        let bare = try w.bareRepository()
        let server = try GitHTTPServer(root: w.remotes)
        w.serve(server.url("notes"), by: server)
        try expectPlainGitWorks(w, bare: bare, env: server.environment())
    }

    /// A server that speaks protocol v0 (here the client asks for it; an sshd without
    /// `AcceptEnv GIT_PROTOCOL` does the same) says nothing of an unborn HEAD: vault pushes its
    /// own branch, as before, and says what to run on the server; once that is run, a plain
    /// `git clone` checks the vault out.
    @Test func aRemoteThatDoesNotSayWhereItsHeadPointsGetsANote() throws {
        let peer = try SSHPeer()
        let w = NetWorld()
        let bare = try w.bareRepository()
        w.serve(peer.url(bare), by: peer)
        let v0 = ["HOME": peer.home, "GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "protocol.version", "GIT_CONFIG_VALUE_0": "0"]
        let synced = try w.makeFirst("laptop", v0)
        #expect(synced.stdout.contains("git symbolic-ref HEAD refs/heads/main"), "\(synced.stdout)")
        #expect(try refs(bare) == ["refs/heads/main"])
        #expect(!(try git(["config", "--local", "--list"], in: w.path("laptop"))).contains("remote.origin.push"))
        let failed = try plainGit(w, ["clone", "-q", w.url, w.folder.path + "/by-git"], in: w.folder.path, ["HOME": peer.home])
        #expect(failed.stderr.contains("remote HEAD refers to nonexistent ref"), "\(failed.stderr)")

        // What the note says, run on the server.
        _ = try git(["symbolic-ref", "HEAD", "refs/heads/main"], in: bare)
        let cloned = try plainGit(w, ["clone", "-q", w.url, w.folder.path + "/by-git-2"], in: w.folder.path, ["HOME": peer.home])
        #expect(cloned.status == 0 && !cloned.stderr.contains("nonexistent"), "\(cloned.stderr)")
        #expect(FileManager.default.fileExists(atPath: w.folder.path + "/by-git-2/" + Self.room))

        // A later sync asks nothing more and says nothing more.
        try w.chat("laptop", Self.room, "v0 서버로 또")
        let again = try w.vault("laptop", ["sync"], v0)
        try w.expectOK(again)
        #expect(!again.stdout.contains("symbolic-ref"), "\(again.stdout)")
    }

    /// A remote whose HEAD names a branch it has (its owner chose one) is synced on the vault's
    /// own branch, as before: only an empty remote's HEAD is followed.
    @Test func aNetworkRemoteThatHasBranchesIsNotRemapped() throws {
        let peer = try SSHPeer()
        let w = NetWorld()
        let bare = try w.bareRepository()
        w.serve(peer.url(bare), by: peer)
        let env = ["HOME": peer.home]
        // Someone pushed an unrelated branch first; HEAD names it.
        let other = w.folder.path + "/other"
        _ = try git(["init", "-q", "-b", "notes", other], in: w.folder.path)
        try "x\n".write(toFile: other + "/x.txt", atomically: true, encoding: .utf8)
        _ = try git(["add", "x.txt"], in: other)
        _ = try git(["-c", "user.name=o", "-c", "user.email=o@e", "commit", "-qm", "x"], in: other)
        _ = try git(["push", "-q", bare, "notes"], in: other)
        _ = try git(["symbolic-ref", "HEAD", "refs/heads/notes"], in: bare)
        // Refused as before (a remote with branches and no vault among them), nothing remapped.
        let refused = try w.makeFirst("laptop", env, expectSync: false)
        #expect(refused.status != 0 && refused.stderr.contains("no branch main"), "\(refused.stderr)")
        #expect(!(try git(["config", "--local", "--list"], in: w.path("laptop"))).contains("remote.origin.push"))
        #expect(try refs(bare) == ["refs/heads/notes"])
    }

    // MARK: Helpers

    private func expectPlainGitWorks(_ w: NetWorld, bare: String, env: [String: String]) throws {
        #expect(try git(["symbolic-ref", "HEAD"], in: bare) == "refs/heads/master\n", "git's own default branch")
        let synced = try w.makeFirst("laptop", env)
        let laptop = w.path("laptop")
        #expect(synced.stdout.contains("HEAD names the branch master"), "\(synced.stdout)")
        // The vault's branch went to the branch HEAD names, and nowhere else.
        #expect(try refs(bare) == ["refs/heads/master"])
        #expect(try git(["rev-parse", "master"], in: bare) == git(["rev-parse", "HEAD"], in: laptop))
        #expect(try git(["symbolic-ref", "HEAD"], in: laptop) == "refs/heads/main\n")
        #expect(try git(["config", "--get-all", "remote.origin.push"], in: laptop) == "refs/heads/main:refs/heads/master\n")
        #expect(try git(["config", "branch.main.merge"], in: laptop) == "refs/heads/master\n")

        // A plain `git clone` checks the vault out.
        let byGit = w.folder.path + "/by-git"
        let cloned = try plainGit(w, ["clone", "-q", w.url, byGit], in: w.folder.path, env)
        #expect(cloned.status == 0 && !cloned.stderr.contains("nonexistent ref"), "\(cloned.stderr)")
        #expect(FileManager.default.fileExists(atPath: byGit + "/" + Self.room), "checked out")
        #expect(try SyncWorld.files(at: byGit) == (try w.files("laptop")).filter { !$0.key.hasPrefix(".vault/") })

        // `vault clone` and a second vault's sync.
        try w.expectOK(w.clone("desktop", env))
        #expect(try git(["symbolic-ref", "HEAD"], in: w.path("desktop")) == "refs/heads/master\n")
        try w.chat("laptop", Self.room, "노트북에서")
        try w.chat("desktop", Self.room, "데스크톱에서")
        try w.expectOK(w.vault("laptop", ["sync"], env))
        try w.expectOK(w.vault("desktop", ["sync"], env))
        let back = try w.vault("laptop", ["sync"], env)
        try w.expectOK(back)
        #expect(!back.stdout.contains("HEAD names"), "said once: \(back.stdout)")
        try w.expectIdentical("laptop", "desktop", remote: bare)
        #expect(try refs(bare) == ["refs/heads/master"])
        let status = try w.vault("laptop", ["status"], env)
        #expect(status.stdout.contains("main against origin/master (as of the last fetch): 0 ahead, 0 behind"), "\(status.stdout)")

        // Plain `git pull` and `git push` in the first vault use the same branch.
        try w.chat("desktop", Self.room, "git pull로 받을 말")
        try w.expectOK(w.vault("desktop", ["sync"], env))
        let pulled = try plainGit(w, ["pull", "-q", "--no-rebase"], in: laptop, env)
        #expect(pulled.status == 0, "\(pulled.stderr)")
        #expect(try w.read("laptop", Self.room).contains("git pull로 받을 말"))
        try w.chat("laptop", Self.room, "git push로 보낼 말")
        let pushed = try plainGit(w, ["push", "-q"], in: laptop, env)
        #expect(pushed.status == 0, "\(pushed.stderr)")
        #expect(try git(["rev-parse", "master"], in: bare) == git(["rev-parse", "HEAD"], in: laptop))
        #expect(try refs(bare) == ["refs/heads/master"])
        try w.expectOK(w.vault("desktop", ["sync"], env))
        #expect(try w.read("desktop", Self.room).contains("git push로 보낼 말"))
    }

    private func refs(_ bare: String) throws -> [String] {
        try git(["for-each-ref", "--format=%(refname)"], in: bare).split(separator: "\n").map(String.init)
    }

    /// Plain `git`, as the person types it, with the world's environment (no vault variables).
    private func plainGit(_ w: NetWorld, _ arguments: [String], in directory: String, _ extra: [String: String]) throws
        -> RunResult
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git"] + arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.environment = w.environment(nil, extra)
        return try run(process)
    }
}
