import CSQLite

#if canImport(Glibc)
import Glibc
#endif

/// An SQLite VFS shim that keeps a checksum in the last 8 bytes of every page of the index's
/// database file, and fails a read of a page whose checksum is wrong (`SQLITE_IOERR_DATA`).
///
/// SQLite keeps no checksums of its own: bytes overwritten inside a page that still parses
/// (a disk error, a half-copied cache) are read as data, and an FTS5 index read so could leave a
/// file out of the candidates, breaking the one promise the index makes. With this shim every
/// page a query reads from the file has been verified, so a damaged index fails instead of
/// answering, and is built again.
///
/// It follows SQLite's own `ext/misc/cksumvfs.c` (the same checksum, in the page's 8 reserved
/// bytes, `PRAGMA`-free), limited to the main database file, and to reads and writes of whole
/// pages at page offsets: the write-ahead log has checksums of its own, and a checksum written
/// into a log frame's page would no longer match the frame's. Pages reach the database file from
/// the log by a checkpoint, which writes them through this shim.
///
/// Checksums are kept only in a database whose header says 8 reserved bytes a page; the index
/// creates its database so (`SearchIndex.openDatabase`) and refuses one that is not.
enum ChecksumVFS {
    /// The name to open the index's database with (`sqlite3_open_v2`'s last argument).
    static let name = "vault-search-checksums"

    /// Registers the shim over the default VFS, once per process; false when there is no
    /// default VFS (then the index opens without checksums).
    static let isRegistered: Bool = register()

    /// Bytes of the shim's part of a file handle, before the wrapped VFS's own: the
    /// `sqlite3_file` header (its methods) and a word of flags.
    private static let headerSize = 16
    /// Flag: the file's header says 8 reserved bytes a page; checksums are written and verified.
    private static let checksummed: UInt32 = 1

    /// The shim's file methods, shared by every file it opens (allocated once, never freed).
    nonisolated(unsafe) private static let methods: UnsafeMutablePointer<sqlite3_io_methods> = {
        let methods = UnsafeMutablePointer<sqlite3_io_methods>.allocate(capacity: 1)
        methods.initialize(to: sqlite3_io_methods())
        fillMethods(methods)
        return methods
    }()

    private static func register() -> Bool {
        if sqlite3_vfs_find(name) != nil { return true }
        guard let base = sqlite3_vfs_find(nil) else { return false }
        let vfs = UnsafeMutablePointer<sqlite3_vfs>.allocate(capacity: 1)
        vfs.initialize(to: base.pointee)
        vfs.pointee.pNext = nil
        vfs.pointee.szOsFile = Int32(headerSize) + base.pointee.szOsFile
        vfs.pointee.zName = UnsafePointer(strdup(name))
        vfs.pointee.pAppData = UnsafeMutableRawPointer(base)
        // Every other method is the wrapped VFS's, called with this `sqlite3_vfs`: the unix VFS
        // reads nothing of it in them but `pAppData`, which only its own `xOpen` uses.
        vfs.pointee.xOpen = { vfs, name, file, flags, outFlags in
            guard let vfs, let file, let base = vfs.pointee.pAppData?.assumingMemoryBound(to: sqlite3_vfs.self),
                let open = base.pointee.xOpen
            else { return SQLITE_MISUSE }
            guard flags & SQLITE_OPEN_MAIN_DB != 0 else { return open(base, name, file, flags, outFlags) }
            let raw = UnsafeMutableRawPointer(file)
            raw.storeBytes(of: 0, toByteOffset: 8, as: UInt32.self)
            let rc = open(base, name, ChecksumVFS.inner(file), flags, outFlags)
            file.pointee.pMethods = rc == SQLITE_OK ? UnsafePointer(ChecksumVFS.methods) : nil
            return rc
        }
        return sqlite3_vfs_register(vfs, 0) == SQLITE_OK
    }

