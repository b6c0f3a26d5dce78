import Foundation
import Testing
import VaultTestSupport

/// `vault rm`, `vault restore`, `vault log` and `vault diff`, checked against the git command line.
@Suite struct RemoveAndRestoreTests {
    let room = "rooms/부산-여행.md"

    /// A fresh vault with the room `부산 여행` holding one chat turn.
    private func vaultWithRoom() throws -> TemporaryDirectory {
        let dir = try initVault()
        expectSucceeded(try runVault(["room", "new", "부산 여행"], in: dir.path))
        expectSucceeded(try runVault(["chat", "부산", "hello"], in: dir.path))
        return dir
    }

    private func shortHead(_ dir: TemporaryDirectory, _ rev: String = "HEAD") throws -> String {
        String(try git(["rev-parse", rev], in: dir.path).prefix(7))
    }

    @Test func rmCommitsTheRemovalAndRestoreBringsItBackByteIdentical() throws {
        let dir = try vaultWithRoom()
        let bytes = try dir.read(room)
        let lastWithRoom = try shortHead(dir)

        let rm = try runVault(["rm", "부산", "--yes"], in: dir.path)
        expectSucceeded(rm)
        #expect(rm.stdout.contains("vault restore \(room)"), "rm does not say how to restore: \(rm.stdout)")
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/" + room))
        #expect(try subjects(dir.path).first == "rm: \(room) (부산 여행)")
        #expect(try changedPaths("HEAD", in: dir.path) == ["D " + room])
        #expect(try !treeFiles("HEAD", in: dir.path).contains(room))
        try expectRepositoryClean(dir.path)

        let restore = try runVault(["restore", room], in: dir.path)
        expectSucceeded(restore)
        #expect(try dir.read(room) == bytes, "the restored room differs from the removed one")
        #expect(try subjects(dir.path).first == "restore: \(room) (as of \(lastWithRoom))")
        #expect(try changedPaths("HEAD", in: dir.path) == ["A " + room])
        #expect(try gitBytes("HEAD:" + room, in: dir.path) == bytes)
        try expectRepositoryClean(dir.path)

        // The restored room is an ordinary room again.
        expectSucceeded(try runVault(["chat", "부산", "after the restore"], in: dir.path))
        #expect(try subjects(dir.path).first == "chat: 부산 여행 (+2 messages)")
        try expectRepositoryClean(dir.path)
    }

    @Test func restoreFindsADeletedRoomByItsSlug() throws {
        let dir = try vaultWithRoom()
        let bytes = try dir.read(room)
        expectSucceeded(try runVault(["rm", room, "--yes"], in: dir.path))
        let restore = try runVault(["restore", "부산-여행"], in: dir.path)
        expectSucceeded(restore)
        #expect(try dir.read(room) == bytes)
        #expect(try subjects(dir.path).first?.hasPrefix("restore: \(room) (as of ") == true)
        try expectRepositoryClean(dir.path)
    }

    @Test func rmCommitsAHandEditFirstSoRestoreGetsItBack() throws {
        let dir = try vaultWithRoom()
        try append("a last line written by hand\n", to: room, in: dir)
        let handEdited = try dir.read(room)
        expectSucceeded(try runVault(["rm", "부산", "--yes"], in: dir.path))
        #expect(try subjects(dir.path).prefix(2) == ["rm: \(room) (부산 여행)", "edit: \(room)"])
        #expect(try gitBytes("HEAD~1:" + room, in: dir.path) == handEdited)
        expectSucceeded(try runVault(["restore", room], in: dir.path))
        #expect(try dir.read(room) == handEdited)
        try expectRepositoryClean(dir.path)
    }

