import Foundation
import Testing
import VaultCore
import VaultTestSupport

/// Flags that agree across commands (issue 27, item 11): `log --since/--until` with authors
/// and files, `diary calendar --json/--color`, `search -c`, `room show`, and `room set` taking
/// the command line's date words and echoing the value it stored.
@Suite struct FlagsAgreeTests {
    static let seoul = TimeZone(identifier: "Asia/Seoul")!

    /// `git` with the author and committer dates set to `date` (ISO 8601 with an offset).
    func gitOn(_ date: String, _ arguments: [String], in directory: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git"] + arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        var env = ProcessInfo.processInfo.environment
        env["GIT_AUTHOR_DATE"] = date
        env["GIT_COMMITTER_DATE"] = date
        env["GIT_CONFIG_NOSYSTEM"] = "1"
        process.environment = env
        let result = try run(process)
        guard result.status == 0 else { throw HelperError("git \(arguments) failed: \(result.stderr)") }
    }

    /// A Korean vault whose history has commits by Ada Lovelace on three days: a room on
    /// 1 November, a diary entry at 00:30 on 11 November in Seoul (still the 10th in UTC), and a
    /// change to both on 20 November.
    func vaultWithDatedHistory() throws -> TemporaryDirectory {
        let vault = try freshVault(locale: "ko_KR", timeZone: "Asia/Seoul")
        _ = try git(["config", "user.name", "Ada Lovelace"], in: vault.path)
        _ = try git(["config", "user.email", "ada@example.com"], in: vault.path)
        try vault.write("rooms/plans.md", "---\ntitle: Plans\ncreated: 2026-11-01T10:00:00+09:00\n---\n\n\(promptMarker)\n")
        try gitOn("2026-11-01T10:00:00+09:00", ["add", "-A"], in: vault.path)
        try gitOn("2026-11-01T10:00:00+09:00", ["commit", "-q", "-m", "room: new Plans"], in: vault.path)
        try vault.write(
            "diary/2026/2026-11-11-밤.md",
            "---\ntitle: 밤\ncreated: 2026-11-11T00:30:00+09:00\n---\n\n# 2026년 11월 11일 수요일\n\n늦었다.\n")
        try gitOn("2026-11-11T00:30:00+09:00", ["add", "-A"], in: vault.path)
        try gitOn("2026-11-11T00:30:00+09:00", ["commit", "-q", "-m", "diary: add 2026-11-11 밤"], in: vault.path)
        try vault.write("rooms/plans.md", "---\ntitle: Plans\ncreated: 2026-11-01T10:00:00+09:00\nmodel: m\n---\n\n\(promptMarker)\n")
        try vault.write(
            "diary/2026/2026-11-11-밤.md",
            "---\ntitle: 밤\ncreated: 2026-11-11T00:30:00+09:00\n---\n\n# 2026년 11월 11일 수요일\n\n많이 늦었다.\n")
        try gitOn("2026-11-20T09:05:00+09:00", ["commit", "-q", "-a", "-m", "edit: by hand"], in: vault.path)
        return vault
    }

    func shortIDs(_ vault: TemporaryDirectory) throws -> [String] {
        try git(["log", "--format=%h", "--abbrev=7"], in: vault.path).split(separator: "\n").map(String.init)
    }

