import Foundation
import Testing
import VaultCore
import VaultTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The ground issue #36 had not tried, each attack pushed with plain git to the shared bare remote
/// (`HostileRemoteTests.Scene`): format 3 volumes that are huge, links, badly named or holding
/// another file's message ids; `.gitattributes` and `.gitmodules` that name commands; `vault
/// watch` facing a remote that pushes something hostile every few seconds. After each: the
/// message says what and where, nothing changed (HEAD, the index, the files, a marker folder
/// beside the vault), no command ran, and no lock is left.
@Suite struct UntriedGroundTests {
    typealias Scene = HostileRemoteTests.Scene

    /// No process holds the vault's locks, and git's lock files are gone.
    static func expectNoLockLeft(_ root: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        for lock in [".vault/lock", ".vault/sync-lock"] {
            let fd = open(root + "/" + lock, O_RDWR | O_CLOEXEC)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            #expect(flock(fd, LOCK_EX | LOCK_NB) == 0, "\(lock) is held", sourceLocation: sourceLocation)
            flock(fd, LOCK_UN)
        }
        let e = FileManager.default.enumerator(atPath: root + "/.git")
        var left: [String] = []
        while let p = e?.nextObject() as? String {
            if p.hasPrefix("objects/") || p.hasPrefix("vault-locks") { continue }
            if p.hasSuffix(".lock") { left.append(p) }
        }
        #expect(left.isEmpty, "git locks left: \(left)", sourceLocation: sourceLocation)
    }

    /// A format 3 vault (`vault migrate`) with a room `trip`, pushed; the attacker's clone up to date.
    static func formatThreeScene() throws -> Scene {
        let scene = try Scene()
        let w = scene.world
        try w.expectOK(w.vault("laptop", ["migrate"]))
        try w.expectOK(w.vault("laptop", ["room", "new", "Trip"]))
        try w.chat("laptop", "trip", "hello")
        try w.expectOK(w.vault("laptop", ["sync"]))
        try git(["pull", "--quiet", "--no-rebase", "origin", "main"], in: scene.attacker)
        return scene
    }

    /// Where a format 3 vault keeps the room made this year, and its volumes.
    static var room: String { "rooms/\(Calendar(identifier: .gregorian).component(.year, from: Date()))/trip.md" }
    static var volumes: [String] { ["volumes", String(room.dropFirst(6).dropLast(8)), "trip"] }
    static var volumeHead: String { "---\ntitle: Trip\nroom: \(room)\nvolume: 1\n---\n\n" }

    struct VolumeAttack: CustomStringConvertible, Sendable {
        var name: String
        var components: [String]
        var text: String
        var mode = "100644"
        var mentions: [String]
        var description: String { name }
    }

    static let volumeAttacks: [VolumeAttack] = [
        VolumeAttack(
            name: "a volume that is a link", components: volumes + ["0001.md"], text: "/etc/passwd",
            mode: "120000", mentions: [volumes.joined(separator: "/") + "/0001.md", "symbolic link"]),
        VolumeAttack(
            name: "a volume folder that is a link", components: volumes, text: "../../outside",
            mode: "120000", mentions: [volumes.joined(separator: "/"), "symbolic link"]),
        VolumeAttack(
            name: "a volume name climbing out", components: ["volumes", "..", "..", "outside", "0001.md"],
            text: volumeHead, mentions: ["volumes/..", "hasDotdot", "fsck"]),
        VolumeAttack(
            name: "a volume named with terminal escapes", components: volumes + ["\u{1B}]52;c;cHduZWQ=\u{07}.md"],
            text: volumeHead, mentions: ["control character"]),
        VolumeAttack(
            name: "a volume that is a submodule", components: volumes + ["0001.md"],
            text: "0123456789abcdef0123456789abcdef01234567", mode: "160000", mentions: ["submodule"]),
    ]

