import Foundation
import Testing
import VaultTestSupport

/// A chat turn's context that reaches back past a room's file (format 3: its older messages in
/// volumes) goes on in the volumes: what is sent is what the room would send in one file.
/// Checked against the fake OpenAI server on loopback, which logs each request it reads.
@Suite struct VolumeContextTests {
    @Test func theContextGoesOnInTheRoomsVolumes() throws {
        let (server, vault) = try startChat(system: nil)
        defer { server.stop() }
        let config = try vault.dir.readText("vault.yml")
        try vault.dir.write("vault.yml", config.replacingOccurrences(of: "format: 1\n", with: "format: 3\n"))
        // The room, 2.4 MB: 5,000 messages of about 480 bytes, and a budget that sends them all.
        var text = try vault.dir.readText(ChatVault.roomPath)
        let marker = text.range(of: promptMarkerLine)!.lowerBound
        text = String(text[..<marker])
        text = text.replacingOccurrences(of: "---\n\n", with: "context_messages: 100000\ncontext_tokens: 10000000\n---\n\n")
        var bodies: [String] = []
        for i in 0..<5000 {
            let role = i % 2 == 0 ? "user" : "assistant"
            let body = "메시지 \(i): " + String(repeating: "부산 여행 이야기 \(i) ", count: 20)
            bodies.append(body)
            text += "## \(role == "user" ? "🧑" : "🤖") \(role) · then <!-- 2026-01-01T10:00:00+09:00 m-\(String(format: "%012d", i)) -->\n\n"
            text += body + "\n\n"
        }
        try vault.dir.write(ChatVault.roomPath, text + promptMarkerLine + "\n")
        try git(["add", "-A"], in: vault.dir.path)
        try git(["-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "-m", "long room"], in: vault.dir.path)

        for question in ["첫 질문", "둘째 질문"] {
            let run = try vault.chat(question, model: "ok")
            #expect(run.status == 0, "\(run.stderr)")
        }
        // The first turn rolled the room over; both sent every message, in order.
        let volumes = try FileManager.default.contentsOfDirectory(atPath: vault.dir.path + "/volumes/부산-여행")
        #expect(volumes.sorted() == ["0001.md", "0002.md"], "\(volumes)")
        #expect(try vault.roomBytes().count < 300 * 1024)
        let requests = try server.requests()
        try #require(requests.count == 2)
        #expect(requests[0].messages.map(\.content) == bodies + ["첫 질문"])
        #expect(
            requests[1].messages.map(\.content) == bodies + ["첫 질문", ServerText.reply, "둘째 질문"],
            "\(requests[1].messages.count) messages sent")
        #expect(requests[1].messages.first == .init("user", bodies[0]))

        // A budget the room's file holds: the volumes are not needed, and the same newest messages go.
        #expect(try vault.vault(["room", "set", ChatVault.title, "context_messages", "7"]).status == 0)
        #expect(try vault.chat("셋째 질문", model: "ok").status == 0)
        let last = try #require(try server.requests().last)
        #expect(last.messages.map(\.content) == [bodies[4998], bodies[4999], "첫 질문", ServerText.reply, "둘째 질문", ServerText.reply, "셋째 질문"])
    }
}
