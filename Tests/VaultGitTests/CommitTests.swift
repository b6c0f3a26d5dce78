import Foundation
import Testing
import VaultTestSupport

/// `vault init` and the commits every change makes, read back with the git command line.
@Suite struct InitRepositoryTests {
    @Test func initMakesARepositoryWithOneCommitOfTheThreeFiles() throws {
        let parent = TemporaryDirectory("vault-init")
        let r = try runVault(["init", "my notes", "--locale", "ko_KR", "--time-zone", "Asia/Seoul"], in: parent.path)
        expectSucceeded(r)
        let dir = (path: parent.path + "/my notes", read: { (f: String) in try parent.read("my notes/" + f) })
        #expect(try subjects(dir.path) == ["init: vault"])
        #expect(try commitCount(dir.path) == 1)
        #expect(try treeFiles("HEAD", in: dir.path) == [".gitattributes", ".gitignore", "vault.yml"])
        #expect(try git(["ls-files"], in: dir.path) == ".gitattributes\n.gitignore\nvault.yml\n")
        #expect(try changedPaths("HEAD", in: dir.path) == ["A .gitattributes", "A .gitignore", "A vault.yml"])
        // The commit holds the files as they are on disk, byte for byte.
        for file in [".gitattributes", ".gitignore", "vault.yml"] {
            #expect(try gitBytes("HEAD:" + file, in: dir.path) == dir.read(file), "\(file) differs from its commit")
        }
        // A root commit: no parent.
        #expect(try git(["rev-list", "--parents", "-n", "1", "HEAD"], in: dir.path).split(separator: " ").count == 1)
        #expect(
            try git(["rev-parse", "--show-toplevel"], in: dir.path) == dir.path + "\n",
            "the vault is not the root of its repository")
        try expectRepositoryClean(dir.path)
    }

    @Test func initAdoptsAnExistingRepositoryAndKeepsItsCommits() throws {
        let dir = TemporaryDirectory("vault-adopt")
        try gitCLI(["init", "-q", "-b", "main"], in: dir.path)
        try dir.write("notes.txt", "my notes\n")
        try dir.write(".gitignore", "*.tmp\n")
        try gitCLI(["add", "notes.txt", ".gitignore"], in: dir.path)
        try gitCLI(["commit", "-q", "-m", "existing: first"], in: dir.path)
        try dir.write("notes.txt", "my notes\nmore notes\n")
        try gitCLI(["commit", "-q", "-am", "existing: second"], in: dir.path)
        let oldHead = try git(["rev-parse", "HEAD"], in: dir.path).trimmingCharacters(in: .whitespacesAndNewlines)

        let r = try runVault(["init", ".", "--locale", "en_US", "--time-zone", "Asia/Tokyo"], in: dir.path)
        expectSucceeded(r)

        #expect(try subjects(dir.path) == ["init: vault", "existing: second", "existing: first"])
        // The init commit sits on top of the old history, which is unchanged.
        let parent = try git(["rev-parse", "HEAD~1"], in: dir.path).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(parent == oldHead)
        #expect(
            try git(["log", "--format=%an <%ae>", "HEAD~1"], in: dir.path)
                == "Git CLI <cli@example.com>\nGit CLI <cli@example.com>\n")
        #expect(try treeFiles("HEAD", in: dir.path) == [".gitattributes", ".gitignore", "notes.txt", "vault.yml"])
        #expect(try changedPaths("HEAD", in: dir.path) == ["A .gitattributes", "M .gitignore", "A vault.yml"])
        // The existing .gitignore is kept and gets `.vault/` added.
        let ignore = try dir.readText(".gitignore")
        #expect(ignore.hasPrefix("*.tmp\n"), ".gitignore lost its line: \(ignore)")
        #expect(ignore.split(separator: "\n").contains(".vault/"))
        #expect(try gitBytes("HEAD:.gitignore", in: dir.path) == dir.read(".gitignore"))
        #expect(try gitBytes("HEAD:notes.txt", in: dir.path) == Array("my notes\nmore notes\n".utf8))
        try expectRepositoryClean(dir.path)
    }
}

