import Foundation
import Testing
import VaultTestSupport

@testable import VaultCore

/// Replacing the end of a file in place under a redo journal (`TailWrite`): what a chat turn
/// does to a room. Each crash state is made by hand, the way a crash leaves it, and the
/// recovery is checked on the bytes.
@Suite struct TailWriteTests {
    let prefix = Array(
        "---\ntitle: t\n---\n\n## 🧑 user · x <!-- 2026-11-21T09:31:07+09:00 m-AAAAAAAAAAAA -->\n\nhi\n\n".utf8)
    let oldEnd = Array("<!-- vault:prompt · below -->\ntyped below\n".utf8)
    let newEnd = Array(
        ("## 🧑 user · y <!-- 2026-11-21T09:32:00+09:00 m-BBBBBBBBBBBB -->\n\ntyped below\n\n"
            + "<!-- vault:prompt · below -->\n").utf8)
    var mark: [UInt8] { Array("## 🧑 user · y <!-- 2026-11-21T09:32:00+09:00 m-BBBBBBBBBBBB -->".utf8) }

    func setUp() throws -> (TemporaryDirectory, String, String) {
        let dir = TemporaryDirectory("tail-write")
        try dir.write("rooms/r.md", prefix + oldEnd)
        return (dir, dir.path + "/rooms/r.md", dir.path + "/.vault/journal")
    }

    @Test func theEndIsReplacedAndNothingBeforeIt() throws {
        let (dir, path, journal) = try setUp()
        let stamp = try #require(FileIO.stamp(of: path))
        let after = try TailWrite.replace(
            path, relative: "rooms/r.md", from: prefix.count, with: newEnd, mark: mark, expecting: stamp,
            journal: journal)
        #expect(try dir.read("rooms/r.md") == prefix + newEnd)
        #expect(after == FileIO.stamp(of: path))
        #expect(after != stamp)
        // The journal is left marked done: nothing to recover.
        #expect(!TailWrite.Journal.isPending(journal))
        #expect(TailWrite.recover(journal: journal, root: dir.path) == nil)
        #expect(try dir.read("rooms/r.md") == prefix + newEnd)
    }

    /// The journal holds a write's old and new ends only until the write is on disk: a turn
    /// that appended megabytes leaves a journal of at most 64 KiB (`Journal.keptBytes`) (it grew to the
    /// largest write ever made, 1 GiB seen, and never shrank), and so does a recovery.
    @Test func theJournalShrinksOnceTheWriteIsDone() throws {
        let (dir, path, journal) = try setUp()
        let big = newEnd + Array(repeating: UInt8(ascii: "x"), count: 3 << 20) + [10]
        var stamp = try #require(FileIO.stamp(of: path))
        stamp = try TailWrite.replace(
            path, relative: "rooms/r.md", from: prefix.count, with: big, mark: mark, expecting: stamp, journal: journal)
        #expect(try dir.read("rooms/r.md") == prefix + big)
        let size = try #require(FileIO.size(of: journal))
        #expect(size <= 64 << 10, "the journal is \(size) bytes after a done write")
        #expect(!TailWrite.Journal.isPending(journal))
        // A small write after it reuses the journal, and is recovered from it after a crash.
        let record = TailWrite.Record(
            path: "rooms/r.md", device: 0, inode: 0, offset: prefix.count, old: big, new: newEnd, mark: mark)
        try TailWrite.Journal.write(record, to: journal)
        #expect(TailWrite.Journal.read(journal) == record)
        // A crash-left journal of megabytes is cut once recovered.
        try TailWrite.Journal.write(
            TailWrite.Record(
                path: "rooms/r.md", device: 0, inode: 0, offset: prefix.count, old: newEnd, new: big, mark: mark),
            to: journal)
        #expect(try #require(FileIO.size(of: journal)) > 3 << 20)
        _ = TailWrite.recover(journal: journal, root: dir.path)
        #expect(try #require(FileIO.size(of: journal)) <= 64 << 10)
        #expect(!TailWrite.Journal.isPending(journal))
    }

    @Test func aShorterEndCutsTheFile() throws {
        let (dir, path, journal) = try setUp()
        let stamp = try #require(FileIO.stamp(of: path))
        _ = try TailWrite.replace(
            path, relative: "rooms/r.md", from: prefix.count, with: [10], mark: [], expecting: stamp, journal: journal)
        #expect(try dir.read("rooms/r.md") == prefix + [10])
    }

    @Test func aFileChangedSinceItWasReadIsNotWritten() throws {
        let (dir, path, journal) = try setUp()
        let stamp = try #require(FileIO.stamp(of: path))
        // An editor saves (by rename) between vault's read and its write.
        try Data((prefix + Array("edited\n".utf8)).map { $0 }).write(to: URL(fileURLWithPath: path), options: .atomic)
        let saved = try dir.read("rooms/r.md")
        do {
            _ = try TailWrite.replace(
                path, relative: "rooms/r.md", from: prefix.count, with: newEnd, mark: mark, expecting: stamp,
                journal: journal)
            Issue.record("a file saved since it was read was written over")
        } catch {
            guard case .changedOnDisk = error else { throw error }
            #expect(error.description.contains("changed on disk"), "\(error)")
        }
        #expect(try dir.read("rooms/r.md") == saved)
        #expect(!TailWrite.Journal.isPending(journal))
    }

