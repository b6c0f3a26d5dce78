import Foundation
import Testing
import VaultTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Seeded loops that start `vault` doing chat turns (a reply streaming from the loopback server),
/// diary writes, `rm`, `restore` and `edit` (an editor stand-in appending a line), and kill it
/// at a random moment: SIGKILL (the process and its editor, as a crash or the OOM killer would),
/// or SIGTERM (`kill`, `timeout`, a shutdown) to vault alone. At the end, after one more command:
/// every file parses (`vault check`), `git fsck --strict` is clean, `git status` is clean, and
/// everything an operation reported as done (exit 0) is there. SIGTERM must leave nothing for
/// that command to do: `git status` is clean right after each signalled operation.
///
/// The delay before each kill is the loop's random variable (seeded): up to 1.3 times how long
/// that kind of operation last took when left alone (every fourth operation is). The suite runs
/// `VAULT_KILL_TARGET` (default 30) kills of each signal; `scripts/kill-loop.sh` runs 500 and more.
@Suite struct KillLoopTests {
    // Long runs (scripts/kill-loop.sh) take minutes; each process has its own 60 s limit.
    @Test(.timeLimit(.minutes(30)))
    func sigkillAtRandomMomentsLosesNothing() throws {
        let env = ProcessInfo.processInfo.environment
        let target = env["VAULT_KILL_TARGET"].flatMap(Int.init) ?? 30
        let seed = env["VAULT_KILL_SEED"].flatMap(UInt64.init) ?? 20261125
        let figures = try KillLoop(signal: SIGKILL, seed: seed).run(kills: target)
        print("kill loop SIGKILL seed \(seed): \(figures)")
    }

    @Test(.timeLimit(.minutes(30)))
    func sigtermAtRandomMomentsLosesNothing() throws {
        let env = ProcessInfo.processInfo.environment
        let target = env["VAULT_TERM_TARGET"].flatMap(Int.init) ?? 30
        let seed = env["VAULT_KILL_SEED"].flatMap(UInt64.init) ?? 20261125
        let figures = try KillLoop(signal: SIGTERM, seed: seed).run(kills: target)
        print("kill loop SIGTERM seed \(seed): \(figures)")
        // SIGTERM never leaves anything for the next command: a change in progress is finished.
        #expect(figures.uncleanRightAfter == 0 && figures.recoverCommits == 0 && figures.staleGitLocks == 0)
    }
}

/// One loop: a vault, the server, the operations and what they reported.
final class KillLoop {
    let signal: Int32
    var random: SeededRandom
    let server: FakeOpenAIServer
    let vault: ChatVault
    let tools = TemporaryDirectory("kill-loop-tools")
    let editor: String
    let rooms: [String]

    /// A diary entry as the loop knows it: whether it is there (nil: unknown, after a killed
    /// `rm` or `restore`) and the words that must be in it whenever it is.
    struct Entry {
        var present: Bool?
        var words: Set<String>
    }
    var entries: [String: Entry] = [:]
    /// (room, question) of every turn that reported done.
    var answered: [(room: String, question: String)] = []
    /// (room, line) of every room edit that reported done.
    var roomEdits: [(room: String, line: String)] = []
    /// How long each kind of operation took when left alone (seconds), for the kill delays.
    var durations: [String: Double] = ["chat": 0.4, "write": 0.15, "edit": 0.2, "rm": 0.15, "restore": 0.15]

    struct Figures: CustomStringConvertible {
        var operations = 0
        var signalled = 0
        /// Processes that died of the signal (SIGKILL: all signalled ones still running).
        var diedOfSignal = 0
        /// SIGTERM only: processes that finished their change and exited with 143 or 130.
        var finishedThenExited = 0
        var done = 0
        var recoverCommits = 0
        var staleGitLocks = 0
        var uncleanRightAfter = 0
        /// Volumes the rooms had at the end (rolled over during the loop).
        var volumes = 0
        var byKind: [String: Int] = [:]
        var description: String {
            let kinds = byKind.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            return "\(operations) operations (\(kinds)), \(signalled) signalled, \(diedOfSignal) died of the signal, "
                + "\(finishedThenExited) finished their change then exited 128+n, \(done) reported done, "
                + "\(recoverCommits) recover: commits, "
                + "\(staleGitLocks) stale git locks removed with vault unlock --force, "
                + "\(uncleanRightAfter) times git status unclean right after a signalled operation, "
                + "\(volumes) volumes at the end"
        }
    }
    var figures = Figures()
    /// `VAULT_KILL_VERBOSE=1`: one line per operation.
    let verbose = ProcessInfo.processInfo.environment["VAULT_KILL_VERBOSE"] == "1"

