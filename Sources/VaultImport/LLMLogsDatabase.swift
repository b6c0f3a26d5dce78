import CSQLite
import Foundation
import VaultCore

/// `llm`'s `logs.db`, opened read-only: the few queries `LLMReader` makes. Its one owner of the
/// SQLite handle closes it.
final class LLMLogsDatabase {
    /// A column's value: text, bytes, a number, or nothing.
    enum Value {
        case text(String)
        case bytes([UInt8])
        case integer(Int64)
        case real(Double)
        case null

        var text: String? {
            switch self {
            case .text(let s): return s
            case .integer(let n): return String(n)
            // A whole number as one (`2.0` → `2`) only where it converts: 1e300 stays as it is.
            case .real(let n): return n == n.rounded() && abs(n) < 1e15 ? String(Int64(n)) : String(n)
            case .bytes(let b): return String(validating: b, as: UTF8.self)
            case .null: return nil
            }
        }
    }

    typealias Row = [String: Value]

    let path: String
    private let handle: OpaquePointer

    /// Opens `path` read-only (no journal is made beside it, nothing is written); a link there
    /// is refused unless `followingLinks` (a path the person named).
    init(path: String, followingLinks: Bool = true) throws(VaultError) {
        self.path = path
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | (followingLinks ? 0 : SQLITE_OPEN_NOFOLLOW), nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
            sqlite3_close_v2(db)
            throw ExportFile.problem(path, "cannot be opened as an SQLite database (\(message))")
        }
        handle = db
        sqlite3_busy_timeout(db, 2000)
    }

    deinit { sqlite3_close_v2(handle) }

    /// The names of its tables (and views).
    func tables() throws(VaultError) -> Set<String> {
        Set(try rows("select name from sqlite_master where type in ('table', 'view')").compactMap { $0["name"]?.text })
    }

    /// The columns of `table`.
    func columns(_ table: String) throws(VaultError) -> Set<String> {
        Set(try rows("select name from pragma_table_info(?)", [table]).compactMap { $0["name"]?.text })
    }

    /// The rows `sql` gives, with `arguments` bound in order (text).
    func rows(_ sql: String, _ arguments: [String] = []) throws(VaultError) -> [Row] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw failure()
        }
        defer { sqlite3_finalize(statement) }
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        for (i, argument) in arguments.enumerated() {
            sqlite3_bind_text(statement, Int32(i + 1), argument, -1, transient)
        }
        var out: [Row] = []
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else { throw failure() }
            var row: Row = [:]
            for c in 0..<sqlite3_column_count(statement) {
                let name = String(cString: sqlite3_column_name(statement, c))
                switch sqlite3_column_type(statement, c) {
                case SQLITE_NULL: row[name] = .null
                case SQLITE_INTEGER: row[name] = .integer(sqlite3_column_int64(statement, c))
                case SQLITE_FLOAT: row[name] = .real(sqlite3_column_double(statement, c))
                case SQLITE_BLOB:
                    let count = Int(sqlite3_column_bytes(statement, c))
                    if let base = sqlite3_column_blob(statement, c), count > 0 {
                        row[name] = .bytes([UInt8](UnsafeRawBufferPointer(start: base, count: count)))
                    } else {
                        row[name] = .bytes([])
                    }
                default:
                    let count = Int(sqlite3_column_bytes(statement, c))
                    if let base = sqlite3_column_text(statement, c) {
                        let bytes = UnsafeBufferPointer(start: base, count: count)
                        guard let text = String(validating: bytes, as: UTF8.self) else {
                            throw ExportFile.problem(path, at: "a \(name) value", "is not valid UTF-8")
                        }
                        row[name] = .text(text)
                    } else {
                        row[name] = .text("")
                    }
                }
            }
            out.append(row)
        }
        return out
    }

    private func failure() -> VaultError {
        let message = String(cString: sqlite3_errmsg(handle))
        if sqlite3_errcode(handle) == SQLITE_NOTADB {
            return ExportFile.problem(path, "is not an SQLite database (llm's logs.db is one)")
        }
        return ExportFile.problem(path, "cannot be read: \(message)")
    }
}
