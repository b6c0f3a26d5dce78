import Foundation
import Testing
import VaultTestSupport

/// A `vault` killed (SIGKILL) anywhere in a change leaves nothing the next command cannot
/// finish: its git locks are proven its own and removed, the files it changed are committed
/// (`recover: …`), and nothing it wrote is lost. Each kill is real: the process sends itself
/// SIGKILL at the named point (`VAULT_CRASH_AT`), and the state it leaves is checked with git.
@Suite struct KilledVaultTests {
    let room = "rooms/부산-여행.md"

    private func vaultWithRoom() throws -> TemporaryDirectory {
        let dir = try initVault()
        for arguments in [["room", "new", "부산 여행"], ["chat", "부산", "hello"], ["room", "new", "Other room"]] {
            expectSucceeded(try runVault(arguments, in: dir.path))
        }
        return dir
    }

    private func killed(_ arguments: [String], at point: String, in dir: TemporaryDirectory) throws -> RunResult {
        let r = try runVault(arguments, in: dir.path, environment: ["VAULT_CRASH_AT": point])
        #expect(r.status == SIGKILL, "\(arguments) at \(point) was not killed: \(r.status) \(r.stderr)")
        return r
    }

    /// Nothing left over: no git lock, no lock holder, no note of uncommitted paths, no
    /// temporary file; git agrees with the folder.
    private func expectNothingLeft(_ dir: TemporaryDirectory, sourceLocation: SourceLocation = #_sourceLocation) throws
    {
        let files = dir.files()
        let leftovers = files.filter {
            $0.hasSuffix(".lock") && $0.hasPrefix(".git/") || $0.hasPrefix(".git/vault-locks/")
                || $0.hasPrefix(".vault/intents/")
                || $0.contains(".vault-tmp-")
        }
        #expect(leftovers.isEmpty, "left over: \(leftovers)", sourceLocation: sourceLocation)
        try expectRepositoryClean(dir.path, sourceLocation: sourceLocation)
    }

    /// A chat turn killed before its commit, with its objects written and the index locked, or
    /// after the branch moved: the next turn runs (no lock refuses it), both turns' messages
    /// are in the room and committed, and the repository is clean.
    @Test(arguments: ["before-commit", "objects-written", "branch-moved"])
    func aKilledChatTurnIsFinishedByTheNextOne(point: String) throws {
        let dir = try vaultWithRoom()
        let commits = try commitCount(dir.path)
        _ = try killed(["chat", "부산", "killed turn"], at: point, in: dir)
        #expect(try dir.readText(room).contains("killed turn"))
        if point != "before-commit" {
            #expect(FileManager.default.fileExists(atPath: dir.path + "/.git/index.lock"), "no lock left at \(point)")
        }
        let next = try runVault(["chat", "부산", "next turn"], in: dir.path)
        expectSucceeded(next)
        let committed = try String(decoding: gitBytes("HEAD:" + room, in: dir.path), as: UTF8.self)
        #expect(committed.contains("killed turn") && committed.contains("next turn"))
        #expect(try dir.read(room) == (try gitBytes("HEAD:" + room, in: dir.path)))
        let subjects = try subjects(dir.path)
        if point == "branch-moved" {
            // The killed turn's commit was made; only git's index was behind.
            #expect(try commitCount(dir.path) == commits + 2, "\(subjects)")
            #expect(!subjects.contains { $0.hasPrefix("recover:") }, "\(subjects)")
        } else {
            #expect(
                subjects.dropFirst().first
                    == "recover: \(room) (left uncommitted by `vault chat`, which stopped before its commit)",
                "\(subjects)")
            #expect(try commitCount(dir.path) == commits + 2, "\(subjects)")
        }
        try expectNothingLeft(dir)
    }

