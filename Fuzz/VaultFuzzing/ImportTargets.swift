import CSQLite
import Foundation
import VaultImport

#if canImport(Glibc)
import Glibc
#endif

/// The import readers' targets (`ImportInvariants`): the bytes become the file a reader reads,
/// in an export folder of this process's own beside the files it expects there (an image, a
/// photo, `projects.json`), and the reader reads the export with a cap of 64 KiB.
///
/// - `chatgpt`, `claude`: `conversations.json`; `claude-code`: a project's `.jsonl` log;
///   `dayone`: `Journal.json`; `jrnl`: a journal's text (or its JSON export);
/// - `llm`: rows of llm's tables, one a line: the table's name, then its columns' values in
///   order, separated by tabs (`~` is NULL, `#1e300` a number, `x:00ff` bytes, anything else
///   text), inserted into a `logs.db` with llm's tables;
/// - `zip`: a zip archive, opened and each member read (`ImportInvariants.zip`), then read as
///   a ChatGPT export.
enum ImportTargets {
    static let limits = ImportLimits(maxItemSize: 64 << 10)

    /// Where the exports are written: a folder of this process's own, removed when it exits.
    static let root: String = {
        let path = NSTemporaryDirectory() + "vault-fuzz-import-\(getpid())"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(atPath: ImportTargets.root) }
        return path
    }()

    static func run(_ target: FuzzTarget, _ bytes: [UInt8]) -> [String] {
        let folder = root + "/" + target.rawValue
        /// Writes `name` in the export (in place: no temporary file, no flush).
        func write(_ name: String, _ data: [UInt8]) {
            let path = folder + "/" + name
            var fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            if fd < 0 {
                try? FileManager.default.createDirectory(
                    atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            }
            guard fd >= 0 else { return }
            _ = data.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            close(fd)
        }
        let image: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        switch target {
        case .chatgpt:
            write("conversations.json", bytes)
            write("file-AbC-photo.png", image)
            let missing: ChatGPTReader.MissingImage = FuzzRandom.hash(bytes) & 1 == 0 ? .fail : .note
            return ImportInvariants.check(ChatGPTReader(missingImage: missing), [folder], limits: limits)
        case .claude:
            write("conversations.json", bytes)
            write("projects.json", Array("[{\"uuid\": \"p1\", \"name\": \"Busan\"}]".utf8))
            return ImportInvariants.check(ClaudeReader(), [folder], limits: limits)
        case .claudeCode:
            write("-home-me-busan/s1.jsonl", bytes)
            return ImportInvariants.check(ClaudeCodeReader(), [folder], limits: limits)
        case .dayone:
            write("Journal.json", bytes)
            write("photos/4f1e2d3c.jpeg", image)
            return ImportInvariants.check(DayOneReader(), [folder], limits: limits)
        case .jrnl:
            write("journal.txt", bytes)
            return ImportInvariants.check(
                JrnlReader(timeZone: TimeZone(identifier: "Asia/Seoul")!), [folder + "/journal.txt"], limits: limits)
        case .llm:
            let database = folder + "/logs.db"
            write("logs.db", LLMRows.empty ?? [])
            guard LLMRows.insert(bytes, into: database) else { return ["the fuzz target could not make \(database)"] }
            return ImportInvariants.check(LLMReader(), [database], limits: limits)
        case .zip:
            write("export.zip", bytes)
            return ImportInvariants.zip(folder + "/export.zip", limits: limits)
                + ImportInvariants.check(ChatGPTReader(missingImage: .note), [folder + "/export.zip"], limits: limits)
        default:
            return []
        }
    }
}

