import Foundation
import Testing
import VaultTestSupport

/// Where API keys may go, and where they never appear: a key is sent only to a server this
/// machine's user approved outside the vault (vault.yml travels with the vault); a key is never
/// printed, not even in a server's error or a trace; and a room that names a model is never
/// answered by the offline provider instead. Against the real loopback server, which logs
/// whether each request carried the key.
@Suite struct KeySafetyTests {
    let check = ChatOverHTTPTests()

    // MARK: Approval

    /// vault.yml names a server and a key variable, and nobody approved that pair on this
    /// machine: nothing is sent (the server sees no request), one line says how to approve,
    /// and the message is kept. Once approved in the user configuration, `vault retry` sends it.
    @Test func aKeyGoesOnlyToAServerApprovedOutsideTheVault() throws {
        let server = try FakeOpenAIServer(expectedKey: ChatVault.key)
        defer { server.stop() }
        let vault = try ChatVault(baseURL: server.baseURL, system: nil, approvingKey: false)
        let before = try vault.roomBytes()
        let subjects = try vault.subjects()
        let run = try vault.chat("키를 보내도 될까?", model: "ok")
        try check.expectTurn(
            run, in: vault, roomBefore: before, subjectsBefore: subjects,
            ChatOverHTTPTests.Expected(
                message: "키를 보내도 될까?", model: "ok", status: 4,
                commit: "chat: \(ChatVault.title) (+1 message, no reply: keyNotApproved)",
                errorFragments: ["vault.yml", "TEST_KEY", server.baseURL, "api_keys:", vault.userConfigPath]))
        #expect(try server.requests().isEmpty, "a request was sent")

        try vault.approveKey("TEST_KEY", for: server.baseURL)
        let retry = try vault.retry(model: "ok")
        #expect(retry.status == 0, "status \(retry.status); stderr: \(retry.stderr)")
        let requests = try server.requests()
        try #require(requests.count == 1)
        #expect(requests[0].authorization == "present")
        #expect(requests[0].messages == [.init("user", "키를 보내도 될까?")])
    }

    /// A shared vault.yml that names another variable (`AWS_SECRET_ACCESS_KEY`) for a server
    /// approved for a different key sends nothing: approval is for a variable and a server.
    @Test func aSharedVaultCannotSendAnotherVariable() throws {
        let server = try FakeOpenAIServer(expectedKey: ChatVault.key)
        defer { server.stop() }
        let secret = "aws-SECRET-do-not-leak-8f31c9a2"
        var vault = try ChatVault(
            baseURL: server.baseURL,
            configExtra: "  shared:\n    base_url: \(server.baseURL)\n    api_key_env: AWS_SECRET_ACCESS_KEY\n",
            system: nil)
        vault.environment["AWS_SECRET_ACCESS_KEY"] = secret
        let before = try vault.roomBytes()
        let subjects = try vault.subjects()
        let run = try vault.vault(["chat", ChatVault.title, "안녕", "--provider", "shared", "--model", "ok"])
        try check.expectTurn(
            run, in: vault, roomBefore: before, subjectsBefore: subjects,
            ChatOverHTTPTests.Expected(
                message: "안녕", model: "ok", status: 4,
                commit: "chat: \(ChatVault.title) (+1 message, no reply: keyNotApproved)",
                errorFragments: ["AWS_SECRET_ACCESS_KEY", server.baseURL]))
        #expect(try server.requests().isEmpty, "a request was sent")
        #expect(!run.stderr.contains(secret) && !run.stdout.contains(secret))
        #expect(!(try vault.fullHistory()).contains(secret))
    }

    /// vault.yml cannot point `OPENAI_API_KEY` at another server; `OPENAI_BASE_URL` in the
    /// environment (set by the user, not synced) approves that server for it.
    @Test func vaultYmlCannotRedirectTheOpenAIKeyButTheEnvironmentCan() throws {
        let server = try FakeOpenAIServer(expectedKey: ChatVault.key)
        defer { server.stop() }
        var vault = try ChatVault(baseURL: nil, configExtra: "providers:\n  openai:\n    base_url: \(server.baseURL)\n")
        vault.environment["OPENAI_API_KEY"] = ChatVault.key
        vault.environment["TEST_KEY"] = nil
        let before = try vault.roomBytes()
        let subjects = try vault.subjects()
        let run = try vault.vault(["chat", ChatVault.title, "어디로?", "--provider", "openai", "--model", "ok"])
        try check.expectTurn(
            run, in: vault, roomBefore: before, subjectsBefore: subjects,
            ChatOverHTTPTests.Expected(
                message: "어디로?", model: "ok", status: 4,
                commit: "chat: \(ChatVault.title) (+1 message, no reply: keyNotApproved)",
                errorFragments: ["OPENAI_API_KEY", server.baseURL]))
        #expect(try server.requests().isEmpty, "a request was sent")

        let retry = try vault.vault(
            ["retry", ChatVault.title, "--provider", "openai", "--model", "ok"],
            environment: ["OPENAI_BASE_URL": server.baseURL])
        #expect(retry.status == 0, "status \(retry.status); stderr: \(retry.stderr)")
        let requests = try server.requests()
        try #require(requests.count == 1)
        #expect(requests[0].authorization == "present")
    }

