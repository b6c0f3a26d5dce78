import Foundation
import Testing
import VaultTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// What happens around a turn while the reply is on its way, and what the request holds:
/// Ctrl-C during a reply, an edit saved while a reply streams, the room's context budget,
/// and attached files. Against the real loopback server, checked through the room's bytes,
/// the git command line and what the server was sent.
@Suite struct ChatTurnBehaviourTests {

    // MARK: While the reply streams

    @Test func ctrlCKeepsThePartialReplyMarkedInterrupted() throws {
        let (server, vault) = try startChat()
        defer { server.stop() }
        let subjects = try vault.subjects()
        // `stall` sends its first piece, then nothing for 30 s.
        let run = try BackgroundVault(
            ["chat", ChatVault.title, "기다릴게요", "--provider", "local", "--model", "stall"], vault: vault)
        try run.waitForOutput(ServerText.firstPiece.trimmingCharacters(in: .whitespaces), seconds: 10)
        run.interrupt()
        let done = try run.wait(seconds: 10)
        #expect(done.status == 130, "status \(done.status); stderr: \(done.stderr)")
        #expect(done.stderr.hasPrefix("vault: error: "), "\(done.stderr)")
        #expect(done.stderr.contains("interrupted"), "\(done.stderr)")
        #expect(!done.stderr.contains("Fatal error"), "\(done.stderr)")

        let messages = roomMessages(try vault.roomBytes())
        try #require(messages.count == 2, "\(messages.map(\.body))")
        #expect(messages[0].header.role == "user" && messages[0].body == "기다릴게요")
        #expect(messages[1].header.role == "assistant")
        #expect(messages[1].body == ServerText.firstPiece, "what arrived is kept as it arrived")
        #expect(messages[1].header.attributes["status"] == "interrupted", "\(messages[1].header.line)")
        #expect(messages[1].header.line.contains("· interrupted"), "\(messages[1].header.line)")
        // One commit holds both, and says the reply was interrupted.
        let now = try vault.subjects()
        #expect(now.count == subjects.count + 1, "\(now)")
        #expect(now.first?.hasPrefix("chat: \(ChatVault.title) (+2 messages, reply interrupted") == true, "\(now)")
        #expect(try vault.porcelain() == "")
        #expect(try git(["fsck", "--strict"], in: vault.path).isEmpty)
    }

    /// Editors save by renaming a new file over the old one (vim) or by writing the file in
    /// place (VS Code): either way the edit and the reply both stay.
    @Test(arguments: ["rename", "in place"])
    func anEditSavedWhileTheReplyStreamsIsKept(how: String) throws {
        let (server, vault) = try startChat()
        defer { server.stop() }
        let subjects = try vault.subjects()
        // `slow` sends its first piece, waits 1.5 s, then the rest.
        let run = try BackgroundVault(
            ["chat", ChatVault.title, "천천히 답해 주세요", "--provider", "local", "--model", "slow"], vault: vault)
        try run.waitForOutput("안녕하세요!", seconds: 10)
        // The person saves the file in an editor meanwhile: a fix in the front-matter, and
        // their next message typed below the prompt marker. Editors save by rename, like this.
        var text = try vault.dir.readText(ChatVault.roomPath)
        let typed = "다음에 물어볼 것: 숙소 추천"
        #expect(text.contains("\n" + promptMarkerLine + "\n"), "no prompt marker: \(text)")
        text = text.replacingOccurrences(
            of: "title: \(ChatVault.title)\n", with: "title: \(ChatVault.title)\ntags: [여행]\n")
        text += typed + "\n"
        let url = URL(fileURLWithPath: vault.path + "/" + ChatVault.roomPath)
        if how == "rename" {
            try Data(text.utf8).write(to: url, options: .atomic)
        } else {
            let handle = try FileHandle(forWritingTo: url)
            try handle.truncate(atOffset: 0)
            try handle.write(contentsOf: Data(text.utf8))
            try handle.close()
        }
        let done = try run.wait(seconds: 20)
        #expect(done.status == 0, "status \(done.status); stderr: \(done.stderr)")
        #expect(done.stdout == ServerText.reply + "\n", "\(done.stdout)")

        // Both survive: the edit, the typed text, and the reply.
        let after = try vault.dir.readText(ChatVault.roomPath)
        #expect(after.contains("tags: [여행]\n"), "\(after)")
        #expect(after.hasSuffix(promptMarkerLine + "\n" + typed + "\n"), "the typed text is not last: \(after)")
        let messages = roomMessages(Array(after.utf8))
        try #require(messages.count == 2, "\(messages.map(\.body))")
        #expect(messages[0].body == "천천히 답해 주세요")
        #expect(messages[1].header.role == "assistant" && messages[1].body == ServerText.reply)
        // Two commits: the person's edit (with the message sent before it), then the reply.
        let now = try vault.subjects()
        try #require(now.count == subjects.count + 2, "\(now)")
        #expect(now[0] == "chat: \(ChatVault.title) (+1 message)", "\(now)")
        #expect(now[1].hasPrefix("edit: \(ChatVault.roomPath)"), "\(now)")
        let edit = try git(["show", "HEAD~1:" + ChatVault.roomPath], in: vault.path)
        #expect(edit.contains("tags: [여행]") && edit.contains(typed) && !edit.contains("감천"), "\(edit)")
        #expect(try git(["show", "HEAD:" + ChatVault.roomPath], in: vault.path) == after)
        #expect(try vault.porcelain() == "")
    }

