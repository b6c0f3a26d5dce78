import Foundation

/// One line of `vault rooms`.
public struct RoomSummary: Sendable, Codable, Hashable {
    public var path: String
    public var slug: String
    public var title: String
    /// The last message's time, else `created`; `nil` when neither is known.
    public var lastActivity: String?
    public var lastRole: Role?
    /// Who wrote the last message, when its header names someone (`author=`, a shared room).
    public var lastAuthor: String?
    /// The people the room is shared with (`members:`; empty: one person's own room).
    public var members: [String] = []
    /// What the room is by its members.
    public var kind: RoomKind { RoomKind(members: members) }
    /// The last message's `status=` (`interrupted`: a reply that stopped before it was complete).
    public var lastStatus: String?
    /// The last message's first non-empty line (or the pending prompt's), whole (up to
    /// `Preview.longest` characters): a terminal's view cuts it to its width, a pipe gets it all.
    public var preview: String
    /// True when text waits below the prompt marker.
    public var hasPendingPrompt: Bool
    /// Set when the file could not be read; `vault check` says more.
    public var problem: String?
    /// Messages that came in by sync and were not shown here yet (`UnreadMarks`).
    public var unread = 0
    /// Messages that came in by sync whose `author=` the commit bringing them did not bear out
    /// (`UnverifiedMarks`): marked until the room is gone.
    public var unverified = 0
    /// The room this file is a conflict copy of (Syncthing's, Dropbox's or vault's), when that
    /// room exists: `vault resolve` merges the copy into it.
    public var conflictCopyOf: String?
    /// A branch room's (an imported conversation's other branch, `fork_of:` in its front-matter)
    /// first message's first line: where it branched (the edited question, the other answer), so
    /// two branches of one conversation are told apart. Nil for any other room.
    public var branchedAt: String?

    /// True when the last message is a reply that stopped before it was complete.
    public var lastIsInterrupted: Bool { lastStatus == "interrupted" }

    var sortKey: Double = 0

    enum CodingKeys: String, CodingKey {
        case path, slug, title, lastActivity = "last_activity", lastRole = "last_role", lastStatus = "last_status"
        case lastAuthor = "last_author", members
        case preview
        case hasPendingPrompt = "pending_prompt", problem, unread, unverified
        case conflictCopyOf = "conflict_copy_of"
        case branchedAt = "branched_at"
    }
}

/// One line of `vault diary list`.
public struct DiarySummary: Sendable, Codable, Hashable {
    public var path: String
    public var id: String?
    public var date: LocalDate?
    public var created: String?
    public var title: String
    public var preview: String
    public var tags: [String]
    public var problem: String?
    /// Where `date` comes from: `created` (front-matter), `file name`, `history` or `modified` (the file's time).
    public var dateSource: String?
    /// The entry this file is a conflict copy of, when that entry exists (as `RoomSummary.conflictCopyOf`).
    public var conflictCopyOf: String?

    enum CodingKeys: String, CodingKey {
        case path, id, date, created, title, preview, tags, problem
        case dateSource = "date_source"
        case conflictCopyOf = "conflict_copy_of"
    }
}

/// What changed in a folder since its listing cache was saved (`Vault.listingChanges`).
struct ListingChanges {
    var paths: [String]
    /// The watcher's point the cache is to be saved at (nil: none).
    var point: WatchPoint?
    /// Who named them, for the trace: `watcher` or `stamps`.
    var source: String
}

extension Vault {
    /// Every room, most recent activity first.
    ///
    /// Fast on large vaults: it reads a room's first bytes for the title and its last
    /// bytes for the last message (header lines are recognised on their own, so the
    /// last header is found by reading backwards), never the whole history.
    /// A room whose file has not changed since the last listing (`ListingCache`) is not read
    /// again: its summary is taken from the cache.
    public func roomSummaries(watcher: (any WorkTreeWatcher)? = nil) -> [RoomSummary] {
        let listing = roomListing(watcher: watcher)
        defer { listing.saveCache() }
        return listing.map { $0.summary() }
    }

