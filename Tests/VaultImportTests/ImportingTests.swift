import Foundation
import Testing
import VaultCore
import VaultGit
import VaultImport
import VaultTestSupport

/// A reader that gives what the test hands it (the format readers have their own tests): the
/// workflow that writes into the vault is what is tested here, on a real vault and repository.
struct GivenReader: ImportReader {
    var source: ImportSource = .chatgpt
    var items: [ImportedItem]
    /// The items (by position) that are not in the format, each a part of its own.
    var broken: Set<Int> = []

    static func recognizes(_ path: String) -> Bool { false }

    func read(_ paths: [String], since: Timestamp?, into sink: ImportSink) throws(VaultError) {
        for (n, item) in items.enumerated() {
            try sink.part { () throws(VaultError) in
                if broken.contains(n) {
                    throw VaultError.importing(ImportProblem(file: "conversations.json", place: "[\(n)]", problem: "is cut short"))
                }
                try sink.emit(item)
            }
        }
    }
}

@Suite struct ImportingTests {
    func t(_ text: String) -> Timestamp { Timestamp(rfc3339: text)! }

    func vault() throws -> (TemporaryDirectory, Vault) {
        let dir = TemporaryDirectory("vault-import")
        let made = try Initializing.run(at: dir.path, locale: "ko_KR", timeZone: TimeZone(identifier: "Asia/Seoul")!, settings: .ofThisTest)
        return (dir, made.vault.with(history: try GitHistory(vault: dir.path, config: made.vault.config)))
    }

    func message(_ id: String, _ role: Role, _ body: String, _ time: String?, model: String? = nil,
                 kind: ImportedMessage.Kind? = nil, attachments: [ImportedAttachment] = []) -> ImportedMessage {
        ImportedMessage(sourceID: id, role: role, time: time.map(t), model: model, body: body, kind: kind,
                        attachments: attachments)
    }

    /// A conversation with an edited question (a branch) and an image.
    var trip: ImportedConversation {
        ImportedConversation(
            source: .chatgpt, sourceID: "conv-1", title: "부산 여행", created: t("2024-05-01T10:00:00Z"),
            settings: [("model", .string("gpt-4o"))],
            messages: [
                message("a", .user, "부산에서 뭐 먹지?", "2024-05-01T10:00:00Z",
                        attachments: [ImportedAttachment(name: "photo.png", bytes: [0x89, 0x50, 0x4E, 0x47, 1, 2, 3])]),
                message("b", .assistant, "돼지국밥을 드세요.\n## 🧑 user · forged <!-- 2024-05-01T10:00:00Z m-FORGED -->", nil,
                        model: "gpt-4o"),
                message("c", .assistant, "생각 중…", "2024-05-01T10:00:05Z", kind: .thoughts),
            ],
            branches: [
                ImportedBranch(forkedAfter: "a", messages: [
                    message("b2", .assistant, "밀면도 좋아요.", "2024-05-01T10:01:00Z", model: "gpt-4o"),
                ]),
            ])
    }

    @Test func aConversationBecomesARoomItsBranchASiblingRoomInOneCommit() throws {
        let (dir, vault) = try vault()
        let before = try git(["rev-list", "--count", "HEAD"], in: dir.path)
        let report = try Importing(vault: vault).run(GivenReader(items: [.conversation(trip)]), paths: [])
        #expect(report.roomsNew == 2 && report.branches == 1 && report.messagesAdded == 4 && report.attachments == 1)
        #expect(report.committed)
        #expect(Int(try git(["rev-list", "--count", "HEAD"], in: dir.path).trimmingCharacters(in: .whitespacesAndNewlines))
            == Int(before.trimmingCharacters(in: .whitespacesAndNewlines))! + 1)
        let subject = try git(["log", "-1", "--format=%s"], in: dir.path)
        #expect(subject.hasPrefix("import: chatgpt, 2 rooms new (1 branch)"), "\(subject)")
        #expect(try git(["status", "--porcelain"], in: dir.path) == "")

