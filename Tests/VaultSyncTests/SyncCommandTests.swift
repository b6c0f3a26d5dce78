import Foundation
import Testing
import VaultCore
import VaultTestSupport

/// The sync commands around the merge: clone, remote, status, dry runs, undo, a push the remote
/// refuses, and what each says when something is wrong.
@Suite struct SyncCommandTests {
    let room = "rooms/독서-모임-발제문.md"

    @Test func cloneSetsUpASecondMachineCompletely() throws {
        let w = try SyncWorld()
        let desktop = w.path("desktop")
        #expect(try w.files("desktop") == w.files("laptop"))
        #expect(try git(["config", "merge.vault.driver"], in: desktop) == "vault merge-driver %O %A %B %P\n")
        #expect(
            try String(contentsOfFile: desktop + "/.gitattributes", encoding: .utf8).contains("rooms/*.md merge=vault"))
        try w.chat("desktop", room, "clone에서 바로 대화")
        try w.expectHealthy("desktop")
        let remotes = try w.vault("desktop", ["remote"])
        #expect(remotes.stdout.contains("origin\t\(w.remote)"))
    }

    @Test func remoteAddListRemove() throws {
        let w = try SyncWorld(clones: [])
        try w.expectOK(w.vault("laptop", ["remote", "add", "usb", "/media/usb/vault.git"]))
        #expect(
            try w.vault("laptop", ["remote", "list"]).stdout
                == "origin\t\(w.remote)\t(default)\nusb\t/media/usb/vault.git\n")
        let again = try w.vault("laptop", ["remote", "add", "usb", "/elsewhere"])
        #expect(again.status == 1 && again.stderr.contains("already a remote named 'usb'"))
        try w.expectOK(w.vault("laptop", ["remote", "remove", "usb"]))
        #expect(try w.vault("laptop", ["remote"]).stdout == "origin\t\(w.remote)\t(default)\n")
        let gone = try w.vault("laptop", ["remote", "remove", "usb"])
        #expect(gone.status == 1 && gone.stderr.contains("no remote named 'usb'"))
    }

    @Test func syncCommitsHandEditsFirstAsTheirOwnCommit() throws {
        let w = try SyncWorld()
        try w.write("desktop", room, try w.read("desktop", room).replacingOccurrences(of: "발제", with: "발제(수정)"))
        let r = try w.vault("desktop", ["sync"])
        try w.expectOK(r)
        #expect(try git(["log", "-1", "--format=%s"], in: w.path("desktop")) == "edit: \(room)\n")
        #expect(try git(["rev-parse", "main"], in: w.remote) == git(["rev-parse", "HEAD"], in: w.path("desktop")))
    }

    @Test func nothingToDoChangesNothing() throws {
        let w = try SyncWorld()
        let head = try git(["rev-parse", "HEAD"], in: w.path("desktop"))
        let r = try w.vault("desktop", ["sync"])
        try w.expectOK(r)
        #expect(r.stdout.contains("nothing new came in; nothing to send"))
        #expect(try git(["rev-parse", "HEAD"], in: w.path("desktop")) == head)
    }

    @Test func dryRunSaysWhatWouldHappenAndChangesNothing() throws {
        let w = try SyncWorld()
        try w.chat("laptop", room, "들어올 메시지")
        try w.expectOK(w.vault("laptop", ["sync"]))
        try w.chat("desktop", room, "나갈 메시지")
        let files = try w.files("desktop")
        let refs = try git(["for-each-ref"], in: w.path("desktop"))
        let remoteHead = try git(["rev-parse", "main"], in: w.remote)
        let r = try w.vault("desktop", ["sync", "--dry-run"])
        try w.expectOK(r)
        // The summary counts every line listed below it, the merge's note too.
        #expect(r.stdout.contains("would come in: 1 commit (2 new messages in 1 room, 1 note)"), "\(r.stdout)")
        #expect(r.stdout.contains("would go out:  1 commit"), "\(r.stdout)")
        #expect(try w.files("desktop") == files)
        #expect(try git(["for-each-ref"], in: w.path("desktop")) == refs)
        #expect(try git(["rev-parse", "main"], in: w.remote) == remoteHead)
    }

    @Test func undoPutsTheVaultBackAndKeepsTheMerge() throws {
        let w = try SyncWorld()
        try w.chat("laptop", room, "들어올 메시지")
        try w.expectOK(w.vault("laptop", ["sync"]))
        try w.chat("desktop", room, "내 메시지")
        let before = try w.files("desktop")
        let beforeHead = try git(["rev-parse", "HEAD"], in: w.path("desktop"))
        try w.expectOK(w.vault("desktop", ["sync"]))
        let merged = try git(["rev-parse", "HEAD"], in: w.path("desktop"))
        #expect(try w.read("desktop", room).contains("들어올 메시지"))
        let u = try w.vault("desktop", ["sync", "--undo"])
        try w.expectOK(u)
        #expect(try w.files("desktop") == before)
        #expect(try git(["rev-parse", "HEAD"], in: w.path("desktop")) == beforeHead)
        #expect(try git(["rev-parse", "refs/vault/sync/undone"], in: w.path("desktop")) == merged)
        #expect(try git(["rev-parse", "main"], in: w.remote) == merged, "the remote is not rewritten")
        try w.expectHealthy("desktop")
        let again = try w.vault("desktop", ["sync", "--undo"])
        #expect(again.status == 1 && again.stderr.contains("no sync to undo"))
    }

    @Test func roomsCountMessagesThatCameInUntilTheRoomIsShown() throws {
        let w = try SyncWorld()
        try w.chat("laptop", room, "새 소식")
        try w.expectOK(w.vault("laptop", ["sync"]))
        let r = try w.vault("desktop", ["sync"])
        try w.expectOK(r)
        #expect(r.stdout.contains("독서 모임 발제문 (\(room)): +2 — \"새 소식\"") || r.stdout.contains("+2"), "\(r.stdout)")
        let line = try w.vault("desktop", ["rooms"]).stdout.split(separator: "\n").first { $0.contains("독서 모임 발제문") }
        // The sample vault is Korean, and so are its listing's words.
        #expect(line?.contains(ListingWords.of("ko_KR").unread(2)) == true, "\(line ?? "")")
        let json = try w.vault("desktop", ["rooms", "--json"]).stdout
        #expect(json.contains("\"unread\" : 2"))
        try w.expectOK(w.vault("desktop", ["show", room]))
        let after = try w.vault("desktop", ["rooms"]).stdout
        #expect(!after.contains("new)"))
        // Read marks are this machine's: never committed, never synced.
        #expect(try git(["status", "--porcelain"], in: w.path("desktop")) == "")
        #expect(try git(["ls-files", ".vault"], in: w.path("desktop")) == "")
    }

    @Test func statusShowsEditsAheadBehindAndCopies() throws {
        let w = try SyncWorld()
        try w.chat("laptop", room, "하나")
        try w.expectOK(w.vault("laptop", ["sync"]))
        try w.chat("desktop", room, "둘")
        _ = try git(["fetch", "--quiet", "origin"], in: w.path("desktop"))
        try w.write("desktop", "diary/2026/x.md", "손으로 쓴 글\n")
        try w.write("desktop", "rooms/독서-모임-발제문.sync-conflict-20261123-101500-ABCDEFG.md", try w.read("desktop", room))
        let r = try w.vault("desktop", ["status"])
        try w.expectOK(r)
        #expect(r.stdout.contains("1 ahead, 1 behind"), "\(r.stdout)")
        #expect(r.stdout.contains("diary/2026/x.md"))
        #expect(r.stdout.contains("conflict copy: rooms/독서-모임-발제문.sync-conflict-20261123-101500-ABCDEFG.md"))
    }

    @Test func aPushTheRemoteRefusesIsMergedAgainAndRetried() throws {
        let w = try SyncWorld()
        // The desktop's turn reaches the remote while the laptop is between its fetch and its push:
        // a hook moves the branch to it just as the laptop's push arrives, so that push is refused.
        try w.chat("desktop", room, "경쟁하는 메시지")
        _ = try git(["push", "--quiet", "origin", "HEAD:refs/heads/incoming"], in: w.path("desktop"))
        let hook = w.remote + "/hooks/pre-receive"
        try """
            #!/bin/sh
            if [ ! -e "$GIT_DIR/raced" ]; then
                touch "$GIT_DIR/raced"
                env -u GIT_QUARANTINE_PATH git update-ref refs/heads/main refs/heads/incoming
            fi
            cat >/dev/null
            """.write(toFile: hook, atomically: true, encoding: .utf8)
        chmod(hook, 0o755)
        try w.chat("laptop", room, "내 메시지")
        let r = try w.vault("laptop", ["sync"])
        try w.expectOK(r)
        #expect(r.stdout.contains("merged again"), "\(r.stdout) \(r.stderr)")
        let text = try String(decoding: Data(git(["show", "main:" + room], in: w.remote).utf8), as: UTF8.self)
        #expect(text.contains("경쟁하는 메시지") && text.contains("내 메시지"))
        #expect(try git(["rev-parse", "main"], in: w.remote) == git(["rev-parse", "HEAD"], in: w.path("laptop")))
    }

    @Test func badRemotesGiveOneClearLineAndChangeNothing() throws {
        let w = try SyncWorld(clones: [])
        let laptop = w.path("laptop")
        try w.chat("laptop", room, "보내지 못할 메시지")
        let cases: [(url: String, says: String)] = [
            (w.folder.path + "/no-such-remote.git", "is not a git repository"),
            ("ssh://root@127.0.0.1:1/srv/vault.git", "nothing answers"),
            ("https://no-such-host.invalid/vault.git", "does not resolve"),
        ]
        for (i, c) in cases.enumerated() {
            try w.expectOK(w.vault("laptop", ["remote", "add", "bad\(i)", c.url]))
            let files = try w.files("laptop")
            let head = try git(["rev-parse", "HEAD"], in: laptop)
            let r = try w.vault("laptop", ["sync", "bad\(i)"])
            #expect(r.status == 1, "\(c.url): \(r.stderr)")
            #expect(r.stderr.contains(c.says), "\(c.url): \(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1, "one line: \(r.stderr)")
            #expect(try w.files("laptop") == files)
            #expect(try git(["rev-parse", "HEAD"], in: laptop) == head)
        }
        let none = try w.vault("laptop", ["sync", "nowhere"])
        #expect(none.status == 1 && none.stderr.contains("no remote named 'nowhere'"))
    }

    @Test func cloningSomethingThatIsNotAVaultLeavesNothing() throws {
        let w = try SyncWorld(clones: [])
        let plain = w.folder.path + "/plain.git"
        try git(["init", "--quiet", "--bare", plain], in: w.folder.path)
        let empty = try w.vault("laptop", ["clone", plain, w.folder.path + "/x"], in: w.folder.path)
        #expect(empty.status == 1 && empty.stderr.contains("empty repository"), "\(empty.stderr)")
        #expect(!FileManager.default.fileExists(atPath: w.folder.path + "/x"))
        let notes = w.folder.path + "/notes"
        try FileManager.default.createDirectory(atPath: notes, withIntermediateDirectories: true)
        try "hi\n".write(toFile: notes + "/a.txt", atomically: true, encoding: .utf8)
        _ = try git(["init", "--quiet", "-b", "main"], in: notes)
        _ = try git(["add", "."], in: notes)
        _ = try git(["-c", "user.name=t", "-c", "user.email=t@t", "commit", "--quiet", "-m", "x"], in: notes)
        let notVault = try w.vault("laptop", ["clone", notes, w.folder.path + "/y"], in: w.folder.path)
        #expect(notVault.status == 1 && notVault.stderr.contains("not a vault"), "\(notVault.stderr)")
        #expect(!FileManager.default.fileExists(atPath: w.folder.path + "/y"))
        let typo = try w.vault(
            "laptop", ["clone", w.folder.path + "/remote.gti", w.folder.path + "/z"], in: w.folder.path)
        #expect(typo.status == 1 && typo.stderr.contains("is not a git repository"), "\(typo.stderr)")
        #expect(!FileManager.default.fileExists(atPath: w.folder.path + "/z"))
    }
}