    /// Every room, most recent activity first, as `roomSummaries()`, each kept room's summary made
    /// only when asked for (`RoomListing`). Call `saveCache()` once its rows are out.
    ///
    /// When `watcher` answers what changed since the point the cache was saved at (the same
    /// watcher: its epoch), only the files it names and those kept unsettled are read, and the
    /// rest are the cache's lines as they are, in the order they were saved in (`KeptLines`):
    /// no folder is listed, no file stamped, nothing sorted. Else every file is stamped and
    /// those whose stamp changed are read. The watcher is asked before anything is read, so a
    /// change made later is in its next answer; why its answers are enough is argued in
    /// `VaultSearch/Index/README.md`, "The watcher".
    public func roomListing(watcher: (any WorkTreeWatcher)? = nil) -> RoomListing {
        var cache = ListingCache(root: root, kind: "rooms", context: "", lazily: true, environment: settings.environment)
        let answer = watcher?.changes(since: cache.point)
        Trace.mark("rooms: cache opened, watcher asked")
        if let changes = listingChanges(VaultPath.rooms, recursive: true, cache: cache, answer: answer),
            let listing = keptRoomListing(cache: cache, changes: changes)
        {
            return listing
        }
        cache.loadEntries()
        Trace.mark("rooms: cache read (\(cache.count))")
        // Ordered below by last activity (ties by path): the folder's order is enough here.
        let paths = roomPaths(sorted: false)
        Trace.mark("rooms: \(paths.count) listed\(Vault.traced(answer))")
        let (found, entries, reads) = summarizedFiles(paths, cache: &cache) { path, kept, entry -> (ListingWalk<RoomSummary>.Item, Double)? in
            let row = kept.row(of: entry)
            guard RoomSummary.isKept(row), let key = row.number(0) else { return nil }
            return (.kept(row), key)
        } read: { path in
            let summary = summarizeRoom(path)
            return ((.read(summary), summary.sortKey), summary.fields)
        }
        var items = found
        // Sorted as indices: moving 20,000 summaries of many strings costs more than the compares.
        let keys = items.map { $0?.1 ?? 0 }
        let order = paths.indices.filter { items[$0] != nil }.sorted { a, b in
            keys[a] != keys[b] ? keys[a] > keys[b] : VaultPath.precedes(paths[a], paths[b])
        }
        Trace.mark("rooms: sorted")
        saveInOrder(&cache, entries: entries, order: order, reads: reads, point: answer?.point)
        let shared = items.contains { item in
            switch item?.0 {
            case .kept(let row)?: row.lastField() != nil  // `members`, the last field
            case .read(let summary)?: !summary.members.isEmpty
            case nil: false
            }
        }
        let marks = RowMarks(
            unread: UnreadMarks.load(root: root), copies: Vault.conflictCopies(among: paths),
            unverified: UnverifiedMarks.load(root: root))
        Trace.mark("rooms: marks added")
        return RoomListing(
            .items(Vault.moved(from: &items, in: order) { $0.0 }), marks: marks, count: order.count,
            hasSharedRooms: shared, pendingSave: nil)
    }

    /// The listing of rooms made from the cache's lines and the files that changed since it was
    /// saved (`roomListing`), nil when it cannot be made (a damaged cache).
    private func keptRoomListing(cache: ListingCache, changes: ListingChanges) -> RoomListing? {
        let kept = keptFiles(VaultPath.rooms, cache: cache, changes: changes)
        var none = ListingCache.none(context: "")
        let (read, entries, _) = summarizedFiles(kept.read, cache: &none) { _, _, _ -> RoomSummary? in nil } read: { path in
            let summary = summarizeRoom(path)
            return (summary, summary.fields)
        }
        // Most recent activity first, ties by path: the order the cache's lines were saved in.
        let fresh = zip(read, entries).compactMap { r, e in r.map { ($0, e) } }.sorted { a, b in
            a.0.sortKey != b.0.sortKey ? a.0.sortKey > b.0.sortKey : VaultPath.precedes(a.0.path, b.0.path)
        }
        func freshFirst(_ f: RoomSummary, _ row: KeptRow) -> Bool {
            let key = row.number(0) ?? 0
            return f.sortKey != key ? f.sortKey > key : Vault.precedes(f.path, row.path)
        }
        let lines = KeptLines(storage: cache.storage, start: kept.start, end: cache.linesEnd, skipped: kept.skipped, fresh: fresh.map(\.0), freshFirst: freshFirst)
        // Whether a kept room is shared (`members`, the last field).
        guard let (keptCount, keptShared, keptCopies) = Vault.checked(lines, valid: RoomSummary.isKept, flag: { $0.lastField() != nil })
        else { return nil }
        let shared = keptShared || fresh.contains { !$0.0.members.isEmpty }
        let named = fresh.map(\.0.path) + keptCopies
        Trace.mark("rooms: \(keptCount) kept, \(fresh.count) read (\(changes.source): \(kept.named) changed)")
        let marks = RowMarks(
            unread: UnreadMarks.load(root: root), copies: conflictCopies(named), unverified: UnverifiedMarks.load(root: root))
        let save = kept.changed ? keptSave(cache, lines: lines, fresh: fresh, point: changes.point, freshFirst: freshFirst) : nil
        return RoomListing(.kept(lines), marks: marks, count: keptCount + fresh.count, hasSharedRooms: shared, pendingSave: save)
    }

    /// The files of `folder` that changed since `cache` was saved: those the watcher names when
    /// it answered for the cache's point, else those whose stamps say so (`StampedChanges`);
    /// nil when neither can tell (no cache, a damaged one, a folder that is not one).
    private func listingChanges(_ folder: String, recursive: Bool, cache: ListingCache, answer: WatchAnswer?)
        -> ListingChanges?
    {
        // A folder that is a symbolic link is not listed (`roomPaths`, `diaryPaths`), but watched.
        guard FileIO.kind(of: absolute(folder)) == .directory else { return nil }
        if let answer, let changed = answer.changed, let point = cache.point, point.epoch == answer.point.epoch {
            return ListingChanges(paths: changed, point: answer.point, source: "watcher")
        }
        // Every file is stamped after the watcher was asked: what changes later is in its next
        // answer, so the cache is saved at the point it gave now.
        guard let paths = StampedChanges.of(folder, recursive: recursive, root: root, cache: cache) else { return nil }
        return ListingChanges(paths: paths, point: answer?.point, source: "stamps")
    }

