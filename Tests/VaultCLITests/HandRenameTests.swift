import Foundation
import Testing
import VaultTestSupport

/// Files a person renames and makes by hand, as editors and note apps do: `mv` and `git mv`
/// (Obsidian and VS Code rename a note in place), entries renamed to a title, Obsidian's daily
/// notes (no front-matter, their own `# To-Dos` heading, names like `20240502.md`).
///
/// A rename by hand is committed as a rename by the next command that commits the file: the
/// old path leaves HEAD in the same commit (one copy of the room, `git status` clean, `git log
/// --follow` follows it), and an entry keeps its date under any name.
@Suite struct HandRenameTests {
    func sampleVault() throws -> TemporaryDirectory {
        let vault = try Project.copyOfSampleVault()
        expectSuccess(try runVault(["init", "."], in: vault.path))
        return vault
    }

    /// Paths HEAD holds below `folder`.
    func committed(_ folder: String, in vault: TemporaryDirectory) throws -> [String] {
        try git(["-c", "core.quotePath=false", "ls-tree", "-r", "--name-only", "HEAD", folder], in: vault.path)
            .split(separator: "\n").map(String.init)
    }

    func rename(_ from: String, _ to: String, in vault: TemporaryDirectory, byGit: Bool) throws {
        if byGit {
            try git(["mv", from, to], in: vault.path)
        } else {
            try FileManager.default.moveItem(atPath: vault.path + "/" + from, toPath: vault.path + "/" + to)
        }
    }

