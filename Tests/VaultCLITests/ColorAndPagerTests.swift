import Foundation
import Testing
import VaultCore
import VaultTestSupport

/// Colors and the pager, through a real pseudo-terminal: a small Python program (its `pty` and
/// `os.openpty`) starts the built `vault` on a terminal of a given size and returns all it printed.
@Suite struct ColorAndPagerTests {
    /// Runs argv[3:] on a new pseudo-terminal argv[1] rows by argv[2] columns; prints what it
    /// wrote there (line ends as the terminal made them), and exits with its status.
    static let driver = """
        import os, sys, fcntl, struct, termios, subprocess, signal
        signal.alarm(60)
        rows, cols = int(sys.argv[1]), int(sys.argv[2])
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        child = subprocess.Popen(sys.argv[3:], stdin=slave, stdout=slave, stderr=slave, start_new_session=True)
        os.close(slave)
        out = b""
        while True:
            try:
                piece = os.read(master, 65536)
            except OSError:
                break
            if not piece:
                break
            out += piece
        sys.stdout.buffer.write(out)
        sys.exit(child.wait())
        """

    struct TerminalRun {
        var status: Int32
        var output: String
    }

    /// `vault arguments` on a pseudo-terminal `rows` × `columns`, in `vault`, with `environment`
    /// (and a user configuration of the test's own).
    func onTerminal(
        _ arguments: [String], in vault: TemporaryDirectory, rows: Int = 40, columns: Int = 100,
        environment: [String: String] = [:]
    ) throws -> TerminalRun {
        let script = vault.path + "/.pty-driver.py"
        try ColorAndPagerTests.driver.write(toFile: script, atomically: true, encoding: .utf8)
        var env = ["XDG_CONFIG_HOME": vault.path + "/.config", "NO_COLOR": "", "COLUMNS": ""]
        for (k, v) in environment { env[k] = v }
        let process = vaultProcess(arguments, in: vault.path, environment: env)
        process.environment?["NO_COLOR"] = env["NO_COLOR"]!.isEmpty ? nil : env["NO_COLOR"]
        process.environment?["COLUMNS"] = env["COLUMNS"]!.isEmpty ? nil : env["COLUMNS"]
        process.environment?["PAGER"] = environment["PAGER"]
        process.environment?["LESS"] = nil
        process.arguments = [script, String(rows), String(columns), Project.vaultExecutable] + arguments
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + process.arguments!
        let r = try run(process, stdin: nil)
        return TerminalRun(status: r.status, output: r.stdout.replacingOccurrences(of: "\r\n", with: "\n"))
    }

    func vaultWithRoom(messages: Int) throws -> TemporaryDirectory {
        let vault = try freshVault()
        expectSuccess(try runVault(["room", "new", "Trip to Busan"], in: vault.path))
        let room = try #require(try FileManager.default.contentsOfDirectory(atPath: vault.path + "/rooms").first)
        var text = try vault.readText("rooms/" + room)
        for n in 0..<messages {
            let minute = 10 + n % 50
            let id = String(format: "m-TEST%07d", n)
            text += "\n## 🧑 user · 09:\(minute) <!-- 2026-11-21T09:\(minute):00+09:00 \(id)0 -->\n\n"
                + "Question \(n) about 부산\n"
            text += "\n## 🤖 assistant · 09:\(minute) <!-- 2026-11-21T09:\(minute):30+09:00 \(id)1 -->\n\n"
                + "Answer \(n)\n"
        }
        try vault.write("rooms/" + room, text)
        return vault
    }

    static let escape = "\u{1B}["

