#if canImport(Glibc)
import Glibc
#endif

/// What the index recorded for the files of its last refresh, in the order they were listed:
/// the database's `files` table (joined with `blobs`) in the shape an up-to-date refresh and
/// `candidates` read fastest.
///
/// Loading 50,000 rows from SQLite into a dictionary takes tens of milliseconds; this record is
/// one `read` of about 2.5 MB, compared field by field with the stamps just taken, because the
/// caller lists the same files in the same order when nothing was added or removed.
struct StampRecord: Equatable {
    /// The database's generation (`meta.generation`) this record describes: a random number
    /// every write transaction changes. A record of another generation is ignored.
    var generation: Int64
    /// `StampFile.listHash` of the listed paths, in order.
    var listHash: UInt64
    /// The recorded stamp of each listed file.
    var stamps: [FileStamp]
    /// The text of each listed file: its row id in `texts`, `StampRecord.invalidUTF8`, or
    /// `StampRecord.noText` (the file could not be read: always a candidate).
    var docids: [Int64]
    /// The positions of the files in sorted order (`String`'s `<`), so candidates come out
    /// sorted without sorting.
    var order: [UInt32]
    /// The UTF-8 of the listed paths, one after the other, and where each ends: a listing that
    /// differs (a file added or removed) is matched against them without the database.
    var pathBytes: [UInt8]
    var pathEnds: [UInt32]
    /// Whether `pathBytes` and `pathEnds` were read (`StampFile.read(_:paths:)`).
    var hasPaths = true

    /// The UTF-8 of the path at `k`.
    func path(_ k: Int) -> ArraySlice<UInt8> {
        pathBytes[(k == 0 ? 0 : Int(pathEnds[k - 1]))..<Int(pathEnds[k])]
    }

    /// `paths` as `pathBytes` and `pathEnds`.
    static func packed(_ paths: [String]) -> (bytes: [UInt8], ends: [UInt32]) {
        var bytes: [UInt8] = []
        var ends: [UInt32] = []
        ends.reserveCapacity(paths.count)
        for path in paths {
            bytes.append(contentsOf: path.utf8)
            ends.append(UInt32(truncatingIfNeeded: bytes.count))
        }
        return (bytes, ends)
    }

    /// `docids` value of a file that is not UTF-8 (it has a blob, and no text).
    static let invalidUTF8: Int64 = 0
    /// `docids` value of a file that could not be read.
    static let noText: Int64 = -1
}

/// The side file `<database>.stamps` that keeps a `StampRecord` next to the database.
///
/// Written whole to a temporary file and renamed over the old one, with a checksum over its
/// body, so a reader sees one whole record or ignores the file; it is a cache of a cache:
/// missing, torn, or of another generation, the refresh loads the database's rows instead
/// (and writes it again).
enum StampFile {
    /// "vaultsx2" (the format's version is its last letter) read as a little-endian integer.
    static let magic: UInt64 = 0x3278_7374_6C75_6176
    /// Magic, count, generation, list hash, bytes of the paths, checksum; then per file its
    /// stamp and text id (6 words), the sorted order (32 bits a file), where each path ends
    /// (32 bits a file), and the paths' UTF-8 (padded to a word).
    static let headerWords = 6

