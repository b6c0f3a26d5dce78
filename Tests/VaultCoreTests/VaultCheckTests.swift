import Foundation
import Testing
import VaultTestSupport

@testable import VaultCore

/// `Vault.check()`: every problem of a vault's files, with its file and line (FORMAT.md, "What
/// `vault check` reports"). How the `vault check` command prints them and its exit status are
/// `VaultCLITests/CheckAndErrorsTests`.
@Suite struct VaultCheckTests {
    let marker = RoomFile.promptMarkerLine
    let user = "## 🧑 user · d <!-- 2026-11-01T09:00:00+09:00 m-ABCDEFGHJKMN -->"

    /// The problems of a copy of sample-vault/ (or of an empty vault) with `files` written into it.
    func check(_ files: [String: [UInt8]], sample: Bool = true) throws -> [FormatProblem] {
        let dir = try sample ? Project.copyOfSampleVault() : emptyVault()
        for (path, bytes) in files { try dir.write(path, bytes) }
        return try withExtendedLifetime(dir) { try Vault(root: dir.path).check() }
    }

    func emptyVault() throws -> TemporaryDirectory {
        let dir = TemporaryDirectory("check")
        try dir.write("vault.yml", "format: 1\nlocale: en_US\ntime_zone: Asia/Tokyo\n")
        return dir
    }

    func text(_ s: String) -> [UInt8] { Array(s.utf8) }

    /// The diary's paths come in the order of their bytes, at any depth, whatever the folders'
    /// names next to the files' (`2026-x.md`, `2026.md` and `2026/` sort as `-` < `.` < `/`), with
    /// hidden names and files that are not Markdown left out.
    @Test func diaryPathsAreInTheOrderOfTheirBytes() throws {
        let dir = try emptyVault()
        let names = [
            "diary/2026/11/2026-11-02-b.md", "diary/2026/2026-11-01-a.md", "diary/2026-x.md", "diary/2026.md",
            "diary/2025/첫눈.md", "diary/2025/Zebra.md", "diary/2025/zebra.md", "diary/a-b.md", "diary/a/b.md",
            "diary/e\u{301}.md", "diary/é.md",
        ]
        for name in names + ["diary/.hidden.md", "diary/.git/x.md", "diary/notes.txt", "diary/2026/.draft.md"] {
            try dir.write(name, text("---\ntitle: x\n---\n"))
        }
        let paths = try withExtendedLifetime(dir) { try Vault(root: dir.path).diaryPaths() }
        #expect(paths == names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
    }

    @Test func theSampleVaultHasNoProblem() throws {
        let dir = try Project.copyOfSampleVault()
        let vault = try Vault(root: dir.path)
        #expect(vault.check() == [])
        #expect(vault.roomPaths().count + vault.diaryPaths().count == 16)
        withExtendedLifetime(dir) {}
    }

    @Test func everyProblemIsListedWithFileAndLine() throws {
        var utf = text("---\ntitle: ok\n---\n\n\(user)\n\nfine\nbad ")
        utf += [0xC3, 0x28]  // an invalid two-byte sequence on line 8
        utf += text(" byte\n\n\(marker)\n")
        let problems = try check([
            "rooms/invalid-utf8.md": utf,
            "rooms/unclosed.md": text("---\ntitle: unclosed\ncreated: 2026-11-01T09:00:00+09:00\n\n\(user)\n\nhi\n"),
            "rooms/bad-yaml.md": text("---\ntitle: ok\n  created: 2026-11-01T09:00:00+09:00\nmodel: echo\n---\n\nhi\n"),
            "rooms/bad-timestamp.md": text(
                "---\ntitle: ok\n---\n\n\(user)\n\nhi\n\n"
                    + "## 🤖 assistant · d <!-- 2026-13-01T09:00:00+09:00 m-ABCDEFGHJKMP -->\n\nthere\n"),
            "diary/2026/2026-11-02-dup.md": text(
                "---\ntitle: one\ncreated: 2026-11-02T09:00:00+09:00\ntitle: two\n---\n\n# heading\n\nbody\n"),
            "diary/2026/2026-11-03-bad-date.md": text(
                "---\ntitle: x\ncreated: 2026/11/03 9:00\n---\n\n# heading\n\nbody\n"),
        ])
        let expected: [(String, Int, String)] = [
            ("diary/2026/2026-11-02-dup.md", 4, "'title'"),
            ("diary/2026/2026-11-03-bad-date.md", 3, "2026/11/03 9:00"),
            ("rooms/bad-timestamp.md", 9, "2026-13-01T09:00:00+09:00"),
            ("rooms/bad-yaml.md", 3, "YAML"),
            ("rooms/invalid-utf8.md", 8, "UTF-8"),
            ("rooms/unclosed.md", 1, "never closed"),
        ]
        // Sorted by path and line, each an error naming what is wrong.
        #expect(problems.map(\.path) == expected.map(\.0), "\(problems)")
        for (problem, (path, line, detail)) in zip(problems, expected) {
            #expect(problem.path == path && problem.line == line, "\(problem)")
            #expect(problem.message.contains(detail), "\(problem)")
            #expect(problem.severity == .error, "\(problem)")
            #expect(problem.description.hasPrefix("\(path):\(line): "), "\(problem)")
        }
    }

