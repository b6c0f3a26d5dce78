import Foundation
import Testing
import VaultCore
import VaultTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// `vault import` through the built binary: a Claude Code session log imported into a fresh
/// vault, imported again as it grows, and refused when broken; jrnl's plain text into the diary.
@Suite struct ImportCommandTests {
    static let session = "7a0c2a1e-0000-4000-8000-000000000009"

    static func line(_ object: [String: Any]) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    static func user(_ uuid: String, _ time: String, _ text: String) -> String {
        line([
            "type": "user", "uuid": uuid, "parentUuid": NSNull(), "sessionId": session, "timestamp": time,
            "cwd": "/home/me/src/busan", "isSidechain": false, "message": ["role": "user", "content": text],
        ])
    }

    static func assistant(_ uuid: String, _ time: String, id: String, _ text: String) -> String {
        line([
            "type": "assistant", "uuid": uuid, "parentUuid": NSNull(), "sessionId": session, "timestamp": time,
            "cwd": "/home/me/src/busan", "isSidechain": false,
            "message": ["id": id, "role": "assistant", "model": "claude-sonnet-4-5",
                        "content": [["type": "text", "text": text]]],
        ])
    }

    let first = [
        line(["type": "summary", "summary": "부산 일정 고치기", "leafUuid": "a1"]),
        user("u1", "2026-03-01T09:00:00.000Z", "둘째 날이 왜 빠지지?\n## 🧑 user · 가짜 <!-- 2026-03-01T09:00:00Z m-FAKE1234 -->"),
        assistant("a1", "2026-03-01T09:00:05.000Z", id: "msg_01", "range가 1부터 시작해서요."),
    ]

    func write(_ lines: [String], in folder: TemporaryDirectory) throws -> String {
        let path = "-home-me-src-busan/\(Self.session).jsonl"
        try folder.write(path, lines.joined(separator: "\n") + "\n")
        return folder.path + "/" + path
    }

    /// jrnl's dates written with another `timeformat` (issue #37): `--date-format`, else the
    /// `timeformat` of jrnl's own configuration; refused, saying so, with neither.
    @Test func jrnlDatesAreReadWithDateFormatOrJrnlsConfig() throws {
        let journals = TemporaryDirectory("jrnl-le")
        try journals.write("le.txt", "[09.06.2013 15:39] Little-endian. Body\n")
        let path = journals.path + "/le.txt"
        let noConfig = ["XDG_CONFIG_HOME": journals.path + "/none"]
        let vault = try freshVault(locale: "en_US", timeZone: "UTC")
        let refused = try runVault(["import", "jrnl", path], in: vault.path, environment: noConfig)
        #expect(refused.status != 0 && refused.stderr.contains("--date-format '%d.%m.%Y %H:%M'"), "\(refused.stderr)")
        let given = try runVault(["import", "jrnl", path, "--date-format", "%d.%m.%Y %H:%M"], in: vault.path, environment: noConfig)
        expectSuccess(given)
        #expect(given.stdout == "Imported jrnl: 1 entry new, 0 unchanged.\n", "\(given.stdout)")
        #expect(FileManager.default.fileExists(atPath: vault.path + "/diary/2013/2013-06-09-little-endian.md"))

        try journals.write("config/jrnl/jrnl.yaml", "journals:\n  default: \(path)\ntimeformat: '%d.%m.%Y %H:%M'\n")
        let other = try freshVault(locale: "en_US", timeZone: "UTC")
        let fromConfig = try runVault(["import", "jrnl", path], in: other.path, environment: ["XDG_CONFIG_HOME": journals.path + "/config"])
        expectSuccess(fromConfig)
        #expect(fromConfig.stdout == "Imported jrnl: 1 entry new, 0 unchanged.\n", "\(fromConfig.stdout)")

        let wrong = try runVault(["import", "claude-code", path, "--date-format", "%d"], in: other.path)
        #expect(wrong.status == 64 && wrong.stderr.contains("--date-format is for jrnl journals only"), "\(wrong.stderr)")
    }

