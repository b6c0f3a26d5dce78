import Foundation
import Testing
import VaultTestSupport

@testable import VaultCore

@Suite struct MergeRoomTests {
    typealias R = RoomText
    static let path = "rooms/busan.md"
    static let m1 = R.message("m-01JPA3K8Z4QX", 1, "부산 2박 3일 일정 짜줘")
    static let m2 = R.message("m-01JPA3K9B2MD", 2, "## 첫째 날\n해운대와 광안리를 …", role: "assistant")

    func merge(_ base: String?, _ ours: String, _ theirs: String, newer: Merge.Newer = .theirs) throws -> FileMerge {
        try Merge.room(
            base: base.map(R.bytes), ours: R.bytes(ours), theirs: R.bytes(theirs), path: Self.path, newer: newer)
    }

    func ids(_ merged: FileMerge) throws -> [String] {
        try RoomFile(parsing: merged.bytes, path: Self.path).messages.map(\.id)
    }

    @Test func bothSidesAppendGivesEveryMessageInTimeOrder() throws {
        let a = R.message("m-AAAA0001", 5, "ours, at 10:05")
        let b = R.message("m-BBBB0001", 3, "theirs, at 10:03", role: "assistant")
        let c = R.message("m-BBBB0002", 7, "theirs, at 10:07")
        let base = R.room([Self.m1, Self.m2])
        let merged = try merge(base, R.room([Self.m1, Self.m2, a]), R.room([Self.m1, Self.m2, b, c]))
        #expect(merged.text == R.room([Self.m1, Self.m2, b, a, c]))
        #expect(merged.conflictCopy == nil)
        #expect(merged.notes.contains("2 messages from the other side"))
        #expect(try ids(merged) == ["m-01JPA3K8Z4QX", "m-01JPA3K9B2MD", "m-BBBB0001", "m-AAAA0001", "m-BBBB0002"])
    }

    @Test func turnsMadeAtTheSameTimeOnTwoMachinesKeepEachReplyAfterItsQuestion() throws {
        // Both asked at 10:05 and got their replies at 10:06: ordering single messages by time
        // would give question, question, reply, reply.
        let q1 = R.message("m-AAAA0001", 5, "ours asks")
        let r1 = R.message("m-AAAA0002", 6, "ours is answered", role: "assistant")
        let q2 = R.message("m-BBBB0001", 5, "theirs asks")
        let r2 = R.message("m-BBBB0002", 6, "theirs is answered", role: "assistant")
        let base = R.room([Self.m1, Self.m2])
        let merged = try merge(base, R.room([Self.m1, Self.m2, q1, r1]), R.room([Self.m1, Self.m2, q2, r2]))
        #expect(merged.text == R.room([Self.m1, Self.m2, q1, r1, q2, r2]))
        let swapped = try Merge.room(
            base: R.bytes(base), ours: R.bytes(R.room([Self.m1, Self.m2, q2, r2])),
            theirs: R.bytes(R.room([Self.m1, Self.m2, q1, r1])), path: "rooms/x.md", newer: .ours)
        #expect(swapped.bytes == merged.bytes)
    }

    @Test func offsetsAreConsideredWhenOrdering() throws {
        // 01:04Z is 10:04 in Seoul: after 10:03, before 10:05.
        let a = R.header("m-AAAA0001", R.time(4, utc: true)) + "\n\nwritten in UTC\n\n"
        let b = R.message("m-BBBB0001", 3, "b")
        let c = R.message("m-BBBB0002", 5, "c")
        let merged = try merge(R.room([Self.m1]), R.room([Self.m1, a]), R.room([Self.m1, b, c]))
        #expect(merged.text == R.room([Self.m1, b, a, c]))
    }

    @Test func onlyTheirAppendsGiveOursPlusTheirNewMessagesBeforeTheTail() throws {
        // Ours changed its preamble and pending text; theirs appended two messages.
        let base = R.room([Self.m1, Self.m2], pending: "")
        let ours = R.room(preamble: "메모: 여행 계획\n\n", [Self.m1, Self.m2], pending: "다음 질문\n")
        let n1 = R.message("m-BBBB0001", 3, "b")
        let n2 = R.message("m-BBBB0002", 4, "c", role: "assistant")
        let merged = try merge(base, ours, R.room([Self.m1, Self.m2, n1, n2]))
        let cut = ours.range(of: RoomFile.promptMarkerLine)!.lowerBound
        #expect(merged.text == String(ours[..<cut]) + n1 + n2 + String(ours[cut...]))
    }