    /// The files a listing made from the cache reads (those `changes` names that are here now,
    /// and those kept unsettled), the paths whose kept lines are out of date, where the settled
    /// lines start, and whether the cache is to be saved again.
    private func keptFiles(_ folder: String, cache: ListingCache, changes: ListingChanges)
        -> (read: [String], skipped: PathSet, start: Int, named: Int, changed: Bool)
    {
        let changed = changes.paths
        // Lines not settled are the first ones (`ListingCache.save`): read again every time.
        let bytes = cache.storage.buffer
        var at = cache.linesStart
        var unsettled: [String] = []
        while at < cache.linesEnd, let (entry, next) = ListingCache.line(bytes, at: at), !entry.settled {
            unsettled.append(ListingCache.unescape(bytes[entry.path]))
            at = next
        }
        let named = changed.filter { $0.hasPrefix(folder + "/") }
        var seen = Set<String>()
        // A named file that is here now, a regular file as the folder's listing would list it.
        let read = (named + unsettled).filter {
            seen.insert($0).inserted && WorkTreeWatching.watches($0) && FileIO.kind(of: absolute($0)) == .file
        }.sorted(by: VaultPath.precedes)
        // Saved at a new point too, so the next listing can take the watcher's answer.
        let moved = changes.point != nil && changes.point != cache.point
        return (read, PathSet(named), at, named.count, !named.isEmpty || !unsettled.isEmpty || moved)
    }

    /// Writes the cache of a listing the watcher answered for: the files read now that are not
    /// settled first, then the kept lines with the settled ones among them, in the listing's order.
    private func keptSave<Fresh>(
        _ cache: ListingCache, lines: KeptLines<Fresh>, fresh: [(Fresh, ListingCache.Entry?)], point: WatchPoint?,
        freshFirst: @escaping (Fresh, KeptRow) -> Bool
    ) -> CacheSave {
        CacheSave {
            // Walked again, with each file read now carrying its entry.
            let all = KeptLines(storage: lines.storage, start: lines.start, end: lines.end, skipped: lines.skipped, fresh: fresh) { f, row in
                freshFirst(f.0, row)
            }
            cache.save(point: point) { write in
                for (_, entry) in fresh { if let entry, !entry.settled { write(.entry(entry)) } }
                var c = all.cursor()
                while let row = all.next(&c) {
                    switch row {
                    case .kept(_, let line): write(.kept(line))
                    case .fresh(let f): if let entry = f.1, entry.settled { write(.entry(entry)) }
                    }
                }
            }
            Trace.mark("listing: cache saved")
        }
    }

    /// The kept lines of a listing checked once (`KeptLines.check`): how many there are, whether
    /// `flag` holds for one of them, and the kept paths that may be conflict copies; nil when a
    /// line is damaged.
    static func checked<Fresh>(
        _ lines: KeptLines<Fresh>, valid: @escaping (KeptRow) -> Bool, flag: @escaping (KeptRow) -> Bool
    ) -> (count: Int, flagged: Bool, copies: [String])? {
        let counted = lines.check(valid: valid, noted: (false, [String]())) { noted, row in
            if !noted.0, flag(row) { noted.0 = true }
            if ConflictCopy.mentionsConflict(UnsafeBufferPointer(rebasing: row.path)) { noted.1.append(row.pathText) }
        }
        guard let (count, notes) = counted else { return nil }
        return (count, notes.contains { $0.0 }, notes.flatMap(\.1))
    }

    /// What a full listing's trace says of the watcher's answer.
    static func traced(_ answer: WatchAnswer?) -> String {
        answer == nil ? "" : answer?.changed == nil ? " (watcher: everything)" : " (watcher: not used)"
    }

    /// Whether `path` comes before the path `bytes` by their UTF-8 bytes (`VaultPath.precedes`).
    static func precedes(_ path: String, _ bytes: KeptRow.Bytes) -> Bool {
        // Kept escaped: a name with a backslash, tab or line feed is compared as it is.
        if bytes.contains(92) { return VaultPath.precedes(path, ListingCache.unescape(bytes)) }
        var path = path
        return path.withUTF8 { a in
            let b = UnsafeBufferPointer(rebasing: bytes)
            let n = min(a.count, b.count)
            let c = n == 0 ? 0 : memcmp(a.baseAddress!, b.baseAddress!, n)
            return c != 0 ? c < 0 : a.count < b.count
        }
    }

    /// Copy → original, for the conflict copies among `paths` whose original is a file here.
    private func conflictCopies(_ paths: [String]) -> [String: String] {
        var found: [String: String] = [:]
        for path in paths {
            guard let original = ConflictCopy.original(of: path), FileIO.kind(of: absolute(original)) == .file else { continue }
            found[path] = original
        }
        return found
    }

    /// Saves what a full listing found, in its order, when a file was read, one was removed
    /// since, or every file was stamped against a new point of the watcher's (else an unchanged
    /// cache's older point is still true: what changed since it is in the next answer too).
    private func saveInOrder(
        _ cache: inout ListingCache, entries: [ListingCache.Entry?], order: [Int], reads: Int, point: WatchPoint?
    ) {
        let ordered = order.compactMap { entries[$0] }
        if reads > 0 || ordered.count != cache.count || (point != nil && point != cache.point) {
            cache.save(ordered, point: point)
        }
    }

    /// `part` of the values at `order` of `slots`, moved out (no copy of their strings: a listing's summaries
    /// each hold ten), leaving nil behind.
    static func moved<T, U>(from slots: inout [T?], in order: [Int], _ part: (consuming T) -> U) -> [U] {
        var out: [U] = []
        out.reserveCapacity(order.count)
        for i in order { out.append(part(slots[i].take()!)) }
        return out
    }

