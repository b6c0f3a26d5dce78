import Foundation
import Testing
import VaultTestSupport

/// `vault chat` and `vault retry` end to end against a real HTTP server that speaks the OpenAI
/// chat completions protocol (Tests/Fixtures/openai_server.py): what is printed, the exit
/// status, the room file's bytes, the git history, and what the server was sent.
@Suite struct ChatOverHTTPTests {
    static let system = "You are a travel planner. 한국어로 답하세요."

    // MARK: Checking one turn

    /// What a turn should have left behind.
    struct Expected {
        /// The user message appended (nil for `vault retry`, which appends only a reply).
        var message: String?
        /// The reply text saved (complete, or the part that arrived); nil when none.
        var reply: String?
        var interrupted = false
        var model: String
        var provider = "local"
        var status: Int32 = 0
        /// The subject of the one new commit.
        var commit: String
        /// Words the one-line error must hold.
        var errorFragments: [String] = []
    }

    /// Checks the run's output, the room's new bytes, the history and the working tree.
    func expectTurn(
        _ run: TimedRun, in vault: ChatVault, roomBefore: [UInt8], subjectsBefore: [String], _ e: Expected,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(!run.timedOut, "vault was killed after \(run.seconds) s", sourceLocation: sourceLocation)
        #expect(
            run.status == e.status, "status \(run.status), expected \(e.status); stderr: \(run.stderr)",
            sourceLocation: sourceLocation)
        #expect(!run.stderr.contains("Fatal error"), "crashed: \(run.stderr)", sourceLocation: sourceLocation)
        // Output: the reply streamed to stdout; one error line on stderr when it failed.
        if e.status == 0 {
            #expect(
                run.stdout == (e.reply ?? "") + "\n", "stdout: \(run.stdout.debugDescription)",
                sourceLocation: sourceLocation)
            #expect(!run.stderr.contains("error"), "stderr: \(run.stderr)", sourceLocation: sourceLocation)
        } else {
            #expect(
                run.stdout == (e.reply ?? ""), "stdout: \(run.stdout.debugDescription)", sourceLocation: sourceLocation)
            let lines = run.stderr.split(separator: "\n")
            #expect(lines.count == 1, "stderr is not one line: \(run.stderr)", sourceLocation: sourceLocation)
            #expect(run.stderr.hasPrefix("vault: error: "), "stderr: \(run.stderr)", sourceLocation: sourceLocation)
            for fragment in e.errorFragments {
                #expect(
                    run.stderr.contains(fragment), "stderr lacks \"\(fragment)\": \(run.stderr)",
                    sourceLocation: sourceLocation)
            }
            let tail =
                e.reply != nil
                ? "marked interrupted; `vault retry 부산-여행` asks again)"
                : "(your message is saved; `vault retry 부산-여행` sends it again)"
            #expect(run.stderr.contains(tail), "stderr: \(run.stderr)", sourceLocation: sourceLocation)
        }
        #expect(
            !run.stdout.contains(ChatVault.key) && !run.stderr.contains(ChatVault.key), "the key was printed",
            sourceLocation: sourceLocation)

        // The room: bytes before the old marker kept, the new messages, the marker last.
        let after = try vault.roomBytes()
        let cut = try #require(
            promptMarkerOffset(roomBefore), "the room had no prompt marker", sourceLocation: sourceLocation)
        #expect(
            Array(after.prefix(cut)) == Array(roomBefore[..<cut]), "bytes before the marker changed",
            sourceLocation: sourceLocation)
        let old = roomMessages(roomBefore)
        let now = roomMessages(after)
        let added = (e.message != nil ? 1 : 0) + (e.reply != nil ? 1 : 0)
        try #require(
            now.count == old.count + added, "\(now.count) messages, expected \(old.count + added)",
            sourceLocation: sourceLocation)
        var expectedTail = ""
        var index = old.count
        if let message = e.message {
            let user = now[index]
            index += 1
            #expect(user.header.role == "user", sourceLocation: sourceLocation)
            #expect(user.header.attributes.isEmpty, "\(user.header.attributes)", sourceLocation: sourceLocation)
            #expect(user.header.line.hasPrefix("## 🧑 user · "), "\(user.header.line)", sourceLocation: sourceLocation)
            #expect(
                user.header.line.hasSuffix(" <!-- \(user.header.timestamp) \(user.header.id) -->"),
                sourceLocation: sourceLocation)
            #expect(
                user.header.timestamp.hasSuffix("+09:00"), "\(user.header.timestamp)", sourceLocation: sourceLocation)
            expectedTail += user.header.line + "\n\n" + message + "\n\n"
        }
        if let reply = e.reply {
            let assistant = now[index]
            #expect(assistant.header.role == "assistant", sourceLocation: sourceLocation)
            var attributes = ["model": e.model, "provider": e.provider]
            if e.interrupted { attributes["status"] = "interrupted" }
            #expect(
                assistant.header.attributes == attributes, "\(assistant.header.attributes)",
                sourceLocation: sourceLocation)
            #expect(
                assistant.header.line.hasPrefix("## 🤖 assistant · "), "\(assistant.header.line)",
                sourceLocation: sourceLocation)
            let label = " · \(e.model)" + (e.interrupted ? " · interrupted" : "") + " <!-- "
            #expect(assistant.header.line.contains(label), "\(assistant.header.line)", sourceLocation: sourceLocation)
            #expect(
                assistant.header.timestamp.hasSuffix("+09:00"), "\(assistant.header.timestamp)",
                sourceLocation: sourceLocation)
            #expect(!old.contains { $0.header.id == assistant.header.id }, sourceLocation: sourceLocation)
            expectedTail += assistant.header.line + "\n\n" + reply + "\n\n"
        }
        expectedTail += promptMarkerLine + "\n"
        let tail = String(decoding: after[min(cut, after.count)...], as: UTF8.self)
        #expect(
            tail == expectedTail, "the room's new bytes:\n\(tail)\nexpected:\n\(expectedTail)",
            sourceLocation: sourceLocation)
        let text = String(decoding: after, as: UTF8.self)
        #expect(
            !text.contains(ServerText.errorText), "the server's error text is in the room",
            sourceLocation: sourceLocation)
        #expect(!text.contains("vault: error"), sourceLocation: sourceLocation)

        // History: exactly one new commit, nothing left uncommitted, the key nowhere.
        let subjects = try vault.subjects()
        #expect(subjects == [e.commit] + subjectsBefore, "git log: \(subjects)", sourceLocation: sourceLocation)
        #expect(try vault.porcelain() == "", "git status is not clean", sourceLocation: sourceLocation)
        #expect(
            !(try vault.fullHistory()).contains(ChatVault.key), "the key is in the history",
            sourceLocation: sourceLocation)
    }

    /// The checks of a request every turn makes.
    func expectWellFormed(_ request: LoggedRequest, model: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(
            request.method == "POST" && request.path == "/v1/chat/completions", "\(request.method) \(request.path)",
            sourceLocation: sourceLocation)
        #expect(request.model == model, sourceLocation: sourceLocation)
        #expect(request.stream == true, sourceLocation: sourceLocation)
        #expect(
            request.headers["content-type"]?.hasPrefix("application/json") == true, "\(request.headers)",
            sourceLocation: sourceLocation)
        #expect(
            request.headers["accept"]?.contains("text/event-stream") == true, "\(request.headers)",
            sourceLocation: sourceLocation)
        #expect(
            request.authorization == "present", "authorization: \(request.authorization)",
            sourceLocation: sourceLocation)
    }

    /// A server and a vault with the local provider and the system prompt set.

    // MARK: Replies

    @Test func streamedReplyIsPrintedSavedAndCommitted() throws {
        let (server, vault) = try startChat()
        defer { server.stop() }
        let before = try vault.roomBytes()
        let subjects = try vault.subjects()
        #expect(subjects.first == "room: \(ChatVault.title): set system")
        let message = "부산 2박 3일 일정 짜줘 🙏"
        let run = try vault.chat(message, model: "ok")
        try expectTurn(
            run, in: vault, roomBefore: before, subjectsBefore: subjects,
            Expected(
                message: message, reply: ServerText.reply, model: "ok", commit: "chat: \(ChatVault.title) (+2 messages)"
            ))
        #expect(run.stderr.contains("saved to \(ChatVault.roomPath), line "), "\(run.stderr)")
        let requests = try server.requests()
        try #require(requests.count == 1, "\(requests.count) requests")
        expectWellFormed(requests[0], model: "ok")
        #expect(requests[0].messages == [.init("system", Self.system), .init("user", message)])
    }

    /// The same reply, however the stream is cut into network reads and lines.
    @Test(arguments: ["split", "crlf", "comments"])
    func streamVariantsGiveTheSameReply(model: String) throws {
        let (server, vault) = try startChat()
        defer { server.stop() }
        let before = try vault.roomBytes()
        let subjects = try vault.subjects()
        let run = try vault.chat("안녕", model: model)
        try expectTurn(
            run, in: vault, roomBefore: before, subjectsBefore: subjects,
            Expected(
                message: "안녕", reply: ServerText.reply, model: model, commit: "chat: \(ChatVault.title) (+2 messages)"))
        let requests = try server.requests()
        try #require(requests.count == 1)
        expectWellFormed(requests[0], model: model)
    }

    @Test func plainJSONReplyIsAccepted() throws {
        let (server, vault) = try startChat()
        defer { server.stop() }
        let before = try vault.roomBytes()
        let subjects = try vault.subjects()
        let run = try vault.chat("no stream, please", model: "json")
        try expectTurn(
            run, in: vault, roomBefore: before, subjectsBefore: subjects,
            Expected(
                message: "no stream, please", reply: ServerText.jsonReply, model: "json",
                commit: "chat: \(ChatVault.title) (+2 messages)"))
        #expect(try server.requests().count == 1)
    }

    @Test func earlierTurnsAndTheSystemPromptAreSent() throws {
        let (server, vault) = try startChat()
        defer { server.stop() }
        let first = try vault.chat("첫 질문", model: "ok")
        #expect(first.status == 0, "\(first.stderr)")
        let before = try vault.roomBytes()
        let subjects = try vault.subjects()
        let run = try vault.chat("두 번째 질문\n두 줄", model: "ok")
        try expectTurn(
            run, in: vault, roomBefore: before, subjectsBefore: subjects,
            Expected(
                message: "두 번째 질문\n두 줄", reply: ServerText.reply, model: "ok",
                commit: "chat: \(ChatVault.title) (+2 messages)"))
        let requests = try server.requests()
        try #require(requests.count == 2)
        expectWellFormed(requests[1], model: "ok")
        #expect(
            requests[1].messages == [
                .init("system", Self.system), .init("user", "첫 질문"), .init("assistant", ServerText.reply),
                .init("user", "두 번째 질문\n두 줄"),
            ], "\(requests[1].messages)")
    }

    // MARK: Failures, then `vault retry`

    struct FailureCase: Sendable, CustomTestStringConvertible {
        var model: String
        var status: Int32
        var kind: String
        /// The text that arrived before the failure (kept, marked interrupted).
        var partial: String?
        var fragments: [String]
        /// Requests the failed turn makes (retries included).
        var requests: Int
        var testDescription: String { model }
    }

    static let failures: [FailureCase] = [
        FailureCase(
            model: "unauthorized", status: 4, kind: "unauthorized", partial: nil,
            fragments: ["401", "Incorrect API key"], requests: 1),
        FailureCase(
            model: "missing", status: 5, kind: "notFound", partial: nil,
            fragments: ["404", "`missing` does not exist"], requests: 1),
        FailureCase(
            model: "always-500", status: 7, kind: "serverError", partial: nil,
            fragments: ["500", ServerText.errorText], requests: 4),
        FailureCase(
            model: "malformed", status: 8, kind: "malformed", partial: nil, fragments: ["not a chat completion"],
            requests: 1),
        FailureCase(
            model: "drop", status: 8, kind: "cutOff", partial: ServerText.partial, fragments: ["cut"], requests: 1),
        FailureCase(
            model: "no-done", status: 8, kind: "cutOff", partial: ServerText.partial, fragments: ["ended before"],
            requests: 1),
        FailureCase(
            model: "error-in-stream", status: 7, kind: "serverError", partial: ServerText.firstPiece,
            fragments: [ServerText.errorText],
            requests: 1),
    ]

    /// A failed turn keeps the user's message (and any text that arrived, marked interrupted);
    /// `vault retry` then sends the unanswered message again, without the interrupted text,
    /// and appends only the reply.
    @Test(arguments: failures)
    func failedTurnKeepsTheMessageAndRetryAnswersIt(_ c: FailureCase) throws {
        let (server, vault) = try startChat()
        defer { server.stop() }
        let before = try vault.roomBytes()
        let subjects = try vault.subjects()
        let message = "실패할 질문 \(c.model)"
        let run = try vault.chat(message, model: c.model)
        let commit =
            "chat: \(ChatVault.title) (+\(c.partial == nil ? "1 message, no reply: " : "2 messages, reply ")\(c.kind))"
        try expectTurn(
            run, in: vault, roomBefore: before, subjectsBefore: subjects,
            Expected(
                message: message, reply: c.partial, interrupted: c.partial != nil, model: c.model, status: c.status,
                commit: commit,
                errorFragments: c.fragments))
        let failed = try server.requests()
        #expect(failed.count == c.requests, "\(failed.count) requests")
        for r in failed {
            expectWellFormed(r, model: c.model)
            #expect(r.messages == [.init("system", Self.system), .init("user", message)], "\(r.messages)")
        }

        let roomAfterFailure = try vault.roomBytes()
        let subjectsAfterFailure = try vault.subjects()
        let retry = try vault.retry(model: "ok")
        try expectTurn(
            retry, in: vault, roomBefore: roomAfterFailure, subjectsBefore: subjectsAfterFailure,
            Expected(
                message: nil, reply: ServerText.reply, model: "ok", commit: "chat: \(ChatVault.title) (+1 message)"))
        let all = try server.requests()
        try #require(all.count == c.requests + 1)
        expectWellFormed(all[c.requests], model: "ok")
        #expect(
            all[c.requests].messages == [.init("system", Self.system), .init("user", message)],
            "\(all[c.requests].messages)")
        // The interrupted text stays in the room, before the reply.
        if let partial = c.partial {
            let messages = roomMessages(try vault.roomBytes())
            #expect(messages.map(\.body).suffix(3) == [message, partial, ServerText.reply])
        }
    }

    @Test func interruptedTextIsNeverSentBack() throws {
        let (server, vault) = try startChat()
        defer { server.stop() }
        let dropped = try vault.chat("끊길 질문", model: "drop")
        #expect(dropped.status == 8, "\(dropped.stderr)")
        let run = try vault.chat("다음 질문", model: "ok")
        #expect(run.status == 0, "\(run.stderr)")
        let requests = try server.requests()
        try #require(requests.count == 2)
        #expect(
            requests[1].messages == [.init("system", Self.system), .init("user", "끊길 질문"), .init("user", "다음 질문")],
            "\(requests[1].messages)")
        #expect(!requests[1].messages.contains { $0.content.contains(ServerText.partial) })
    }

    @Test func retryWithAnAnsweredLastMessageFails() throws {
        let (server, vault) = try startChat()
        defer { server.stop() }
        let first = try vault.chat("질문", model: "ok")
        #expect(first.status == 0, "\(first.stderr)")
        let files = { try vault.dir.snapshot().filter { !$0.key.hasPrefix(".git/") } }
        let before = try files()
        let subjects = try vault.subjects()
        let run = try vault.retry(model: "ok")
        #expect(!run.timedOut)
        #expect(run.status == 1, "status \(run.status)")
        #expect(run.stderr.hasPrefix("vault: error: "), "\(run.stderr)")
        #expect(run.stderr.contains("nothing to retry"), "\(run.stderr)")
        #expect(run.stdout.isEmpty, "\(run.stdout)")
        #expect(try files() == before, "files changed")
        #expect(try vault.subjects() == subjects)
        #expect(try vault.porcelain() == "")
        #expect(try server.requests().count == 1, "retry sent a request")
    }

    // MARK: Retries and waits

    @Test func rateLimitIsRetriedAfterRetryAfter() throws {
        let (server, vault) = try startChat()
        defer { server.stop() }
        let before = try vault.roomBytes()
        let subjects = try vault.subjects()
        let run = try vault.chat("천천히", model: "rate-limit")
        try expectTurn(
            run, in: vault, roomBefore: before, subjectsBefore: subjects,
            Expected(
                message: "천천히", reply: ServerText.reply, model: "rate-limit",
                commit: "chat: \(ChatVault.title) (+2 messages)"))
        #expect(run.seconds >= 0.9, "did not wait for Retry-After: \(run.seconds) s")
        #expect(run.seconds < 8, "took \(run.seconds) s")
        let requests = try server.requests()
        try #require(requests.count == 2, "\(requests.count) requests")
        #expect(requests[0].messages == requests[1].messages)
        for r in requests { expectWellFormed(r, model: "rate-limit") }
    }

    @Test func serverErrorsAreRetried() throws {
        let (server, vault) = try startChat()
        defer { server.stop() }
        let before = try vault.roomBytes()
        let subjects = try vault.subjects()
        let run = try vault.chat("다시", model: "flaky")
        try expectTurn(
            run, in: vault, roomBefore: before, subjectsBefore: subjects,
            Expected(
                message: "다시", reply: ServerText.reply, model: "flaky", commit: "chat: \(ChatVault.title) (+2 messages)"
            ))
        #expect(try server.requests().count == 3)
    }

    @Test func aLongRetryAfterFailsAtOnceWithTheWait() throws {
        let (server, vault) = try startChat()
        defer { server.stop() }
        let before = try vault.roomBytes()
        let subjects = try vault.subjects()
        let run = try vault.vault(
            ["chat", ChatVault.title, "기다려?", "--provider", "local", "--model", "rate-limit-long"],
            environment: ["VAULT_MAX_RETRY_WAIT": "5"],
            limit: 15)
        try expectTurn(
            run, in: vault, roomBefore: before, subjectsBefore: subjects,
            Expected(
                message: "기다려?", model: "rate-limit-long", status: 6,
                commit: "chat: \(ChatVault.title) (+1 message, no reply: rateLimited)",
                errorFragments: ["429", "3600 s"]))
        #expect(run.seconds < 4, "took \(run.seconds) s")
        #expect(try server.requests().count == 1)
    }

    @Test func aStalledStreamTimesOutAndKeepsWhatArrived() throws {
        let (server, vault) = try startChat()
        defer { server.stop() }
        let before = try vault.roomBytes()
        let subjects = try vault.subjects()
        let run = try vault.vault(
            ["chat", ChatVault.title, "멈출 질문", "--provider", "local", "--model", "stall"],
            environment: ["VAULT_IDLE_TIMEOUT": "2"], limit: 25)
        try expectTurn(
            run, in: vault, roomBefore: before, subjectsBefore: subjects,
            Expected(
                message: "멈출 질문", reply: ServerText.firstPiece, interrupted: true, model: "stall", status: 3,
                commit: "chat: \(ChatVault.title) (+2 messages, reply timeout)", errorFragments: ["2 s"]))
        #expect(run.seconds >= 1.5, "gave up after \(run.seconds) s")
        #expect(run.seconds < 5, "an idle time-out of 2 s took \(run.seconds) s")
    }

    /// The ways a server cannot be reached: nothing listens on the port; the name does not
    /// resolve (`.invalid` never does, RFC 6761); `https://` to a server that does not speak
    /// TLS (the fake server speaks plain HTTP), so the handshake fails. Each is one clear
    /// line, exit status 3, fast; the message is kept and committed, and never the key.
    @Test(arguments: ["refused", "dns", "tls"])
    func anUnreachableServerFailsFastWithOneClearLine(how: String) throws {
        let server = try FakeOpenAIServer(expectedKey: ChatVault.key)
        defer { server.stop() }
        let (url, fragment): (String, String)
        switch how {
        case "refused": (url, fragment) = ("http://127.0.0.1:\(try closedPort())/v1", "cannot connect to 127.0.0.1")
        case "dns":
            (url, fragment) = ("http://no-such-host.invalid/v1", "cannot find the server no-such-host.invalid (DNS)")
        default:
            (url, fragment) = (
                server.baseURL.replacingOccurrences(of: "http://", with: "https://"),
                "the secure connection to 127.0.0.1 failed"
            )
        }
        let vault = try ChatVault(baseURL: url, system: Self.system)
        let before = try vault.roomBytes()
        let subjects = try vault.subjects()
        let run = try vault.chat("아무도 없나요", model: "ok")
        try expectTurn(
            run, in: vault, roomBefore: before, subjectsBefore: subjects,
            Expected(
                message: "아무도 없나요", model: "ok", status: 3,
                commit: "chat: \(ChatVault.title) (+1 message, no reply: unreachable)",
                errorFragments: [fragment]))
        #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
        if how != "dns" { #expect(run.seconds < 3, "took \(run.seconds) s") }
        #expect(!(try vault.fullHistory()).contains(ChatVault.key))
    }

    // MARK: Where settings and the key come from

    @Test func openAIEnvironmentVariablesReachTheServer() throws {
        let server = try FakeOpenAIServer(expectedKey: ChatVault.key)
        defer { server.stop() }
        var vault = try ChatVault(baseURL: nil)
        let config = try vault.dir.readText("vault.yml")
        #expect(!config.contains("providers:") || config.contains("# providers:"))
        #expect(!config.split(separator: "\n").contains { $0.hasPrefix("provider:") })
        vault.environment["OPENAI_API_KEY"] = ChatVault.key
        vault.environment["OPENAI_BASE_URL"] = server.baseURL
        vault.environment["TEST_KEY"] = nil
        let before = try vault.roomBytes()
        let subjects = try vault.subjects()
        let run = try vault.vault(["chat", ChatVault.title, "환경 변수로", "--model", "ok"])
        try expectTurn(
            run, in: vault, roomBefore: before, subjectsBefore: subjects,
            Expected(
                message: "환경 변수로", reply: ServerText.reply, model: "ok", provider: "openai",
                commit: "chat: \(ChatVault.title) (+2 messages)"))
        let requests = try server.requests()
        try #require(requests.count == 1)
        expectWellFormed(requests[0], model: "ok")
        #expect(requests[0].messages == [.init("user", "환경 변수로")])
    }

    @Test func providerFromVaultYmlAndModelFromTheRoom() throws {
        let server = try FakeOpenAIServer(expectedKey: ChatVault.key)
        defer { server.stop() }
        let vault = try ChatVault(baseURL: server.baseURL, configExtra: "provider: local\n")
        let set = try vault.vault(["room", "set", ChatVault.title, "model", "comments"])
        #expect(set.status == 0, "\(set.stderr)")
        let before = try vault.roomBytes()
        let subjects = try vault.subjects()
        let run = try vault.vault(["chat", ChatVault.title, "설정대로"])
        try expectTurn(
            run, in: vault, roomBefore: before, subjectsBefore: subjects,
            Expected(
                message: "설정대로", reply: ServerText.reply, model: "comments",
                commit: "chat: \(ChatVault.title) (+2 messages)"))
        let requests = try server.requests()
        try #require(requests.count == 1)
        expectWellFormed(requests[0], model: "comments")
    }

    /// A local server (Ollama, llama.cpp) needs no key: with the variable unset, no
    /// Authorization header is sent and the turn works.
    @Test func noKeyMeansNoAuthorizationHeader() throws {
        let (server, vault) = try startChat(system: nil)
        defer { server.stop() }
        let run = try vault.vault(
            ["chat", ChatVault.title, "키 없이", "--provider", "local", "--model", "ok"], environment: ["TEST_KEY": ""])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == ServerText.reply + "\n")
        let requests = try server.requests()
        try #require(requests.count == 1)
        #expect(requests[0].authorization == "absent")
        #expect(requests[0].messages == [.init("user", "키 없이")])
    }
}
