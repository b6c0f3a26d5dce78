import Foundation
import Testing
import VaultCore
import VaultTestSupport

/// What a sync killed half-way, two syncs at once, an undo over uncommitted edits and a remote
/// that is not this vault used to leave stuck or wrong; each case made as it happens (a lock
/// file as libgit2 leaves it, a kill at a `VAULT_CRASH_AT` point, a real second process) and
/// checked with `git`.
@Suite struct SyncStuckTests {
    let room = "rooms/독서-모임-발제문.md"
    let otherRoom = "rooms/부산-여행.md"

    // MARK: Killed syncs

    @Test func refLocksAKilledSyncLeftAreClearedByTheNextSync() throws {
        let w = try SyncWorld()
        let laptop = w.path("laptop")
        try w.chat("desktop", room, "데스크톱에서")
        try w.expectOK(w.vault("desktop", ["sync"]))
        try w.chat("laptop", room, "노트북에서")
        // What a sync killed inside libgit2's `git_reference_create` leaves.
        let head = try git(["rev-parse", "HEAD"], in: laptop)
        for name in ["before", "after"] {
            try w.write("laptop", ".git/refs/vault/sync/\(name).lock", head)
        }
        let r = try w.vault("laptop", ["sync"])
        try w.expectOK(r)
        #expect(r.stdout.contains("your changes were sent"))
        #expect(r.stdout.contains("removed refs/vault/sync/before.lock, left by a killed sync"))
        #expect(!FileManager.default.fileExists(atPath: laptop + "/.git/refs/vault/sync/before.lock"))
        #expect(!FileManager.default.fileExists(atPath: laptop + "/.git/refs/vault/sync/after.lock"))
        #expect(try git(["rev-parse", "main"], in: w.remote) == git(["rev-parse", "HEAD"], in: laptop))
        #expect(try git(["show", "main:" + room], in: w.remote).contains("노트북에서"))
        try w.expectHealthy("laptop")
    }

    @Test func aSyncKilledBetweenTheBranchAndTheIndexIsRepairedByTheNextCommand() throws {
        let w = try SyncWorld()
        let desktop = w.path("desktop")
        try w.expectOK(w.vault("laptop", ["room", "new", "New Room"]))
        try w.chat("laptop", "rooms/new-room.md", "새 방의 첫 메시지")
        try w.expectOK(w.vault("laptop", ["sync"]))
        try w.chat("desktop", room, "데스크톱에서")
        let killed = try w.vault("desktop", ["sync"], environment: ["VAULT_CRASH_AT": "sync-branch-moved"])
        #expect(killed.status != 0)
        // The stuck state: the branch has the new room, the index has not.
        let status = try git(["status", "--porcelain"], in: desktop)
        #expect(status.contains("D  rooms/new-room.md") && status.contains("?? rooms/new-room.md"), "\(status)")
        try w.chat("desktop", room, "다음 대화")
        #expect(try git(["status", "--porcelain"], in: desktop) == "")
        #expect(try git(["show", "HEAD:rooms/new-room.md"], in: desktop).contains("새 방의 첫 메시지"))
        let sync = try w.vault("desktop", ["sync"])
        try w.expectOK(sync)
        #expect(sync.stdout.contains("your changes were sent"))
        #expect(try git(["show", "main:rooms/new-room.md"], in: w.remote).contains("새 방의 첫 메시지"))
        #expect(try git(["show", "main:" + room], in: w.remote).contains("다음 대화"))
        try w.expectHealthy("desktop")
    }

    @Test func unlockRepairsAnIndexLeftBehindAndSaysSo() throws {
        let w = try SyncWorld()
        try w.expectOK(w.vault("laptop", ["room", "new", "New Room"]))
        try w.expectOK(w.vault("laptop", ["sync"]))
        try w.chat("desktop", room, "데스크톱에서")
        _ = try w.vault("desktop", ["sync"], environment: ["VAULT_CRASH_AT": "sync-branch-moved"])
        #expect(try git(["status", "--porcelain"], in: w.path("desktop")) != "")
        let listed = try w.vault("desktop", ["status"]).stdout
        #expect(listed.components(separatedBy: "rooms/new-room.md").count == 2, "listed once: \(listed)")
        let files = try w.files("desktop")
        let u = try w.vault("desktop", ["unlock"])
        try w.expectOK(u)
        #expect(u.stdout.contains("put git's index back to the last commit for rooms/new-room.md"), "\(u.stdout)")
        #expect(try w.files("desktop") == files, "unlock changes no file")
        try w.expectHealthy("desktop")
        #expect(try w.vault("desktop", ["unlock"]).stdout.contains("nothing to do"))
    }

