import CVaultScan
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// What `vault rooms`, `vault diary list` and `vault check` learnt about each file, kept
/// between runs so a listing reads only the files that changed since the last one: each
/// file's summary with the stamp (device, inode, size, modification and change times) it had
/// when it was read.
///
/// Exact, never trusted blindly: a summary is used only while its file has the same stamp,
/// which any write by any program changes (an edit in place keeps the inode but not the times;
/// a save by rename changes the inode). A stamp taken less than `racyWindow` seconds after the
/// file's last change is kept but never trusted (a second write within the same clock tick
/// could keep the times, as git's index knows), so such a file is read again next time. A
/// file's summary depends on its bytes only (and on `context`: the vault's zone for the
/// diary, the build of vault for `check`; it is in the cache's first line, and another one
/// voids the cache).
///
/// Kept outside the vault, in `$XDG_CACHE_HOME/vault/listing/<16 hex of the SHA-256 of the
/// vault's real path>.<kind>`, so sync tools never carry it to another machine. One line a
/// file: its stamp, whether it is settled, its path and the summary's fields, tab-separated,
/// with `\`, tab and line feed escaped; a field that is absent is `-`, present ones begin with
/// `+`. The lines not settled come first, then the others in the listing's order (`save`), so
/// a listing the watcher answered for prints them as they are (`KeptLines`). The last line is
/// `end` and the CRC-32C of every byte before it. A cache: lost, damaged (its checksum differs)
/// or of another version, the listing reads every file and writes a new one.
///
/// The file is mapped, not read: an entry is a range of it, its fields made into strings only
/// when used, so 20,000 entries cost no more allocations than the summaries made from them.
package struct ListingCache: Sendable {
    /// One file's line.
    package struct Entry: Sendable {
        package var stamp: FileIO.Stamp
        /// The stamp may be trusted (its file's last change was old enough when it was taken).
        package var settled: Bool
        /// Where its path and its fields are in `bytes` (a read entry), or its fields (a new one).
        var path: Range<Int>
        var fieldBytes: Range<Int>
        var made: (path: String, fields: [String?])?
    }

    /// 7: titles, previews and names are kept in NFC (`String.nfc`).
    package static let version = 7
    static let racyWindow = 2

    package let file: String?
    let context: String
    /// The cache file as read (mapped: a listing of 30,000 entries keeps ~15 MB of previews).
    let storage: MappedBytes
    var bytes: UnsafeBufferPointer<UInt8> { storage.buffer }
    private var read: [Entry] = []
    /// Whether `read` holds the lines (`loadEntries()`).
    private var loaded = false
    /// Where the first line after the two of the head begins, and where the last one ends (the
    /// checksum's line begins): 0 and 0 without a cache.
    var linesStart = 0
    var linesEnd = 0
    /// Inode → the first entry with it; `next` chains the others.
    private var firstByInode: [UInt64: Int32] = [:]
    private var next: [Int32] = []
    /// How many entries were read.
    package var count: Int { read.count }
    /// The watcher's point (`WorkTreeWatcher`) the entries were last brought up to date against:
    /// every file a watcher does not name as changed since then still has its entry's stamp.
    /// Nil: none (the entries were checked by their stamps alone).
    package private(set) var point: WatchPoint?

    /// The cache of `kind` (`rooms`, `diary`, `check`) for the vault at `root`, as last saved
    /// (empty when there is none, or it is not of this version and context).
    ///
    /// `lazily`: only its first lines are read (its point, and where its lines start); a listing
    /// then either walks its lines in place (`KeptLines`) or reads them all (`loadEntries()`).
    package init(
        root: String, kind: String, context: String, lazily: Bool = false,
        environment: [String: String]
    ) {
        self.context = context
        file = ListingCache.path(root: root, kind: kind, environment: environment)
        storage = file.flatMap { MappedBytes(file: $0) } ?? MappedBytes()
        guard let (point, start) = ListingCache.header(storage.buffer, context: context),
            let end = ListingCache.checkedEnd(storage)
        else {
            loaded = true
            return
        }
        self.point = point
        linesStart = start
        linesEnd = end
        if !lazily { loadEntries() }
    }

    /// Reads every line (once): the entries `count` and `entry(of:stamp:)` see.
    /// A damaged line voids the cache (no entries, no point).
    package mutating func loadEntries() {
        guard !loaded else { return }
        loaded = true
        guard let entries = ListingCache.lines(storage.buffer, from: linesStart, to: linesEnd) else {
            point = nil
            return
        }
        read = entries
    }

    /// Makes the entries findable by their file's inode (`entry(of:stamp:)`): done only when a
    /// file is to be looked up by its stamp (a listing the watcher answered for may look up none).
    package mutating func indexByInode() {
        guard next.count != read.count else { return }
        next = [Int32](repeating: -1, count: read.count)
        firstByInode.reserveCapacity(read.count)
        for (i, entry) in read.enumerated().reversed() {
            if let first = firstByInode[entry.stamp.inode] { next[i] = first }
            firstByInode[entry.stamp.inode] = Int32(i)
        }
    }

    /// Below this many files, reading them costs less than loading a vault's cache (20,000
    /// entries take about 15 ms): `vault check FILE…` of fewer files does without it.
    package static let worthLoading = 1_000

    /// A cache that holds nothing and saves nothing (no file).
    package static func none(context: String) -> ListingCache {
        ListingCache(root: "/", kind: "none", context: context, environment: [:])
    }

    /// This build of vault: its version and its executable's stamp, for a cache whose entries
    /// depend on the program's rules (`vault check`'s), so another build reads every file again.
    package static let programIdentity: String = {
        let stamp = FileIO.stamp(of: "/proc/self/exe")
        return VaultVersion.current + (stamp.map { " \($0.device):\($0.inode):\($0.size):\($0.modified.tv_sec)" } ?? "")
    }()

    static func path(root: String, kind: String, environment: [String: String]) -> String? {
        guard let cache = ProcessSettings.cacheFolder(environment) else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let real = realpath(root, &buffer).map { String(cString: $0) } ?? root
        return cache + "/vault/listing/" + SHA256.hex(Array(real.utf8)).prefix(16) + "." + kind
    }

    /// The entry kept for `path` while the file still has `stamp` (nil: read it). Needs
    /// `indexByInode()` first.
    package func entry(of path: String, stamp: FileIO.Stamp?) -> Entry? {
        guard let stamp, var i = firstByInode[stamp.inode] else { return nil }
        // Compared as kept: escaped (only a name with a backslash, tab or line feed changes).
        var path = path.utf8.contains { $0 == 92 || $0 == 9 || $0 == 10 } ? String(decoding: ListingCache.escape(path), as: UTF8.self) : path
        return path.withUTF8 { wanted in
            while i >= 0 {
                let entry = read[Int(i)]
                if entry.settled, entry.stamp == stamp, bytes[entry.path].elementsEqual(wanted) { return entry }
                i = next[Int(i)]
            }
            return nil
        }
    }

    /// The entries read whose path is not one of `paths`: kept as they are when only those paths
    /// were looked at (`vault check FILE…`), so the rest of the cache is not lost.
    package func entries(notIn paths: [String]) -> [Entry] {
        let named = Set(paths.map { ListingCache.escape($0) })
        return read.filter { !named.contains(Array(bytes[$0.path])) }
    }

    /// An entry for `fields` of `path`, read while the file had `stamp` (taken before the read;
    /// nil: no file there now).
    package static func entry(_ path: String, stamp: FileIO.Stamp?, fields: [String?], now: Int) -> Entry? {
        guard let stamp else { return nil }
        let settled = max(stamp.modified.tv_sec, stamp.changed.tv_sec) < now - ListingCache.racyWindow
        return Entry(stamp: stamp, settled: settled, path: 0..<0, fieldBytes: 0..<0, made: (path, fields))
    }

    /// Writes `entries` (read ones and new ones) as the cache (atomically; a failure only costs
    /// the next listing time): those that are not settled first, then the others in the order
    /// given (a listing gives its own order: the next one walks the lines as they are,
    /// `KeptLines`).
    package func save(_ entries: [Entry], point: WatchPoint? = nil) {
        save(point: point) { write in
            for e in entries where !e.settled { write(.entry(e)) }
            for e in entries where e.settled { write(.entry(e)) }
        }
    }

    /// A line of a cache being written: an entry, or a line of this cache's file copied as it is.
    enum Line {
        case entry(Entry)
        case kept(Range<Int>)
    }

    /// Writes the cache from the lines `lines` gives, a megabyte at a time, to a temporary file
    /// renamed over the cache (not flushed: a cache).
    func save(point: WatchPoint?, lines: ((Line) -> Void) -> Void) {
        guard let file else { return }
        try? FileIO.makeDirectory(FileIO.parent(of: file))
        let temp = file + ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        var failed = false
        var out: [UInt8] = []
        out.reserveCapacity(1 << 20 + 65_536)
        var crc: UInt32 = 0
        func flush() {
            guard !failed, !out.isEmpty else { return }
            crc = out.withUnsafeBufferPointer { vs_crc32c(crc, $0.baseAddress, $0.count) }
            failed = !ListingCache.write(out, to: fd)
            out.removeAll(keepingCapacity: true)
        }
        out += Array("vault-listing \(ListingCache.version) ".utf8) + ListingCache.escape(context) + [10]
        out += Array("watch \(point?.epoch ?? 0) \(point?.generation ?? 0)\n".utf8)
        lines { line in
            switch line {
            case .kept(let range):
                out += bytes[range]
            case .entry(let e):
                let s = e.stamp
                let head = "\(s.device)\t\(s.inode)\t\(s.size)\t\(s.modified.tv_sec)\t\(s.modified.tv_nsec)\t"
                    + "\(s.changed.tv_sec)\t\(s.changed.tv_nsec)\t\(e.settled ? 1 : 0)\t"
                out += Array(head.utf8)
                if let made = e.made {
                    out += ListingCache.escape(made.path)
                    for field in made.fields {
                        out.append(9)
                        if let field {
                            out.append(UInt8(ascii: "+"))
                            out += ListingCache.escape(field)
                        } else {
                            out.append(UInt8(ascii: "-"))
                        }
                    }
                } else {
                    out += bytes[e.path]
                    if !e.fieldBytes.isEmpty {
                        out.append(9)
                        out += bytes[e.fieldBytes]
                    }
                }
            }
            out.append(10)
            if out.count >= 1 << 20 { flush() }
        }
        flush()
        // The checksum of everything before it: a cache damaged anywhere is read as none.
        out += Array("end \(ListingCache.hex(crc))\n".utf8)
        if !failed { failed = !ListingCache.write(out, to: fd) }
        if close(fd) != 0 { failed = true }
        if failed || rename(temp, file) != 0 { unlink(temp) }
    }

    static func escape(_ text: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for b in text.utf8 {
            switch b {
            case 92: out += [92, 92]
            case 9: out += [92, UInt8(ascii: "t")]
            case 10: out += [92, UInt8(ascii: "n")]
            default: out.append(b)
            }
        }
        return out
    }

    static func unescape<Bytes: Collection<UInt8>>(_ b: Bytes) -> String {
        guard b.contains(92) else { return String(decoding: b, as: UTF8.self) }
        let b = Array(b)
        var out: [UInt8] = []
        out.reserveCapacity(b.count)
        var i = b.startIndex
        while i < b.endIndex {
            if b[i] == 92, i + 1 < b.endIndex {
                let n = b[i + 1]
                out.append(n == UInt8(ascii: "t") ? 9 : n == UInt8(ascii: "n") ? 10 : n)
                i += 2
            } else {
                out.append(b[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The unsigned decimal number `digits` hold (nil: not one, or too large).
    static func number<Digits: Collection<UInt8>>(_ digits: Digits) -> UInt64? {
        guard !digits.isEmpty, digits.count <= 20 else { return nil }
        var n: UInt64 = 0
        for d in digits {
            guard d >= 48, d <= 57 else { return nil }
            let (times, overflow) = n.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times.addingReportingOverflow(UInt64(d - 48))
            guard !overflow, !carry else { return nil }
            n = sum
        }
        return n
    }

    /// `crc` as eight lower-case hex digits.
    static func hex(_ crc: UInt32) -> String {
        let digits = String(crc, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }

    /// Where the lines of the cache file `storage` end: the start of its last line, `end`
    /// and the CRC-32C of every byte before it, checked here a megabyte at a time (the pages
    /// given back as it goes); nil when that line is missing or the checksum differs.
    static func checkedEnd(_ storage: MappedBytes) -> Int? {
        let b = storage.buffer
        guard b.count >= 13, b[b.count - 1] == 10 else { return nil }
        let start = b.count - 13  // "end " + 8 hex digits + "\n"
        guard start == 0 || b[start - 1] == 10, b[start..<(start + 4)].elementsEqual("end ".utf8),
            let kept = UInt32(String(decoding: b[(start + 4)..<(start + 12)], as: UTF8.self), radix: 16)
        else { return nil }
        var crc: UInt32 = 0
        var at = 0
        while at < start {
            let n = min(MappedBytes.releaseStep, start - at)
            crc = vs_crc32c(crc, b.baseAddress! + at, n)
            storage.release(at..<(at + n))
            at += n
        }
        return crc == kept ? start : nil
    }

    /// Writes all of `bytes` to `fd` (false: it could not).
    static func write(_ bytes: [UInt8], to fd: Int32) -> Bool {
        bytes.withUnsafeBytes { buf in
            var done = 0
            while done < buf.count {
                let n = Glibc.write(fd, buf.baseAddress! + done, buf.count - done)
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { return false }
                done += n
            }
            return true
        }
    }

    /// The point of a cache file's head and where its lines start (nil: not a cache of this
    /// version and context, or damaged).
    static func header(_ bytes: UnsafeBufferPointer<UInt8>, context: String) -> (WatchPoint?, Int)? {
        guard let firstEnd = bytes.firstIndex(of: 10),
            bytes[..<firstEnd].elementsEqual(Array("vault-listing \(version) ".utf8) + escape(context)),
            let secondEnd = bytes[(firstEnd + 1)...].firstIndex(of: 10)
        else { return nil }
        // `watch EPOCH GENERATION` (0 0: none).
        let words = bytes[(firstEnd + 1)..<secondEnd].split(separator: 32)
        guard words.count == 3, words[0].elementsEqual("watch".utf8), let epoch = number(words[1]),
            let generation = number(words[2])
        else { return nil }
        return (epoch == 0 ? nil : WatchPoint(epoch: epoch, generation: generation), secondEnd + 1)
    }

    /// Every line of a cache file from `start` to `end`, as ranges of `bytes` (nil: one is damaged).
    static func lines(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> [Entry]? {
        var entries: [Entry] = []
        entries.reserveCapacity(bytes.count / 160)
        var at = start
        while at < end {
            guard let (entry, next) = line(bytes, at: at) else { return nil }
            entries.append(entry)
            at = next
        }
        return entries
    }

    /// The line of a cache file that starts at `start`, and where the next one starts (nil: damaged).
    static func line(_ b: UnsafeBufferPointer<UInt8>, at start: Int) -> (Entry, next: Int)? {
        // Eight numbers, each ended by a tab, read as they come (no array made per line); then
        // the path, ended by a tab or the line feed; then the fields up to the line feed.
        var at = start
        var numbers: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
        for k in 0..<8 {
            var n: UInt64 = 0
            let first = at
            while at < b.count, b[at] != 9 {
                let d = b[at]
                guard d >= 48, d <= 57, at - first < 19 else { return nil }
                n = n * 10 + UInt64(d - 48)
                at += 1
            }
            guard at < b.count, at > first else { return nil }
            withUnsafeMutableBytes(of: &numbers) { $0.storeBytes(of: n, toByteOffset: k * 8, as: UInt64.self) }
            at += 1
        }
        let pathStart = at
        while at < b.count, b[at] != 9, b[at] != 10 { at += 1 }
        guard at < b.count else { return nil }
        let path = pathStart..<at
        // The fields, up to 16,384 characters of preview: the line's end found by `memchr`.
        guard let found = memchr(b.baseAddress! + at, 10, b.count - at) else { return nil }
        let lineEnd = b.baseAddress!.distance(to: found.assumingMemoryBound(to: UInt8.self))
        let (dev, ino, size, ms, mns, cs, cns, settled) = numbers
        let stamp = FileIO.Stamp(
            device: dev, inode: ino, size: Int64(size), modified: timespec(tv_sec: Int(ms), tv_nsec: Int(mns)),
            changed: timespec(tv_sec: Int(cs), tv_nsec: Int(cns)))
        let fieldStart = min(path.upperBound + 1, lineEnd)
        let entry = Entry(stamp: stamp, settled: settled == 1, path: path, fieldBytes: fieldStart..<lineEnd, made: nil)
        return (entry, lineEnd + 1)
    }
}
