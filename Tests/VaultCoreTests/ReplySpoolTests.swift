import Foundation
import Testing
import VaultTestSupport

@testable import VaultCore

#if canImport(Glibc)
import Glibc
#endif

/// A reply written to a file as it arrives (`ReplySpool`) and appended to a room from there
/// (`RoomFile.appendingAtEnd(_:body:display:)`, `TailWrite` with a file part) gives the very
/// bytes the in-memory path gives (`ChatTurn.tidy`, `BodyEscaping.escape`, `appendingAtEnd`),
/// however the reply is cut into pieces.
@Suite struct ReplySpoolTests {
    /// Pieces of replies: header look-alikes, prompt markers, backslashes, blank lines of all
    /// kinds of white space, CRLF, Hangul and emoji.
    static let pieces: [String] =
        RoundTripPropertyTests.pieces + [
            "\u{00A0}", "\u{3000}", " \t ", "\n \n", "\r\n\r\n", "#", "<", "\\#", "\\<", "## ", "<!-- vault:prompt",
            " -->", "\n## 🤖 assistant · z <!-- 2026-11-21T09:31:07+09:00 m-01JPA3K8Z4QX -->\n",
        ]

    static func randomReply(_ rng: inout SeededRandom) -> String {
        var s = ""
        for _ in 0..<Int.random(in: 0...16, using: &rng) {
            s += pieces.randomElement(using: &rng)!
            if Int.random(in: 0..<3, using: &rng) == 0 { s += "\n" }
        }
        return s
    }

    /// `text` in pieces of random sizes (never inside a character).
    static func cut(_ text: String, _ rng: inout SeededRandom) -> [String] {
        var out: [String] = []
        var piece = ""
        for ch in text {
            piece.append(ch)
            if Int.random(in: 0..<4, using: &rng) == 0 {
                out.append(piece)
                piece = ""
            }
        }
        if !piece.isEmpty { out.append(piece) }
        return out
    }

