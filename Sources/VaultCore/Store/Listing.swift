#if canImport(Glibc)
import Glibc
#endif
import CVaultScan

/// One file's line in `ListingCache`, read in place: its path and its fields as the cache keeps
/// them (escaped), so a listing can print a file that did not change without making its summary.
public struct KeptRow: @unchecked Sendable {
    public typealias Bytes = Slice<UnsafeBufferPointer<UInt8>>
    /// The path, relative to the vault, as bytes, escaped as the cache keeps it (`ListingCache.escape`:
    /// a backslash, tab or line feed in a file's name).
    public let path: Bytes
    /// The fields, tab-separated: `+text` for one that is present, `-` for one that is absent.
    let fields: Bytes
    /// What holds the bytes (the mapped cache file), kept alive with the row.
    let owner: MappedBytes

    /// The path as text (unescaped).
    package var pathText: String { ListingCache.unescape(path) }

    /// How many fields the line has.
    var fieldCount: Int {
        fields.isEmpty ? 0 : 1 + Int(vs_count_byte(fields.base.baseAddress! + fields.startIndex, fields.count, 9))
    }

    /// Field `k` as kept (escaped: `ListingCache.escape`), nil when it is absent or there is no such field.
    public func field(_ k: Int) -> Bytes? {
        let found = { (b: UnsafeBufferPointer<UInt8>) -> Range<Int>? in
            guard let base = b.baseAddress else { return nil }
            var start = 0
            for _ in 0..<k {
                guard let tab = memchr(base + start, 9, b.count - start) else { return nil }
                start = base.distance(to: tab.assumingMemoryBound(to: UInt8.self)) + 1
            }
            let end = memchr(base + start, 9, b.count - start).map { base.distance(to: $0.assumingMemoryBound(to: UInt8.self)) } ?? b.count
            guard start < end, base[start] == UInt8(ascii: "+") else { return nil }
            return (start + 1)..<end
        }(UnsafeBufferPointer(rebasing: fields))
        return found.map { fields[(fields.startIndex + $0.lowerBound)..<(fields.startIndex + $0.upperBound)] }
    }

    /// The last field as kept, nil when it is absent (found from the line's end: the fields before
    /// it may be long).
    func lastField() -> Bytes? {
        let start = (fields.lastIndex(of: 9) ?? fields.startIndex - 1) + 1
        guard start < fields.endIndex, fields[start] == UInt8(ascii: "+") else { return nil }
        return fields[(start + 1)...]
    }

    /// Every field as text (unescaped), in one pass; nil for one that is absent.
    var texts: [String?] {
        guard !fields.isEmpty else { return [] }
        return fields.split(separator: 9, omittingEmptySubsequences: false).map { f in
            f.first == UInt8(ascii: "+") ? ListingCache.unescape(f.dropFirst()) : nil
        }
    }

    /// Field `k` read as a number (nil: absent or not one).
    func number(_ k: Int) -> Double? {
        // `strtod` in place: a field always ends before a tab or line feed, which ends its number
        // (a listing asks this of every line it merges with a file read now).
        guard let f = field(k), let start = f.base.baseAddress.map({ $0 + f.startIndex }), f.count < 64 else { return nil }
        let first = start.pointee
        guard first == UInt8(ascii: "-") || (first >= 48 && first <= 57) else { return nil }
        let (value, used) = start.withMemoryRebound(to: CChar.self, capacity: f.count) { p -> (Double, Int) in
            var end: UnsafeMutablePointer<CChar>?
            let value = strtod(p, &end)
            return (value, end.map { p.distance(to: UnsafePointer($0)) } ?? 0)
        }
        guard used == f.count, value.isFinite else { return nil }
        return value
    }

    /// Whether field `k` is exactly `text`.
    public func field(_ k: Int, is text: StaticString) -> Bool {
        guard let f = field(k) else { return false }
        return text.withUTF8Buffer { f.elementsEqual($0) }
    }

    /// Appends a kept field's text (none: nothing) to `out` and returns true, when it holds no control character
    /// (U+0000–U+001F, U+007F, U+0080–U+009F, a tab or line feed among them): such text is
    /// left to the caller (false, `out` as it was), which shows it some other way.
    public static func appendPlain(_ field: Bytes?, to out: inout [UInt8]) -> Bool {
        do {
            guard let field else { return true }
            let b = UnsafeBufferPointer(rebasing: field)
            guard b.count > 0 else { return true }
            let start = out.count
            var run = 0  // the first byte not yet copied
            var i = 0
            // Plain bytes are copied in runs, found 32 at a time; only a backslash or a byte that may
            // be a control is looked at.
            while true {
                i = vs_next_unplain(b.baseAddress, i, b.count)
                guard i < b.count else { break }
                let byte = b[i]
                if byte == 0xC2 {
                    if i + 1 < b.count, b[i + 1] >= 0x80, b[i + 1] <= 0x9F { break }
                    i += 1
                    continue
                }
                // `\\` is a backslash; `\t` and `\n` are control characters.
                guard byte == 92, i + 1 < b.count, b[i + 1] == 92 else { break }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: b[run..<(i + 1)]))
                i += 2
                run = i
            }
            guard i >= b.count else {
                out.removeSubrange(start...)
                return false
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: b[run...]))
            return true
        }
    }
}

