import Foundation
import Testing
import VaultTestSupport
import VaultCore

/// `vault check`, and how malformed files are reported.
@Suite struct CheckAndErrorsTests {
    /// The `path:line:` problem lines of a `vault check` run.
    private func problemLines(_ r: RunResult) -> [String] {
        r.stdout.split(separator: "\n").map(String.init).filter {
            !$0.hasSuffix("problems.") && !$0.hasSuffix("problem.")
        }
    }

    @Test func sampleVaultIsClean() throws {
        let vault = try Project.copyOfSampleVault()
        let before = try vault.snapshot()
        let r = try runVault(["check"], in: vault.path)
        #expect(r.status == 0)
        #expect(r.stdout == "16 files checked, no problems.\n")
        #expect(r.stderr.isEmpty)
        // The folder as an argument, from elsewhere.
        let elsewhere = TemporaryDirectory("elsewhere")
        let r2 = try runVault(["check", vault.path], in: elsewhere.path)
        #expect(r2.status == 0)
        #expect(r2.stdout == "16 files checked, no problems.\n")
        expectUnchanged(before, try vault.snapshot())
    }

    /// What each problem is: `VaultCoreTests/VaultCheckTests`. Here, how `vault check` says it:
    /// one `path:line: ` line each on standard output (warnings labelled), a count, status 1;
    /// nothing on standard error, so `vault check | less` shows every finding.
    @Test func problemsArePrintedOneALineWithACountAndStatusOne() throws {
        let vault = try Project.copyOfSampleVault()
        let user = "## 🧑 user · d <!-- 2026-11-01T09:00:00+09:00 m-ABCDEFGHJKMN -->"
        try vault.write("rooms/unclosed.md", "---\ntitle: unclosed\n\n\(user)\n\nhi\n")
        let merged = "---\ntitle: m\n---\n\n\(user)\n\nhi\n\n\(promptMarker)\n"
            + "## 🤖 assistant · d <!-- 2026-11-01T09:00:05+09:00 m-ZZZZZZZZZZZZ -->\n\nhello\n\n\(promptMarker)\n"
        try vault.write("rooms/merged.md", merged)
        let before = try vault.snapshot()
        let r = try runVault(["check"], in: vault.path)
        #expect(r.status == 1)
        #expect(r.stderr.isEmpty, "\(r.stderr)")
        let lines = problemLines(r)
        try #require(lines.count == 2, "\(r.stdout)")
        #expect(lines[0].hasPrefix("rooms/merged.md:9: warning: ") && lines[0].contains("prompt marker"), "\(lines[0])")
        #expect(lines[1].hasPrefix("rooms/unclosed.md:1: ") && !lines[1].contains("warning:"), "\(lines[1])")
        #expect(r.stdout.hasSuffix("18 files checked, 2 problems.\n"), "\(r.stdout)")
        expectUnchanged(before, try vault.snapshot())
    }