    /// The wrapped VFS's file handle inside the shim's.
    private static func inner(_ file: UnsafeMutablePointer<sqlite3_file>) -> UnsafeMutablePointer<sqlite3_file> {
        (UnsafeMutableRawPointer(file) + headerSize).assumingMemoryBound(to: sqlite3_file.self)
    }

    /// The wrapped file's methods.
    private static func methods(of file: UnsafeMutablePointer<sqlite3_file>) -> sqlite3_io_methods? {
        inner(file).pointee.pMethods?.pointee
    }

    private static func flags(_ file: UnsafeMutablePointer<sqlite3_file>) -> UInt32 {
        UnsafeMutableRawPointer(file).load(fromByteOffset: 8, as: UInt32.self)
    }

    /// Notes from the database header at the start of `buffer` (a read or write at offset 0)
    /// whether the file has 8 reserved bytes a page.
    private static func noteHeader(
        _ file: UnsafeMutablePointer<sqlite3_file>, _ buffer: UnsafeRawPointer, _ count: Int32
    ) {
        guard count >= 100, memcmp(buffer, "SQLite format 3", 16) == 0 else { return }
        let reserved = buffer.load(fromByteOffset: 20, as: UInt8.self)
        UnsafeMutableRawPointer(file).storeBytes(of: reserved == 8 ? checksummed : 0, toByteOffset: 8, as: UInt32.self)
    }

    /// Whether a read or write of `count` bytes at `offset` is one whole page.
    private static func isPage(_ count: Int32, _ offset: Int64) -> Bool {
        count >= 512 && count <= 65_536 && count & (count - 1) == 0 && offset % Int64(count) == 0
    }

    /// The checksum of `count - 8` bytes of a page (cksumvfs's: two running 32-bit sums over
    /// the page read as little-endian 32-bit words).
    static func checksum(_ page: UnsafeRawPointer, count: Int) -> UInt64 {
        var s1: UInt32 = 0
        var s2: UInt32 = 0
        var k = 0
        while k < count - 8 {
            s1 = s1 &+ UInt32(littleEndian: page.loadUnaligned(fromByteOffset: k, as: UInt32.self)) &+ s2
            s2 = s2 &+ UInt32(littleEndian: page.loadUnaligned(fromByteOffset: k + 4, as: UInt32.self)) &+ s1
            k += 8
        }
        return UInt64(s1) | UInt64(s2) << 32
    }

