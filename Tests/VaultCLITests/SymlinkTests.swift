import Foundation
import Testing
import VaultTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Symbolic links in `rooms/` and `diary/` (real links made with `symlink(2)`): vault never
/// writes through one, never commits what one points to, never loops on one, and `vault check`
/// reports each. Every refusal is one line naming the link, and changes nothing: not the vault,
/// not `.git/`, not the file outside.
@Suite struct SymlinkTests {
    /// A text found in no vault file, only in the files outside that the links point to.
    static let secret = "OUTSIDE-SECRET-4f1c9e"

    /// A vault with a room and an entry committed, and a folder outside it holding a valid room
    /// and a valid entry (so a command that followed a link would succeed on them).
    struct World {
        let vault: DiaryVault
        let outside = TemporaryDirectory("vault-outside")
        var room: String { outside.path + "/secret-room.md" }
        var entry: String { outside.path + "/secret-entry.md" }

        init() throws {
            vault = try DiaryVault.fresh()
            try expectDiarySuccess(try vault.run(["room", "new", "안쪽 방"]), vault)
            try expectDiarySuccess(try vault.run(["write", "안쪽 글", "--date", "2026-03-01", "--body", "본문.\n"]), vault)
            let secret = SymlinkTests.secret
            try outside.write(
                "secret-room.md",
                "---\ntitle: \(secret)\ncreated: 2026-01-01T09:00:00+09:00\n---\n\n"
                    + "## 🧑 user · x <!-- 2026-01-01T09:00:00+09:00 m-0000000000AA -->\n\n\(secret) 질문\n\n")
            try outside.write(
                "secret-entry.md",
                "---\nid: d-0000000000AA\ntitle: \(secret)\ncreated: 2026-03-02T09:00:00+09:00\ntags: []\n---\n\n"
                    + "# x\n\n\(secret)\n")
        }

        /// Makes `relative` (in the vault) a symbolic link to `target`.
        func link(_ relative: String, to target: String) throws {
            let full = vault.root + "/" + relative
            try FileManager.default.createDirectory(
                atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try #require(symlink(target, full) == 0, "symlink \(relative): \(String(cString: strerror(errno)))")
        }

        /// Every file outside, byte for byte.
        func outsideSnapshot() throws -> [String: [UInt8]] { try outside.snapshot() }

        /// The vault's files (`.git/` included), the files outside and the commits, before a command.
        struct Before {
            var vault: [String: [UInt8]]
            var outside: [String: [UInt8]]
            var history: [String]
        }

        func before() throws -> Before {
            Before(vault: try vault.snapshot(), outside: try outside.snapshot(), history: try vault.subjects())
        }

        /// Whether any object of the repository (blobs, trees, commit messages) holds the secret.
        func repositoryHoldsTheSecret() throws -> Bool {
            let all = try vault.git(["cat-file", "--batch-all-objects", "--batch"])
            return all.contains(SymlinkTests.secret)
        }
    }

    /// A failure that names `path`, says it is a symbolic link, is one line, and changed nothing.
    private func expectRefused(
        _ r: RunResult, _ path: String, _ world: World, _ before: World.Before,
        sourceLocation loc: SourceLocation = #_sourceLocation
    ) throws {
        let vault = world.vault
        try expectDiaryFailure(r, [path, "symbolic link"], vault, unchangedFrom: before.vault, sourceLocation: loc)
        #expect(r.status == 1, sourceLocation: loc)
        #expect(r.stderr.split(separator: "\n").count == 1, "more than one line: \(r.stderr)", sourceLocation: loc)
        expectUnchanged(before.outside, try world.outsideSnapshot(), sourceLocation: loc)
        #expect(try world.vault.subjects() == before.history, "a commit was made", sourceLocation: loc)
        #expect(try !world.repositoryHoldsTheSecret(), "content from outside was committed", sourceLocation: loc)
    }

    // MARK: Writers refuse a linked room or entry