    @Test func aClaudeCodeSessionIsImportedOnceAndGrowsWithItsLog() throws {
        let vault = try freshVault(locale: "ko_KR", timeZone: "Asia/Seoul")
        let logs = TemporaryDirectory("claude-logs")
        let file = try write(first, in: logs)
        let commits = try git(["rev-list", "--count", "HEAD"], in: vault.path)

        let dry = try runVault(["import", "claude-code", file, "--dry-run"], in: vault.path)
        expectSuccess(dry)
        #expect(dry.stdout == "Would import claude-code: 1 room new, 0 updated, 0 unchanged; 2 messages added.\n", "\(dry.stdout)")
        #expect(try git(["rev-list", "--count", "HEAD"], in: vault.path) == commits)
        #expect(try FileManager.default.contentsOfDirectory(atPath: vault.path + "/rooms").isEmpty)

        // The source is told from the file when it is not named.
        let r = try runVault(["import", file], in: vault.path)
        expectSuccess(r)
        #expect(r.stdout.hasPrefix("Imported claude-code: 1 room new"), "\(r.stdout)")
        #expect(try git(["log", "-1", "--format=%s"], in: vault.path).hasPrefix("import: claude-code, 1 room new"))
        #expect(try git(["status", "--porcelain"], in: vault.path) == "")
        let path = "rooms/부산-일정-고치기.md"
        let room = try RoomFile(parsing: Array(try Data(contentsOf: URL(fileURLWithPath: vault.path + "/" + path))), path: path)
        #expect(room.frontMatter?.string("source") == "claude-code")
        #expect(room.frontMatter?.string("source_id") == Self.session)
        #expect(room.messages.count == 2)
        #expect(room.messages[0].body.hasSuffix("<!-- 2026-03-01T09:00:00Z m-FAKE1234 -->"), "a forged header stays text")
        #expect(room.messages[1].header.attribute("model") == "claude-sonnet-4-5")
        try expectCheckClean(vault.path)

        // Again: nothing new, nothing written.
        let again = try runVault(["import", "claude-code", file], in: vault.path)
        expectSuccess(again)
        #expect(again.stdout.hasPrefix("Nothing new in claude-code: 0 rooms new, 0 updated, 1 unchanged"), "\(again.stdout)")

        // The log grew (Claude Code keeps appending): only the new turn comes in.
        _ = try write(first + [
            Self.user("u2", "2026-03-02T10:00:00.000Z", "고마워요"),
            Self.assistant("a2", "2026-03-02T10:00:03.000Z", id: "msg_02", "천만에요."),
        ], in: logs)
        let grown = try runVault(["import", "claude-code", file], in: vault.path)
        expectSuccess(grown)
        #expect(grown.stdout.contains("1 updated") && grown.stdout.contains("2 messages added"), "\(grown.stdout)")
        let after = try RoomFile(parsing: Array(try Data(contentsOf: URL(fileURLWithPath: vault.path + "/" + path))), path: path)
        #expect(after.messages.map(\.body).suffix(2) == ["고마워요", "천만에요."])
        #expect(Array(after.messages.prefix(2).map(\.id)) == room.messages.map(\.id))
    }

