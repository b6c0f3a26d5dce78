import Foundation
import Testing
import VaultTestSupport

@testable import VaultCore

/// Random room histories: a base, then appends, edits and deletions on two sides, merged both ways.
@Suite struct MergePropertyTests {
    struct Note: Equatable {
        var id: String
        var minute: Int
        var utc: Bool
        var role: String
        var body: String
    }

    struct History {
        var notes: [Note]
        var title: String
        var tags: [String]
        var pending: String?

        func text(crlf: Bool) -> [UInt8] {
            let messages = notes.map { n in
                RoomText.header(n.id, RoomText.time(n.minute, utc: n.utc), role: n.role) + "\n\n" + n.body + "\n\n"
            }
            let extra = "tags: [\(tags.joined(separator: ", "))]\n"
            let text = RoomText.room(title: title, extra: extra, messages, pending: pending)
            return crlf ? RoomText.crlf(text) : RoomText.bytes(text)
        }
    }

    static let words = ["부산", "바다", "회", "morning", "plan", "## 둘째 날", "```", "- item", "", "끝."]

    static func body(_ rng: inout SeededRandom) -> String {
        (0..<Int.random(in: 1...4, using: &rng)).map { _ in
            (0..<Int.random(in: 1...3, using: &rng)).map { _ in words.randomElement(using: &rng)! }.joined(
                separator: " ")
        }.joined(separator: "\n").trimmingCharacters(in: .whitespaces) + "."
    }

    static func id(_ rng: inout SeededRandom) -> String {
        let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
        return "m-" + String((0..<12).map { _ in alphabet.randomElement(using: &rng)! })
    }

    /// A random base: `messages` messages, questions and replies in turn, two minutes apart.
    static func base(messages: ClosedRange<Int>, _ rng: inout SeededRandom) -> History {
        var notes: [Note] = []
        for k in 0..<Int.random(in: messages, using: &rng) {
            notes.append(
                Note(
                    id: id(&rng), minute: k * 2, utc: false, role: k % 2 == 0 ? "user" : "assistant",
                    body: body(&rng)))
        }
        return History(notes: notes, title: "부산 여행", tags: ["여행"], pending: "")
    }

    /// One side's random changes to `base`.
    static func change(_ base: History, _ rng: inout SeededRandom) -> History {
        var h = base
        for _ in 0..<Int.random(in: 0...4, using: &rng) {
            switch Int.random(in: 0..<10, using: &rng) {
            case 0...3:
                let last = h.notes.map(\.minute).max() ?? 0
                h.notes.append(
                    Note(
                        id: id(&rng), minute: last + Int.random(in: 0...3, using: &rng), utc: Bool.random(using: &rng),
                        role: Bool.random(using: &rng) ? "user" : "assistant", body: body(&rng)))
            case 4...5 where !h.notes.isEmpty:
                let k = Int.random(in: 0..<h.notes.count, using: &rng)
                h.notes[k].body += " " + body(&rng)
            case 6 where !h.notes.isEmpty:
                h.notes.remove(at: Int.random(in: 0..<h.notes.count, using: &rng))
            case 7:
                h.title = ["부산 여행", "Busan", "Busan trip", "釜山"].randomElement(using: &rng)!
            case 8:
                h.tags = Array(Set(h.tags + [["여행", "바다", "plan"].randomElement(using: &rng)!]).sorted().prefix(3))
                if Bool.random(using: &rng), !h.tags.isEmpty { h.tags.removeFirst() }
            default:
                h.pending = [nil, "", "다음엔 뭐 하지?\n", "질문\n"].randomElement(using: &rng)!
            }
        }
        return h
    }

