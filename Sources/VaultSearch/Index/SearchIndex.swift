import CSQLite
import Dispatch
import VaultCore

#if canImport(Glibc)
import Glibc
#endif

/// A rebuildable cache that tells `vault search` which files can contain a literal text, so the
/// scan reads those instead of every file.
///
/// An SQLite database outside the vault (see `init(vaultRoot:path:)`) keeps, for every distinct
/// content of a listed file (its git blob id), the terms of the file's search text
/// (`SearchText.key` with case folding): each distinct run of three Unicode scalars, hashed
/// (`FileVersion.terms`), and for CJK text each distinct pair of CJK scalars and CJK scalar, in a
/// contentless FTS5 table without positions. A needle of three or more characters, or of one or
/// two CJK ones, is looked up as all of its terms, which every text that contains it holds:
/// `candidates` is a superset of the files the scan finds hits in (case-insensitive hits, and so
/// case-sensitive ones too), and scanning the candidates gives the full scan's result.
///
/// `refresh` brings the index up to date first: it compares every listed file's stamp (device,
/// inode, size, modification and change times) with the recorded one, and reads only the files
/// that differ. Nothing in the vault is ever written.
///
///     let index = try SearchIndex(vaultRoot: vault.root)
///     _ = try index.refresh(files)
///     let scan = try index.candidates(containingAll: [SearchText.key("부산 여행", folding: true)]) ?? files
public final class SearchIndex {
    /// What a refresh did.
    public struct Refresh: Sendable, Equatable {
        /// Files read (their stamps differed from the recorded ones, or they were new).
        package var read: Int
        /// Texts added to the index (contents not indexed before).
        package var indexed: Int
        /// Files no longer listed, dropped from the index.
        package var removed: Int
        /// Every listed file that is not valid UTF-8 (sorted), read now or before.
        package var invalidUTF8: [String]

        package init(read: Int, indexed: Int, removed: Int, invalidUTF8: [String]) {
            self.read = read
            self.indexed = indexed
            self.removed = removed
            self.invalidUTF8 = invalidUTF8
        }
    }

    /// The database file.
    public let path: String
    /// The vault's root folder, as given.
    public let vaultRoot: String
    /// The vault's root folder, symbolic links resolved (what the watcher watches).
    let realRoot: String
    /// The watcher to ask what changed (`SearchWatcher`); nil: none is asked or started, and
    /// every refresh from `VaultSearch` stamps every file.
    public var watcher: SearchWatcher?
    /// The watcher's answer and the listing, when the early steps took them (`preopen`): the
    /// search uses them instead of asking and listing again. Taken once.
    var early: Early?
    /// The side file `WatchRecord`: the watcher's generation the record was brought up to date
    /// against.
    var watchRecordPath: String { path + ".watch" }
    /// The side file of recorded stamps (`StampFile`).
    let stampPath: String
    /// The side file of the last listing of the vault's folders (`FileList`, `vs_files_save`).
    var listingPath: String { path + ".listing" }
    /// The vault's root folder, open: files are stamped and read relative to it.
    private let folder: Int32
    /// The open database; nil only while a damaged one is being replaced.
    private var connection: SQLiteConnection?
    /// The device and inode of the database file `connection` opened: when the path names
    /// another file (the cache was deleted or replaced meanwhile), the database is opened again.
    private var openedFile: (device: UInt64, inode: UInt64)?
    /// The listed files and their record, when the record is the database's state (left by
    /// this object's last refresh): `candidates` then reads only the matching text ids.
    private var current: (files: ListedFiles, record: StampRecord)?
    /// Whether the last refresh finished, and the database was not replaced (found damaged)
    /// since: else the database may list only some of the files (none, or those of the batches
    /// a failed refresh committed), and `candidates` cannot narrow.
    private var isRefreshed = false