    @Test func theJournalRoundTripsAndRejectsDamage() throws {
        let record = TailWrite.Record(
            path: "rooms/부산 여행.md", device: 7, inode: 99, offset: 123, old: oldEnd, new: newEnd, mark: mark)
        let bytes = TailWrite.Journal.encode(record)
        #expect(TailWrite.Journal.decode(bytes) == record)
        // Any flipped byte, or a cut, makes it unreadable: a torn journal is never applied.
        var flipped = bytes
        flipped[bytes.count - 5] ^= 1
        #expect(TailWrite.Journal.decode(flipped) == nil)
        #expect(TailWrite.Journal.decode(Array(bytes.dropLast(3))) == nil)
        // Marked done (first byte overwritten): nothing pending.
        var done = bytes
        done[0] = UInt8(ascii: "X")
        #expect(TailWrite.Journal.decode(done) == nil)
    }

    /// The states a crash can leave the file in, with the journal written: the old end, half of
    /// the new end, the new end with zeros where blocks were never written, and the whole new end.
    @Test(arguments: ["old", "half", "zeros", "whole"])
    func aCrashInTheMiddleIsFinishedByTheNextCommand(state: String) throws {
        let (dir, path, journal) = try setUp()
        try journalTheWrite(path, journal)
        let end: [UInt8]
        switch state {
        case "old": end = oldEnd
        case "half": end = Array(newEnd[..<(newEnd.count / 2)]) + Array(oldEnd.dropFirst(newEnd.count / 2))
        case "zeros": end = Array(newEnd[..<10]) + [UInt8](repeating: 0, count: newEnd.count - 10)
        default: end = newEnd
        }
        try overwriteInPlace(path, prefix + end)
        #expect(TailWrite.Journal.isPending(journal))
        #expect(TailWrite.recover(journal: journal, root: dir.path) == nil)
        #expect(try dir.read("rooms/r.md") == prefix + newEnd, "state \(state)")
        #expect(!TailWrite.Journal.isPending(journal))
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/.vault/recovered"))
    }

    /// After the crash, before any vault command ran, the person changed the file (saved it
    /// from an editor without the new text): it is left as they saved it, and the text that
    /// was being written is kept in `.vault/recovered/`.
    @Test func aFileChangedAfterTheCrashIsLeftAloneAndTheTextKeptAside() throws {
        let (dir, path, journal) = try setUp()
        try journalTheWrite(path, journal)
        let saved = prefix + Array("the person's own ending\n".utf8)
        try overwriteInPlace(path, saved)
        let note = try #require(TailWrite.recover(journal: journal, root: dir.path))
        #expect(note.contains("rooms/r.md") && note.contains(".vault/recovered/"), "\(note)")
        #expect(try dir.read("rooms/r.md") == saved)
        let kept = try FileManager.default.contentsOfDirectory(atPath: dir.path + "/.vault/recovered")
        try #require(kept.count == 1)
        #expect(try dir.read(".vault/recovered/" + kept[0]) == newEnd)
        #expect(!TailWrite.Journal.isPending(journal))
    }

    /// The write was whole and the person edited the file afterwards (a new inode): the new
    /// text is in the file, so nothing is done.
    @Test func aWholeWriteEditedAfterwardsIsLeftAsItIs() throws {
        let (dir, path, journal) = try setUp()
        try journalTheWrite(path, journal)
        let edited = Array("# notes\n".utf8) + prefix + newEnd + Array("more\n".utf8)
        try Data(edited).write(to: URL(fileURLWithPath: path), options: .atomic)
        #expect(TailWrite.recover(journal: journal, root: dir.path) == nil)
        #expect(try dir.read("rooms/r.md") == edited)
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/.vault/recovered"))
    }

    @Test func interruptedStatesAreRecognised() {
        #expect(TailWrite.isInterrupted([1, 0, 3], old: [1, 2, 3], new: [9, 9, 9, 9]))
        #expect(TailWrite.isInterrupted([9, 9, 3], old: [1, 2, 3], new: [9, 9, 9, 9]))
        #expect(!TailWrite.isInterrupted([9, 5, 3], old: [1, 2, 3], new: [9, 9, 9, 9]))
        #expect(!TailWrite.isInterrupted([9, 9, 9, 9, 9], old: [1, 2, 3], new: [9, 9, 9, 9]))
    }

    /// What `replace` writes into the journal before it touches the file: the crash comes next.
    func journalTheWrite(_ path: String, _ journal: String) throws {
        let st = try #require(statOf(path))
        let record = TailWrite.Record(
            path: "rooms/r.md", device: UInt64(st.st_dev), inode: UInt64(st.st_ino), offset: prefix.count, old: oldEnd,
            new: newEnd, mark: mark)
        try TailWrite.Journal.write(record, to: journal)
    }

    func statOf(_ path: String) -> stat? {
        var st = stat()
        return stat(path, &st) == 0 ? st : nil
    }

    /// Writes `bytes` into the file itself (same inode), as a crash leaves it.
    func overwriteInPlace(_ path: String, _ bytes: [UInt8]) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: Data(bytes))
        try handle.close()
    }
}
