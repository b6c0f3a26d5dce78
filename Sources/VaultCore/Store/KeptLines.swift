import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The lines of a listing cache, walked in place in the order they were saved in (the
/// listing's own order, `ListingCache.save`), merged with the files read now: the rows of a
/// listing the watcher answered for, made one at a time, so a listing of 50,000 files holds
/// no array of them, sorts nothing, and prints its first screen after reading one.
///
/// The walk leaves out the lines of `skipped` paths (the files the watcher named: each is
/// either read now, among `fresh`, or gone), and puts each of `fresh` (sorted as the
/// listing is) before the first kept line it precedes (`freshFirst`). The pages of the cache
/// walked past are given back to the system as it goes (`MappedBytes.release`): memory
/// stays the same however long the cache is.
struct KeptLines<Fresh>: @unchecked Sendable {
    let storage: MappedBytes
    /// Where the first kept line starts (after the head and the unsettled lines), and where the
    /// last one ends (the checksum's line starts).
    let start: Int
    let end: Int
    let skipped: PathSet
    let fresh: [Fresh]
    /// Whether a file read now comes before a kept line (checked by `check`).
    let freshFirst: (Fresh, KeptRow) -> Bool

    enum Row {
        /// A kept line: the row, and the line's bytes without its line feed (for a cache written
        /// from this one).
        case kept(KeptRow, line: Range<Int>)
        case fresh(Fresh)
    }

    struct Cursor {
        var at: Int
        var nextFresh = 0
        /// A kept line read and not given yet (it comes after a fresh one).
        var pending: (KeptRow, Range<Int>)?
        var released: Int
    }

    func cursor() -> Cursor { Cursor(at: start, released: start) }

    /// The next row, nil after the last.
    func next(_ c: inout Cursor) -> Row? {
        let bytes = storage.buffer
        if c.pending == nil {
            while c.at < end {
                // Lines were checked by `check`: a line that does not parse now ends the walk.
                guard let (entry, next) = ListingCache.line(bytes, at: c.at) else {
                    c.at = end
                    break
                }
                let line = c.at..<(next - 1)  // without its line feed
                c.at = next
                if c.at - c.released >= MappedBytes.releaseStep {
                    storage.release(c.released..<c.at)
                    c.released = c.at
                }
                let row = KeptRow(path: bytes[entry.path], fields: bytes[entry.fieldBytes], owner: storage)
                if skipped.contains(row.path) { continue }
                c.pending = (row, line)
                break
            }
        }
        if c.nextFresh < fresh.count, c.pending.map({ freshFirst(fresh[c.nextFresh], $0.0) }) ?? true {
            c.nextFresh += 1
            return .fresh(fresh[c.nextFresh - 1])
        }
        guard let (row, line) = c.pending else { return nil }
        c.pending = nil
        return .kept(row, line: line)
    }

    /// Walks the kept lines once, before any row is given: each must parse, be settled and
    /// pass `valid` (its fields as the listing keeps them), and `look` notes what it needs of
    /// each one the walk gives into a `Noted` of its own part. The lines are walked in two parts,
    /// on two cores (a part starts at a line's first byte); returns how many lines there are and
    /// each part's notes in order, nil when one is damaged (the listing then reads every file,
    /// as without a cache).
    func check<Noted>(
        valid: @escaping (KeptRow) -> Bool, noted: Noted, look: @escaping (inout Noted, KeptRow) -> Void
    ) -> (count: Int, notes: [Noted])? {
        let bytes = storage.buffer
        // Cut at the line feed nearest the middle; a short cache is one part.
        var cut = end
        if end - start > 1 << 16, let feed = memchr(bytes.baseAddress! + (start + end) / 2, 10, end - (start + end) / 2) {
            cut = bytes.baseAddress!.distance(to: feed.assumingMemoryBound(to: UInt8.self)) + 1
        }
        let parts = [start..<cut, cut..<end]
        var results: [(count: Int, noted: Noted)?] = [nil, (0, noted)]
        if cut < end {
            nonisolated(unsafe) let (valid, look, noted) = (valid, look, noted)
            // Each part writes only its own slot.
            results.withUnsafeMutableBufferPointer { slots in
                nonisolated(unsafe) let slots = slots
                DispatchQueue.concurrentPerform(iterations: 2) { k in
                    slots[k] = self.checkPart(parts[k], valid: valid, noted: noted, look: look)
                }
            }
        } else {
            results[0] = checkPart(parts[0], valid: valid, noted: noted, look: look)
        }
        guard let first = results[0], let second = results[1] else { return nil }
        return (first.count + second.count, [first.noted, second.noted])
    }

    private func checkPart<Noted>(
        _ part: Range<Int>, valid: (KeptRow) -> Bool, noted: Noted, look: (inout Noted, KeptRow) -> Void
    ) -> (count: Int, noted: Noted)? {
        let bytes = storage.buffer
        var noted = noted
        var at = part.lowerBound
        var released = at
        var count = 0
        defer { storage.release(released..<at) }
        while at < part.upperBound {
            guard let (entry, next) = ListingCache.line(bytes, at: at), entry.settled else { return nil }
            at = next
            if at - released >= MappedBytes.releaseStep {
                storage.release(released..<at)
                released = at
            }
            let row = KeptRow(path: bytes[entry.path], fields: bytes[entry.fieldBytes], owner: storage)
            if skipped.contains(row.path) { continue }
            guard valid(row) else { return nil }
            look(&noted, row)
            count += 1
        }
        return (count, noted)
    }
}

/// A few paths, asked about by the bytes of a kept line's path (escaped as the cache keeps it):
/// most paths are ruled out by their length alone, without making an array of their bytes to hash.
struct PathSet: Sendable {
    private var paths: Set<[UInt8]> = []
    private var lengths: Set<Int> = []

    init<S: Sequence<String>>(_ paths: S) {
        for path in paths {
            let kept = ListingCache.escape(path)
            self.paths.insert(kept)
            lengths.insert(kept.count)
        }
    }

    var isEmpty: Bool { paths.isEmpty }

    func contains(_ path: KeptRow.Bytes) -> Bool {
        guard !paths.isEmpty, lengths.contains(path.count) else { return false }
        return paths.contains(Array(path))
    }
}