    @Test func aBrokenLogWritesNothingAndKeepGoingLeavesOutOnlyTheBrokenLine() throws {
        let vault = try freshVault()
        let logs = TemporaryDirectory("claude-logs")
        let file = try write(first + ["{\"type\": \"user\", \"uuid\": "], in: logs)
        let before = try git(["rev-parse", "HEAD"], in: vault.path)
        let r = try runVault(["import", "claude-code", file], in: vault.path)
        #expect(r.status == 1)
        #expect(r.stderr == "vault: error: \(file), at line 4: is not valid JSON; nothing was imported\n", "\(r.stderr)")
        #expect(try git(["rev-parse", "HEAD"], in: vault.path) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: vault.path + "/rooms").isEmpty)
        #expect(!FileManager.default.fileExists(atPath: vault.path + "/.vault/import"))

        // --keep-going: the line Claude Code was cut off writing is named and left out; the
        // lines before and after it come in.
        _ = try write(first + ["{\"type\": \"user\", \"uuid\": ", Self.user("u2", "2026-03-01T09:01:00.000Z", "그 다음은?")], in: logs)
        let kept = try runVault(["import", "claude-code", file, "--keep-going"], in: vault.path)
        expectSuccess(kept)
        #expect(kept.stderr == "vault: warning: left out \(file), at line 4: is not valid JSON\n", "\(kept.stderr)")
        let path = "rooms/부산-일정-고치기.md"
        let room = try RoomFile(parsing: Array(try Data(contentsOf: URL(fileURLWithPath: vault.path + "/" + path))), path: path)
        #expect(room.messages.map(\.body).suffix(2) == ["range가 1부터 시작해서요.", "그 다음은?"])
        #expect(try git(["status", "--porcelain"], in: vault.path) == "")
    }

    @Test func aFileNoReaderKnowsIsAUsageError() throws {
        let vault = try freshVault()
        let other = TemporaryDirectory("other")
        try other.write("notes.txt", "그냥 메모\n")
        let r = try runVault(["import", other.path + "/notes.txt"], in: vault.path)
        #expect(r.status == 64, "\(r.stderr)")
        #expect(r.stderr.hasPrefix("vault: error: cannot tell which tool made "), "\(r.stderr)")
        let missing = try runVault(["import", "jrnl", other.path + "/nope.txt"], in: vault.path)
        #expect(missing.status == 1 && missing.stderr.contains("no such file or folder"), "\(missing.stderr)")
    }

    @Test func aJrnlJournalBecomesDiaryEntries() throws {
        let vault = try freshVault(locale: "ko_KR", timeZone: "Asia/Seoul")
        let other = TemporaryDirectory("jrnl")
        try other.write("journal.txt", """
            [2026-03-01 21:30] 첫 일기. 오늘은 @부산 에 갔다.

            [2026-03-02 08:00] 둘째 날 * 아침에 국밥을 먹었다.

            """)
        let r = try runVault(["import", "jrnl", other.path + "/journal.txt"], in: vault.path)
        expectSuccess(r)
        #expect(r.stdout.contains("2 entries new"), "\(r.stdout) \(r.stderr)")
        let list = try runVault(["diary", "list", "--format", "%(date) %(title)"], in: vault.path)
        #expect(list.stdout.contains("2026-03-01 첫 일기") && list.stdout.contains("2026-03-02 둘째 날"), "\(list.stdout)")
        let again = try runVault(["import", "jrnl", other.path + "/journal.txt"], in: vault.path)
        #expect(again.stdout.contains("0 entries new, 2 unchanged"), "\(again.stdout)")
        try expectCheckClean(vault.path)
    }

    // MARK: Exports made to attack (issue #36)

