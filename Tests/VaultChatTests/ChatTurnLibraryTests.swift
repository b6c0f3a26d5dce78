import Foundation
import Testing
import VaultChat
import VaultCore
import VaultTestSupport

/// A chat turn through the library alone (no `vault` process): `ChatTurn.forRoom` picks the
/// provider and its limits the way every front end gets them, and the turn talks to a real
/// loopback server speaking the OpenAI streaming protocol.
@Suite struct ChatTurnLibraryTests {
    @Test func aTurnFromTheLibraryReachesTheServerAndAppendsTheStreamedReply() throws {
        let server = try FakeOpenAIServer(expectedKey: nil)
        let dir = TemporaryDirectory("vault-library-turn")
        let vault = try Vault.create(at: dir.path, locale: "ko_KR", timeZone: TimeZone(identifier: "Asia/Seoul")!)
        let path = try RoomCreation(vault: vault).create(title: "부산 여행")
        let environment = [
            "OPENAI_BASE_URL": server.baseURL, "VAULT_IDLE_TIMEOUT": "7", "VAULT_MAX_REPLY_BYTES": "512K",
        ]
        let turn = try ChatTurn.forRoom(
            path, try ChatTurn.read(path, in: vault), in: vault, provider: nil, model: "ok", environment: environment)
        let openAI = try #require(turn.provider as? OpenAIProvider)
        #expect(openAI.client.idleTimeout == 7)
        #expect(openAI.maxReplyBytes == 512 * 1024)
        #expect(turn.model == "ok")

        var streamed = ""
        let outcome = try turn.run(message: "부산 2박 3일 일정 짜줘") { streamed += $0 }
        #expect(streamed == ServerText.reply)
        #expect(outcome.path == path)
        let requests = try server.requests()
        #expect(requests.count == 1)
        #expect(requests.first?.messages.last == LoggedRequest.Turn("user", "부산 2박 3일 일정 짜줘"))
        let room = try vault.readRoom(path)
        #expect(room.messages.map(\.role.rawValue) == ["user", "assistant"])
        #expect(room.messages.last?.body.contains("첫째 날: 해운대") == true)
    }

    @Test func aTurnWithNoProviderToReachIsRefusedAndKeepsOnlyTheMessage() throws {
        let dir = TemporaryDirectory("vault-library-turn")
        let vault = try Vault.create(at: dir.path, locale: "en_US", timeZone: TimeZone(identifier: "UTC")!)
        let path = try RoomCreation(vault: vault).create(title: "Trip", model: "gpt-x")
        // A named model and nothing configured to reach it: refused, never answered offline.
        let turn = try ChatTurn.forRoom(
            path, try ChatTurn.read(path, in: vault), in: vault, provider: nil, model: nil, environment: [:])
        let error = #expect(throws: VaultError.self) { try turn.run(message: "hello") { _ in } }
        #expect(String(describing: error).contains("gpt-x"), "\(String(describing: error))")
        // The person's message is kept (a refusal never loses it); no reply was written.
        let room = try vault.readRoom(path)
        #expect(room.messages.map(\.role.rawValue) == ["user"])
        #expect(room.messages.first?.body.trimmingCharacters(in: .whitespacesAndNewlines) == "hello")
    }
}