    @Test func unlockClearsEveryDeadLockAndTemporaryFileAndKeepsLiveOnes() throws {
        let w = try SyncWorld(clones: [])
        let laptop = w.path("laptop")
        let dead = try deadProcessID()
        let alive = getpid()
        let files = [
            ".git/refs/vault/sync/after.lock",  // a killed sync's: cleared at once
            ".git/refs/remotes/origin/main.lock",  // another ref's: cleared once a minute old
            "rooms/.부산-여행.md.vault-tmp-\(dead)-12345",  // a killed write's
            ".vault/.unread.json.vault-tmp-\(dead)-7",
            "rooms/.부산-여행.md.vault-tmp-\(alive)-1",  // a running process's: kept
        ]
        for f in files { try w.write("laptop", f, "x") }
        let old = Date().addingTimeInterval(-120)
        try FileManager.default.setAttributes(
            [.modificationDate: old], ofItemAtPath: laptop + "/.git/refs/remotes/origin/main.lock")
        let head = try git(["rev-parse", "HEAD"], in: laptop)
        let u = try w.vault("laptop", ["unlock"])
        try w.expectOK(u)
        for f in files.dropLast() {
            #expect(!FileManager.default.fileExists(atPath: laptop + "/" + f), "\(f) left")
            #expect(u.stdout.contains(f.split(separator: "/").last!), "\(f) not reported: \(u.stdout)")
        }
        #expect(FileManager.default.fileExists(atPath: laptop + "/" + files.last!))
        #expect(try git(["rev-parse", "HEAD"], in: laptop) == head)
        try FileManager.default.removeItem(atPath: laptop + "/" + files.last!)
        try w.expectHealthy("laptop")
    }

    @Test func unlockKeepsAFreshLockOfAnotherProgramAndSaysWhy() throws {
        let w = try SyncWorld(clones: [])
        try w.write("laptop", ".git/refs/remotes/origin/main.lock", "x")
        let u = try w.vault("laptop", ["unlock"])
        #expect(u.status != 0)
        #expect(u.stderr.contains("kept") && u.stderr.contains("refs/remotes/origin/main.lock"), "\(u.stderr)")
        #expect(FileManager.default.fileExists(atPath: w.path("laptop") + "/.git/refs/remotes/origin/main.lock"))
    }

    // MARK: Two at once