    @Test(arguments: volumeAttacks)
    func aHostileVolumeIsRefusedAndChangesNothing(attack: VolumeAttack) throws {
        let scene = try Self.formatThreeScene()
        let before = try scene.state("laptop")
        try scene.push([CraftedCommit.Entry(attack.components, attack.text, mode: attack.mode)])
        let sync = try scene.world.vault("laptop", ["sync"])
        #expect(sync.status == 1, "\(sync.stdout)\(sync.stderr)")
        #expect(attack.mentions.contains { sync.stderr.contains($0) }, "\(sync.stderr)")
        #expect(!sync.stderr.contains("\u{1B}") && !sync.stderr.contains("\u{07}"), "escapes reached the terminal")
        #expect(try scene.state("laptop") == before)
        try Self.expectNoLockLeft(scene.world.path("laptop"))
    }

    /// A volume past the file cap (lowered in vault.yml so the test needs no large file) is
    /// refused by name before anything is written.
    @Test func aHugeVolumeIsRefusedAndChangesNothing() throws {
        let scene = try Self.formatThreeScene()
        let w = scene.world
        try w.write("laptop", "vault.yml", try w.read("laptop", "vault.yml") + "limits:\n  max_file_size: 4K\n")
        try w.expectOK(w.vault("laptop", ["sync"]))
        try git(["pull", "--quiet", "--no-rebase", "origin", "main"], in: scene.attacker)
        let body = String(repeating: "## 🧑 user · x <!-- 2026-11-01T09:00:00+09:00 m-0000000000AA -->\n\n가나다\n\n", count: 200)
        let before = try scene.state("laptop")
        let id = try scene.push([CraftedCommit.Entry(Self.volumes + ["0001.md"], Self.volumeHead + body)])
        let sync = try w.vault("laptop", ["sync"])
        #expect(sync.status == 1, "\(sync.stderr)")
        #expect(sync.stderr.contains("the commit \(id.prefix(10)) holds \(Self.volumes.joined(separator: "/"))/0001.md of"), "\(sync.stderr)")
        #expect(sync.stderr.contains("max_file_size"), "\(sync.stderr)")
        #expect(try scene.state("laptop") == before)
        try Self.expectNoLockLeft(w.path("laptop"))
    }