    @Test func randomHistoriesMergeToEveryMessageSymmetricallyAndIdempotently() throws {
        var rng = SeededRandom(seed: 0x5EED_0001)
        var conflicts = 0
        var deletions = 0
        for round in 0..<400 {
            let base = Self.base(messages: 0...6, &rng)
            let ours = Self.change(base, &rng)
            let theirs = Self.change(base, &rng)
            let crlf = round % 5 == 0
            let noBase = round % 11 == 0
            let (b, o, t) = (base.text(crlf: crlf), ours.text(crlf: crlf), theirs.text(crlf: crlf))
            let path = "rooms/r\(round).md"
            let newer: Merge.Newer = Bool.random(using: &rng) ? .ours : .theirs
            let merged = try Merge.room(base: noBase ? nil : b, ours: o, theirs: t, path: path, newer: newer)
            let room = try RoomFile(parsing: merged.bytes, path: path)
            // Two versions of a message edited on both sides are the merge's own outcome (listed
            // until settled); nothing else may be wrong.
            let wrong = room.warnings.filter { if case .unsettledConflict = $0.kind { return false } else { return true } }
            #expect(wrong.isEmpty, "round \(round): \(wrong)")

            // Every id of either side is there, unless one side deleted it and the other left it unchanged.
            let baseByID = Dictionary(uniqueKeysWithValues: (noBase ? [] : base.notes).map { ($0.id, $0) })
            let oursByID = Dictionary(uniqueKeysWithValues: ours.notes.map { ($0.id, $0) })
            let theirsByID = Dictionary(uniqueKeysWithValues: theirs.notes.map { ($0.id, $0) })
            var expected = Set<String>()
            var bothEdited = Set<String>()
            for id in Set(oursByID.keys).union(theirsByID.keys) {
                let (bn, on, tn) = (baseByID[id], oursByID[id], theirsByID[id])
                if let bn, on == nil || tn == nil {
                    if (on ?? tn) != bn { expected.insert(id) } else { deletions += 1 }
                } else {
                    expected.insert(id)
                }
                if let on, let tn, on != tn, on != bn, tn != bn { bothEdited.insert(id) }
            }
            let plain = room.messages.filter { $0.header.attribute("conflict") == nil }.map(\.id)
            #expect(Set(plain) == expected, "round \(round)")
            #expect(plain.count == expected.count, "round \(round)")
            let copies = room.messages.filter { $0.header.attribute("conflict") != nil }
            #expect(Set(copies.compactMap { $0.header.attribute("conflict") }) == bothEdited, "round \(round)")
            conflicts += copies.count
            #expect(Set(room.messages.map(\.id)).count == room.messages.count, "round \(round)")
            // Each side was in time order, so the merge's turns are: the questions come in time order,
            // each followed by its replies.
            let times = room.messages.filter { $0.role == .user }.map(\.timestamp.secondsSince1970)
            #expect(times == times.sorted(), "round \(round)")
            // A side equal to base takes the other side whole; otherwise the marker is there when
            // either side had one.
            if o == b && !noBase {
                #expect(merged.bytes == t, "round \(round)")
            } else if t == b && !noBase {
                #expect(merged.bytes == o, "round \(round)")
            } else {
                #expect(
                    (room.promptMarkerOffset != nil) == (ours.pending != nil || theirs.pending != nil), "round \(round)"
                )
            }

            // Symmetric: the other machine's merge gives the same bytes.
            let other = try Merge.room(
                base: noBase ? nil : b, ours: t, theirs: o, path: path, newer: newer == .ours ? .theirs : .ours)
            #expect(other.bytes == merged.bytes, "round \(round)")
            let full = try Merge.room(
                base: noBase ? nil : b, ours: o, theirs: t, path: path, newer: newer, shortcuts: false)
            if o != b && t != b { #expect(full.bytes == merged.bytes, "round \(round)") }

            // Idempotent: the result merged with itself, from either side, is the result (shortcuts off).
            for side in [o, t] {
                let again = try Merge.room(
                    base: side, ours: merged.bytes, theirs: merged.bytes, path: path, newer: newer, shortcuts: false)
                #expect(again.bytes == merged.bytes, "round \(round)")
            }
            // And merging it with an unchanged side changes nothing more (unless that side has the prompt
            // marker the result lacks: a marker on either side is kept).
            for side in [o, t]
            where room.promptMarkerOffset != nil
                || !String(decoding: side, as: UTF8.self)
                    .contains(RoomFile.promptMarkerLine)
            {
                let settled = try Merge.room(
                    base: side, ours: merged.bytes, theirs: side, path: path, newer: newer, shortcuts: false)
                #expect(settled.bytes == merged.bytes, "round \(round)")
            }
        }
        // The generator did exercise the interesting cases.
        #expect(conflicts > 10)
        #expect(deletions > 10)
    }

