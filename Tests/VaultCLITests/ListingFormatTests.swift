import Foundation
import Testing
import VaultCore
import VaultTestSupport

/// Listings in scripts (issue 27, item 8): `vault rooms` and `vault diary list` into a pipe print
/// each row's fields whole, tab-separated, path first; on a terminal (here: `COLUMNS`) the
/// aligned view; `--format` templates; `vault room new` with a title whose name is taken.
@Suite struct ListingFormatTests {
    /// A vault (ko_KR, Seoul) with two rooms titled "부산 여행", one with a title longer than the
    /// aligned view's column, and two diary entries; nothing committed by hand.
    func vaultWithTwins() throws -> TemporaryDirectory {
        let vault = try freshVault(locale: "ko_KR", timeZone: "Asia/Seoul")
        func room(_ title: String, _ time: String, _ id: String, _ text: String) -> String {
            """
            ---
            title: \(title)
            created: 2026-11-01T10:00:00+09:00
            ---

            ## 🧑 user · 2026년 11월 21일 토요일 오전 9:31 <!-- \(time) \(id) -->

            \(text)

            \(promptMarker)

            """
        }
        try vault.write(
            "rooms/부산-여행.md", room("부산 여행", "2026-11-21T09:31:07+09:00", "m-01JPA3K8Z4QX", "해운대 근처 숙소 추천해줘"))
        try vault.write(
            "rooms/부산-여행-2.md", room("부산 여행", "2026-11-20T22:10:41+09:00", "m-01JPA3K8Z4QY", "KTX 시간표 알려줘"))
        try vault.write(
            "rooms/long.md",
            room(
                "A title much longer than the twenty-four columns", "2026-11-19T08:00:00+09:00", "m-01JPA3K8Z4QZ",
                "A first line\twith a tab"))
        try vault.write(
            "diary/2026/2026-11-21-첫눈.md",
            "---\nid: d-0R7N7R8GYB80\ntitle: 첫눈\ncreated: 2026-11-21T08:00:00+09:00\ntags: [겨울, 산책]\n---\n\n"
                + "# 2026년 11월 21일 토요일\n\n첫눈이 왔다.\n")
        try vault.write(
            "diary/2026/2026-11-20-산책.md",
            "---\nid: d-0R7N7R8GYB81\ntitle: 산책\ncreated: 2026-11-20T19:00:00+09:00\n---\n\n"
                + "# 2026년 11월 20일 금요일\n\n한강을 걸었다.\n")
        return vault
    }

