import CVaultScan
import Foundation
import VaultCore

/// One matching line, with what the vault knows of it.
public struct SearchHit: Sendable {
    /// 1-based line and byte column (of the first match), as editors and vim's quickfix count.
    public var line: Int
    public var column: Int
    /// The line as it is in the file (no line ending).
    public var text: String
    /// Byte ranges of every match in `text`.
    public var matches: [Range<Int>]
    /// The hit is in the item's front-matter.
    public var inFrontMatter: Bool
    /// The message the line belongs to (rooms; nil in front-matter and diary entries).
    public var message: SearchMessage?
    /// The `-C` lines around it.
    public var before: [String]
    public var after: [String]
}


/// The message a hit is in, from its header line: who wrote it, when, and its id.
public struct SearchMessage: Sendable, Hashable {
    public var role: Role
    public var timestamp: Timestamp
    public var id: String
    /// The header's `author=`, when it names someone (a shared room).
    public var author: Author?
    /// The header's `kind=` (`tool-result`, `thoughts`, …; `Message.kind`): such a message is
    /// matched by no role filter.
    public var kind: String?

    public init(role: Role, timestamp: Timestamp, id: String, author: Author? = nil, kind: String? = nil) {
        self.role = role
        self.timestamp = timestamp
        self.id = id
        self.author = author
        self.kind = kind
    }
}

/// The hits of an item (or of a part of one), as the scan keeps them: the lines' bytes one after
/// another and a small record for each hit, with no `String` or array made per hit. A hit is
/// made a `SearchHit` only when it is asked for (`self[k]`, iterating); a printer reads the
/// parts it prints where they are (`line(_:)`, `withText(_:_:)`, `matches(_:)`, …), so a search
/// with hundreds of thousands of hits allocates per file, not per hit.
public struct SearchHits: RandomAccessCollection, Sendable {
    /// The hits' lines, and their context lines, one after another.
    var bytes: [UInt8] = []
    var records: [Record] = []
    /// The ranges of the matches (in their line's bytes), then of context lines (in `bytes`),
    /// as the records point to them.
    var spans: [Range<Int>] = []
    /// The messages the hits are in, each once (records point to them).
    var messages: [SearchMessage] = []

    struct Record: Sendable {
        var line: Int
        var column: Int
        /// The line, in `bytes`.
        var text: Range<Int>
        /// Its matches, in `spans`.
        var matches: Range<Int>
        /// Its message in `messages`; -1: none.
        var message: Int
        var inFrontMatter: Bool
        /// Its context lines before and after, in `spans` (each a range of `bytes`).
        var before: Range<Int>
        var after: Range<Int>
    }

    public init() {}

    public var startIndex: Int { 0 }
    public var endIndex: Int { records.count }

    /// Hit `k` as a value of its own (its text and arrays made now).
    public subscript(k: Int) -> SearchHit {
        let r = records[k]
        return SearchHit(
            line: r.line, column: r.column, text: text(k), matches: Array(spans[r.matches]),
            inFrontMatter: r.inFrontMatter, message: r.message >= 0 ? messages[r.message] : nil,
            before: lines(r.before), after: lines(r.after))
    }