    static func read(_ text: FileText) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: text.range.count)
        let n = bytes.withUnsafeMutableBytes {
            pread(text.descriptor, $0.baseAddress, $0.count, off_t(text.range.lowerBound))
        }
        return Array(bytes.prefix(max(n, 0)))
    }

    @Test func theSpooledTextIsTheEscapedTidyReply() throws {
        let dir = TemporaryDirectory("reply-spool")
        var rng = SeededRandom(seed: 41)
        for round in 0..<500 {
            let reply = Self.randomReply(&rng)
            let spool = try ReplySpool(folder: dir.path + "/.vault")
            for piece in Self.cut(reply, &rng) { spool.append(piece) }
            spool.finish()
            #expect(spool.problem == nil)
            #expect(spool.receivedBytes == reply.utf8.count)
            let tidy = ChatTurn.tidy(reply)
            guard let body = spool.body else {
                #expect(tidy.isEmpty, "round \(round): no text spooled for \(reply.debugDescription)")
                continue
            }
            let expected = Array(BodyEscaping.escape(tidy).utf8)
            #expect(Self.read(body) == expected, "round \(round): \(reply.debugDescription)")
            #expect(body.lineFeeds == expected.filter { $0 == 10 }.count, "round \(round)")
        }
        // The files have no names: nothing is left in the folder.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path + "/.vault").isEmpty)
    }

    /// A line that only starts like a header (`#`, `<`) is held until it ends; any other line,
    /// however long, goes straight to the file.
    @Test func longLinesAreWrittenAsTheyCome() throws {
        let dir = TemporaryDirectory("reply-spool")
        let spool = try ReplySpool(folder: dir.path)
        var rng = SeededRandom(seed: 7)
        let line = String(repeating: "가나다 abc ", count: 40_000)  // ~560 KB, one line
        spool.append("  \n")
        for piece in Self.cut(line, &rng) { spool.append(piece) }
        spool.append("\n## 🧑 user · x <!-- 2026-11-21T09:31:07+09:00 m-01JPA3K8Z4QX -->\n\n")
        spool.finish()
        let body = try #require(spool.body)
        let expected = line + "\n\\## 🧑 user · x <!-- 2026-11-21T09:31:07+09:00 m-01JPA3K8Z4QX -->"
        #expect(Self.read(body) == Array(expected.utf8))
        #expect(body.lineFeeds == 1)
    }

    /// Appending a spooled reply writes what appending it from memory writes (but for the new
    /// message's id), with the same line numbers, in LF and CRLF rooms, with and without text
    /// below the marker, and in a long room read by its end.
    @Test(arguments: ["\n", "\r\n"])
    func appendingASpooledReplyWritesWhatAppendingItFromMemoryWrites(eol: String) throws {
        let dir = TemporaryDirectory("reply-append")
        var rng = SeededRandom(seed: eol == "\n" ? 11 : 12)
        let t = Timestamp(rfc3339: "2026-11-21T09:31:07+09:00")!
        for round in 0..<150 {
            var bytes = RoundTripPropertyTests.emptyRoom(eol)
            for _ in 0..<Int.random(in: 0...3, using: &rng) {
                let room = try RoomFile(parsing: bytes, path: "rooms/r.md")
                bytes =
                    room.appending([MessageDraft(role: .user, body: Self.randomReply(&rng), timestamp: t)]) { _ in "d" }
                    .bytes
            }
            if Bool.random(using: &rng) { bytes += Array("typed below\(eol)".utf8) }
            let room = try RoomFile(parsing: bytes, path: "rooms/r.md")
            var reply = ""
            while ChatTurn.tidy(reply).isEmpty { reply = Self.randomReply(&rng) }
            let spool = try ReplySpool(folder: dir.path)
            for piece in Self.cut(reply, &rng) { spool.append(piece) }
            spool.finish()
            let body = try #require(spool.body)
            let draft = MessageDraft(
                role: .assistant, body: ChatTurn.tidy(reply), timestamp: t, attributes: [.init("model", "m")],
                displaySuffix: "m")
            let inMemory = room.appendingAtEnd([draft], display: { _ in "날짜" })
            var headerOnly = draft
            headerOnly.body = ""
            let long = room.appendingAtEnd(headerOnly, body: body, display: { _ in "날짜" })
            #expect(long.offset == inMemory.offset, "round \(round)")
            var written: [UInt8] = []
            try TailWrite.each(long.parts, upTo: .max, path: "r") { written += $0 }
            let oldID = Array(inMemory.messages[0].id.utf8)
            let newID = Array(long.header.id.utf8)
            #expect(
                replacing(newID, with: oldID, in: written) == inMemory.bytes,
                "round \(round): \(reply.debugDescription)")
            #expect(long.line == inMemory.messages[0].line, "round \(round)")
            let after = Array(bytes[..<inMemory.offset]) + inMemory.bytes
            #expect(long.lineFeeds == after.filter { $0 == 10 }.count, "round \(round)")
            #expect(try RoomFile(parsing: after, path: "r").messages.last?.body == ChatTurn.tidy(reply))
        }
    }

    func replacing(_ a: [UInt8], with b: [UInt8], in bytes: [UInt8]) -> [UInt8] {
        guard !a.isEmpty,
            let at = (0...(max(0, bytes.count - a.count))).first(where: {
                Array(bytes[$0..<min($0 + a.count, bytes.count)]) == a
            })
        else { return bytes }
        return Array(bytes[..<at]) + b + Array(bytes[(at + a.count)...])
    }

    /// The journal of a new end given in parts holds their bytes in one piece: decoded, it is
    /// the record `encode` would make, and recovery finishes an interrupted write with them.
    @Test func aJournalOfPartsIsTheRecordOfTheirBytes() throws {
        let dir = TemporaryDirectory("journal-parts")
        let spool = try ReplySpool(folder: dir.path)
        let middle = String(repeating: "둘째 줄\n", count: 300_000)  // ~3 MB: more than one copy buffer
        spool.append(middle + "끝")
        spool.finish()
        let body = try #require(spool.body)
        let head = Array("## 🤖 assistant · d <!-- 2026-11-21T09:31:07+09:00 m-CCCCCCCCCCCC -->\n\n".utf8)
        let tail = Array("\n\n<!-- vault:prompt -->\n".utf8)
        let journal = dir.path + "/.vault/journal"
        try TailWrite.Journal.write(
            path: "rooms/r.md", device: 1, inode: 2, offset: 7, old: Array("old".utf8),
            new: [.bytes(head), .file(body), .bytes(tail)],
            mark: Array(head.prefix(20)), to: journal)
        let record = try #require(TailWrite.Journal.read(journal))
        let whole = head + Array((middle + "끝").utf8) + tail
        #expect(
            record
                == TailWrite.Record(
                    path: "rooms/r.md", device: 1, inode: 2, offset: 7, old: Array("old".utf8), new: whole,
                    mark: Array(head.prefix(20))))
        // A short record written after a long one leaves nothing of it behind.
        try TailWrite.Journal.write(
            TailWrite.Record(path: "r", device: 1, inode: 2, offset: 0, old: [], new: [1], mark: []), to: journal)
        #expect(
            FileIO.size(of: journal)
                == TailWrite.Journal.encode(
                    TailWrite.Record(path: "r", device: 1, inode: 2, offset: 0, old: [], new: [1], mark: [])
                ).count)
    }
}