    /// The record in the file at `path`, or nil when there is none, or it is torn or damaged.
    ///
    /// Mapped, not read: the file's pages are the page cache's, so none is copied or cleared
    /// first (a read into a new buffer of 2.5 MB was a tenth of a repeated search).
    ///
    /// Without `paths`, the record's `pathBytes` and `pathEnds` are left empty (`hasPaths`
    /// false): a refresh the watcher vouches for has the same listing, and needs no path.
    static func read(_ path: String, paths: Bool = true) -> StampRecord? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_size >= headerWords * 8, st.st_size % 4 == 0 else { return nil }
        let size = Int(st.st_size)
        // The file is replaced by a rename, never written in place, so the mapping holds still.
        guard let map = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), map != MAP_FAILED else { return nil }
        defer { munmap(map, size) }
        // A file whose size is not a whole number of words: its last word is read from a copy.
        let wordCount = (size + 7) / 8
        if size % 8 != 0 {
            var words = [UInt64](repeating: 0, count: wordCount)
            words.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(start: map, count: size)) }
            return words.withUnsafeBufferPointer { record(in: $0, paths: paths) }
        }
        let words = UnsafeBufferPointer(start: map.assumingMemoryBound(to: UInt64.self), count: wordCount)
        return record(in: words, paths: paths)
    }

    /// The record in `words` (the whole file), or nil when it is torn or damaged.
    private static func record(in words: UnsafeBufferPointer<UInt64>, paths: Bool) -> StampRecord? {
        guard words.count >= headerWords, words[0] == magic else { return nil }
        let count = Int(words[1])
        let pathByteCount = Int(words[4])
        guard count >= 0, count < 1 << 31, pathByteCount >= 0, pathByteCount < 1 << 32 else { return nil }
        let bodyWords = count * 6 + 2 * ((count + 1) / 2) + (pathByteCount + 7) / 8
        guard words.count == headerWords + bodyWords else { return nil }
        guard words[5] == bodyChecksum(UnsafeBufferPointer(rebasing: words[headerWords...])) else { return nil }
        var record = StampRecord(
            generation: Int64(bitPattern: words[2]), listHash: words[3], stamps: [], docids: [], order: [],
            pathBytes: [], pathEnds: [])
        // Six words a file, copied out without bounds checks (the size was checked above):
        // this runs for 50,000 files on every search.
        let base = words.baseAddress! + headerWords
        record.stamps = [FileStamp](unsafeUninitializedCapacity: count) { out, n in
            for k in 0..<count {
                let at = base + k * 6
                out[k] = FileStamp(
                    device: Int64(bitPattern: at[0]), inode: Int64(bitPattern: at[1]),
                    size: Int64(bitPattern: at[2]), modifiedNanoseconds: Int64(bitPattern: at[3]),
                    changedNanoseconds: Int64(bitPattern: at[4]))
            }
            n = count
        }
        record.docids = [Int64](unsafeUninitializedCapacity: count) { out, n in
            for k in 0..<count { out[k] = Int64(bitPattern: base[k * 6 + 5]) }
            n = count
        }
        let orderStart = headerWords + count * 6
        let endsStart = orderStart + (count + 1) / 2
        let bytesStart = endsStart + (count + 1) / 2
        record.order = halves(words, from: orderStart, count: count)
        guard record.order.allSatisfy({ Int($0) < count }) else { return nil }
        guard paths else {
            record.hasPaths = count == 0
            return record
        }
        record.pathEnds = halves(words, from: endsStart, count: count)
        guard zip(record.pathEnds, record.pathEnds.dropFirst()).allSatisfy({ $0 <= $1 }),
            Int(record.pathEnds.last ?? 0) == pathByteCount
        else { return nil }
        record.pathBytes = Array(
            UnsafeRawBufferPointer(start: words.baseAddress! + bytesStart, count: pathByteCount))
        return record
    }

    /// `count` 32-bit values packed two to a word from `words[start]` on (the low half first).
    private static func halves(_ words: UnsafeBufferPointer<UInt64>, from start: Int, count: Int) -> [UInt32] {
        // Little-endian: the low half of a word is the first 32-bit value in memory.
        let values = UnsafeRawPointer(words.baseAddress! + start).assumingMemoryBound(to: UInt32.self)
        return Array(UnsafeBufferPointer(start: values, count: count))
    }

    /// Writes `record` to `path` through a temporary file renamed over it. A failure is not an
    /// error (the side file is only a faster copy of the database's rows): it leaves the old file
    /// or none, and the next refresh reads the database.
    static func write(_ record: StampRecord, to path: String) {
        let count = record.stamps.count
        let orderStart = headerWords + count * 6
        let endsStart = orderStart + (count + 1) / 2
        let bytesStart = endsStart + (count + 1) / 2
        var words = [UInt64](repeating: 0, count: bytesStart + (record.pathBytes.count + 7) / 8)
        words[0] = magic
        words[1] = UInt64(count)
        words[2] = UInt64(bitPattern: record.generation)
        words[3] = record.listHash
        words[4] = UInt64(record.pathBytes.count)
        for k in 0..<count {
            let at = headerWords + k * 6
            let stamp = record.stamps[k]
            words[at] = UInt64(bitPattern: stamp.device)
            words[at + 1] = UInt64(bitPattern: stamp.inode)
            words[at + 2] = UInt64(bitPattern: stamp.size)
            words[at + 3] = UInt64(bitPattern: stamp.modifiedNanoseconds)
            words[at + 4] = UInt64(bitPattern: stamp.changedNanoseconds)
            words[at + 5] = UInt64(bitPattern: record.docids[k])
        }
        for (k, position) in record.order.enumerated() {
            words[orderStart + k / 2] |= UInt64(position) << (32 * UInt64(k % 2))
        }
        for (k, end) in record.pathEnds.enumerated() {
            words[endsStart + k / 2] |= UInt64(end) << (32 * UInt64(k % 2))
        }
        words[bytesStart...].withUnsafeMutableBytes { target in
            record.pathBytes.withUnsafeBytes { source in target.copyMemory(from: source) }
        }
        words[5] = words.withUnsafeBufferPointer { bodyChecksum(UnsafeBufferPointer(rebasing: $0[headerWords...])) }
        let temporary = path + ".\(getpid()).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        let complete = words.withUnsafeBytes { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            var done = 0
            while done < buffer.count {
                let n = Glibc.write(fd, base + done, buffer.count - done)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return false }
                done += n
            }
            return true
        }
        close(fd)
        if !complete || rename(temporary, path) != 0 { unlink(temporary) }
    }

    /// A 64-bit hash of the listed paths in order (each path's UTF-8 and its length): equal
    /// lists give equal hashes, so an unchanged listing is recognised without comparing paths.
    static func listHash(_ paths: [String]) -> UInt64 {
        var hash = listHashSeed
        for path in paths {
            var path = path
            hash = mix(hash, path.withUTF8 { pathHash(UnsafeRawBufferPointer($0)) })
        }
        return hash
    }

    static let listHashSeed: UInt64 = 0x243F_6A88_85A3_08D3

    /// A 64-bit hash of one path's UTF-8 (its bytes, a word at a time, and its length).
    static func pathHash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = 0x4528_21E6_38D0_1377
        guard let base = bytes.baseAddress else { return mix(hash, 1 << 63) }
        var k = 0
        while k + 8 <= bytes.count {
            hash = mix(hash, base.loadUnaligned(fromByteOffset: k, as: UInt64.self))
            k += 8
        }
        var tail: UInt64 = 0
        while k < bytes.count {
            tail = tail << 8 | UInt64(bytes[k])
            k += 1
        }
        return mix(mix(hash, tail), UInt64(bytes.count) | 1 << 63)
    }

    /// The checksum of the file's body (megabytes, read on every search): four independent
    /// lanes of `mix`, combined, so the processor runs them side by side.
    static func bodyChecksum(_ words: UnsafeBufferPointer<UInt64>) -> UInt64 {
        var lanes: (UInt64, UInt64, UInt64, UInt64) = (
            0x1319_8A2E_0370_7344, 0xA409_3822_299F_31D0, 0x082E_FA98_EC4E_6C89, 0x4528_21E6_38D0_1377
        )
        let n = words.count
        var k = 0
        while k + 4 <= n {
            lanes.0 = mix(lanes.0, words[k])
            lanes.1 = mix(lanes.1, words[k + 1])
            lanes.2 = mix(lanes.2, words[k + 2])
            lanes.3 = mix(lanes.3, words[k + 3])
            k += 4
        }
        while k < n {
            lanes.0 = mix(lanes.0, words[k])
            k += 1
        }
        return mix(mix(mix(mix(UInt64(n), lanes.0), lanes.1), lanes.2), lanes.3)
    }

    /// A checksum of a few words (`WatchRecord`): detects a file torn by a crash between its
    /// write and its rename.
    static func checksum<Words: Collection<UInt64>>(_ words: Words) -> UInt64 {
        var hash: UInt64 = 0x1319_8A2E_0370_7344
        for word in words { hash = mix(hash, word) }
        return hash
    }

    /// One step of the hash: not cryptographic, only well mixed.
    @inline(__always)
    static func mix(_ hash: UInt64, _ word: UInt64) -> UInt64 {
        var h = (hash ^ word) &* 0x9E37_79B9_7F4A_7C15
        h ^= h >> 29
        return h
    }
}
