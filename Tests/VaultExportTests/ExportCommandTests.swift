import Foundation
import Testing
import VaultCore
import VaultTestSupport

/// `vault export`, run as the built binary on copies of `sample-vault/`.
@Suite("vault export")
struct ExportCommandTests {
    /// The paths `vault export ARGS --format json` exports, in order.
    func exportedPaths(_ arguments: [String], in dir: TemporaryDirectory) throws -> [String] {
        let result = try runVault(["export"] + arguments + ["--format", "json"], in: dir.path)
        guard result.status == 0 else { throw ExportTestFailure("vault export \(arguments) failed: \(result.stderr)") }
        let root = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        return (root?["items"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
    }

    @Test("--diary exports entries oldest first; --since, --until and --tag choose exactly the right ones")
    func diarySelection() throws {
        let dir = try Project.copyOfSampleVault()
        let d = { (name: String) in "diary/2026/" + name + ".md" }
        #expect(
            try exportedPaths(["--diary"], in: dir) == [
                d("2026-08-15-광복절-자전거"), d("2026-08-28-swift-동시성-공부"), d("2026-09-12-late-night-in-san-francisco"),
                d("2026-09-25-추석-연휴"), d("2026-09-30 회고"), d("2026-10-03-大阪の朝"), d("2026-10-22-10월-야근-주간"),
                d("2026-11-07-부산-둘째-날"), d("2026-11-14-단호박-수프"), d("2026-11-21-첫눈"),
            ])
        #expect(
            try exportedPaths(["--diary", "--since", "2026-09-01", "--until", "2026-10-31"], in: dir) == [
                d("2026-09-12-late-night-in-san-francisco"), d("2026-09-25-추석-연휴"), d("2026-09-30 회고"),
                d("2026-10-03-大阪の朝"), d("2026-10-22-10월-야근-주간"),
            ])
        // Bounds are inclusive days.
        #expect(try exportedPaths(["--diary", "--since", "2026-11-21"], in: dir) == [d("2026-11-21-첫눈")])
        #expect(
            try exportedPaths(["--diary", "--until", "2026-08-28"], in: dir) == [
                d("2026-08-15-광복절-자전거"), d("2026-08-28-swift-동시성-공부"),
            ])
        #expect(
            try exportedPaths(["--diary", "--tag", "여행"], in: dir) == [d("2026-10-03-大阪の朝"), d("2026-11-07-부산-둘째-날")])
        #expect(
            try exportedPaths(["--diary", "--since", "2026-11-01", "--tag", "겨울"], in: dir) == [
                d("2026-11-14-단호박-수프"), d("2026-11-21-첫눈"),
            ])

        // The Markdown is in the same order, with the vault's date headings.
        let md = try runVault(["export", "--diary", "--tag", "여행"], in: dir.path)
        #expect(md.status == 0)
        let headings = md.stdout.split(separator: "\n").filter { $0.hasPrefix("# ") }
        #expect(headings == ["# 2026년 10월 3일 토요일", "# 2026년 11월 7일 토요일"])
    }

    @Test("a date that cannot be read, an empty selection and misplaced filters are clear errors")
    func badDiaryArguments() throws {
        let dir = try Project.copyOfSampleVault()
        let bad = try runVault(["export", "--diary", "--since", "someday"], in: dir.path)
        #expect(bad.status == 64)
        #expect(bad.stderr.hasPrefix("vault: error: cannot read the date 'someday'"))
        #expect(bad.stdout.isEmpty)

        let none = try runVault(["export", "--diary", "--tag", "없는-태그"], in: dir.path)
        #expect(none.status == 1)
        #expect(none.stderr.contains("no diary entries tagged '없는-태그'"))

        let loose = try runVault(["export", "부산", "--tag", "여행"], in: dir.path)
        #expect(loose.status == 64)  // a usage error (README, "Exit status")
        #expect(loose.stderr.contains("use them with --diary"))

        let nothing = try runVault(["export"], in: dir.path)
        #expect(nothing.status == 64)  // a usage error (README, "Exit status")
        #expect(nothing.stderr.contains("name what to export"))

        let format = try runVault(["export", "부산", "--format", "pdf"], in: dir.path)
        #expect(format.status == 64)  // a usage error (README, "Exit status")
        #expect(format.stderr.contains("unknown format 'pdf'"))
    }

    @Test("named items mix rooms and diary entries, in the order given, each once")
    func namedItems() throws {
        let dir = try Project.copyOfSampleVault()
        #expect(
            try exportedPaths(["부산", "2026-11-21", "rooms/김치찌개-레시피.md", "부산-여행"], in: dir) == [
                "rooms/부산-여행.md", "diary/2026/2026-11-21-첫눈.md", "rooms/김치찌개-레시피.md",
            ])
        #expect(try exportedPaths(["--room", "sf"], in: dir) == ["rooms/sf-trip-packing-list.md"])
        let notRoom = try runVault(["export", "--room", "2026-11-21"], in: dir.path)
        #expect(notRoom.status == 1)
        #expect(notRoom.stderr.contains("is a diary entry, not a room"))
    }

    @Test("an unknown item fails clearly and writes nothing")
    func unknownItem() throws {
        let dir = try Project.copyOfSampleVault()
        let before = try dir.snapshot()
        let result = try runVault(["export", "부산", "없는-방", "-o", "out.md"], in: dir.path)
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "vault: error: no room or diary entry matches '없는-방'. "
                + "`vault rooms` and `vault diary list` show what there is.\n"
        )
        #expect(result.stdout.isEmpty)
        #expect(try dir.snapshot() == before)
    }

    @Test("-o refuses to overwrite without --force, never writes into .git or rooms, picks the format by extension")
    func outputFile() throws {
        let dir = try Project.copyOfSampleVault()
        let out = TemporaryDirectory("vault-export-out")
        try out.write("busan.md", "my notes\n")
        let before = try dir.snapshot()

        let refused = try runVault(["export", "부산", "-o", out.path + "/busan.md"], in: dir.path)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("already exists; pass --force to replace it"))
        #expect(try out.readText("busan.md") == "my notes\n")
        #expect(out.files() == ["busan.md"])
        #expect(try dir.snapshot() == before)

        let forced = try runVault(["export", "부산", "-o", out.path + "/busan.md", "--force"], in: dir.path)
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(forced.stdout.isEmpty)
        #expect(try out.readText("busan.md").hasPrefix("# 부산 여행\n\n### 🧑 사용자 · "))
        #expect(out.files() == ["busan.md"])  // no temporary file left behind

        // The extension chooses the format.
        #expect(try runVault(["export", "부산", "-o", out.path + "/busan.html"], in: dir.path).status == 0)
        let page = try ParsedHTML.parse(try out.readText("busan.html"))
        #expect(page.count("h1") == 1 && page.unclosed.isEmpty && page.title == "부산 여행")
        #expect(try runVault(["export", "부산", "-o", out.path + "/busan.json"], in: dir.path).status == 0)
        #expect(try JSONSerialization.jsonObject(with: Data(try out.read("busan.json"))) is [String: Any])

        // Never inside .git, never a Markdown file in rooms/ or diary/.
        try dir.write(".git/keep", "")
        let before2 = try dir.snapshot()
        for target in [".git/export.md", dir.path + "/.git/x.html", "rooms/export.md", "diary/2026/export.md"] {
            let r = try runVault(["export", "부산", "-o", target, "--force"], in: dir.path)
            #expect(r.status == 1, "\(target)")
            #expect(r.stderr.hasPrefix("vault: error: will not write"), "\(target): \(r.stderr)")
        }
        #expect(try dir.snapshot() == before2)

        // A folder that does not exist is an error, not a crash.
        let missing = try runVault(["export", "부산", "-o", out.path + "/no/such/x.md"], in: dir.path)
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("does not exist"))
    }

    @Test("HTML to a file: a missing attachment is a warning on stderr, not an error")
    func htmlWarning() throws {
        let dir = try Project.copyOfSampleVault()
        try dir.write("rooms/pic.md", roomText(title: "pic", [(.user, "![gone](../attachments/nope.png)")]))
        let out = TemporaryDirectory("vault-export-out")
        let result = try runVault(["export", "pic", "-o", out.path + "/pic.html"], in: dir.path)
        #expect(result.status == 0)
        #expect(
            result.stderr
                == "vault: warning: rooms/pic.md: the attachment attachments/nope.png (../attachments/nope.png) "
                + "is missing; left as a link\n"
        )
        let page = try ParsedHTML.parse(try out.readText("pic.html"))
        #expect(page.otherImages == ["../attachments/nope.png"])
    }
}