    @Test func rmWithoutYesAndWithoutATerminalChangesNothing() throws {
        let dir = try vaultWithRoom()
        let before = try fullSnapshot(dir.path)
        let r = try runVault(["rm", "부산"], in: dir.path, stdin: "y\n")
        expectFailure(r, ["--yes"])
        #expect(FileManager.default.fileExists(atPath: dir.path + "/" + room))
        expectSameFiles(before, try fullSnapshot(dir.path))
        #expect(try commitCount(dir.path) == 3)
    }

    @Test func restoreAtARevisionCommitsTheCurrentVersionFirst() throws {
        let dir = try vaultWithRoom()
        let old = try gitBytes("HEAD~1:" + room, in: dir.path)  // as `room new` made it
        let oldRev = try shortHead(dir, "HEAD~1")
        expectSucceeded(try runVault(["chat", "부산", "a second message"], in: dir.path))
        // An uncommitted hand edit that must not be lost.
        var text = try dir.readText(room)
        let close = try #require(text.range(of: "\n---\n"))
        text.insert(contentsOf: "Notes to myself, never committed.\n\n", at: close.upperBound)
        try dir.write(room, text)
        let current = try dir.read(room)
        let count = try commitCount(dir.path)

        let r = try runVault(["restore", "부산", "--at", oldRev], in: dir.path)
        expectSucceeded(r)
        #expect(try dir.read(room) == old, "the room is not as it was at \(oldRev)")
        #expect(try commitCount(dir.path) == count + 2)
        #expect(try subjects(dir.path).prefix(2) == ["restore: \(room) (as of \(oldRev))", "edit: \(room)"])
        // Nothing is lost: the version before the restore is in the history.
        #expect(try gitBytes("HEAD~1:" + room, in: dir.path) == current)
        let logged = try git(["log", "--format=%H", "--", room], in: dir.path).split(separator: "\n")
        let holdsCurrent = try logged.contains { try gitBytes("\($0):" + room, in: dir.path) == current }
        #expect(holdsCurrent, "the hand-edited version is in no commit of `git log -- \(room)`")
        #expect(try gitBytes("HEAD:" + room, in: dir.path) == old)
        try expectRepositoryClean(dir.path)
    }

    @Test func restoreWithoutACommittedEditAtARevisionNeedsNoEditCommit() throws {
        let dir = try vaultWithRoom()
        let old = try gitBytes("HEAD~1:" + room, in: dir.path)
        let oldRev = try shortHead(dir, "HEAD~1")
        let count = try commitCount(dir.path)
        expectSucceeded(try runVault(["restore", room, "--at", oldRev], in: dir.path))
        #expect(try commitCount(dir.path) == count + 1)
        #expect(try dir.read(room) == old)
        #expect(try changedPaths("HEAD", in: dir.path) == ["M " + room])
        try expectRepositoryClean(dir.path)
    }

    @Test func restoreAtARelativeRevisionNamesTheCommitItRestoredFrom() throws {
        let dir = try vaultWithRoom()
        let target = try shortHead(dir, "HEAD~1")
        let r = try runVault(["restore", room, "--at", "HEAD~1"], in: dir.path)
        expectSucceeded(r)
        // `HEAD~1` means another commit once the restore is committed: the message names the commit.
        #expect(try subjects(dir.path).first == "restore: \(room) (as of \(target))")
        #expect(r.stdout.contains(target), "stdout does not name the commit: \(r.stdout)")
    }

    @Test func restoreOfAnExistingItemWithoutAtFails() throws {
        let dir = try vaultWithRoom()
        let before = try fullSnapshot(dir.path)
        let count = try commitCount(dir.path)
        let r = try runVault(["restore", "부산"], in: dir.path)
        expectFailure(r, [room, "exists", "--at"])
        expectSameFiles(before, try fullSnapshot(dir.path))
        #expect(try commitCount(dir.path) == count)
    }

    @Test func restoreOfSomethingNeverInTheVaultFails() throws {
        let dir = try vaultWithRoom()
        let before = try fullSnapshot(dir.path)
        let r = try runVault(["restore", "rooms/never-there.md"], in: dir.path)
        expectFailure(r, ["never-there"])
        expectSameFiles(before, try fullSnapshot(dir.path))
    }
}

