import Foundation
import Testing
import VaultTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// What ends a turn from outside while its reply streams: SIGTERM (`kill`, `timeout`, a
/// shutdown) and SIGHUP (a closed terminal) like Ctrl-C; a reader of the output that goes away
/// (`| head`); an output on a full disk; a stream with no text. Real signals to the real
/// `vault`, the loopback server, and the room and history read back with the git command line.
@Suite struct ChatInterruptionTests {

    // MARK: Signals

    /// SIGTERM and SIGHUP keep what streamed, marked interrupted, commit it with the message,
    /// and end with 128 + the signal's number.
    @Test(arguments: [SIGTERM, SIGHUP, SIGINT])
    func aSignalKeepsThePartialReplyMarkedInterruptedAndCommitted(signal: Int32) throws {
        let (server, vault) = try startChat()
        defer { server.stop() }
        let subjects = try vault.subjects()
        // `stall` sends its first piece, then nothing for 30 s.
        let run = try BackgroundVault(
            ["chat", ChatVault.title, "기다릴게요", "--provider", "local", "--model", "stall"], vault: vault)
        try run.waitForOutput(ServerText.firstPiece.trimmingCharacters(in: .whitespaces), seconds: 10)
        kill(run.process.processIdentifier, signal)
        let done = try run.wait(seconds: 10)
        #expect(run.process.terminationReason == .exit, "vault died of the signal")
        #expect(done.status == 128 + signal, "status \(done.status); stderr: \(done.stderr)")
        #expect(done.stderr.hasPrefix("vault: error: "), "\(done.stderr)")
        #expect(done.stderr.contains("interrupted"), "\(done.stderr)")
        #expect(!done.stderr.contains("Fatal error"), "\(done.stderr)")

        let messages = roomMessages(try vault.roomBytes())
        try #require(messages.count == 2, "\(messages.map(\.body))")
        #expect(messages[0].header.role == "user" && messages[0].body == "기다릴게요")
        #expect(messages[1].header.role == "assistant")
        #expect(messages[1].body == ServerText.firstPiece, "what arrived is kept as it arrived")
        #expect(messages[1].header.attributes["status"] == "interrupted", "\(messages[1].header.line)")
        let now = try vault.subjects()
        #expect(now.count == subjects.count + 1, "\(now)")
        #expect(now.first?.hasPrefix("chat: \(ChatVault.title) (+2 messages, reply interrupted") == true, "\(now)")
        let committed = try git(["show", "HEAD:" + ChatVault.roomPath], in: vault.path)
        #expect(committed == (try vault.dir.readText(ChatVault.roomPath)))
        #expect(try vault.porcelain() == "")
        #expect(try git(["fsck", "--strict"], in: vault.path).isEmpty)
    }

    /// A signal while vault waits to retry (the server asked to wait an hour, and vault was
    /// told it may): the wait ends, the message is committed unanswered, status 143.
    @Test func aSignalDuringAWaitBeforeARetryEndsTheWait() throws {
        let (server, vault) = try startChat()
        defer { server.stop() }
        let subjects = try vault.subjects()
        var patient = vault
        patient.environment["VAULT_MAX_RETRY_WAIT"] = "7200"
        let run = try BackgroundVault(
            ["chat", ChatVault.title, "한 시간 기다려요", "--provider", "local", "--model", "rate-limit-long"], vault: patient)
        while try server.requests().isEmpty {
            guard run.process.isRunning else { throw FixtureError("vault ended before asking: \(run.stderr)") }
            usleep(10_000)  // sleep: poll interval: the server's first request, until vault ends
        }
        kill(run.process.processIdentifier, SIGTERM)
        // Bounded far below the hour the server asked for.
        let done = try run.wait(seconds: 30)
        #expect(run.process.terminationReason == .exit)
        #expect(done.status == 128 + SIGTERM, "status \(done.status); stderr: \(done.stderr)")
        #expect(roomMessages(try vault.roomBytes()).map(\.body) == ["한 시간 기다려요"])
        let now = try vault.subjects()
        #expect(now.count == subjects.count + 1)
        #expect(now.first?.hasPrefix("chat: \(ChatVault.title) (+1 message, no reply: ") == true, "\(now)")
        #expect(try vault.porcelain() == "")
    }

    /// A signal while the turn waits for another turn in the same room ends it at once, with
    /// nothing written: the signal's default action (it had not started changing anything).
    @Test func aSignalWhileWaitingForTheRoomEndsTheWaitingTurnAtOnce() throws {
        let (server, vault) = try startChat()
        defer { server.stop() }
        let first = try BackgroundVault(
            ["chat", ChatVault.title, "첫 질문", "--provider", "local", "--model", "slow"], vault: vault)
        try first.waitForOutput("안녕하세요!", seconds: 10)
        let second = try BackgroundVault(
            ["chat", ChatVault.title, "두 번째 질문", "--provider", "local", "--model", "ok"], vault: vault)
        try second.waitForError("waiting for the turn in progress in \(ChatVault.roomPath)", seconds: 10)
        kill(second.process.processIdentifier, SIGTERM)
        _ = try second.wait(seconds: 10)
        #expect(second.process.terminationReason == .uncaughtSignal)
        #expect(second.process.terminationStatus == SIGTERM)
        let done = try first.wait(seconds: 20)
        #expect(done.status == 0, "\(done.stderr)")
        let messages = roomMessages(try vault.roomBytes())
        #expect(messages.map(\.body) == ["첫 질문", ServerText.reply], "\(messages.map(\.body))")
        #expect(try server.requests().count == 1, "the waiting turn sent its message")
        #expect(try vault.porcelain() == "")
    }