    // MARK: What is sent

    @Test func theRoomsContextBudgetLimitsWhatIsSentNotWhatIsKept() throws {
        let (server, vault) = try startChat()
        defer { server.stop() }
        let set = try vault.vault(["room", "set", ChatVault.title, "context_messages", "3"])
        #expect(set.status == 0, "\(set.stderr)")
        for question in ["첫째", "둘째", "셋째"] {
            let run = try vault.chat(question, model: "ok")
            #expect(run.status == 0, "\(run.stderr)")
        }
        let requests = try server.requests()
        try #require(requests.count == 3)
        // The system prompt always goes; then only the three newest messages.
        #expect(requests[0].messages == [.init("system", ChatOverHTTPTests.system), .init("user", "첫째")])
        #expect(
            requests[2].messages == [
                .init("system", ChatOverHTTPTests.system), .init("user", "둘째"), .init("assistant", ServerText.reply),
                .init("user", "셋째"),
            ], "\(requests[2].messages)")
        // Nothing was deleted to fit.
        let kept = roomMessages(try vault.roomBytes()).map(\.body)
        #expect(kept == ["첫째", ServerText.reply, "둘째", ServerText.reply, "셋째", ServerText.reply], "\(kept)")

        // A token budget: about one token per three bytes, so a long old message is left out.
        let tokens = try vault.vault(["room", "set", ChatVault.title, "context_messages", "100"])
        #expect(tokens.status == 0)
        let long = String(repeating: "긴 메시지 ", count: 400)  // ~6 KB: ~2,000 tokens
        #expect(try vault.chat(long, model: "ok").status == 0)
        #expect(try vault.vault(["room", "set", ChatVault.title, "context_tokens", "200"]).status == 0)
        #expect(try vault.chat("짧은 질문", model: "ok").status == 0)
        let last = try #require(try server.requests().last)
        #expect(last.messages.first == .init("system", ChatOverHTTPTests.system))
        #expect(!last.messages.contains { $0.content.contains("긴 메시지") }, "the long message was sent")
        #expect(last.messages.last == .init("user", "짧은 질문"))
    }

    @Test func anAttachedImageIsStoredLinkedCommittedAndSent() throws {
        let (server, vault) = try startChat()
        defer { server.stop() }
        // A 1×1 PNG, outside the vault.
        let png: [UInt8] = [
            0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00,
            0x00, 0x01,
            0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4, 0x89, 0x00, 0x00, 0x00, 0x0D, 0x49,
            0x44, 0x41,
            0x54, 0x78, 0x9C, 0x63, 0xF8, 0xCF, 0xC0, 0xF0, 0x1F, 0x00, 0x05, 0x00, 0x01, 0xFF, 0x89, 0x99, 0x3D, 0x1D,
            0x00, 0x00,
            0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
        ]
        let outside = TemporaryDirectory("attach-source")
        try outside.write("해운대 사진.png", png)
        let run = try vault.vault([
            "chat", ChatVault.title, "이 사진 어때요?", "--attach", outside.path + "/해운대 사진.png", "--provider", "local",
            "--model",
            "ok",
        ])
        #expect(run.status == 0, "\(run.stderr)")

        // Stored once under its SHA-256, with the same bytes.
        let sha = try shellOutput(["sha256sum", outside.path + "/해운대 사진.png"]).prefix(64)
        let stored = "attachments/\(sha).png"
        #expect(try vault.dir.read(stored) == png)
        // Linked from the message, relative to the room file.
        let messages = roomMessages(try vault.roomBytes())
        try #require(messages.count == 2)
        #expect(messages[0].body == "이 사진 어때요?\n\n![해운대 사진.png](../\(stored))", "\(messages[0].body)")
        // Committed with the turn.
        let files = try git(["-c", "core.quotepath=off", "show", "--name-only", "--format=", "HEAD"], in: vault.path)
        #expect(
            files.split(separator: "\n").map(String.init).sorted() == [stored, ChatVault.roomPath].sorted(), "\(files)")
        #expect(try vault.porcelain() == "")

        // Sent to the model as a data URL next to the text.
        let content = try lastUserContent(server)
        let parts = try #require(content as? [[String: Any]], "content is not a list of parts: \(content)")
        #expect(parts.count == 2)
        #expect(parts.first?["type"] as? String == "text")
        #expect((parts.first?["text"] as? String)?.hasPrefix("이 사진 어때요?") == true)
        let image = parts.last?["image_url"] as? [String: Any]
        #expect(image?["url"] as? String == "data:image/png;base64," + Data(png).base64EncodedString())

        // The next turn does not send the image again; with `vision: no` none is ever sent.
        #expect(try vault.chat("고마워요", model: "ok").status == 0)
        #expect(try lastUserContent(server) as? String == "고마워요")
        #expect(try vault.vault(["room", "set", ChatVault.title, "vision", "no"]).status == 0)
        #expect(
            try vault.vault([
                "chat", ChatVault.title, "한 장 더", "--attach", outside.path + "/해운대 사진.png", "--provider", "local",
                "--model", "ok",
            ])
                .status == 0)
        let plain = try lastUserContent(server)
        #expect((plain as? String)?.hasPrefix("한 장 더") == true, "\(plain)")
        // The same bytes are stored once.
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: vault.path + "/attachments").filter {
                !$0.hasPrefix(".")
            } == ["\(sha).png"])
    }

    @Test func aMissingAttachmentFailsBeforeAnythingIsWritten() throws {
        let (server, vault) = try startChat()
        defer { server.stop() }
        let before = try vault.dir.snapshot().filter { !$0.key.hasPrefix(".git/") }
        let subjects = try vault.subjects()
        let run = try vault.vault([
            "chat", ChatVault.title, "사진", "--attach", vault.path + "/없는-파일.png", "--provider", "local", "--model",
            "ok",
        ])
        #expect(run.status != 0)
        #expect(run.stderr.hasPrefix("vault: error: ") && run.stderr.contains("없는-파일.png"), "\(run.stderr)")
        #expect(try vault.dir.snapshot().filter { !$0.key.hasPrefix(".git/") } == before, "files changed")
        #expect(try vault.subjects() == subjects)
        #expect(try server.requests().isEmpty)
    }

    /// The `content` of the last user message of the last request, as JSON (a string, or a list of parts).
    func lastUserContent(_ server: FakeOpenAIServer) throws -> Any {
        let text = try String(contentsOfFile: server.logPath, encoding: .utf8)
        let line = try #require(text.split(separator: "\n").last)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let body = try #require(object["body"] as? [String: Any])
        let messages = try #require(body["messages"] as? [[String: Any]])
        let user = try #require(messages.last { $0["role"] as? String == "user" })
        return try #require(user["content"])
    }
}