    func summarizeRoom(_ relative: String) -> RoomSummary {
        var summary = RoomSummary(
            path: relative, slug: VaultPath.stem(of: relative), title: VaultPath.stem(of: relative), lastActivity: nil,
            lastRole: nil, preview: "", hasPendingPrompt: false, problem: nil)
        do {
            let scan = try RoomTail.scan(absolute(relative), path: relative)
            if let t = scan.title { summary.title = t }
            summary.members = scan.members
            summary.branchedAt = scan.branchedAt
            if let header = scan.lastHeader {
                summary.lastActivity = header.timestamp.text
                summary.lastRole = header.role
                summary.lastAuthor = header.author?.name
                summary.lastStatus = header.attribute("status")
                summary.sortKey = header.timestamp.secondsSince1970
            } else if let created = scan.created {
                summary.lastActivity = created.text
                summary.sortKey = created.secondsSince1970
            } else {
                summary.sortKey = FileIO.modificationTime(absolute(relative)) ?? 0
            }
            summary.preview = scan.preview
            summary.hasPendingPrompt = scan.hasPendingPrompt
        } catch {
            summary.problem = "\(error)"
        }
        summary.composeNames()
        return summary
    }

    /// Every diary entry, newest first.
    public func diarySummaries(watcher: (any WorkTreeWatcher)? = nil) -> [DiarySummary] {
        let listing = diaryListing(watcher: watcher)
        defer { listing.saveCache() }
        return listing.map { $0.summary() }
    }

    /// Every diary entry, newest first, as `diarySummaries()`, each kept entry's summary made only
    /// when asked for (`DiaryListing`), as `roomListing` does. Call `saveCache()` once its rows are out.
    public func diaryListing(watcher: (any WorkTreeWatcher)? = nil) -> DiaryListing {
        // The zone dates an entry without one by its file's time: another zone, another cache;
        // and rows summarized by older rules of reading an entry are not kept.
        var cache = ListingCache(
            root: root, kind: "diary", context: config.timeZone.identifier + " " + DiarySummary.rules, lazily: true,
            environment: settings.environment)
        let answer = watcher?.changes(since: cache.point)
        Trace.mark("diary: cache opened, watcher asked")
        if let changes = listingChanges(VaultPath.diary, recursive: true, cache: cache, answer: answer),
            let listing = keptDiaryListing(cache: cache, changes: changes)
        {
            return listing
        }
        cache.loadEntries()
        Trace.mark("diary: cache read (\(cache.count))")
        // Ordered below by day (ties by path): the folders' order is enough here.
        let paths = diaryPaths(sorted: false)
        Trace.mark("diary: \(paths.count) listed\(Vault.traced(answer))")
        let none = LocalDate(year: 0, month: 1, day: 1)
        // Each entry with its keys, and whether it is dated by its file's time (found here, on the
        // workers, while its line is at hand).
        let (found, entries, reads) = summarizedFiles(paths, cache: &cache) { path, kept, entry -> (ListingWalk<DiaryListing.Fresh>.Item, Double, LocalDate, Bool)? in
            let row = kept.row(of: entry)
            guard DiarySummary.isKept(row), let key = row.number(0) else { return nil }
            let byFileTime = row.field(DiaryListing.Field.dateSource.rawValue, is: "modified")
            return (.kept(row), key, DiarySummary.day(of: row) ?? none, byFileTime)
        } read: { path in
            let (summary, key) = summarizeEntry(path)
            return ((.read(summary), key, summary.date ?? none, summary.dateSource == "modified"),
                DiarySummary.fields(summary, key: key))
        }
        var items = found
        let byFileTime = items.contains { $0?.3 == true }
        // The keys apart from the summaries: a compare then moves no strings.
        let keys = items.map { $0?.1 ?? 0 }
        let dates = items.map { $0?.2 ?? none }
        let order = paths.indices.filter { items[$0] != nil }.sorted {
            if dates[$0] != dates[$1] { return dates[$0] > dates[$1] }
            if keys[$0] != keys[$1] { return keys[$0] > keys[$1] }
            return VaultPath.precedes(paths[$1], paths[$0])
        }
        Trace.mark("diary: sorted")
        saveInOrder(&cache, entries: entries, order: order, reads: reads, point: answer?.point)
        defer { Trace.mark("diary: copies marked") }
        return DiaryListing(
            .items(Vault.moved(from: &items, in: order) { $0.0 }), copies: Vault.conflictCopies(among: paths),
            count: order.count,
            hasEntryDatedByFileTime: byFileTime, pendingSave: nil)
    }

