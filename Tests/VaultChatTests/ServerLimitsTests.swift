import Foundation
import Testing
import VaultTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Servers that answer late, never, without end, or only in part, against the real loopback
/// server (Tests/Fixtures/openai_server.py): a server that takes the request and says nothing,
/// Ctrl-C while vault waits, a stream that never ends, a reply of many megabytes, and the
/// `finish_reason` that says a reply was cut short.
@Suite struct ServerLimitsTests {
    let check = ChatOverHTTPTests()

    // MARK: A server that does not answer

    /// The server takes the request and never sends a byte: vault gives up after the
    /// first-byte time-out with one line naming the URL; the message is kept for `vault retry`.
    @Test func aServerThatNeverAnswersIsGivenUpOnWithItsURL() throws {
        let (server, vault) = try startChat()
        defer { server.stop() }
        let before = try vault.roomBytes()
        let subjects = try vault.subjects()
        let run = try vault.vault(
            ["chat", ChatVault.title, "대답해 주세요", "--provider", "local", "--model", "no-answer"],
            environment: ["VAULT_FIRST_BYTE_TIMEOUT": "2"], limit: 30)
        try check.expectTurn(
            run, in: vault, roomBefore: before, subjectsBefore: subjects,
            ChatOverHTTPTests.Expected(
                message: "대답해 주세요", model: "no-answer", status: 3,
                commit: "chat: \(ChatVault.title) (+1 message, no reply: timeout)",
                errorFragments: [server.baseURL, "no answer", "2 s", "VAULT_FIRST_BYTE_TIMEOUT"]))
        #expect(try server.requests().count == 1)
    }

    /// On a terminal, a wait of more than a moment shows "waiting for the server…" with the URL
    /// on standard error, and the line is erased when the reply comes.
    @Test func aWaitShowsAnIndicatorOnATerminalUntilTheReplyComes() throws {
        let (server, vault) = try startChat()
        defer { server.stop() }
        // `slow-start` answers after 3 s.
        let run = try VaultOnTerminal(
            ["chat", ChatVault.title, "천천히", "--provider", "local", "--model", "slow-start"], vault: vault)
        try run.waitForTerminal("waiting for the server at \(server.baseURL)", seconds: 15)
        let done = try run.wait(seconds: 30)
        #expect(done.status == 0, "terminal: \(run.terminalText.debugDescription)")
        #expect(done.stdout == ServerText.reply + "\n", "\(done.stdout.debugDescription)")
        let screen = run.terminalText
        let shown = try #require(screen.range(of: "waiting for the server at \(server.baseURL)"))
        let saved = try #require(screen.range(of: "(saved to \(ChatVault.roomPath)"), "\(screen.debugDescription)")
        // Erased (carriage return, erase line) before anything else is written.
        let between = screen[shown.upperBound..<saved.lowerBound]
        #expect(between.hasSuffix("\r\u{1B}[K"), "the indicator was not erased: \(screen.debugDescription)")
        #expect(!screen.contains("vault: error"), "\(screen.debugDescription)")
        let messages = roomMessages(try vault.roomBytes())
        #expect(messages.last?.body == ServerText.reply)
    }