/// A disk that fills up during a fetch: a small tmpfs (needs root, as CI is; skipped where
/// mounting is not allowed).
@Suite struct FullDiskTests {
    static let canMount: Bool = {
        guard getuid() == 0 else { return false }
        let probe = TemporaryDirectory("vault-mount-probe")
        let mounted = (try? run(mountProcess(["-t", "tmpfs", "-o", "size=64k", "tmpfs", probe.path])))?.status == 0
        if mounted { _ = try? run(mountProcess([probe.path], command: "/bin/umount")) }
        return mounted
    }()

    static func mountProcess(_ arguments: [String], command: String = "/bin/mount") -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: command)
        p.arguments = arguments
        return p
    }

    @Test(.enabled(if: canMount, "mounting a tmpfs needs root"))
    func aFullDiskDuringFetchSaysSoAndChangesNothing() throws {
        let w = try SyncWorld(clones: [])
        let disk = TemporaryDirectory("vault-small-disk")
        _ = try run(Self.mountProcess(["-t", "tmpfs", "-o", "size=4m", "tmpfs", disk.path]))
        defer { _ = try? run(Self.mountProcess([disk.path], command: "/bin/umount")) }
        let desktop = disk.path + "/desktop"
        try w.expectOK(w.vault("desktop", ["clone", w.remote, desktop], in: disk.path))
        // The laptop adds a 3 MB attachment the desktop's disk has no room for.
        var random = SeededRandom(seed: 7)
        let big = (0..<(3 << 20)).map { _ in UInt8.random(in: 0...255, using: &random) }
        try w.write("laptop", "attachments/big.bin", "")
        try Data(big).write(to: URL(fileURLWithPath: w.path("laptop") + "/attachments/big.bin"))
        try w.expectOK(w.vault("laptop", ["sync"]))
        // Fill what is left of the small disk.
        let filler = disk.path + "/filler"
        _ = FileManager.default.createFile(atPath: filler, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: filler))
        let chunk = Data(repeating: 0, count: 4096)
        while (try? handle.write(contentsOf: chunk)) != nil {}
        try? handle.close()
        let files = try snapshot(desktop)
        let head = try git(["rev-parse", "HEAD"], in: desktop)
        let r = try runVault(["sync"], in: desktop, environment: ["PATH": SyncWorld.pathWithVault])
        #expect(r.status == 1)
        #expect(r.stderr.contains("the disk is full"), "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1, "one line: \(r.stderr)")
        #expect(try snapshot(desktop) == files)
        #expect(try git(["rev-parse", "HEAD"], in: desktop) == head)
    }

    private func snapshot(_ root: String) throws -> [String: [UInt8]] {
        var out: [String: [UInt8]] = [:]
        let e = FileManager.default.enumerator(atPath: root)
        while let p = e?.nextObject() as? String {
            if p == ".git" || p == ".vault" { e?.skipDescendants(); continue }
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: root + "/" + p, isDirectory: &isDir), !isDir.boolValue {
                out[p] = Array(try Data(contentsOf: URL(fileURLWithPath: root + "/" + p)))
            }
        }
        return out
    }
}