    /// Hit `k`'s 1-based line number.
    public func line(_ k: Int) -> Int { records[k].line }
    /// Hit `k`'s 1-based byte column (of its first match).
    public func column(_ k: Int) -> Int { records[k].column }
    /// Whether hit `k` is in the item's front-matter.
    public func inFrontMatter(_ k: Int) -> Bool { records[k].inFrontMatter }
    /// The message hit `k` is in.
    public func message(_ k: Int) -> SearchMessage? {
        let m = records[k].message
        return m >= 0 ? messages[m] : nil
    }
    /// Which of these hits' messages hit `k` is in (hits in one message have the same number);
    /// nil when none.
    public func messageNumber(_ k: Int) -> Int? {
        let m = records[k].message
        return m >= 0 ? m : nil
    }
    /// The byte ranges of hit `k`'s matches in its line.
    public func matches(_ k: Int) -> ArraySlice<Range<Int>> { spans[records[k].matches] }
    /// How many context lines hit `k` has before and after it (`-C`).
    public func contextCounts(_ k: Int) -> (before: Int, after: Int) {
        (records[k].before.count, records[k].after.count)
    }
    /// Hit `k`'s line as text.
    public func text(_ k: Int) -> String {
        bytes.withUnsafeBufferPointer {
            String(decoding: UnsafeBufferPointer(rebasing: $0[records[k].text]), as: UTF8.self)
        }
    }
    /// Calls `body` with hit `k`'s line's bytes (valid UTF-8, no line ending), where they are.
    public func withText<R>(_ k: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        let range = records[k].text
        return try bytes.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[range])) }
    }

    func lines(_ which: Range<Int>) -> [String] {
        guard !which.isEmpty else { return [] }
        return bytes.withUnsafeBufferPointer { b in
            spans[which].map { String(decoding: UnsafeBufferPointer(rebasing: b[$0]), as: UTF8.self) }
        }
    }

    /// These hits with only those `keep` says to keep (the bytes are shared, not copied).
    func filter(keeping keep: (Int) -> Bool) -> SearchHits {
        var kept = self
        kept.records = records.indices.filter(keep).map { records[$0] }
        return kept
    }

    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        records.removeAll(keepingCapacity: true)
        spans.removeAll(keepingCapacity: true)
        messages.removeAll(keepingCapacity: true)
    }
}

/// A room or diary entry with hits.
public struct SearchItem: Sendable {
    public var path: String
    public var kind: VaultPath.Kind
    public var title: String
    /// The entry's day (diary) or the room's `created` day, when known.
    public var day: LocalDate?
    public var hits: SearchHits
    /// These hits go on from the item given just before, the same file: `onItem` gets a file
    /// with very many hits in parts, as it is read.
    public var continued = false
}

public struct SearchResults: Sendable {
    /// Items with hits, by path (none when `VaultSearch.onItem` or `printer` took them as they
    /// were found).
    public var items: [SearchItem]
    /// How many items had hits, and how many hits they had (also those given to `onItem`).
    public var itemCount: Int
    public var hitCount: Int
    /// Files that could not be searched, with why (not valid UTF-8, unreadable).
    public var skipped: [(path: String, reason: String)]
    /// How many files were looked at (after the index narrowed them, if it did).
    public var filesSearched: Int
    /// Whether the index narrowed the files.
    public var usedIndex: Bool
}

/// Prints a search's items as they are found: each item is rendered to bytes on the thread that
/// scanned it (every scanning thread has its own renderer, from `makeRenderer`, so its caches
/// need no lock), and the bytes go to `write` in path order, one call at a time. Rendering runs
/// on every core; only the writing is in order.
public struct SearchPrinter: Sendable {
    /// Appends what is shown of an item to the bytes.
    public typealias Render = (SearchItem, inout [UInt8]) -> Void
    public var makeRenderer: @Sendable () -> Render
    /// Gets an item's bytes, and whether they go on with the item before (`SearchItem.continued`).
    public var write: @Sendable (_ bytes: [UInt8], _ continued: Bool) -> Void

    public init(
        makeRenderer: @escaping @Sendable () -> Render, write: @escaping @Sendable ([UInt8], Bool) -> Void
    ) {
        self.makeRenderer = makeRenderer
        self.write = write
    }
}

/// `vault search`: finds lines in rooms and diary entries, with the room, the speaker and the
/// day of each hit. Reads the vault only; writes nothing in it.
public struct VaultSearch: Sendable {
    public let vault: Vault
    /// Lines of context around each hit (`-C`).
    public var context = 0
    /// When set, each item is given to it as soon as the files before it are scanned, in path
    /// order, one call at a time, and not kept in `SearchResults.items`: what is printed goes out
    /// while the scan goes on, and memory holds only what is in flight.
    public var onItem: (@Sendable (SearchItem) -> Void)?
    /// When set (instead of `onItem`), each item is rendered on the thread that scanned it, and
    /// the bytes written in path order: see `SearchPrinter`.
    public var printer: SearchPrinter?
    /// With `onItem` or `printer`, a file with more hits than this is given in parts
    /// (`SearchItem.continued`).
    public var spillAfter = 10_000