    /// How recently written (in nanoseconds, by its stamp) a file read for the index must not
    /// be for its stamp to be trusted; such files are read again by the next refresh. Two
    /// seconds covers file systems whose times have coarse ticks (FAT keeps 2 s).
    var racyMargin: Int64 = 2_000_000_000
    /// Threads that take the stamps (the machine's cores, at most 4).
    var stampThreads = min(4, max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    /// Texts a refresh must add before it merges the index's segments into one (FTS5's
    /// `optimize`): after a first build, a merged index is smaller and answers faster.
    var optimizeAfter = 1_000

    /// The schema this code reads and writes, in `PRAGMA user_version`. A database of another
    /// version is deleted and built again (version 3 had no `auto_vacuum` and FTS5 pages that
    /// each took a page and a half of the file; version 4 no case-kept terms).
    static let schemaVersion: Int64 = 5
    /// FTS5's `pgsz`: the bytes of its leaf pages, each a row of `texts_data`. Its default, 4050,
    /// is just too long for one 4,096-byte page that keeps 8 bytes for its checksum (a row's
    /// payload may fill 4,053 there): each leaf then went to an overflow page, 13 MB of the
    /// benchmark's index unused. A leaf may end a little past `pgsz`.
    static let leafBytes = 4000
    /// FTS5's `hashsize`: the bytes of terms it gathers in memory before writing them out as a
    /// segment (its default, 1 MB, made a build of 50,000 files write and merge hundreds of
    /// small segments: twice the time).
    static let hashBytes = 64 << 20
    /// A refresh that leaves stale terms more than half as many as the live ones, and at least
    /// this many, empties the index and reads every file again (`rebuildIfStale`): the index
    /// stays under about one and a half times the size of a fresh one (0.66x the vault on the
    /// benchmark's, whose fresh index is 0.44x).
    var rebuildAfterStaleTerms: Int64 = 1_000_000

    /// How long a call waits for another process's write lock (a `vault search` building the
    /// index commits every few megabytes, so the wait is for one batch, not for the build).
    static let busyMilliseconds: Int32 = 60_000

    /// Opens the index of the vault whose root folder is `vaultRoot` at `path` (default:
    /// `$XDG_CACHE_HOME/vault/search/<hex SHA-1 of the vault root's real path>.sqlite`,
    /// `$XDG_CACHE_HOME` defaulting to `~/.cache`), creating it when missing, and deleting and
    /// re-creating it when it is corrupt, truncated, not a database, or of another schema
    /// version. Never writes inside the vault.
    ///
    /// - Throws: `VaultError.io` when the vault folder cannot be opened or the index cannot be
    ///   created; `VaultError.input(.indexInsideVault)` when `path` is inside the vault.
    public init(vaultRoot: String, cacheHome: String, path: String? = nil) throws(VaultError) {
        guard let realRoot = Self.realPath(vaultRoot) else {
            throw .io(path: vaultRoot, operation: "open the vault folder", reason: Self.errorText())
        }
        let folder = open(realRoot, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else {
            throw .io(path: vaultRoot, operation: "open the vault folder", reason: Self.errorText())
        }
        self.folder = folder
        self.vaultRoot = vaultRoot
        self.realRoot = realRoot
        let path = path ?? Self.defaultPath(forVaultAt: realRoot, cacheHome: cacheHome)
        self.path = path
        stampPath = path + ".stamps"
        do throws(VaultError) {
            if Self.isInside(path, realRoot) {
                throw VaultError.input(.indexInsideVault(index: path, vault: vaultRoot))
            }
            try Self.makeFolders(upTo: String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)]))
            connection = try openRepairing()
            openedFile = Self.fileID(path)
        } catch {
            close(folder)
            throw error
        }
    }

    deinit {
        connection = nil
        close(folder)
    }

    // MARK: - Refresh

    /// Told after each batch a refresh reads (`indexing`, files read of those changed): never
    /// printed here.
    public var onProgress: ProgressHandler?

    /// Brings the index up to date with `files` (paths relative to the root: every
    /// `rooms/**/*.md`, `volumes/**/*.md` and `diary/**/*.md` the scan would read, given by the
    /// caller).
    ///
    /// Files whose stamp (device, inode, size, modification and change times in nanoseconds)
    /// is as recorded are not read. A changed file is read and its git blob id (SHA-1 of
    /// `blob <size>\0` and the bytes) computed; if a row with that blob id exists already (same
    /// content: touched, renamed, a sync that rewrote it), its text is reused, else the text is
    /// indexed. Files no longer listed are dropped; the terms of contents no file has any more stay,
    /// counted as stale, until they pass half the live ones and the index is built again.
    /// A damaged database found on the way is deleted and built again.
    ///
    /// Changes are committed in batches of a few megabytes, so a build that is interrupted
    /// keeps what it did, and a second `vault search` waits for one batch, not for the build.
    public func refresh(_ files: [String]) throws(VaultError) -> Refresh {
        try refresh(ListedFiles(files), stamps: nil)
    }

    /// `refresh(files)` with the files' stamps taken already (`FileList.stamps`, relative to their
    /// folders), in the order of `files`; nil: taken here.
    ///
    /// With `vouched` (the side file's record the watcher vouched for, `stamps(of:_:_:)`),
    /// `stamps` holds fresh stamps only where the watcher saw a change: used only while that
    /// record is still the database's; else every file is stamped here.
    func refresh(
        _ files: ListedFiles, stamps: [FileStamp]?, vouched: StampRecord? = nil
    ) throws(VaultError) -> Refresh {
        do throws(SQLiteFailure) {
            return try refreshOnce(files, stamps, vouched)
        } catch where error.isDamage {
            try repair()
            do throws(SQLiteFailure) {
                return try refreshOnce(files, nil)
            } catch {
                throw failure(error, "update")
            }
        } catch {
            throw failure(error, "update")
        }
    }

    /// What a refresh knows of one listed file before reading it.
    private struct Recorded {
        var stamps: [FileStamp]
        var docids: [Int64]
        /// Recorded paths that are not listed any more.
        var removed: [String]
        /// The sorted order, when the listing is the one recorded.
        var order: [UInt32]?
    }

    private func refreshOnce(
        _ listed: ListedFiles, _ taken: [FileStamp]?, _ vouched: StampRecord? = nil
    ) throws(SQLiteFailure) -> Refresh {
        isRefreshed = false
        let db = try database()
        current = nil
        let snapshot = try generation(db)
        // Stamps vouched for by the watcher hold only for the record they were taken against.
        let partial = vouched != nil
        let stillVouched = vouched.flatMap { $0.generation == snapshot ? $0 : nil }
        let given = partial && stillVouched == nil ? nil : taken
        let listHash = stillVouched?.listHash ?? listed.listHash
        let side = stillVouched ?? StampFile.read(stampPath).flatMap { $0.generation == snapshot ? $0 : nil }
        let stamps = given ?? FileStamp.stamps(of: listed.paths, in: folder, threads: stampThreads)
        if let side, side.listHash == listHash, side.stamps.count == listed.count, side.stamps == stamps {
            current = (listed, side)
            isRefreshed = true
            return Refresh(read: 0, indexed: 0, removed: 0, invalidUTF8: invalidFiles(listed, side))
        }
        let files = listed.paths
        var recorded: Recorded
        if let side, side.listHash == listHash, side.stamps.count == files.count {
            recorded = Recorded(stamps: side.stamps, docids: side.docids, removed: [], order: side.order)
        } else {
            recorded = try recordedState(of: files, side: side, db)
        }
        var changed: [Int] = []
        for k in files.indices where stamps[k] != recorded.stamps[k] { changed.append(k) }

        var result = Refresh(read: 0, indexed: 0, removed: 0, invalidUTF8: [])
        let packed: (bytes: [UInt8], ends: [UInt32])
        if let side, side.listHash == listHash, side.hasPaths {
            packed = (side.pathBytes, side.pathEnds)
        } else {
            packed = StampRecord.packed(files)
        }
        var record = StampRecord(
            generation: snapshot, listHash: listHash, stamps: recorded.stamps, docids: recorded.docids,
            order: recorded.order ?? Self.sortedOrder(files), pathBytes: packed.0, pathEnds: packed.1)
        // Whether another process wrote between this refresh's transactions: then the record
        // may not be the database's state, and is not kept.
        var interleaved = false
        var dereferenced = Set<[UInt8]>()
        let statements = try Statements(db)

        if !changed.isEmpty {
            let known = changed.count > 64 ? try knownBlobs(db) : []
            let bulk = changed.count >= optimizeAfter
            let batches = Self.batches(of: changed, stamps: stamps)
            let margin = racyMargin
            let folder = folder
            var next = Self.read(batches.first ?? [], of: files, in: folder, racyMargin: margin, known: known)
            for (b, batch) in batches.enumerated() {
                next.group.wait()
                var versions = next.box.versions
                if b + 1 < batches.count {
                    next = Self.read(batches[b + 1], of: files, in: folder, racyMargin: margin, known: known)
                }
                try db.transaction(writing: true) { () throws(SQLiteFailure) in
                    if try generation(db) != record.generation { interleaved = true }
                    if b == 0 { try setMerging(bulk: bulk, db) }
                    var counts = TermCounts()
                    for (j, k) in batch.enumerated() {
                        result.read += 1
                        let (docid, added) = try store(&versions[j], as: files[k], statements, &dereferenced, &counts)
                        result.indexed += added ? 1 : 0
                        record.stamps[k] = versions[j].stamp
                        record.docids[k] = docid
                    }
                    try counts.apply(statements)
                    record.generation = try bumpGeneration(db)
                }
                onProgress?(ProgressEvent("indexing", done: result.read, of: changed.count, unit: "files"))
            }
        }
        if !recorded.removed.isEmpty || !dereferenced.isEmpty {
            try db.transaction(writing: true) { () throws(SQLiteFailure) in
                if try generation(db) != record.generation { interleaved = true }
                for path in recorded.removed {
                    if let blob = try statements.blob(of: path) { dereferenced.insert(blob) }
                    statements.deleteFile.bind(path, at: 1)
                    try statements.deleteFile.step()
                    statements.deleteFile.reset()
                    result.removed += 1
                }
                var counts = TermCounts()
                try collect(dereferenced, statements, &counts)
                try counts.apply(statements)
                record.generation = try bumpGeneration(db)
            }
            if try rebuildIfStale(db) {
                // Every file is read again, into an index with no stale terms.
                let rebuilt = try refreshOnce(listed, nil)
                return Refresh(
                    read: result.read + rebuilt.read, indexed: result.indexed + rebuilt.indexed,
                    removed: result.removed, invalidUTF8: rebuilt.invalidUTF8)
            }
        }
        if changed.count >= optimizeAfter || result.indexed >= optimizeAfter {
            try db.transaction(writing: true) { () throws(SQLiteFailure) in
                if result.indexed >= optimizeAfter { try db.execute("INSERT INTO texts(texts) VALUES('optimize')") }
                try setMerging(bulk: false, db)
            }
            try giveBackFreePages(db, atLeast: 0)
            try db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        } else if !changed.isEmpty || !recorded.removed.isEmpty {
            // FTS5 merges segments as texts come (4 at a time): their pages, once free, go back
            // when they are an eighth of the file.
            try giveBackFreePages(db, atLeast: (try db.integer("PRAGMA page_count") ?? 0) / 8)
        }
        if !interleaved {
            StampFile.write(record, to: stampPath)
            current = (listed, record)
        }
        result.invalidUTF8 = invalidFiles(listed, record)
        isRefreshed = true
        return result
    }

    /// The recorded stamps and texts of `files`, when the listing is not the recorded one (a
    /// file added, removed or renamed) or the side file is stale: matched by path against the
    /// side file's paths (`side`, of the database's generation), else against the `files` table.
    private func recordedState(
        of files: [String], side: StampRecord?, _ db: SQLiteConnection
    ) throws(SQLiteFailure) -> Recorded {
        // A stamp no file can have: a path not recorded is read.
        let never = FileStamp.unreadable.unsettled
        var recorded = Recorded(
            stamps: Array(repeating: never, count: files.count),
            docids: Array(repeating: StampRecord.noText, count: files.count), removed: [], order: nil)
        let listed = ListedPaths(files)
        if let side, side.hasPaths, !listed.isAmbiguous {
            for e in side.stamps.indices {
                side.path(e).withUnsafeBytes { bytes in
                    if let k = listed.position(of: bytes) {
                        recorded.stamps[k] = side.stamps[e]
                        recorded.docids[k] = side.docids[e]
                    } else {
                        recorded.removed.append(String(decoding: bytes, as: UTF8.self))
                    }
                }
            }
            return recorded
        }
        let rows = try db.prepare("SELECT path, device, inode, size, mtime_ns, ctime_ns, docid FROM files")
        let byPath = listed.isAmbiguous ? Dictionary(files.enumerated().map { ($1, $0) }) { first, _ in first } : [:]
        while try rows.step() {
            let bytes = rows.textBytes(0)
            let k = listed.isAmbiguous ? byPath[String(decoding: bytes, as: UTF8.self)] : listed.position(of: bytes)
            guard let k else {
                recorded.removed.append(String(decoding: bytes, as: UTF8.self))
                continue
            }
            recorded.stamps[k] = FileStamp(
                device: rows.int64(1), inode: rows.int64(2), size: rows.int64(3),
                modifiedNanoseconds: rows.int64(4), changedNanoseconds: rows.int64(5))
            recorded.docids[k] = rows.int64(6)
        }
        if listed.isAmbiguous {
            // The same path listed twice: every position of it gets the row's record.
            for (k, path) in files.enumerated() where byPath[path] != k {
                if let first = byPath[path] {
                    recorded.stamps[k] = recorded.stamps[first]
                    recorded.docids[k] = recorded.docids[first]
                }
            }
        }
        return recorded
    }

    /// Records `version` as the content of `path`: reuses the text of its blob when the blob is
    /// indexed, else adds it. Returns the file's text id (`StampRecord`'s encoding) and whether
    /// a text was added; the blob the path had before goes to `dereferenced` when it differs.
    private func store(
        _ version: inout FileVersion, as path: String, _ s: Statements, _ dereferenced: inout Set<[UInt8]>,
        _ counts: inout TermCounts
    ) throws(SQLiteFailure) -> (docid: Int64, added: Bool) {
        let previous = try s.blob(of: path)
        if let previous, previous != version.blob { dereferenced.insert(previous) }
        var docid = StampRecord.noText
        var added = false
        if let blob = version.blob {
            s.findBlob.bind(blob: blob, at: 1)
            if try s.findBlob.step() {
                let (found, valid, terms, live) = (
                    s.findBlob.int64(0), s.findBlob.int64(1) != 0, s.findBlob.int64(2), s.findBlob.int64(3) != 0
                )
                s.findBlob.reset()
                docid = valid ? found : StampRecord.invalidUTF8
                if valid && !live {
                    // A content no file had any more, back (a file changed back): its terms
                    // are in the index still.
                    try s.setLive(found, true)
                    counts.live += terms
                    counts.stale -= terms
                }
            } else {
                s.findBlob.reset()
                let terms = version.indexTerms()
                if let terms, terms.count < 0 {
                    // Its terms could not be made (no memory): not recorded, always a candidate.
                    version.terms = nil
                    version.bytes = nil
                    return (StampRecord.noText, false)
                }
                s.insertBlob.bind(blob: blob, at: 1)
                s.insertBlob.bind(version.isValidUTF8 ? 1 : 0, at: 2)
                s.insertBlob.bind(Int64(terms?.count ?? 0), at: 3)
                try s.insertBlob.step()
                s.insertBlob.reset()
                let rowid = sqlite3_last_insert_rowid(s.db.handle)
                if let terms {
                    s.insertText.bind(rowid, at: 1)
                    s.insertText.bind(terms.text, at: 2)
                    try s.insertText.step()
                    s.insertText.reset()
                    counts.live += Int64(terms.count)
                    docid = rowid
                    added = true
                } else {
                    docid = StampRecord.invalidUTF8
                }
            }
            version.terms = nil
            version.bytes = nil
        }
        let stamp = version.stamp
        let upsert = s.upsertFile
        upsert.bind(path, at: 1)
        upsert.bind(stamp.device, at: 2)
        upsert.bind(stamp.inode, at: 3)
        upsert.bind(stamp.size, at: 4)
        upsert.bind(stamp.modifiedNanoseconds, at: 5)
        upsert.bind(stamp.changedNanoseconds, at: 6)
        if let blob = version.blob { upsert.bind(blob: blob, at: 7) } else { upsert.bindNull(at: 7) }
        upsert.bind(docid, at: 8)
        try upsert.step()
        upsert.reset()
        return (docid, added)
    }

    /// Marks the blobs of `blobs` that no file refers to any more as no file's (`live = 0`):
    /// their terms stay in the index (SQLite 3.40's contentless FTS5 table deletes a row only
    /// when given its terms again, which are not kept), matched by no file, and counted as stale
    /// until a rebuild (`rebuildIfStale`) drops them. A blob that is not UTF-8 has no terms, and
    /// its row is deleted.
    private func collect(_ blobs: Set<[UInt8]>, _ s: Statements, _ counts: inout TermCounts) throws(SQLiteFailure) {
        for blob in blobs {
            s.blobInUse.bind(blob: blob, at: 1)
            let used = try s.blobInUse.step()
            s.blobInUse.reset()
            if used { continue }
            s.findBlob.bind(blob: blob, at: 1)
            guard try s.findBlob.step() else {
                s.findBlob.reset()
                continue
            }
            let (docid, valid, terms, live) = (
                s.findBlob.int64(0), s.findBlob.int64(1) != 0, s.findBlob.int64(2), s.findBlob.int64(3) != 0
            )
            s.findBlob.reset()
            if !valid {
                s.deleteBlob.bind(docid, at: 1)
                try s.deleteBlob.step()
                s.deleteBlob.reset()
            } else if live {
                try s.setLive(docid, false)
                counts.live -= terms
                counts.stale += terms
            }
        }
    }

    /// When the index's stale terms (of contents no file has) are more than half as many as
    /// its live ones, and at least `rebuildAfterStaleTerms`: empties the index in one transaction, every file recorded
    /// as not read (blob NULL, text id -1: always a candidate for a process that reads the rows
    /// meanwhile; a stamp no file has: read by the next refresh), and returns true.
    private func rebuildIfStale(_ db: SQLiteConnection) throws(SQLiteFailure) -> Bool {
        let live = try db.integer("SELECT value FROM meta WHERE key = 'live_terms'") ?? 0
        let stale = try db.integer("SELECT value FROM meta WHERE key = 'stale_terms'") ?? 0
        guard stale * 2 > live, stale >= rebuildAfterStaleTerms else { return false }
        try db.transaction(writing: true) { () throws(SQLiteFailure) in
            try db.execute(
                """
                INSERT INTO texts(texts) VALUES ('delete-all');
                DELETE FROM blobs;
                DELETE FROM sqlite_sequence WHERE name = 'blobs';
                UPDATE files SET blob = NULL, docid = -1, size = -2;
                UPDATE meta SET value = 0 WHERE key IN ('live_terms', 'stale_terms');
                """)
            _ = try bumpGeneration(db)
        }
        try db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return true
    }

    /// Gives the database's free pages back to the file system when there are more than
    /// `atLeast` (`PRAGMA incremental_vacuum`: pages from the file's end moved into the free
    /// ones, the file cut; the database file itself shrinks at the next checkpoint). After a
    /// first build, FTS5's `optimize` had left the pages of every segment it merged free: 24 MB
    /// of the benchmark's 156 MB file.
    private func giveBackFreePages(_ db: SQLiteConnection, atLeast: Int64) throws(SQLiteFailure) {
        guard try db.integer("PRAGMA freelist_count") ?? 0 > atLeast else { return }
        // The same rows after it: the generation stays (the side file of stamps still holds).
        try db.transaction(writing: true) { () throws(SQLiteFailure) in try db.execute("PRAGMA incremental_vacuum") }
    }

    /// FTS5's merging of its segments (inside a write transaction): none while a refresh adds
    /// many texts (`bulk`: its segments are merged once, by `optimize`, at its end; merging as
    /// it went was half the time of a first build), FTS5's defaults otherwise (merged 4 at a
    /// time), set back when a bulk refresh that was interrupted left them off.
    private func setMerging(bulk: Bool, _ db: SQLiteConnection) throws(SQLiteFailure) {
        let (automerge, crisismerge) = bulk ? (0, 64) : (4, 16)
        if !bulk, try db.integer("SELECT v FROM texts_config WHERE k = 'automerge'") ?? 4 == 4 { return }
        try db.execute(
            """
            INSERT INTO texts(texts, rank) VALUES ('automerge', \(automerge));
            INSERT INTO texts(texts, rank) VALUES ('crisismerge', \(crisismerge));
            """)
    }

    /// Changes to the counts of terms (postings) in the index kept in `meta`: `live`, of
    /// contents some file has; `stale`, of contents no file has any more.
    struct TermCounts {
        var live: Int64 = 0
        var stale: Int64 = 0

        /// Adds the changes to `meta` (inside the transaction that made them).
        func apply(_ s: Statements) throws(SQLiteFailure) {
            for (key, change) in [("live_terms", live), ("stale_terms", stale)] where change != 0 {
                s.addToMeta.bind(change, at: 1)
                s.addToMeta.bind(key, at: 2)
                try s.addToMeta.step()
                s.addToMeta.reset()
            }
        }
    }

    /// The statements a refresh runs once per changed file, compiled once.
    struct Statements {
        let db: SQLiteConnection
        let fileBlob, findBlob, insertBlob, insertText, upsertFile, deleteFile, blobInUse, updateLive,
            deleteBlob, addToMeta: SQLiteStatement

        init(_ db: SQLiteConnection) throws(SQLiteFailure) {
            self.db = db
            fileBlob = try db.prepare("SELECT blob FROM files WHERE path = ?1")
            findBlob = try db.prepare("SELECT docid, valid, terms, live FROM blobs WHERE blob = ?1")
            insertBlob = try db.prepare("INSERT INTO blobs(blob, valid, terms, live) VALUES (?1, ?2, ?3, 1)")
            insertText = try db.prepare("INSERT INTO texts(rowid, body) VALUES (?1, ?2)")
            upsertFile = try db.prepare(
                "INSERT OR REPLACE INTO files(path, device, inode, size, mtime_ns, ctime_ns, blob, docid)"
                    + " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)")
            deleteFile = try db.prepare("DELETE FROM files WHERE path = ?1")
            blobInUse = try db.prepare("SELECT 1 FROM files WHERE blob = ?1 LIMIT 1")
            updateLive = try db.prepare("UPDATE blobs SET live = ?2 WHERE docid = ?1")
            deleteBlob = try db.prepare("DELETE FROM blobs WHERE docid = ?1")
            addToMeta = try db.prepare("UPDATE meta SET value = value + ?1 WHERE key = ?2")
        }

        /// Marks the blob `docid` as some file's (`live`) or no file's.
        func setLive(_ docid: Int64, _ live: Bool) throws(SQLiteFailure) {
            updateLive.bind(docid, at: 1)
            updateLive.bind(live ? 1 : 0, at: 2)
            try updateLive.step()
            updateLive.reset()
        }

        /// The blob id recorded for `path`, nil when none (not recorded, or unreadable).
        func blob(of path: String) throws(SQLiteFailure) -> [UInt8]? {
            fileBlob.bind(path, at: 1)
            defer { fileBlob.reset() }
            return try fileBlob.step() && !fileBlob.isNull(0) ? fileBlob.blob(0) : nil
        }
    }

    /// Every blob id indexed, so the reading threads skip computing texts that are indexed.
    private func knownBlobs(_ db: SQLiteConnection) throws(SQLiteFailure) -> Set<[UInt8]> {
        let rows = try db.prepare("SELECT blob FROM blobs")
        var known = Set<[UInt8]>()
        while try rows.step() { known.insert(rows.blob(0)) }
        return known
    }

    /// The changed files in batches of at most 1,000 files or 16 MB (by their stamps' sizes):
    /// one transaction each.
    private static func batches(of changed: [Int], stamps: [FileStamp]) -> [[Int]] {
        var batches: [[Int]] = []
        var batch: [Int] = []
        var bytes: Int64 = 0
        for k in changed {
            batch.append(k)
            bytes += max(0, stamps[k].size)
            if batch.count >= 1_000 || bytes >= 16 << 20 {
                batches.append(batch)
                batch = []
                bytes = 0
            }
        }
        if !batch.isEmpty { batches.append(batch) }
        return batches
    }

    /// Versions read by a background thread, handed over when its group is done.
    private final class VersionBox: @unchecked Sendable {
        var versions: [FileVersion] = []
    }

    /// Starts reading the files at `batch` on another thread, while this one writes the batch
    /// before: reading, hashing and case folding overlap with SQLite's indexing.
    private static func read(
        _ batch: [Int], of files: [String], in folder: Int32, racyMargin: Int64, known: Set<[UInt8]>
    ) -> (group: DispatchGroup, box: VersionBox) {
        let box = VersionBox()
        let group = DispatchGroup()
        let paths = batch.map { files[$0] }
        DispatchQueue.global().async(group: group) {
            box.versions = paths.map { FileVersion.read($0, in: folder, racyMargin: racyMargin, knownBlobs: known) }
        }
        return (group, box)
    }

    /// The positions of `files` in sorted order.
    static func sortedOrder(_ files: [String]) -> [UInt32] {
        (0..<files.count).sorted { files[$0] < files[$1] }.map { UInt32($0) }
    }

    /// The files of `record` that are not UTF-8, sorted.
    private func invalidFiles(_ files: ListedFiles, _ record: StampRecord) -> [String] {
        record.order.compactMap { k in record.docids[Int(k)] == StampRecord.invalidUTF8 ? files.path(Int(k)) : nil }
    }

    // MARK: - The watcher

    /// A watcher's answer, with the records it is about.
    struct Vouched {
        var answer: SearchWatcher.Answer
        /// The record of stamps the answer's list of changed paths is relative to (nil when
        /// the answer is "everything", or there is no such record).
        var side: StampRecord?
        /// The watch record read before asking.
        var previous: WatchRecord?
    }

    /// Asks the watcher (starting one when none runs, unless not `starting`) what changed since
    /// the generation the index's record was brought up to date against. Must come before the
    /// files are listed and stamped: only a change after the answer can be missing from it
    /// (Index/README.md, "The watcher"). Nil without a watcher, or when none answers.
    func askWatcher(starting: Bool = true) -> Vouched? {
        guard let watcher else { return nil }
        let previous = WatchRecord.read(watchRecordPath)
        Trace.mark("search: watch record read")
        var since: (epoch: UInt64, generation: UInt64) = (0, 0)
        var side: StampRecord?
        if let previous, let db = try? database(), let now = try? generation(db), now == previous.indexGeneration,
            Trace.enabled ? { Trace.mark("search: index generation read"); return true }() : true,
            let record = StampFile.read(stampPath, paths: false), record.generation == now
        {
            since = (previous.epoch, previous.generation)
            side = record
        }
        Trace.mark("search: records read")
        let asking = starting ? watcher : SearchWatcher(command: [])
        let asked = asking.ask(root: realRoot, indexPath: path, epoch: since.epoch, generation: since.generation)
        guard let answer = asked else { return nil }
        Trace.mark("search: watcher answered (\(answer.changed.map { "\($0.count) changed" } ?? "everything"))")
        let listed = answer.changed != nil && answer.epoch == since.epoch
        return Vouched(answer: answer, side: listed ? side : nil, previous: previous)
    }

    /// The stamps of `files` (`list`'s paths) for a refresh after the watcher's answer: with a
    /// list of changed paths and the record it is relative to (same files in the same order),
    /// the recorded stamps with fresh ones for the changed files, for those recorded unsettled
    /// or unreadable, and for the rooms' volumes (`volumes/`: the watcher does not watch them;
    /// they are few, each up to a few megabytes); else fresh stamps of every file. Returns the
    /// record the stamps are relative to, for `refresh(_:stamps:vouched:)`.
    func stamps(of list: FileList, _ files: ListedFiles, _ vouched: Vouched?) -> ([FileStamp], StampRecord?) {
        if let vouched, let side = vouched.side, let changed = vouched.answer.changed,
            side.stamps.count == files.count, side.listHash == list.listHash
        {
            var stamps = side.stamps
            var positions: [Int32] = []
            for k in stamps.indices where stamps[k].size < 0 { positions.append(Int32(k)) }
            for path in changed {
                if let k = list.position(of: path) { positions.append(Int32(k)) }
            }
            for k in list.positions(under: VaultPath.volumes) { positions.append(Int32(k)) }
            for (k, stamp) in zip(positions, list.stamps(at: positions)) { stamps[Int(k)] = stamp }
            Trace.mark("search: \(positions.count) files stamped")
            return (stamps, side)
        }
        let stamps = list.stamps(threads: stampThreads)
        Trace.mark("search: every file stamped")
        return (stamps, nil)
    }

    /// Records the watcher's generation the refresh just made was brought up to date against,
    /// when its record is the database's (no other process wrote meanwhile).
    func recordWatch(_ vouched: Vouched?) {
        guard let vouched, isRefreshed, let current else { return }
        let record = WatchRecord(
            epoch: vouched.answer.epoch, generation: vouched.answer.generation,
            indexGeneration: current.record.generation)
        if record != vouched.previous { record.write(to: watchRecordPath) }
    }

    // MARK: - Queries

    /// The indexed files whose text contains every needle (needles are already
    /// `SearchText.key`-ed with folding: true), sorted; nil when the index cannot narrow: no
    /// needle of 3 characters (Unicode scalars) or more or of one or two CJK ones, or no finished
    /// `refresh` by this object since it was opened or its database replaced.
    ///
    /// Needles of one or two characters none of which is CJK are left out (no term has them);
    /// the others still narrow, and the answer is a superset of the files that contain them all.
    /// Files recorded as not UTF-8 are never candidates (`invalidUTF8Files`); listed files the
    /// index could not read always are. A damaged database is deleted (the next refresh builds
    /// it again) and the answer is nil.
    ///
    /// `asWritten`: needles the files must contain as written, case kept (`SearchText.key` with
    /// folding: false; a search that keeps case): their case-kept terms (`FileVersion.caseTerms`)
    /// are looked up too, so a file that has `swift` only is no candidate of `Swift`.
    public func candidates(
        containingAll needles: [String], asWritten: [String] = []
    ) throws(VaultError) -> [String]? {
        guard isRefreshed, let query = Self.matchQuery(needles, asWritten: asWritten) else { return nil }
        do throws(SQLiteFailure) {
            let db = try database()
            return try db.transaction(writing: false) { () throws(SQLiteFailure) -> [String] in
                if let current, try generation(db) == current.record.generation {
                    return try matches(query, db, current.files.paths, current.record)
                }
                return try matches(query, db)
            }
        } catch where error.isDamage {
            try repair()
            return nil
        } catch {
            throw failure(error, "read")
        }
    }

    /// The positions in `files` (the files of the last refresh, in its order) of the candidates
    /// and of the files recorded as not UTF-8 (the scan reports them), ascending; nil when the
    /// index cannot narrow (as `candidates`).
    func candidatePositions(
        containingAll needles: [String], asWritten: [String] = [], of files: ListedFiles
    ) throws(VaultError) -> [Int]? {
        guard isRefreshed, let query = Self.matchQuery(needles, asWritten: asWritten) else { return nil }
        if let current, current.files === files {
            do throws(SQLiteFailure) {
                let db = try database()
                let matched = try db.transaction(writing: false) { () throws(SQLiteFailure) -> Set<Int64>? in
                    guard try generation(db) == current.record.generation else { return nil }
                    return try matchedTexts(query, db)
                }
                if let matched {
                    // A table by text id (row ids are small: one per text) instead of 50,000
                    // hash lookups.
                    let docids = current.record.docids
                    let largest = docids.max() ?? 0
                    var isMatched = [Bool](repeating: false, count: Int(max(0, largest)) + 1)
                    for docid in matched where docid > 0 && docid <= largest { isMatched[Int(docid)] = true }
                    return docids.indices.filter { k in
                        let docid = docids[k]
                        return docid <= 0 || isMatched[Int(docid)]
                    }
                }
            } catch where error.isDamage {
                try repair()
                return nil
            } catch {
                throw failure(error, "read")
            }
        }
        // Another process wrote since: the database's rows, by path.
        guard let found = try candidates(containingAll: needles, asWritten: asWritten) else { return nil }
        let wanted = Set(found + invalidUTF8Files)
        let paths = files.paths
        return paths.indices.filter { wanted.contains(paths[$0]) }
    }

    /// The FTS5 query of needles: every term of each (`FileVersion.terms`), all of them (`AND`);
    /// nil when no needle has a term (one or two Unicode scalars, none CJK: the index cannot narrow).
    /// At most `queryTerms` terms a needle: fewer terms only add candidates.
    /// The needles `asWritten` add their case-kept terms (at most `queryTerms` more each); alone
    /// they narrow nothing (a needle of theirs is among `needles`, folded).
    static func matchQuery(_ needles: [String], asWritten: [String] = []) -> String? {
        var words: [Substring] = []
        var seen = Set<Substring>()
        func add(_ terms: FileVersion.Terms) {
            for word in terms.text.split(separator: " ").prefix(queryTerms) where seen.insert(word).inserted {
                words.append(word)
            }
        }
        for needle in needles { add(FileVersion.terms(of: needle, ofQuery: true)) }
        guard !words.isEmpty else { return nil }
        for needle in asWritten { add(FileVersion.caseTerms(of: needle)) }
        return words.joined(separator: " AND ")
    }

    /// The most terms of one needle a query looks up (a long needle's first ones).
    static let queryTerms = 32

    /// The text ids FTS5 matches.
    private func matchedTexts(_ query: String, _ db: SQLiteConnection) throws(SQLiteFailure) -> Set<Int64> {
        let rows = try db.prepare("SELECT rowid FROM texts WHERE texts MATCH ?1")
        rows.bind(query, at: 1)
        var matched = Set<Int64>()
        while try rows.step() { matched.insert(rows.int64(0)) }
        return matched
    }

    /// The candidates through the record of the last refresh: the text ids FTS5 matches, then
    /// the listed files with those ids, in the recorded sorted order.
    private func matches(
        _ query: String, _ db: SQLiteConnection, _ files: [String], _ record: StampRecord
    ) throws(SQLiteFailure) -> [String] {
        let rows = try db.prepare("SELECT rowid FROM texts WHERE texts MATCH ?1")
        rows.bind(query, at: 1)
        var matched = Set<Int64>()
        while try rows.step() { matched.insert(rows.int64(0)) }
        return record.order.compactMap { k in
            let docid = record.docids[Int(k)]
            return docid == StampRecord.noText || (docid > 0 && matched.contains(docid)) ? files[Int(k)] : nil
        }
    }

    /// The candidates from the database's rows alone (no refresh by this object, or another
    /// process wrote since).
    private func matches(_ query: String, _ db: SQLiteConnection) throws(SQLiteFailure) -> [String] {
        let rows = try db.prepare(
            """
            SELECT f.path FROM texts t JOIN files f ON f.docid = t.rowid WHERE texts MATCH ?1
            UNION SELECT path FROM files WHERE docid = -1
            """)
        rows.bind(query, at: 1)
        var paths: [String] = []
        while try rows.step() { paths.append(rows.text(0)) }
        return paths.sorted()
    }

    /// Files recorded as not valid UTF-8 (the scan reports them; with the index they are
    /// reported too), sorted. Empty when the database cannot be read.
    public var invalidUTF8Files: [String] {
        if let current { return invalidFiles(current.files, current.record) }
        guard let db = connection,
            let rows = try? db.prepare("SELECT path FROM files WHERE docid = 0")
        else { return [] }
        var paths: [String] = []
        while (try? rows.step()) == true { paths.append(rows.text(0)) }
        return paths.sorted()
    }

    /// The database's size in bytes, with its write-ahead log and the side file (for the
    /// benchmark's report).
    public var sizeInBytes: Int {
        [path, path + "-wal", path + "-shm", stampPath, listingPath].reduce(0) { total, file in
            var st = stat()
            return total + (stat(file, &st) == 0 ? Int(st.st_size) : 0)
        }
    }

    // MARK: - The database

    /// The open database, opened again when its file was deleted or replaced since it was
    /// opened (a write to the old file would be lost with it).
    private func database() throws(SQLiteFailure) -> SQLiteConnection {
        if let connection, let openedFile, Self.fileID(path) ?? (0, 0) == openedFile { return connection }
        current = nil
        connection = nil
        let opened = try Self.openDatabase(path)
        connection = opened
        openedFile = Self.fileID(path)
        return opened
    }

    /// The device and inode of the file at `path`.
    private static func fileID(_ path: String) -> (device: UInt64, inode: UInt64)? {
        var st = stat()
        return stat(path, &st) == 0 ? (UInt64(st.st_dev), UInt64(st.st_ino)) : nil
    }

    /// Opens the database, deleting and creating it again when it is damaged or of another
    /// schema.
    private func openRepairing() throws(VaultError) -> SQLiteConnection {
        do throws(SQLiteFailure) {
            return try Self.openDatabase(path)
        } catch where error.isDamage {
            Self.removeDatabase(at: path)
            do throws(SQLiteFailure) {
                return try Self.openDatabase(path)
            } catch {
                throw failure(error, "create")
            }
        } catch {
            throw failure(error, "open")
        }
    }

    /// Replaces a damaged database with a new, empty one.
    private func repair() throws(VaultError) {
        current = nil
        isRefreshed = false
        connection = nil
        Self.removeDatabase(at: path)
        connection = try openRepairing()
        openedFile = Self.fileID(path)
    }

    /// Opens the database at `path`, creating the schema in a new one, and checks it is the
    /// index of this schema version (a `SQLiteFailure` that `isDamage` when it is not).
    ///
    /// Two processes that create the database at once can find SQLite refusing one of them at
    /// once with `SQLITE_BUSY` (switching to WAL, it does not wait where waiting could deadlock):
    /// that one tries again, for as long as a busy database is waited for.
    static func openDatabase(_ path: String) throws(SQLiteFailure) -> SQLiteConnection {
        let deadline = FileVersion.realTimeNanoseconds() + Int64(busyMilliseconds) * 1_000_000
        while true {
            do throws(SQLiteFailure) {
                return try openDatabaseOnce(path)
            } catch where error.code & 0xFF == SQLITE_BUSY && FileVersion.realTimeNanoseconds() < deadline {
                usleep(20_000)
            }
        }
    }

    private static func openDatabaseOnce(_ path: String) throws(SQLiteFailure) -> SQLiteConnection {
        let checksums = ChecksumVFS.isRegistered
        let db = try SQLiteConnection(
            path: path, busyMilliseconds: busyMilliseconds, vfs: checksums ? ChecksumVFS.name : nil)
        var version = try db.integer("PRAGMA user_version") ?? 0
        if version == 0 {
            // A new file: 8 reserved bytes a page for the checksums, before its first page.
            if checksums, try db.integer("PRAGMA page_count") == 0 { _ = db.reservedBytes(setting: 8) }
            // Pages freed (FTS5's merges leave the old segments' pages) can be given back to the
            // file system (`giveBackFreePages`); only a database with no table yet can take it.
            if try db.integer("PRAGMA page_count") == 0 { try db.execute("PRAGMA auto_vacuum = INCREMENTAL") }
            try db.execute("PRAGMA journal_mode = WAL")
            try db.transaction(writing: true) { () throws(SQLiteFailure) in
                version = try db.integer("PRAGMA user_version") ?? 0
                guard version == 0 else { return }
                guard try db.integer("SELECT count(*) FROM sqlite_schema") == 0 else {
                    throw SQLiteFailure(code: SQLiteFailure.wrongSchema, message: "not a search index")
                }
                try db.execute(schema)
                version = schemaVersion
            }
        }
        guard version == schemaVersion else {
            throw SQLiteFailure(code: SQLiteFailure.wrongSchema, message: "schema version \(version)")
        }
        guard !checksums || db.reservedBytes() == 8 else {
            throw SQLiteFailure(code: SQLiteFailure.wrongSchema, message: "the index's pages have no checksums")
        }
        let tables = try db.integer(
            "SELECT count(*) FROM sqlite_schema WHERE name IN ('meta', 'files', 'blobs', 'texts')")
        guard tables == 4,
            try db.integer(
                "SELECT count(*) FROM meta WHERE key IN ('generation', 'live_terms', 'stale_terms')") == 3
        else {
            throw SQLiteFailure(code: SQLiteFailure.wrongSchema, message: "the index's tables are missing")
        }
        try db.execute("PRAGMA synchronous = NORMAL; PRAGMA journal_size_limit = 67108864")
        return db
    }

    /// The tables, created in one transaction with the schema version.
    ///
    /// - `files`: every listed file, its stamp, its blob id (NULL when it could not be read),
    ///   and its text's id (`docid`, as `StampRecord` encodes it: the blob's, 0 when it is not
    ///   UTF-8, -1 when it could not be read), so that neither a refresh nor a query joins.
    /// - `blobs`: every distinct content of a listed file, and those no file has any more whose
    ///   terms are still in `texts` (`live` 0); `docid` is its row id in `texts` (never reused:
    ///   a stale row of `texts` must not be taken for another content's), `valid` 0 when it is
    ///   not UTF-8 (then it has no terms), `terms` how many distinct terms it has.
    /// - `texts`: the index terms of each content (`FileVersion.terms`: the distinct trigrams of
    ///   its `SearchText.key`, hashed to six-letter words), FTS5 with the `ascii` tokenizer,
    ///   contentless (`content = ''`: the words are not stored, only the index) and without
    ///   positions (`detail = none`): a needle is looked up as all of its terms (`AND`).
    /// - `meta`: `generation`, a random number each write transaction changes, which the side
    ///   file of stamps is checked against; `live_terms` and `stale_terms`, the terms in `texts`
    ///   of contents some file has and of contents none has (`rebuildIfStale`).
    static let schema = """
        CREATE TABLE meta(key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
        CREATE TABLE files(
            path TEXT PRIMARY KEY, device INTEGER NOT NULL, inode INTEGER NOT NULL, size INTEGER NOT NULL,
            mtime_ns INTEGER NOT NULL, ctime_ns INTEGER NOT NULL, blob BLOB, docid INTEGER NOT NULL) WITHOUT ROWID;
        CREATE INDEX files_by_blob ON files(blob);
        CREATE INDEX files_by_docid ON files(docid);
        CREATE TABLE blobs(
            docid INTEGER PRIMARY KEY AUTOINCREMENT, blob BLOB NOT NULL UNIQUE, valid INTEGER NOT NULL,
            terms INTEGER NOT NULL, live INTEGER NOT NULL);
        CREATE VIRTUAL TABLE texts USING fts5(body, content = '', detail = none, tokenize = 'ascii');
        INSERT INTO texts(texts, rank) VALUES ('hashsize', \(hashBytes));
        INSERT INTO texts(texts, rank) VALUES ('pgsz', \(leafBytes));
        INSERT INTO meta(key, value) VALUES ('generation', 0), ('live_terms', 0), ('stale_terms', 0);
        PRAGMA user_version = \(schemaVersion);
        """

    /// The database's generation.
    private func generation(_ db: SQLiteConnection) throws(SQLiteFailure) -> Int64 {
        try db.integer("SELECT value FROM meta WHERE key = 'generation'") ?? 0
    }

    /// Gives the database a new generation (inside a write transaction) and returns it.
    private func bumpGeneration(_ db: SQLiteConnection) throws(SQLiteFailure) -> Int64 {
        let next = Int64.random(in: Int64.min...Int64.max)
        let update = try db.prepare("UPDATE meta SET value = ?1 WHERE key = 'generation'")
        update.bind(next, at: 1)
        try update.step()
        return next
    }

    /// Deletes the database at `path` with its log, shared memory and side file.
    static func removeDatabase(at path: String) {
        for file in [
            path, path + "-wal", path + "-shm", path + "-journal", path + ".stamps", path + ".listing", path + ".watch",
        ] {
            unlink(file)
        }
    }

    /// `failure` as the error the person at the terminal reads.
    private func failure(_ failure: SQLiteFailure, _ operation: String) -> VaultError {
        .io(path: path, operation: "\(operation) the search index", reason: failure.message)
    }

    // MARK: - Where the index lives

    /// Where searches of the vault at `vaultRoot` without an index keep their listing of its
    /// files (`VaultSearch.listingCache`): the default index's (`listingPath`), its folder
    /// created when missing; nil when it cannot be made or would be inside the vault.
    public static func listingPath(forVaultAt vaultRoot: String, cacheHome: String) -> String? {
        guard let real = realPath(vaultRoot) else { return nil }
        let path = defaultPath(forVaultAt: real, cacheHome: cacheHome) + ".listing"
        let folder = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        if isInside(folder, real) { return nil }
        do { try makeFolders(upTo: folder) } catch { return nil }
        return path
    }

    /// Whether `path` (which may not exist yet) is `realRoot` or inside it.
    static func isInside(_ path: String, _ realRoot: String) -> Bool {
        let resolved = resolvedPath(path)
        return resolved == realRoot || resolved.hasPrefix(realRoot == "/" ? "/" : realRoot + "/")
    }

    /// Whether the vault at `vaultRoot` has an index at the default path (then searches use it).
    public static func exists(forVaultAt vaultRoot: String, cacheHome: String) -> Bool {
        guard let real = realPath(vaultRoot) else { return false }
        return access(defaultPath(forVaultAt: real, cacheHome: cacheHome), F_OK) == 0
    }

    /// `<cacheHome>/vault/search/<hex SHA-1 of realRoot>.sqlite`, `cacheHome` being the front
    /// end's `ProcessSettings.cacheHome` (`$XDG_CACHE_HOME`, else `~/.cache`).
    public static func defaultPath(forVaultAt realRoot: String, cacheHome: String) -> String {
        let cache = cacheHome
        let digest = FileVersion.sha1(Array(realRoot.utf8))
        let hex = digest.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }
        return cache + "/vault/search/" + hex.joined() + ".sqlite"
    }

    /// The real path of `path` (symbolic links and `..` resolved), nil when it does not exist.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// `path` with its longest existing ancestor resolved (`realPath`), the rest as written:
    /// where a file that may not exist yet would be.
    static func resolvedPath(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : (realPath(".") ?? "") + "/" + path
        var head = absolute
        var tail: [Substring] = []
        while !head.isEmpty {
            if let real = realPath(head) {
                return ([real == "/" ? "" : real] + tail.reversed().map(String.init)).joined(separator: "/")
            }
            guard let slash = head.lastIndex(of: "/") else { break }
            tail.append(head[head.index(after: slash)...])
            head = String(head[..<slash])
        }
        return "/" + tail.reversed().joined(separator: "/")
    }

    /// Creates `folder` and the folders above it that are missing (owner-only, as a cache of
    /// private notes should be).
    static func makeFolders(upTo folder: String) throws(VaultError) {
        guard !folder.isEmpty, realPath(folder) == nil else { return }
        if let slash = folder.lastIndex(of: "/") { try makeFolders(upTo: String(folder[..<slash])) }
        if mkdir(folder, 0o700) != 0 && errno != EEXIST {
            throw .io(path: folder, operation: "create the search index's folder", reason: errorText())
        }
    }

    static func errorText() -> String { String(cString: strerror(errno)) }
}