    @Test func roomListingMarksRoomsThatCannotBeRead() throws {
        // `vault rooms` still lists every room, and marks those that cannot be read
        // ("⚠️ cannot be read: run `vault check`") instead of showing them as fine.
        let vault = try Project.copyOfSampleVault()
        var utf = utf8(
            "---\ntitle: utf\n---\n\n## 🧑 user · d <!-- 2026-11-01T09:00:00+09:00 m-ABCDEFGHJKMN -->\n\nbad ")
        utf += [0xC3, 0x28]
        utf += utf8(" byte\n\n\(promptMarker)\n")
        try vault.write("rooms/invalid-utf8.md", utf)
        try vault.write("rooms/unclosed.md", "---\ntitle: unclosed\n\nhi\n")
        try vault.write("rooms/bad-yaml.md", "---\ntitle: ok\n  created: 2026-11-01T09:00:00+09:00\n---\n\nhi\n")
        // The last header has month 13: the room must not be listed with the message before it as its last one.
        try vault.write(
            "rooms/bad-timestamp.md",
            "---\ntitle: bad stamp\n---\n\n## 🧑 user · d <!-- 2026-11-01T09:00:00+09:00 m-ABCDEFGHJKMN -->\n\nhi\n\n"
                + "## 🤖 assistant · d <!-- 2026-13-01T09:00:00+09:00 m-ABCDEFGHJKMP -->\n\nthere\n"
        )
        let before = try vault.snapshot()
        let rooms = try runVault(["rooms", "--json"], in: vault.path)
        expectSuccess(rooms)
        let list = try #require(try JSONSerialization.jsonObject(with: Data(rooms.stdout.utf8)) as? [[String: Any]])
        #expect(list.count == 10)
        let broken = Set(list.filter { $0["problem"] is String }.compactMap { $0["path"] as? String })
        for path in ["rooms/invalid-utf8.md", "rooms/unclosed.md", "rooms/bad-yaml.md", "rooms/bad-timestamp.md"] {
            #expect(
                broken.contains(path),
                "\(path) is listed as readable: \(list.first { $0["path"] as? String == path } ?? [:])")
        }
        #expect(broken.count == 4)
        let text = try runVault(["rooms"], in: vault.path)
        expectSuccess(text)
        #expect(
            text.stdout.split(separator: "\n").filter { $0.contains(ListingWords.of("ko_KR").unreadable) }.count == 4,
            "\(text.stdout)")
        expectUnchanged(before, try vault.snapshot())
    }

    @Test(arguments: [
        ("locale: ko_KR ", "locale: xx_YY ", 4, "xx_YY"),
        ("time_zone: Asia/Seoul ", "time_zone: Mars/Base ", 5, "Mars/Base"),
    ])
    func brokenVaultConfigIsReportedWithItsLine(old: String, new: String, line: Int, detail: String) throws {
        let vault = try Project.copyOfSampleVault()
        let config = try vault.readText("vault.yml")
        try #require(config.contains(old))
        try vault.write("vault.yml", config.replacingOccurrences(of: old, with: new))
        let before = try vault.snapshot()
        let r = try runVault(["check"], in: vault.path)
        #expect(r.status != 0)
        #expect(r.stdout.contains("vault.yml:\(line): "), "\(r.stdout)")
        #expect(r.stdout.contains(detail))
        // Every other command refuses the vault with the same place, and writes nothing.
        for args in [["rooms"], ["chat", "독서", "hi"], ["show", "부산-여행"], ["room", "new", "x"]] {
            let other = try runVault(args, in: vault.path)
            expectUserError(other, ["vault.yml:\(line):", detail])
        }
        expectUnchanged(before, try vault.snapshot())
    }

    @Test func writesNeverTouchABrokenFileButOthersStillWork() throws {
        let vault = try Project.copyOfSampleVault()
        try vault.write(
            "rooms/broken.md",
            "---\ntitle: broken\n---\n\n"
                + "## 🧑 user · d <!-- 2026-02-30T09:00:00+09:00 m-ABCDEFGHJKMN -->\n\nhi\n\n\(promptMarker)\n"
        )
        let broken = try vault.read("rooms/broken.md")
        let r = try runVault(["chat", "broken", "hello"], in: vault.path)
        expectUserError(r, ["rooms/broken.md:5:", "2026-02-30T09:00:00+09:00"])
        #expect(try vault.read("rooms/broken.md") == broken)
        // Another room is not affected.
        let ok = try runVault(["chat", "독서", "hello"], in: vault.path)
        expectSuccess(ok)
        #expect(try vault.read("rooms/broken.md") == broken)
        // `vault show` of the broken room shows what it can, and warns (ForgivingReadsTests).
        let show = try runVault(["show", "broken"], in: vault.path)
        expectSuccess(show)
        #expect(show.stderr.hasPrefix("vault: warning: rooms/broken.md:5: "), "\(show.stderr)")
    }

    /// A YAML alias bomb in a room's front-matter (a few hundred bytes that stand for 9⁹
    /// values) is refused at once with `file:line`; `chat` writes nothing and commits nothing.
    @Test func anAliasBombIsRefusedWithItsLine() throws {
        let vault = try Project.copyOfSampleVault()
        var lines = ["---", "title: bomb", "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
        let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i"]
        for level in 1..<9 {
            let aliases = Array(repeating: "*" + names[level - 1], count: 9).joined(separator: ", ")
            lines.append("\(names[level]): &\(names[level]) [\(aliases)]")
        }
        try vault.write("rooms/bomb.md", lines.joined(separator: "\n") + "\n---\n\nhello\n")
        let before = try vault.snapshot()
        for arguments in [["show", "bomb"], ["chat", "bomb", "hi"], ["room", "set", "bomb", "model", "x"]] {
            let r = try runVault(arguments, in: vault.path)
            expectUserError(r, ["rooms/bomb.md:6:", "alias"])
            #expect(r.status == 1, "\(arguments): \(r.status)")
            expectUnchanged(before, try vault.snapshot())
        }
        let check = try runVault(["check"], in: vault.path)
        #expect(check.status != 0)
        #expect(check.stdout.contains("rooms/bomb.md:6: "), "\(check.stdout)")
        let rooms = try runVault(["rooms"], in: vault.path)
        #expect(rooms.status == 0 && rooms.stdout.contains("bomb"), "\(rooms.stdout) \(rooms.stderr)")
    }
}