    @Test(arguments: [
        ["chat", "leak", "안녕"], ["chat", "rooms/leak.md", "안녕"], ["retry", "leak"],
        ["room", "set", "leak", "model", "x"], ["edit", "rooms/leak.md"], ["show", "leak"],
    ])
    func aCommandOnALinkedRoomIsRefused(arguments: [String]) throws {
        let world = try World()
        try world.link("rooms/leak.md", to: world.room)
        let before = try world.before()
        let editors = DiaryEditors()
        let editor = try editors.make("writer", .append("\n덧붙임\n"))
        let r = try world.vault.run(arguments, editor: editor)
        try expectRefused(r, "rooms/leak.md", world, before)
        #expect(editors.runs("writer").isEmpty, "the editor ran on a linked file")
    }

    @Test(arguments: [["tag", "diary/2026/2026-03-02-leak.md", "+새"], ["edit", "diary/2026/2026-03-02-leak.md"]])
    func aCommandOnALinkedEntryIsRefused(arguments: [String]) throws {
        let world = try World()
        try world.link("diary/2026/2026-03-02-leak.md", to: world.entry)
        let before = try world.before()
        let editors = DiaryEditors()
        let r = try world.vault.run(arguments, editor: try editors.make("writer", .append("덧붙임\n")))
        try expectRefused(r, "diary/2026/2026-03-02-leak.md", world, before)
        #expect(editors.runs("writer").isEmpty, "the editor ran on a linked file")
    }

    /// A room that was committed, then replaced by a link: `restore` refuses to write through it.
    @Test func restoreOverALinkIsRefused() throws {
        let world = try World()
        let path = "rooms/안쪽-방.md"
        unlink(world.vault.root + "/" + path)
        try world.link(path, to: world.room)
        let before = try world.before()
        let r = try world.vault.run(["restore", path, "--at", "HEAD"])
        try expectRefused(r, path, world, before)
    }

    /// A folder of the vault that is a link out of it: nothing is written into it.
    @Test(arguments: ["diary/2026", "rooms"])
    func aNewFileIsNeverWrittenIntoALinkedFolder(folder: String) throws {
        let world = try World()
        let real = world.vault.root + "/" + folder
        try FileManager.default.moveItem(atPath: real, toPath: world.outside.path + "/moved")
        try world.link(folder, to: world.outside.path + "/moved")
        let before = try world.before()
        let arguments =
            folder == "rooms"
            ? ["room", "new", "새 방"] : ["write", "새 글", "--date", "2026-05-05", "--body", "\(SymlinkTests.secret)\n"]
        let r = try world.vault.run(arguments)
        try expectRefused(r, folder, world, before)
    }

    /// `vault rm` removes the link itself (never what it points to) and commits nothing from outside.
    @Test func rmRemovesTheLinkNotItsTarget() throws {
        let world = try World()
        try world.link("rooms/leak.md", to: world.room)
        let outside = try world.outsideSnapshot()
        let history = try world.vault.subjects()
        let r = try world.vault.run(["rm", "rooms/leak.md", "--yes"])
        try expectDiarySuccess(r, world.vault)
        #expect(r.stdout.contains("symbolic link"), "\(r.stdout)")
        #expect(!r.stdout.contains(SymlinkTests.secret), "the title was read through the link: \(r.stdout)")
        var st = stat()
        #expect(lstat(world.vault.root + "/rooms/leak.md", &st) != 0, "the link is still there")
        expectUnchanged(outside, try world.outsideSnapshot())
        #expect(try world.vault.subjects() == history, "a link never committed needs no commit to go")
        #expect(try !world.repositoryHoldsTheSecret())
    }

    /// A link someone committed with git (mode 120000) is removed with a commit of its own; its
    /// target's text is in no object.
    @Test func rmOfACommittedLinkCommitsItsRemoval() throws {
        let world = try World()
        try world.link("rooms/leak.md", to: world.room)
        try world.vault.git(["add", "rooms/leak.md"])
        try world.vault.git(["commit", "-q", "-m", "a link by hand"])
        let outside = try world.outsideSnapshot()
        #expect(try world.vault.git(["ls-files", "-s", "rooms/leak.md"]).hasPrefix("120000 "))
        let r = try world.vault.run(["rm", "leak", "--yes"])
        try expectDiarySuccess(r, world.vault)
        #expect(try world.vault.subjects().first == "rm: rooms/leak.md (a symbolic link)")
        #expect(try world.vault.changedPaths() == ["D rooms/leak.md"])
        #expect(try !world.repositoryHoldsTheSecret())
        expectUnchanged(outside, try world.outsideSnapshot())
    }