    /// The methods: all pass through to the wrapped file, with checksums on `xRead` and `xWrite`
    /// and memory-mapped reads refused (they would bypass the check).
    private static func fillMethods(_ m: UnsafeMutablePointer<sqlite3_io_methods>) {
        m.pointee.iVersion = 3
        m.pointee.xClose = { file in
            guard let file, let close = ChecksumVFS.methods(of: file)?.xClose else { return SQLITE_OK }
            return close(ChecksumVFS.inner(file))
        }
        m.pointee.xRead = { file, buffer, count, offset in
            guard let file, let read = ChecksumVFS.methods(of: file)?.xRead else { return SQLITE_MISUSE }
            let rc = read(ChecksumVFS.inner(file), buffer, count, offset)
            guard rc == SQLITE_OK, let buffer else { return rc }
            if offset == 0 { ChecksumVFS.noteHeader(file, buffer, count) }
            if ChecksumVFS.flags(file) & ChecksumVFS.checksummed != 0, ChecksumVFS.isPage(count, offset) {
                let stored = buffer.loadUnaligned(fromByteOffset: Int(count) - 8, as: UInt64.self)
                if UInt64(littleEndian: stored) != ChecksumVFS.checksum(buffer, count: Int(count)) {
                    return 3338  // SQLITE_IOERR_DATA, a macro Swift does not import
                }
            }
            return rc
        }
        m.pointee.xWrite = { file, buffer, count, offset in
            guard let file, let write = ChecksumVFS.methods(of: file)?.xWrite else { return SQLITE_MISUSE }
            if let buffer {
                if offset == 0 { ChecksumVFS.noteHeader(file, buffer, count) }
                if ChecksumVFS.flags(file) & ChecksumVFS.checksummed != 0, ChecksumVFS.isPage(count, offset) {
                    // The last 8 bytes are the page's reserved bytes: the shim's own.
                    UnsafeMutableRawPointer(mutating: buffer).storeBytes(
                        of: ChecksumVFS.checksum(buffer, count: Int(count)).littleEndian, toByteOffset: Int(count) - 8,
                        as: UInt64.self)
                }
            }
            return write(ChecksumVFS.inner(file), buffer, count, offset)
        }
        m.pointee.xTruncate = { file, size in
            guard let file, let f = ChecksumVFS.methods(of: file)?.xTruncate else { return SQLITE_MISUSE }
            return f(ChecksumVFS.inner(file), size)
        }
        m.pointee.xSync = { file, flags in
            guard let file, let f = ChecksumVFS.methods(of: file)?.xSync else { return SQLITE_MISUSE }
            return f(ChecksumVFS.inner(file), flags)
        }
        m.pointee.xFileSize = { file, size in
            guard let file, let f = ChecksumVFS.methods(of: file)?.xFileSize else { return SQLITE_MISUSE }
            return f(ChecksumVFS.inner(file), size)
        }
        m.pointee.xLock = { file, lock in
            guard let file, let f = ChecksumVFS.methods(of: file)?.xLock else { return SQLITE_MISUSE }
            return f(ChecksumVFS.inner(file), lock)
        }
        m.pointee.xUnlock = { file, lock in
            guard let file, let f = ChecksumVFS.methods(of: file)?.xUnlock else { return SQLITE_MISUSE }
            return f(ChecksumVFS.inner(file), lock)
        }
        m.pointee.xCheckReservedLock = { file, out in
            guard let file, let f = ChecksumVFS.methods(of: file)?.xCheckReservedLock else { return SQLITE_MISUSE }
            return f(ChecksumVFS.inner(file), out)
        }
        m.pointee.xFileControl = { file, op, argument in
            guard let file, let f = ChecksumVFS.methods(of: file)?.xFileControl else { return SQLITE_NOTFOUND }
            return f(ChecksumVFS.inner(file), op, argument)
        }
        m.pointee.xSectorSize = { file in
            guard let file, let f = ChecksumVFS.methods(of: file)?.xSectorSize else { return 4_096 }
            return f(ChecksumVFS.inner(file))
        }
        m.pointee.xDeviceCharacteristics = { file in
            guard let file, let f = ChecksumVFS.methods(of: file)?.xDeviceCharacteristics else { return 0 }
            return f(ChecksumVFS.inner(file))
        }
        m.pointee.xShmMap = { file, region, size, extend, out in
            guard let file, let f = ChecksumVFS.methods(of: file)?.xShmMap else { return SQLITE_IOERR }
            return f(ChecksumVFS.inner(file), region, size, extend, out)
        }
        m.pointee.xShmLock = { file, offset, count, flags in
            guard let file, let f = ChecksumVFS.methods(of: file)?.xShmLock else { return SQLITE_IOERR }
            return f(ChecksumVFS.inner(file), offset, count, flags)
        }
        m.pointee.xShmBarrier = { file in
            guard let file, let f = ChecksumVFS.methods(of: file)?.xShmBarrier else { return }
            f(ChecksumVFS.inner(file))
        }
        m.pointee.xShmUnmap = { file, delete in
            guard let file, let f = ChecksumVFS.methods(of: file)?.xShmUnmap else { return SQLITE_OK }
            return f(ChecksumVFS.inner(file), delete)
        }
        m.pointee.xFetch = { _, _, _, out in
            out?.pointee = nil
            return SQLITE_OK
        }
        m.pointee.xUnfetch = { file, offset, page in
            guard let file, let f = ChecksumVFS.methods(of: file)?.xUnfetch else { return SQLITE_OK }
            return f(ChecksumVFS.inner(file), offset, page)
        }
    }
}
