import Foundation
import Testing
import VaultTestSupport

/// Issue 27, items 5–7: a room with no model opens the chat prompt, where `/model` fixes it;
/// a failed turn's hint is a command that works as printed; a failing server at the prompt is
/// named for what it is, once per try. Through the built `vault` on a real pseudo-terminal
/// (`ChatPromptTests.drive`) and the loopback OpenAI server.
@Suite struct PromptRecoveryTests {
    /// A vault made by `vault init` whose provider is the loopback server, and a room `Plans`
    /// made without `--model` (nothing names a model).
    func vaultWithoutModel(_ server: FakeOpenAIServer) throws -> TemporaryDirectory {
        let vault = try freshVault()
        let config =
            try vault.readText("vault.yml") + "provider: local\nproviders:\n  local:\n    base_url: \(server.baseURL)\n"
        try vault.write("vault.yml", config)
        _ = try git(["commit", "-qam", "the loopback server"], in: vault.path)
        expectSuccess(try runVault(["room", "new", "Plans"], in: vault.path))
        return vault
    }

    func noModel(config: String) -> String {
        "vault: error: no model for provider 'local': name one for this room with `vault room set plans model MODEL`"
            + " (/model MODEL at the chat prompt), or for every room with `model: MODEL` in \(config) (or in"
            + " vault.yml); --model MODEL names one for one turn"
    }

    @Test func aRoomWithoutAModelOpensThePromptWhereModelFixesIt() throws {
        let server = try FakeOpenAIServer(expectedKey: nil)
        defer { server.stop() }
        let vault = try vaultWithoutModel(server)
        let state = TemporaryDirectory()
        let environment = ["XDG_STATE_HOME": state.path, "XDG_CONFIG_HOME": state.path + "/config"]
        let config = state.path + "/config/vault/config.yml"

        // Not at a terminal: refused with both ways named, nothing written.
        let before = try vault.snapshot()
        let refused = try runVault(["chat", "plans", "hello"], in: vault.path, environment: environment)
        #expect(refused.status == 1)
        #expect(refused.stderr == noModel(config: config) + "\n", "\(refused.stderr)")
        expectUnchanged(before, try vault.snapshot())

        // At a terminal: the message, then the prompt; /model sets it and the turn goes.
        let session = try ChatPromptTests.drive(
            [("you> ", "/model ok\r"), ("model set", "hello\r"), ("(saved to", ""), ("you> ", "\u{04}")],
            [Project.vaultExecutable, "chat", "plans"], in: vault.path, environment: environment, scratch: state)
        #expect(session.status == 0, "\(session.output)")
        #expect(session.output.hasPrefix(noModel(config: config) + "\n"), "\(session.output)")
        let room = try vault.readText("rooms/plans.md")
        #expect(room.contains("\nmodel: ok\n"), "\(room)")
        let messages = parseRoom(room).messages
        #expect(messages.map(\.header.role) == ["user", "assistant"], "\(messages.map(\.body))")
        #expect(messages.first?.body == "hello")
        let subjects = try git(["log", "--format=%s", "-2"], in: vault.path)
        #expect(subjects == "chat: Plans (+2 messages)\nroom: Plans: set model\n", "\(subjects)")
        #expect(try git(["status", "--porcelain"], in: vault.path).isEmpty)
    }

    /// The hint of a failed turn names the room, and the command works exactly as printed.
    @Test func theRetryHintWorksAsPrinted() throws {
        let server = try FakeOpenAIServer(expectedKey: nil)
        defer { server.stop() }
        let vault = try vaultWithoutModel(server)
        expectSuccess(try runVault(["room", "set", "plans", "model", "ok"], in: vault.path))
        // `missing`: the server does not know the model (404), at once.
        let failed = try runVault(["chat", "plans", "hello", "--model", "missing"], in: vault.path)
        #expect(failed.status == 5, "\(failed.stderr)")
        #expect(failed.stderr.hasSuffix("(your message is saved; `vault retry plans` sends it again)\n"), "\(failed.stderr)")
        let hint = try #require(failed.stderr.firstMatch(of: /`(vault retry [^`]*)`/)?.output.1)
        let words = hint.split(separator: " ").map(String.init)
        let retried = try runVault(Array(words.dropFirst()), in: vault.path)
        expectSuccess(retried)
        let messages = parseRoom(try vault.readText("rooms/plans.md")).messages
        #expect(messages.map(\.header.role) == ["user", "assistant"], "\(messages.map(\.body))")
        #expect(messages.first?.body == "hello")
    }

    /// `flaky` fails twice with 500, then answers; `rate-limit` says 429 once. The prompt says
    /// which it was, once per try, and the reply comes.
    @Test(arguments: [
        ("flaky", ["the server failed (500)", "asking again in 1 s (try 2 of 4", "asking again in 2 s (try 3 of 4"]),
        ("rate-limit", ["rate limited (429)", "asking again in 1 s (try 2 of 4"]),
    ])
    func aFailingServerAtThePromptIsNamedOncePerTry(model: String, said: [String]) throws {
        let server = try FakeOpenAIServer(expectedKey: nil)
        defer { server.stop() }
        let vault = try vaultWithoutModel(server)
        let state = TemporaryDirectory()
        let environment = ["XDG_STATE_HOME": state.path, "XDG_CONFIG_HOME": state.path + "/config"]
        let session = try ChatPromptTests.drive(
            [("you> ", "hello\r"), ("(saved to", ""), ("you> ", "\u{04}")],
            [Project.vaultExecutable, "chat", "plans", "--model", model], in: vault.path, environment: environment,
            scratch: state)
        #expect(session.status == 0, "\(session.output)")
        for text in said {
            #expect(session.output.contains(text), "lacks \(text): \(session.output.debugDescription)")
        }
        #expect(!session.output.contains("asked vault to wait"), "\(session.output.debugDescription)")
        // One line per try, not one per redraw.
        let lines = session.output.components(separatedBy: "asking again in").count - 1
        #expect(lines == said.count - 1, "\(session.output.debugDescription)")
        #expect(!session.output.contains("vault: error"), "\(session.output)")
        let messages = parseRoom(try vault.readText("rooms/plans.md")).messages
        #expect(messages.map(\.header.role) == ["user", "assistant"], "\(messages.map(\.body))")
    }
}