    // MARK: Redaction

    /// A server error in the middle of the stream that quotes the key: neither the error line
    /// nor `VAULT_TRACE`'s lines (which show the request's headers) print it.
    @Test func aKeyIsNeverPrintedNotInServerErrorsNorInTraces() throws {
        let (server, vault) = try startChat()
        defer { server.stop() }
        let run = try vault.vault(
            ["chat", ChatVault.title, "키가 보이나요?", "--provider", "local", "--model", "error-in-stream-key"],
            environment: ["VAULT_TRACE": "1"])
        #expect(run.status == 7, "status \(run.status); stderr: \(run.stderr)")
        #expect(
            !run.stderr.contains(ChatVault.key) && !run.stdout.contains(ChatVault.key),
            "the key was printed: \(run.stderr)")
        let error = run.stderr.split(separator: "\n").first { $0.hasPrefix("vault: error: ") }.map(String.init) ?? ""
        #expect(error.contains("upstream refused key [redacted] mid-stream"), "\(run.stderr)")
        #expect(
            run.stderr.contains("Authorization: Bearer [redacted]"),
            "the trace does not show the request: \(run.stderr)")
        #expect(try server.requests().first?.authorization == "present")
        #expect(!(try vault.fullHistory()).contains(ChatVault.key))
        #expect(!String(decoding: try vault.roomBytes(), as: UTF8.self).contains(ChatVault.key))
    }

    // MARK: Never the offline provider for a named model

    /// A room names a model, and no provider or key is set: vault refuses (saying which
    /// variable to set) instead of committing a canned offline reply, and keeps the message;
    /// `vault retry` with the variables set sends it, with no offline text as context.
    @Test func aNamedModelIsNeverAnsweredByTheOfflineProvider() throws {
        let server = try FakeOpenAIServer(expectedKey: ChatVault.key)
        defer { server.stop() }
        let vault = try ChatVault(baseURL: nil)
        #expect(try vault.vault(["room", "set", ChatVault.title, "model", "ok"]).status == 0)
        let before = try vault.roomBytes()
        let subjects = try vault.subjects()
        let run = try vault.vault(["chat", ChatVault.title, "진짜 모델에게"])
        try check.expectTurn(
            run, in: vault, roomBefore: before, subjectsBefore: subjects,
            ChatOverHTTPTests.Expected(
                message: "진짜 모델에게", model: "ok", status: 4,
                commit: "chat: \(ChatVault.title) (+1 message, no reply: noKey)",
                errorFragments: ["'ok'", "OPENAI_API_KEY", "--provider offline"]))
        #expect(!String(decoding: try vault.roomBytes(), as: UTF8.self).contains("(offline)"))

        let retry = try vault.vault(
            ["retry", ChatVault.title],
            environment: ["OPENAI_BASE_URL": server.baseURL, "OPENAI_API_KEY": ChatVault.key])
        #expect(retry.status == 0, "status \(retry.status); stderr: \(retry.stderr)")
        let requests = try server.requests()
        try #require(requests.count == 1)
        #expect(requests[0].messages == [.init("user", "진짜 모델에게")], "\(requests[0].messages)")
        let messages = roomMessages(try vault.roomBytes())
        #expect(messages.map(\.header.role) == ["user", "assistant"])
        #expect(messages[1].header.attributes["provider"] == "openai")
    }

    /// A room that names the `openai` provider, with no key and no other server: vault says to
    /// set `OPENAI_API_KEY` instead of sending a request OpenAI would refuse.
    @Test func theOpenAIProviderWithoutAKeySaysWhichVariableToSet() throws {
        let vault = try ChatVault(baseURL: nil)
        #expect(try vault.vault(["room", "set", ChatVault.title, "provider", "openai"]).status == 0)
        let before = try vault.roomBytes()
        let subjects = try vault.subjects()
        let run = try vault.vault(["chat", ChatVault.title, "키 없이", "--model", "gpt-4o-mini"])
        try check.expectTurn(
            run, in: vault, roomBefore: before, subjectsBefore: subjects,
            ChatOverHTTPTests.Expected(
                message: "키 없이", model: "gpt-4o-mini", status: 4,
                commit: "chat: \(ChatVault.title) (+1 message, no reply: noKey)",
                errorFragments: ["OPENAI_API_KEY", "is not set"]))
    }
}