    @Test func twoSyncsStartedTogetherBothSucceed() throws {
        let w = try SyncWorld()
        for round in 0..<3 {
            try w.chat("desktop", room, "데스크톱 \(round)")
            try w.expectOK(w.vault("desktop", ["sync"]))
            try w.chat("laptop", room, "노트북 \(round)")
            let processes = (0..<2).map { _ in
                vaultProcess(
                    ["sync"], in: w.path("laptop"),
                    environment: [
                        "VAULT_MACHINE": "laptop", "PATH": SyncWorld.pathWithVault, "VAULT_LOCK_TIMEOUT": "60",
                    ])
            }
            let errors = (0..<2).map { _ in Pipe() }
            for (p, e) in zip(processes, errors) {
                p.standardOutput = FileHandle.nullDevice
                p.standardError = e
                try p.run()
            }
            for (p, e) in zip(processes, errors) {
                let stderr = String(decoding: e.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                p.waitUntilExit()
                #expect(p.terminationStatus == 0, "round \(round): \(stderr)")
                #expect(!stderr.contains("cannot lock ref"))
            }
            #expect(try git(["show", "main:" + room], in: w.remote).contains("노트북 \(round)"))
        }
        try w.expectHealthy("laptop")
    }

    @Test func aSyncThatWaitedTooLongSaysAnotherSyncIsRunningAndChangesNothing() throws {
        let w = try SyncWorld()
        try w.chat("desktop", room, "데스크톱에서")
        try w.expectOK(w.vault("desktop", ["sync"]))
        let laptop = w.path("laptop")
        try w.chat("laptop", room, "노트북에서")
        let lockPath = laptop + "/.vault/sync-lock"
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        #expect(fd >= 0)
        defer { close(fd) }
        #expect(flock(fd, LOCK_EX) == 0)
        _ = "pid 4242 (vault sync)\n".withCString { write(fd, $0, strlen($0)) }
        let files = try w.files("laptop")
        let head = try git(["rev-parse", "HEAD"], in: laptop)
        let r = try w.vault("laptop", ["sync"], environment: ["VAULT_LOCK_TIMEOUT": "0.3"])
        #expect(r.status != 0)
        #expect(r.stderr.contains("pid 4242 (vault sync)") && r.stderr.contains("sync-lock"), "\(r.stderr)")
        #expect(try w.files("laptop") == files)
        #expect(try git(["rev-parse", "HEAD"], in: laptop) == head)
        let fetched = try git(["rev-parse", "refs/remotes/origin/main"], in: laptop)
        #expect(try fetched != git(["rev-parse", "main"], in: w.remote), "nothing was fetched")
    }

    // MARK: Undo over uncommitted edits

    @Test func undoKeepsUncommittedEditsAndTakesBackUnreadMarks() throws {
        let w = try SyncWorld()
        try w.chat("desktop", room, "첫 방에 들어올 메시지")
        try w.chat("desktop", otherRoom, "둘째 방에 들어올 메시지")
        try w.expectOK(w.vault("desktop", ["sync"]))
        let laptop = w.path("laptop")
        let beforeHead = try git(["rev-parse", "HEAD"], in: laptop)
        let beforeRoom = try w.read("laptop", room)
        try w.expectOK(w.vault("laptop", ["sync"]))
        #expect(try w.read("laptop", ".vault/unread.json").contains(room.dropFirst(6)))
        // Edits after the sync, not committed: one in a file the sync changed, one elsewhere, a new file.
        let edited = try w.read("laptop", otherRoom) + "\n손으로 덧붙인 줄\n"
        try w.write("laptop", otherRoom, edited)
        let config = try w.read("laptop", "vault.yml") + "# 손으로 쓴 메모\n"
        try w.write("laptop", "vault.yml", config)
        try w.write("laptop", "notes.txt", "새 파일\n")
        let u = try w.vault("laptop", ["sync", "--undo"])
        try w.expectOK(u)
        #expect(u.stdout.contains("uncommitted edits were kept"), "\(u.stdout)")
        #expect(u.stdout.contains(otherRoom) && u.stdout.contains("changed by the sync and edited since"))
        #expect(try git(["rev-parse", "HEAD"], in: laptop) == beforeHead)
        #expect(try w.read("laptop", room) == beforeRoom)
        #expect(try w.read("laptop", otherRoom) == edited)
        #expect(try w.read("laptop", "vault.yml") == config)
        #expect(try w.read("laptop", "notes.txt") == "새 파일\n")
        let status = try git(["-c", "core.quotepath=false", "status", "--porcelain"], in: laptop)
        #expect(status == " M rooms/부산-여행.md\n M vault.yml\n?? notes.txt\n", "\(status)")
        #expect(!status.contains(room), "\(status)")
        #expect(!(try w.read("laptop", ".vault/unread.json")).contains(room.dropFirst(6)), "the restored room's marks")
        // The edits go out with the next sync, as hand edits.
        let s = try w.vault("laptop", ["sync"])
        try w.expectOK(s)
        #expect(try git(["show", "main:vault.yml"], in: w.remote).contains("# 손으로 쓴 메모"))
        #expect(try git(["show", "main:" + otherRoom], in: w.remote).contains("손으로 덧붙인 줄"))
        try w.expectHealthy("laptop")
    }

    // MARK: Remotes that are not this vault

    @Test func aRemoteWithoutVaultYmlIsRefusedBeforeAnythingIsMergedOrSent() throws {
        let w = try SyncWorld(clones: [])
        let laptop = w.path("laptop")
        let readme = w.folder.path + "/readme"
        try FileManager.default.createDirectory(atPath: readme, withIntermediateDirectories: true)
        try git(["init", "--quiet", "-b", "main"], in: readme)
        try Data("# project\n".utf8).write(to: URL(fileURLWithPath: readme + "/README.md"))
        try git(["add", "."], in: readme)
        try git(["-c", "user.name=t", "-c", "user.email=t@e", "commit", "--quiet", "-m", "readme"], in: readme)
        let bare = w.folder.path + "/readme.git"
        try git(["clone", "--quiet", "--bare", readme, bare], in: w.folder.path)
        try w.expectOK(w.vault("laptop", ["remote", "add", "nv", bare]))
        try w.write("laptop", room, try w.read("laptop", room) + "\n손질\n")
        let files = try w.files("laptop")
        let head = try git(["rev-parse", "HEAD"], in: laptop)
        let remoteHead = try git(["rev-parse", "main"], in: bare)
        let r = try w.vault("laptop", ["sync", "nv"])
        #expect(r.status != 0)
        #expect(r.stderr.contains("nv/main is not this vault: it has no vault.yml"), "\(r.stderr)")
        #expect(r.stderr.contains("--allow-unrelated"))
        #expect(try w.files("laptop") == files)
        #expect(try git(["rev-parse", "HEAD"], in: laptop) == head, "not even the hand edit is committed")
        #expect(try git(["rev-parse", "main"], in: bare) == remoteHead)
        // A remote with another branch only, not a vault: the vault is not pushed into it.
        let trunk = w.folder.path + "/trunk.git"
        try git(["clone", "--quiet", "--bare", readme, trunk], in: w.folder.path)
        try git(["branch", "-m", "main", "trunk"], in: trunk)
        try w.expectOK(w.vault("laptop", ["remote", "add", "nv2", trunk]))
        let other = try w.vault("laptop", ["sync", "nv2"])
        #expect(other.status != 0)
        #expect(
            other.stderr.contains("has no branch main, and its branches (trunk) hold no vault.yml"), "\(other.stderr)")
        #expect(try git(["for-each-ref", "refs/heads/main"], in: trunk) == "")
        #expect(try git(["rev-parse", "HEAD"], in: laptop) == head)
        // Asked for, it is merged once its file's place is accepted too (the gate keeps to the
        // vault's layout whatever the history).
        let gated = try w.vault("laptop", ["sync", "nv", "--allow-unrelated"])
        #expect(gated.status == 1 && gated.stderr.contains("README.md") && gated.stderr.contains("outside rooms/"))
        try git(["config", "vault.acceptPaths", "README.md"], in: laptop)
        let allowed = try w.vault("laptop", ["sync", "nv", "--allow-unrelated"])
        try w.expectOK(allowed)
        #expect(FileManager.default.fileExists(atPath: laptop + "/README.md"))
        #expect(try git(["show", "main:vault.yml"], in: bare).count > 0)
    }