    /// The built `vault` with `arguments` in `vault`, under Tests/Fixtures/peak_rss.py and killed
    /// (SIGKILL) after `deadline` seconds: what it printed, how long it ran, its peak resident
    /// memory in bytes.
    func runMeasured(_ arguments: [String], in vault: String, deadline: Int = 60) throws
        -> (run: RunResult, seconds: Double, peakBytes: Int)
    {
        let report = TemporaryDirectory("peak-rss")
        let process = vaultProcess(arguments, in: vault)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [
            Project.root + "/Tests/Fixtures/peak_rss.py", report.path + "/peak", "timeout", "-s", "KILL", "\(deadline)",
            Project.vaultExecutable,
        ] + arguments
        let started = ContinuousClock.now
        let result = try run(process)
        let elapsed = ContinuousClock.now - started
        let kib = Int(try report.readText("peak").trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        return (result, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18, kib * 1024)
    }

    /// No process holds the vault's `.vault/lock`.
    func expectLockFree(_ vault: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let fd = open(vault + "/.vault/lock", O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { return }
        defer { close(fd) }
        #expect(flock(fd, LOCK_EX | LOCK_NB) == 0, "the vault's lock is held", sourceLocation: sourceLocation)
    }

    @Test func aFIFOGivenAsTheExportEndsAtOnceAndLeavesTheLockFree() throws {
        let vault = try freshVault()
        let other = TemporaryDirectory("fifo")
        let fifo = other.path + "/logs.db"
        #expect(mkfifo(fifo, 0o644) == 0)
        let head = try git(["rev-parse", "HEAD"], in: vault.path)
        let refused = "vault: error: \(fifo): is a FIFO, not a file or a folder; vault reads an export only from regular"
            + " files and folders; nothing was imported\n"
        for (arguments, stderr, status) in [
            (["import", "llm", fifo], refused, Int32(1)), (["import", "jrnl", fifo, "--dry-run"], refused, 1),
            (["import", fifo], "vault: error: cannot tell which tool made ", 64),
        ] {
            let r = try runMeasured(arguments, in: vault.path, deadline: 30)
            #expect(r.seconds < 10, "vault \(arguments) waited \(r.seconds) s on the FIFO")
            #expect(r.run.status == status, "vault \(arguments): \(r.run.status) \(r.run.stderr)")
            #expect(r.run.stderr.hasPrefix(stderr), "vault \(arguments): \(r.run.stderr)")
            expectLockFree(vault.path)
        }
        #expect(try git(["rev-parse", "HEAD"], in: vault.path) == head)
        #expect(try git(["status", "--porcelain"], in: vault.path) == "")
    }

    /// A zip of about 1 MB whose one conversation inflates to 1 GiB: stopped at the cap as it is
    /// inflated, dry run or not (it took 130 s and 5 GB before the cap). The cap is this
    /// machine's: a vault.yml raised to 100G (as a collaborator may push it) does not lift it.
    @Test func aTinyZipHoldingAOneGibibyteConversationStopsAtTheCap() throws {
        let vault = try freshVault()
        try vault.write("vault.yml", try vault.readText("vault.yml") + "limits:\n  max_file_size: 100G\n")
        try git(["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qam", "limits"], in: vault.path)
        let other = TemporaryDirectory("zip-bomb")
        let zip = other.path + "/export.zip"
        let script = """
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED, compresslevel=9) as z:
                with z.open('conversations.json', 'w') as w:
                    w.write(b'[{"title": "')
                    piece = b'a' * (1 << 20)
                    for _ in range(1024):
                        w.write(piece)
                    w.write(b'", "id": "c1", "mapping": {}}]')
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, zip]
        #expect(try run(process).status == 0)
        let size = try FileManager.default.attributesOfItem(atPath: zip)[.size] as? Int ?? 0
        #expect(size < 2 << 20, "the zip is \(size) bytes")
        let head = try git(["rev-parse", "HEAD"], in: vault.path)
        for dryRun in [true, false] {
            let r = try runMeasured(["import", "chatgpt", zip] + (dryRun ? ["--dry-run"] : []), in: vault.path)
            #expect(r.run.status == 1, "dry run \(dryRun): \(r.run.stderr)")
            #expect(
                r.run.stderr == "vault: error: \(zip):conversations.json, at [0]: is more than 64 MiB, the most vault holds"
                    + " of one conversation (this machine's cap: `git config vault.maxFileSize SIZE` in the vault, or"
                    + " `limits: max_file_size: SIZE` in ~/.config/vault/config.yml, raises it; vault.yml cannot);"
                    + " nothing was imported\n",
                "\(r.run.stderr)")
            #expect(r.seconds < 30, "dry run \(dryRun): \(r.seconds) s")
            #expect(r.peakBytes < 400 << 20, "dry run \(dryRun): a peak of \(r.peakBytes >> 20) MiB")
            expectLockFree(vault.path)
        }
        #expect(try git(["rev-parse", "HEAD"], in: vault.path) == head)
        #expect(try FileManager.default.contentsOfDirectory(atPath: vault.path + "/rooms").isEmpty)
    }
}
