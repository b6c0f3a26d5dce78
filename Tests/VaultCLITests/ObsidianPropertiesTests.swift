import Foundation
import Testing
import VaultTestSupport

/// Front-matter as Obsidian writes its properties (block lists, quoted items, comments, keys
/// vault does not know) keeps the person's style when vault changes a key: only the lines of
/// the change differ. Nested tags (`부산/해운대`) are inside the tag above them for every filter.
@Suite struct ObsidianPropertiesTests {
    static let entry = "diary/2026/2026-11-20-출장-메모.md"
    static let text = """
        ---
        title: 출장 메모
        created: 2026-11-20T10:00:00+09:00
        aliases:
          - 부산 출장
        # 회사 일
        tags:
          - 출장
          - "부산/해운대"   # 바다
        status: draft
        ---

        # 2026년 11월 20일 금요일

        해운대 근처 호텔에서 회의.

        """

    func vault() throws -> TemporaryDirectory {
        let vault = try freshVault(locale: "ko_KR", timeZone: "Asia/Seoul")
        try vault.write(Self.entry, Self.text)
        try git(["add", "-A"], in: vault.path)
        try git(["-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "-m", "obsidian note"], in: vault.path)
        return vault
    }

    /// The file's lines without its `updated:` line (the one vault sets on every change).
    func linesWithoutUpdated(_ text: String) -> [Substring] {
        text.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("updated: ") }
    }

    @Test func taggingKeepsABlockListABlockList() throws {
        let vault = try vault()
        let original = linesWithoutUpdated(Self.text)
        expectSuccess(try runVault(["tag", Self.entry, "+회의"], in: vault.path))
        let added = try vault.readText(Self.entry)
        var expected = original
        expected.insert("  - 회의", at: original.firstIndex(of: "  - \"부산/해운대\"   # 바다")! + 1)
        #expect(linesWithoutUpdated(added) == expected, "\(added)")
        expectSuccess(try runVault(["tag", Self.entry, "-회의"], in: vault.path))
        #expect(linesWithoutUpdated(try vault.readText(Self.entry)) == original)
        expectSuccess(try runVault(["tag", Self.entry, "-출장"], in: vault.path))
        #expect(linesWithoutUpdated(try vault.readText(Self.entry)) == original.filter { $0 != "  - 출장" })
        #expect(try git(["status", "--porcelain"], in: vault.path) == "")
    }

    @Test func taggingKeepsAFlowListAsWritten() throws {
        let vault = try vault()
        let flow = Self.text.replacingOccurrences(
            of: "tags:\n  - 출장\n  - \"부산/해운대\"   # 바다\n", with: "tags: [출장, 'b c']  # 메모\n")
        try vault.write(Self.entry, flow)
        expectSuccess(try runVault(["tag", Self.entry, "+x"], in: vault.path))
        let text = try vault.readText(Self.entry)
        #expect(text.contains("\ntags: [출장, 'b c', x]  # 메모\n"), "\(text)")
        #expect(linesWithoutUpdated(text).count == linesWithoutUpdated(flow).count)
    }

    @Test func aTagFilterMatchesTheTagsNestedBelowIt() throws {
        let vault = try vault()
        try vault.write("diary/2026/2026-11-21-역.md", "---\ncreated: 2026-11-21T09:00:00+09:00\ntags: [부산역]\n---\n\n부산역 회의.\n")
        let nested = try runVault(["diary", "list", "--tag", "부산"], in: vault.path)
        #expect(nested.stdout.contains(Self.entry), "\(nested.stdout) \(nested.stderr)")
        #expect(!nested.stdout.contains("2026-11-21-역.md"), "부산 matched 부산역: \(nested.stdout)")
        let whole = try runVault(["diary", "list", "--tag", "부산/해운대"], in: vault.path)
        #expect(whole.stdout.contains(Self.entry))
        let deeper = try runVault(["diary", "list", "--tag", "해운대"], in: vault.path)
        #expect(!deeper.stdout.contains(Self.entry), "a tag's lower part alone matched: \(deeper.stdout)")
        let searched = try runVault(["search", "회의", "--tag", "#부산", "-l"], in: vault.path)
        #expect(searched.stdout.contains(Self.entry) && !searched.stdout.contains("역.md"), "\(searched.stdout)")
        let exported = try runVault(["export", "--diary", "--tag", "부산", "--format", "json"], in: vault.path)
        #expect(exported.stdout.contains("해운대 근처") && !exported.stdout.contains("부산역 회의"), "\(exported.stdout.prefix(400)) \(exported.stderr)")
    }

    /// A command refused for a file it cannot change writes nothing and commits nothing, not
    /// even the person's hand edit (it stays in the folder, as they left it).
    @Test(arguments: [["tag", entry, "+x"]])
    func aRefusedCommandCommitsNothing(command: [String]) throws {
        let vault = try vault()
        let broken = Self.text.replacingOccurrences(of: "status: draft", with: "status: [draft")
        try vault.write(Self.entry, broken)
        let log = try git(["log", "--format=%H"], in: vault.path)
        let r = try runVault(command, in: vault.path)
        expectUserError(r, [Self.entry])
        #expect(try vault.readText(Self.entry) == broken)
        #expect(try git(["log", "--format=%H"], in: vault.path) == log, "a refused command committed")
    }

    @Test func aRefusedRoomSettingCommitsNothing() throws {
        let vault = try freshVault()
        expectSuccess(try runVault(["room", "new", "부산 여행"], in: vault.path))
        let room = "rooms/부산-여행.md"
        // The opening `---` lost by hand: vault reads the room, and refuses to rewrite its keys.
        let text = try vault.readText(room)
        let broken = String(text.dropFirst(4)) + "\n손으로 쓴 줄\n"
        try vault.write(room, broken)
        let log = try git(["log", "--format=%H"], in: vault.path)
        let r = try runVault(["room", "set", "부산-여행", "model", "gpt-4o"], in: vault.path)
        expectUserError(r, ["---"])
        #expect(try vault.readText(room) == broken)
        #expect(try git(["log", "--format=%H"], in: vault.path) == log, "a refused command committed")
    }
}