    /// The listing of entries made from the cache's lines and the files that changed since it
    /// was saved (`diaryListing`), as `keptRoomListing`.
    private func keptDiaryListing(cache: ListingCache, changes: ListingChanges) -> DiaryListing? {
        let kept = keptFiles(VaultPath.diary, cache: cache, changes: changes)
        var noCache = ListingCache.none(context: "")
        let (read, entries, _) = summarizedFiles(kept.read, cache: &noCache) { _, _, _ -> DiaryListing.Fresh? in nil } read: { path in
            let (summary, key) = summarizeEntry(path)
            return (DiaryListing.Fresh(summary: summary, key: key), DiarySummary.fields(summary, key: key))
        }
        let none = LocalDate(year: 0, month: 1, day: 1)
        // Newest day first, then the latest created, then the path backwards: the cache's order.
        let fresh = zip(read, entries).compactMap { r, e in r.map { ($0, e) } }.sorted { a, b in
            let (x, y) = (a.0, b.0)
            if (x.summary.date ?? none) != (y.summary.date ?? none) { return (x.summary.date ?? none) > (y.summary.date ?? none) }
            if x.key != y.key { return x.key > y.key }
            return VaultPath.precedes(y.summary.path, x.summary.path)
        }
        func freshFirst(_ f: DiaryListing.Fresh, _ row: KeptRow) -> Bool {
            let (day, rowDay) = (f.summary.date ?? none, DiarySummary.day(of: row) ?? none)
            if day != rowDay { return day > rowDay }
            let key = row.number(0) ?? 0
            if f.key != key { return f.key > key }
            return !Vault.precedes(f.summary.path, row.path)
        }
        let lines = KeptLines(storage: cache.storage, start: kept.start, end: cache.linesEnd, skipped: kept.skipped, fresh: fresh.map(\.0), freshFirst: freshFirst)
        // Whether a kept entry is dated by its file's time.
        guard let (keptCount, keptByFileTime, keptCopies) = Vault.checked(
            lines, valid: DiarySummary.isKept, flag: { $0.field(DiaryListing.Field.dateSource.rawValue, is: "modified") })
        else { return nil }
        let byFileTime = keptByFileTime || fresh.contains { $0.0.summary.dateSource == "modified" }
        let named = fresh.map(\.0.summary.path) + keptCopies
        Trace.mark("diary: \(keptCount) kept, \(fresh.count) read (\(changes.source): \(kept.named) changed)")
        let save = kept.changed ? keptSave(cache, lines: lines, fresh: fresh, point: changes.point, freshFirst: freshFirst) : nil
        return DiaryListing(
            .kept(lines), copies: conflictCopies(named), count: keptCount + fresh.count,
            hasEntryDatedByFileTime: byFileTime, pendingSave: save)
    }

    /// Each of `paths` summarized, as `summarizedFiles` does, and the cache brought up to date and
    /// saved. `paths` is every file of its kind, or with `onlyThese` a few of them: the cache's
    /// other entries are then kept as they are.
    func summarized<T>(
        _ paths: [String], onlyThese: Bool = false, cache: inout ListingCache,
        cached: (String, ListingCache, ListingCache.Entry) -> T?, read: (String) -> (T, [String?]?)
    ) -> [T?] {
        let (results, entries, reads) = summarizedFiles(paths, cache: &cache, cached: cached, read: read)
        let fresh = entries.compactMap { $0 }
        if onlyThese {
            // Saved when one of them was read or has gone; the others' entries kept.
            if reads > 0 || fresh.count != paths.count { cache.save(cache.entries(notIn: paths) + fresh) }
        } else if reads > 0 || fresh.count != cache.count {
            cache.save(fresh)
        }
        return results
    }

    /// Each of `paths` summarized, from `cache` while its file has the stamp kept there (`cached`
    /// makes the summary from the kept entry's line, `ListingCache.row(of:)`; nil: read
    /// the file), else by `read` (on every core; nil fields: not kept); with each file's
    /// entry for the cache (nil: not kept, or no file there now) and how many were read.
    func summarizedFiles<T>(
        _ paths: [String], cache: inout ListingCache, cached: (String, ListingCache, ListingCache.Entry) -> T?,
        read: (String) -> (T, [String?]?)
    ) -> (results: [T?], entries: [ListingCache.Entry?], reads: Int) {
        var results = [T?](repeating: nil, count: paths.count)
        var entries = [ListingCache.Entry?](repeating: nil, count: paths.count)
        var reads = [Bool](repeating: false, count: paths.count)
        cache.indexByInode()
        let kept = cache
        let now = Int(Date().timeIntervalSince1970)
        // Called from every worker: they read files and make values, sharing no state.
        nonisolated(unsafe) let cached = cached
        nonisolated(unsafe) let read = read
        results.withUnsafeMutableBufferPointer { out in
            entries.withUnsafeMutableBufferPointer { entriesOut in
                reads.withUnsafeMutableBufferPointer { readsOut in
                    // Each index is written by one worker only.
                    nonisolated(unsafe) let slots = out.baseAddress!
                    nonisolated(unsafe) let entrySlots = entriesOut.baseAddress!
                    nonisolated(unsafe) let readSlots = readsOut.baseAddress!
                    let workers = max(1, min(8, paths.count / 256 + 1))
                    DispatchQueue.concurrentPerform(iterations: workers) { worker in
                        // Each worker takes a run of neighbouring paths (one folder's files, mostly).
                        let per = (paths.count + workers - 1) / workers
                        var i = worker * per
                        let end = min(paths.count, i + per)
                        var stamper = FileIO.FolderStamper(root: root)
                        while i < end {
                            // The stamp before the read: a change during the read is seen next time.
                            let stamp = stamper.stamp(of: paths[i])
                            if let hit = kept.entry(of: paths[i], stamp: stamp), let summary = cached(paths[i], kept, hit) {
                                slots[i] = summary
                                entrySlots[i] = hit
                            } else {
                                let (summary, fields) = read(paths[i])
                                slots[i] = summary
                                entrySlots[i] = fields.flatMap {
                                    ListingCache.entry(paths[i], stamp: stamp, fields: $0, now: now)
                                }
                                readSlots[i] = true
                            }
                            i += 1
                        }
                    }
                }
            }
        }
        let readCount = reads.filter { $0 }.count
        Trace.mark("listing: stamped and summarized (\(readCount) read)")
        return (results, entries, readCount)
    }