@Suite struct MutationCommitTests {
    @Test func roomNewIsOneCommitWithAReadableMessage() throws {
        let dir = try initVault()
        let r = try runVault(["room", "new", "부산 여행"], in: dir.path)
        expectSucceeded(r)
        #expect(try subjects(dir.path) == ["room: new 부산 여행", "init: vault"])
        #expect(try changedPaths("HEAD", in: dir.path) == ["A rooms/부산-여행.md"])
        #expect(try gitBytes("HEAD:rooms/부산-여행.md", in: dir.path) == dir.read("rooms/부산-여행.md"))
        try expectRepositoryClean(dir.path)
    }

    @Test func eachChatIsOneCommitAddingExactlyTheTwoMessages() throws {
        let dir = try initVault()
        expectSucceeded(try runVault(["room", "new", "부산 여행"], in: dir.path))
        let path = "rooms/부산-여행.md"

        for (n, message) in ["hello there", "and a second question"].enumerated() {
            let before = try dir.read(path)
            let r = try runVault(["chat", "부산", message], in: dir.path)
            expectSucceeded(r)
            #expect(try commitCount(dir.path) == 3 + n)
            #expect(try subjects(dir.path).first == "chat: 부산 여행 (+2 messages)")
            #expect(try changedPaths("HEAD", in: dir.path) == ["M " + path])
            // The commit's parent holds the file as it was before, the commit as it is now.
            #expect(try gitBytes("HEAD~1:" + path, in: dir.path) == before)
            #expect(try gitBytes("HEAD:" + path, in: dir.path) == dir.read(path))
            let (added, removed) = try diffLines("HEAD", path: path, in: dir.path)
            #expect(removed.isEmpty, "the chat commit removed lines: \(removed)")
            let headers = added.filter { parseHeaderLine($0) != nil }
            #expect(headers.count == 2, "the chat commit should add two message headers: \(added)")
            #expect(headers.map { parseHeaderLine($0)?.role } == ["user", "assistant"])
            #expect(added.contains(message), "the user's message is not among the added lines: \(added)")
            #expect(added.contains("> " + message), "the offline reply is not among the added lines: \(added)")
            try expectRepositoryClean(dir.path)
        }
        #expect(
            try subjects(dir.path) == [
                "chat: 부산 여행 (+2 messages)", "chat: 부산 여행 (+2 messages)", "room: new 부산 여행", "init: vault",
            ])
    }

    @Test func chatInTheSampleVaultCommitsOnlyThatRoom() throws {
        let dir = try sampleVaultWithHistory()
        let r = try runVault(["chat", offlineRoomSlug, "what do we read next?"], in: dir.path)
        expectSucceeded(r)
        #expect(try subjects(dir.path).first == "chat: \(offlineRoomTitle) (+2 messages)")
        #expect(try changedPaths("HEAD", in: dir.path) == ["M " + offlineRoom])
        #expect(try gitBytes("HEAD:" + offlineRoom, in: dir.path) == dir.read(offlineRoom))
        try expectRepositoryClean(dir.path)
    }
}

/// A hand edit is committed on its own (`edit: …`) before the tool's change.
@Suite struct HandEditTests {
    /// A room made by `vault room new` with one chat turn, in a fresh vault.
    private func vaultWithRoom() throws -> (TemporaryDirectory, String) {
        let dir = try initVault()
        expectSucceeded(try runVault(["room", "new", "Reading list"], in: dir.path))
        expectSucceeded(try runVault(["chat", "reading-list", "first question"], in: dir.path))
        return (dir, "rooms/reading-list.md")
    }

    @Test func frontMatterEditIsCommittedBeforeTheChat() throws {
        let (dir, path) = try vaultWithRoom()
        let before = try commitCount(dir.path)
        var text = try dir.readText(path)
        let close = try #require(text.range(of: "\n---\n"))
        text.insert(contentsOf: "\nmood: curious # added by hand", at: close.lowerBound)
        try dir.write(path, text)
        let handEdited = try dir.read(path)

        let r = try runVault(["chat", "reading-list", "second question"], in: dir.path)
        expectSucceeded(r)

        #expect(try commitCount(dir.path) == before + 2)
        #expect(try subjects(dir.path).prefix(2) == ["chat: Reading list (+2 messages)", "edit: " + path])
        // The edit commit holds exactly the hand-edited file, and only it.
        #expect(try gitBytes("HEAD~1:" + path, in: dir.path) == handEdited)
        #expect(try changedPaths("HEAD~1", in: dir.path) == ["M " + path])
        let edit = try diffLines("HEAD~1", path: path, in: dir.path)
        #expect(edit.added == ["mood: curious # added by hand"])
        #expect(edit.removed.isEmpty)
        // The chat commit adds the two messages on top and keeps the hand edit.
        let chat = try diffLines("HEAD", path: path, in: dir.path)
        #expect(chat.removed.isEmpty, "the chat commit removed lines: \(chat.removed)")
        #expect(chat.added.filter { parseHeaderLine($0) != nil }.count == 2)
        #expect(chat.added.contains("second question"))
        let final = try dir.readText(path)
        #expect(final.contains("mood: curious # added by hand"))
        #expect(try gitBytes("HEAD:" + path, in: dir.path) == dir.read(path))
        try expectRepositoryClean(dir.path)
    }