    /// A volume holding the room file's message ids (one with another text) and one under a name
    /// that is no volume's: both come in (they are shared files, as a room is), and then every
    /// message is shown once by id, the other text as a version of its own, `vault check` names the
    /// odd file, and the next chat turn and sync work.
    @Test func aVolumeOverlappingTheRoomsIdsLosesNothingAndDoublesNothing() throws {
        let scene = try Self.formatThreeScene()
        let w = scene.world
        let room = try RoomFile(parsing: Array(w.read("laptop", Self.room).utf8), path: Self.room)
        let first = try #require(room.messages.first)
        let forged =
            Self.volumeHead
            + "## 🧑 user · x <!-- \(first.timestamp.text) \(first.id) -->\n\nanother text under the same id\n\n"
        try scene.push([
            CraftedCommit.Entry(Self.volumes + ["0001.md"], forged),
            CraftedCommit.Entry(Self.volumes + ["notes.md"], Self.volumeHead + "not a volume\n"),
        ])
        let sync = try w.vault("laptop", ["sync"])
        #expect(sync.status == 0, "\(sync.stderr)")
        let show = try w.vault("laptop", ["show", "trip"])
        #expect(show.status == 0, "\(show.stderr)")
        #expect(show.stdout.components(separatedBy: "\nhello\n").count == 2, "the room's message once: \(show.stdout)")
        #expect(show.stdout.contains("another text under the same id"), "the volume's version is shown: \(show.stdout)")
        #expect(!show.stdout.contains("not a volume"), "\(show.stdout)")
        let check = try w.vault("laptop", ["check"])
        #expect(
            (check.stdout + check.stderr).contains("the message id \(first.id) is in \(Self.room) too"),
            "\(check.stdout)\(check.stderr)")
        #expect((check.stdout + check.stderr).contains(Self.volumes.joined(separator: "/") + "/notes.md"), "\(check.stdout)\(check.stderr)")
        try w.chat("laptop", "trip", "still works")
        try w.expectOK(w.vault("laptop", ["sync"]))
        try Self.expectNoLockLeft(w.path("laptop"))
    }

    /// `.gitattributes` from a remote that names drivers this machine's git config defines (as a
    /// global git-lfs install does), converts line endings or expands `$Id$`, in the top folder or
    /// below it, or a `.gitmodules`: refused with the file and its line, and no command runs.
    @Test(arguments: [
        ([".gitattributes"], "* filter=evil\n", "filter=evil"),
        ([".gitattributes"], "*.md diff=evil\n", "diff=evil"),
        ([".gitattributes"], "rooms/*.md merge=evil\n", "merge=evil"),
        ([".gitattributes"], "* ident\n", "ident"),
        ([".gitattributes"], "* eol=crlf\n", "eol=crlf"),
        ([".gitattributes"], "[attr]harmless filter=evil\n* harmless\n", "[attr]harmless"),
        (["rooms", ".gitattributes"], "*.md filter=evil\n", "filter=evil"),
        ([".gitmodules"], "[submodule \"x\"]\n\tpath = x\n\turl = ext::sh -c touch% PWNED\n", "outside rooms/"),
    ])
    func attributesAndModulesFromARemoteRunNoCommand(path: [String], added: String, mention: String) throws {
        let scene = try Scene()
        let w = scene.world
        let root = w.path("laptop")
        let ran = scene.outside + "/RAN"
        for (key, value) in [
            ("filter.evil.clean", "touch \(ran)"), ("filter.evil.smudge", "touch \(ran)"),
            ("filter.evil.process", "touch \(ran)"), ("diff.evil.textconv", "touch \(ran)"),
            ("diff.evil.command", "touch \(ran)"), ("merge.evil.driver", "touch \(ran)"),
        ] {
            try git(["config", key, value], in: root)
        }
        let mine = path == [".gitattributes"] ? try w.read("laptop", ".gitattributes") : ""
        try w.write("laptop", "rooms/id.md", "---\ntitle: id\n---\n\n$Id$\r\n")
        try w.expectOK(w.vault("laptop", ["sync"]))
        try git(["pull", "--quiet", "--no-rebase", "origin", "main"], in: scene.attacker)
        let before = try scene.state("laptop")
        let id = try scene.push([CraftedCommit.Entry(path, mine + added)])
        for command in [["sync"], ["sync", "--dry-run"]] {
            let r = try w.vault("laptop", command)
            #expect(r.status == 1, "\(command): \(r.stdout)\(r.stderr)")
            #expect(r.stderr.contains(path.joined(separator: "/")) && r.stderr.contains(mention), "\(r.stderr)")
            #expect(r.stderr.contains(String(id.prefix(10))), "\(r.stderr)")
        }
        #expect(try scene.state("laptop") == before)
        #expect(!FileManager.default.fileExists(atPath: ran), "a command named by the remote ran")
        #expect(try w.read("laptop", "rooms/id.md").hasSuffix("$Id$\r\n"), "the room's bytes changed")
        try Self.expectNoLockLeft(root)
        // A clone of the same remote refuses it too, runs nothing and keeps nothing.
        let target = w.folder.path + "/victim"
        let clone = try w.vault("laptop", ["clone", w.remote, target], in: w.folder.path)
        #expect(clone.status == 1 && clone.stderr.contains(mention), "\(clone.stderr)")
        #expect(!FileManager.default.fileExists(atPath: target))
        #expect(!FileManager.default.fileExists(atPath: ran))
    }

    /// Attributes that only change how git shows or packs a file come in as any change does.
    @Test func harmlessAttributesFromARemoteComeIn() throws {
        let scene = try Scene()
        let w = scene.world
        let attributes = try w.read("laptop", ".gitattributes") + "*.png binary\n*.pdf -diff\nattachments/** -delta\n"
        try scene.push([CraftedCommit.Entry([".gitattributes"], attributes)])
        try w.expectOK(w.vault("laptop", ["sync"]))
        #expect(try w.read("laptop", ".gitattributes") == attributes)
        try w.expectHealthy("laptop")
    }

    /// `vault watch` while a remote pushes something hostile every few seconds (a room past the
    /// caps, a link, a `.gitattributes` naming a filter), then a clean message: the watch keeps
    /// going, says each refusal in one escaped line, takes nothing of them, and takes the clean
    /// commit; stopped with SIGTERM, it leaves no lock and the vault healthy.
    @Test func watchFacingAHostileRemoteKeepsGoingAndTakesNothingOfIt() throws {
        let scene = try Scene()
        let w = scene.world
        try w.write("laptop", "vault.yml", try w.read("laptop", "vault.yml") + "limits:\n  max_file_size: 4K\n")
        try w.expectOK(w.vault("laptop", ["room", "new", "Trip"]))
        try w.expectOK(w.vault("laptop", ["sync"]))
        try git(["pull", "--quiet", "--no-rebase", "origin", "main"], in: scene.attacker)
        let root = w.path("laptop")
        let errors = w.folder.path + "/watch.err"
        let process = vaultProcess(
            ["watch", "--interval", "1", "--max-interval", "2"], in: root,
            environment: ["VAULT_MACHINE": "laptop", "PATH": SyncWorld.pathWithVault, "VAULT_LOCK_TIMEOUT": "60"])
        _ = FileManager.default.createFile(atPath: errors, contents: nil)
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errors))
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        let attacks: [(CraftedCommit.Entry, String)] = [
            (CraftedCommit.Entry(["rooms", "big.md"], "---\ntitle: big\n---\n\n" + String(repeating: "가", count: 2_000)), "rooms/big.md"),
            (CraftedCommit.Entry(["rooms", "link.md"], "/etc/passwd", mode: "120000"), "rooms/link.md"),
            (CraftedCommit.Entry([".gitattributes"], "* filter=evil\n"), "filter=evil"),
            (CraftedCommit.Entry(["rooms", "e\u{1B}]52;c;eA==\u{07}.md"], "---\ntitle: e\n---\n"), "control character"),
        ]
        let before = try scene.state("laptop")
        for (entry, mention) in attacks {
            // Each on the clean tip: the remote holds one hostile commit at a time.
            let id = try CraftedCommit.make(in: scene.attacker, adding: [entry])
            try git(["push", "--quiet", "--force", "origin", id + ":refs/heads/main"], in: scene.attacker)
            try Self.waitUntil("the watch refuses \(mention)") {
                let said = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
                return said.contains(mention) && (said.contains(String(id.prefix(10))) || said.contains("checks refuse"))
            }
            #expect(process.isRunning, "the watch ended on \(mention)")
        }
        let said = try String(contentsOfFile: errors, encoding: .utf8)
        #expect(!said.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" }, "escapes reached the terminal")
        #expect(try scene.state("laptop") == before, "something of the attacks came in")
        // The remote clean again, with a message: it comes in.
        let text = "---\ntitle: Fine\n---\n\n## 🧑 user · x <!-- 2026-11-01T09:00:00+09:00 m-00000000C1EA -->\n\nclean at last\n"
        let cleanID = try CraftedCommit.make(in: scene.attacker, adding: [CraftedCommit.Entry(["rooms", "fine.md"], text)])
        try git(["push", "--quiet", "--force", "origin", cleanID + ":refs/heads/main"], in: scene.attacker)
        try Self.waitUntil("the clean commit comes in") {
            (try? git(["merge-base", "--is-ancestor", cleanID, "HEAD"], in: root)) != nil
        }
        process.terminate()
        process.waitUntilExit()
        #expect(FileManager.default.fileExists(atPath: root + "/rooms/fine.md"))
        try Self.expectNoLockLeft(root)
        try w.expectHealthy("laptop")
    }

    /// Waits until `done` holds, looking every 0.2 s; fails after two minutes (a deadline for a
    /// stuck watch, not a measure of its speed).
    static func waitUntil(_ what: String, _ done: () -> Bool) throws {
        let end = Date().addingTimeInterval(120)
        while !done() {
            guard Date() < end else { throw SyncTestFailure("never happened: \(what)") }
            usleep(200_000)  // sleep: poll interval: the condition, with a deadline
        }
    }
}