    /// Copy path → original path, for the conflict copies among `paths` whose original is among them too.
    static func conflictCopies(among paths: [String]) -> [String: String] {
        // Names are tested first (a byte search), so the set of all paths is made only when one is a copy.
        let candidates = paths.compactMap { path in ConflictCopy.original(of: path).map { (path, $0) } }
        guard !candidates.isEmpty else { return [:] }
        let all = Set(paths)
        var found: [String: String] = [:]
        for (path, original) in candidates where all.contains(original) { found[path] = original }
        return found
    }

    func summarizeEntry(_ relative: String) -> (DiarySummary, Double) {
        var summary = DiarySummary(
            path: relative, id: nil, date: DiaryFile.dateInName(relative), created: nil,
            title: VaultPath.stem(of: relative),
            preview: "", tags: [], problem: nil, dateSource: DiaryFile.dateInName(relative) != nil ? "file name" : nil)
        var key = 0.0
        do {
            let entry = try readDiaryEntry(relative)
            summary.id = entry.id
            summary.title = entry.title
            summary.tags = entry.tags
            summary.created = entry.created?.text
            key = entry.created?.secondsSince1970 ?? 0
            summary.date = entry.day
            summary.dateSource = entry.created != nil ? "created" : (entry.day != nil ? "file name" : nil)
            summary.preview = Preview.firstLine(
                of: entry.body, skipping: entry.frontMatter?.string("title") == nil ? entry.title : nil)
        } catch {
            summary.problem = "\(error)"
        }
        if summary.date == nil, let mtime = FileIO.modificationTime(absolute(relative)) {
            let t = Timestamp(date: Date(timeIntervalSince1970: mtime), timeZone: config.timeZone)
            summary.date = t.localDate
            summary.dateSource = "modified"
            key = mtime
        }
        // Shown as typed on Linux whatever the file holds (a Mac's decomposed Hangul): `String.nfc`.
        summary.title = summary.title.nfc
        summary.preview = summary.preview.nfc
        summary.tags = summary.tags.map(\.nfc)
        return (summary, key)
    }
}

/// Previews for listings: a line whole, so `vault rooms | grep` finds its words; the terminal's
/// aligned view cuts it to the width left (`Terminal.clip`).
package enum Preview {
    /// The most characters a preview keeps: a bound on what one file can put in memory and in
    /// the listing cache, far beyond a line anyone writes by hand or a model sends.
    package static let longest = 16_384

    /// The first non-empty line, without Markdown heading marks, at most `limit` characters
    /// (a longer one ends in `…`).
    ///
    /// - Parameter quoted: the text starts with a quote to leave out (a reply's, `Posting.quote`):
    ///   its `>` lines are skipped.
    static func firstLine(of text: String, skipping: String? = nil, quoted: Bool = false, limit: Int = longest) -> String {
        var rest = Substring(text)
        var inQuote = quoted
        while !rest.isEmpty {
            let nl = rest.utf8.firstIndex(of: 10) ?? rest.endIndex
            var t = rest[..<nl]
            rest = nl == rest.endIndex ? "" : rest[rest.utf8.index(after: nl)...]
            if inQuote {
                // Blank lines around the quote, and its `>` lines.
                if t.utf8.first == UInt8(ascii: ">") || t.utf8.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 13 }) {
                    continue
                }
                inQuote = false
            }
            while let f = t.utf8.first, f == UInt8(ascii: "#") || f == UInt8(ascii: ">") || f == 32 || f == 9 || f == 13
            {
                t = t.dropFirst()
            }
            while let l = t.utf8.last, l == 32 || l == 9 || l == 13 { t = t.dropLast() }
            if t.isEmpty || t.hasPrefix("```") || (skipping != nil && t == skipping![...]) { continue }
            if t.utf8.count > limit, t.count > limit { return String(t.prefix(limit - 1)) + "…" }
            return String(t)
        }
        return ""
    }
}

/// Reads only a room's head and tail: enough for its title and its last message.
extension Vault {
    /// A room's front-matter, read from the head of the file (all of the file only when the
    /// front-matter is longer than the head): a long room's settings without parsing it.
    public func readRoomFrontMatter(_ relative: String) throws(VaultError) -> FrontMatter? {
        let path = absolute(relative)
        let (head, size) = try FileIO.read(path, offset: 0, count: RoomTail.headSize)
        guard let (frontMatter, _) = try RoomFile.headFrontMatter(head, size: size, path: relative) else {
            return try readRoom(relative).frontMatter
        }
        return frontMatter
    }
}

enum RoomTail {
    struct Scan {
        var title: String?
        var created: Timestamp?
        var lastHeader: MessageHeader?
        var preview: String
        var hasPendingPrompt: Bool
        var members: [String] = []
        /// A branch room's (`fork_of:`) first message's first line: where it branched.
        var branchedAt: String?
    }

    static let headSize = 16 * 1024
    static let tailSize = 32 * 1024

