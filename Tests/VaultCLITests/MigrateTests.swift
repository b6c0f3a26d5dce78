import Foundation
import Testing
import VaultCore
import VaultTestSupport

/// `vault migrate` (format 1 → 2: each room in `rooms/<yyyy>/`), on real vaults checked with
/// the `git` command line.
@Suite struct MigrateTests {
    /// A vault of format 1 with rooms made in three years (by `created:`), one with no `created:`
    /// (dated by its last message), and a diary entry; committed.
    func flatVault() throws -> TemporaryDirectory {
        let dir = try freshVault(locale: "ko_KR", timeZone: "Asia/Seoul")
        for (slug, title, created) in [
            ("busan", "부산 여행", "2024-03-01T10:00:00+09:00"), ("jeju", "제주", "2025-12-31T23:59:00+09:00"),
            ("seoul", "서울", "2026-01-01T00:00:10+09:00"),
        ] {
            try dir.write(
                "rooms/\(slug).md",
                "---\ntitle: \(title)\ncreated: \(created)\n---\n\n## 🧑 user · 날짜 <!-- \(created) m-\(slug.uppercased().padding(toLength: 12, withPad: "A", startingAt: 0)) -->\n\n\(title) 첫 말\n")
        }
        try dir.write(
            "rooms/undated.md",
            "---\ntitle: 날짜 없는 방\n---\n\n## 🧑 user · 날짜 <!-- 2023-05-05T12:00:00+09:00 m-UNDATEDAAAAA -->\n\n말\n")
        expectSuccess(try runVault(["write", "일기", "--body", "본문", "--date", "2026-11-01"], in: dir.path))
        _ = try git(["add", "-A"], in: dir.path)
        _ = try git(["commit", "-qm", "rooms by hand"], in: dir.path)
        #expect(try git(["status", "--porcelain"], in: dir.path) == "")
        return dir
    }