extension ListingCache {
    /// The line of a read entry (one `entry(of:stamp:)` found), in place.
    func row(of entry: Entry) -> KeptRow {
        KeptRow(path: bytes[entry.path], fields: bytes[entry.fieldBytes], owner: storage)
    }
}

/// Paths whose rows a listing changes (an unread count, a conflict copy's original), found
/// by their bytes; the rows' paths are made into text only when one may be among them.
struct RowMarks: Sendable {
    /// Messages not shown yet, by path (`UnreadMarks`), and conflict copies, copy → original.
    let unread: [String: [String]]
    let copies: [String: String]
    /// Messages whose author their commit did not bear out, by path (`UnverifiedMarks`).
    let unverified: [String: [String: String]]
    private let marked: PathSet

    init(unread: [String: [String]], copies: [String: String], unverified: [String: [String: String]] = [:]) {
        self.unread = unread
        self.copies = copies
        self.unverified = unverified
        marked = PathSet(Array(unread.keys) + Array(copies.keys) + Array(unverified.keys))
    }

    /// The path of `row` when the listing changes its row.
    func marks(_ row: KeptRow) -> String? {
        marked.contains(row.path) ? row.pathText : nil
    }

    func marks(_ path: String) -> Bool {
        !marked.isEmpty && (unread[path] != nil || copies[path] != nil || unverified[path] != nil)
    }
}

/// A file a listing read now, as `KeptLines` merges it: the summary it lists, and its keys.
protocol ListedNow: Sendable {
    associatedtype Summary: Sendable
    var listed: Summary { get }
}

extension RoomSummary: ListedNow {
    var listed: RoomSummary { self }
}

/// The rows of a listing in its order, walked once: each a kept line (`KeptRow`) or a summary
/// read now, from an array (a full listing, sorted) or from the cache's lines in place
/// (`KeptLines`: a listing the watcher answered for), with the path of each row the listing
/// marks (`RowMarks`).
struct ListingWalk<Fresh: ListedNow>: Sendable {
    enum Item: Sendable {
        case kept(KeptRow)
        case read(Fresh.Summary)
    }

    enum Source: Sendable {
        case items([Item])
        case kept(KeptLines<Fresh>)
    }

    let source: Source
    let marks: RowMarks
    /// The path of a summary read now.
    let path: @Sendable (Fresh.Summary) -> String

    struct Iterator {
        let walk: ListingWalk
        var position = 0
        var cursor: KeptLines<Fresh>.Cursor?

        init(_ walk: ListingWalk) {
            self.walk = walk
            if case .kept(let lines) = walk.source { cursor = lines.cursor() }
        }

        /// The next row, and its path when the listing marks it.
        mutating func next() -> (Item, marked: String?)? {
            let item: Item
            switch walk.source {
            case .items(let items):
                guard position < items.count else { return nil }
                item = items[position]
                position += 1
            case .kept(let lines):
                guard var c = cursor else { return nil }
                defer { cursor = c }
                switch lines.next(&c) {
                case nil: return nil
                case .kept(let row, _)?: item = .kept(row)
                case .fresh(let fresh)?: item = .read(fresh.listed)
                }
            }
            switch item {
            case .kept(let row): return (item, walk.marks.marks(row))
            case .read(let summary):
                let path = walk.path(summary)
                return (item, walk.marks.marks(path) ? path : nil)
            }
        }
    }
}

/// `vault rooms`'s list, most recent activity first: each room either kept (its `ListingCache`
/// line, made into a summary only when asked for) or read now. Walked once, in order
/// (`for row in listing`); a listing the watcher answered for walks the cache's lines in place
/// (`KeptLines`).
public struct RoomListing: Sendable, Sequence {
    let walk: ListingWalk<RoomSummary>
    /// How many rooms there are.
    public let count: Int
    /// Whether a room is shared (has `members:`): the listing then groups the rooms.
    public let hasSharedRooms: Bool
    let pendingSave: CacheSave?

    init(
        _ source: ListingWalk<RoomSummary>.Source, marks: RowMarks, count: Int, hasSharedRooms: Bool, pendingSave: CacheSave?
    ) {
        walk = ListingWalk(source: source, marks: marks) { $0.path }
        self.count = count
        self.hasSharedRooms = hasSharedRooms
        self.pendingSave = pendingSave
    }