    /// Where the listing of every room and entry is kept between searches (a file outside the
    /// vault: `SearchIndex.listingPath(forVaultAt:)`), taken again while no folder it read has
    /// changed, so a search of an unchanged vault reads no folder. Nil: the folders are read
    /// each time.
    public var listingCache: String?
    /// How recently before a listing a folder's change makes it untrusted (`FileList`).
    var racyMargin: Int64 = 2_000_000_000

    public init(vault: Vault) {
        self.vault = vault
    }

    /// The files a query looks at: every room (with its volumes) and diary entry, or those of
    /// its scope. A room's volumes (`volumes/<room>/0001.md`, …: its older messages) are
    /// searched as part of it: with the rooms, and with the room when the scope is one room.
    public func files(for query: SearchQuery) -> [String] { fileList(for: query).paths }

    func fileList(for query: SearchQuery) -> FileList {
        switch query.scope {
        case .everything: return FileList.everything(root: vault.root, cache: listingCache, racyMargin: racyMargin)
        case .rooms: return FileList(root: vault.root, folders: FileList.roomFolders)
        case .diary: return FileList(root: vault.root, folders: [("diary", true)])
        case .item(let path):
            let volumes = VaultPath.kind(of: path) == .room ? RoomVolumes.paths(ofRoom: path, root: vault.root) : []
            return FileList(root: vault.root, paths: [path] + volumes)
        }
    }

    /// Runs `query` over `files` (default: those of its scope), scanning them all.
    public func run(_ query: SearchQuery, files: [String]? = nil) throws(VaultError) -> SearchResults {
        if files == nil && query.scope == .everything {
            if let listingCache, let saved = FileList.saved(root: vault.root, cache: listingCache, racyMargin: racyMargin) {
                Trace.mark("search: \(saved.count) files listed (saved listing)")
                return try run(query, saved, nil, usedIndex: false)
            }
            return try runOverlappingTheListing(query)
        }
        let list = files.map { FileList(root: vault.root, paths: $0) } ?? fileList(for: query)
        Trace.mark("search: \(list.count) files listed")
        return try run(query, list, nil, usedIndex: false)
    }

    /// Every room (its volumes after the rooms), then every diary entry, when no saved listing
    /// holds. The rooms and volumes are read again; the diary's saved files are taken when none
    /// of its folders changed (a chat turn changes `rooms/` only), and all is scanned at once
    /// while the joined listing is saved
    /// (`listingCache`). Otherwise the rooms are scanned while another thread lists the diary's
    /// folders (as long as the rooms' listing, about a tenth of the scan), and the joined
    /// listing is saved while the diary is scanned.
    func runOverlappingTheListing(_ query: SearchQuery) throws(VaultError) -> SearchResults {
        let diary = FileList.DiaryListing(root: vault.root, cache: listingCache, racyMargin: racyMargin)
        let rooms = FileList(root: vault.root, folders: FileList.roomFolders)
        Trace.mark("search: \(rooms.count) rooms listed")
        if diary.fromSavedListing, let listingCache {
            guard rooms.append(diary.list) else { fatalError("out of memory listing files") }
            Trace.mark("search: \(rooms.count) files listed (the diary's saved)")
            let saved = DispatchGroup()
            DispatchQueue.global().async(group: saved) { rooms.save(to: listingCache) }
            defer { saved.wait() }
            return try run(query, rooms, nil, usedIndex: false)
        }
        let first = try run(query, rooms, nil, usedIndex: false)
        let entries = diary.list
        Trace.mark("search: \(entries.count) diary entries listed")
        let saved = DispatchGroup()
        if let listingCache {
            DispatchQueue.global().async(group: saved) {
                // Saved only when the diary's folders could be duplicated for it.
                if rooms.append(entries, keepingIt: true) { rooms.save(to: listingCache) }
            }
        }
        let second = try run(query, entries, nil, usedIndex: false)
        saved.wait()
        return SearchResults(
            items: first.items + second.items, itemCount: first.itemCount + second.itemCount,
            hitCount: first.hitCount + second.hitCount, skipped: first.skipped + second.skipped,
            filesSearched: first.filesSearched + second.filesSearched, usedIndex: false)
    }

