import Testing
import VaultCore

@testable import VaultGit

/// The no-loss check of a merge (`Integrity.lost`, which `VaultSync.verify` runs before every
/// merge commit) proves text, not ids.
@Suite struct IntegrityTests {
    func room(_ messages: [(id: String, body: String)]) -> [UInt8] {
        var text = "---\ntitle: r\n---\n\n"
        for m in messages {
            text += "## 🧑 user · d <!-- 2026-11-21T09:31:07+09:00 \(m.id) -->\n\n\(m.body)\n\n"
        }
        return Array(text.utf8)
    }

    func entry(_ body: String) -> [UInt8] {
        Array("---\nid: d-01JPA3K8Z4QX\ntitle: t\n---\n\n# day\n\n\(body)\n".utf8)
    }

    let r = "rooms/r.md"
    let e = "diary/2026/2026-11-21-t.md"
    let copy = "diary/2026/2026-11-21-t.conflict-m-20261121-003000-1a2b3c4.md"

    @Test func aResultThatDropsOneSidesEntryVersionIsRefused() {
        let base = entry("one")
        let ours = entry("one\nours")
        let theirs = entry("one\ntheirs")
        // The bug of issue #22: the copy of one version overwritten by another under the same name.
        let lost = Integrity.lost(
            base: [e: base], ours: [e: ours], theirs: [e: theirs], result: [e: ours, copy: entry("one\nthird")])
        #expect(lost == ["\(e): the entry's text (the other side's version)"])
        // The same with the copy holding theirs: nothing lost.
        #expect(
            Integrity.lost(base: [e: base], ours: [e: ours], theirs: [e: theirs], result: [e: ours, copy: theirs])
                .isEmpty)
    }

    @Test func anEntryMergedLineByLineKeepsBothSides() {
        let base = entry("a\nb\nc")
        let ours = entry("a2\nb\nc")
        let theirs = entry("a\nb\nc2")
        #expect(
            Integrity.lost(base: [e: base], ours: [e: ours], theirs: [e: theirs], result: [e: entry("a2\nb\nc2")])
                .isEmpty)
        // Theirs' added line missing from the merge: refused.
        #expect(
            Integrity.lost(base: [e: base], ours: [e: ours], theirs: [e: theirs], result: [e: entry("a2\nb\nc")])
                == ["\(e): the entry's text (the other side's version)"])
    }

    @Test func messagesAreProvedByTheirTextNotTheirIDs() {
        let base = room([("m-AAAA1111", "hello")])
        let ours = room([("m-AAAA1111", "hello, edited here")])
        let theirs = room([("m-AAAA1111", "hello, edited there")])
        // Both ids are there, but one edit's text is gone.
        #expect(
            Integrity.lost(base: [r: base], ours: [r: ours], theirs: [r: theirs], result: [r: ours])
                == ["\(r): message m-AAAA1111 (the other side's version)"])
        // Kept twice (the later version under a new id): nothing lost.
        let both = room([("m-AAAA1111", "hello, edited here"), ("m-AAAA1111B2", "hello, edited there")])
        #expect(Integrity.lost(base: [r: base], ours: [r: ours], theirs: [r: theirs], result: [r: both]).isEmpty)
    }

    @Test func versionsLeftAsTheBaseHadThemMayGo() {
        let base = room([("m-AAAA1111", "hello"), ("m-BBBB2222", "bye")])
        // Ours deleted m-BBBB2222 on purpose; theirs left it: the deletion stands.
        let ours = room([("m-AAAA1111", "hello")])
        #expect(Integrity.lost(base: [r: base], ours: [r: ours], theirs: [r: base], result: [r: ours]).isEmpty)
        // Trailing blank lines are no edit.
        let padded = room([("m-AAAA1111", "hello\n\n"), ("m-BBBB2222", "bye")])
        #expect(Integrity.lost(base: [r: base], ours: [r: ours], theirs: [r: padded], result: [r: ours]).isEmpty)
        // An entry deleted on one side and left as it was on the other.
        #expect(Integrity.lost(base: [e: entry("x")], ours: [:], theirs: [e: entry("x")], result: [:]).isEmpty)
        // Edited on the other side: that edit must stay.
        #expect(!Integrity.lost(base: [e: entry("x")], ours: [:], theirs: [e: entry("x y")], result: [:]).isEmpty)
    }
}
