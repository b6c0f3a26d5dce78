import Foundation
import Testing
import VaultCore
import VaultTestSupport

/// What a collaborator with push access can do with plain git: commits whose trees hold
/// paths out of the vault, into `.git`, a `.vault` link, links, submodules, control
/// characters, files past the caps. Pushed to the shared bare remote, then `vault sync` and
/// `vault clone` on the receiving side. After each: nothing outside the vault changed (a
/// marker folder beside it), HEAD, the index and the files as before, and a clear message.
@Suite struct HostileRemoteTests {
    /// One attack: the entries the crafted commit adds, and what the refusal must mention
    /// (any of them: git's own fsck at the fetch refuses some before vault's gate sees them).
    struct Attack: CustomStringConvertible, Sendable {
        var name: String
        var entries: [(components: [String], text: String, mode: String)]
        var mentions: [String]
        var description: String { name }
    }

    static let attacks: [Attack] = [
        Attack(
            name: "a path out of the vault",
            entries: [(["rooms", "..", "..", "outside", "pwned"], "[core]\n\tfsmonitor = touch PWNED\n", "100644")],
            mentions: ["rooms/..", "hasDotdot", "fsck"]),
        Attack(
            name: "a hook in .GIT",
            entries: [([".GIT", "hooks", "post-merge"], "#!/bin/sh\ntouch PWNED\n", "100755")],
            mentions: [".GIT", "hasDotgit", "fsck"]),
        Attack(
            name: "a .vault link",
            entries: [([".vault"], "../outside", "120000")],
            mentions: [".vault", "for .vault"]),
        Attack(
            name: "a .vault link spelled for HFS+",
            entries: [([".va\u{200C}ult"], "../outside", "120000")],
            mentions: ["for .vault"]),
        Attack(
            name: "a room that is a link",
            entries: [(["rooms", "passwd.md"], "/etc/passwd", "120000")],
            mentions: ["rooms/passwd.md", "symbolic link"]),
        Attack(
            name: "an attachments link",
            entries: [(["attachments"], "../outside", "120000")],
            mentions: ["attachments", "symbolic link"]),
        Attack(
            name: "a submodule",
            entries: [(["rooms", "sub"], "0123456789abcdef0123456789abcdef01234567", "160000")],
            mentions: ["rooms/sub", "submodule"]),
        Attack(
            name: "a control character in a name",
            entries: [(["rooms", "a\u{1B}]52;c;cHduZWQ=\u{07}.md"], "---\ntitle: x\n---\n", "100644")],
            mentions: ["control character"]),
        Attack(
            name: "a file outside the vault's folders",
            entries: [([".envrc"], "touch PWNED\n", "100644")],
            mentions: [".envrc", "outside rooms/"]),
    ]

    /// A vault pushed to a bare remote, a plain git clone of it for the attacker, and a marker
    /// folder beside the vault.
    final class Scene {
        let world: SyncWorld
        let attacker: String
        let outside: String

        init() throws {
            world = try SyncWorld("laptop", clones: [])
            attacker = world.folder.path + "/attacker"
            // The vault's branch: the remote's HEAD stays on git's default one, unborn.
            try git(["clone", "--quiet", "--branch", "main", world.remote, attacker], in: world.folder.path)
            outside = world.folder.path + "/outside"
            try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
            try Data("marker\n".utf8).write(to: URL(fileURLWithPath: outside + "/marker"))
        }

        /// Pushes a commit with `entries` added; returns its id.
        @discardableResult
        func push(_ entries: [CraftedCommit.Entry]) throws -> String {
            let id = try CraftedCommit.make(in: attacker, adding: entries)
            try git(["push", "--quiet", "origin", id + ":refs/heads/main"], in: attacker)
            return id
        }

        /// Everything that must not change: HEAD, the index, git status, the vault's files and
        /// the marker folder (and nothing named PWNED anywhere).
        func state(_ machine: String) throws -> [String] {
            let root = world.path(machine)
            let outsideFiles = try FileManager.default.contentsOfDirectory(atPath: outside).sorted()
            let files = try world.files(machine).map { "\($0.key):\($0.value.count)" }.sorted()
            return [
                try git(["rev-parse", "HEAD"], in: root), try git(["ls-files", "-s"], in: root),
                try git(["status", "--porcelain", "--ignored"], in: root), outsideFiles.joined(separator: ","),
                files.joined(separator: ","), "\(FileManager.default.fileExists(atPath: root + "/PWNED"))",
                try git(["ls-files", "-o", "--directory"], in: root),
            ]
        }
    }