    /// A room of the listing.
    public struct Row {
        let item: ListingWalk<RoomSummary>.Item
        let marked: String?
        let marks: RowMarks

        /// The room, with its unread count and the original it is a copy of.
        public func summary() -> RoomSummary {
            var summary: RoomSummary
            switch item {
            case .kept(let row):
                // Checked when it was found (its field count, key, title and preview).
                summary = RoomSummary(path: row.pathText, fields: row.texts)!
            case .read(let read): summary = read
            }
            guard let marked else { return summary }
            summary.unread = marks.unread[marked]?.count ?? 0
            summary.unverified = marks.unverified[marked]?.count ?? 0
            summary.conflictCopyOf = marks.copies[marked]
            return summary
        }

        /// The room's kept line, when it was not read now and the listing adds nothing to it (no
        /// unread messages, not a conflict copy). Its fields are numbered as `RoomListing.Field`.
        public var kept: KeptRow? {
            guard case .kept(let row) = item, marked == nil else { return nil }
            return row
        }
    }

    public struct Iterator: IteratorProtocol {
        var walk: ListingWalk<RoomSummary>.Iterator

        public mutating func next() -> Row? {
            walk.next().map { Row(item: $0.0, marked: $0.marked, marks: walk.walk.marks) }
        }
    }

    public func makeIterator() -> Iterator { Iterator(walk: .init(walk)) }

    /// Brings the listing cache up to date with the files this listing read (a listing the
    /// watcher answered for writes it only now, once its rows are out): without it the next
    /// listing reads them again.
    public func saveCache() { pendingSave?.run() }

    /// The fields of a room's kept line.
    public enum Field: Int {
        case sortKey, title, lastActivity, lastRole, lastStatus, preview, pendingPrompt, problem, lastAuthor, branchedAt, members
    }
}

/// `vault diary list`'s list, newest first: each entry either kept (its `ListingCache` line,
/// made into a summary only when asked for) or read now; walked as `RoomListing` is.
public struct DiaryListing: Sendable, Sequence {
    /// An entry read now, with its key.
    struct Fresh: ListedNow {
        var summary: DiarySummary
        var key: Double
        var listed: DiarySummary { summary }
    }

    let walk: ListingWalk<Fresh>
    public let count: Int
    /// Whether an entry is dated by its file's time (it has no date of its own): the history
    /// may date it instead (`Vault.datedByHistory`).
    public let hasEntryDatedByFileTime: Bool
    let pendingSave: CacheSave?

    init(
        _ source: ListingWalk<Fresh>.Source, copies: [String: String], count: Int, hasEntryDatedByFileTime: Bool,
        pendingSave: CacheSave?
    ) {
        walk = ListingWalk(source: source, marks: RowMarks(unread: [:], copies: copies)) { $0.path }
        self.count = count
        self.hasEntryDatedByFileTime = hasEntryDatedByFileTime
        self.pendingSave = pendingSave
    }

    /// An entry of the listing.
    public struct Row {
        let item: ListingWalk<Fresh>.Item
        let marked: String?
        let marks: RowMarks

        /// The entry, with the original it is a copy of.
        public func summary() -> DiarySummary {
            var summary: DiarySummary
            switch item {
            case .kept(let row):
                summary = DiarySummary.withKey(path: row.pathText, fields: row.texts)!.0
            case .read(let read): summary = read
            }
            if let marked { summary.conflictCopyOf = marks.copies[marked] }
            return summary
        }

        /// The entry's kept line, when it was not read now and is no conflict copy. Its fields are
        /// numbered as `DiaryListing.Field`.
        public var kept: KeptRow? {
            guard case .kept(let row) = item, marked == nil else { return nil }
            return row
        }
    }

    public struct Iterator: IteratorProtocol {
        var walk: ListingWalk<Fresh>.Iterator

        public mutating func next() -> Row? {
            walk.next().map { Row(item: $0.0, marked: $0.marked, marks: walk.walk.marks) }
        }
    }

    public func makeIterator() -> Iterator { Iterator(walk: .init(walk)) }

    /// As `RoomListing.saveCache()`.
    public func saveCache() { pendingSave?.run() }

    /// The fields of an entry's kept line.
    public enum Field: Int {
        case sortKey, id, date, created, title, preview, tags, problem, dateSource
    }
}

/// A listing cache to write once the listing's rows are out (once, however often it is asked).
final class CacheSave: @unchecked Sendable {
    private var work: (() -> Void)?

    init(_ work: @escaping () -> Void) { self.work = work }

    func run() {
        work?()
        work = nil
    }
}
