import Testing
import VaultCore

/// `StaleSave.base`: which earlier version a save lacking committed messages was made from.
@Suite struct StaleSaveTests {
    let path = "rooms/busan.md"
    let a = RoomText.message("m-AAAA", 1, "첫 질문")
    let b = RoomText.message("m-BBBB", 2, "첫 답", role: "assistant")
    let c = RoomText.message("m-CCCC", 3, "노트북의 질문")
    let d = RoomText.message("m-DDDD", 4, "노트북의 답", role: "assistant")

    func bytes(_ messages: [String]) -> [UInt8] { RoomText.bytes(RoomText.room(messages)) }

    /// The history, newest first, as `FileVersions` gives it.
    func walk(_ steps: [StaleSave.Step]) -> () throws(VaultError) -> StaleSave.Step? {
        var rest = steps[...]
        return { () throws(VaultError) in rest.popFirst() }
    }

    @Test func aSaveMadeBeforeTwoArrivalsIsMergedFromTheVersionItWasMadeFrom() throws {
        // Versions: [a] → [a b] (chat) → [a b c d] (sync). The editor read [a b] and edited b.
        let saved = bytes([a, b.replacingOccurrences(of: "첫 답", with: "고친 답")])
        let base = try StaleSave.base(
            saved: saved, committed: bytes([a, b, c, d]), path: path,
            earlier: walk([
                .init(before: bytes([a, b]), byHand: false),
                .init(before: bytes([a]), byHand: false),
                .init(before: nil, byHand: false),
            ]))
        #expect(base == bytes([a, b]))
        let merged = Editing.merged(path, given: base!, saved: saved, theirs: bytes([a, b, c, d]))
        let text = String(decoding: merged.bytes, as: UTF8.self)
        #expect(text.contains("고친 답") && text.contains("노트북의 질문") && text.contains("노트북의 답"))
        #expect(StaleSave.kept(saved: saved, merged: merged.bytes, path: path).count == 2)
    }

    @Test func aSaveThatHasTheNewestMessageIsNotStale() throws {
        // The person read [a b c d] and removed c: a removal of what they saw.
        var asked = 0
        let base = try StaleSave.base(
            saved: bytes([a, b, d]), committed: bytes([a, b, c, d]), path: path,
            earlier: { () throws(VaultError) in
                asked += 1
                return .init(before: bytes([a, b]), byHand: false)
            })
        #expect(base == nil)
        #expect(asked == 1)
    }

    @Test func aSaveLackingNothingIsNeverWalked() throws {
        var asked = 0
        let base = try StaleSave.base(
            saved: bytes([a, b, c]), committed: bytes([a, b, c]), path: path,
            earlier: { () throws(VaultError) in
                asked += 1
                return nil
            })
        #expect(base == nil && asked == 0)
    }

    @Test func aChangeMadeByHandEndsTheWalk() throws {
        // [a b] → [a b c d] by a person's own `edit:`: they saw c and d.
        let base = try StaleSave.base(
            saved: bytes([a, b]), committed: bytes([a, b, c, d]), path: path,
            earlier: walk([.init(before: bytes([a, b]), byHand: true)]))
        #expect(base == nil)
    }

    @Test func messagesKeptOnceAreRemovedTheSecondTime() throws {
        let steps: [StaleSave.Step] = [.init(before: bytes([a, b]), byHand: false)]
        let first = try StaleSave.base(
            saved: bytes([a, b]), committed: bytes([a, b, c, d]), path: path, earlier: walk(steps))
        #expect(first == bytes([a, b]))
        let second = try StaleSave.base(
            saved: bytes([a, b]), committed: bytes([a, b, c, d]), path: path,
            remembered: ["m-CCCC", "m-DDDD"], earlier: walk(steps))
        #expect(second == nil)
    }

    @Test func aFileThatDoesNotParseIsLeftToTheUsualCommit() throws {
        let base = try StaleSave.base(
            saved: RoomText.bytes("---\ntitle: [broken\n"), committed: bytes([a, b]), path: path,
            earlier: walk([.init(before: bytes([a]), byHand: false)]))
        #expect(base == nil)
    }
}