    @Test func anEditOfAnOldMessageAndAnAppendBothArrive() throws {
        let edited = R.message("m-01JPA3K8Z4QX", 1, "부산 3박 4일 일정 짜줘")
        let m3 = R.message("m-BBBB0001", 3, "새 메시지")
        let base = R.room([Self.m1, Self.m2])
        let merged = try merge(base, R.room([edited, Self.m2]), R.room([Self.m1, Self.m2, m3]))
        #expect(merged.text == R.room([edited, Self.m2, m3]))
        // And the other way round.
        let swapped = try merge(base, R.room([Self.m1, Self.m2, m3]), R.room([edited, Self.m2]), newer: .ours)
        #expect(swapped.bytes == merged.bytes)
    }

    @Test func bothEditingOneMessageKeepsBothVersions() throws {
        let base = R.room([Self.m1, Self.m2])
        let mine = R.message("m-01JPA3K8Z4QX", 1, "부산 일정 (내 수정)")
        let other = R.message("m-01JPA3K8Z4QX", 1, "부산 일정 (다른 기기 수정)")
        let ours = R.room([mine, Self.m2])
        let theirs = R.room([other, Self.m2])
        let merged = try merge(base, ours, theirs, newer: .theirs)
        let room = try RoomFile(parsing: merged.bytes, path: Self.path)
        #expect(room.messages.count == 3)
        #expect(room.messages[0].id == "m-01JPA3K8Z4QX")
        #expect(room.messages[0].body == "부산 일정 (내 수정)")
        let copy = room.messages[1]
        #expect(copy.body == "부산 일정 (다른 기기 수정)")
        #expect(copy.id.hasPrefix("m-01JPA3K8Z4QX") && copy.id.count == "m-01JPA3K8Z4QX".count + 4)
        #expect(Identifier.isMessageID(copy.id))
        #expect(copy.header.attribute("conflict") == "m-01JPA3K8Z4QX")
        #expect(copy.header.display == room.messages[0].header.display)
        #expect(room.messages[2].id == "m-01JPA3K9B2MD")
        // The pair is the one warning, until the person settles it.
        #expect(room.warnings.map(\.kind) == [.unsettledConflict("m-01JPA3K8Z4QX", other: copy.id, firstLine: room.messages[0].line)])
        #expect(room.conflicts.map(\.other.id) == [copy.id])
        #expect(merged.notes.contains { $0.contains("m-01JPA3K8Z4QX") && $0.contains("both") && $0.contains(copy.id) })
        // The second version's header line is the first one's with the new id and the attribute.
        let copyLine = R.header(copy.id, R.time(1), attributes: " conflict=m-01JPA3K8Z4QX")
        #expect(merged.text.contains("\n" + copyLine + "\n\n부산 일정 (다른 기기 수정)\n\n"))

        // Deterministic and symmetric: the other machine merges (base, theirs, ours) with newer flipped.
        #expect(try merge(base, ours, theirs, newer: .theirs).bytes == merged.bytes)
        #expect(try merge(base, theirs, ours, newer: .ours).bytes == merged.bytes)
        // With ours the newer change, ours' version is the second one.
        let flipped = try RoomFile(parsing: try merge(base, ours, theirs, newer: .ours).bytes, path: Self.path)
        #expect(flipped.messages.map(\.body).prefix(2) == ["부산 일정 (다른 기기 수정)", "부산 일정 (내 수정)"])
    }

