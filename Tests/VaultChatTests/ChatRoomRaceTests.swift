import Foundation
import Testing
import VaultTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// What happens to a room while its reply streams: renamed or deleted (by hand, with git or
/// with vault), or asked another question by other `vault chat` processes. The reply is never
/// lost, each reply follows its own question, and each commit says what it holds.
@Suite struct ChatRoomRaceTests {
    /// Starts `vault chat` with the `slow` model (a pause of 1.5 s after the first piece) and
    /// returns once the first piece is printed.
    func startSlowTurn(_ question: String, in vault: ChatVault) throws -> BackgroundVault {
        let run = try BackgroundVault(
            ["chat", ChatVault.title, question, "--provider", "local", "--model", "slow"], vault: vault)
        try run.waitForOutput("안녕하세요!", seconds: 10)
        return run
    }

    @Test(arguments: ["mv", "git mv"])
    func aRoomRenamedWhileTheReplyStreamsGetsTheReplyWhereItNowIs(how: String) throws {
        let (server, vault) = try startChat()
        defer { server.stop() }
        let subjects = try vault.subjects()
        let run = try startSlowTurn("이름을 바꿀게요", in: vault)
        let renamed = "rooms/여행-계획.md"
        if how == "mv" {
            #expect(rename(vault.path + "/" + ChatVault.roomPath, vault.path + "/" + renamed) == 0)
        } else {
            try git(["mv", ChatVault.roomPath, renamed], in: vault.path)
        }
        let done = try run.wait(seconds: 20)
        #expect(done.status == 0, "status \(done.status); stderr: \(done.stderr)")
        #expect(done.stdout == ServerText.reply + "\n")
        #expect(done.stderr.contains("\(ChatVault.roomPath) was renamed to \(renamed)"), "\(done.stderr)")
        #expect(done.stderr.contains("(saved to \(renamed), line "), "\(done.stderr)")
        #expect(!FileManager.default.fileExists(atPath: vault.path + "/" + ChatVault.roomPath))
        let messages = roomMessages(try vault.dir.read(renamed))
        #expect(messages.map(\.body) == ["이름을 바꿀게요", ServerText.reply], "\(messages.map(\.body))")
        #expect(messages.last?.header.attributes["status"] == nil)
        // The rename (with the message) is committed on its own, then the reply.
        #expect(
            try vault.subjects()
                == [
                    "chat: \(ChatVault.title) (+1 message)",
                    "edit: \(ChatVault.roomPath) → \(renamed) (renamed while waiting for the reply)",
                ] + subjects)
        #expect(try git(["show", "HEAD:" + renamed], in: vault.path) == vault.dir.readText(renamed))
        #expect(try git(["ls-tree", "--name-only", "HEAD", ChatVault.roomPath], in: vault.path).isEmpty)
        #expect(try vault.porcelain() == "")
    }

    @Test(arguments: ["rm", "vault rm"])
    func aRoomDeletedWhileTheReplyStreamsKeepsTheMessageAndReplyNextToIt(how: String) throws {
        let (server, vault) = try startChat()
        defer { server.stop() }
        let subjects = try vault.subjects()
        let run = try startSlowTurn("지워도 남겨 주세요", in: vault)
        var removedBy: [String] = []
        if how == "rm" {
            #expect(unlink(vault.path + "/" + ChatVault.roomPath) == 0)
            removedBy = ["edit: \(ChatVault.roomPath) (deleted while waiting for the reply)"]
        } else {
            let rm = try vault.vault(["rm", ChatVault.title, "--yes"])
            #expect(rm.status == 0, "\(rm.stderr)")
            // vault rm commits the unanswered message as a hand edit first, then the removal.
            removedBy = ["rm: \(ChatVault.roomPath) (\(ChatVault.title))", "edit: \(ChatVault.roomPath)"]
        }
        let done = try run.wait(seconds: 20)
        let kept = "rooms/부산-여행-reply.md"
        #expect(done.status == 0, "status \(done.status); stderr: \(done.stderr)")
        #expect(done.stdout == ServerText.reply + "\n")
        #expect(
            done.stderr.contains(
                "\(ChatVault.roomPath) was deleted while the reply came: "
                    + "your message and the reply are kept in \(kept)"),
            "\(done.stderr)")
        #expect(!FileManager.default.fileExists(atPath: vault.path + "/" + ChatVault.roomPath))
        let text = try vault.dir.readText(kept)
        #expect(text.contains("title: \(ChatVault.title) (reply kept after the room was deleted)"), "\(text)")
        let messages = roomMessages(Array(text.utf8))
        #expect(messages.map(\.body) == ["지워도 남겨 주세요", ServerText.reply], "\(messages.map(\.body))")
        #expect(messages.map(\.header.role) == ["user", "assistant"])
        #expect(
            try vault.subjects()
                == ["chat: \(ChatVault.title) (+2 messages) in \(kept): \(ChatVault.roomPath) was deleted"] + removedBy
                + subjects)
        #expect(try git(["show", "HEAD:" + kept], in: vault.path) == text)
        #expect(try git(["ls-tree", "--name-only", "HEAD", ChatVault.roomPath], in: vault.path).isEmpty)
        #expect(try vault.porcelain() == "")
        let check = try vault.vault(["check"])
        #expect(check.status == 0, "\(check.stdout) \(check.stderr)")
    }

    /// Eight `vault chat` processes on one room at once: they take turns (each says it waits),
    /// every reply follows its own question, and every commit is one question and its reply.
    @Test(.timeLimit(.minutes(3)))
    func eightTurnsAtOnceInOneRoomKeepEachReplyAfterItsQuestion() throws {
        let (server, vault) = try startChat()
        defer { server.stop() }
        let subjects = try vault.subjects()
        let questions = (1...8).map { "동시에 묻는 질문 \($0)" }
        let runs = try questions.map {
            try BackgroundVault(["chat", ChatVault.title, $0, "--provider", "local", "--model", "slow"], vault: vault)
        }
        let results = try runs.map { try $0.wait(seconds: 120) }
        for (i, r) in results.enumerated() {
            #expect(r.status == 0, "turn \(i + 1): status \(r.status); stderr: \(r.stderr)")
            #expect(r.stdout == ServerText.reply + "\n", "turn \(i + 1): \(r.stdout)")
        }
        let waited = results.filter { $0.stderr.contains("waiting for the turn in progress in \(ChatVault.roomPath)") }
        #expect(waited.count >= 1)

        let messages = roomMessages(try vault.roomBytes())
        try #require(messages.count == 16, "\(messages.map(\.body))")
        for pair in stride(from: 0, to: 16, by: 2) {
            let roles = [messages[pair].header.role, messages[pair + 1].header.role]
            #expect(roles == ["user", "assistant"], "message \(pair)")
            #expect(messages[pair + 1].body == ServerText.reply)
        }
        #expect(messages.filter { $0.header.role == "user" }.map(\.body).sorted() == questions.sorted())
        // Each commit adds one question and its reply, and says so.
        let now = try vault.subjects()
        #expect(now == Array(repeating: "chat: \(ChatVault.title) (+2 messages)", count: 8) + subjects, "\(now)")
        for k in 0..<8 {
            let at = roomMessages(Array(try git(["show", "HEAD~\(k):" + ChatVault.roomPath], in: vault.path).utf8))
            #expect(at.count == 16 - 2 * k, "HEAD~\(k) has \(at.count) messages")
            #expect(at.suffix(2).map(\.header.role) == ["user", "assistant"], "HEAD~\(k)")
        }
        // The server was asked each question once, each time with the earlier pairs as context.
        let requests = try server.requests()
        #expect(requests.count == 8)
        for (k, request) in requests.enumerated() {
            #expect(request.messages.count == 1 + 2 * k + 1, "request \(k): \(request.messages.count) messages")
        }
        #expect(try vault.porcelain() == "")
    }
}
