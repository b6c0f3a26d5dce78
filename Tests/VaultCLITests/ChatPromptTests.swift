import Foundation
import Testing
import VaultCore
@testable import VaultCLI
import VaultTestSupport

/// The chat prompt (`vault chat ROOM` on a terminal, no message) through a real pseudo-terminal
/// that is vault's controlling terminal (Python's `pty.fork`), so Ctrl-C typed there is a SIGINT.
/// The driver waits for each expected text (60 s at most) before it types the next keys (Ctrl-D
/// only once the next prompt shows: typed while the terminal is still in its ordinary mode, at
/// the start of a line, the terminal turns it into an end of input that no program reads); keys
/// written `<SIGTERM>` send that signal to the process instead. Replies that stream come from the
/// loopback OpenAI server (Tests/Fixtures/openai_server.py).
@Suite struct ChatPromptTests {
    /// argv[1]: JSON [[text to wait for, keys to type], …]; argv[2:]: the command (found on the
    /// PATH). Prints all the terminal showed, then "\nSTATUS n" (128 + the signal's number when a
    /// signal ended it). The terminal is 120 columns by 40 lines.
    static let driver = """
        import os, sys, pty, json, signal, fcntl, termios, struct
        # The test process may block signals, and a mask is inherited: the alarm must ring.
        signal.pthread_sigmask(signal.SIG_SETMASK, [])
        steps = json.loads(sys.argv[1])
        pid, fd = pty.fork()
        if pid == 0:
            os.execvp(sys.argv[2], sys.argv[2:])
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        out, seen = b"", 0
        class Late(BaseException):
            pass
        def ring(*_):
            raise Late()
        signal.signal(signal.SIGALRM, ring)
        signal.alarm(60)
        def more():
            global out
            try:
                piece = os.read(fd, 65536)
            except OSError:
                return False
            out += piece
            return bool(piece)
        try:
            for expect, keys in steps:
                while out.find(expect.encode(), seen) < 0:
                    if not more():
                        break
                at = out.find(expect.encode(), seen)
                if at < 0:
                    out += b"\\nNEVER SAW " + expect.encode()
                    break
                seen = at + len(expect.encode())
                if keys.startswith("<SIG"):
                    os.kill(pid, getattr(signal, keys[1:-1]))
                else:
                    os.write(fd, keys.encode())
            while more():
                pass
        except Late:
            out += b"\\nTIMED OUT waiting for " + expect.encode()
            os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        code = os.waitstatus_to_exitcode(status)
        sys.stdout.buffer.write(out + b"\\nSTATUS " + str(code if code >= 0 else 128 - code).encode())
        """

    struct Session {
        var output: String
        var status: Int32?
    }

    /// `vault chat` on the sample vault's offline room (with `arguments` after the room), typing
    /// `steps` on its terminal.
    func chat(
        _ steps: [(String, String)], in vault: TemporaryDirectory, state: TemporaryDirectory, arguments: [String] = []
    ) throws -> Session {
        try ChatPromptTests.drive(
            steps, [Project.vaultExecutable, "chat", "독서-모임-발제문"] + arguments, in: vault.path,
            environment: ["XDG_STATE_HOME": state.path, "XDG_CONFIG_HOME": state.path + "/config", "VISUAL": "true"],
            scratch: state)
    }