    @Test(arguments: attacks)
    func syncRefusesTheCommitAndChangesNothing(attack: Attack) throws {
        let scene = try Scene()
        let before = try scene.state("laptop")
        let id = try scene.push(attack.entries.map { CraftedCommit.Entry($0.components, $0.text, mode: $0.mode) })
        let sync = try scene.world.vault("laptop", ["sync"])
        #expect(sync.status == 1, "\(sync.stdout)\(sync.stderr)")
        #expect(attack.mentions.contains { sync.stderr.contains($0) }, "\(sync.stderr)")
        #expect(!sync.stderr.contains("\u{1B}") && !sync.stderr.contains("\u{07}"), "escapes reached the terminal")
        if !sync.stderr.contains("checks refuse") {
            // vault's gate, not git's fsck: the message names the commit.
            #expect(sync.stderr.contains(String(id.prefix(10))), "\(sync.stderr)")
        }
        #expect(try scene.state("laptop") == before)
        // A dry run refuses it the same way, and a status afterwards is clean.
        let dry = try scene.world.vault("laptop", ["sync", "--dry-run"])
        #expect(dry.status == 1 && attack.mentions.contains { dry.stderr.contains($0) }, "\(dry.stderr)")
        #expect(try scene.state("laptop") == before)
    }

    @Test(arguments: attacks)
    func cloneRefusesTheCommitAndKeepsNothing(attack: Attack) throws {
        let scene = try Scene()
        try scene.push(attack.entries.map { CraftedCommit.Entry($0.components, $0.text, mode: $0.mode) })
        let target = scene.world.folder.path + "/victim"
        let clone = try scene.world.vault("laptop", ["clone", scene.world.remote, target], in: scene.world.folder.path)
        #expect(clone.status == 1, "\(clone.stdout)\(clone.stderr)")
        #expect(attack.mentions.contains { clone.stderr.contains($0) }, "\(clone.stderr)")
        #expect(!FileManager.default.fileExists(atPath: target), "the clone's folder was kept")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scene.outside) == ["marker"])
    }

    /// A room whose title and last message are full of terminal escapes (OSC 52 clipboard
    /// write, screen clear, BEL, C1 CSI) arrives by an ordinary commit (a file name with them is
    /// refused by the gate), and one is placed by hand: every command that shows them shows
    /// the escapes as text.
    @Test func whatArrivesReachesTheTerminalEscaped() throws {
        let scene = try Scene()
        let evil = "\u{1B}]52;c;cHduZWQ=\u{07}\u{1B}[2J\u{9B}31m"
        let room =
            "---\ntitle: \"t\\e]52;c;cHduZWQ=\\a\\e[2J\\x9b31m\"\ncreated: 2026-11-01T09:00:00+09:00\n---\n\n"
            + "## 🧑 user · x <!-- 2026-11-01T09:00:00+09:00 m-0000000000EV -->\n\nhi \(evil)\n\n"
        try scene.push([CraftedCommit.Entry(["rooms", "evil.md"], room)])
        let w = scene.world
        var outputs: [String: String] = [:]
        let sync = try w.vault("laptop", ["sync"])
        #expect(sync.status == 0, "\(sync.stderr)")
        outputs["sync"] = sync.stdout + sync.stderr
        try w.write("laptop", "rooms/e\(evil).md", room + "more \(evil)\n")
        for command in [["status"], ["check"], ["rooms"], ["log", "-n", "3"], ["sync", "--dry-run"], ["resolve"]] {
            let r = try w.vault("laptop", command)
            outputs[command.joined(separator: " ")] = r.stdout + r.stderr
        }
        let cloned = try w.vault("laptop", ["clone", w.remote, w.folder.path + "/c"], in: w.folder.path)
        outputs["clone"] = cloned.stdout + cloned.stderr
        for (command, output) in outputs {
            #expect(!output.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" || $0 == "\u{9B}" }, "\(command)")
        }
        #expect(outputs["sync"]!.contains("^[]52;c;"), "\(outputs["sync"]!)")
        #expect(outputs["status"]!.contains("^[]52;c;"), "\(outputs["status"]!)")
    }

