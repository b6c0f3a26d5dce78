import Foundation
import Testing
import VaultTestSupport

@testable import VaultCLI

/// Text from files, commits and servers never reaches the terminal with its control
/// characters: `rooms`, `show`, `log`, `diary list` and errors show them as `cat -v` does
/// (`^[`, `^G`, `M-^[`), so a title cannot clear the screen, retitle the terminal or hide text.
@Suite struct TerminalOutputTests {
    /// An OSC title change ended by BEL, a screen clear, and the one-byte C1 CSI (U+009B).
    static let hostile = "\u{1B}]0;pwned\u{7}Trip\u{1B}[2J\u{9B}31m end"

    /// The control characters a terminal obeys, found in `text` (line feeds and tabs aside).
    func controls(in text: String) -> [String] {
        text.unicodeScalars.filter { u in
            (u.value < 0x20 && u != "\n" && u != "\t") || u.value == 0x7F || (0x80...0x9F).contains(u.value)
        }.map { String(format: "U+%04X", $0.value) }
    }

    @Test func titlesAndBodiesAreShownWithTheirControlCharactersVisible() throws {
        let vault = try freshVault()
        let made = try runVault(["room", "new", TerminalOutputTests.hostile], in: vault.path)
        expectSuccess(made)
        #expect(controls(in: made.stdout + made.stderr).isEmpty, "\(made.stdout.debugDescription)")
        let room = try #require(try FileManager.default.contentsOfDirectory(atPath: vault.path + "/rooms").first)
        let chat = try runVault(
            ["chat", "rooms/" + room, "body \u{1B}[31mred\u{1B}[0m and a bell \u{7}"], in: vault.path)
        expectSuccess(chat)
        #expect(controls(in: chat.stdout + chat.stderr).isEmpty, "\(chat.stdout.debugDescription)")
        // The file keeps exactly what was given (the escaping is only for the terminal).
        #expect(try vault.readText("rooms/" + room).contains("body \u{1B}[31mred\u{1B}[0m and a bell \u{7}"))

        try vault.write(
            "diary/2026/2026-11-20-evil.md",
            "---\ncreated: 2026-11-20T09:00:00+09:00\ntitle: \"\\e]0;pwned\\aTrip\\e[2J\\x9b31m end\"\n---\n\n"
                + "A day. \u{1B}[8mhidden\n"
        )

        for arguments in [
            ["rooms"], ["show", "rooms/" + room], ["log"], ["diary", "list"],
            ["show", "diary/2026/2026-11-20-evil.md"],
        ] {
            let r = try runVault(arguments, in: vault.path)
            expectSuccess(r)
            #expect(controls(in: r.stdout).isEmpty, "\(arguments): \(r.stdout.debugDescription)")
            #expect(controls(in: r.stderr).isEmpty, "\(arguments): \(r.stderr.debugDescription)")
            #expect(r.stdout.contains("^[]0;pwned^GTrip"), "\(arguments): \(r.stdout.debugDescription)")
        }
        let show = try runVault(["show", "rooms/" + room], in: vault.path)
        #expect(show.stdout.contains("body ^[[31mred^[[0m and a bell ^G"), "\(show.stdout.debugDescription)")
        #expect(show.stdout.contains("M-^[31m end"), "\(show.stdout.debugDescription)")
        // JSON escapes them (C1 and DEL too), and still holds the exact title.
        for arguments in [["rooms", "--json"], ["log", "--json"], ["diary", "list", "--json"]] {
            let json = try runVault(arguments, in: vault.path)
            expectSuccess(json)
            #expect(
                controls(in: json.stdout.replacingOccurrences(of: "\n", with: " ")).isEmpty,
                "\(arguments): \(json.stdout.debugDescription)")
            let parsed = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8))
            #expect("\(parsed)".contains("pwned"), "\(arguments)")
        }
        let rooms = try #require(
            try JSONSerialization.jsonObject(with: Data(runVault(["rooms", "--json"], in: vault.path).stdout.utf8))
                as? [[String: Any]])
        #expect(rooms.contains { $0["title"] as? String == TerminalOutputTests.hostile }, "\(rooms)")
        // `--raw` into a pipe is the file, byte for byte.
        let raw = try runVault(["show", "--raw", "rooms/" + room], in: vault.path)
        #expect(raw.stdout == (try vault.readText("rooms/" + room)))
    }

    /// An error naming a file whose name holds an escape sequence shows it visibly too.
    @Test func errorsShowControlCharactersVisibly() throws {
        let vault = try freshVault()
        let name = "rooms/\u{1B}[2Jbad.md"
        try vault.write(name, "---\ntitle: [unclosed\n---\n")
        let check = try runVault(["check"], in: vault.path)
        #expect(check.status != 0)
        #expect(controls(in: check.stdout).isEmpty, "\(check.stdout.debugDescription)")
        #expect(check.stdout.contains("rooms/^[[2Jbad.md:2: "), "\(check.stdout.debugDescription)")
        let show = try runVault(["show", name], in: vault.path)
        expectUserError(show, ["rooms/^[[2Jbad.md:2: "])
        #expect(controls(in: show.stderr).isEmpty, "\(show.stderr.debugDescription)")
    }
}

/// `Terminal.isPlainLine` (eight bytes at a time) against its definition, byte by byte: no C0
/// control, no DEL, no C1 control (`C2 80`–`C2 9F`), wherever they fall in the words.
@Suite struct PlainLineTests {
    static func plainByDefinition(_ bytes: [UInt8]) -> Bool {
        var previous: UInt8 = 0
        for byte in bytes {
            if byte < 0x20 || byte == 0x7F || (previous == 0xC2 && byte >= 0x80 && byte <= 0x9F) { return false }
            previous = byte
        }
        return true
    }

    @Test func agreesWithTheDefinitionOnRandomLines() {
        var random = SeededRandom(seed: 5)
        // Plain Korean and ASCII, `·` (C2 B7), and the bytes that make a line not plain.
        let pieces: [[UInt8]] = [
            Array("부산 ".utf8), Array("abc".utf8), Array("·".utf8), [0xC2], [0x85], [0x1B], [0x7F], [0x09], [0x20],
        ]
        var notPlain = 0
        for _ in 0..<3000 {
            var line: [UInt8] = []
            for _ in 0..<Int.random(in: 0...12, using: &random) {
                // Mostly plain pieces, so that a line holds one odd byte at a random place.
                let k = Int.random(in: 0..<100, using: &random) < 90 ? Int.random(in: 0...4, using: &random)
                    : Int.random(in: 3..<pieces.count, using: &random)
                line += pieces[k]
            }
            let expected = Self.plainByDefinition(line)
            if !expected { notPlain += 1 }
            #expect(line.withUnsafeBytes { Terminal.isPlainLine($0) } == expected, "\(line)")
        }
        #expect(notPlain > 300 && notPlain < 2700)
    }

    @Test func aC1ControlAcrossTwoWordsIsSeen() {
        for at in 0..<16 {
            var line = [UInt8](repeating: 0x61, count: 24)
            line[at] = 0xC2
            line[at + 1] = 0x9B
            #expect(!line.withUnsafeBytes { Terminal.isPlainLine($0) }, "at \(at)")
            line[at + 1] = 0xB7
            #expect(line.withUnsafeBytes { Terminal.isPlainLine($0) }, "at \(at)")
        }
    }
}