    /// After the command: clean status, the old path gone from HEAD, the new one there, and
    /// the last commits saw a rename (`--follow` reaches the file's first commit).
    func expectRenamed(
        _ from: String, _ to: String, in vault: TemporaryDirectory, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(try git(["status", "--porcelain"], in: vault.path) == "", sourceLocation: sourceLocation)
        let heads = try committed(String(to.split(separator: "/").first!), in: vault)
        #expect(!heads.contains(from), "HEAD still has \(from)", sourceLocation: sourceLocation)
        #expect(heads.contains(to), "HEAD lacks \(to)", sourceLocation: sourceLocation)
        let followed = try git(["-c", "core.quotePath=false", "log", "--follow", "--name-status", "--format=%s", "--", to], in: vault.path)
        #expect(followed.contains("init: vault"), "git log --follow stops at the rename:\n\(followed)", sourceLocation: sourceLocation)
        #expect(
            followed.contains(where: { $0 == "R" }) && followed.contains("renamed to \(to)"),
            "no rename commit:\n\(followed)", sourceLocation: sourceLocation)
    }

    @Test(arguments: [false, true], [
        ["chat", "errors", "안녕?", "--provider", "offline"],
        ["say", "errors", "나중에 다시 볼게요"],
        ["room", "set", "errors", "model", "gpt-4o"],
        ["room", "join", "errors"],
    ])
    func aRoomRenamedByHandIsRenamedByTheNextCommand(byGit: Bool, command: [String]) throws {
        let vault = try sampleVault()
        let from = "rooms/부산-여행.md"
        let to = "rooms/errors.md"
        let messagesBefore = try vault.readText(from).components(separatedBy: "\n## ").count
        try rename(from, to, in: vault, byGit: byGit)
        let r = try runVault(command, in: vault.path)
        // `room join` of a room that is not shared is refused, and writes nothing.
        guard r.status == 0 else {
            #expect(command[1] == "join", "\(command): \(r.stderr)")
            #expect(try committed("rooms", in: vault).contains(from), "a refused command committed the rename")
            return
        }
        try expectRenamed(from, to, in: vault)
        #expect(try vault.readText(to).components(separatedBy: "\n## ").count >= messagesBefore)
    }

    @Test(arguments: [false, true])
    func anEntryRenamedByHandKeepsItsDateAndIsRenamed(byGit: Bool) throws {
        let vault = try sampleVault()
        let from = "diary/2026/2026-11-21-첫눈.md"
        let to = "diary/2026/밤 늦게.md"
        try rename(from, to, in: vault, byGit: byGit)
        // Found by its date, which is its `created`, not its name any more.
        let shown = try runVault(["show", "2026-11-21"], in: vault.path)
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stdout.contains(to) && shown.stdout.contains("첫눈이 왔다"), "\(shown.stdout)")
        let listed = try runVault(["diary", "list"], in: vault.path)
        #expect(listed.stdout.contains("\(to)\t2026-11-21"), "\(listed.stdout)")
        let tagged = try runVault(["tag", "2026-11-21", "+눈"], in: vault.path)
        #expect(tagged.status == 0, "\(tagged.stderr)")
        try expectRenamed(from, to, in: vault)
    }

    /// Format 3: a long room renamed by `mv` keeps its older messages; its volumes move with it
    /// in the same commit.
    @Test func aLongRoomsVolumesFollowItsRenameByHand() throws {
        let dir = try freshVault()
        let config = try dir.readText("vault.yml")
        try dir.write("vault.yml", config.replacingOccurrences(of: "format: 1\n", with: "format: 3\n"))
        try dir.write(VolumeTests.room, VolumeTests.head + VolumeTests.messages(6000) + promptMarker + "\n")
        try git(["add", "-A"], in: dir.path)
        try git(["-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "-m", "long room"], in: dir.path)
        // The first turn rolls it over into volumes/long/.
        expectSuccess(try runVault(["say", "long", "첫 번째"], in: dir.path))
        let volumes = try committed("volumes", in: dir)
        try #require(!volumes.isEmpty && volumes.allSatisfy { $0.hasPrefix("volumes/long/") }, "\(volumes)")
        try FileManager.default.moveItem(atPath: dir.path + "/rooms/long.md", toPath: dir.path + "/rooms/longer.md")
        expectSuccess(try runVault(["say", "longer", "두 번째"], in: dir.path))
        #expect(try git(["status", "--porcelain"], in: dir.path) == "")
        #expect(try committed("rooms", in: dir) == ["rooms/longer.md"])
        #expect(try committed("volumes", in: dir) == volumes.map { $0.replacingOccurrences(of: "volumes/long/", with: "volumes/longer/") })
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/volumes/long"))
        let shown = try runVault(["show", "longer"], in: dir.path)
        #expect(shown.stdout.contains("메시지 0: 부산") && shown.stdout.contains("두 번째"), "the room's older messages are lost")
        #expect(try runVault(["check"], in: dir.path).status == 0)
    }

    /// Obsidian's daily notes: no front-matter, the person's own headings, its date formats.
    @Test func dailyNotesReadAsThePersonWroteThem() throws {
        let vault = try freshVault(locale: "ko_KR", timeZone: "Asia/Seoul")
        try vault.write("diary/2024/2024-05-01.md", "# To-Dos\n- [ ] 장보기\n- [x] 운동\n\n오늘 일기.\n")
        try vault.write("diary/2024/20240502.md", "# 회의록\n\n팀 회의.\n")
        try vault.write("diary/2024/2024.05.04.md", "점심: 냉면\n")
        try vault.write("diary/2024/2024-05-03.md", "# 2024 목표\n\n- 매일 걷기\n")
        try vault.write("diary/2024/메모.md", "날짜 없는 메모\n")
        let first = try runVault(["show", "2024-05-01"], in: vault.path)
        #expect(first.stdout.hasPrefix("# 2024년 5월 1일 수요일\n"), "\(first.stdout)")
        #expect(first.stdout.contains("\n# To-Dos\n- [ ] 장보기"), "the person's heading is hidden: \(first.stdout)")
        let compact = try runVault(["show", "2024-05-02"], in: vault.path)
        #expect(compact.status == 0, "\(compact.stderr)")
        #expect(compact.stdout.hasPrefix("# 2024년 5월 2일 목요일\n") && compact.stdout.contains("# 회의록"), "\(compact.stdout)")
        let dotted = try runVault(["show", "2024-05-04"], in: vault.path)
        #expect(dotted.stdout.contains("냉면"), "\(dotted.stdout) \(dotted.stderr)")
        let goals = try runVault(["show", "2024-05-03"], in: vault.path)
        #expect(goals.stdout.contains("# 2024 목표\n"), "a heading with digits that is no date is hidden: \(goals.stdout)")
        let undated = try runVault(["show", "메모"], in: vault.path)
        #expect(!undated.stdout.hasPrefix("# \n") && !undated.stdout.contains("\n# \n"), "an empty heading: \(undated.stdout)")
        let listed = try runVault(["diary", "list"], in: vault.path).stdout
        #expect(listed.contains("diary/2024/2024-05-01.md\t2024-05-01\tTo-Dos\t"), "\(listed)")
        #expect(listed.contains("diary/2024/20240502.md\t2024-05-02\t회의록\t"), "\(listed)")
        let checked = try runVault(["check"], in: vault.path)
        #expect(checked.stdout.contains("diary/2024/메모.md:1: warning: the entry has no date"), "\(checked.stdout)")
        #expect(!checked.stdout.contains("2024-05-01.md") && !checked.stdout.contains("20240502.md"), "\(checked.stdout)")
    }
}