    @Test func logShowsAuthorsAndFilesAndTakesDaysInTheVaultsZone() throws {
        let vault = try vaultWithDatedHistory()
        let ids = try shortIDs(vault)
        #expect(ids.count == 4)
        let before = try vault.snapshot()
        // 00:30 on the 11th in Seoul is the 11th, though it is the 10th in UTC (the machine's zone here).
        let r = try runVault(["log", "--since", "2026-11-11", "--until", "2026-11-19"], in: vault.path, environment: ["TZ": "UTC"])
        expectSuccess(r)
        #expect(
            r.stdout == """
                \(ids[1])  2026년 11월 11일 수요일 오전 12:30  Ada Lovelace  diary: add 2026-11-11 밤
                         diary/2026/2026-11-11-밤.md

                """, "\(r.stdout)")
        let until10 = try runVault(["log", "--until", "2026-11-10"], in: vault.path, environment: ["TZ": "UTC"])
        #expect(
            until10.stdout == """
                \(ids[2])  2026년 11월 1일 일요일 오전 10:00  Ada Lovelace  room: new Plans
                         rooms/plans.md

                """, "\(until10.stdout)")
        // Every commit's files, as git lists them; -n and a template.
        let all = try runVault(["log", "-n", "2", "--format", "%(short_id)|%(author)|%(files)|%(time)"], in: vault.path)
        expectSuccess(all)
        #expect(
            all.stdout == """
                \(ids[0])|Ada Lovelace|diary/2026/2026-11-11-밤.md rooms/plans.md|2026-11-20T09:05:00+09:00
                \(ids[1])|Ada Lovelace|diary/2026/2026-11-11-밤.md|2026-11-11T00:30:00+09:00

                """, "\(all.stdout)")
        let gitFiles = try git(["-c", "core.quotePath=false", "show", "--format=", "--name-only", ids[0]], in: vault.path)
        #expect(gitFiles == "diary/2026/2026-11-11-밤.md\nrooms/plans.md\n")
        // JSON: the files as a list, the time as written.
        let json = try runVault(["log", "--json", "-n", "1"], in: vault.path)
        let list = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(list.count == 1)
        #expect(list[0]["files"] as? [String] == ["diary/2026/2026-11-11-밤.md", "rooms/plans.md"])
        #expect(list[0]["author"] as? String == "Ada Lovelace")
        #expect(list[0]["time"] as? String == "2026-11-20T09:05:00+09:00")
        // A day it cannot read is refused; the same words as --since elsewhere.
        let bad = try runVault(["log", "--since", "someday"], in: vault.path)
        #expect(bad.status != 0 && bad.stdout.isEmpty)
        #expect(bad.stderr.hasPrefix("vault: error: cannot read the date 'someday'"), "\(bad.stderr)")
        expectUnchanged(before, try vault.snapshot())
    }

    /// Every command that lists by date takes the same `--since`/`--until` (DateRangeOptions):
    /// the same help, the same day words, the same refusal of a day that is none.
    @Test func everyListingTakesTheSameDates() throws {
        let vault = try freshVault(locale: "ko_KR", timeZone: "Asia/Seoul")
        let commands: [[String]] = [["rooms"], ["diary", "list"], ["log"], ["search", "x"], ["export", "--diary"]]
        var helps: [String] = []
        for command in commands {
            let help = try runVault(command.filter { $0 != "x" && $0 != "--diary" } + ["--help"], in: vault.path)
            let line = help.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
                .first { $0.hasPrefix("--since <DAY>") }
            helps.append(line ?? "(none in \(command))")
            let before = try snapshot(vault.path)
            let bad = try runVault(command + ["--since", "someday"], in: vault.path)
            #expect(bad.status == 64, "\(command): \(bad.status) \(bad.stderr)")
            #expect(bad.stderr.hasPrefix("vault: error: "), "\(command): \(bad.stderr)")
            #expect(try snapshot(vault.path) == before)
            let good = try runVault(command + ["--since", "-7", "--until", "today"], in: vault.path)
            #expect(good.status != 64, "\(command): \(good.stderr)")
        }
        #expect(Set(helps).count == 1, "\(helps)")
    }

    @Test func roomsAreChosenByTheDayOfTheirLastActivity() throws {
        let vault = try freshVault(locale: "ko_KR", timeZone: "Asia/Seoul")
        // 23:30 UTC on the 19th is the 20th in Seoul.
        try Data("---\ntitle: 오래된 방\ncreated: 2026-11-10T10:00:00+09:00\n---\n".utf8)
            .write(to: URL(fileURLWithPath: vault.path + "/rooms/old.md"))
        try Data("---\ntitle: 새 방\ncreated: 2026-11-19T23:30:00Z\n---\n".utf8)
            .write(to: URL(fileURLWithPath: vault.path + "/rooms/new.md"))
        let since = try runVault(["rooms", "--since", "2026-11-20", "--format", "%(path)"], in: vault.path)
        #expect(since.status == 0 && since.stdout == "rooms/new.md\n", "\(since.stdout) \(since.stderr)")
        let until = try runVault(["rooms", "--until", "2026-11-19", "--format", "%(path)"], in: vault.path)
        #expect(until.status == 0 && until.stdout == "rooms/old.md\n", "\(until.stdout) \(until.stderr)")
    }

    /// Every file of the vault (not `.git/`, nor this machine's state in `.vault/`, as
    /// `TemporaryDirectory.snapshot` leaves it out), path → bytes.
    func snapshot(_ root: String) throws -> [String: Data] {
        var out: [String: Data] = [:]
        let e = FileManager.default.enumerator(atPath: root)
        while let p = e?.nextObject() as? String {
            if p == ".git" || p == ".vault" { e?.skipDescendants(); continue }
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: root + "/" + p, isDirectory: &isDir), !isDir.boolValue {
                out[p] = try Data(contentsOf: URL(fileURLWithPath: root + "/" + p))
            }
        }
        return out
    }

    @Test func calendarPrintsJSONAndColors() throws {
        let vault = try freshVault(locale: "ko_KR", timeZone: "Asia/Seoul")
        for (day, body) in [("2026-02-03", "하나"), ("2026-02-03", "둘"), ("2026-02-14", "셋")] {
            expectSuccess(try runVault(["write", "--date", day, "--body", body], in: vault.path))
        }
        let before = try vault.snapshot()
        let r = try runVault(["diary", "calendar", "2026-02", "--json"], in: vault.path)
        expectSuccess(r)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect(object["month"] as? String == "2026-02")
        #expect(object["title"] as? String == "2026년 2월")
        #expect(object["weekdays"] as? [String] == ["일", "월", "화", "수", "목", "금", "토"])
        #expect(object["entries"] as? Int == 3 && object["days_with_entries"] as? Int == 2)
        #expect(object["streak"] is NSNull, "a month gone by has no streak: \(object["streak"] ?? "")")
        #expect(object["summary"] as? String == "일기 3편, 2일")
        let days = try #require(object["days"] as? [[String: Any]])
        #expect(days.count == 28)
        #expect(days.filter { ($0["entries"] as? Int ?? 0) > 0 }.map { $0["date"] as? String } == ["2026-02-03", "2026-02-14"])
        #expect(days[2]["entries"] as? Int == 2)

        // Colored when asked: days with entries green; none with --color never or into a pipe.
        let colored = try runVault(["diary", "calendar", "2026-02", "--color", "always"], in: vault.path)
        expectSuccess(colored)
        let lines = colored.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // Each day is four columns: the cell is painted whole.
        #expect(lines[2] == "  1   2 \u{1B}[32m  3•\u{1B}[0m  4   5   6   7", "\(lines[2].debugDescription)")
        #expect(lines[3] == "  8   9  10  11  12  13 \u{1B}[32m 14•\u{1B}[0m", "\(lines[3].debugDescription)")
        for plain in [["--color", "never"], []] {
            let r = try runVault(["diary", "calendar", "2026-02"] + plain, in: vault.path)
            #expect(!r.stdout.contains("\u{1B}"), "\(plain)")
        }
        let wrong = try runVault(["diary", "calendar", "--color", "sometimes"], in: vault.path)
        #expect(wrong.status == 64 && wrong.stderr.hasPrefix("vault: error: --color takes auto, always or never"))
        expectUnchanged(before, try vault.snapshot())
    }

    @Test func searchCountsMatchingLinesPerFile() throws {
        let vault = try freshVault(locale: "ko_KR", timeZone: "Asia/Seoul")
        try vault.write(
            "diary/2026/2026-11-06-일기.md",
            "---\ntitle: 일기\ncreated: 2026-11-06T21:00:00+09:00\n---\n\n# 2026년 11월 6일 금요일\n\n"
                + "해운대 산책\n해운대 해운대 두 번\n광안리\n")
        try vault.write(
            "rooms/busan.md",
            "---\ntitle: 해운대 여행\ncreated: 2026-11-01T10:00:00+09:00\n---\n\n"
                + "## 🧑 user · 2026년 11월 1일 일요일 오전 10:01 <!-- 2026-11-01T10:01:00+09:00 m-01JPA3K8Z4QX -->\n\n"
                + "해운대 숙소\n\n\(promptMarker)\n")
        let before = try vault.snapshot()
        let r = try runVault(["search", "해운대", "-c"], in: vault.path)
        expectSuccess(r)
        // Lines, not matches (the diary's second line holds two); the title in the front-matter is a line.
        // In search's order: rooms, then the diary.
        #expect(r.stdout == "rooms/busan.md:2\ndiary/2026/2026-11-06-일기.md:2\n", "\(r.stdout)")
        let long = try runVault(["search", "해운대", "--count", "--rooms"], in: vault.path)
        #expect(long.stdout == "rooms/busan.md:2\n")
        let none = try runVault(["search", "없는말", "-c"], in: vault.path)
        #expect(none.status == 1 && none.stdout.isEmpty)
        expectUnchanged(before, try vault.snapshot())
    }

    @Test func roomShowPrintsTheSettingsAndRoomSetEchoesThem() throws {
        let vault = try freshVault(locale: "ko_KR", timeZone: "Asia/Seoul")
        try vault.write(
            "rooms/plans.md",
            "---\ntitle: Plans\ncreated: 2026-11-01T10:00:00+09:00\nmodel: gpt-4o-mini\ntemperature: 0.7\n"
                + "stop: [\"END\", \"STOP\"]\n---\n\n\(promptMarker)\n")
        _ = try git(["add", "-A"], in: vault.path)
        _ = try git(["commit", "-q", "-m", "room: by hand"], in: vault.path)
        let before = try vault.snapshot()
        let shown = try runVault(["room", "show", "plans"], in: vault.path)
        expectSuccess(shown)
        #expect(
            shown.stdout == """
                rooms/plans.md
                title: Plans
                created: 2026-11-01T10:00:00+09:00
                model: gpt-4o-mini
                temperature: 0.7
                stop: [END, STOP]

                """, "\(shown.stdout)")
        let json = try runVault(["room", "show", "Plans", "--json"], in: vault.path)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["model"] as? String == "gpt-4o-mini" && object["stop"] as? [String] == ["END", "STOP"])
        #expect(object["temperature"] as? String == "0.7")
        let missing = try runVault(["room", "show", "nowhere"], in: vault.path)
        #expect(missing.status == 1 && missing.stderr.hasPrefix("vault: error: no room"), "\(missing.stderr)")
        expectUnchanged(before, try vault.snapshot())

        // `created yesterday`: the day before today in the vault's zone, stored as a day, echoed.
        let yesterday = Timestamp(date: Date(), timeZone: Self.seoul).localDate.adding(days: -1)
        let set = try runVault(["room", "set", "plans", "created", "yesterday"], in: vault.path)
        expectSuccess(set)
        #expect(set.stdout == "rooms/plans.md: created is now \(yesterday)\n", "\(set.stdout)")
        #expect(try vault.readText("rooms/plans.md").contains("\ncreated: \(yesterday)\n"))
        let local = try runVault(["room", "set", "plans", "created", "2026-11-21T09:30"], in: vault.path)
        // A time of day without an offset is a front-matter date as it is (FORMAT.md): stored as given.
        #expect(local.stdout == "rooms/plans.md: created is now 2026-11-21T09:30\n", "\(local.stdout)")
        let offset = try runVault(["room", "set", "plans", "created", "-2"], in: vault.path)
        #expect(offset.stdout == "rooms/plans.md: created is now \(yesterday.adding(days: -1))\n", "\(offset.stdout)")
        let model = try runVault(["room", "set", "plans", "model", " gpt-4o "], in: vault.path)
        #expect(model.stdout == "rooms/plans.md: model is now gpt-4o\n")
        let again = try runVault(["room", "set", "plans", "model", "gpt-4o"], in: vault.path)
        #expect(again.stdout == "rooms/plans.md: model is already gpt-4o\n")
        #expect(
            try git(["log", "--format=%s", "-3"], in: vault.path)
                == "room: Plans: set model\nroom: Plans: set created\nroom: Plans: set created\n")
        #expect(try git(["log", "--format=%s"], in: vault.path).split(separator: "\n").count == 6)
        // A date it cannot read is still refused, saying what to write; nothing changes.
        let kept = try vault.snapshot()
        let bad = try runVault(["room", "set", "plans", "created", "someday"], in: vault.path)
        #expect(bad.status == 1)
        #expect(
            bad.stderr.hasPrefix("vault: error: ") && bad.stderr.contains("write a date or time, e.g. 2026-11-21"),
            "\(bad.stderr)")
        expectUnchanged(kept, try vault.snapshot())
    }
}
