import Foundation
import Testing
import VaultTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// `vault ui` on a real terminal: tmux (`TmuxTerminal`) runs bash, the test types `vault ui` at
/// its prompt and then keys, as a person does, and reads the screen as text. The vaults are
/// copies of `sample-vault/` made git repositories; replies come from the loopback OpenAI server
/// (`Tests/Fixtures/openai_server.py`); the editor is the real vim.
@Suite(.serialized) struct VaultUIEndToEndTests {
    /// The moment the app takes as now in the screens compared as text (`VAULT_UI_NOW`).
    static let now = "2026-11-23T10:00:00+09:00"

    /// A committed copy of the sample vault in `locale`; with a server, a `local` provider for
    /// it and `model` as the vault's model.
    func vault(locale: String = "ko_KR", zone: String = "Asia/Seoul", server: FakeOpenAIServer? = nil, model: String = "ok")
        throws -> TemporaryDirectory
    {
        let dir = try Project.copyOfSampleVault()
        var config = try dir.readText("vault.yml")
        config = config.replacingOccurrences(of: "locale: ko_KR", with: "locale: \(locale)")
            .replacingOccurrences(of: "time_zone: Asia/Seoul", with: "time_zone: \(zone)")
        if let server {
            config = config.replacingOccurrences(of: "provider: offline", with: "provider: local")
                .replacingOccurrences(of: "model: echo", with: "model: \(model)")
            config += "providers:\n  local:\n    base_url: \(server.baseURL)\n"
        }
        try dir.write("vault.yml", config)
        if server != nil {
            // A room of the vault's model (the sample rooms name their own providers).
            try dir.write(
                "rooms/테스트-대화.md",
                "---\ntitle: 테스트 대화\ncreated: 2026-11-20T09:00:00+09:00\n---\n\n"
                    + "<!-- vault:prompt · write your next message below this line, then run `vault chat` -->\n")
        }
        try git(["init", "-q"], in: dir.path)
        try git(["add", "-A"], in: dir.path)
        try git(["-c", "user.name=Test", "-c", "user.email=test@example.com", "commit", "-qm", "sample"], in: dir.path)
        return dir
    }

    /// The screen compared with `Tests/Fixtures/ui-screens/NAME.txt`; `VAULT_UPDATE_SCREENS=1`
    /// writes it instead (then read it before committing).
    func expectScreen(_ terminal: TmuxTerminal, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let path = Project.root + "/Tests/Fixtures/ui-screens/" + name + ".txt"
        if ProcessInfo.processInfo.environment["VAULT_UPDATE_SCREENS"] == "1" {
            try Self.normalized(terminal.screen()).write(toFile: path, atomically: true, encoding: .utf8)
            return
        }
        let golden = try String(contentsOfFile: path, encoding: .utf8)
        // tmux can be read between two writes of one redraw (the transcript drawn, the footer not
        // yet): the screen is read again until it settles on the golden or the deadline passes.
        let settled = try? terminal.waitUntil("the screen of \(name).txt", seconds: 5) { Self.normalized($0) == golden }
        let text = Self.normalized(try settled ?? terminal.screen())
        #expect(text == golden, "the screen differs from \(name).txt:\n\(text)", sourceLocation: sourceLocation)
    }