    /// Scans files `which` of `list` (nil: all), building each item (and its rendering) on the
    /// thread that scanned it.
    func run(
        _ query: SearchQuery, _ list: FileList, _ which: [Int]?, usedIndex: Bool
    ) throws(VaultError) -> SearchResults {
        let matcher = try LineMatcher(query)
        // An item in a box: the scan's results are moved around generically, and a reference
        // is one retain where an item's fields are several.
        final class Found {
            let item: SearchItem
            init(_ item: SearchItem) { self.item = item }
        }
        /// An item's bytes as the printer rendered them.
        final class Rendered {
            let bytes: [UInt8]
            let continued: Bool
            let hits: Int
            init(_ bytes: [UInt8], _ continued: Bool, _ hits: Int) {
                (self.bytes, self.continued, self.hits) = (bytes, continued, hits)
            }
        }
        enum Outcome {
            case nothing
            case skipped(String, String)
            case item(Found)
            case rendered(Rendered)
        }
        var scanner = Scanner(files: list, matcher: matcher, context: context)
        scanner.firstHitOnly =
            query.firstHitOnly && query.role == nil && query.author == nil && query.since == nil && query.until == nil
        if onItem != nil || printer != nil { scanner.spillAfter = spillAfter }
        scanner.shortReadIsEnd = vs_local_file_system(vault.root) != 0
        // Filled in path order, one delivery at a time (`Scanner.scan`).
        final class Collected: @unchecked Sendable {
            var items: [SearchItem] = []
            var itemCount = 0
            var hitCount = 0
            var skipped: [(String, String)] = []
        }
        let collected = Collected()
        /// A thread's renderer, boxed: a function value kept in the scan's generic per-thread
        /// state would be wrapped in a new reabstraction thunk each time it is passed `inout`.
        final class Renderer {
            let render: SearchPrinter.Render
            /// Where items are rendered, then copied out at their size (no growing per item).
            var scratch: [UInt8] = []
            init(_ render: @escaping SearchPrinter.Render) { self.render = render }
        }
        let onItem = self.onItem
        let printer = self.printer
        scanner.scan(
            which, makeLocal: { printer.map { Renderer($0.makeRenderer()) } },
            finish: { (renderer: inout Renderer?, k: Int, scan: inout FileScan) -> Outcome in
                if let problem = scan.problem { return .skipped(list.path(k), problem) }
                guard !scan.hits.isEmpty else { return .nothing }
                guard let renderer else {
                    guard let found = item(scan.path ?? list.path(k), scan, query) else { return .nothing }
                    return .item(Found(found))
                }
                var rendered: Rendered?
                if let found = item(scan.path ?? list.path(k), scan, query) {
                    renderer.scratch.removeAll(keepingCapacity: true)
                    renderer.render(found, &renderer.scratch)
                    rendered = Rendered(Array(renderer.scratch), found.continued, found.hits.count)
                }
                // Printed, and the item gone: the hits' arrays are kept for the next file.
                scan.hits.removeAll()
                return rendered.map { .rendered($0) } ?? .nothing
            },
            deliver: { outcome in
                switch outcome {
                case .nothing: break
                case .skipped(let path, let reason): collected.skipped.append((path, reason))
                case .item(let found):
                    if !found.item.continued { collected.itemCount += 1 }
                    collected.hitCount += found.item.hits.count
                    if let onItem { onItem(found.item) } else { collected.items.append(found.item) }
                case .rendered(let rendered):
                    if !rendered.continued { collected.itemCount += 1 }
                    collected.hitCount += rendered.hits
                    printer?.write(rendered.bytes, rendered.continued)
                }
            })
        Trace.mark("search: scanned")
        return SearchResults(
            items: collected.items, itemCount: collected.itemCount, hitCount: collected.hitCount,
            skipped: collected.skipped, filesSearched: which?.count ?? list.count, usedIndex: usedIndex)
    }

