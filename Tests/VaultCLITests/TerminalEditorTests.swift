import Foundation
import Testing
import VaultTestSupport

/// The person's own terminal editor, for real: `vim -u NONE` and `nano` on a pseudo-terminal,
/// started by `vault write`, `today` and `edit` from an interactive bash with job control (each
/// command a job in the terminal's foreground, as in a person's terminal), keys typed as a
/// person types them (`Fixtures/terminal_session.py`).
///
/// The editor must get the terminal (it runs in the terminal's foreground process group, never
/// stopped by SIGTTIN), Ctrl-C is the editor's (a SIGINT to the foreground group does not end
/// vault), the terminal's settings afterwards are those before (`stty -a`), what was typed is
/// committed, and other vault commands work while the editor is open (no lock held).
@Suite(.serialized) struct TerminalEditorTests {
    /// A step of `terminal_session.py`.
    enum Step {
        case type(String)
        case expect(String)
        case pause(Double)
        /// Waits until the program is in that state (`S`: waiting for keys) and notes its group.
        case state(String, of: String)
        case signal(String)
        /// A command run beside the terminal, as from another window.
        case beside(String)

        var json: [String: Any] {
            switch self {
            case .type(let keys): ["type": keys]
            case .expect(let pattern): ["expect": pattern]
            case .pause(let seconds): ["pause": seconds]
            case .state(let state, let program): ["state": state, "of": program]
            case .signal(let name): ["signal": name]
            case .beside(let command): ["run": command]
            }
        }
    }

    struct Session {
        var status: Int32
        var stderr: String
        /// What the terminal showed, escape sequences left out.
        var screen: String
    }