    @Test func bodyEditIsCommittedBeforeTheChat() throws {
        let (dir, path) = try vaultWithRoom()
        let text = try dir.readText(path)
        let edited = text.replacingOccurrences(of: "\nfirst question\n", with: "\nfirst question, reworded by hand\n")
        try #require(edited != text)
        try dir.write(path, edited)

        expectSucceeded(try runVault(["chat", path, "second question"], in: dir.path))

        #expect(try subjects(dir.path).prefix(2) == ["chat: Reading list (+2 messages)", "edit: " + path])
        #expect(try gitBytes("HEAD~1:" + path, in: dir.path) == Array(edited.utf8))
        let edit = try diffLines("HEAD~1", path: path, in: dir.path)
        #expect(edit.added == ["first question, reworded by hand"])
        #expect(edit.removed == ["first question"])
        #expect(try dir.readText(path).contains("\nfirst question, reworded by hand\n"))
        try expectRepositoryClean(dir.path)
    }

    @Test func textTypedBelowThePromptIsCommittedAsAnEditThenSent() throws {
        let (dir, path) = try vaultWithRoom()
        try append("What should I read next?\n", to: path, in: dir)
        let handEdited = try dir.read(path)

        // No message argument, empty standard input: the pending prompt is sent.
        let r = try runVault(["chat", "reading-list"], in: dir.path, stdin: "")
        expectSucceeded(r)

        #expect(try subjects(dir.path).prefix(2) == ["chat: Reading list (+2 messages)", "edit: " + path])
        #expect(try gitBytes("HEAD~1:" + path, in: dir.path) == handEdited)
        let edit = try diffLines("HEAD~1", path: path, in: dir.path)
        #expect(edit.added == ["What should I read next?"])
        #expect(edit.removed.isEmpty)
        // The sent text is now a user message, and the file ends with the prompt marker.
        let final = try dir.readText(path)
        let lines = final.split(separator: "\n")
        #expect(
            lines.last.map { $0.hasPrefix("<!-- vault:prompt") } == true, "the file does not end with the prompt marker"
        )
        let userHeaders = lines.compactMap { parseHeaderLine(String($0)) }.filter { $0.role == "user" }
        #expect(userHeaders.count == 2)
        #expect(try gitBytes("HEAD:" + path, in: dir.path) == dir.read(path))
        try expectRepositoryClean(dir.path)
    }

    @Test func anUnchangedFileMakesNoEditCommit() throws {
        let (dir, path) = try vaultWithRoom()
        let before = try commitCount(dir.path)
        expectSucceeded(try runVault(["chat", path, "again"], in: dir.path))
        #expect(try commitCount(dir.path) == before + 1)
        #expect(try !subjects(dir.path).contains { $0.hasPrefix("edit:") })
        try expectRepositoryClean(dir.path)
    }
}

/// The role of a message header line (FORMAT.md, strict matching), or nil.
func parseHeaderLine(_ line: String) -> (role: String, id: String)? {
    var l = Substring(line)
    while let c = l.last, c == " " || c == "\t" || c == "\r" { l = l.dropLast() }
    guard l.hasPrefix("## "), l.hasSuffix(" -->"), let open = l.range(of: " <!-- ", options: .backwards),
        let dot = l.range(of: " · ")
    else { return nil }
    let words = l[l.index(l.startIndex, offsetBy: 3)..<dot.lowerBound].split(separator: " ")
    guard (1...2).contains(words.count), let role = words.last else { return nil }
    let comment = l[open.upperBound..<l.index(l.endIndex, offsetBy: -4)].split(separator: " ")
    guard comment.count >= 2, comment[0].first?.isNumber == true, comment[1].hasPrefix("m-") else { return nil }
    return (String(role), String(comment[1]))
}