/// The standard output of a command (for independent checks such as `sha256sum`).
func shellOutput(_ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    let out = Pipe()
    process.standardOutput = out
    try process.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw FixtureError("\(arguments) failed") }
    return String(decoding: data, as: UTF8.self)
}

/// `vault` running in the background: its output read as it comes, Ctrl-C on demand.
final class BackgroundVault: @unchecked Sendable {
    let process: Process
    private let lock = NSLock()
    private var out = Data()
    private var err = Data()
    private let exited = DispatchSemaphore(value: 0)
    /// The two readers (stdout, stderr), each done at its pipe's end.
    private let readers = DispatchGroup()

    init(_ arguments: [String], vault: ChatVault, environment extra: [String: String] = [:]) throws {
        var environment = vault.environment
        for (k, v) in extra { environment[k] = v }
        process = vaultProcess(arguments, in: vault.path, environment: environment)
        let outPipe = Pipe()
        let errPipe = Pipe()
        let input = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        process.standardInput = input
        process.terminationHandler = { [exited] _ in exited.signal() }
        try startingAsAShellWould { try process.run() }
        try input.fileHandleForWriting.close()
        // One thread per pipe, blocking on reads until the pipe ends (not the dispatch
        // readability handlers, which a loaded machine can hold back for seconds).
        for (handle, isOut) in [(outPipe.fileHandleForReading, true), (errPipe.fileHandleForReading, false)] {
            readers.enter()
            Thread { [self] in
                while true {
                    let data = handle.availableData
                    if data.isEmpty { break }
                    lock.withLock {
                        if isOut { out += data } else { err += data }
                    }
                }
                readers.leave()
            }.start()
        }
    }

