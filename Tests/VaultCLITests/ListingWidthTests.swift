import Foundation
import Testing
import VaultCore
import VaultTestSupport

/// `vault rooms` and `vault diary list` on terminals of 60, 80 and 160 columns (`COLUMNS`), in
/// Korean (Hangul two columns wide) and English: no row is wider than the terminal, no date is
/// ever cut (`2024년 12월 1…`), titles take the width there is, two branch rooms of one
/// conversation are told apart, and a tag is shown whole or not at all (`#frie…`).
@Suite struct ListingWidthTests {
    static let widths = [60, 80, 160]

    /// A room file: its title, front-matter lines, one message at `time`.
    static func room(_ title: String, _ extra: String = "", time: String, id: String, text: String) -> String {
        "---\ntitle: \(title)\ncreated: 2024-12-01T09:00:00+09:00\n\(extra)---\n\n"
            + "## 🧑 user · x <!-- \(time) \(id) -->\n\n\(text)\n\n" + promptMarker + "\n"
    }

    /// Rooms last active in an earlier year (the widest date a listing writes), two of them
    /// branches of one long-titled conversation, and diary entries with tags.
    static func vault(locale: String) throws -> TemporaryDirectory {
        let vault = try freshVault(locale: locale, timeZone: "Asia/Seoul")
        let long = "주말마다 가고 싶은 제주도 오름과 바닷가 산책길 정리"
        try vault.write("rooms/jeju.md", room(long, time: "2024-12-15T10:00:00+09:00", id: "m-AAAAAAAAAAA1", text: "처음 질문"))
        for (n, answer) in [(2, "한라산부터 오르는 길로 다시 물어볼게"), (3, "우도와 성산 일출봉 쪽으로 바꿔서")] {
            try vault.write(
                "rooms/jeju-branch-\(n).md",
                room(
                    "\(long) · branch \(n)", "source: chatgpt\nsource_id: c/\(n)\nfork_of: c\n",
                    time: "2024-12-1\(n)T10:00:00+09:00", id: "m-AAAAAAAAAAB\(n)", text: answer + "\n\n끝 인사"))
        }
        try vault.write(
            "rooms/short.md", room("짧은 방", time: "2024-12-01T10:00:00+09:00", id: "m-AAAAAAAAAAC1", text: "안녕"))
        try vault.write(
            "diary/2024/2024-12-28-walk.md",
            "---\ntitle: 바닷가 산책\ncreated: 2024-12-28T08:00:00+09:00\ntags: [friends, 여행]\n---\n\n"
                + "오늘은 친구들과 함께 바닷가를 따라 아주 오래 걸었다. 바람이 많이 불었지만 하늘이 맑았다.\n")
        try vault.write(
            "diary/2024/2024-09-03-note.md",
            "---\ntitle: 메모\ncreated: 2024-09-03T08:00:00+09:00\ntags: [a-very-long-tag-that-takes-room]\n---\n\n짧은 글\n")
        return vault
    }

    /// The dates the listings write of the rooms and entries above, whole, in each locale.
    static let dates = [
        "ko_KR": (rooms: ["2024년 12월 15일", "2024년 12월 12일", "2024년 12월 13일", "2024년 12월 1일"],
                  diary: ["2024년 12월 28일", "2024년 9월 3일"]),
        "en_US": (rooms: ["December 15, 2024", "December 12, 2024", "December 13, 2024", "December 1, 2024"],
                  diary: ["December 28, 2024", "September 3, 2024"]),
    ]

    @Test(arguments: ["ko_KR", "en_US"])
    func roomsFitTheWidthWithWholeDatesAndBranchesToldApart(locale: String) throws {
        let vault = try Self.vault(locale: locale)
        let before = try vault.snapshot()
        var titleColumns: [Int: Int] = [:]
        for width in Self.widths {
            let r = try runVault(["rooms"], in: vault.path, environment: ["COLUMNS": "\(width)"])
            expectSuccess(r)
            let lines = r.stdout.split(separator: "\n").map(String.init)
            #expect(lines.count == 4, "\(width): \(r.stdout)")
            for line in lines { #expect(DisplayWidth.of(line) <= width, "\(width): wider: \(line)") }
            // Newest first: the conversation (15th), its branches (13th, 12th), the short room (1st).
            for (line, date) in zip(lines, [Self.dates[locale]!.rooms[0], Self.dates[locale]!.rooms[2], Self.dates[locale]!.rooms[1], Self.dates[locale]!.rooms[3]]) {
                #expect(line.hasPrefix("  " + date + " "), "\(width): the date \(date) is cut or moved: \(line)")
            }
            let branch2 = try #require(lines.first { $0.contains("branch 2") }, "\(width): no `branch 2`: \(r.stdout)")
            let branch3 = try #require(lines.first { $0.contains("branch 3") }, "\(width): no `branch 3`: \(r.stdout)")
            // Where each branched: its first message's line, after its (kept) `· branch N`.
            if width >= 80 {
                #expect(branch2.contains("↳ 한라산부터"), "\(width): \(branch2)")
                #expect(branch3.contains("↳ 우도와"), "\(width): \(branch3)")
            }
            // All rows align: the titles start in one column, and the icons after them in another.
            func column(of part: String, in line: String) -> Int? {
                line.range(of: part).map { DisplayWidth.of(String(line[..<$0.lowerBound])) }
            }
            let starts = lines.map { column(of: "짧은 방", in: $0) ?? column(of: "주말마다", in: $0) ?? -1 }
            let icons = lines.map { column(of: "🧑", in: $0) ?? -1 }
            #expect(Set(starts).count == 1 && Set(icons).count == 1, "\(width): not aligned: \(starts) \(icons)\n\(r.stdout)")
            titleColumns[width] = icons[0] - starts[0] - 1
        }
        // The title's column grows with the terminal; at 160 the long title is whole.
        #expect(titleColumns[60]! < titleColumns[160]! && titleColumns[80]! <= titleColumns[160]!, "\(titleColumns)")
        let wide = try runVault(["rooms"], in: vault.path, environment: ["COLUMNS": "160"])
        #expect(wide.stdout.contains("주말마다 가고 싶은 제주도 오름과 바닷가 산책길 정리 "), "\(wide.stdout)")
        expectUnchanged(before, try vault.snapshot())
    }

    @Test(arguments: ["ko_KR", "en_US"])
    func diaryListFitsTheWidthWithWholeDatesAndWholeTags(locale: String) throws {
        let vault = try Self.vault(locale: locale)
        let before = try vault.snapshot()
        for width in Self.widths {
            let r = try runVault(["diary", "list"], in: vault.path, environment: ["COLUMNS": "\(width)"])
            expectSuccess(r)
            let lines = r.stdout.split(separator: "\n").map(String.init)
            #expect(lines.count == 2, "\(width): \(r.stdout)")
            for (line, date) in zip(lines, Self.dates[locale]!.diary) {
                #expect(DisplayWidth.of(line) <= width, "\(width): wider: \(line)")
                #expect(line.hasPrefix(date + " "), "\(width): the date \(date) is cut: \(line)")
                // A tag is whole or left out, never cut.
                #expect(line.range(of: #"#[^ ]*…"#, options: .regularExpression) == nil, "\(width): a cut tag: \(line)")
            }
            if width >= 80 {
                #expect(lines[0].hasSuffix("  #friends #여행"), "\(width): \(lines[0])")
                #expect(lines[0].contains("오늘은 친구들과"), "\(width): the preview takes what the tags leave: \(lines[0])")
            }
        }
        expectUnchanged(before, try vault.snapshot())
    }
}