    init(signal: Int32, seed: UInt64) throws {
        self.signal = signal
        random = SeededRandom(seed: seed)
        (server, vault) = try startChat(system: nil)
        editor = tools.path + "/editor.sh"
        // The editor stand-in: appends the line the loop chose, as a person saving in an editor.
        try tools.write("editor.sh", "#!/bin/sh\nprintf '%s\\n' \"$KILL_LOOP_LINE\" >> \"$1\"\n")
        chmod(editor, 0o755)
        var rooms = [ChatVault.roomPath]
        for title in ["둘째 방", "셋째 방"] {
            let made = try vault.vault(["room", "new", title])
            guard made.status == 0 else { throw FixtureError("room new failed: \(made.stderr)") }
            rooms.append("rooms/" + title.replacingOccurrences(of: " ", with: "-") + ".md")
        }
        self.rooms = rooms
        // Format 3, with volumes of a few kilobytes: a room rolls its older messages over to
        // volumes every few turns, so kills land in rollovers too.
        let config = try vault.dir.readText("vault.yml")
        try vault.dir.write("vault.yml", config.replacingOccurrences(of: "format: 1\n", with: "format: 3\n"))
        try git(
            ["-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "-m", "format 3", "vault.yml"],
            in: vault.dir.path)
    }

    /// Volumes of a few kilobytes (`RoomVolumes`, tests only), for every process of the loop.
    static let volumeSizes = ["VAULT_TEST_VOLUME_SIZES": "2048,512,1024"]

    /// A room's messages as a person reads them: its volumes' (oldest first), then its file's.
    func messages(of room: String) throws -> [RoomMessage] {
        var out: [RoomMessage] = []
        for path in volumes(of: room) { out += roomMessages(try vault.dir.read(path)) }
        return out + roomMessages(try vault.dir.read(room))
    }

    /// The paths of a room's volumes, oldest first.
    func volumes(of room: String) -> [String] {
        let folder = "volumes/" + room.dropFirst("rooms/".count).dropLast(".md".count)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: vault.path + "/" + folder)) ?? []
        return names.filter { $0.hasSuffix(".md") }.sorted().map { folder + "/" + $0 }
    }

    deinit { server.stop() }

    func pick<T>(_ items: [T]) -> T { items[Int.random(in: 0..<items.count, using: &random)] }

    /// Runs operations until `kills` of them were killed (SIGKILL: died of it; SIGTERM: signalled
    /// while running); then the checks.
    func run(kills: Int) throws -> Figures {
        var step = 0
        while (signal == SIGKILL ? figures.diedOfSignal : figures.signalled) < kills {
            try operation(step)
            step += 1
        }
        try finalChecks()
        return figures
    }

    func operation(_ step: Int) throws {
        let word = "k\(step)"
        let roll = Int.random(in: 0..<100, using: &random)
        let known = entries.keys.sorted()
        var arguments: [String]
        var kind: String
        var target = ""
        switch roll {
        case 0..<35:
            kind = "chat"
            target = pick(rooms)
            arguments = ["chat", target, "질문 \(word)", "--provider", "local", "--model", "trickle"]
        case 35..<60:
            kind = "write"
            arguments = ["write", "일기 \(word)", "--body", "본문 \(word)", "--date", "2026-0\(1 + step % 9)-1\(step % 10)"]
        case 60..<75:
            kind = "edit"
            target = known.isEmpty || Bool.random(using: &random) ? pick(rooms) : pick(known)
            arguments = ["edit", target]
        case 75..<87 where !known.isEmpty:
            kind = "rm"
            target = pick(known)
            arguments = ["rm", target, "--yes"]
        case 87..<100 where !known.isEmpty:
            kind = "restore"
            target = pick(known)
            arguments = ["restore", target]
        default:
            kind = "write"
            arguments = ["write", "일기 \(word)", "--body", "본문 \(word)", "--date", "2026-1\(step % 3)-0\(1 + step % 9)"]
        }
        let line = "고친 줄 \(word)"
        let leftAlone = step % 4 == 3
        let delay = leftAlone ? nil : Double.random(in: 0...(1.3 * durations[kind, default: 0.3]), using: &random)
        // KILL_LOOP_OPERATION names this operation of this loop: its processes, and nobody else's.
        let environment = vault.environment.merging([
            "EDITOR": editor, "VISUAL": "", "KILL_LOOP_LINE": line, "KILL_LOOP_OPERATION": "\(tools.path)/\(step)",
        ].merging(KillLoop.volumeSizes) { $1 }) { $1 }
        var outcome = try LoopProcess.run(
            arguments, in: vault.path, environment: environment, signalAfter: delay, signal: signal)
        if outcome.stderr.contains("the repository is locked") {
            // A commit killed while it held git's lock (index.lock, the branch's lock): what
            // RELIABILITY.md tells a person to do. (Counted in the figures.)
            figures.staleGitLocks += 1
            let unlocked = try vault.vault(["unlock", "--force"])
            #expect(unlocked.status == 0, "\(unlocked.stderr)")
            outcome = try LoopProcess.run(
                arguments, in: vault.path, environment: environment, signalAfter: nil, signal: signal)
        }
        figures.operations += 1
        figures.byKind[kind, default: 0] += 1
        if verbose {
            let after = delay.map { String(format: "%.3f", $0) } ?? "-"
            print(
                "kill loop step \(step): \(arguments) delay \(after) → status \(outcome.status) "
                    + "signalled \(outcome.signalled) died \(outcome.diedOfSignal) \(outcome.stderr.prefix(200))")
        }
        if outcome.signalled {
            figures.signalled += 1
            if outcome.diedOfSignal { figures.diedOfSignal += 1 }
            if !outcome.diedOfSignal && outcome.status > 128 { figures.finishedThenExited += 1 }
            if signal == SIGTERM, try !vault.porcelain().isEmpty { figures.uncleanRightAfter += 1 }
        } else if delay == nil, outcome.status == 0 {
            durations[kind] = outcome.seconds
        }
        #expect(!outcome.stderr.contains("Fatal error"), "step \(step) \(arguments): \(outcome.stderr)")
        #expect(
            outcome.diedOfSignal ? outcome.signalled : true,
            "step \(step) \(arguments) died of a signal nobody sent: \(outcome.status)")
        let done = !outcome.diedOfSignal && outcome.status == 0
        if done { figures.done += 1 }
        let unknown = !done && outcome.signalled
        switch kind {
        case "chat":
            if done { answered.append((target, "질문 \(word)")) }
        case "write":
            let said = outcome.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            if done, said.hasPrefix("Wrote "), said.hasSuffix(".") {
                let path = String(said.dropFirst(6).dropLast())
                entries[path] = Entry(present: true, words: ["본문 \(word)"])
            }
        case "edit":
            if done && rooms.contains(target) { roomEdits.append((target, line)) }
            if entries[target] != nil, done {
                entries[target]?.words.insert(line)
                entries[target]?.present = true
            }
        case "rm":
            if done { entries[target]?.present = false } else if unknown { entries[target]?.present = nil }
        case "restore":
            if done { entries[target]?.present = true } else if unknown { entries[target]?.present = nil }
        default: break
        }
    }

    func finalChecks() throws {
        // The next command: any command that changes the vault finishes what the killed ones left.
        let last = ["write", "마지막", "--body", "마지막 일기", "--date", "2026-12-31"]
        var next = try vault.vault(last, environment: KillLoop.volumeSizes)
        if next.stderr.contains("the repository is locked") {
            figures.staleGitLocks += 1
            _ = try vault.vault(["unlock", "--force"])
            next = try vault.vault(last, environment: KillLoop.volumeSizes)
        }
        #expect(next.status == 0, "the next command failed: \(next.stderr)")
        // A turn in each room: a rollover killed between its volumes and the room's file is
        // finished by the room's next one (its messages were in both until then).
        for room in rooms {
            let turn = try vault.vault(
                ["chat", room, "마지막 질문", "--provider", "local", "--model", "ok"], environment: KillLoop.volumeSizes)
            #expect(turn.status == 0, "the last turn in \(room) failed: \(turn.stderr)")
            let ids = try messages(of: room).map(\.header.id)
            #expect(Set(ids).count == ids.count, "\(room): \(ids.count - Set(ids).count) messages twice")
            figures.volumes += volumes(of: room).count
        }
        #expect(try vault.porcelain() == "", "git status is not clean after the next command")
        let fsck = try git(["fsck", "--strict", "--no-progress"], in: vault.path)
        #expect(!fsck.contains("error") && !fsck.contains("missing") && !fsck.contains("broken"), "git fsck: \(fsck)")
        let check = try vault.vault(["check"])
        #expect(check.status == 0, "vault check: \(check.stdout) \(check.stderr)")
        // Everything reported as done is there.
        for (room, question) in answered {
            let messages = try messages(of: room)
            let at = messages.firstIndex { $0.header.role == "user" && $0.body == question }
            guard let at else {
                Issue.record("\(room): the answered question \(question) is missing")
                continue
            }
            guard at + 1 < messages.count, messages[at + 1].header.role == "assistant" else {
                Issue.record("\(room): \(question) lost its reply")
                continue
            }
            #expect(messages[at + 1].body == ServerText.reply && messages[at + 1].header.attributes["status"] == nil)
        }
        for (room, line) in roomEdits {
            let text = try (volumes(of: room) + [room]).map { try vault.dir.readText($0) }.joined()
            #expect(text.contains(line + "\n"), "\(room): the edit \(line) is missing")
        }
        for (path, entry) in entries.sorted(by: { $0.key < $1.key }) {
            let exists = FileManager.default.fileExists(atPath: vault.path + "/" + path)
            if let present = entry.present {
                #expect(exists == present, "\(path) should \(present ? "" : "not ")be there")
            }
            if exists {
                let text = try vault.dir.readText(path)
                for word in entry.words { #expect(text.contains(word), "\(path) lost \(word)") }
            }
        }
        figures.recoverCommits = try vault.subjects().filter { $0.hasPrefix("recover: ") }.count
    }
}