    @Test func aMessageWithAttributesAndAnEarlierConflictGetsOneConflictAttribute() throws {
        let id = "m-01JPA3K9B2MDZZZZ"
        let head = R.header(id, R.time(2), role: "assistant", attributes: " model=echo conflict=m-01JPA3K9B2MD")
        let base = R.room([Self.m1, head + "\n\nold\n\n"])
        let merged = try merge(
            base, R.room([Self.m1, head + "\n\nmine\n\n"]), R.room([Self.m1, head + "\n\ntheirs\n\n"]))
        let room = try RoomFile(parsing: merged.bytes, path: Self.path)
        let copy = room.messages[2]
        #expect(copy.header.attributes.map(\.key) == ["model", "conflict"])
        #expect(copy.header.attribute("conflict") == id)
        #expect(copy.header.attribute("model") == "echo")
        #expect(Identifier.isMessageID(copy.id) && copy.id != id)
    }

    @Test func aLongIdGetsADerivedIdThatIsStillValid() throws {
        let id = "m-" + String(repeating: "A", count: 40)
        let base = R.room([R.message(id, 1, "x")])
        let merged = try merge(base, R.room([R.message(id, 1, "y")]), R.room([R.message(id, 1, "z")]))
        let room = try RoomFile(parsing: merged.bytes, path: Self.path)
        #expect(room.messages.count == 2)
        #expect(Identifier.isMessageID(room.messages[1].id))
        #expect(room.messages[1].id != id)
    }

    @Test func deletedOnOneSideAndEditedOnTheOtherIsKeptEdited() throws {
        let base = R.room([Self.m1, Self.m2])
        let edited = R.message("m-01JPA3K8Z4QX", 1, "고친 질문")
        let merged = try merge(base, R.room([Self.m2]), R.room([edited, Self.m2]))
        #expect(merged.text == R.room([edited, Self.m2]))
        #expect(merged.notes.contains { $0.contains("m-01JPA3K8Z4QX") && $0.contains("deleted") })
        #expect(try merge(base, R.room([edited, Self.m2]), R.room([Self.m2]), newer: .ours).bytes == merged.bytes)
    }

    @Test func deletedOnOneSideAndUnchangedOnTheOtherIsDeleted() throws {
        let base = R.room([Self.m1, Self.m2])
        let m3 = R.message("m-BBBB0001", 3, "새 메시지")
        let merged = try merge(base, R.room([Self.m1]), R.room([Self.m1, Self.m2, m3]))
        #expect(merged.text == R.room([Self.m1, m3]))
        #expect(try ids(merged) == ["m-01JPA3K8Z4QX", "m-BBBB0001"])
        // Only trailing blank lines differ: not an edit.
        let padded = R.message("m-01JPA3K9B2MD", 2, "## 첫째 날\n해운대와 광안리를 …", role: "assistant") + "\n\n"
        let again = try merge(base, R.room([Self.m1]), R.room([Self.m1, padded, m3]))
        #expect(try ids(again) == ["m-01JPA3K8Z4QX", "m-BBBB0001"])
    }

