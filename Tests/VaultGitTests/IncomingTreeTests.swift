import CGit2
import Foundation
import Testing
import VaultTestSupport

@testable import VaultCore
@testable import VaultGit

/// The gate itself (`IncomingTree`), on commits crafted byte by byte in a real repository, and
/// the name rules (`IncomingPath`) against git's own `verify_path`: every name git refuses
/// (with `core.protectHFS` and `core.protectNTFS`), vault refuses too.
@Suite struct IncomingTreeTests {
    /// A vault with one commit, and a commit on top of it with `entries` added.
    func craft(_ entries: [CraftedCommit.Entry]) throws -> (TemporaryDirectory, GitHistory, OpaquePointer) {
        let dir = try initVault("vault-incoming")
        let id = try CraftedCommit.make(in: dir.path, adding: entries)
        let vault = try Vault(root: dir.path)
        let history = try GitHistory(vault: dir.path, config: vault.config)
        var oid = git_oid()
        #expect(git_oid_fromstr(&oid, id) == 0)
        var commit: OpaquePointer?
        #expect(git_commit_lookup(&commit, history.repo, &oid) == 0)
        return (dir, history, commit!)
    }

    func refusal(_ entries: [CraftedCommit.Entry], fromNothing: Bool = false) throws -> UntrustedInput? {
        let (dir, history, commit) = try craft(entries)
        let result = Result { () throws(VaultError) in
            if fromNothing {
                try IncomingTree(history: history, limits: IncomingLimits(), capsTotal: false)
                    .check(git_commit_tree_id(commit).pointee, against: nil, commit: "c")
            } else {
                try history.admit(commit: commit, limits: IncomingLimits())
            }
        }
        git_commit_free(commit)
        withExtendedLifetime(dir) {}
        switch result {
        case .success: return nil
        case .failure(.untrusted(let problem)): return problem
        case .failure(let error): throw error
        }
    }

    @Test(arguments: [
        (["rooms", "..", "x.md"], IncomingPath.Problem.dotDot),
        (["..", "x"], .dotDot),
        (["rooms", ".", "x.md"], .dotDot),
        (["rooms", "", "x.md"], .empty),
        ([".git", "hooks", "post-merge"], .reserved(".git")),
        (["rooms", ".Git ", "config"], .reserved(".git")),
        (["GIT~1", "config"], .reserved(".git")),
        ([".vault", "journal"], .reserved(".vault")),
        ([".VAULT.", "lock"], .reserved(".vault")),
        (["\u{FEFF}.vault", "lock"], .reserved(".vault")),
        (["rooms", "a\u{7}.md"], .controlCharacter),
        (["notes.md"], .outsideLayout),
    ])
    func theGateRefusesANameGitsFetchWouldNotSee(components: [String], problem: IncomingPath.Problem) throws {
        let found = try refusal([CraftedCommit.Entry(components, "x\n")])
        guard case .refusedPath(_, let path, let why)? = found else {
            Issue.record("not refused: \(components)")
            return
        }
        #expect(why == problem)
        #expect(path == components.joined(separator: "/") || components.joined(separator: "/").hasPrefix(path))
    }

    @Test func invalidUTF8InANameIsRefused() throws {
        var entry = CraftedCommit.Entry(["rooms", "x"], "x\n")
        entry.components[1] = [0x78, 0xFF, 0x2E, 0x6D, 0x64]
        guard case .refusedPath(_, _, .invalidUTF8)? = try refusal([entry]) else {
            Issue.record("not refused")
            return
        }
    }