/// One `vault` process of the loop, signalled after a delay unless it ended first.
struct LoopProcess {
    var status: Int32
    var stdout: String
    var stderr: String
    var seconds: Double
    /// The signal was sent while the process ran.
    var signalled: Bool
    var diedOfSignal: Bool

    static func run(
        _ arguments: [String], in directory: String, environment: [String: String], signalAfter delay: Double?,
        signal: Int32
    ) throws -> LoopProcess {
        let process = vaultProcess(arguments, in: directory, environment: environment)
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        let start = Date()
        try startingAsAShellWould { try process.run() }
        nonisolated(unsafe) var outData = Data()
        nonisolated(unsafe) var errData = Data()
        let readers = DispatchGroup()
        readers.enter()
        DispatchQueue.global().async {
            outData = out.fileHandleForReading.readDataToEndOfFile()
            readers.leave()
        }
        readers.enter()
        DispatchQueue.global().async {
            errData = err.fileHandleForReading.readDataToEndOfFile()
            readers.leave()
        }
        var signalled = false
        var ended = false
        // Waits for the exit, up to the delay: the signal goes only to a process still running.
        if let delay {
            if exited.wait(timeout: .now() + delay) == .success {
                ended = true
            } else {
                signalled = true
                if signal == SIGKILL {
                    killWithChildren(process.processIdentifier)
                } else {
                    kill(process.processIdentifier, signal)
                }
            }
        }
        if !ended, exited.wait(timeout: .now() + 60) == .timedOut {
            killWithChildren(process.processIdentifier)
            _ = exited.wait(timeout: .now() + 10)
            throw FixtureError("vault \(arguments) did not end within 60 s")
        }
        process.waitUntilExit()
        if signalled && signal == SIGKILL, let marker = environment["KILL_LOOP_OPERATION"] {
            killProcesses(holding: "KILL_LOOP_OPERATION=" + marker)
        }
        readers.wait()
        return LoopProcess(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self), seconds: Date().timeIntervalSince(start),
            signalled: signalled, diedOfSignal: process.terminationReason == .uncaughtSignal)
    }

    /// SIGKILL to `pid` and the processes it started (the editor), as a crash of the session
    /// would. (Not SIGSTOP first: Foundation then missed the exit of the process.)
    static func killWithChildren(_ pid: pid_t) {
        let started = children(of: pid)
        kill(pid, SIGKILL)
        for child in started { killWithChildren(child) }
    }

    /// SIGKILL to every process whose environment holds `marker` (the editor stand-ins of one
    /// operation), once their `vault` has ended: an editor it was starting as it was killed.
    static func killProcesses(holding marker: String) {
        let needle = Array(marker.utf8)
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = pid_t(entry), pid != getpid(),
                let environ = FileManager.default.contents(atPath: "/proc/\(entry)/environ")
            else { continue }
            if environ.split(separator: 0).contains(where: { Array($0) == needle }) { kill(pid, SIGKILL) }
        }
    }

    static func children(of pid: pid_t) -> [pid_t] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.flatMap { task -> [pid_t] in
            let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)) ?? ""
            return text.split(separator: " ").compactMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        }
    }
}

/// Runs `start` (which starts a process) with SIGINT, SIGTERM and SIGHUP unblocked in this thread,
/// so the process starts with them unblocked, as from a shell. The test runner blocks some of
/// them, and a new process inherits the mask of the thread that starts it.
func startingAsAShellWould(_ start: () throws -> Void) rethrows {
    var set = sigset_t()
    var old = sigset_t()
    sigemptyset(&set)
    for s in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&set, s) }
    pthread_sigmask(SIG_UNBLOCK, &set, &old)
    defer { pthread_sigmask(SIG_SETMASK, &old, nil) }
    try start()
}