    /// Created and deleted files of killed commands are committed by the next command, whatever
    /// file that command changes.
    @Test func filesCreatedOrDeletedByKilledCommandsAreCommittedByTheNextCommand() throws {
        let dir = try vaultWithRoom()
        _ = try killed(["room", "new", "Killed room"], at: "before-commit", in: dir)
        #expect(FileManager.default.fileExists(atPath: dir.path + "/rooms/killed-room.md"))
        _ = try killed(["rm", "부산", "--yes"], at: "before-commit", in: dir)
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/" + room))
        // Another room entirely.
        expectSucceeded(try runVault(["chat", "other-room", "hi"], in: dir.path))
        let subjects = try subjects(dir.path)
        #expect(
            subjects.contains(
                "recover: rooms/killed-room.md (left uncommitted by `vault room`, which stopped before its commit)"),
            "\(subjects)")
        #expect(
            subjects.contains("recover: \(room) (left uncommitted by `vault rm`, which stopped before its commit)"),
            "\(subjects)")
        #expect(try treeFiles("HEAD", in: dir.path).contains("rooms/killed-room.md"))
        #expect(try !treeFiles("HEAD", in: dir.path).contains(room))
        try expectNothingLeft(dir)
        // And the room removed by the killed rm comes back.
        expectSucceeded(try runVault(["restore", "부산"], in: dir.path))
        #expect(try dir.readText(room).contains("hello"))
        try expectNothingLeft(dir)
    }

    /// A note of this machine's in `.vault/` (`unread.json`, `authorship-checked`) is written to a
    /// temporary file and renamed; a kill between the two leaves the temporary file, which no
    /// intent names. The next command removes it when its process is gone, and leaves a running
    /// process's alone. (The kill loop found one: `.vault/.authorship-checked.vault-tmp-PID-N`.)
    @Test func theNextCommandRemovesWhatAKilledNoteWriteLeftInDotVault() throws {
        let dir = try vaultWithRoom()
        let gone = Process()
        gone.executableURL = URL(fileURLWithPath: "/bin/true")
        try gone.run()
        gone.waitUntilExit()
        let dead = ".vault/.authorship-checked.vault-tmp-\(gone.processIdentifier)-12345"
        let deadUnread = ".vault/.unread.json.vault-tmp-\(gone.processIdentifier)-678"
        let running = ".vault/.unread.json.vault-tmp-\(getpid())-9"
        for name in [dead, deadUnread, running] { try dir.write(name, "half a note") }
        expectSucceeded(try runVault(["chat", "부산", "after the kill"], in: dir.path))
        let files = dir.files()
        #expect(!files.contains(dead) && !files.contains(deadUnread), "\(files.filter { $0.hasPrefix(".vault/") })")
        #expect(files.contains(running), "a running process's temporary file was removed")
        try FileManager.default.removeItem(atPath: dir.path + "/" + running)
        try expectNothingLeft(dir)
    }

    /// `vault unlock` removes at once (no minute's wait, no --force) the lock of a vault that was
    /// killed, and commits what it left.
    @Test func unlockRemovesTheLockOfAKilledVaultAtOnce() throws {
        let dir = try vaultWithRoom()
        _ = try killed(["chat", "부산", "killed turn"], at: "objects-written", in: dir)
        let lock = dir.path + "/.git/index.lock"
        #expect(FileManager.default.fileExists(atPath: lock))
        // git itself is blocked by it meanwhile.
        let blocked = try gitRun(["commit", "--allow-empty", "-m", "x"], in: dir.path)
        #expect(blocked.status != 0 && blocked.stderr.contains("index.lock"), "\(blocked.stderr)")
        let unlock = try runVault(["unlock"], in: dir.path)
        expectSucceeded(unlock)
        #expect(unlock.stdout.contains("removed \(lock)"), "\(unlock.stdout)")
        #expect(unlock.stdout.contains("committed \(room)"), "\(unlock.stdout)")
        #expect(
            try subjects(dir.path).first
                == "recover: \(room) (left uncommitted by `vault chat`, which stopped before its commit)")
        try expectNothingLeft(dir)
    }

    /// Only a lock proven to be a dead vault's is removed: git's own lock, a lock that replaced
    /// a dead vault's, and the lock of a vault still running are left alone.
    @Test func noOtherLockIsEverRemoved() throws {
        let dir = try vaultWithRoom()
        let git = dir.path + "/.git"
        let holders = git + "/vault-locks"
        try FileManager.default.createDirectory(atPath: holders, withIntermediateDirectories: true)
        // A dead vault's holder, but the lock is another file (git made it after the holder's lock went).
        let dead = try #require(try deadProcessTag())
        try dir.write(".git/vault-locks/\(dead)-index.lock", "")
        try dir.write(".git/index.lock", "")
        let refused = try runVault(["chat", "부산", "hello"], in: dir.path)
        expectFailure(refused, ["index.lock", "vault unlock"])
        #expect(FileManager.default.fileExists(atPath: git + "/index.lock"), "git's lock was removed")
        #expect(!FileManager.default.fileExists(atPath: holders + "/\(dead)-index.lock"), "the dead holder was kept")
        try FileManager.default.removeItem(atPath: git + "/index.lock")
        // A running process's holder, linked to the lock: kept (this test process is running).
        let running = "\(getpid())-\(try selfStartTime())"
        try dir.write(".git/vault-locks/\(running)-index.lock", "")
        #expect(link(holders + "/\(running)-index.lock", git + "/index.lock") == 0)
        let refusedAgain = try runVault(["chat", "부산", "hello"], in: dir.path)
        expectFailure(refusedAgain, ["index.lock"])
        #expect(FileManager.default.fileExists(atPath: git + "/index.lock"), "a running vault's lock was removed")
        try FileManager.default.removeItem(atPath: git + "/index.lock")
        try FileManager.default.removeItem(atPath: holders + "/\(running)-index.lock")
        expectSucceeded(try runVault(["chat", "부산", "hello"], in: dir.path))
        try expectNothingLeft(dir)
    }

    /// `<pid>-<start>` of a process that ran and is gone.
    private func deadProcessTag() throws -> String? {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sleep")
        p.arguments = ["60"]
        try p.run()
        let pid = p.processIdentifier
        let start = try startTime(of: pid)
        kill(pid, SIGKILL)
        p.waitUntilExit()
        return start.map { "\(pid)-\($0)" }
    }

    private func selfStartTime() throws -> UInt64 { try #require(try startTime(of: getpid())) }

    /// Field 22 of /proc/<pid>/stat.
    private func startTime(of pid: Int32) throws -> UInt64? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        return fields.count > 19 ? UInt64(fields[19]) : nil
    }
}