    @Test func colorsOnATerminalAndNoneWhenPipedOrTurnedOff() throws {
        let vault = try vaultWithRoom(messages: 2)
        for arguments in [["rooms"], ["show", "trip-to-busan"], ["log"], ["search", "Question"]] {
            let colored = try onTerminal(arguments, in: vault, environment: ["VAULT_PAGER": "cat"])
            #expect(colored.status == 0, "\(arguments): \(colored.output)")
            #expect(colored.output.contains(Self.escape), "\(arguments): \(colored.output.debugDescription)")
            let never = try onTerminal(
                arguments + ["--color", "never"], in: vault, environment: ["VAULT_PAGER": "cat"])
            #expect(never.status == 0 && !never.output.contains(Self.escape), "\(arguments): \(never.output)")
            let noColor = try onTerminal(arguments, in: vault, environment: ["VAULT_PAGER": "cat", "NO_COLOR": "1"])
            #expect(!noColor.output.contains(Self.escape), "\(arguments): \(noColor.output.debugDescription)")
            // Into a pipe: none, unless asked for.
            let piped = try runVault(arguments, in: vault.path, environment: ["XDG_CONFIG_HOME": vault.path])
            #expect(piped.status == 0 && !piped.stdout.contains(Self.escape), "\(arguments): \(piped.stdout)")
            // `rooms` into a pipe is tab-separated fields, never colored: the aligned view (COLUMNS) is.
            let always = try runVault(arguments + ["--color", "always"], in: vault.path, environment: ["COLUMNS": "100"])
            #expect(always.stdout.contains(Self.escape), "\(arguments): \(always.stdout.debugDescription)")
        }
        // The user configuration's `color: never`, and the flag over it.
        try vault.write(".config/vault/config.yml", "color: never\n")
        #expect(!(try onTerminal(["rooms"], in: vault)).output.contains(Self.escape))
        #expect(try onTerminal(["rooms", "--color", "always"], in: vault).output.contains(Self.escape))
        let wrong = try runVault(["rooms", "--color", "sometimes"], in: vault.path)
        #expect(wrong.status == 64 && wrong.stderr.contains("--color takes auto, always or never"), "\(wrong)")
    }

    @Test func listingsFitTheTerminalByDisplayWidth() throws {
        let vault = try vaultWithRoom(messages: 1)
        try vault.write(
            "diary/2026/2026-11-20.md",
            "---\ncreated: 2026-11-20T09:00:00+09:00\n---\n\n" + String(repeating: "부산 바다 🌊 ", count: 30) + "\n")
        for arguments in [["rooms"], ["diary", "list"], ["log"]] {
            let r = try onTerminal(arguments + ["--color", "never"], in: vault, columns: 50)
            #expect(r.status == 0)
            for line in r.output.split(separator: "\n") {
                #expect(DisplayWidth.of(String(line)) <= 50, "\(arguments): \(line)")
                #expect(!line.contains("\u{FFFD}"), "\(arguments): \(line)")
            }
        }
    }

