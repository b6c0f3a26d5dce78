import Foundation
import Testing
import VaultCore
import VaultTestSupport

/// The chat prompt (`vault chat ROOM` on a terminal, no message) through a real pseudo-terminal
/// that is vault's controlling terminal (Python's `pty.fork`), so Ctrl-C typed there is a SIGINT.
/// The driver waits for each expected text (60 s at most) before it types the next keys.
@Suite struct ChatPromptTests {
    /// argv[1]: JSON [[text to wait for, keys to type], …]; argv[2:]: the command. Prints all the
    /// terminal showed, then "\nSTATUS n" (128 + the signal's number when a signal ended it).
    static let driver = """
        import os, sys, pty, json, signal
        signal.alarm(60)
        steps = json.loads(sys.argv[1])
        pid, fd = pty.fork()
        if pid == 0:
            os.execv(sys.argv[2], sys.argv[2:])
        out, seen = b"", 0
        def more():
            global out
            try:
                piece = os.read(fd, 65536)
            except OSError:
                return False
            out += piece
            return bool(piece)
        for expect, keys in steps:
            while out.find(expect.encode(), seen) < 0:
                if not more():
                    break
            at = out.find(expect.encode(), seen)
            if at < 0:
                out += b"\\nNEVER SAW " + expect.encode()
                break
            seen = at + len(expect.encode())
            os.write(fd, keys.encode())
        while more():
            pass
        _, status = os.waitpid(pid, 0)
        code = os.waitstatus_to_exitcode(status)
        sys.stdout.buffer.write(out + b"\\nSTATUS " + str(code if code >= 0 else 128 - code).encode())
        """

    struct Session {
        var output: String
        var status: Int32?
    }

    /// `vault chat` on the sample vault's offline room, typing `steps` on its terminal.
    func chat(_ steps: [(String, String)], in vault: TemporaryDirectory, state: TemporaryDirectory) throws -> Session {
        let script = state.path + "/pty-driver.py"
        try ChatPromptTests.driver.write(toFile: script, atomically: true, encoding: .utf8)
        let json = try JSONSerialization.data(withJSONObject: steps.map { [$0.0, $0.1] })
        let process = vaultProcess(
            [], in: vault.path,
            environment: ["XDG_STATE_HOME": state.path, "XDG_CONFIG_HOME": state.path + "/config", "VISUAL": "true"])
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", script, String(decoding: json, as: UTF8.self), Project.vaultExecutable,
            "chat", "독서-모임-발제문",
        ]
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

    @Test func ctrlCAtThePromptEndsTheSessionAndCtrlDEndsItOnANewLine() throws {
        let vault = try Project.copyOfSampleVault()
        let state = TemporaryDirectory()
        let before = try vault.readText(offlineSampleRoom)
        let interrupted = try chat([("you> ", "half a mess"), ("half a mess", "\u{03}")], in: vault, state: state)
        #expect(interrupted.status == 130, "\(interrupted.output)")
        #expect(try vault.readText(offlineSampleRoom) == before)
        let ended = try chat([("you> ", "\u{04}")], in: vault, state: state)
        #expect(ended.status == 0, "\(ended.output)")
        // The terminal may echo "^D"; the shell's next prompt starts on a line of its own.
        #expect(ended.output.contains("you> ") && ended.output.hasSuffix("\n\nSTATUS 0"), "\(ended.output)")
        #expect(try vault.readText(offlineSampleRoom) == before)
    }
}