    @Test func modesOtherThanFilesAndFoldersAreRefused() throws {
        let link = try refusal([CraftedCommit.Entry(["rooms", "l.md"], "/etc/passwd", mode: "120000")])
        #expect(link == .refusedPath(commit: link.map(commitOf) ?? "", path: "rooms/l.md", problem: .symbolicLink))
        let sub = try refusal([
            CraftedCommit.Entry(["diary", "s"], "0123456789abcdef0123456789abcdef01234567", mode: "160000")
        ])
        #expect(sub == .refusedPath(commit: sub.map(commitOf) ?? "", path: "diary/s", problem: .submodule))
        let odd = try refusal([CraftedCommit.Entry(["rooms", "o.md"], "x", mode: "100664")])
        #expect(odd == .refusedPath(commit: odd.map(commitOf) ?? "", path: "rooms/o.md", problem: .mode(0o100664)))
        #expect(try refusal([CraftedCommit.Entry(["rooms", "run.md"], "x", mode: "100755")]) == nil)
    }

    func commitOf(_ problem: UntrustedInput) -> String {
        if case .refusedPath(let commit, _, _) = problem { return commit }
        return ""
    }

    @Test func whatTheVaultAlreadyHoldsIsNotCheckedAgainButAClonedTreeIsCheckedWhole() throws {
        // A vault with a file outside its folders, committed by its own user.
        let (dir, history, commit) = try craft([CraftedCommit.Entry(["rooms", "new.md"], "---\ntitle: n\n---\n")])
        defer { git_commit_free(commit) }
        try dir.write("README.md", "mine\n")
        try git(["add", "README.md"], in: dir.path)
        try git(["-c", "user.name=U", "-c", "user.email=u@example.com", "commit", "-qm", "readme"], in: dir.path)
        let next = try CraftedCommit.make(in: dir.path, adding: [CraftedCommit.Entry(["rooms", "b.md"], "b\n")])
        var oid = git_oid()
        _ = git_oid_fromstr(&oid, next)
        var nextCommit: OpaquePointer?
        #expect(git_commit_lookup(&nextCommit, history.repo, &oid) == 0)
        defer { git_commit_free(nextCommit) }
        // README.md is in HEAD already: a sync takes the commit.
        try history.admit(commit: nextCommit!, limits: IncomingLimits())
        // Cloned from nothing, README.md is outside the layout.
        #expect(throws: VaultError.self) {
            try IncomingTree(history: history, limits: IncomingLimits(), capsTotal: false)
                .check(git_commit_tree_id(nextCommit!).pointee, against: nil, commit: "c")
        }
    }

    /// The oracle is git's `update-index`, which applies `verify_path` with both protections on.
    @Test func everyNameGitRefusesIsRefused() throws {
        let dir = try initVault("vault-names")
        try git(["config", "core.protectHFS", "true"], in: dir.path)
        try git(["config", "core.protectNTFS", "true"], in: dir.path)
        let blob = try git(["hash-object", "-w", "--stdin"], in: dir.path, stdin: "x\n")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        // Spellings of `.git` and near misses: a prefix, a core, an ending, in random mixes.
        let prefixes = [".", "", "..", "\u{200C}.", " ."]
        let cores = ["git", "GIT", "Git", "g\u{200C}it", "gi\u{FEFF}t", "g\u{206F}IT", "gitt", "vault", "gi"]
        let endings = ["", ".", " ", ". .", "~1", "~2", "::$INDEX_ALLOCATION", ":x", "a", "\u{200D}"]
        var random = SeededRandom(seed: 2026_11_26)
        var names: Set<String> = [".git", "..", "GIT~1", ".git.", ".g\u{200D}it", "git~1"]
        while names.count < 250 {
            names.insert(
                prefixes.randomElement(using: &random)! + cores.randomElement(using: &random)!
                    + endings.randomElement(using: &random)!)
        }
        var gitRefused = 0
        for name in names.sorted() {
            let path = "rooms/" + name + "/x.md"
            let accepted = (try? git(["update-index", "--add", "--cacheinfo", "100644,\(blob),\(path)"], in: dir.path)) != nil
            if accepted { _ = try? git(["update-index", "--force-remove", path], in: dir.path) }
            let ours = IncomingPath.problem(with: path)
            if !accepted {
                gitRefused += 1
                #expect(ours != nil, "git refuses \(Array(name.unicodeScalars)), vault does not")
            }
        }
        #expect(gitRefused > 20, "the random names rarely hit git's rules: \(gitRefused)")
    }
}