    /// Runs `command` on a new pseudo-terminal in `directory`, typing `steps` (the driver above).
    static func drive(
        _ steps: [(String, String)], _ command: [String], in directory: String, environment: [String: String],
        scratch: TemporaryDirectory
    ) throws -> Session {
        let script = scratch.path + "/pty-driver.py"
        try ChatPromptTests.driver.write(toFile: script, atomically: true, encoding: .utf8)
        let json = try JSONSerialization.data(withJSONObject: steps.map { [$0.0, $0.1] })
        let process = vaultProcess([], in: directory, environment: environment)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, String(decoding: json, as: UTF8.self)] + command
        let r = try run(process, stdin: nil)
        let output = r.stdout.replacingOccurrences(of: "\r\n", with: "\n")
        let status = output.components(separatedBy: "\nSTATUS ").last.flatMap { Int32($0) }
        return Session(output: output, status: status)
    }

    func messages(_ vault: TemporaryDirectory) throws -> [ParsedMessage] {
        parseRoom(try vault.readText(offlineSampleRoom)).messages
    }

    @Test func historyIsKeptOutsideTheVaultAndRecalledWithTheUpArrow() throws {
        let vault = try Project.copyOfSampleVault()
        let state = TemporaryDirectory()
        let before = try messages(vault).count
        let first = try chat([("you> ", "remembered\r"), ("you> ", "\u{04}")], in: vault, state: state)
        #expect(first.status == 0, "\(first.output)")
        let history = try String(contentsOfFile: state.path + "/vault/history", encoding: .utf8)
        #expect(history.contains("remembered"), "\(history)")
        // The up arrow brings the last entry back; Enter sends it again.
        let second = try chat([("you> ", "\u{1B}[A\r"), ("you> ", "\u{04}")], in: vault, state: state)
        #expect(second.status == 0, "\(second.output)")
        let now = try messages(vault)
        try #require(now.count == before + 4, "\(second.output)")
        #expect(now[before].body == "remembered" && now[before + 2].body == "remembered")
        #expect(!FileManager.default.fileExists(atPath: vault.path + "/history"))
    }

    @Test func slashCommandsChangeTheRoomAndAnErrorKeepsTheSession() throws {
        let vault = try Project.copyOfSampleVault()
        let state = TemporaryDirectory()
        let before = try messages(vault).count
        let s = try chat(
            [
                ("you> ", "/help\r"), ("/system TEXT", "/model prompt-model-7\r"), ("model set", "/system Be brief.\r"),
                ("system set", "/retry\r"), ("vault: error:", "/nonsense\r"), ("unknown command", "/edit\r"),
                ("you> ", "two \\\r"), ("...> ", "lines\r"), ("(saved to", "/exit\r"),
            ], in: vault, state: state)
        #expect(s.status == 0, "\(s.output)")
        let room = try RoomFile(parsing: Array(try vault.readText(offlineSampleRoom).utf8), path: offlineSampleRoom)
        #expect(room.frontMatter?.string("model") == "prompt-model-7")
        #expect(room.frontMatter?.string("system") == "Be brief.")
        let now = try messages(vault)
        try #require(now.count == before + 2, "\(s.output)")
        #expect(now[before].body == "two \nlines")
        let subjects = try git(["log", "--format=%s"], in: vault.path)
        #expect(subjects.contains("set model") && subjects.contains("set system"), "\(subjects)")
    }

    @Test func ctrlCAtThePromptDropsTheLineAndTheSessionGoesOn() throws {
        let vault = try Project.copyOfSampleVault()
        let state = TemporaryDirectory()
        let before = try messages(vault).count
        let s = try chat(
            [
                ("you> ", "half a mess"), ("half a mess", "\u{03}"), (ChatPrompt.leaveHint, "\u{03}"),
                ("you> ", "kept\r"), ("(saved to", ""), ("you> ", "\u{04}"),
            ], in: vault, state: state)
        #expect(s.status == 0, "\(s.output)")
        // The hint once, though Ctrl-C came twice.
        #expect(s.output.components(separatedBy: ChatPrompt.leaveHint).count == 2, "\(s.output)")
        let now = try messages(vault)
        try #require(now.count == before + 2, "\(s.output)")
        #expect(now[before].body == "kept", "what was typed before Ctrl-C is dropped")
        // The terminal may echo "^D"; the shell's next prompt starts on a line of its own.
        #expect(s.output.hasSuffix("\n\nSTATUS 0"), "\(s.output)")
        #expect(try git(["status", "--porcelain"], in: vault.path).isEmpty)
    }

    @Test func ctrlDAloneEndsTheSessionOnANewLineAndChangesNothing() throws {
        let vault = try Project.copyOfSampleVault()
        let state = TemporaryDirectory()
        let before = try vault.readText(offlineSampleRoom)
        let ended = try chat([("you> ", "\u{04}")], in: vault, state: state)
        #expect(ended.status == 0, "\(ended.output)")
        #expect(ended.output.contains("you> ") && ended.output.hasSuffix("\n\nSTATUS 0"), "\(ended.output)")
        #expect(try vault.readText(offlineSampleRoom) == before)
    }

    // MARK: Bracketed paste

    @Test func aPasteOfThreeLinesIsOneMessageWithItsLineBreaks() throws {
        let vault = try Project.copyOfSampleVault()
        let state = TemporaryDirectory()
        let before = try messages(vault).count
        // A terminal sends the pasted lines' ends as carriage returns, between the paste's marks.
        let paste = "\u{1B}[200~첫째 줄: 부산\r둘째 줄\twith a tab \\\r셋째 줄\r\u{1B}[201~"
        let s = try chat(
            [("you> ", "I pasted: " + paste), ("셋째 줄", "\r"), ("(saved to", ""), ("you> ", "\u{04}")],
            in: vault, state: state)
        #expect(s.status == 0, "\(s.output)")
        let now = try messages(vault)
        try #require(now.count == before + 2, "one message and its reply: \(now.map(\.body))")
        #expect(now[before].header.role == "user")
        #expect(now[before].body == "I pasted: 첫째 줄: 부산\n둘째 줄\twith a tab \\\n셋째 줄", "\(now[before].body)")
        // Bracketed paste is asked for while a line is read, and switched off last.
        let on = try #require(s.output.range(of: LineEditor.pasteOn, options: .backwards), "\(s.output)")
        let off = try #require(s.output.range(of: LineEditor.pasteOff, options: .backwards), "\(s.output)")
        #expect(off.lowerBound > on.lowerBound, "\(s.output)")
        #expect(try git(["status", "--porcelain"], in: vault.path).isEmpty)
    }

    // MARK: Ctrl-C and other signals during a reply

    /// The sample vault with a `local` provider for the loopback OpenAI server.
    func vaultTalkingTo(_ server: FakeOpenAIServer) throws -> TemporaryDirectory {
        let vault = try Project.copyOfSampleVault()
        let config = try vault.readText("vault.yml") + "providers:\n  local:\n    base_url: \(server.baseURL)\n"
        try config.write(toFile: vault.path + "/vault.yml", atomically: true, encoding: .utf8)
        return vault
    }

    @Test func ctrlCDuringAReplyKeepsWhatArrivedAndThePromptReturns() throws {
        let server = try FakeOpenAIServer(expectedKey: nil)
        defer { server.stop() }
        let vault = try vaultTalkingTo(server)
        let state = TemporaryDirectory()
        let before = try messages(vault).count
        // `stall` sends its first piece, then nothing for 30 s; `ok` answers at once.
        let s = try chat(
            [
                ("you> ", "천천히 답해 줘\r"), ("부분적인", "\u{03}"), ("(interrupted", ""),
                ("you> ", "/model ok\r"), ("model set", "다시 물어볼게\r"), ("(saved to", ""), ("you> ", "\u{04}"),
            ], in: vault, state: state, arguments: ["--provider", "local", "--model", "stall"])
        #expect(s.status == 0, "the session went on after Ctrl-C: \(s.output)")
        #expect(!s.output.contains("vault: error"), "\(s.output)")
        let now = try messages(vault)
        try #require(now.count == before + 4, "\(now.map(\.body))")
        #expect(now[before].body == "천천히 답해 줘")
        #expect(now[before + 1].header.role == "assistant" && now[before + 1].body == "부분적인 ")
        #expect(now[before + 1].header.attributes["status"] == "interrupted")
        #expect(now[before + 2].body == "다시 물어볼게")
        #expect(now[before + 3].header.role == "assistant" && now[before + 3].header.attributes["status"] == nil)
        #expect(now[before + 3].body.hasPrefix("안녕하세요!"), "\(now[before + 3].body)")
        let subjects = try git(["log", "--format=%s"], in: vault.path).split(separator: "\n").map(String.init)
        try #require(subjects.count >= 3, "\(subjects)")
        #expect(subjects[0] == "chat: 독서 모임 발제문 (+2 messages)", "\(subjects)")
        #expect(subjects[1].hasSuffix("set model"), "\(subjects)")
        #expect(subjects[2].hasPrefix("chat: 독서 모임 발제문 (+2 messages, reply interrupted"), "\(subjects)")
        #expect(try git(["status", "--porcelain"], in: vault.path).isEmpty)
    }

    @Test func ctrlCBeforeTheFirstByteLeavesTheMessageCommittedUnansweredAndThePromptReturns() throws {
        let server = try FakeOpenAIServer(expectedKey: nil)
        defer { server.stop() }
        let vault = try vaultTalkingTo(server)
        let state = TemporaryDirectory()
        let before = try messages(vault).count
        // `no-answer` takes the request and never sends a byte: vault says it is waiting.
        let s = try chat(
            [
                ("you> ", "아무도 없나요?\r"), ("waiting for the server", "\u{03}"),
                ("(interrupted before the reply began", ""), ("you> ", "/exit\r"),
            ], in: vault, state: state, arguments: ["--provider", "local", "--model", "no-answer"])
        #expect(s.status == 0, "\(s.output)")
        let text = try vault.readText(offlineSampleRoom)
        let now = parseRoom(text).messages
        try #require(now.count == before + 1, "\(now.map(\.body))")
        #expect(now[before].header.role == "user" && now[before].body == "아무도 없나요?")
        #expect(!text.contains("interrupted"), "no reply header, not even an empty one")
        let subjects = try git(["log", "--format=%s"], in: vault.path)
        #expect(subjects.hasPrefix("chat: 독서 모임 발제문 (+1 message, no reply: interrupted"), "\(subjects)")
        #expect(try git(["show", "HEAD:" + offlineSampleRoom], in: vault.path) == text)
        #expect(try git(["status", "--porcelain"], in: vault.path).isEmpty)
    }

    /// SIGTERM during a reply, or SIGHUP at the prompt right after a Ctrl-C was taken back: the
    /// session ends with the signal's status, what was in progress committed.
    @Test(arguments: [("SIGTERM", 143), ("SIGHUP", 129)])
    func termAndHangUpStillEndTheSession(signal: String, status: Int32) throws {
        let server = try FakeOpenAIServer(expectedKey: nil)
        defer { server.stop() }
        let vault = try vaultTalkingTo(server)
        let state = TemporaryDirectory()
        let before = try messages(vault).count
        let steps: [(String, String)] =
            signal == "SIGTERM"
            ? [("you> ", "끝까지 기다려\r"), ("부분적인", "<SIGTERM>")]
            : [("you> ", "끝까지 기다려\r"), ("부분적인", "\u{03}"), ("(interrupted", ""), ("you> ", "<SIGHUP>")]
        let s = try chat(steps, in: vault, state: state, arguments: ["--provider", "local", "--model", "stall"])
        #expect(s.status == status, "\(s.output)")
        let now = try messages(vault)
        try #require(now.count == before + 2, "\(now.map(\.body))")
        #expect(now[before + 1].body == "부분적인 " && now[before + 1].header.attributes["status"] == "interrupted")
        #expect(try git(["status", "--porcelain"], in: vault.path).isEmpty)
        // Bracketed paste was left off.
        if let on = s.output.range(of: LineEditor.pasteOn, options: .backwards) {
            let off = s.output.range(of: LineEditor.pasteOff, options: .backwards)
            #expect(off.map { $0.lowerBound > on.lowerBound } == true, "\(s.output)")
        }
    }
}