/// A `logs.db` made from rows given as text (`ImportTargets`): llm's tables as the reader reads
/// them, each value bound as a parameter, so nothing in the bytes is run as SQL.
enum LLMRows {
    /// The tables and their columns (typed as llm's: an INTEGER column keeps a REAL it cannot
    /// convert, `#1e300`), in the order a line gives values.
    static let tables: [(String, [String])] = [
        ("conversations", ["id text", "name text", "model text"]),
        ("responses", ["id text", "model text", "prompt text", "system text", "options_json text", "response text",
                       "conversation_id text", "datetime_utc text"]),
        ("attachments", ["id text", "type text", "path text", "url text", "content blob"]),
        ("prompt_attachments", ["response_id text", "attachment_id text", "\"order\" integer"]),
        ("fragments", ["id integer", "content text"]),
        ("prompt_fragments", ["response_id text", "fragment_id integer", "\"order\" integer"]),
        ("system_fragments", ["response_id text", "fragment_id integer", "\"order\" integer"]),
        ("tool_calls", ["id integer", "response_id text", "name text", "arguments text"]),
        ("tool_results", ["id integer", "response_id text", "name text", "output text", "exception text"]),
        ("threads", ["id text", "name text", "tip_message_hash text", "forked_from text", "datetime_utc text"]),
        ("messages", ["hash text", "parent_hash text", "role text"]),
        ("parts", ["id integer", "message_hash text", "position integer", "type text", "tool_name text", "text text",
                   "payload text"]),
        ("turns", ["id text", "thread_id text", "tip_message_hash text", "model text", "options_json text",
                   "datetime_utc text"]),
    ]

    /// An empty database with the tables, made once: each input's database starts as a copy.
    static let empty: [UInt8]? = {
        let path = ImportTargets.root + "/empty-logs.db"
        unlink(path)
        var db: OpaquePointer?
        defer { sqlite3_close_v2(db) }
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK else { return nil }
        var schema = "create table _llm_migrations (name text);"
        for (table, columns) in tables { schema += "create table \(table) (\(columns.joined(separator: ", ")));" }
        guard sqlite3_exec(db, schema, nil, nil, nil) == SQLITE_OK else { return nil }
        return FileManager.default.contents(atPath: path).map { [UInt8]($0) }
    }()

    /// Inserts `bytes`' rows into `path`, a copy of `empty`; false when SQLite could not.
    static func insert(_ bytes: [UInt8], into path: String) -> Bool {
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let db else {
            sqlite3_close_v2(db)
            return false
        }
        defer { sqlite3_close_v2(db) }
        guard sqlite3_exec(db, "pragma journal_mode = off; pragma synchronous = off; begin", nil, nil, nil) == SQLITE_OK else {
            return false
        }
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            let fields = line.split(separator: 9, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
            guard let table = tables.first(where: { $0.0 == fields[0] }) else { continue }
            let names = table.1.map { $0.split(separator: " ")[0] }
            let sql = "insert into \(table.0) (\(names.joined(separator: ", "))) values (\(names.map { _ in "?" }.joined(separator: ", ")))"
            var statement: OpaquePointer?
            guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else { continue }
            defer { sqlite3_finalize(statement) }
            for (k, value) in fields.dropFirst().prefix(table.1.count).enumerated() {
                let at = Int32(k + 1)
                if value == "~" {
                    sqlite3_bind_null(statement, at)
                } else if value.hasPrefix("#"), let number = Double(value.dropFirst()) {
                    if let integer = Int64(value.dropFirst()) { sqlite3_bind_int64(statement, at, integer) } else { sqlite3_bind_double(statement, at, number) }
                } else if value.hasPrefix("x:") {
                    let hex = Array(value.utf8.dropFirst(2))
                    let blob = stride(from: 0, to: hex.count - 1, by: 2).compactMap { UInt8(String(decoding: hex[$0...($0 + 1)], as: UTF8.self), radix: 16) }
                    _ = blob.withUnsafeBytes { sqlite3_bind_blob(statement, at, $0.baseAddress, Int32($0.count), transient) }
                } else {
                    sqlite3_bind_text(statement, at, value, -1, transient)
                }
            }
            _ = sqlite3_step(statement)
        }
        return sqlite3_exec(db, "commit", nil, nil, nil) == SQLITE_OK
    }
}