    @Test func longOutputGoesThroughThePagerAndShortOutputDoesNot() throws {
        let vault = try vaultWithRoom(messages: 30)
        let pager = ["VAULT_PAGER": "echo PAGER-STARTED; cat"]
        let long = try onTerminal(["show", "trip-to-busan"], in: vault, rows: 20, environment: pager)
        #expect(long.status == 0)
        #expect(long.output.hasPrefix("PAGER-STARTED\n"), "\(long.output.prefix(300).debugDescription)")
        #expect(long.output.contains("Answer 29"))
        // A screen tall enough: printed directly.
        let fits = try onTerminal(["show", "trip-to-busan"], in: vault, rows: 500, environment: pager)
        #expect(!fits.output.contains("PAGER-STARTED") && fits.output.contains("Answer 29"))
        // --no-pager, `cat` and an empty pager: none.
        for (arguments, environment) in [
            (["show", "trip-to-busan", "--no-pager"], pager), (["show", "trip-to-busan"], ["VAULT_PAGER": "cat"]),
            (["show", "trip-to-busan"], ["VAULT_PAGER": ""]),
        ] {
            let r = try onTerminal(arguments, in: vault, rows: 20, environment: environment)
            #expect(r.status == 0 && !r.output.contains("PAGER-STARTED") && r.output.contains("Answer 29"))
        }
        // VAULT_PAGER over the user configuration's pager, which is over $PAGER.
        try vault.write(".config/vault/config.yml", "pager: echo CONFIG-PAGER; cat\n")
        let configured = try onTerminal(
            ["show", "trip-to-busan"], in: vault, rows: 20, environment: ["PAGER": "echo ENV-PAGER; cat"])
        #expect(configured.output.hasPrefix("CONFIG-PAGER\n"), "\(configured.output.debugDescription)")
        let overridden = try onTerminal(["show", "trip-to-busan"], in: vault, rows: 20, environment: pager)
        #expect(overridden.output.hasPrefix("PAGER-STARTED\n"))
        // A pager that reads one line and quits: no error; one that is not there: printed directly.
        let quits = try onTerminal(
            ["show", "trip-to-busan"], in: vault, rows: 20, environment: ["VAULT_PAGER": "head -n 1"])
        #expect(quits.status == 0 && !quits.output.contains("error"), "\(quits.output.debugDescription)")
        let missing = try onTerminal(
            ["show", "trip-to-busan"], in: vault, rows: 20, environment: ["VAULT_PAGER": "no-such-pager-here"])
        #expect(missing.status == 0 && missing.output.contains("Answer 29"), "\(missing.output.suffix(300))")
        // Into a pipe, never.
        let piped = try runVault(["show", "trip-to-busan"], in: vault.path, environment: pager)
        #expect(!piped.stdout.contains("PAGER-STARTED"))
    }

    /// A listing longer than the screen starts the pager as soon as its first screen is printed
    /// (its trace says so before the last row is written), and the pager gets every row, as
    /// `--no-pager` prints them. A pager that quits early is no error; one that cannot be found
    /// gets nothing: the listing is printed directly, whole.
    @Test func aLongListingStartsThePagerWithItsFirstScreen() throws {
        let vault = try freshVault()
        for n in 0..<150 {
            let time = String(format: "2026-11-%02dT%02d:%02d:00+09:00", 1 + n % 28, n % 24, n % 60)
            try vault.write(
                String(format: "rooms/room-%03d.md", n),
                "---\ntitle: Room \(n)\ncreated: \(time)\n---\n\n## 🧑 user · x <!-- \(time) m-TEST\(String(format: "%07d", n)) -->\n\n질문 \(n)\n")
        }
        let pager = ["VAULT_PAGER": "echo PAGER-STARTED; cat", "VAULT_TRACE": "1"]
        let direct = try onTerminal(["rooms", "--no-pager"], in: vault, rows: 20)
        #expect(direct.status == 0 && direct.output.contains("Room 149"))
        let paged = try onTerminal(["rooms"], in: vault, rows: 20, environment: pager)
        #expect(paged.status == 0)
        let lines = paged.output.split(separator: "\n").map(String.init)
        let started = try #require(lines.firstIndex { $0.contains("pager: started with the first screen") }, "\(lines)")
        let written = try #require(lines.firstIndex { $0.contains("listing: rows written") }, "\(lines)")
        #expect(started < written)
        #expect(lines.contains("PAGER-STARTED"))
        let rows = lines.filter { !$0.hasPrefix("vault trace:") && $0 != "PAGER-STARTED" }
        #expect(rows == direct.output.split(separator: "\n").map(String.init), "\(rows.count)")
        let quits = try onTerminal(["rooms"], in: vault, rows: 20, environment: ["VAULT_PAGER": "head -n 1"])
        #expect(quits.status == 0 && !quits.output.contains("error"), "\(quits.output.debugDescription)")
        let missing = try onTerminal(["rooms"], in: vault, rows: 20, environment: ["VAULT_PAGER": "no-such-pager-here"])
        #expect(missing.status == 0 && missing.output.contains("Room 149"), "\(missing.output.suffix(300))")
    }
}