    /// Runs `query` with `index` narrowing the files to those that can hold a hit: the index is
    /// brought up to date with every room and entry first (only files that changed are read),
    /// and asked for the files whose text holds the text every hit must hold (`SearchQuery.needle`,
    /// three characters or more, or one or two CJK ones; otherwise every file is scanned). The files it recorded as not
    /// UTF-8 are scanned too, so the hits and the files reported are those of a scan.
    public func run(_ query: SearchQuery, index: SearchIndex, refreshingAnyway: Bool = true) throws(VaultError)
        -> (SearchResults, SearchIndex.Refresh)
    {
        // A pattern with no index term every hit must hold (one or two Latin letters, an
        // expression with no such text) cannot be narrowed: scan, leaving the index as it is,
        // unless it was asked to be brought up to date.
        if !refreshingAnyway && !Self.indexCanNarrow(query) {
            return (try run(query), SearchIndex.Refresh(read: 0, indexed: 0, removed: 0, invalidUTF8: []))
        }
        // The watcher first: what it vouches for is what had happened when it answered. Taken
        // on another core already when the front end started them early (`SearchIndex.preopen`).
        let first: SearchIndex.Early
        if let early = index.early, index.vaultRoot == vault.root {
            first = early
        } else {
            first = index.takeFirstSteps(root: vault.root)
        }
        index.early = nil
        let (vouched, everything) = (first.vouched, first.everything)
        Trace.mark("search: \(everything.count) files listed\(everything.fromCache ? " (saved listing)" : "")")
        let listed = ListedFiles(everything)
        let (stamps, side) = index.stamps(of: everything, listed, vouched)
        let refresh = try index.refresh(listed, stamps: stamps, vouched: side)
        index.recordWatch(vouched)
        Trace.mark("search: index refreshed (\(refresh.read) read)")
        let needle = SearchText.key(query.needle, folding: true)
        // Positions in `everything` of the candidates and of the files that are not UTF-8.
        // A literal search that keeps case (smart case with a capital) also needs its capitals.
        let asWritten = query.isRegex || query.ignoresCase ? [] : [SearchText.key(query.needle, folding: false)]
        let narrowed = try index.candidatePositions(containingAll: [needle], asWritten: asWritten, of: listed)
        Trace.mark("search: \(narrowed?.count ?? -1) candidates")
        guard query.scope != .everything else {
            return (try run(query, everything, narrowed, usedIndex: narrowed != nil), refresh)
        }
        let scope = fileList(for: query)
        guard let narrowed else { return (try run(query, scope, nil, usedIndex: false), refresh) }
        let wanted = Set(narrowed.map { listed.path($0) })
        let which = (0..<scope.count).filter { wanted.contains(scope.path($0)) }
        return (try run(query, scope, which, usedIndex: true), refresh)
    }

    /// Whether the index can narrow the files `query` reads: its needle has index terms (three
    /// characters, or one or two CJK ones).
    static func indexCanNarrow(_ query: SearchQuery) -> Bool {
        FileVersion.terms(of: SearchText.key(query.needle, folding: true), ofQuery: true).count > 0
    }

    /// The item for a file with hits, its hits filtered by role, day and tag; nil when none is left.
    func item(_ path: String, _ scan: FileScan, _ query: SearchQuery) -> SearchItem? {
        let kind = FileList.kind(of: path)
        guard let meta = scan.metadata else { return nil }
        if let tag = query.tag {
            // A volume's front-matter has no tags: its room's are read (only for a volume with hits).
            let tags = path.utf8.starts(with: "volumes/".utf8) ? roomTags(ofVolume: path) : meta.tags
            if !Tags.match(tags, tag) { return nil }
        }
        let zone = vault.config.timeZone
        var hits = scan.hits
        if query.role != nil || query.author != nil || query.since != nil || query.until != nil {
            let author = query.author.map(SearchQuery.authorKey)
            let found = scan.hits
            hits = found.filter(keeping: { k in
                let message = found.message(k)
                // A message with a kind (a tool's output, thoughts) is neither the person's nor the reply.
                if let role = query.role, message?.role != role || message?.kind != nil { return false }
                if let author, message?.author.map({ SearchQuery.authorKey($0.name) }) != author { return false }
                guard query.since != nil || query.until != nil else { return true }
                guard
                    let day = message.map({ Timestamp(date: $0.timestamp.date, timeZone: zone).localDate })
                        ?? meta.day
                else { return false }
                if let since = query.since, day < since { return false }
                if let until = query.until, day > until { return false }
                return true
            })
        }
        guard !hits.isEmpty else { return nil }
        return SearchItem(
            path: path, kind: kind, title: meta.title, day: meta.day, hits: hits, continued: scan.continued)
    }
}