@Suite struct LogAndDiffTests {
    let busan = "rooms/부산-여행.md"
    let other = "rooms/other-room.md"

    /// init, two rooms, a chat in each, then `부산 여행` removed: six commits.
    private func vaultWithHistory() throws -> TemporaryDirectory {
        let dir = try initVault()
        for args in [
            ["room", "new", "부산 여행"], ["room", "new", "Other room"], ["chat", "부산", "hello busan"],
            ["chat", "other-room", "hello other"], ["rm", "부산", "--yes"],
        ] {
            let r = try runVault(args, in: dir.path)
            guard r.status == 0 else { throw GitTestError("vault \(args) failed: \(r.stderr)") }
        }
        return dir
    }

    private func ids(_ dir: TemporaryDirectory, _ extra: [String] = []) throws -> [String] {
        try git(["log", "--format=%H"] + extra, in: dir.path).split(separator: "\n").map(String.init)
    }

    /// The commit lines of `vault log` (the files each changed follow it, indented).
    private func lines(_ s: String) -> [String] {
        s.split(separator: "\n").map(String.init).filter { !$0.hasPrefix(" ") }
    }

    @Test func logListsEveryCommitNewestFirst() throws {
        let dir = try vaultWithHistory()
        let r = try runVault(["log"], in: dir.path)
        expectSucceeded(r)
        let shown = lines(r.stdout)
        let all = try ids(dir)
        let messages = try subjects(dir.path)
        #expect(all.count == 6)
        #expect(shown.count == all.count, "vault log shows \(shown.count) lines for \(all.count) commits:\n\(r.stdout)")
        for (i, line) in shown.enumerated() where i < all.count {
            #expect(
                line.hasPrefix(String(all[i].prefix(7)) + " "), "line \(i) does not start with the short id: \(line)")
            #expect(line.hasSuffix(" " + messages[i]), "line \(i) does not end with the message: \(line)")
        }
        #expect(
            messages == [
                "rm: \(busan) (부산 여행)", "chat: Other room (+2 messages)", "chat: 부산 여행 (+2 messages)",
                "room: new Other room", "room: new 부산 여행", "init: vault",
            ])

        let limited = try runVault(["log", "-n", "2"], in: dir.path)
        expectSucceeded(limited)
        #expect(lines(limited.stdout).count == 2)
    }

    @Test func logOfOneItemShowsOnlyItsCommitsIncludingTheDeletion() throws {
        let dir = try vaultWithHistory()
        let expected = try ids(dir, ["--", busan]).map { String($0.prefix(7)) }
        #expect(expected.count == 3)
        for name in [busan, "부산-여행"] {
            let r = try runVault(["log", name], in: dir.path)
            expectSucceeded(r)
            let shown = lines(r.stdout).map { String($0.prefix(7)) }
            #expect(shown == expected, "vault log \(name) shows \(r.stdout)")
            #expect(r.stdout.contains("rm: \(busan)"))
            #expect(!r.stdout.contains("Other room"))
        }
        let o = try runVault(["log", "other"], in: dir.path)
        expectSucceeded(o)
        #expect(
            lines(o.stdout).map { String($0.prefix(7)) } == (try ids(dir, ["--", other]).map { String($0.prefix(7)) }))
        #expect(lines(o.stdout).count == 2)
    }

    @Test func logJSONParsesAndAgreesWithGit() throws {
        let dir = try vaultWithHistory()
        let r = try runVault(["log", "--json"], in: dir.path)
        expectSucceeded(r)
        let parsed = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8))
        let entries = try #require(parsed as? [[String: Any]], "not a JSON array of objects: \(r.stdout)")
        #expect(entries.compactMap { $0["id"] as? String } == (try ids(dir)))
        #expect(entries.compactMap { $0["summary"] as? String } == (try subjects(dir.path)))
        let authors = lines(try git(["log", "--format=%an"], in: dir.path))
        #expect(entries.compactMap { $0["author"] as? String } == authors)
        let times = lines(try git(["log", "--format=%ct"], in: dir.path)).compactMap(Double.init)
        let iso = ISO8601DateFormatter()
        let shown = entries.compactMap { ($0["time"] as? String).flatMap { iso.date(from: $0)?.timeIntervalSince1970 } }
        #expect(shown == times, "times in --json do not match the commits")

        let one = try runVault(["log", "--json", busan], in: dir.path)
        expectSucceeded(one)
        let oneEntries = try #require(try JSONSerialization.jsonObject(with: Data(one.stdout.utf8)) as? [[String: Any]])
        #expect(oneEntries.compactMap { $0["id"] as? String } == (try ids(dir, ["--", busan])))
    }

    @Test func diffShowsAHandEditAndSaysWhenNothingChanged() throws {
        let dir = try initVault()
        expectSucceeded(try runVault(["room", "new", "부산 여행"], in: dir.path))
        expectSucceeded(try runVault(["chat", "부산", "hello"], in: dir.path))

        let same = try runVault(["diff", "부산"], in: dir.path)
        expectSucceeded(same)
        #expect(
            same.stdout.contains("the same as in the last commit"), "diff of an unchanged room says: \(same.stdout)")
        #expect(same.stdout.contains(String(try git(["rev-parse", "HEAD"], in: dir.path).prefix(7))))
        #expect(!same.stdout.contains("@@"))

        try append("a line added by hand\n", to: busan, in: dir)
        let before = try fullSnapshot(dir.path)
        let r = try runVault(["diff", "부산"], in: dir.path)
        expectSucceeded(r)
        #expect(r.stdout.contains("@@"), "not a unified diff: \(r.stdout)")
        let added = lines(r.stdout).filter { $0.hasPrefix("+") && !$0.hasPrefix("+++") }
        #expect(added == ["+a line added by hand"], "diff shows \(r.stdout)")
        #expect(lines(r.stdout).filter { $0.hasPrefix("-") && !$0.hasPrefix("---") }.isEmpty)
        // Reading a diff commits and changes nothing.
        expectSameFiles(before, try fullSnapshot(dir.path))
        #expect(try commitCount(dir.path) == 3)
    }

    @Test func diffAgainstARevisionAgreesWithGit() throws {
        let dir = try initVault()
        expectSucceeded(try runVault(["room", "new", "부산 여행"], in: dir.path))
        let rev = String(try git(["rev-parse", "HEAD"], in: dir.path).prefix(7))
        expectSucceeded(try runVault(["chat", "부산", "hello"], in: dir.path))
        expectSucceeded(try runVault(["chat", "부산", "again"], in: dir.path))

        let r = try runVault(["diff", "부산", rev], in: dir.path)
        expectSucceeded(r)
        let mine = lines(r.stdout).filter {
            ($0.hasPrefix("+") && !$0.hasPrefix("+++")) || ($0.hasPrefix("-") && !$0.hasPrefix("---"))
        }
        let theirs = lines(try git(["diff", rev, "--", busan], in: dir.path))
            .filter { ($0.hasPrefix("+") && !$0.hasPrefix("+++")) || ($0.hasPrefix("-") && !$0.hasPrefix("---")) }
        #expect(!mine.isEmpty)
        #expect(mine == theirs, "vault diff \(rev) and git diff \(rev) disagree")
        #expect(mine.contains("+hello") && mine.contains("+again"))
        #expect(mine.filter { parseHeaderLine(String($0.dropFirst())) != nil }.count == 4)

        let bad = try runVault(["diff", "부산", "no-such-revision"], in: dir.path)
        expectFailure(bad, ["no-such-revision"])
    }
}
