#if canImport(Glibc)
import Glibc
#endif
import CVaultScan

/// One file's line in `ListingCache`, read in place: its path and its fields as the cache keeps
/// them (escaped), so a listing can print a file that did not change without making its summary.
public struct KeptRow: @unchecked Sendable {
    public typealias Bytes = Slice<UnsafeBufferPointer<UInt8>>
    /// The path, relative to the vault, as bytes.
    public let path: Bytes
    /// The fields, tab-separated: `+text` for one that is present, `-` for one that is absent.
    let fields: Bytes
    /// What holds the bytes (the mapped cache file), kept alive with the row.
    let owner: MappedBytes

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
    func number(_ k: Int) -> Double? { field(k).flatMap { Double(String(decoding: $0, as: UTF8.self)) } }

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

/// `vault rooms`'s list, most recent activity first: each room either kept (its `ListingCache`
/// line, made into a summary only when asked for) or read now.
public struct RoomListing: Sendable {
    enum Item: Sendable {
        case kept(KeptRow)
        case read(RoomSummary)
    }

    let items: [Item]
    /// Messages not shown yet, by path (`UnreadMarks`), and conflict copies, copy → original.
    let unread: [String: [String]]
    let copies: [String: String]
    /// Positions whose summary the listing changes (an unread count, a copy's original): never printed from their kept line.
    private let marked: Set<Int>

    init(items: [Item], unread: [String: [String]], copies: [String: String]) {
        self.items = items
        self.unread = unread
        self.copies = copies
        var marked = Set<Int>()
        // Marks and copies are few: paths are made into strings only when there are any.
        if !unread.isEmpty || !copies.isEmpty {
            for (i, item) in items.enumerated() {
                let path: String
                switch item {
                case .kept(let row): path = String(decoding: row.path, as: UTF8.self)
                case .read(let summary): path = summary.path
                }
                if unread[path] != nil || copies[path] != nil { marked.insert(i) }
            }
        }
        self.marked = marked
    }

    public var count: Int { items.count }

    /// The room at `position`, with its unread count and the original it is a copy of.
    public func summary(at position: Int) -> RoomSummary {
        var summary: RoomSummary
        switch items[position] {
        case .kept(let row):
            let path = String(decoding: row.path, as: UTF8.self)
            // Checked when it was found (its field count, key, title and preview).
            summary = RoomSummary(path: path, fields: row.texts)!
        case .read(let read): summary = read
        }
        guard marked.contains(position) else { return summary }
        summary.unread = unread[summary.path]?.count ?? 0
        summary.conflictCopyOf = copies[summary.path]
        return summary
    }

    /// The kept line of the room at `position`, when it was not read now and the listing adds
    /// nothing to it (no unread messages, not a conflict copy). Its fields are numbered as
    /// `RoomListing.Field`.
    public func kept(at position: Int) -> KeptRow? {
        guard case .kept(let row) = items[position], !marked.contains(position) else { return nil }
        return row
    }

    /// Whether a room is shared (has `members:`): the listing then groups the rooms.
    public var hasSharedRooms: Bool {
        items.contains { item in
            switch item {
            case .kept(let row): row.lastField() != nil  // `members`, the last field
            case .read(let summary): !summary.members.isEmpty
            }
        }
    }

    /// The fields of a room's kept line.
    public enum Field: Int {
        case sortKey, title, lastActivity, lastRole, lastStatus, preview, pendingPrompt, problem, lastAuthor, members
    }
}

/// `vault diary list`'s list, newest first: each entry either kept (its `ListingCache` line,
/// made into a summary only when asked for) or read now.
public struct DiaryListing: Sendable {
    enum Item: Sendable {
        case kept(KeptRow)
        case read(DiarySummary)
    }

    let items: [Item]
    /// Conflict copies, copy → original.
    let copies: [String: String]

    public var count: Int { items.count }

    /// The entry at `position`, with the original it is a copy of.
    public func summary(at position: Int) -> DiarySummary {
        var summary: DiarySummary
        switch items[position] {
        case .kept(let row):
            let path = String(decoding: row.path, as: UTF8.self)
            summary = DiarySummary.withKey(path: path, fields: row.texts)!.0
        case .read(let read): summary = read
        }
        if !copies.isEmpty { summary.conflictCopyOf = copies[summary.path] }
        return summary
    }

    /// The kept line of the entry at `position`, when it was not read now and is no conflict
    /// copy. Its fields are numbered as `DiaryListing.Field`.
    public func kept(at position: Int) -> KeptRow? {
        guard case .kept(let row) = items[position] else { return nil }
        if !copies.isEmpty, copies[String(decoding: row.path, as: UTF8.self)] != nil { return nil }
        return row
    }

    /// Whether an entry is dated by its file's time (it has no date of its own): the history
    /// may date it instead (`diarySummariesDatedByHistory`).
    public let hasEntryDatedByFileTime: Bool

    /// The fields of an entry's kept line.
    public enum Field: Int {
        case sortKey, id, date, created, title, preview, tags, problem, dateSource
    }
}