    // MARK: Readers

    /// Linked rooms and entries are not listed (vault does not read through them), and
    /// `vault check` names each link and where it points.
    @Test func checkReportsLinksAndListingsSkipThem() throws {
        let world = try World()
        try world.link("rooms/leak.md", to: world.room)
        try world.link("diary/2026/2026-03-02-leak.md", to: world.entry)
        try world.link("rooms/inside.md", to: "안쪽-방.md")
        let rooms = try world.vault.run(["rooms"])
        expectSuccess(rooms)
        #expect(!rooms.stdout.contains(SymlinkTests.secret), "\(rooms.stdout)")
        let list = try world.vault.run(["diary", "list"])
        expectSuccess(list)
        #expect(!list.stdout.contains(SymlinkTests.secret), "\(list.stdout)")
        let check = try world.vault.run(["check"])
        #expect(check.status == 1)
        let lines = check.stdout.split(separator: "\n").map(String.init)
        func reported(_ path: String, _ words: [String]) -> Bool {
            lines.contains { line in line.hasPrefix(path + ":1: ") && words.allSatisfy { line.contains($0) } }
        }
        #expect(reported("rooms/leak.md", ["symbolic link", "outside the vault"]), "\(check.stdout)")
        #expect(reported("diary/2026/2026-03-02-leak.md", ["symbolic link", "outside the vault"]), "\(check.stdout)")
        #expect(reported("rooms/inside.md", ["symbolic link"]), "\(check.stdout)")
        #expect(!check.stdout.contains(SymlinkTests.secret), "check read through a link: \(check.stdout)")
    }

    /// Links that loop (`diary/loop -> .`, `a -> b -> a`, a folder linking to its parent): `diary
    /// list` and `check` finish, and `check` names every loop.
    @Test func linkLoopsInTheDiaryAreFoundNotFollowed() throws {
        let world = try World()
        try world.link("diary/loop", to: ".")
        try world.link("diary/2026/up", to: "..")
        try world.link("diary/a", to: "b")
        try world.link("diary/b", to: "a")
        try world.link("diary/self.md", to: "self.md")
        let list = try runWithDeadline(["diary", "list", "--json"], world.vault)
        let entries = try diaryListJSON(list)
        #expect(entries.compactMap { $0["path"] as? String } == ["diary/2026/2026-03-01-안쪽-글.md"])
        let check = try runWithDeadline(["check"], world.vault)
        #expect(check.status == 1)
        for link in ["diary/loop", "diary/2026/up", "diary/a", "diary/b", "diary/self.md"] {
            #expect(check.stdout.contains("\(link):1: "), "\(link) not reported: \(check.stdout)")
        }
        #expect(check.stdout.contains("loop"), "\(check.stdout)")
        let rooms = try runWithDeadline(["rooms"], world.vault)
        expectSuccess(rooms)
    }

    /// Runs `vault` in the vault, its output in files; fails the test (and kills it) if it has not
    /// exited within a minute: a command that loops on a link never returns.
    private func runWithDeadline(_ arguments: [String], _ vault: DiaryVault) throws -> RunResult {
        let out = TemporaryDirectory("vault-deadline")
        let process = vaultProcess(arguments, in: vault.root, environment: ["TZ": "Asia/Seoul", "EDITOR": "false"])
        try out.write("out", "")
        try out.write("err", "")
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: out.path + "/out"))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: out.path + "/err"))
        process.standardInput = FileHandle.nullDevice
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        if exited.wait(timeout: .now() + 60) == .timedOut {
            kill(process.processIdentifier, SIGKILL)
            exited.wait()
            Issue.record("vault \(arguments.joined(separator: " ")) did not finish in a minute: it loops")
        }
        return RunResult(
            status: process.terminationStatus, stdout: try out.readText("out"), stderr: try out.readText("err"))
    }
}