    @Test func warningsAreReportedToo() throws {
        let assistant =
            "## 🤖 assistant · d <!-- 2026-11-01T09:00:05+09:00 m-ABCDEFGHJKMN model=echo provider=offline -->"
        let merged = "---\ntitle: m\n---\n\n\(user)\n\nhi\n\n\(marker)\n"
            + "## 🤖 assistant · d <!-- 2026-11-01T09:00:05+09:00 m-ZZZZZZZZZZZZ -->\n\nhello\n\n\(marker)\n"
        let problems = try check(
            [
                "rooms/dup-id.md": text("---\ntitle: d\n---\n\n\(user)\n\nhi\n\n\(assistant)\n\nhello\n\n\(marker)\n"),
                "rooms/merged.md": text(merged),
            ], sample: false)
        let duplicate = problems.first { $0.path == "rooms/dup-id.md" }
        #expect(duplicate?.line == 9, "\(problems)")
        #expect(duplicate?.message.contains("m-ABCDEFGHJKMN") == true && duplicate?.message.contains("line 5") == true)
        let marker = problems.first { $0.path == "rooms/merged.md" }
        #expect(marker?.line == 9 && marker?.message.contains("prompt marker") == true, "\(problems)")
        #expect(problems.count == 2 && problems.allSatisfy { $0.severity == .warning }, "\(problems)")
    }

    /// `created`/`updated` that are not a date or a time in any form vault reads (bare dates and
    /// local times are read: `hand-written dates` below).
    @Test func aRoomWithABadCreatedTimeIsReported() throws {
        let problems = try check(
            ["rooms/when.md": text("---\ntitle: when\ncreated: first of November\n---\n\n\(marker)\n")], sample: false)
        #expect(problems.count == 1 && problems.first?.line == 3, "\(problems)")
        #expect(problems.first?.message.contains("created") == true, "\(problems)")
    }

    /// `key: a: b` is not valid YAML ("mapping values are not allowed here"): every YAML parser rejects it.
    @Test func invalidYAMLThatLooksSimpleIsReported() throws {
        let problems = try check(
            ["rooms/colon.md": text("---\ntitle: colon\nsummary: a: b\n---\n\n\(marker)\n")], sample: false)
        #expect(problems.count == 1 && problems.first?.line == 3, "\(problems)")
        #expect(problems.first?.message.contains("YAML") == true, "\(problems)")
    }

    /// Files written by Obsidian, Jekyll and Hugo, with their date forms, have no problem.
    @Test func handWrittenDatesAreNoProblem() throws {
        let problems = try check(
            [
                "diary/imported/obsidian.md": text("---\ncreated: 2025-08-15\ntags: [여행]\n---\n\n바다에 갔다.\n"),
                "diary/imported/obsidian-time.md": text("---\ncreated: 2025-08-16T21:05\n---\n\n밤.\n"),
                "diary/imported/jekyll.md": text("---\nlayout: post\ncreated: 2025-08-17 10:30:00 +0900\n---\n\n아침.\n"),
                "diary/imported/hugo.md": text(
                    "---\ncreated: \"2025-08-18T23:30:00-07:00\"\ndraft: false\n---\n\n늦게.\n"),
                "diary/imported/local.md": text("---\ncreated: 2025-08-19 07:00\n---\n\n새벽.\n"),
                "rooms/obsidian-room.md": text("---\ntitle: 옵시디언 방\ncreated: 2025-08-15\n---\n\n"),
            ], sample: false)
        #expect(problems == [])
    }

    /// A broken `vault.yml` refuses the vault with the line and the value: every command then fails
    /// the same way before reading anything else.
    @Test(arguments: [
        ("locale: ko_KR ", "locale: xx_YY ", 4, "xx_YY"),
        ("time_zone: Asia/Seoul ", "time_zone: Mars/Base ", 5, "Mars/Base"),
        ("format: 1\n", "format: [1\n", nil, "YAML"),
    ] as [(String, String, Int?, String)])
    func aBrokenVaultConfigIsRefusedWithItsLine(old: String, new: String, line: Int?, detail: String) throws {
        let dir = try Project.copyOfSampleVault()
        let config = try dir.readText("vault.yml")
        try #require(config.contains(old))
        try dir.write("vault.yml", config.replacingOccurrences(of: old, with: new))
        do {
            _ = try Vault(root: dir.path)
            Issue.record("a vault.yml with \(new.debugDescription) was accepted")
        } catch {
            let text = "\(error)"
            let place = line.map { "vault.yml:\($0): " } ?? #"vault\.yml:\d+: "#
            #expect(text.range(of: place, options: line == nil ? .regularExpression : []) != nil, "\(text)")
            #expect(text.contains(detail), "\(text)")
        }
    }
}