    @Test func movesEachRoomToItsYearInOneCommitOfRenames() throws {
        let dir = try flatVault()
        let cache = TemporaryDirectory("migrate-cache")
        let env = ["XDG_CACHE_HOME": cache.path]
        let before = try runVault(["rooms", "--format", "%(title)|%(preview)"], in: dir.path, environment: env).stdout
        let config = try dir.readText("vault.yml")
        let head = try git(["rev-parse", "HEAD"], in: dir.path)

        let r = try runVault(["migrate"], in: dir.path, environment: env)
        expectSuccess(r)
        #expect(r.stdout.contains("Moved 4 rooms"), "\(r.stdout)")
        // One commit on the last one, of renames only (the bytes of each room as they were).
        #expect(try git(["rev-parse", "HEAD~1"], in: dir.path) == head)
        let moved = try git(["show", "-M", "--name-status", "--format=%s", "HEAD"], in: dir.path)
        #expect(moved.hasPrefix("migrate: format 3, 4 rooms filed by year (2023, 2024, 2025, 2026)"), "\(moved)")
        for (from, to) in [
            ("busan", "rooms/2024/busan.md"), ("jeju", "rooms/2025/jeju.md"), ("seoul", "rooms/2026/seoul.md"),
            ("undated", "rooms/2023/undated.md"),
        ] {
            #expect(moved.contains("R100\trooms/\(from).md\t\(to)"), "\(moved)")
            #expect(FileManager.default.fileExists(atPath: dir.path + "/" + to))
        }
        #expect(try git(["status", "--porcelain"], in: dir.path) == "")
        _ = try git(["fsck", "--strict", "--no-progress"], in: dir.path)
        // vault.yml: only the format line changed; .gitattributes gives rooms at any depth and volumes to the driver.
        let migrated = try dir.readText("vault.yml")
        #expect(migrated == config.replacingOccurrences(of: "format: 1\n", with: "format: 3\n"), "\(migrated)")
        #expect(try dir.readText(".gitattributes").contains("\nrooms/**/*.md merge=vault\nvolumes/**/*.md merge=vault\n"))
        #expect(!(try dir.readText(".gitattributes").contains("\nrooms/*.md merge=vault\n")))
        // Listed as before (the listing cache, made before, knows the moved files by their new paths).
        #expect(try runVault(["rooms", "--format", "%(title)|%(preview)"], in: dir.path, environment: env).stdout == before)
        try expectCheckClean(dir.path)
        // Names find the moved rooms; a chat turn and a new room go to their year's folder.
        let original = try dir.readText("rooms/2024/busan.md")
        expectSuccess(try runVault(["chat", "busan", "다시", "--provider", "offline"], in: dir.path, environment: env))
        #expect(try dir.readText("rooms/2024/busan.md").contains("다시"))
        // Its history goes on past the move (the commits of its former name), and a version from
        // before the move comes back under its new name.
        let log = try runVault(["log", "busan"], in: dir.path, environment: env)
        expectSuccess(log)
        for summary in ["chat: 부산 여행", "migrate: format 3", "rooms by hand"] {
            #expect(log.stdout.contains(summary), "\(log.stdout)")
        }
        let restored = try runVault(["restore", "busan", "--at", head.trimmingCharacters(in: .whitespacesAndNewlines)], in: dir.path, environment: env)
        expectSuccess(restored)
        #expect(try dir.readText("rooms/2024/busan.md") == original)
        #expect(try git(["log", "-1", "--format=%s"], in: dir.path).hasPrefix("restore: rooms/2024/busan.md"))
        let made = try runVault(["room", "new", "Busan"], in: dir.path, environment: env)
        expectSuccess(made)
        let year = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "Asia/Seoul")!, from: Date()).year!
        // The name is taken in another year's folder: the new room is `busan-2`.
        #expect(made.stdout.contains("Made rooms/\(year)/busan-2.md (rooms/2024/busan.md has that title's name already"), "\(made.stdout)")
        #expect(try git(["status", "--porcelain"], in: dir.path) == "")
        // Again: nothing to do, no commit.
        let again = try runVault(["migrate"], in: dir.path, environment: env)
        expectSuccess(again)
        #expect(again.stdout.contains("Nothing to migrate"), "\(again.stdout)")
        #expect(try git(["log", "-1", "--format=%s"], in: dir.path).hasPrefix("room: new"))
    }

    @Test func aDryRunSaysWhatWouldMoveAndChangesNothing() throws {
        let dir = try flatVault()
        let files = try vaultFiles(dir.path)
        let head = try git(["rev-parse", "HEAD"], in: dir.path)
        let r = try runVault(["migrate", "--dry-run"], in: dir.path)
        expectSuccess(r)
        #expect(r.stdout.contains("rooms/busan.md -> rooms/2024/busan.md"), "\(r.stdout)")
        #expect(r.stdout.contains("Would move 4 rooms"), "\(r.stdout)")
        expectUnchanged(files, try vaultFiles(dir.path))
        #expect(try git(["rev-parse", "HEAD"], in: dir.path) == head)
    }

    /// A hand edit of a room is committed first, as its own commit; a room whose name its
    /// year's folder has already stays where it is, said so, its bytes untouched.
    @Test func handEditsComeFirstAndATakenNameStays() throws {
        let dir = try flatVault()
        try dir.write("rooms/jeju.md", try dir.readText("rooms/jeju.md") + "\n손으로 쓴 줄\n")
        try dir.write("rooms/2024/busan.md", "---\ntitle: 다른 부산\ncreated: 2024-05-05T10:00:00+09:00\n---\n")
        _ = try git(["add", "rooms/2024/busan.md"], in: dir.path)
        _ = try git(["commit", "-qm", "another busan"], in: dir.path)
        let busan = try dir.readText("rooms/busan.md")
        let r = try runVault(["migrate"], in: dir.path)
        expectSuccess(r)
        #expect(r.stderr.contains("left rooms/busan.md in rooms/: rooms/2024/busan.md is there already"), "\(r.stderr)")
        let log = try git(["log", "--format=%s", "-3"], in: dir.path).split(separator: "\n")
        #expect(log.first?.hasPrefix("migrate: format 3, 3 rooms") == true, "\(log)")
        #expect(log.dropFirst().first?.hasPrefix("edit:") == true, "\(log)")
        #expect(try dir.readText("rooms/2025/jeju.md").hasSuffix("손으로 쓴 줄\n"))
        #expect(try dir.readText("rooms/busan.md") == busan)
        #expect(try git(["status", "--porcelain"], in: dir.path) == "")
        // Two rooms named busan now: the name is ambiguous, and says where both are.
        let chat = try runVault(["chat", "busan", "hi", "--provider", "offline"], in: dir.path)
        expectUserError(chat, ["rooms/busan.md", "rooms/2024/busan.md"])
    }

    /// A vault of a format this build does not know is refused before anything is read or written.
    @Test func aLaterFormatIsRefused() throws {
        let dir = try flatVault()
        let config = try dir.readText("vault.yml").replacingOccurrences(of: "format: 1\n", with: "format: 4\n")
        try dir.write("vault.yml", config)
        _ = try git(["commit", "-qam", "format 4"], in: dir.path)
        let files = try vaultFiles(dir.path)
        for args in [["rooms"], ["migrate"], ["chat", "busan", "hi", "--provider", "offline"]] {
            let r = try runVault(args, in: dir.path)
            expectUserError(r, ["vault.yml", "format 4", "knows formats 1 to 3", "update vault"])
        }
        expectUnchanged(files, try vaultFiles(dir.path))
        #expect(try git(["status", "--porcelain"], in: dir.path) == "")
    }

    /// An import that leaves a thousand rooms or more right in `rooms/` suggests `vault migrate`;
    /// after it, imported conversations go to the year they were made in.
    @Test func anImportOfThousandsOfRoomsSuggestsMigratingAndThenFilesByYear() throws {
        let dir = try freshVault(locale: "ko_KR", timeZone: "Asia/Seoul")
        let export = TemporaryDirectory("migrate-export")
        let made = Process()
        made.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        made.arguments = [
            "python3", Project.root + "/Benchmarks/generate-chatgpt-export.py", export.path + "/export",
            // Short conversations: the rooms' number is the point, not their size (the default
            // 100,000 messages took 20 s to write and 30 s to import in a debug build).
            "--conversations", "950", "--messages", "3000", "--seed", "5",
        ]
        made.standardOutput = FileHandle.nullDevice
        try made.run()
        made.waitUntilExit()
        #expect(made.terminationStatus == 0)
        try FileManager.default.removeItem(atPath: export.path + "/export/chat.html")
        let imported = try runVault(["import", "chatgpt", export.path + "/export"], in: dir.path)
        expectSuccess(imported)
        let rooms = try FileManager.default.contentsOfDirectory(atPath: dir.path + "/rooms").count
        #expect(rooms >= 1_000, "\(rooms) rooms")
        #expect(imported.stdout.contains("The vault has \(rooms) rooms: `vault migrate` files them by year"), "\(imported.stdout)")
        expectSuccess(try runVault(["migrate"], in: dir.path))
        #expect(try git(["status", "--porcelain"], in: dir.path) == "")
        // Right in rooms/: only year folders now. A conversation made in 2026 goes to rooms/2026/.
        let folders = try FileManager.default.contentsOfDirectory(atPath: dir.path + "/rooms")
        #expect(folders.allSatisfy { $0.count == 4 && Int($0) != nil }, "\(folders)")
        let logs = TemporaryDirectory("claude-logs")
        let session = "7a0c2a1e-0000-4000-8000-00000000000a"
        let line = { (o: [String: Any]) in String(decoding: try! JSONSerialization.data(withJSONObject: o), as: UTF8.self) }
        try logs.write("p/\(session).jsonl", [
            line(["type": "user", "uuid": "u1", "parentUuid": NSNull(), "sessionId": session, "timestamp": "2026-03-01T09:00:00.000Z",
                  "cwd": "/p", "isSidechain": false, "message": ["role": "user", "content": "질문"]]),
        ].joined(separator: "\n") + "\n")
        let more = try runVault(["import", "claude-code", logs.path + "/p/\(session).jsonl"], in: dir.path)
        expectSuccess(more)
        #expect(!more.stdout.contains("vault migrate"), "\(more.stdout)")
        let added = try git(["-c", "core.quotePath=false", "show", "--name-status", "--format=", "HEAD"], in: dir.path)
        #expect(added.hasPrefix("A\trooms/2026/"), "\(added)")
    }
}