    /// Not on a terminal (a script, a pipe): no indicator, standard error holds only the result.
    @Test func noIndicatorWhenStandardErrorIsNotATerminal() throws {
        let (server, vault) = try startChat()
        defer { server.stop() }
        let run = try vault.chat("천천히", model: "slow-start", limit: 30)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!run.stderr.contains("waiting"), "\(run.stderr.debugDescription)")
        #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr.debugDescription)")
    }

    // MARK: Ctrl-C while vault waits

    /// Ctrl-C while vault waits out a `Retry-After` (the server asks for 30 s) stops the turn at
    /// once: status 130, the message kept for `vault retry`.
    @Test func ctrlCDuringARetryAfterWaitStopsAtOnce() throws {
        let (server, vault) = try startChat()
        defer { server.stop() }
        let subjects = try vault.subjects()
        let run = try BackgroundVault(
            ["chat", ChatVault.title, "기다리기 싫어요", "--provider", "local", "--model", "rate-limit-wait"],
            vault: vault, environment: ["VAULT_TRACE": "1"])
        // The trace says when the wait starts: Ctrl-C then reaches vault inside it.
        try run.waitForError("s before retrying", seconds: 15)
        run.interrupt()
        // Well under the 30 s the server asked for.
        let done = try run.wait(seconds: 10)
        try expectInterruptedBeforeAnyReply(done, vault: vault, subjects: subjects, message: "기다리기 싫어요")
        #expect(try server.requests().count == 1, "it retried after Ctrl-C")
    }

    /// Ctrl-C while the server holds the request without a word stops the turn too.
    @Test func ctrlCWhileWaitingForTheFirstByteStops() throws {
        let (server, vault) = try startChat()
        defer { server.stop() }
        let subjects = try vault.subjects()
        let run = try BackgroundVault(
            ["chat", ChatVault.title, "그만", "--provider", "local", "--model", "no-answer"], vault: vault,
            environment: ["VAULT_FIRST_BYTE_TIMEOUT": "60"])
        try server.waitForRequests(1)
        run.interrupt()
        let done = try run.wait(seconds: 10)
        try expectInterruptedBeforeAnyReply(done, vault: vault, subjects: subjects, message: "그만")
    }

    func expectInterruptedBeforeAnyReply(
        _ done: RunResult, vault: ChatVault, subjects: [String], message: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(done.status == 130, "status \(done.status); stderr: \(done.stderr)", sourceLocation: sourceLocation)
        let last = done.stderr.split(separator: "\n").last.map(String.init) ?? ""
        #expect(
            last.hasPrefix("vault: error: ") && last.contains("interrupted"), "\(done.stderr)",
            sourceLocation: sourceLocation)
        #expect(last.contains("your message is saved"), "\(done.stderr)", sourceLocation: sourceLocation)
        #expect(!done.stderr.contains("Fatal error"), "\(done.stderr)", sourceLocation: sourceLocation)
        let messages = roomMessages(try vault.roomBytes())
        #expect(messages.map(\.body) == [message], "\(messages.map(\.body))", sourceLocation: sourceLocation)
        #expect(
            try vault.subjects() == ["chat: \(ChatVault.title) (+1 message, no reply: interrupted)"] + subjects,
            sourceLocation: sourceLocation)
        #expect(try vault.porcelain() == "", sourceLocation: sourceLocation)
    }

    // MARK: What vault says about itself

    @Test func requestsCarryVaultsUserAgent() throws {
        let (server, vault) = try startChat()
        defer { server.stop() }
        let version = try runVault(["--version"], in: vault.path).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(!version.isEmpty)
        let run = try vault.chat("누구세요?", model: "ok")
        #expect(run.status == 0, "\(run.stderr)")
        let requests = try server.requests()
        try #require(requests.count == 1)
        #expect(requests[0].headers["user-agent"] == "vault/\(version)", "\(requests[0].headers)")
    }

    // MARK: Replies without end, and long ones

    /// The reply of `forever`, as far as `count` bytes of it.
    static func foreverText(bytes count: Int) -> String {
        var text = ""
        var n = 1
        while text.utf8.count < count {
            text += String(format: "줄 %06d: the stream that never ends 🔁\n", n)
            n += 1
        }
        return text
    }

    /// A stream that never ends is stopped at the reply cap: what arrived (up to the cap) is
    /// kept, marked interrupted, and the turn fails with one line naming the cap's setting.
    @Test func anEndlessStreamIsStoppedAtTheCapWithItsTextKept() throws {
        let (server, vault) = try startChat()
        defer { server.stop() }
        let subjects = try vault.subjects()
        let cap = 100_000
        let run = try vault.vault(
            ["chat", ChatVault.title, "끝없이", "--provider", "local", "--model", "forever"],
            environment: ["VAULT_MAX_REPLY_BYTES": "\(cap)"], limit: 60)
        #expect(!run.timedOut, "vault was killed after \(run.seconds) s")
        #expect(run.status == 8, "status \(run.status); stderr: \(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
        #expect(run.stderr.hasPrefix("vault: error: ") && run.stderr.contains("VAULT_MAX_REPLY_BYTES"), "\(run.stderr)")
        #expect(run.stderr.contains("marked interrupted"), "\(run.stderr)")

        let messages = roomMessages(try vault.roomBytes())
        try #require(messages.count == 2, "\(messages.count) messages")
        #expect(messages[0].body == "끝없이")
        let reply = messages[1]
        #expect(reply.header.attributes["status"] == "interrupted", "\(reply.header.line)")
        let body = reply.body
        // The first bytes of the stream, up to the cap (a character is never cut in two).
        #expect(body.utf8.count <= cap && body.utf8.count > cap - 64, "\(body.utf8.count) bytes kept")
        let expected = Self.foreverText(bytes: cap + 64)
        #expect(expected.hasPrefix(body), "the text kept is not the stream's first bytes")
        #expect(run.stdout.hasPrefix(body), "what was printed is not what was kept")
        #expect(try vault.subjects() == ["chat: \(ChatVault.title) (+2 messages, reply tooLong)"] + subjects)
        #expect(try vault.porcelain() == "")
    }

    /// A reply of 24 MiB goes to the room as it arrives: vault's peak memory grows by far less
    /// than the reply (here, by less than a quarter of it, against a reply of 1 MiB), and the
    /// room and its commit hold every byte.
    @Test func aLongReplyIsStreamedToTheFileNotHeldInMemory() throws {
        let line = "vault streams long replies to the file, never whole in memory!!\n"
        let limits = ["VAULT_MAX_REPLY_BYTES": "\(64 << 20)", "VAULT_IDLE_TIMEOUT": "60"]
        var peaks: [Int] = []
        for mebibytes in [1, 24] {
            let (server, vault) = try startChat(system: nil)
            defer { server.stop() }
            let (run, peak) = try runVaultMeasuringMemory(
                ["chat", ChatVault.title, "길게", "--provider", "local", "--model", "big-\(mebibytes)"], vault: vault,
                environment: limits)
            #expect(run.status == 0, "status \(run.status); stderr: \(run.stderr.prefix(500))")
            peaks.append(peak)
            // Every byte, in the room and in its commit (the trailing line feed is framing).
            let expected = String(repeating: line, count: mebibytes << 14).dropLast()
            let messages = roomMessages(try vault.roomBytes())
            try #require(messages.count == 2)
            #expect(messages[1].body.utf8.count == expected.utf8.count, "\(messages[1].body.utf8.count) bytes saved")
            #expect(messages[1].body == expected, "the reply saved is not the reply sent")
            #expect(messages[1].header.attributes["status"] == nil)
            let committed = try git(["cat-file", "-s", "HEAD:" + ChatVault.roomPath], in: vault.path)
            #expect(Int(committed.trimmingCharacters(in: .whitespacesAndNewlines)) == (try vault.roomBytes()).count)
            #expect(try vault.porcelain() == "")
            #expect(try vault.subjects().first == "chat: \(ChatVault.title) (+2 messages)")
        }
        let growth = peaks[1] - peaks[0]
        #expect(growth < (23 << 20) / 4, "peak memory grew by \(growth >> 10) KiB for 23 MiB more reply (\(peaks))")
    }

    // MARK: finish_reason

    struct CutShort: Sendable, CustomTestStringConvertible {
        var model: String
        var reason: String
        var reply: String
        var testDescription: String { model }
    }

    static let cutShort: [CutShort] = [
        CutShort(model: "length", reason: "length", reply: ServerText.reply),
        CutShort(model: "content-filter", reason: "content_filter", reply: ServerText.reply),
        CutShort(model: "json-length", reason: "length", reply: ServerText.jsonReply),
    ]

    /// A reply the server cut short (`finish_reason: length`, or its content filter) is saved
    /// marked `truncated=<reason>`, the terminal says so, and `vault retry` asks the model to go
    /// on: it sends the conversation ending with the cut reply, and appends what comes.
    @Test(arguments: cutShort)
    func aReplyCutShortByTheServerIsMarkedAndRetryContinuesIt(_ c: CutShort) throws {
        let (server, vault) = try startChat()
        defer { server.stop() }
        let subjects = try vault.subjects()
        let run = try vault.chat("길게 써 줘", model: c.model)
        #expect(run.status == 0, "status \(run.status); stderr: \(run.stderr)")
        #expect(run.stdout == c.reply + "\n", "\(run.stdout.debugDescription)")
        let warning = run.stderr.split(separator: "\n").first.map(String.init) ?? ""
        #expect(warning.hasPrefix("vault: warning: ") && warning.contains(c.reason), "\(run.stderr)")
        #expect(warning.contains("truncated") && warning.contains("vault retry"), "\(run.stderr)")
        var messages = roomMessages(try vault.roomBytes())
        try #require(messages.count == 2)
        #expect(messages[1].body == c.reply)
        #expect(
            messages[1].header.attributes == ["model": c.model, "provider": "local", "truncated": c.reason],
            "\(messages[1].header.line)")
        #expect(messages[1].header.line.contains(" · \(c.model) · truncated <!-- "), "\(messages[1].header.line)")
        #expect(
            try vault.subjects() == ["chat: \(ChatVault.title) (+2 messages, reply truncated: \(c.reason))"] + subjects)
        #expect(try vault.porcelain() == "")

        let retry = try vault.retry(model: "ok")
        #expect(retry.status == 0, "status \(retry.status); stderr: \(retry.stderr)")
        let requests = try server.requests()
        try #require(requests.count == 2)
        #expect(
            requests[1].messages == [
                .init("system", ChatOverHTTPTests.system), .init("user", "길게 써 줘"), .init("assistant", c.reply),
            ], "\(requests[1].messages)")
        messages = roomMessages(try vault.roomBytes())
        #expect(messages.map(\.body) == ["길게 써 줘", c.reply, ServerText.reply])
        #expect(messages[2].header.attributes == ["model": "ok", "provider": "local"])
        #expect(try vault.subjects().first == "chat: \(ChatVault.title) (+1 message)")
        // Nothing left to continue.
        #expect(try vault.retry(model: "ok").status == 1)
    }

    /// A "continue" turn sends the cut reply as context, like any complete one.
    @Test func aContinueTurnSendsTheTruncatedReply() throws {
        let (server, vault) = try startChat(system: nil)
        defer { server.stop() }
        #expect(try vault.chat("길게", model: "length").status == 0)
        #expect(try vault.chat("계속", model: "ok").status == 0)
        let requests = try server.requests()
        try #require(requests.count == 2)
        #expect(
            requests[1].messages == [
                .init("user", "길게"), .init("assistant", ServerText.reply), .init("user", "계속"),
            ],
            "\(requests[1].messages)")
    }

    /// `finish_reason: stop`, then the stream closes cleanly without `data: [DONE]` (several
    /// servers do this), or the connection is cut after it: a complete reply, every word of it
    /// having come. (Without a `finish_reason`, such an end is a cut: `no-done` in ChatOverHTTPTests.)
    @Test(arguments: ["stop-no-done", "stop-then-cut"])
    func finishReasonStopWithoutDONEIsAComplete(model: String) throws {
        let (server, vault) = try startChat()
        defer { server.stop() }
        let before = try vault.roomBytes()
        let subjects = try vault.subjects()
        let run = try vault.chat("끝", model: model)
        try check.expectTurn(
            run, in: vault, roomBefore: before, subjectsBefore: subjects,
            ChatOverHTTPTests.Expected(
                message: "끝", reply: ServerText.reply, model: model,
                commit: "chat: \(ChatVault.title) (+2 messages)"))
    }
}
