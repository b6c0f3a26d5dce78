import Foundation
import Testing
import VaultTestSupport

/// Files written by Obsidian, Jekyll and Hugo, with their date forms, end to end (that
/// `vault check` accepts them: `VaultCoreTests/VaultCheckTests`): listings date them by what is
/// written, and commands that change them keep the hand-written dates byte for byte (vault
/// writes its own form only in `updated`).
@Suite struct HandWrittenDateCommandTests {
    static let entries: [(name: String, text: String, day: String)] = [
        ("obsidian.md", "---\ncreated: 2025-08-15\ntags: [여행]\n---\n\n바다에 갔다.\n", "2025-08-15"),
        ("obsidian-time.md", "---\ncreated: 2025-08-16T21:05\n---\n\n밤.\n", "2025-08-16"),
        ("jekyll.md", "---\nlayout: post\ncreated: 2025-08-17 10:30:00 +0900\n---\n\n아침.\n", "2025-08-17"),
        ("hugo.md", "---\ncreated: \"2025-08-18T23:30:00-07:00\"\ndraft: false\n---\n\n늦게.\n", "2025-08-18"),
        ("local.md", "---\ncreated: 2025-08-19 07:00\n---\n\n새벽.\n", "2025-08-19"),
    ]

    private func vaultWithHandWrittenEntries() throws -> DiaryVault {
        let vault = try DiaryVault.fresh()
        for e in Self.entries { try vault.write("diary/imported/" + e.name, e.text) }
        try vault.write("rooms/obsidian-room.md", "---\ntitle: 옵시디언 방\ncreated: 2025-08-15\n---\n\n")
        try vault.git(["add", "-A"])
        try vault.git(["commit", "-q", "-m", "import"])
        return vault
    }

    @Test func diaryListDatesEachEntryByItsDate() throws {
        let vault = try vaultWithHandWrittenEntries()
        let list = try diaryListJSON(try vault.run(["diary", "list", "--json"]))
        for e in Self.entries {
            let path = "diary/imported/" + e.name
            let item = try #require(list.first { ($0["path"] as? String) == path }, "\(e.name) not listed")
            #expect(item["date"] as? String == e.day, "\(e.name): \(item)")
            #expect(item["date_source"] as? String == "created", "\(e.name): \(item)")
            #expect(item["problem"] == nil, "\(e.name): \(item)")
        }
        // `--since` filters by the same days.
        let since = try diaryListJSON(
            try vault.run(["diary", "list", "--json", "--since", "2025-08-17", "--until", "2025-08-18"]))
        let paths = Set(since.compactMap { $0["path"] as? String })
        #expect(paths == ["diary/imported/jekyll.md", "diary/imported/hugo.md"])
    }

    /// `tag` and `edit` rewrite `updated` (in vault's form) and nothing else of the front-matter.
    @Test(arguments: [0, 2, 3])
    func changingAnEntryKeepsItsHandWrittenDate(index: Int) throws {
        let vault = try vaultWithHandWrittenEntries()
        let e = Self.entries[index]
        let path = "diary/imported/" + e.name
        try expectDiarySuccess(try vault.run(["tag", path, "+가져옴"]), vault)
        let text = try vault.readText(path)
        let createdLine = e.text.split(separator: "\n").first { $0.hasPrefix("created:") }!
        #expect(text.split(separator: "\n").contains(createdLine), "created changed:\n\(text)")
        let updated = try #require(text.split(separator: "\n").first { $0.hasPrefix("updated: ") }, "\(text)")
        #expect(rfc3339(String(updated.dropFirst("updated: ".count))) != nil, "updated is not vault's form: \(updated)")
        let editors = DiaryEditors()
        try expectDiarySuccess(try vault.run(["edit", path], editor: try editors.make("add", .append("덧붙임.\n"))), vault)
        #expect(try vault.readText(path).split(separator: "\n").contains(createdLine))
        #expect(try vault.run(["check"]).status == 0)
    }

    @Test func aRoomWithABareDateIsListedAndChattedIn() throws {
        let vault = try vaultWithHandWrittenEntries()
        let rooms = try vault.run(["rooms", "--json"])
        expectSuccess(rooms)
        let list = try #require(try JSONSerialization.jsonObject(with: Data(rooms.stdout.utf8)) as? [[String: Any]])
        let room = try #require(list.first { ($0["path"] as? String) == "rooms/obsidian-room.md" }, "\(rooms.stdout)")
        #expect(room["last_activity"] as? String == "2025-08-15", "\(room)")
        #expect(room["problem"] == nil, "\(room)")
        try expectDiarySuccess(try vault.run(["chat", "obsidian-room", "안녕"]), vault)
        let text = try vault.readText("rooms/obsidian-room.md")
        #expect(text.hasPrefix("---\ntitle: 옵시디언 방\ncreated: 2025-08-15\n---\n\n"), "\(text)")
    }
}