    @Test func aLaterCommitWithoutTheBadPathIsTakenAgain() throws {
        let scene = try Scene()
        let id = try scene.push([CraftedCommit.Entry(["rooms", "link.md"], "/etc/passwd", mode: "120000")])
        #expect(try scene.world.vault("laptop", ["sync"]).status == 1)
        try git(["reset", "--quiet", id], in: scene.attacker)
        // The attacker's collaborator removes it: the remote's tip is clean again.
        try git(["rm", "--quiet", "--cached", "rooms/link.md"], in: scene.attacker)
        try git(["-c", "user.name=M", "-c", "user.email=m@example.com", "commit", "--quiet", "-m", "rm"], in: scene.attacker)
        try git(["push", "--quiet", "origin", "HEAD:main"], in: scene.attacker)
        try scene.world.expectOK(scene.world.vault("laptop", ["sync"]))
        #expect(!FileManager.default.fileExists(atPath: scene.world.path("laptop") + "/rooms/link.md"))
        try scene.world.expectHealthy("laptop")
    }

    @Test func filesPastTheCapsAreRefusedAndVaultYmlLowersThem() throws {
        let scene = try Scene()
        let w = scene.world
        // Small caps, so the test needs no large files.
        let config = try w.read("laptop", "vault.yml") + "limits:\n  max_file_size: 4K\n  max_sync_size: 10K\n"
        try w.write("laptop", "vault.yml", config)
        try w.expectOK(w.vault("laptop", ["sync"]))
        try git(["pull", "--quiet", "--no-rebase", "origin", "main"], in: scene.attacker)
        let big = String(repeating: "가", count: 2_000)  // 6,000 bytes
        try scene.push([CraftedCommit.Entry(["rooms", "big.md"], "---\ntitle: big\n---\n\n" + big)])
        var before = try scene.state("laptop")
        var sync = try w.vault("laptop", ["sync"])
        #expect(sync.status == 1 && sync.stderr.contains("rooms/big.md") && sync.stderr.contains("4 KiB"), "\(sync.stderr)")
        #expect(sync.stderr.contains("max_file_size"), "\(sync.stderr)")
        #expect(try scene.state("laptop") == before)
        // Many files, each under the file cap, past the sync's cap together.
        try git(["push", "--quiet", "--force", "origin", "HEAD:main"], in: scene.attacker)
        let third = String(repeating: "x", count: 3_000)
        try scene.push((1...4).map { CraftedCommit.Entry(["rooms", "r\($0).md"], "---\ntitle: r\n---\n\n" + third) })
        before = try scene.state("laptop")
        sync = try w.vault("laptop", ["sync"])
        #expect(sync.status == 1 && sync.stderr.contains("max_sync_size"), "\(sync.stderr)")
        #expect(try scene.state("laptop") == before)
        // Lowered less in vault.yml (still under this machine's caps), the same commit comes in.
        try w.write("laptop", "vault.yml", config.replacingOccurrences(of: "10K", with: "1M"))
        sync = try w.vault("laptop", ["sync"])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(FileManager.default.fileExists(atPath: w.path("laptop") + "/rooms/r4.md"))
    }