    /// A screen as the golden files keep it: no trailing blanks on a line, one newline at the end.
    static func normalized(_ screen: String) -> String {
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression) }
        var text = lines.joined(separator: "\n")
        while text.hasSuffix("\n") { text.removeLast() }
        return text + "\n"
    }

    /// The shell's terminal settings, as `stty -g` prints them there.
    func settings(_ terminal: TmuxTerminal, into file: String) throws -> String {
        try? FileManager.default.removeItem(atPath: file)
        try terminal.runLine("stty -g > \(file)")
        try waitUntil("stty to write \(file)") { ((try? String(contentsOfFile: file, encoding: .utf8)) ?? "").hasSuffix("\n") }
        return try String(contentsOfFile: file, encoding: .utf8)
    }

    // MARK: The screens

    @Test func theRoomsARoomTheDiaryAndSearchInKorean() throws {
        let dir = try vault()
        let terminal = try TmuxTerminal(directory: dir.path, environment: ["VAULT_UI_NOW": Self.now])
        let before = try settings(terminal, into: dir.path + "/.git/stty-before")
        try terminal.runLine("vault ui")
        try terminal.waitFor("부산 여행")
        #expect(try terminal.pane("#{alternate_on}") == "1")
        try expectScreen(terminal, "rooms-ko")

        // A room: its transcript from the end, with a divider where the day changes.
        try terminal.press("Down", "Down", "Enter")
        var screen = try terminal.waitFor("2026년 11월 9일 월요일")
        #expect(screen.contains("─── 2026년 11월 9일 월요일 ───"))
        try expectScreen(terminal, "room-ko")
        for _ in 0..<30 { try terminal.press("PageUp") }
        try terminal.waitFor("2026년 10월 28일 수요일")

        // The diary with the month's calendar.
        try terminal.press("Escape")
        try terminal.waitFor("↑↓ move")
        try terminal.press("Tab")
        try terminal.waitFor("첫눈")
        try expectScreen(terminal, "diary-ko")

        // Search as you type; Enter jumps to the message in its room.
        try terminal.type("/")
        try terminal.type("감천")
        try terminal.waitUntil("search hits for 감천") { $0.contains("부산 여행") && $0.contains("감천") }
        try expectScreen(terminal, "search-ko")
        try terminal.press("Enter")
        screen = try terminal.waitFor("── message ")
        #expect(screen.contains("부산 여행"))
        #expect(screen.contains("감천"))

        // q from the room's compose line is a letter; Esc goes back, q quits.
        try terminal.press("Escape")
        try terminal.waitFor("↑↓ move")
        try terminal.type("q")
        try terminal.waitForThePrompt()
        #expect(try terminal.pane("#{alternate_on}") == "0")
        #expect(try terminal.pane("#{cursor_flag}") == "1")
        #expect(try settings(terminal, into: dir.path + "/.git/stty-after") == before)
        #expect(try git(["status", "--porcelain"], in: dir.path).isEmpty)
    }

    @Test func theRoomsAndARoomInEnglish() throws {
        let dir = try vault(locale: "en_US", zone: "America/New_York")
        let terminal = try TmuxTerminal(directory: dir.path, environment: ["VAULT_UI_NOW": "2026-11-22T20:00:00-05:00"])
        try terminal.runLine("vault ui")
        try terminal.waitFor("SF trip packing list")
        try expectScreen(terminal, "rooms-en")
        try terminal.press("Down", "Down", "Enter")
        let screen = try terminal.waitFor("── message ")
        #expect(screen.contains("Monday, November 9, 2026"))
        try expectScreen(terminal, "room-en")
        try terminal.press("Escape")
        try terminal.waitFor("↑↓ move")
        try terminal.press("Tab")
        try terminal.waitFor("November 2026")
        try expectScreen(terminal, "diary-en")
        try terminal.type("q")
        try terminal.waitForThePrompt()
    }

    @Test func vaultAloneOnATerminalIsTheAppAndIntoAPipeTheHelp() throws {
        let dir = try vault()
        let terminal = try TmuxTerminal(directory: dir.path)
        try terminal.runLine("vault")
        try terminal.waitFor("부산 여행")
        #expect(try terminal.pane("#{alternate_on}") == "1")
        try terminal.type("q")
        try terminal.waitForThePrompt()
        try terminal.runLine("vault | grep USAGE")
        try terminal.waitFor("USAGE: vault <subcommand>")
        #expect(try terminal.waitForThePrompt().contains("USAGE: vault <subcommand>"))
        #expect(try terminal.pane("#{alternate_on}") == "0")
    }

    @Test func aLongRoomOpensAtItsEndAndPageUpReadsBackToItsStart() throws {
        let dir = try vault()
        // 600 messages: more than the app reads when it opens a room (from the end).
        var room = "---\ntitle: 긴 방\ncreated: 2026-10-01T09:00:00+09:00\n---\n"
        for i in 1...600 {
            let minute = String(format: "%02d", i % 60)
            let hour = String(format: "%02d", 9 + i / 60)
            room += "\n## 🧑 user · 2026년 10월 1일 목요일 <!-- 2026-10-01T\(hour):\(minute):00+09:00 m-\(String(format: "%012d", i)) -->\n\n"
            room += "메시지 번호 \(i)\n"
        }
        try dir.write("rooms/긴-방.md", room)
        try git(["add", "-A"], in: dir.path)
        try git(["-c", "user.name=Test", "-c", "user.email=test@example.com", "commit", "-qm", "long"], in: dir.path)
        let terminal = try TmuxTerminal(directory: dir.path)
        try terminal.runLine("vault ui 긴-방")
        let screen = try terminal.waitFor("메시지 번호 600")
        #expect(!screen.contains("메시지 번호 1\n"))
        for _ in 0..<200 { try terminal.press("PageUp") }
        try terminal.waitFor("메시지 번호 1\n", seconds: 30)
        try terminal.press("End")
        try terminal.waitFor("메시지 번호 600")
        try terminal.press("Escape")
        try terminal.waitFor("↑↓ move")
        try terminal.type("q")
        try terminal.waitForThePrompt()
    }

    @Test func withoutColorTheScreenHasNoColorsButKeepsBoldAndReverse() throws {
        let dir = try vault()
        let terminal = try TmuxTerminal(directory: dir.path, environment: ["NO_COLOR": "1"])
        try terminal.runLine("vault ui")
        try terminal.waitFor("부산 여행")
        let styled = try terminal.tmux(["capture-pane", "-p", "-e"])
        // SGR colors are 30–38, 40–48 and 90–97; attributes 1 (bold), 2 (dim), 7 (reverse).
        var colors: [String] = []
        for sequence in styled.components(separatedBy: "\u{1B}[").dropFirst() {
            guard let end = sequence.firstIndex(of: "m") else { continue }
            let parameters = sequence[..<end].split(separator: ";").compactMap { Int($0) }
            if parameters.contains(where: { (30...38).contains($0) || (40...48).contains($0) || (90...97).contains($0) }) {
                colors.append(String(sequence[..<end]))
            }
        }
        #expect(colors.isEmpty, "\(colors)")
        #expect(styled.contains("\u{1B}[7m") || styled.contains(";7m") || styled.contains("[7;"), "the selected row in reverse")
        try terminal.type("q")
    }

    // MARK: A reply

    /// The app open on the sample vault's 테스트-대화, its replies from `server`'s `model`.
    func testRoom(server: FakeOpenAIServer, model: String) throws -> (TemporaryDirectory, TmuxTerminal) {
        let dir = try vault(server: server, model: model)
        let terminal = try TmuxTerminal(directory: dir.path)
        try terminal.runLine("vault ui 테스트-대화")
        try terminal.waitFor("── message ")
        return (dir, terminal)
    }

    @Test func aMessageSentAndTheReplyStreamsInPlaceThenCommitted() throws {
        let server = try FakeOpenAIServer(expectedKey: nil)
        defer { server.stop() }
        let (dir, terminal) = try testRoom(server: server, model: "slow")
        try terminal.type("두부는 언제 넣어?")
        try terminal.press("Enter")
        // `slow` sends its first piece, waits 1.5 s, then the rest: the first piece is on the
        // screen before the reply is whole.
        var screen = try terminal.waitFor("안녕하세요!")
        #expect(!screen.contains("감천 문화 마을"))
        screen = try terminal.waitFor("감천 문화 마을")
        #expect(screen.contains("두부는 언제 넣어?"))
        try waitUntil("the turn's commit") {
            (try? git(["log", "-1", "--format=%s"], in: dir.path))?.hasPrefix("chat: 테스트 대화") == true
        }
        let room = try dir.readText("rooms/테스트-대화.md")
        #expect(room.contains("두부는 언제 넣어?") && room.contains("- 둘째 날: 감천 문화 마을"))
        #expect(try server.requests().last?.messages.last?.content == "두부는 언제 넣어?")
        try terminal.press("Escape")
        // (Esc and a key within 30 ms would be Alt and the key, as a terminal sends it.)
        try terminal.waitFor("↑↓ move")
        try terminal.type("q")
        try terminal.waitForThePrompt()
        #expect(try git(["status", "--porcelain"], in: dir.path).isEmpty)
    }

    @Test func escMidReplyKeepsWhatArrivedMarkedInterruptedAndCommitted() throws {
        let server = try FakeOpenAIServer(expectedKey: nil)
        defer { server.stop() }
        let (dir, terminal) = try testRoom(server: server, model: "forever")
        try terminal.type("끝없이 말해 줘")
        try terminal.press("Enter")
        try terminal.waitFor("the stream that never ends")
        try terminal.waitFor("Esc stops the reply")
        try terminal.press("Escape")
        let screen = try terminal.waitFor("interrupted")
        #expect(screen.contains("── message "))
        try waitUntil("the interrupted turn's commit") {
            (try? git(["log", "-1", "--format=%s"], in: dir.path))?.contains("reply interrupted") == true
        }
        let room = try dir.readText("rooms/테스트-대화.md")
        #expect(room.contains("끝없이 말해 줘"))
        #expect(room.contains("줄 000001: the stream that never ends"))
        #expect(room.contains("interrupted"))
        #expect(try git(["status", "--porcelain"], in: dir.path).isEmpty)
        // Ctrl-C during a reply stops the reply, as in `vault chat`, and the app stays.
        let commits = try git(["rev-list", "--count", "HEAD"], in: dir.path)
        try terminal.type("한 번 더")
        try terminal.press("Enter")
        try terminal.waitFor("Esc stops the reply")
        try terminal.press("C-c")
        try waitUntil("the second interrupted turn's commit") {
            (try? git(["rev-list", "--count", "HEAD"], in: dir.path)) != commits
        }
        try terminal.waitFor("── message ")
        #expect(try dir.readText("rooms/테스트-대화.md").contains("한 번 더"))
        #expect(try !TmuxTerminal.atThePrompt(terminal.screen()))
        // Still in the room, the compose line ready: Esc goes back, q quits.
        try terminal.press("Escape")
        // (Esc and a key within 30 ms would be Alt and the key, as a terminal sends it.)
        try terminal.waitFor("↑↓ move")
        try terminal.type("q")
        try terminal.waitForThePrompt()
    }

    @Test func thePaletteMakesANewRoomThatIsCommitted() throws {
        let dir = try vault()
        let terminal = try TmuxTerminal(directory: dir.path)
        try terminal.runLine("vault ui")
        try terminal.waitFor("부산 여행")
        try terminal.press("C-p")
        try terminal.type("new room")
        try terminal.waitFor("New room")
        try terminal.press("Enter")
        try terminal.waitFor("New room's title")
        try terminal.type("팔레트로 만든 방")
        try terminal.press("Enter")
        let screen = try terminal.waitFor("── message ")
        #expect(screen.hasPrefix(" 팔레트로 만든 방"))
        #expect(try dir.readText("rooms/팔레트로-만든-방.md").contains("title: 팔레트로 만든 방"))
        #expect(try git(["status", "--porcelain"], in: dir.path).isEmpty)
        #expect(try git(["log", "-1", "--format=%s"], in: dir.path).contains("팔레트로 만든 방"))
        // `?` lists the keys; any key closes the list.
        try terminal.press("Escape")
        try terminal.waitFor("↑↓ move")
        try terminal.type("?")
        try terminal.waitFor("Keys (any key closes)")
        try terminal.press("Escape")
        try terminal.waitUntil("the keys' list closed") { !$0.contains("Keys (any key closes)") }
        try terminal.type("q")
        try terminal.waitForThePrompt()
    }

    @Test func aRemoteThatCannotBeReachedIsSaidOnTheStatusLine() throws {
        let dir = try vault()
        try git(["remote", "add", "origin", "file:///nonexistent/vault-remote.git"], in: dir.path)
        let terminal = try TmuxTerminal(directory: dir.path, environment: ["VAULT_WATCH_INTERVAL": "1"])
        try terminal.runLine("vault ui")
        let screen = try terminal.waitFor("not synced")
        #expect(screen.contains("부산 여행"), "the rooms still there")
        try terminal.type("q")
        try terminal.waitForThePrompt()
    }

    @Test func aCrashSignalGivesTheTerminalBackToo() throws {
        let dir = try vault()
        // Swift's backtracer off: the signal goes straight on after the app's handler.
        let terminal = try TmuxTerminal(directory: dir.path, environment: ["SWIFT_BACKTRACE": "enable=no"])
        let before = try settings(terminal, into: dir.path + "/.git/stty-before")
        try terminal.runLine("vault ui")
        try terminal.waitFor("부산 여행")
        #expect(kill(try terminal.appProcess(), SIGABRT) == 0)
        try terminal.waitFor("signal 6")
        #expect(try terminal.pane("#{alternate_on}") == "0")
        #expect(try terminal.pane("#{cursor_flag}") == "1")
        #expect(try settings(terminal, into: dir.path + "/.git/stty-after") == before)
    }

    @Test func unreadMessagesAreMarkedInTheirSectionAndClearedOnceRead() throws {
        let clones = try twoClones()
        let said = try runVault(["say", "주말-계획", "토요일 어때?"], in: clones.bogum, environment: clones.bogumEnvironment)
        #expect(said.status == 0, "\(said.stderr)")
        let synced = try runVault(["sync"], in: clones.bogum, environment: clones.bogumEnvironment)
        #expect(synced.status == 0, "\(synced.stderr)")
        let dir = clones.ada
        // Ada's app brings it by its background sync (every second here): unread.
        let terminal = try TmuxTerminal(directory: dir.path, environment: clones.adaEnvironment)
        try terminal.runLine("vault ui")
        var screen = try terminal.waitFor("토요일 어때?", seconds: 30)
        let row = try #require(screen.split(separator: "\n").first { $0.contains("토요일 어때?") })
        #expect(row.hasPrefix("●") && row.contains("(새 메시지 1) 보검: 토요일 어때?"), "\(row)")
        #expect(row.contains("보검"), "named by the other person, as a messenger names a direct room")
        #expect(screen.contains("1:1 대화") && screen.contains("내 방"), "the sections of `vault rooms`")
        try terminal.press("Enter")
        try terminal.waitFor("── say to the room")
        try terminal.press("Escape")
        screen = try terminal.waitFor("↑↓ move")
        let read = try #require(screen.split(separator: "\n").first { $0.contains("토요일 어때?") })
        #expect(!read.hasPrefix("●") && !read.contains("새 메시지"), "\(read)")
        try terminal.type("q")
        try terminal.waitForThePrompt()
    }

    // MARK: The editor

    @Test func aDiaryEntryWrittenThroughVimFromTheDiaryTab() throws {
        let dir = try vault()
        let terminal = try TmuxTerminal(directory: dir.path, environment: ["VISUAL": "vim -u NONE -N", "EDITOR": "vim"])
        try terminal.runLine("vault ui")
        try terminal.waitFor("부산 여행")
        try terminal.press("Tab")
        try terminal.waitFor("첫눈")
        try terminal.type("w")
        // vim has the terminal: its empty lines' tildes, the app's keys gone.
        try terminal.waitUntil("vim") { $0.contains("\n~") && !$0.contains("↑↓ move") }
        try terminal.type("Go")
        try terminal.type("tmux에서 vim으로 쓴 오늘의 일기")
        try terminal.press("Escape")
        try terminal.type(":wq")
        try terminal.press("Enter")
        let screen = try terminal.waitFor("Saved")
        #expect(screen.contains("↑↓ move"))
        let entries = try git(["log", "-1", "--name-only", "--format=%s"], in: dir.path)
        #expect(entries.contains("diary/"), "\(entries)")
        let path = entries.split(separator: "\n").first { $0.hasPrefix("diary/") }.map(String.init) ?? ""
        #expect(try dir.readText(path).contains("tmux에서 vim으로 쓴 오늘의 일기"))
        #expect(try git(["status", "--porcelain"], in: dir.path).isEmpty)
        try terminal.type("q")
    }

    // MARK: The terminal

    @Test func aResizeRedrawsToTheNewWidthAndCtrlZAndFgGiveTheTerminalBackAndTakeIt() throws {
        let dir = try vault()
        let terminal = try TmuxTerminal(directory: dir.path)
        try terminal.runLine("vault ui 부산-여행")
        try terminal.waitFor("── message ")
        try terminal.resize(columns: 120, rows: 40)
        var screen = try terminal.waitUntil("the compose box 120 wide") { screen in
            screen.split(separator: "\n").contains { $0.hasPrefix("── message ") && $0.count == 120 }
        }
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count >= 40 && lines[39].contains("Enter send"), "the keys on the 40th row")
        try terminal.resize(columns: 80, rows: 24)
        // The keys' row as the app fits it to 80 columns (tmux alone would cut the wide one).
        try terminal.waitUntil("the app drawn 80 wide") { screen in
            screen.split(separator: "\n").contains { $0.hasPrefix("Enter send") && $0.hasSuffix("? more") }
        }
        try terminal.type("반쯤 쓴 말")
        try terminal.waitFor(" 반쯤 쓴 말")
        try terminal.press("C-z")
        screen = try terminal.waitFor("Stopped")
        #expect(try terminal.pane("#{alternate_on}") == "0")
        try terminal.runLine("echo shell-has-the-terminal")
        try terminal.waitFor("\nshell-has-the-terminal")
        try terminal.runLine("fg")
        screen = try terminal.waitUntil("the app back with the draft") { screen in
            screen.range(of: "── message ").map { screen[$0.upperBound...].contains("반쯤 쓴 말") } ?? false
        }
        #expect(try terminal.pane("#{alternate_on}") == "1")
        #expect(!screen.contains("shell-has-the-terminal"), "the app's screen whole, nothing of the shell's")
        try terminal.press("C-c")
        try terminal.waitForThePrompt()
        // The draft is the room's pending prompt, below its marker.
        let room = try dir.readText("rooms/부산-여행.md")
        let marker = try #require(room.range(of: "<!-- vault:prompt"))
        #expect(room[marker.upperBound...].contains("반쯤 쓴 말"))
    }

    @Test func killedWithSigkillTheShellGetsItsTerminalBackAndTheDraftComesBack() throws {
        let dir = try vault()
        let terminal = try TmuxTerminal(directory: dir.path)
        let before = try settings(terminal, into: dir.path + "/.git/stty-before")
        try terminal.runLine("vault ui 부산-여행")
        try terminal.waitFor("── message ")
        try terminal.type("죽기 전에 쓴 초안")
        let draft = dir.path + "/.vault/drafts/rooms%2F부산-여행.md.txt"
        try waitUntil("the draft saved") { (try? String(contentsOfFile: draft, encoding: .utf8)) == "죽기 전에 쓴 초안" }
        let app = try terminal.appProcess()
        #expect(kill(app, SIGKILL) == 0)
        let screen = try terminal.waitFor("signal 9")
        #expect(screen.contains("the terminal is given back"))
        #expect(try terminal.pane("#{alternate_on}") == "0")
        #expect(try terminal.pane("#{cursor_flag}") == "1")
        // No `reset`: the shell's settings are the ones it had, and it echoes what is typed.
        #expect(try settings(terminal, into: dir.path + "/.git/stty-after") == before)
        try terminal.runLine("echo back-in-the-shell")
        try terminal.waitFor("\nback-in-the-shell")
        // The app again: the draft is in the compose box.
        try terminal.runLine("vault ui 부산-여행")
        try terminal.waitUntil("the draft back in the compose box") { screen in
            guard let box = screen.range(of: "── message ") else { return false }
            return screen[box.upperBound...].contains("죽기 전에 쓴 초안")
        }
        try terminal.press("C-c")
        try terminal.waitForThePrompt()
    }

    @Test func aHangUpEndsTheAppWithTheDraftKept() throws {
        let dir = try vault()
        let terminal = try TmuxTerminal(directory: dir.path)
        try terminal.runLine("vault ui 부산-여행")
        try terminal.waitFor("── message ")
        let app = try terminal.appProcess()
        try terminal.type("끊기기 직전")
        try terminal.waitFor("끊기기 직전")
        // The terminal closes (an ssh session dropped): the shell and its jobs get SIGHUP.
        try terminal.tmux(["kill-pane"])
        try waitUntil("the app to end", seconds: 20) { kill(app, 0) != 0 }
        let room = try dir.readText("rooms/부산-여행.md")
        let marker = try #require(room.range(of: "<!-- vault:prompt"))
        #expect(room[marker.upperBound...].contains("끊기기 직전"))
    }

    @Test func aHangUpDuringAReplyStopsItKeepsWhatArrivedAndEndsTheApp() throws {
        let server = try FakeOpenAIServer(expectedKey: nil)
        defer { server.stop() }
        let (dir, terminal) = try testRoom(server: server, model: "forever")
        let app = try terminal.appProcess()
        try terminal.type("끝없이 말해 줘")
        try terminal.press("Enter")
        try terminal.waitFor("the stream that never ends")
        // The terminal closes mid-reply: the reply stops, what arrived is committed, the app ends.
        try terminal.tmux(["kill-pane"])
        try waitUntil("the app to end", seconds: 20) { kill(app, 0) != 0 }
        #expect(try git(["log", "-1", "--format=%s"], in: dir.path).contains("reply interrupted"))
        let room = try dir.readText("rooms/테스트-대화.md")
        #expect(room.contains("끝없이 말해 줘"))
        #expect(room.contains("줄 000001: the stream that never ends"))
        #expect(try git(["status", "--porcelain"], in: dir.path).isEmpty)
    }

    // MARK: Live

    /// Two machines of one shared vault: Ada's (the sample vault, `people:` Ada and 보검, a room
    /// 주말 계획 with 보검, pushed to a bare remote made with `git init --bare`) and 보검's clone.
    struct TwoClones {
        var remote: TemporaryDirectory
        var ada: TemporaryDirectory
        var folder: TemporaryDirectory
        var bogum: String
        var homes: TemporaryDirectory
        var adaEnvironment: [String: String]
        var bogumEnvironment: [String: String]
    }

    func twoClones() throws -> TwoClones {
        let remote = TemporaryDirectory("ui-remote")
        try makeBareRepository(at: remote.path + "/shared.git")
        let url = "file://" + remote.path + "/shared.git"
        let ada = try vault()
        try ada.write("vault.yml", try ada.readText("vault.yml") + "people:\n  - Ada\n  - 보검\n")
        try git(["-c", "user.name=Ada", "-c", "user.email=ada@example.com", "commit", "-qam", "people"], in: ada.path)
        let homes = TemporaryDirectory("ui-homes")
        func environment(_ person: String, _ machine: String) throws -> [String: String] {
            try homes.write(person + "/vault/config.yml", "me: \(person)\n")
            return [
                "XDG_CONFIG_HOME": homes.path + "/" + person, "VAULT_MACHINE": machine, "VAULT_WATCH_INTERVAL": "1",
                "GIT_AUTHOR_NAME": person, "GIT_COMMITTER_NAME": person,
            ]
        }
        let adaEnvironment = try environment("Ada", "ada-laptop")
        let bogumEnvironment = try environment("보검", "bogum-desktop")
        let made = try runVault(["room", "new", "주말 계획", "--with", "보검"], in: ada.path, environment: adaEnvironment)
        #expect(made.status == 0, "\(made.stderr)")
        let pushed = try runVault(["remote", "add", "origin", url], in: ada.path, environment: adaEnvironment)
        #expect(pushed.status == 0, "\(pushed.stderr)")
        let synced = try runVault(["sync"], in: ada.path, environment: adaEnvironment)
        #expect(synced.status == 0, "\(synced.stderr)")
        let folder = TemporaryDirectory("ui-clone")
        let bogum = folder.path + "/vault"
        let cloned = try runVault(["clone", url, bogum], in: folder.path, environment: bogumEnvironment)
        #expect(cloned.status == 0, "\(cloned.stderr)")
        return TwoClones(
            remote: remote, ada: ada, folder: folder, bogum: bogum, homes: homes, adaEnvironment: adaEnvironment,
            bogumEnvironment: bogumEnvironment)
    }

    @Test func twoClonesEachWithTheAppSeeEachOthersMessagesLive() throws {
        let clones = try twoClones()
        let (ada, bogum) = (clones.ada, clones.bogum)
        let (adaEnvironment, bogumEnvironment) = (clones.adaEnvironment, clones.bogumEnvironment)
        let box = "── say to the room"
        let adaTerminal = try TmuxTerminal(directory: ada.path, environment: adaEnvironment)
        let bogumTerminal = try TmuxTerminal(directory: bogum, environment: bogumEnvironment)
        try adaTerminal.runLine("vault ui 주말-계획")
        try bogumTerminal.runLine("vault ui 주말-계획")
        try adaTerminal.waitFor(box)
        try bogumTerminal.waitFor(box)
        try adaTerminal.type("토요일에 등산 어때?")
        try adaTerminal.press("Enter")
        try adaTerminal.waitUntil("Ada's message in her transcript") { screen in
            screen.range(of: box).map { screen[..<$0.lowerBound].contains("토요일에 등산 어때?") } ?? false
        }
        // 보검, typing meanwhile, sees it arrive above the compose box.
        try bogumTerminal.type("좋아, 몇 시")
        var screen = try bogumTerminal.waitUntil("Ada's message on 보검's screen", seconds: 30) { screen in
            screen.range(of: box).map { screen[..<$0.lowerBound].contains("토요일에 등산 어때?") } ?? false
        }
        #expect(screen.contains("Ada"))
        #expect(screen.contains("좋아, 몇 시"), "what 보검 was typing stays")
        try bogumTerminal.type("에 만나?")
        try bogumTerminal.press("Enter")
        screen = try adaTerminal.waitUntil("보검's answer on Ada's screen", seconds: 30) { screen in
            screen.range(of: box).map { screen[..<$0.lowerBound].contains("좋아, 몇 시에 만나?") } ?? false
        }
        #expect(screen.contains("보검"))
        try adaTerminal.press("C-c")
        try bogumTerminal.press("C-c")
        try adaTerminal.waitForThePrompt()
        try bogumTerminal.waitForThePrompt()
        // One message each, once, in one order on both machines.
        _ = try runVault(["sync"], in: ada.path, environment: adaEnvironment)
        _ = try runVault(["sync"], in: bogum, environment: bogumEnvironment)
        let mine = try String(contentsOfFile: ada.path + "/rooms/주말-계획.md", encoding: .utf8)
        let theirs = try String(contentsOfFile: bogum + "/rooms/주말-계획.md", encoding: .utf8)
        #expect(mine == theirs)
        #expect(mine.components(separatedBy: "토요일에 등산 어때?").count == 2)
        #expect(mine.components(separatedBy: "좋아, 몇 시에 만나?").count == 2)
    }
}