    @Test func frontMatterKeyChangedOnBothSidesTakesTheNewerValue() throws {
        let base = R.room(title: "부산 여행", extra: "model: echo\n", [Self.m1])
        let ours = R.room(title: "Busan", extra: "model: echo\n", [Self.m1])
        let theirs = R.room(title: "Busan trip", extra: "model: echo\n", [Self.m1])
        let merged = try merge(base, ours, theirs, newer: .theirs)
        #expect(merged.text == theirs)
        #expect(
            merged.notes.contains(
                "title: both sides changed it; kept \"Busan trip\" (the later change), dropped \"Busan\""))
        let other = try merge(base, ours, theirs, newer: .ours)
        #expect(other.text == ours)
        #expect(other.notes.contains { $0.hasPrefix("title:") && $0.contains("dropped \"Busan trip\"") })
    }

    @Test func frontMatterKeysChangedOnDifferentSidesAreBothKept() throws {
        let extra = "# my comment\nmodel: echo # the offline one\nsystem: |\n  Be brief.\n"
        let base = R.room(extra: extra, [Self.m1])
        let ours = R.room(title: "Busan", extra: extra + "provider: offline\n", [Self.m1])
        let theirs = R.room(
            extra: extra.replacingOccurrences(of: "Be brief.", with: "Be brief.\n  Answer in Korean."), [Self.m1])
        let merged = try merge(base, ours, theirs)
        let expected = R.room(
            title: "Busan",
            extra: "# my comment\nmodel: echo # the offline one\nsystem: |\n  Be brief.\n  Answer in Korean.\n"
                + "provider: offline\n",
            [Self.m1])
        #expect(merged.text == expected)
        #expect(merged.notes.isEmpty)
        let fm = try RoomFile(parsing: merged.bytes, path: Self.path).frontMatter!
        #expect(fm.string("system") == "Be brief.\nAnswer in Korean.\n")
    }

    @Test func aKeyRemovedOnOneSideAndKeptOnTheOtherIsRemoved() throws {
        let base = R.room(extra: "model: echo\nprovider: offline\n", [Self.m1])
        let ours = R.room(extra: "provider: offline\n", [Self.m1])
        let theirs = R.room(title: "Busan", extra: "model: echo\nprovider: offline\n", [Self.m1])
        let merged = try merge(base, ours, theirs)
        #expect(merged.text == R.room(title: "Busan", extra: "provider: offline\n", [Self.m1]))
        // Removed on one side, changed on the other: the newer change wins, in its place.
        let changed = R.room(extra: "model: gpt-4o\nprovider: offline\n", [Self.m1])
        let kept = try merge(base, ours, changed, newer: .theirs)
        #expect(kept.text == changed)
        #expect(kept.notes.contains { $0.hasPrefix("model:") })
        let removed = try merge(base, ours, changed, newer: .ours)
        #expect(removed.text == ours)
    }

    @Test func tagsAreMergedAsAUnion() throws {
        let base = R.room(extra: "tags: [a, b]\n", [Self.m1])
        let ours = R.room(extra: "tags: [a, b, c]\n", [Self.m1])
        let theirs = R.room(extra: "tags: [b, d]\n", [Self.m1])
        let merged = try merge(base, ours, theirs)
        // `a` was removed by theirs, `c` added by ours, `d` by theirs.
        #expect(merged.text == R.room(extra: "tags: [b, c, d]\n", [Self.m1]))
        #expect(try merge(base, theirs, ours, newer: .ours).bytes == merged.bytes)
        // A key is never written twice, whatever both sides added.
        let both = try merge(
            R.room([Self.m1]), R.room(extra: "tags:\n  - x\n  - y\n", [Self.m1]),
            R.room(extra: "tags: [y, z]\n", [Self.m1]))
        let fm = try RoomFile(parsing: both.bytes, path: Self.path).frontMatter!
        #expect(fm.strings("tags") == ["x", "y", "z"])
        #expect(both.text.components(separatedBy: "tags:").count == 2)
    }

    @Test func pendingTextChangedOnBothSidesKeepsBoth() throws {
        let base = R.room([Self.m1], pending: "")
        let merged = try merge(base, R.room([Self.m1], pending: "내 질문\n"), R.room([Self.m1], pending: "다른 질문\n"))
        #expect(merged.text == R.room([Self.m1], pending: "내 질문\n\n다른 질문\n"))
        #expect(merged.notes.contains { $0.contains("prompt marker") })
        #expect(try RoomFile(parsing: merged.bytes, path: Self.path).pendingPrompt == "내 질문\n\n다른 질문")
        // Changed on one side only: that side's.
        let one = try merge(
            R.room([Self.m1], pending: "a\n"), R.room([Self.m1], pending: "a\n"), R.room([Self.m1], pending: "b\n"))
        #expect(one.text == R.room([Self.m1], pending: "b\n"))
        // Sent on one side (the pending text became a message), edited on the other: the edit stays pending.
        let sent = R.message("m-AAAA0001", 3, "a")
        let both = try merge(
            R.room([Self.m1], pending: "a\n"), R.room([Self.m1, sent], pending: ""), R.room([Self.m1], pending: "a!\n"))
        #expect(both.text == R.room([Self.m1, sent], pending: "a!\n"))
    }

    @Test func oneMarkerWhenEitherSideHasOne() throws {
        let b = R.message("m-BBBB0001", 3, "b")
        let merged = try merge(R.room([Self.m1], pending: nil), R.room([Self.m1], pending: nil), R.room([Self.m1, b]))
        #expect(merged.text == R.room([Self.m1, b]))
        let a = R.message("m-AAAA0001", 2, "a")
        let both = try merge(
            R.room([Self.m1], pending: nil), R.room([Self.m1, a], pending: nil), R.room([Self.m1, b]))
        #expect(both.text == R.room([Self.m1, a, b]))
        #expect(both.text.components(separatedBy: "vault:prompt").count == 2)
    }

    @Test func aLastMessageWithoutLineEndingIsNotGluedToTheNext() throws {
        let base = R.room([Self.m1], pending: nil)
        let ours = String(R.room([Self.m1], pending: nil).dropLast(2))  // "…일정 짜줘" at the end of the file
        let b = R.message("m-BBBB0001", 3, "b")
        let merged = try merge(base, ours, R.room([Self.m1, b], pending: nil))
        let room = try RoomFile(parsing: merged.bytes, path: Self.path)
        #expect(room.messages.map(\.body) == ["부산 2박 3일 일정 짜줘", "b"])
        #expect(merged.text == R.room([Self.m1, b], pending: nil))
    }

    @Test func preambleChangedOnBothSidesKeepsBoth() throws {
        let base = R.room(preamble: "메모\n\n", [Self.m1])
        let merged = try merge(
            base, R.room(preamble: "메모: 내 것\n\n", [Self.m1]), R.room(preamble: "메모: 다른 것\n\n", [Self.m1]))
        #expect(merged.text == R.room(preamble: "메모: 내 것\n메모: 다른 것\n\n", [Self.m1]))
        #expect(merged.notes.contains { $0.contains("before the first message") })
        // Different lines: both changes, no note.
        let base2 = R.room(preamble: "one\n\ntwo\n\n", [Self.m1])
        let clean = try merge(
            base2, R.room(preamble: "ONE\n\ntwo\n\n", [Self.m1]), R.room(preamble: "one\n\nTWO\n\n", [Self.m1]))
        #expect(clean.text == R.room(preamble: "ONE\n\nTWO\n\n", [Self.m1]))
        #expect(clean.notes.isEmpty)
    }

    @Test func withoutBaseTheRoomsAreUnited() throws {
        let a = R.message("m-AAAA0001", 2, "a")
        let b = R.message("m-BBBB0001", 3, "b")
        let merged = try merge(nil, R.room([Self.m1, a]), R.room([Self.m1, b]))
        #expect(merged.text == R.room([Self.m1, a, b]))
        // The same id with different text: both kept.
        let other = R.message("m-01JPA3K8Z4QX", 1, "다른 내용")
        let both = try merge(nil, R.room([Self.m1]), R.room([other]))
        let room = try RoomFile(parsing: both.bytes, path: Self.path)
        #expect(room.messages.count == 2)
        #expect(room.messages[1].header.attribute("conflict") == "m-01JPA3K8Z4QX")
        #expect(try merge(nil, R.room([other]), R.room([Self.m1]), newer: .ours).bytes == both.bytes)
    }

    @Test func sameRoomIsDecidedByIdsOrCreatedAndTitle() {
        let a = R.bytes(R.room([Self.m1]))
        let b = R.bytes(R.room([Self.m1, Self.m2]))
        let c = R.bytes(R.room([R.message("m-CCCC0001", 1, "x")]))
        let d = R.bytes(R.room(title: "다른 방", [R.message("m-CCCC0001", 1, "x")]))
        let e = R.bytes(R.room(title: "다른 방", [R.message("m-DDDD0001", 1, "x")]))
        let empty = R.bytes(R.room([]))
        let emptyOther = R.bytes(R.room(title: "다른 방", []))
        #expect(Merge.isSameRoom(a, b, path: Self.path))
        // Same created and title: the same room while one side has no messages yet …
        #expect(Merge.isSameRoom(a, empty, path: Self.path))
        #expect(Merge.isSameRoom(empty, c, path: Self.path))
        #expect(!Merge.isSameRoom(emptyOther, c, path: Self.path))  // other title
        // … but two conversations with no message in common are two rooms.
        #expect(!Merge.isSameRoom(a, c, path: Self.path))
        #expect(!Merge.isSameRoom(d, e, path: Self.path))
        #expect(Merge.isSameRoom(c, d, path: Self.path))  // a shared id, whatever the titles
        let noCreated = R.bytes("---\ntitle: x\n---\n\n" + R.message("m-EEEE0001", 1, "y"))
        let noCreated2 = R.bytes("---\ntitle: x\n---\n\n" + R.message("m-FFFF0001", 1, "z"))
        #expect(!Merge.isSameRoom(noCreated, noCreated2, path: Self.path))
        #expect(!Merge.isSameRoom(R.bytes("## 🧑 user · x <!-- 2026-13-01T00:00:00Z m-AAAA -->\n"), a, path: Self.path))
    }

    @Test func crlfRoomStaysCRLF() throws {
        let a = R.message("m-AAAA0001", 5, "ours\nline two")
        let b = R.message("m-BBBB0001", 3, "theirs")
        let base = R.crlf(R.room([Self.m1], pending: nil))
        let ours = R.crlf(R.room([Self.m1, a], pending: nil))
        // Theirs ends without the blank line after its last message.
        var theirs = R.crlf(R.room([Self.m1, b], pending: nil))
        theirs.removeLast(2)
        let merged = try Merge.room(base: base, ours: ours, theirs: theirs, path: Self.path, newer: .theirs)
        #expect(merged.bytes == R.crlf(R.room([Self.m1, b, a], pending: nil)))
        let room = try RoomFile(parsing: merged.bytes, path: Self.path)
        #expect(room.lineEnding == .crlf)
        #expect(room.messages.map(\.body) == ["부산 2박 3일 일정 짜줘", "theirs", "ours\r\nline two"])
        #expect(
            !merged.bytes.enumerated().contains {
                $0.element == 10 && ($0.offset == 0 || merged.bytes[$0.offset - 1] != 13)
            })
    }

    @Test func byteOrderMarkIsKept() throws {
        let bom = "\u{FEFF}"
        let b = R.message("m-BBBB0001", 3, "b")
        let merged = try merge(
            bom + R.room([Self.m1]), bom + R.room(title: "x", [Self.m1]), bom + R.room([Self.m1, b]))
        #expect(merged.text == bom + R.room(title: "x", [Self.m1, b]))
    }

    @Test func aVersionThatDoesNotParseThrows() {
        let bad = R.room([R.header("m-AAAA0001", "2026-13-01T10:00:00+09:00") + "\n\nx\n\n"])
        #expect(throws: VaultError.self) { try merge(R.room([Self.m1]), bad, R.room([Self.m1])) }
        #expect(throws: VaultError.self) { try merge(bad, R.room([Self.m1]), R.room([Self.m2])) }
        #expect(throws: VaultError.self) { try merge(nil, R.room([Self.m1]), "---\ntitle: x\n") }
    }

    @Test func eachSidesOwnOrderIsKept() throws {
        // Ours has a message written out of time order; it stays after the one before it.
        let x = R.message("m-AAAA0001", 5, "x")
        let y = R.message("m-AAAA0002", 3, "y")
        let z = R.message("m-BBBB0001", 4, "z")
        let merged = try merge(R.room([Self.m1]), R.room([Self.m1, x, y]), R.room([Self.m1, z]))
        #expect(merged.text == R.room([Self.m1, z, x, y]))
    }

    @Test func interleaveIsStableAndSymmetric() {
        let precedes = { (a: String, b: String) in a < b }
        #expect(Merge.interleave(["a", "c", "e"], ["b", "c", "d"], precedes: precedes) == ["a", "b", "c", "d", "e"])
        #expect(Merge.interleave(["s", "x", "t"], ["s", "t", "a"], precedes: precedes) == ["s", "x", "t", "a"])
        var rng = SeededRandom(seed: 7)
        for _ in 0..<200 {
            let all = (0..<8).map { "k\($0)" }.shuffled(using: &rng)
            let a = all.filter { _ in Bool.random(using: &rng) }
            let b = all.filter { _ in Bool.random(using: &rng) }
            let out = Merge.interleave(a, b, precedes: precedes)
            #expect(out == Merge.interleave(b, a, precedes: precedes))
            #expect(Set(out) == Set(a).union(b) && out.count == Set(out).count)
        }
    }
}
