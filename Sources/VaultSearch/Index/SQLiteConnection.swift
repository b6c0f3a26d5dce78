import CSQLite

#if canImport(Glibc)
import Glibc
#endif

/// A failed SQLite call, before it becomes a `VaultError`: the extended result code and
/// SQLite's message.
///
/// The index tells damage (the file is not a database, or is corrupt or truncated) from every
/// other failure, because damage is repaired by deleting the cache and building it again.
struct SQLiteFailure: Error {
    /// The extended result code (`sqlite3_extended_errcode`).
    var code: Int32
    /// SQLite's message (`sqlite3_errmsg`), or ours when the failure is found by the index.
    var message: String

    /// Whether the database file is damaged: not a database, corrupt, truncated (a short
    /// read), or not the index this code writes.
    var isDamage: Bool {
        let primary = code & 0xFF
        return primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB || primary == SQLITE_FORMAT
            || code == SQLiteFailure.shortRead || code == SQLiteFailure.wrongChecksum
            || code == SQLiteFailure.wrongSchema
    }

    /// `SQLITE_IOERR_SHORT_READ` (a macro Swift does not import): the file ends before a page.
    static let shortRead: Int32 = 522
    /// `SQLITE_IOERR_DATA`: a page's checksum is wrong (`ChecksumVFS`).
    static let wrongChecksum: Int32 = 3338
    /// Not SQLite's: the file is a database, but not the index of this schema version.
    static let wrongSchema: Int32 = -1
}

/// One open SQLite database: the only owner of its `sqlite3` handle, closed in `deinit`.
///
/// A thin layer, not a general wrapper: statements, transactions and the few value types
/// the index stores (integers, text, blobs).
final class SQLiteConnection {
    let handle: OpaquePointer

    /// Opens (creating when missing) the database at `path` through `vfs` (the default VFS
    /// when nil); waits up to `busyMilliseconds` for another process's lock before a call fails
    /// with `SQLITE_BUSY`.
    init(path: String, busyMilliseconds: Int32, vfs: String? = nil) throws(SQLiteFailure) {
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, vfs)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
            sqlite3_close_v2(db)
            throw SQLiteFailure(code: rc, message: message)
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, busyMilliseconds)
    }

    deinit { sqlite3_close_v2(handle) }

    /// The failure of the call that just returned `rc`.
    func failure(_ rc: Int32) -> SQLiteFailure {
        SQLiteFailure(code: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle)))
    }

    /// Runs one or more statements that return no rows.
    func execute(_ sql: String) throws(SQLiteFailure) {
        let rc = sqlite3_exec(handle, sql, nil, nil, nil)
        guard rc == SQLITE_OK else { throw failure(rc) }
    }

    /// A compiled statement for `sql`.
    func prepare(_ sql: String) throws(SQLiteFailure) -> SQLiteStatement {
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard rc == SQLITE_OK, let statement else { throw failure(rc) }
        return SQLiteStatement(handle: statement, connection: self)
    }

    /// The reserved bytes at the end of each page (`SQLITE_FCNTL_RESERVE_BYTES`): set to
    /// `bytes` when given (only a database with no page yet takes it), read when nil.
    func reservedBytes(setting bytes: Int32? = nil) -> Int32 {
        var value = bytes ?? -1
        sqlite3_file_control(handle, "main", SQLITE_FCNTL_RESERVE_BYTES, &value)
        return value
    }

    /// The first column of the first row of `sql`, as an integer (nil when there is no row).
    func integer(_ sql: String) throws(SQLiteFailure) -> Int64? {
        let statement = try prepare(sql)
        return try statement.step() ? statement.int64(0) : nil
    }

    /// Runs `body` in a transaction: `BEGIN IMMEDIATE` (the write lock, taken at once, so
    /// two writers wait for each other instead of failing) when `writing`, a read
    /// transaction (one consistent snapshot) otherwise. Rolled back when `body` throws.
    func transaction<T>(
        writing: Bool, _ body: () throws(SQLiteFailure) -> T
    ) throws(SQLiteFailure) -> T {
        try execute(writing ? "BEGIN IMMEDIATE" : "BEGIN")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            _ = sqlite3_exec(handle, "ROLLBACK", nil, nil, nil)
            throw error
        }
    }
}

/// One compiled statement; finalized in `deinit`. Parameters and columns count from 1 and 0,
/// as in SQLite's C API.
final class SQLiteStatement {
    let handle: OpaquePointer
    let connection: SQLiteConnection

    init(handle: OpaquePointer, connection: SQLiteConnection) {
        self.handle = handle
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    /// SQLite copies the value at once (`SQLITE_TRANSIENT`, a macro Swift does not import).
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    func bind(_ value: Int64, at index: Int32) {
        sqlite3_bind_int64(handle, index, value)
    }

    func bind(_ text: String, at index: Int32) {
        var text = text
        text.withUTF8 { utf8 in
            _ = sqlite3_bind_text(handle, index, utf8.baseAddress, Int32(utf8.count), Self.transient)
        }
    }

    func bind(blob bytes: [UInt8], at index: Int32) {
        bytes.withUnsafeBytes { raw in
            _ = sqlite3_bind_blob(handle, index, raw.baseAddress, Int32(raw.count), Self.transient)
        }
    }

    func bindNull(at index: Int32) {
        sqlite3_bind_null(handle, index)
    }

    /// Runs the statement to its next row: true when there is a row to read.
    @discardableResult
    func step() throws(SQLiteFailure) -> Bool {
        let rc = sqlite3_step(handle)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        let failure = connection.failure(rc)
        sqlite3_reset(handle)
        throw failure
    }

    /// Makes the statement ready to run again, its parameters cleared.
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    func text(_ column: Int32) -> String {
        guard let bytes = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    /// The UTF-8 of a text column, valid until the statement steps or is reset.
    func textBytes(_ column: Int32) -> UnsafeRawBufferPointer {
        guard let bytes = sqlite3_column_text(handle, column) else {
            return UnsafeRawBufferPointer(start: nil, count: 0)
        }
        return UnsafeRawBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(handle, column)))
    }

    func blob(_ column: Int32) -> [UInt8] {
        guard let bytes = sqlite3_column_blob(handle, column) else { return [] }
        let count = Int(sqlite3_column_bytes(handle, column))
        return Array(UnsafeRawBufferPointer(start: bytes, count: count))
    }
}