    @Test func anotherVaultsRemoteIsRefused() throws {
        let w = try SyncWorld(clones: [])
        // Another machine's vault: its first commit is not ours (the machine is in its message).
        let other = try SyncWorld("office", clones: [])
        try w.expectOK(w.vault("laptop", ["remote", "add", "elsewhere", other.remote]))
        let head = try git(["rev-parse", "HEAD"], in: w.path("laptop"))
        let r = try w.vault("laptop", ["sync", "elsewhere"])
        #expect(r.status != 0)
        #expect(
            r.stderr.contains("elsewhere/main is not this vault: its history has no commit in common"), "\(r.stderr)")
        #expect(try git(["rev-parse", "HEAD"], in: w.path("laptop")) == head)
        let otherHead = try git(["rev-parse", "HEAD"], in: other.path("office"))
        #expect(try git(["rev-parse", "main"], in: other.remote) == otherHead, "the other remote is untouched")
    }

    // MARK: The default remote

    @Test func syncWithAnotherRemoteKeepsTheDefaultAndRemoteDefaultChangesIt() throws {
        let w = try SyncWorld(clones: [])
        let laptop = w.path("laptop")
        let backup = w.folder.path + "/backup.git"
        try git(["init", "--quiet", "--bare", backup], in: w.folder.path)
        try w.expectOK(w.vault("laptop", ["remote", "add", "backup", backup]))
        try w.expectOK(w.vault("laptop", ["sync", "backup"]))
        #expect(try git(["rev-parse", "main"], in: backup) == git(["rev-parse", "HEAD"], in: laptop))
        #expect(try git(["config", "branch.main.remote"], in: laptop) == "origin\n")
        #expect(try w.vault("laptop", ["remote"]).stdout.contains("origin\t\(w.remote)\t(default)"))
        try w.chat("laptop", room, "기본 원격으로")
        try w.expectOK(w.vault("laptop", ["sync"]))
        #expect(try git(["show", "main:" + room], in: w.remote).contains("기본 원격으로"))
        #expect(try !git(["show", "main:" + room], in: backup).contains("기본 원격으로"))
        try w.expectOK(w.vault("laptop", ["remote", "default", "backup"]))
        #expect(try git(["config", "branch.main.remote"], in: laptop) == "backup\n")
        #expect(try w.vault("laptop", ["remote"]).stdout.contains("backup\t\(backup)\t(default)"))
        let wrong = try w.vault("laptop", ["remote", "default", "nope"])
        #expect(wrong.status != 0 && wrong.stderr.contains("there is no remote named 'nope'"))
        #expect(try git(["config", "branch.main.remote"], in: laptop) == "backup\n")
    }
}

/// The id of a process that has ended (and been waited for).
func deadProcessID() throws -> Int32 {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/bin/true")
    try p.run()
    p.waitUntilExit()
    return p.processIdentifier
}