    @Test func roomsIntoAPipeAreTabSeparatedWholeFieldsWithThePath() throws {
        let vault = try vaultWithTwins()
        let before = try vault.snapshot()
        let r = try runVault(["rooms"], in: vault.path)
        expectSuccess(r)
        #expect(
            r.stdout == """
                rooms/부산-여행.md\t2026-11-21T09:31:07+09:00\t부산 여행\t해운대 근처 숙소 추천해줘
                rooms/부산-여행-2.md\t2026-11-20T22:10:41+09:00\t부산 여행\tKTX 시간표 알려줘
                rooms/long.md\t2026-11-19T08:00:00+09:00\tA title much longer than the twenty-four columns\tA first line^Iwith a tab

                """, "\(r.stdout)")
        #expect(r.stderr.isEmpty)
        // On a terminal (COLUMNS set): the aligned view, the long title cut to its column (30 of
        // 100: two fifths of what the marks and the date column, `September 28, 2024`, leave).
        let aligned = try runVault(["rooms", "--locale", "en_US"], in: vault.path, environment: ["COLUMNS": "100"])
        expectSuccess(aligned)
        let lines = aligned.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines[2].contains(" A title much longer than the … 🧑 A first line^Iwith a tab"), "\(lines[2])")
        #expect(!aligned.stdout.contains("\t") && !aligned.stdout.contains("rooms/"))
        expectUnchanged(before, try vault.snapshot())
    }

    @Test func diaryListIntoAPipeIsTabSeparatedWholeFields() throws {
        let vault = try vaultWithTwins()
        let before = try vault.snapshot()
        let r = try runVault(["diary", "list"], in: vault.path)
        expectSuccess(r)
        #expect(
            r.stdout == """
                diary/2026/2026-11-21-첫눈.md\t2026-11-21\t첫눈\t#겨울 #산책\t첫눈이 왔다.
                diary/2026/2026-11-20-산책.md\t2026-11-20\t산책\t\t한강을 걸었다.

                """, "\(r.stdout)")
        let aligned = try runVault(["diary", "list"], in: vault.path, environment: ["COLUMNS": "100"])
        #expect(aligned.stdout.hasPrefix("2026년 11월 21일"), "\(aligned.stdout)")
        expectUnchanged(before, try vault.snapshot())
    }

    /// A last message and an entry whose first lines are far longer than any terminal (and than
    /// the 80 characters previews were once cut to): into a pipe, whole, so `grep` finds their
    /// last words; on a pseudo-terminal of 100 columns, the same aligned rows as before, each cut
    /// to the width.
    @Test func longTitlesAndPreviewsAreWholeIntoAPipeAndFittedOnATerminal() throws {
        let vault = try vaultWithTwins()
        let line = (1...40).map { "word\($0)" }.joined(separator: " ") + " 끝말잇기"
        let title = "A title that runs past the twenty-four columns and then some more words at its end"
        try vault.write(
            "rooms/long.md",
            """
            ---
            title: \(title)
            created: 2026-11-01T10:00:00+09:00
            ---

            ## 🧑 user · 2026년 11월 19일 <!-- 2026-11-19T08:00:00+09:00 m-01JPA3K8Z4QZ -->

            \(line)
            second line

            \(promptMarker)

            """)
        try vault.write(
            "diary/2026/2026-11-22-긴-줄.md",
            "---\nid: d-0R7N7R8GYB82\ntitle: 긴 줄\ncreated: 2026-11-22T08:00:00+09:00\n---\n\n\(line)\n")
        // The pseudo-terminal's driver is written into the folder: there before the snapshot.
        try vault.write(".pty-driver.py", ColorAndPagerTests.driver)
        let before = try vault.snapshot()
        let rooms = try runVault(["rooms"], in: vault.path)
        expectSuccess(rooms)
        #expect(rooms.stdout.contains("rooms/long.md\t2026-11-19T08:00:00+09:00\t\(title)\t\(line)\n"), "\(rooms.stdout)")
        let diary = try runVault(["diary", "list"], in: vault.path)
        expectSuccess(diary)
        #expect(diary.stdout.hasPrefix("diary/2026/2026-11-22-긴-줄.md\t2026-11-22\t긴 줄\t\t\(line)\n"), "\(diary.stdout)")
        // Listed again from the listing cache: still whole.
        #expect(try runVault(["rooms"], in: vault.path).stdout == rooms.stdout)
        #expect(try runVault(["diary", "list"], in: vault.path).stdout == diary.stdout)
        // --json carries the same whole preview.
        let json = try runVault(["rooms", "--json"], in: vault.path)
        let list = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(list.first { $0["path"] as? String == "rooms/long.md" }?["preview"] as? String == line)
        // On a terminal: the columns, the title cut to 30, the preview to what the width leaves.
        let pty = ColorAndPagerTests()
        let onRooms = try pty.onTerminal(["rooms", "--color", "never", "--locale", "en_US"], in: vault, columns: 100)
        #expect(onRooms.status == 0)
        let roomLines = onRooms.output.split(separator: "\n").map(String.init)
        #expect(roomLines.count == 3, "\(roomLines)")
        let longRow = try #require(roomLines.first { $0.contains("A title that runs past the tw…") }, "\(roomLines)")
        #expect(longRow.contains(" A title that runs past the tw… 🧑 word1 word2 "), "\(longRow)")
        #expect(longRow.hasSuffix("…") && DisplayWidth.of(longRow) == 100, "\(longRow)")
        let onDiary = try pty.onTerminal(["diary", "list", "--color", "never"], in: vault, columns: 100)
        let diaryLines = onDiary.output.split(separator: "\n").map(String.init)
        #expect(diaryLines.count == 3, "\(diaryLines)")
        #expect(diaryLines[0].contains(" 긴 줄") && diaryLines[0].contains(" word1 word2 "), "\(diaryLines[0])")
        #expect(diaryLines[0].hasSuffix("…") && DisplayWidth.of(diaryLines[0]) <= 100, "\(diaryLines[0])")
        for row in roomLines + diaryLines {
            #expect(DisplayWidth.of(row) <= 100 && !row.contains("\t") && !row.contains("끝말잇기"), "\(row)")
        }
        expectUnchanged(before, try vault.snapshot())
    }

    @Test func formatTemplatesNameFieldsAndBytes() throws {
        let vault = try vaultWithTwins()
        let before = try vault.snapshot()
        // Also on a terminal: --format wins over the aligned view.
        let rooms = try runVault(
            ["rooms", "--format", "%(slug)%09%(title)|%(role)|%(unread)|100%%"], in: vault.path,
            environment: ["COLUMNS": "100"])
        expectSuccess(rooms)
        #expect(
            rooms.stdout == """
                부산-여행\t부산 여행|user|0|100%
                부산-여행-2\t부산 여행|user|0|100%
                long\tA title much longer than the twenty-four columns|user|0|100%

                """, "\(rooms.stdout)")
        let diary = try runVault(["diary", "list", "--format", "%(date) %(id) %(created) %(tags)"], in: vault.path)
        expectSuccess(diary)
        #expect(
            diary.stdout == """
                2026-11-21 d-0R7N7R8GYB80 2026-11-21T08:00:00+09:00 #겨울 #산책
                2026-11-20 d-0R7N7R8GYB81 2026-11-20T19:00:00+09:00 

                """, "\(diary.stdout)")
        expectUnchanged(before, try vault.snapshot())
    }

    @Test func aTemplateVaultCannotReadIsAUsageError() throws {
        let vault = try vaultWithTwins()
        let before = try vault.snapshot()
        let cases: [([String], String)] = [
            (
                ["rooms", "--format", "%(path) %(size)"],
                "vault: error: --format: unknown field '%(size)'; the fields are %(path) %(slug) %(title)"
                    + " %(last_activity) %(when) %(role) %(author) %(kind) %(members) %(unread) %(preview) %(branched_at)\n"
            ),
            (
                ["diary", "list", "--format", "%(title"],
                "vault: error: --format: '%(' without its ')'; the fields are %(path) %(id) %(date) %(day)"
                    + " %(created) %(title) %(tags) %(preview)\n"
            ),
            (
                ["rooms", "--format", "%zz"],
                "vault: error: --format: write %(field), %% or %xx (two hex digits), not '%z'; the fields are"
                    + " %(path) %(slug) %(title) %(last_activity) %(when) %(role) %(author) %(kind) %(members) %(unread)"
                    + " %(preview) %(branched_at)\n"
            ),
            (["rooms", "--json", "--format", "%(path)"], "vault: error: --json and --format do not go together: give one\n"),
            (["diary", "list", "-n=-2"], "vault: error: -n takes a count of 0 or more, not -2\n"),
        ]
        for (arguments, message) in cases {
            let r = try runVault(arguments, in: vault.path)
            #expect(r.status == 64, "\(arguments): \(r.stderr)")
            #expect(r.stderr == message, "\(arguments)")
            #expect(r.stdout.isEmpty)
        }
        expectUnchanged(before, try vault.snapshot())
    }

    @Test func roomsAndDiaryListTakeN() throws {
        let vault = try vaultWithTwins()
        let before = try vault.snapshot()
        let rooms = try runVault(["rooms", "-n", "2", "--format", "%(path)"], in: vault.path)
        expectSuccess(rooms)
        #expect(rooms.stdout == "rooms/부산-여행.md\nrooms/부산-여행-2.md\n")
        let json = try runVault(["rooms", "--max-count", "1", "--json"], in: vault.path)
        let list = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(list.map { $0["path"] as? String } == ["rooms/부산-여행.md"])
        let diary = try runVault(["diary", "list", "-n", "1"], in: vault.path)
        #expect(diary.stdout == "diary/2026/2026-11-21-첫눈.md\t2026-11-21\t첫눈\t#겨울 #산책\t첫눈이 왔다.\n")
        let none = try runVault(["diary", "list", "-n", "0"], in: vault.path)
        #expect(none.status == 0 && none.stdout.isEmpty)
        expectUnchanged(before, try vault.snapshot())
    }

    @Test func aRoomWhoseTitlesNameIsTakenSaysWhereItWasMadeOrIsRefused() throws {
        let vault = try freshVault(locale: "ko_KR", timeZone: "Asia/Seoul")
        let first = try runVault(["room", "new", "부산 여행"], in: vault.path)
        #expect(first.stdout == "Made rooms/부산-여행.md. Talk in it with `vault chat 부산-여행 \"…\"`.\n")
        let second = try runVault(["room", "new", "부산 여행"], in: vault.path)
        expectSuccess(second)
        #expect(
            second.stdout
                == "Made rooms/부산-여행-2.md (rooms/부산-여행.md has that title's name already; --unique refuses"
                + " instead). Talk in it with `vault chat 부산-여행-2 \"…\"`.\n", "\(second.stdout)")
        #expect(try git(["log", "--format=%s"], in: vault.path) == "room: new 부산 여행\nroom: new 부산 여행\ninit: vault\n")
        // --unique: refused, nothing written or committed.
        let before = try vault.snapshot()
        let refused = try runVault(["room", "new", "부산 여행", "--unique"], in: vault.path)
        #expect(refused.status == 1)
        #expect(
            refused.stderr
                == "vault: error: rooms/부산-여행.md already has that title's name: give another title, or leave out"
                + " --unique to make rooms/부산-여행-3.md\n", "\(refused.stderr)")
        #expect(refused.stdout.isEmpty)
        expectUnchanged(before, try vault.snapshot())
        // A free name with --unique is made as usual.
        let fresh = try runVault(["room", "new", "제주 여행", "--unique"], in: vault.path)
        expectSuccess(fresh)
        #expect(fresh.stdout == "Made rooms/제주-여행.md. Talk in it with `vault chat 제주-여행 \"…\"`.\n")
    }
}