    var stdout: String { lock.withLock { String(decoding: out, as: UTF8.self) } }
    var stderr: String { lock.withLock { String(decoding: err, as: UTF8.self) } }

    /// Waits until standard output holds `text`.
    func waitForOutput(_ text: String, seconds: Double) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while !stdout.contains(text) {
            guard Date() < deadline, process.isRunning else {
                throw FixtureError("vault did not print \(text.debugDescription); stdout: \(stdout.debugDescription)")
            }
            usleep(10_000)  // sleep: poll interval: standard output holding the text, with a deadline
        }
    }

    /// Waits until standard error holds `text` (a `VAULT_TRACE` line, say).
    func waitForError(_ text: String, seconds: Double) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while !stderr.contains(text) {
            guard Date() < deadline, process.isRunning else {
                throw FixtureError(
                    "vault did not print \(text.debugDescription) on stderr; stderr: \(stderr.debugDescription)")
            }
            usleep(10_000)  // sleep: poll interval: standard error holding the text, with a deadline
        }
    }

    /// Ctrl-C.
    func interrupt() { kill(process.processIdentifier, SIGINT) }

    /// Waits for the exit (killing vault after `seconds`) and returns what it printed.
    func wait(seconds: Double) throws -> RunResult {
        if exited.wait(timeout: .now() + seconds) == .timedOut {
            process.terminate()
            _ = exited.wait(timeout: .now() + 5)
            throw FixtureError("vault did not exit within \(seconds) s; stdout: \(stdout.debugDescription)")
        }
        process.waitUntilExit()
        guard readers.wait(timeout: .now() + 30) == .success else {
            throw FixtureError("the output of vault did not end")
        }
        return lock.withLock {
            RunResult(
                status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
                stderr: String(decoding: err, as: UTF8.self))
        }
    }
}