extension VaultSearch {
    /// The tags of the room whose volume is at `path` (none when it has no room, or it cannot be
    /// read).
    func roomTags(ofVolume path: String) -> [String] {
        guard let room = VaultPath.room(ofVolume: path),
            let bytes = try? FileIO.read(vault.root + "/" + room),
            let file = try? RoomFile.readingWhatCan(bytes, path: room)
        else { return [] }
        return file.frontMatter?.strings("tags") ?? []
    }
}

/// An item's title, tags and day, read from its front-matter (only for files with hits).
struct ItemMetadata: Sendable {
    var title: String
    var tags: [String] = []
    var day: LocalDate?

    init(path: String, kind: VaultPath.Kind, frontMatter: [UInt8]?) {
        if let frontMatter {
            self = frontMatter.withUnsafeBufferPointer { ItemMetadata(path: path, kind: kind, frontMatter: $0) }
        } else {
            self.init(path: path, kind: kind, frontMatter: UnsafeBufferPointer?.none)
        }
    }

    /// `frontMatter`: the file's first bytes up to the end of its front-matter, where they are.
    init(path: String, kind: VaultPath.Kind, frontMatter: UnsafeBufferPointer<UInt8>?) {
        // `VaultPath.stem(of:)`, on the path's bytes where they are (it runs for every file with
        // hits); a diary entry's day is in its name (`2026-11-21-첫눈.md`).
        var path = path
        (title, day) = path.withUTF8 { p -> (String, LocalDate?) in
            var start = p.count
            while start > 0 && p[start - 1] != UInt8(ascii: "/") { start -= 1 }
            var end = p.count
            if end - start >= 3 && p[end - 3] == UInt8(ascii: ".") && p[end - 2] == UInt8(ascii: "m")
                && p[end - 1] == UInt8(ascii: "d")
            {
                end -= 3
            }
            let name = UnsafeBufferPointer(rebasing: p[start..<end])
            let day =
                kind == .diaryEntry && p.count - start >= 10
                ? LocalDate(isoBytes: UnsafeBufferPointer(rebasing: p[start..<(start + 10)])) : nil
            return (String(decoding: name, as: UTF8.self), day)
        }
        guard let frontMatter else { return }
        if readPlainly(frontMatter) { return }
        // Anything else (quotes with escapes, block scalars, anchors): YAML reads it.
        let fm: FrontMatter?
        if kind == .diaryEntry {
            fm = (try? DiaryFile(parsing: Array(frontMatter), path: path))?.frontMatter
        } else {
            fm = (try? RoomFile(parsing: Array(frontMatter), path: path))?.frontMatter
        }
        guard let fm else { return }
        if let t = fm.string("title"), !t.isEmpty { title = t }
        tags = fm.strings("tags")
        if day == nil, let created = fm.string("created") {
            day = LocalDate(iso: String(created.prefix(10)))
        }
    }