    static func scan(_ absolutePath: String, path: String) throws(VaultError) -> Scan {
        let (head, size) = try FileIO.read(absolutePath, offset: 0, count: headSize)
        // Title and creation time from the front-matter at the head (it is small).
        guard let (frontMatter, start) = try RoomFile.headFrontMatter(head, size: size, path: path) else {
            return try scanWhole(try FileIO.read(absolutePath), path: path)
        }
        let title = frontMatter?.string("title")
        let created = frontMatter?.string("created").flatMap { Timestamp(frontMatter: $0) }
        // The last message, read backwards from the end (headers are recognised line by line).
        let bodyStart = frontMatter?.range.upperBound ?? start
        var window = tailSize
        while true {
            let tail: [UInt8]
            let offset: Int
            if size <= head.count {
                (tail, offset) = (Array(head[bodyStart...]), bodyStart)
            } else {
                offset = max(bodyStart, size - window)
                tail = try FileIO.read(absolutePath, offset: offset, count: size - offset).bytes
            }
            // Whatever is read must be UTF-8 (a window may start inside a character: skip to a line).
            var checkFrom = 0
            if offset > bodyStart { checkFrom = (tail.firstIndex(of: 10) ?? tail.count - 1) + 1 }
            let headValid = head.withUnsafeBufferPointer {
                UTF8Check.isValid(UnsafeBufferPointer(rebasing: $0[..<min(head.count, bodyStart)]))
            }
            let tailValid = tail.withUnsafeBufferPointer {
                UTF8Check.isValid(UnsafeBufferPointer(rebasing: $0[checkFrom...]))
            }
            guard headValid, tailValid else {
                throw VaultError.malformedEnd(path: path, .invalidUTF8)
            }
            // What a line-based `git merge` left is never shown as a message.
            if ConflictMarkers.problem(in: Array(tail[checkFrom...]), path: path) != nil {
                throw VaultError.malformedEnd(path: path, .conflictMarkers)
            }
            // A partial first line is skipped unless the window starts at the body.
            switch lastMessage(tail, skipFirstLine: offset > bodyStart) {
            case .found(let header, let preview, let pending):
                // A branch's first message is near the head: the front-matter is short.
                let branchedAt =
                    frontMatter?.values["fork_of"] == nil
                    ? nil : firstMessageLine(Array(head[min(bodyStart, head.count)...]))
                return Scan(
                    title: title, created: created, lastHeader: header, preview: preview, hasPendingPrompt: pending,
                    members: Workspace.members(of: frontMatter), branchedAt: branchedAt)
            case .broken(let why):
                throw VaultError.malformedEnd(path: path, .brokenHeader(why))
            case .needMore:
                window *= 4
            }
        }
    }

    static func scanWhole(_ bytes: [UInt8], path: String) throws(VaultError) -> Scan {
        let room = try RoomFile(parsing: bytes, path: path)
        let last = room.messages.last
        let preview =
            room.pendingPrompt.map { Preview.firstLine(of: $0) }
            ?? last.map { Preview.firstLine(of: $0.body, quoted: $0.header.attribute(Posting.replyToKey) != nil) } ?? ""
        let branchedAt =
            room.frontMatter?.values["fork_of"] == nil ? nil : room.messages.first.map { Preview.firstLine(of: $0.body) }
        return Scan(
            title: room.title == VaultPath.stem(of: path) ? nil : room.title,
            created: room.frontMatter?.string("created").flatMap { Timestamp(frontMatter: $0) },
            lastHeader: last?.header,
            preview: preview, hasPendingPrompt: room.pendingPrompt != nil, members: Workspace.members(of: room.frontMatter),
            branchedAt: branchedAt)
    }

    /// The first line of the first message in `bytes` (a room's body, from its start: a line
    /// start), nil when they hold no message header; up to the next header or the prompt marker.
    static func firstMessageLine(_ bytes: [UInt8]) -> String? {
        bytes.withUnsafeBufferPointer { b -> String? in
            var bodyStart: Int?
            var start = 0
            while start < b.count {
                var newline = start
                while newline < b.count, b[newline] != 10 { newline += 1 }
                let next = min(newline + 1, b.count)
                if start < newline, b[start] == UInt8(ascii: "#") || b[start] == UInt8(ascii: "<") {
                    let end = b.contentEnd(lineStart: start, newline: newline < b.count ? newline : nil)
                    switch MessageHeader.classify(b, start, end, file: bytes) {
                    case .header, .promptMarker:
                        if let from = bodyStart { return Preview.firstLine(of: b.string(from..<start)) }
                        bodyStart = next
                    case .invalidHeader, .text: break
                    }
                }
                start = next
            }
            return bodyStart.map { Preview.firstLine(of: b.string($0..<b.count)) }
        }
    }

    enum Tail {
        /// The last message's header (nil: the room has none) and what to preview.
        case found(MessageHeader?, preview: String, pending: Bool)
        /// The window holds no header: read more of the file.
        case needMore
        /// A message header in the window is invalid: how (`RoomEndProblem.brokenHeader`).
        case broken(String)
    }