    static var installed: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/vim")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/nano")
    }

    /// The person's home (and the steps, the transcript, `stty -a` before and after), outside the vault.
    let homes = TemporaryDirectory("terminal-home")

    /// Runs `steps` in a terminal whose shell is in `vault` with the built `vault` on PATH, and
    /// the vault's folder as `$V`.
    func session(_ steps: [Step], in vault: TemporaryDirectory) throws -> Session {
        try #require(Self.installed, "vim and nano are not installed (scripts/test.sh installs them from Debian's packages)")
        let home = homes.path
        let stepsFile = home + "/steps.json"
        let transcript = home + "/transcript"
        let opening: [Step] = [.type("cd \"$V\" && stty -a > \"$HOME/stty-before\"; echo READY-$?\r"), .expect("READY-0")]
        let closing: [Step] = [.type("stty -a > \"$HOME/stty-after\"; echo FINISHED-$?\r"), .expect("FINISHED-0")]
        let data = try JSONSerialization.data(withJSONObject: (opening + steps + closing).map(\.json))
        try data.write(to: URL(fileURLWithPath: stepsFile))
        let process = vaultProcess([], in: vault.path)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Project.root + "/Tests/Fixtures/terminal_session.py", stepsFile, transcript, "30", "100"]
        let bin = URL(fileURLWithPath: Project.vaultExecutable).deletingLastPathComponent().path
        let path = process.environment?["PATH"] ?? "/usr/bin:/bin"
        process.environment?["PATH"] = bin + ":" + path
        process.environment?["HOME"] = home
        process.environment?["XDG_CONFIG_HOME"] = home + "/.config"
        process.environment?["V"] = vault.path
        process.environment?["TERM"] = "xterm"
        process.environment?["VISUAL"] = nil
        process.environment?["EDITOR"] = nil
        let r = try run(process)
        let raw = (try? Data(contentsOf: URL(fileURLWithPath: transcript))) ?? Data()
        let screen = String(decoding: raw, as: UTF8.self)
            .replacingOccurrences(of: "\u{1B}\\[[0-?]*[ -/]*[@-~]", with: "", options: .regularExpression)
        return Session(status: r.status, stderr: r.stderr, screen: screen)
    }

    /// The terminal's settings before and after, as `stty -a` printed them.
    func expectTerminalRestored(_ vault: TemporaryDirectory, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let before = try homes.readText("stty-before")
        let after = try homes.readText("stty-after")
        #expect(!before.isEmpty && before == after, "stty -a differs:\n\(before)\n---\n\(after)", sourceLocation: sourceLocation)
    }

    /// The editor's process group was the terminal's foreground group (the `state` step's note).
    func expectEditorInForeground(_ s: Session, _ program: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let note = s.screen.firstMatch(of: /\[(\S+): state (\S+), group (\d+), terminal's foreground group (-?\d+)\]/)
        #expect(note?.output.1 == Substring(program), "no state note: \(s.screen.suffix(800))", sourceLocation: sourceLocation)
        #expect(note?.output.3 == note?.output.4, "the editor is not in the foreground: \(note?.output.0 ?? "")", sourceLocation: sourceLocation)
    }

    func vaultWithHistory() throws -> TemporaryDirectory {
        let vault = try Project.copyOfSampleVault()
        expectSuccess(try runVault(["init", "."], in: vault.path))
        return vault
    }

    @Test func vimWritesANewEntryAndCtrlCIsItsOwn() throws {
        let vault = try vaultWithHistory()
        let s = try session(
            [
                .type("EDITOR='vim -u NONE' vault write \"비 오는 날\"; echo DONE-$?\r"),
                .state("S", of: "vim"),
                .type("Go오늘은 하루 종일 비가 왔다.\u{1B}"),
                // Ctrl-C as the terminal sends it when a program leaves ISIG on: to the whole
                // foreground group, vault included; and as a key.
                .signal("INT"),
                .type("\u{03}"),
                .pause(0.3),
                .type(":wq\r"),
                .expect("DONE-(\\d+)"),
            ], in: vault)
        #expect(s.status == 0, "\(s.stderr)\n\(s.screen.suffix(1500))")
        expectEditorInForeground(s, "vim")
        #expect(s.screen.contains("DONE-0"), "\(s.screen.suffix(800))")
        let written = try #require(
            try FileManager.default.contentsOfDirectory(atPath: vault.path + "/diary/2026").first { $0.hasSuffix("-비-오는-날.md") })
        #expect(try vault.readText("diary/2026/" + written).contains("오늘은 하루 종일 비가 왔다."))
        #expect(try git(["status", "--porcelain"], in: vault.path) == "")
        #expect(try git(["log", "-1", "--format=%s"], in: vault.path).contains("diary: add"))
        try expectTerminalRestored(vault)
    }

    @Test func nanoEditsAnEntryWhileAnotherCommandWorks() throws {
        let vault = try vaultWithHistory()
        let entry = "diary/2026/2026-11-21-첫눈.md"
        let s = try session(
            [
                .type("EDITOR=nano vault edit \(entry); echo DONE-$?\r"),
                .state("S", of: "nano"),
                // Another window: a diary entry written while the person is still typing.
                .beside("vault write 점심 --body '김밥을 먹었다.'"),
                .type("나노에서 쓴 첫 줄\r"),
                .type("\u{18}"),  // Ctrl-X
                .expect("Save modified buffer"),
                .type("y"),
                .expect("File Name to Write"),
                .type("\r"),
                .expect("DONE-(\\d+)"),
            ], in: vault)
        #expect(s.status == 0, "\(s.stderr)\n\(s.screen.suffix(1500))")
        expectEditorInForeground(s, "nano")
        #expect(s.screen.contains("DONE-0"), "\(s.screen.suffix(800))")
        #expect(s.screen.contains("[status 0]"), "the command beside the editor failed: \(s.screen.suffix(1500))")
        #expect(try vault.readText(entry).contains("나노에서 쓴 첫 줄"))
        let subjects = try git(["log", "-2", "--format=%s"], in: vault.path)
        #expect(subjects.contains("diary: edit") && subjects.contains("diary: add"), "\(subjects)")
        #expect(try git(["status", "--porcelain"], in: vault.path) == "")
        try expectTerminalRestored(vault)
    }

    @Test func vimEditsARoomAndKeepsAMessageThatArrivedMeanwhile() throws {
        let vault = try vaultWithHistory()
        let room = "rooms/부산-여행.md"
        let s = try session(
            [
                .type("VISUAL='vim -u NONE' vault edit \(room); echo DONE-$?\r"),
                .state("S", of: "vim"),
                .beside("vault say 부산 '도착했어요'"),
                // The title line, edited by hand.
                .type("/^title:\r"),
                .type("A (수정)\u{1B}"),
                .type(":wq\r"),
                // vim sees the file changed since it read it; the person writes anyway.
                .expect("Do you really want to write to it"),
                .type("y"),
                .expect("DONE-(\\d+)"),
            ], in: vault)
        #expect(s.status == 0, "\(s.stderr)\n\(s.screen.suffix(1500))")
        expectEditorInForeground(s, "vim")
        #expect(s.screen.contains("[status 0]"), "vault say beside the editor failed: \(s.screen.suffix(1500))")
        #expect(s.screen.contains("DONE-0"), "\(s.screen.suffix(800))")
        let text = try vault.readText(room)
        #expect(text.contains("(수정)"), "the hand edit is lost")
        #expect(text.contains("도착했어요"), "the message said while the editor was open is lost")
        #expect(try git(["status", "--porcelain"], in: vault.path) == "")
        try expectTerminalRestored(vault)
    }

    @Test func todayOpensVimTwice() throws {
        let vault = try vaultWithHistory()
        let s = try session(
            [
                .type("EDITOR='vim -u NONE' vault today; echo DONE-$?\r"),
                .state("S", of: "vim"),
                .type("Go아침에 산책.\u{1B}:wq\r"),
                .expect("DONE-(\\d+)"),
                .type("EDITOR='vim -u NONE' vault today; echo AGAIN-$?\r"),
                .state("S", of: "vim"),
                .type("Go저녁에 독서.\u{1B}:wq\r"),
                .expect("AGAIN-(\\d+)"),
            ], in: vault)
        #expect(s.status == 0, "\(s.stderr)\n\(s.screen.suffix(1500))")
        #expect(s.screen.contains("DONE-0") && s.screen.contains("AGAIN-0"), "\(s.screen.suffix(800))")
        let today = try git(["log", "-2", "--format=%s"], in: vault.path)
        #expect(today.contains("diary: add") && today.contains("diary: edit"), "\(today)")
        let files = try git(["show", "--name-only", "--format=", "HEAD"], in: vault.path)
            .split(separator: "\n").map(String.init)
        let path = try #require(files.first)
        let text = try vault.readText(path)
        #expect(text.contains("아침에 산책.") && text.contains("저녁에 독서."))
        try expectTerminalRestored(vault)
    }

    /// A GUI editor that forks its window and returns at once unless given `--wait`, as `code`
    /// does: without the flag vault says which flag to give; with it the edit is committed.
    @Test func aWindowEditorThatReturnsAtOnceIsExplained() throws {
        let vault = try vaultWithHistory()
        let bin = homes.path + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        let code = bin + "/code"
        try """
            #!/bin/sh
            # Opens "a window" (a background process) that saves after a moment; waits for it
            # only when told to.
            if [ "$1" = "--wait" ]; then shift; sleep 0.2; printf '창에서 쓴 줄\\n' >> "$1"; exit 0; fi
            ( sleep 3; printf 'late\\n' >> "$1" ) >/dev/null 2>&1 &
            exit 0
            """.write(toFile: code, atomically: true, encoding: .utf8)
        chmod(code, 0o755)
        let entry = "diary/2026/2026-11-21-첫눈.md"
        let before = try vault.read(entry)
        let env = ["PATH": bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? ""), "EDITOR": "code"]
        let r = try runVault(["edit", entry], in: vault.path, environment: env)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("'code' returned at once") && r.stderr.contains("'code --wait'"), "\(r.stderr)")
        #expect(r.stdout.contains("No change"), "\(r.stdout)")
        #expect(try vault.read(entry) == before)
        // An editor vault does not know by name is explained too when it is back within a second.
        let other = bin + "/quick-window"
        try "#!/bin/sh\nexit 0\n".write(toFile: other, atomically: true, encoding: .utf8)
        chmod(other, 0o755)
        let quick = try runVault(["edit", entry], in: vault.path, environment: env.merging(["EDITOR": "quick-window"]) { $1 })
        #expect(quick.stderr.contains("give it its flag to wait"), "\(quick.stderr)")
        let waited = try runVault(["edit", entry], in: vault.path, environment: env.merging(["EDITOR": "code --wait"]) { $1 })
        #expect(waited.status == 0, "\(waited.stderr)")
        #expect(!waited.stderr.contains("returned at once"), "\(waited.stderr)")
        #expect(try vault.readText(entry).contains("창에서 쓴 줄"))
        #expect(try git(["log", "-1", "--format=%s"], in: vault.path).contains("diary: edit"))
    }

    @Test func anEditorThatIsNotInstalledIsNamed() throws {
        let vault = try vaultWithHistory()
        let entry = "diary/2026/2026-11-21-첫눈.md"
        let before = try vaultFiles(vault.path)
        let r = try runVault(["edit", entry], in: vault.path, environment: ["EDITOR": "no-such-editor-here --flag"])
        // The shell says it first (`sh: 1: no-such-editor-here: not found`), then vault.
        #expect(r.status == 1)
        #expect(
            r.stderr.contains("vault: error: cannot start the editor 'no-such-editor-here --flag'")
                && r.stderr.contains("VISUAL or EDITOR"), "\(r.stderr)")
        #expect(try vaultFiles(vault.path) == before)
    }
}