    @Test func aFileWithALinePastTheCapIsRefused() throws {
        let scene = try Scene()
        let w = scene.world
        try w.write("laptop", "vault.yml", try w.read("laptop", "vault.yml") + "limits:\n  max_line_length: 1K\n")
        try w.expectOK(w.vault("laptop", ["sync"]))
        try git(["pull", "--quiet", "--no-rebase", "origin", "main"], in: scene.attacker)
        let line = String(repeating: "a", count: 3_000)
        try scene.push([CraftedCommit.Entry(["rooms", "line.md"], "---\ntitle: l\n---\n\n" + line + "\n")])
        let before = try scene.state("laptop")
        let sync = try w.vault("laptop", ["sync"])
        #expect(sync.status == 1, "\(sync.stderr)")
        #expect(sync.stderr.contains("rooms/line.md with a line of 2 KiB") && sync.stderr.contains("max_line_length"),
            "\(sync.stderr)")
        #expect(try scene.state("laptop") == before)
    }

    // MARK: Plain `git pull`

    /// `git pull` by hand on the receiving machine (`vault` on the PATH for the merge driver, or not).
    func gitPull(_ w: SyncWorld, _ machine: String, withDriver: Bool) throws -> RunResult {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["git", "-c", "user.name=T", "-c", "user.email=t@example.com", "pull", "--no-rebase", "--no-edit",
            "origin", "main"]
        p.currentDirectoryURL = URL(fileURLWithPath: w.path(machine))
        var env = ProcessInfo.processInfo.environment
        env["PATH"] = withDriver ? SyncWorld.pathWithVault : "/usr/bin:/bin"
        env["LC_ALL"] = "C"
        p.environment = env
        return try run(p)
    }

    /// git itself writes a `.vault` link a pull brings (it replaces the ignored folder): every
    /// vault command then refuses to work through it, and nothing lands where it points.
    @Test func aVaultLinkBroughtByGitPullIsNeverFollowed() throws {
        let scene = try Scene()
        try scene.push([CraftedCommit.Entry([".vault"], "../outside", mode: "120000")])
        let pulled = try gitPull(scene.world, "laptop", withDriver: true)
        #expect(pulled.status == 0, "\(pulled.stderr)")
        let room = try scene.world.read("laptop", "rooms/부산-여행.md")
        for arguments in [["chat", "부산", "안녕", "--provider", "offline"], ["sync"], ["resolve"], ["unlock"]] {
            let r = try scene.world.vault("laptop", arguments)
            #expect(r.status == 1, "vault \(arguments.joined(separator: " ")): \(r.stderr)")
            #expect(r.stderr.contains(".vault is a symbolic link (to ../outside)"), "\(r.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: scene.outside) == ["marker"])
        #expect(try scene.world.read("laptop", "rooms/부산-여행.md") == room)
    }

    /// Both sides changed one room; the other side's version is past the file cap. The merge
    /// driver refuses it (git stops with the room unmerged), and `vault resolve` refuses the
    /// unfinished merge's other side too: no file of it is written, the merge is not committed.
    @Test func theMergeDriverAndResolveHoldAPulledFileToTheCaps() throws {
        let scene = try Scene()
        let w = scene.world
        let room = "rooms/부산-여행.md"
        try w.write("laptop", "vault.yml", try w.read("laptop", "vault.yml") + "limits:\n  max_file_size: 8K\n")
        try w.expectOK(w.vault("laptop", ["sync"]))
        try git(["pull", "--quiet", "--no-rebase", "origin", "main"], in: scene.attacker)
        let original = try String(contentsOfFile: scene.attacker + "/" + room, encoding: .utf8)
        try scene.push([CraftedCommit.Entry(["rooms", "부산-여행.md"], original + String(repeating: "가", count: 5_000))])
        try w.chat("laptop", room, "이쪽에서")
        let pulled = try gitPull(w, "laptop", withDriver: true)
        #expect(pulled.status != 0, "\(pulled.stdout)\(pulled.stderr)")
        #expect(pulled.stderr.contains("more than the 8 KiB a file may have"), "\(pulled.stderr)")
        let head = try git(["rev-parse", "HEAD"], in: w.path("laptop"))
        let resolve = try w.vault("laptop", ["resolve"])
        #expect(resolve.status == 1 && resolve.stderr.contains("max_file_size"), "\(resolve.stderr)")
        #expect(try git(["rev-parse", "HEAD"], in: w.path("laptop")) == head, "the merge was not committed")
        #expect(!(try w.read("laptop", room)).contains(String(repeating: "가", count: 5_000)))
        #expect(try w.read("laptop", room).contains("이쪽에서"))
    }

    /// A pull without the driver leaves an unfinished merge whose other side holds a link:
    /// `vault resolve` names it and finishes nothing.
    @Test func resolveRefusesAnUnfinishedMergeThatBroughtALink() throws {
        let scene = try Scene()
        let w = scene.world
        let room = "rooms/부산-여행.md"
        let original = try String(contentsOfFile: scene.attacker + "/" + room, encoding: .utf8)
        try scene.push([
            CraftedCommit.Entry(["rooms", "부산-여행.md"], original + "\n저쪽\n"),
            CraftedCommit.Entry(["rooms", "passwd.md"], "/etc/passwd", mode: "120000"),
        ])
        try w.write("laptop", room, original + "\n이쪽\n")
        try git(["-c", "user.name=T", "-c", "user.email=t@e", "commit", "-qam", "mine"], in: w.path("laptop"))
        let pulled = try gitPull(w, "laptop", withDriver: false)
        #expect(pulled.status != 0)
        let head = try git(["rev-parse", "HEAD"], in: w.path("laptop"))
        let resolve = try w.vault("laptop", ["resolve"])
        #expect(resolve.status == 1, "\(resolve.stdout)\(resolve.stderr)")
        #expect(resolve.stderr.contains("rooms/passwd.md") && resolve.stderr.contains("symbolic link"), "\(resolve.stderr)")
        #expect(try git(["rev-parse", "HEAD"], in: w.path("laptop")) == head)
        #expect(FileManager.default.fileExists(atPath: w.path("laptop") + "/.git/MERGE_HEAD"))
    }

    @Test func aPlaceThisMachineAcceptsComesIn() throws {
        let scene = try Scene()
        try git(["config", "vault.acceptPaths", "notes/"], in: scene.world.path("laptop"))
        try scene.push([CraftedCommit.Entry(["notes", "todo.md"], "milk\n")])
        try scene.world.expectOK(scene.world.vault("laptop", ["sync"]))
        #expect(try scene.world.read("laptop", "notes/todo.md") == "milk\n")
    }

    /// README's "Sync" set-up with git's own default branch: `git init --bare` with no
    /// `init.defaultBranch` leaves the remote's HEAD on `master`, unborn; vault pushes `main`.
    @Test func theReadmeSetUpWorksOnADefaultBareRepository() throws {
        let folder = TemporaryDirectory("vault-readme-sync")
        let remote = folder.path + "/vault.git"
        var env = ProcessInfo.processInfo.environment
        env["GIT_CONFIG_GLOBAL"] = folder.path + "/no-global-config"  // no init.defaultBranch
        let bare = Process()
        bare.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        bare.arguments = ["git", "init", "--quiet", "--bare", remote]
        bare.environment = env
        #expect(try run(bare).status == 0)
        let head = try git(["symbolic-ref", "HEAD"], in: remote).trimmingCharacters(in: .whitespacesAndNewlines)
        let laptop = folder.path + "/laptop"
        try FileManager.default.copyItem(atPath: Project.root + "/sample-vault", toPath: laptop)
        let vaultEnv = ["VAULT_MACHINE": "laptop", "PATH": SyncWorld.pathWithVault]
        for args in [["init", "."], ["remote", "add", "origin", remote], ["sync"]] {
            let r = try runVault(args, in: laptop, environment: vaultEnv)
            #expect(r.status == 0, "vault \(args): \(r.stderr)")
        }
        let cloned = try runVault(["clone", remote, "desktop"], in: folder.path, environment: vaultEnv)
        #expect(cloned.status == 0, "remote HEAD \(head): \(cloned.stderr)")
        let desktop = folder.path + "/desktop"
        #expect(try git(["symbolic-ref", "HEAD"], in: desktop) == "refs/heads/main\n")
        #expect(try git(["status", "--porcelain"], in: desktop) == "")
        #expect(try git(["rev-parse", "--abbrev-ref", "main@{upstream}"], in: desktop) == "origin/main\n")
        #expect(try runVault(["rooms"], in: desktop, environment: vaultEnv).stdout.contains("부산"))
        let chat = try runVault(["chat", "부산", "안녕", "--provider", "offline"], in: desktop, environment: vaultEnv)
        #expect(chat.status == 0, "\(chat.stderr)")
        #expect(try runVault(["sync"], in: desktop, environment: vaultEnv).status == 0)
        #expect(try runVault(["sync"], in: laptop, environment: vaultEnv).status == 0)
        #expect(try String(contentsOfFile: laptop + "/rooms/부산-여행.md", encoding: .utf8).contains("안녕"))
    }
}