    /// The last header in `bytes`, searched from the end, and the preview of what follows it.
    /// `bytes` starts at a line start, or mid-line when `skipFirstLine` (a window into the file).
    static func lastMessage(_ bytes: [UInt8], skipFirstLine: Bool) -> Tail {
        bytes.withUnsafeBufferPointer { b -> Tail in
            var end = b.count
            var markerLine: Int?
            func pendingPreview() -> String {
                guard let m = markerLine else { return "" }
                var next = m
                while next < b.count, b[next] != 10 { next += 1 }
                return next < b.count ? Preview.firstLine(of: b.string((next + 1)..<b.count)) : ""
            }
            while end > 0 {
                // Start of the line that ends at `end` (exclusive of its newline).
                var lineEnd = end
                if lineEnd > 0, b[lineEnd - 1] == 10 { lineEnd -= 1 }
                var start = lineEnd
                while start > 0, b[start - 1] != 10 { start -= 1 }
                if start == 0 && skipFirstLine { return .needMore }
                if start < lineEnd, b[start] == UInt8(ascii: "#") || b[start] == UInt8(ascii: "<") {
                    let contentEnd = b.contentEnd(lineStart: start, newline: lineEnd < b.count ? lineEnd : nil)
                    switch MessageHeader.classify(b, start, contentEnd, file: bytes) {
                    case .header(let h):
                        let bodyStart = lineEnd < b.count ? lineEnd + 1 : b.count
                        let stop = markerLine ?? b.count
                        let pending = pendingPreview()
                        let preview =
                            pending.isEmpty
                            ? Preview.firstLine(
                                of: b.string(bodyStart..<max(bodyStart, stop)),
                                quoted: h.attribute(Posting.replyToKey) != nil) : pending
                        return .found(h, preview: preview, pending: !pending.isEmpty)
                    case .promptMarker:
                        if markerLine == nil { markerLine = start }
                    case .invalidHeader(let why):
                        return .broken(why)
                    case .text:
                        break
                    }
                }
                end = start
            }
            let pending = pendingPreview()
            return .found(nil, preview: pending, pending: !pending.isEmpty)
        }
    }
}

extension RoomSummary {
    /// The title, slug, preview and names in NFC (`String.nfc`), as listings print them: a title
    /// written on a Mac (decomposed Hangul) is found by `grep 제주`. The file keeps its bytes, and
    /// the path stays the file's name as it is (it names the file).
    mutating func composeNames() {
        slug = slug.nfc
        title = title.nfc
        preview = preview.nfc
        lastAuthor = lastAuthor?.nfc
        branchedAt = branchedAt?.nfc
        members = members.map(\.nfc)
    }
}

/// A summary as `ListingCache` keeps it: its fields in a fixed order.
extension RoomSummary {
    var fields: [String?] {
        [String(sortKey), title, lastActivity, lastRole?.rawValue, lastStatus, preview, hasPendingPrompt ? "1" : "0",
         problem, lastAuthor, branchedAt, members.isEmpty ? nil : members.joined(separator: "\u{1F}")]
    }

    /// How many fields `ListingCache` keeps of a room.
    static let keptFields = 11

    /// Whether a kept line holds a room's summary (`init(path:fields:)` makes one of it).
    static func isKept(_ row: KeptRow) -> Bool {
        row.fieldCount == keptFields && row.number(0) != nil && row.field(1) != nil && row.field(5) != nil
    }

    init?(path: String, fields f: [String?]) {
        guard f.count == RoomSummary.keptFields, let key = f[0].flatMap(Double.init), let title = f[1], let preview = f[5] else { return nil }
        self.init(
            path: path, slug: VaultPath.stem(of: path).nfc, title: title, lastActivity: f[2],
            lastRole: f[3].flatMap(Role.init(rawValue:)), lastStatus: f[4], preview: preview,
            hasPendingPrompt: f[6] == "1", problem: f[7])
        lastAuthor = f[8]
        branchedAt = f[9]
        members = (f[10] ?? "").utf8.split(separator: 0x1F, omittingEmptySubsequences: true).map { String(Substring($0)) }
        sortKey = key
    }
}

extension DiarySummary {
    /// The rules an entry's summary is made by, in its cache's context: bump it when they change
    /// (2: a heading without digits is the person's, daily-note names are dated).
    static let rules = "entries-2"

    /// How many fields `ListingCache` keeps of an entry.
    static let keptFields = 9

    /// Whether a kept line holds an entry's summary (`withKey(path:fields:)` makes one of it).
    static func isKept(_ row: KeptRow) -> Bool {
        guard row.fieldCount == keptFields, row.number(0) != nil, row.field(4) != nil, row.field(5) != nil else { return false }
        return row.field(2) == nil || day(of: row) != nil
    }

    /// The day of a kept line (nil: none, or not a date).
    static func day(of row: KeptRow) -> LocalDate? {
        row.field(DiaryListing.Field.date.rawValue).flatMap { LocalDate(isoBytes: UnsafeBufferPointer(rebasing: $0)) }
    }

    static func fields(_ s: DiarySummary, key: Double) -> [String?] {
        [String(key), s.id, s.date?.description, s.created, s.title, s.preview, s.tags.joined(separator: "\u{1F}"),
         s.problem, s.dateSource]
    }

    static func withKey(path: String, fields f: [String?]) -> (DiarySummary, Double)? {
        guard f.count == DiarySummary.keptFields, let key = f[0].flatMap(Double.init), let title = f[4], let preview = f[5] else { return nil }
        // Split on the byte 0x1F (a `Character` split walks grapheme clusters).
        let tags = (f[6] ?? "").utf8.split(separator: 0x1F, omittingEmptySubsequences: true).map { String(Substring($0)) }
        let summary = DiarySummary(
            path: path, id: f[1], date: f[2].flatMap { LocalDate(iso: $0) }, created: f[3], title: title,
            preview: preview, tags: tags, problem: f[7], dateSource: f[8])
        return (summary, key)
    }
}