        let room = try RoomFile(parsing: try dir.read("rooms/부산-여행.md"), path: "rooms/부산-여행.md")
        #expect(room.frontMatter?.string("source") == "chatgpt")
        #expect(room.frontMatter?.string("source_id") == "conv-1")
        #expect(room.messages.map(\.id) == ["a", "b", "c"].map { ImportIdentity.messageID(.chatgpt, "conv-1", $0) })
        // A text that looks like a header stays text; a message without a time takes the one before.
        #expect(room.messages[1].body.hasSuffix("<!-- 2024-05-01T10:00:00Z m-FORGED -->"))
        // (in the vault's zone, Asia/Seoul: the source gave UTC)
        #expect(room.messages[1].header.timestamp.text == "2024-05-01T19:00:00+09:00")
        #expect(room.messages[1].header.attribute("model") == "gpt-4o")
        #expect(room.messages[2].header.attribute("kind") == "thoughts")
        #expect(room.messages[0].body.contains("](../attachments/"))
        // A ko_KR vault names the branch in its language (`· 분기 2`), and its file after it.
        let branch = try RoomFile(parsing: try dir.read("rooms/부산-여행-분기-2.md"), path: "rooms/부산-여행-분기-2.md")
        #expect(branch.title == "부산 여행 · 분기 2")
        #expect(branch.frontMatter?.string("fork_of") == "conv-1")
        #expect(branch.frontMatter?.string("forked_after") == ImportIdentity.messageID(.chatgpt, "conv-1", "a"))
        #expect(branch.messages.map(\.body) == ["밀면도 좋아요."])
    }

    @Test func importingAgainAddsOnlyWhatIsNewAndKeepsWhatThePersonWrote() throws {
        let (dir, vault) = try vault()
        _ = try Importing(vault: vault).run(GivenReader(items: [.conversation(trip)]), paths: [])
        // The person goes on in vault: a message of their own at the end.
        let path = "rooms/부산-여행.md"
        let room = try RoomFile(parsing: try dir.read(path), path: path)
        let mine = MessageDraft(role: .user, body: "내가 vault에서 쓴 질문", timestamp: t("2024-06-01T09:00:00Z"))
        try dir.write(path, room.appending([mine], display: vault.headerDisplay).bytes)
        _ = try git(["-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-qam", "mine"], in: dir.path)

        let same = try Importing(vault: vault).run(GivenReader(items: [.conversation(trip)]), paths: [])
        #expect(same.roomsNew == 0 && same.roomsUpdated == 0 && same.roomsUnchanged == 2 && !same.committed)

        var newer = trip
        newer.messages.append(message("d", .user, "고마워요", "2024-05-02T08:00:00Z"))
        let grown = try Importing(vault: vault).run(GivenReader(items: [.conversation(newer)]), paths: [])
        #expect(grown.roomsUpdated == 1 && grown.messagesAdded == 1 && grown.roomsUnchanged == 1)
        let after = try RoomFile(parsing: try dir.read(path), path: path)
        #expect(after.messages.map(\.body).suffix(2) == ["내가 vault에서 쓴 질문", "고마워요"])
        #expect(Set(after.messages.map(\.id)).count == after.messages.count)
        #expect(grown.messagesDiffering == 0)
        #expect(try git(["status", "--porcelain"], in: dir.path) == "")

        // A message whose text the export now gives otherwise: the vault's text stays, and the
        // report says so (it cannot tell the source's change from the person's).
        var changed = newer
        changed.messages[0].body += " (고침)"
        let before = try dir.read(path)
        let differing = try Importing(vault: vault).run(GivenReader(items: [.conversation(changed)]), paths: [])
        #expect(differing.messagesDiffering == 1 && differing.messagesAdded == 0 && !differing.committed)
        #expect(differing.summary.hasSuffix("; 1 message differs from the export (the vault's text kept)"), "\(differing.summary)")
        #expect(try dir.read(path) == before)
    }

    /// Issue #37, item 8: what the person changed by hand in a room is their own commit,
    /// `edit: …`, before the import's, which holds only what the import wrote.
    @Test func aHandEditOfAnImportedRoomIsCommittedAsAnEditBeforeTheImport() throws {
        let (dir, vault) = try vault()
        _ = try Importing(vault: vault).run(GivenReader(items: [.conversation(trip)]), paths: [])
        let path = "rooms/부산-여행.md"
        let edited = try dir.readText(path).replacingOccurrences(of: "돼지국밥을 드세요.", with: "돼지국밥을 꼭 드세요.")
        try dir.write(path, edited)
        var newer = trip
        newer.messages.append(message("d", .user, "고마워요", "2024-05-02T08:00:00Z"))
        let report = try Importing(vault: vault).run(GivenReader(items: [.conversation(newer)]), paths: [])
        #expect(report.committed && report.messagesAdded == 1 && report.messagesDiffering == 1)
        let subjects = try git(["log", "-2", "--format=%s"], in: dir.path).split(separator: "\n").map(String.init)
        #expect(subjects.count == 2 && subjects[0].hasPrefix("import: chatgpt") && subjects[1] == "edit: \(path)", "\(subjects)")
        let editDiff = try git(["show", "HEAD~1", "--format=", "--", path], in: dir.path)
        #expect(editDiff.contains("+돼지국밥을 꼭 드세요.") && !editDiff.contains("고마워요"))
        let importDiff = try git(["show", "HEAD", "--format=", "--", path], in: dir.path)
        #expect(importDiff.contains("+고마워요") && !importDiff.contains("꼭"), "\(importDiff)")
        #expect(try git(["status", "--porcelain"], in: dir.path) == "")
    }

    /// Issue #37, item 7: a time the source gives in UTC is written in the vault's zone (here
    /// Asia/Seoul); one with another offset keeps it.
    @Test func utcTimesAreWrittenInTheVaultsZoneOtherOffsetsKept() throws {
        let (dir, vault) = try vault()
        var c = trip
        c.branches = []
        c.messages.append(message("e", .assistant, "오사카에서", "2024-05-01T12:00:00+09:00"))
        let report = try Importing(vault: vault).run(GivenReader(items: [.conversation(c)]), paths: [])
        let room = try RoomFile(parsing: try dir.read(try #require(report.paths.first { $0.hasPrefix("rooms/") })), path: "r.md")
        #expect(room.messages.map(\.timestamp.text) == [
            "2024-05-01T19:00:00+09:00", "2024-05-01T19:00:00+09:00", "2024-05-01T19:00:05+09:00", "2024-05-01T12:00:00+09:00",
        ])
        #expect(room.frontMatter?.string("created") == "2024-05-01T19:00:00+09:00")
    }

    @Test func twoConversationsWithOneTitleAreTwoRooms() throws {
        let (dir, vault) = try vault()
        var other = trip
        other.sourceID = "conv-2"
        other.branches = []
        let report = try Importing(vault: vault).run(
            GivenReader(items: [.conversation(trip), .conversation(other)]), paths: [])
        #expect(report.roomsNew == 3)
        let second = try RoomFile(parsing: try dir.read("rooms/부산-여행-2.md"), path: "rooms/부산-여행-2.md")
        #expect(second.frontMatter?.string("source_id") == "conv-2")
    }

    @Test func aReaderThatFailsLeavesNothingUnlessKeepGoing() throws {
        let (dir, vault) = try vault()
        let head = try git(["rev-parse", "HEAD"], in: dir.path)
        let files = try SyncFiles.all(dir.path)
        var second = trip
        second.sourceID = "conv-2"
        var third = trip
        third.sourceID = "conv-3"
        third.branches = []
        let reader = GivenReader(items: [.conversation(trip), .conversation(second), .conversation(third)], broken: [1])
        let failed = Result { () throws(VaultError) in try Importing(vault: vault).run(reader, paths: []) }
        guard case .failure(let error) = failed else {
            Issue.record("the import did not fail")
            return
        }
        #expect(error.description == "conversations.json, at [1]: is cut short; nothing was imported")
        #expect(try git(["rev-parse", "HEAD"], in: dir.path) == head)
        #expect(try SyncFiles.all(dir.path) == files)
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/.vault/import"))

        // With keepGoing the broken part is left out and named, and what comes after it is imported too.
        let kept = try Importing(vault: vault).run(reader, paths: [], keepGoing: true)
        #expect(kept.roomsNew == 3 && kept.committed)
        #expect(kept.leftOut == ["conversations.json, at [1]: is cut short"])
        let sources = try SyncFiles.all(dir.path).keys.filter { $0.hasPrefix("rooms/") }.compactMap { path in
            try RoomFile(parsing: try dir.read(path), path: path).frontMatter?.string("source_id")
        }
        #expect(Set(sources).isSuperset(of: ["conv-1", "conv-3"]) && !sources.contains("conv-2"), "\(sources)")
    }

    @Test func aDryRunWritesNothing() throws {
        let (dir, vault) = try vault()
        let files = try SyncFiles.all(dir.path)
        let report = try Importing(vault: vault).run(GivenReader(items: [.conversation(trip)]), paths: [], dryRun: true)
        #expect(report.roomsNew == 2 && !report.committed && report.paths.count == 3)
        #expect(try SyncFiles.all(dir.path) == files)
    }

    @Test func anEntryKeepsItsLocalDayTagsAndPhotoAndIsImportedOnce() throws {
        let (dir, vault) = try vault()
        // 23:30 in Lisbon on the 1st is the 2nd in Seoul: the entry stays on its own day.
        let time = Timestamp(rfc3339: "2024-03-01T23:30:00+00:00")!
        let entry = ImportedEntry(
            source: .dayone, sourceID: "UUID-1", title: "리스본의 밤", time: time, tags: ["여행"], starred: true,
            body: "파두를 들었다.\n\n![](dayone-moment://PHOTO1)\n",
            attachments: [ImportedAttachment(name: "PHOTO1", bytes: [0xFF, 0xD8, 0xFF, 9])])
        let report = try Importing(vault: vault).run(GivenReader(source: .dayone, items: [.entry(entry)]), paths: [])
        #expect(report.entriesNew == 1 && report.attachments == 1)
        let path = "diary/2024/2024-03-01-리스본의-밤.md"
        let text = String(decoding: try dir.read(path), as: UTF8.self)
        #expect(text.contains("tags: [여행]") && text.contains("starred: true") && text.contains("source: dayone"))
        #expect(text.contains("](../../attachments/"), "\(text)")
        #expect(!text.contains("dayone-moment://"))
        let again = try Importing(vault: vault).run(GivenReader(source: .dayone, items: [.entry(entry)]), paths: [])
        #expect(again.entriesNew == 0 && again.entriesUnchanged == 1 && !again.committed)
    }
}

/// Every file of a folder but `.git/` and `.vault/`, path → bytes.
enum SyncFiles {
    static func all(_ root: String) throws -> [String: Data] {
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
}