    /// Whether `byte` makes a YAML value more than plain text (a quote, a comment, a block
    /// scalar, an anchor, an alias, a flow collection, a tag, a reserved indicator).
    private static func isSpecial(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x22, 0x27, 0x23, 0x7C, 0x3E, 0x26, 0x2A, 0x7B, 0x21, 0x25, 0x40, 0x60: return true
        default: return false
        }
    }

    /// Reads `title`, `tags` and `created` when every line that holds them is plain (`key: text`,
    /// `tags: [a, b]` or `- a` items, no quotes, comments or block scalars), as vault writes
    /// them; false when YAML must read them. Works on the bytes, line by line with no copy: it
    /// runs for every file with hits.
    private mutating func readPlainly(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        typealias Span = Range<Int>
        func trimmed(_ r: Span) -> Span {
            var (s, e) = (r.lowerBound, r.upperBound)
            while s < e && (b[s] == 0x20 || b[s] == 0x09) { s += 1 }
            while e > s && (b[e - 1] == 0x20 || b[e - 1] == 0x09) { e -= 1 }
            return s..<e
        }
        func text(_ r: Span) -> String { String(decoding: UnsafeBufferPointer(rebasing: b[r]), as: UTF8.self) }
        func hasPair(_ r: Span, _ x: UInt8, _ y: UInt8) -> Bool {
            var i = r.lowerBound
            while i + 1 < r.upperBound {
                if b[i] == x && b[i + 1] == y { return true }
                i += 1
            }
            return false
        }
        func equals(_ r: Span, _ word: StaticString) -> Bool {
            guard r.count == word.utf8CodeUnitCount else { return false }
            let w = word.utf8Start
            for k in 0..<r.count where b[r.lowerBound + k] != w[k] { return false }
            return true
        }
        func firstIndex(of byte: UInt8, in r: Span) -> Int? {
            guard !r.isEmpty, let base = b.baseAddress,
                let at = memchr(base + r.lowerBound, Int32(byte), r.count)
            else { return nil }
            return r.lowerBound + (UnsafeRawPointer(at) - UnsafeRawPointer(base + r.lowerBound))
        }
        var found = (title: String?.none, tags: [String]?.none, created: Span?.none)
        var inTags = false
        // Every line ended by a line feed but the first (the opening `---`); what follows the
        // last line feed is not a line of the front-matter.
        guard let firstFeed = firstIndex(of: 0x0A, in: 0..<b.count) else { return false }
        var lineStart = firstFeed + 1
        while let feed = firstIndex(of: 0x0A, in: lineStart..<b.count) {
            var line = lineStart..<feed
            lineStart = feed + 1
            if !line.isEmpty && b[line.upperBound - 1] == 0x0D { line = line.lowerBound..<(line.upperBound - 1) }
            if inTags {
                let item = trimmed(line)
                if item.count >= 2, b[item.lowerBound] == UInt8(ascii: "-"), b[item.lowerBound + 1] == 0x20 {
                    let value = trimmed((item.lowerBound + 2)..<item.upperBound)
                    if value.contains(where: { Self.isSpecial(b[$0]) }) { return false }
                    found.tags = found.tags ?? []
                    found.tags?.append(text(value))
                    continue
                }
            }
            inTags = false
            guard let first = line.first, b[first] != 0x20, b[first] != 0x09,
                let colon = firstIndex(of: UInt8(ascii: ":"), in: line)
            else { continue }
            let key = line.lowerBound..<colon
            let isTitle = equals(key, "title")
            let isCreated = !isTitle && equals(key, "created")
            guard isTitle || isCreated || equals(key, "tags") else { continue }
            let value = trimmed((colon + 1)..<line.upperBound)
            if let v = value.first, Self.isSpecial(b[v]) { return false }
            if hasPair(value, 0x20, UInt8(ascii: "#")) || hasPair(value, UInt8(ascii: ":"), 0x20) { return false }
            if isTitle {
                found.title = text(value)
            } else if isCreated {
                found.created = value
            } else if value.isEmpty {
                inTags = true
            } else if b[value.lowerBound] == UInt8(ascii: "["), b[value.upperBound - 1] == UInt8(ascii: "]") {
                let inner = (value.lowerBound + 1)..<(value.upperBound - 1)
                if inner.contains(where: { Self.isSpecial(b[$0]) || b[$0] == UInt8(ascii: "[") }) { return false }
                var tags: [String] = []
                var start = inner.lowerBound
                while start <= inner.upperBound {
                    let comma = firstIndex(of: UInt8(ascii: ","), in: start..<inner.upperBound) ?? inner.upperBound
                    let tag = trimmed(start..<comma)
                    if !tag.isEmpty { tags.append(text(tag)) }
                    start = comma + 1
                }
                found.tags = tags
            } else {
                return false
            }
        }
        if let t = found.title, !t.isEmpty { title = t }
        tags = found.tags ?? []
        if day == nil, let created = found.created, created.count >= 10 {
            day = LocalDate(isoBytes: UnsafeBufferPointer(rebasing: b[created.lowerBound..<(created.lowerBound + 10)]))
        }
        return true
    }
}