    // MARK: Output

    /// A reader that goes away (`vault chat … | head`) does not end the turn: the whole reply is
    /// saved and committed, and vault exits normally.
    @Test func aReaderThatGoesAwayDoesNotCostTheReply() throws {
        let (server, vault) = try startChat()
        defer { server.stop() }
        let subjects = try vault.subjects()
        let process = vaultProcess(
            ["chat", ChatVault.title, "짧게 읽을게요", "--provider", "local", "--model", "slow"], in: vault.path,
            environment: vault.environment)
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Read until the first piece arrived (the rest comes 1.5 s later), then close, as `head -c` does.
        let reader = out.fileHandleForReading
        var seen = Data()
        while !String(decoding: seen, as: UTF8.self).contains("안녕하세요!") {
            let data = reader.availableData
            if data.isEmpty { break }
            seen += data
        }
        try reader.close()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit, "vault died of signal \(process.terminationStatus)")
        #expect(process.terminationStatus == 0, "status \(process.terminationStatus); stderr: \(stderr)")
        #expect(!stderr.contains("error"), "\(stderr)")
        let messages = roomMessages(try vault.roomBytes())
        #expect(messages.map(\.body) == ["짧게 읽을게요", ServerText.reply], "\(messages.map(\.body))")
        #expect(messages.last?.header.attributes["status"] == nil)
        #expect(try vault.subjects() == ["chat: \(ChatVault.title) (+2 messages)"] + subjects)
        #expect(try vault.porcelain() == "")
    }

    /// Output to a full disk (`> /dev/full`): the reply is saved and committed all the same, and
    /// vault says so in one line, exiting 1.
    @Test func aFullDiskForTheOutputDoesNotCostTheReply() throws {
        let (server, vault) = try startChat()
        defer { server.stop() }
        let subjects = try vault.subjects()
        let process = vaultProcess(
            ["chat", ChatVault.title, "디스크가 꽉 찼어요", "--provider", "local", "--model", "ok"], in: vault.path,
            environment: vault.environment)
        let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        process.standardOutput = full
        let result = try runCapturingStderr(process)
        #expect(process.terminationReason == .exit, "vault died of signal \(result.status)")
        #expect(result.status == 1, "status \(result.status); stderr: \(result.stderr)")
        let errors = result.stderr.split(separator: "\n").filter { $0.hasPrefix("vault: error: ") }
        #expect(errors.count == 1, "\(result.stderr)")
        #expect(
            result.stderr.contains("cannot write the reply to standard output: No space left on device"),
            "\(result.stderr)")
        #expect(result.stderr.contains("the reply is saved all the same, in \(ChatVault.roomPath)"), "\(result.stderr)")
        let messages = roomMessages(try vault.roomBytes())
        #expect(messages.map(\.body) == ["디스크가 꽉 찼어요", ServerText.reply], "\(messages.map(\.body))")
        #expect(try vault.subjects() == ["chat: \(ChatVault.title) (+2 messages)"] + subjects)
        #expect(try vault.porcelain() == "")
    }

    // MARK: A reply with no text

    /// A stream that ends properly but holds no text: the message is kept and committed as
    /// unanswered, one line says so, and `vault retry` can ask again. No crash.
    @Test func aReplyWithNoTextLeavesTheMessageUnansweredAndCommitted() throws {
        let (server, vault) = try startChat()
        defer { server.stop() }
        let before = try vault.roomBytes()
        let subjects = try vault.subjects()
        let run = try vault.chat("아무 말이나 해 주세요", model: "empty")
        try ChatOverHTTPTests().expectTurn(
            run, in: vault, roomBefore: before, subjectsBefore: subjects,
            .init(
                message: "아무 말이나 해 주세요", reply: nil, model: "empty", status: 8,
                commit: "chat: \(ChatVault.title) (+1 message, no reply: empty)", errorFragments: ["reply was empty"]))
        let retried = try vault.retry(model: "ok")
        #expect(retried.status == 0, "\(retried.stderr)")
        #expect(roomMessages(try vault.roomBytes()).map(\.body) == ["아무 말이나 해 주세요", ServerText.reply])
        #expect(try vault.porcelain() == "")
    }
}

/// Runs `process` (its standard output already set) and returns its status and standard error.
func runCapturingStderr(_ process: Process) throws -> RunResult {
    let err = Pipe()
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let data = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return RunResult(status: process.terminationStatus, stdout: "", stderr: String(decoding: data, as: UTF8.self))
}