    /// One side converts a random room's line endings (LF to CRLF, or back), maybe appending a
    /// message too; the other edits a message or appends one. The conversion is no edit of the
    /// messages: the other side's change is kept as it is, no message is kept twice
    /// (`conflict=`), and the result has one line ending, the converting side's. Both ways round.
    @Test func aLineEndingConversionOnOneSideKeepsTheOtherSidesEdit() throws {
        var rng = SeededRandom(seed: 0x5EED_0C21)
        for round in 0..<300 {
            let base = Self.base(messages: 1...6, &rng)
            let toCRLF = round % 2 == 0
            var converted = base
            let last = (base.notes.map(\.minute).max() ?? 0) + 1
            if Bool.random(using: &rng) {
                converted.notes.append(Note(id: Self.id(&rng), minute: last, utc: false, role: "user", body: "변환한 쪽"))
            }
            var edited = base
            let editedID: String
            if Bool.random(using: &rng) {
                let k = Int.random(in: 0..<base.notes.count, using: &rng)
                edited.notes[k].body += " 고침 " + Self.body(&rng)
                editedID = base.notes[k].id
            } else {
                editedID = Self.id(&rng)
                edited.notes.append(Note(id: editedID, minute: last, utc: false, role: "user", body: Self.body(&rng)))
            }
            let b = base.text(crlf: !toCRLF)
            let c = converted.text(crlf: toCRLF)
            let e = edited.text(crlf: !toCRLF)
            let path = "rooms/eol\(round).md"
            for convertedIsOurs in [true, false] {
                let newer: Merge.Newer = Bool.random(using: &rng) ? .ours : .theirs
                let (o, t) = convertedIsOurs ? (c, e) : (e, c)
                let merged = try Merge.room(base: b, ours: o, theirs: t, path: path, newer: newer)
                let room = try RoomFile(parsing: merged.bytes, path: path)
                #expect(!room.messages.contains { $0.header.attribute("conflict") != nil }, "round \(round)")
                let want = edited.notes.first { $0.id == editedID }!.body
                let kept = room.messages.first { $0.id == editedID }?.body
                #expect(kept.map { String(decoding: LineEnding.lf.converting(Array($0.utf8)), as: UTF8.self) } == want)
                #expect(Set(room.messages.map(\.id)) == Set(converted.notes.map(\.id) + edited.notes.map(\.id)))
                // One line ending, the converting side's.
                let bytes = merged.bytes
                let lineFeeds = bytes.indices.filter { bytes[$0] == 10 }
                let crlfs = lineFeeds.filter { $0 > 0 && bytes[$0 - 1] == 13 }
                #expect(crlfs.count == (toCRLF ? lineFeeds.count : 0), "round \(round): mixed line endings")
                #expect(room.lineEnding == (toCRLF ? .crlf : .lf), "round \(round)")
                if converted.notes == base.notes {
                    // Only the line endings changed there: the result is the other side's, converted.
                    #expect(bytes == (toCRLF ? LineEnding.crlf : .lf).converting(e), "round \(round)")
                }
                let full = try Merge.room(base: b, ours: o, theirs: t, path: path, newer: newer, shortcuts: false)
                #expect(full.bytes == merged.bytes, "round \(round)")
            }
        }
    }
}
