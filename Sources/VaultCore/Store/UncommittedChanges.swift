import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The files a running `vault` has changed, or is about to change, and not committed yet, so
/// that the next command commits them if this one is killed first.
///
/// A change writes its files, then commits them. A process killed in between (SIGKILL, the
/// OOM killer, a crash) leaves the files changed and uncommitted; before this record, only a
/// later command on the same file committed them, and `git status` stayed unclean until then.
/// Now every write (`Vault.write`, `Vault.replaceTail`, `Vault.remove`, `Vault.willChange`
/// before an editor runs) first notes its path in `.vault/uncommitted/<pid>-<random>`, which
/// the process holds with an exclusive `flock` for as long as it lives; a commit
/// (`committed`) takes its paths out again, and the file goes when it is empty.
///
/// The next command that changes the vault (`Vault.changing`, under the vault's lock) looks
/// for records whose `flock` it can take: their process has ended. It commits their files as
/// they are (`recover: …`; a file that is as committed makes no commit) and removes the
/// record. A record whose process still runs (a chat turn waiting for its reply) is left to
/// that process. The record is not flushed to disk: it covers a killed process, not a power
/// cut (after one, the next command that changes the file commits it, as before).
public enum UncommittedChanges {
    /// This process's record in each vault it changed (tests change many vaults at once).
    private static let records = Mutex<[String: Record]>([:])

    /// One process's record.
    struct Record {
        var fd: Int32
        var path: String
        var paths: [String]
    }

    /// Notes that this process is about to change `paths` (relative to the vault at `root`) and
    /// will commit them. Call it inside `Vault.changing`, before the first byte is written.
    public static func note(_ paths: [String], root: String) throws(VaultError) {
        let result = records.withLock { records -> Result<Void, VaultError> in
            var record: Record
            if let existing = records[root] {
                record = existing
                if paths.allSatisfy({ record.paths.contains($0) }) { return .success(()) }
            } else {
                switch create(root: root) {
                case .success(let made): record = made
                case .failure(let error): return .failure(error)
                }
            }
            for path in paths where !record.paths.contains(path) { record.paths.append(path) }
            records[root] = record
            return write(record)
        }
        try result.get()
    }

    /// Takes `paths` out of this process's record in the vault at `root`: they are committed.
    public static func committed(_ paths: [String], root: String) {
        records.withLock { records in
            guard var record = records[root] else { return }
            record.paths.removeAll { paths.contains($0) }
            if record.paths.isEmpty {
                // Emptied before it goes: whoever opened it meanwhile finds nothing to do.
                ftruncate(record.fd, 0)
                unlink(record.path)
                close(record.fd)
                records[root] = nil
            } else {
                records[root] = record
                _ = write(record)
            }
        }
    }

    /// A record left by a process that ended before it committed: its files, and what it was.
    public struct Orphan {
        /// The files, relative to the vault.
        public var paths: [String]
        /// The command and process that left them (`vault chat, pid 1234`).
        public var origin: String
        let fd: Int32
        let path: String

        /// Removes the record (after its files were committed).
        public func discard() {
            unlink(path)
            close(fd)
        }

        /// Leaves the record for a later command.
        public func release() { close(fd) }
    }

    /// The records in the vault at `root` whose processes have ended, each held (`flock`) until
    /// it is discarded or released.
    public static func orphans(root: String) -> [Orphan] {
        let folder = root + "/" + VaultPath.state + "/uncommitted"
        var out: [Orphan] = []
        for entry in FileIO.list(folder) where !entry.isDirectory {
            let path = folder + "/" + entry.name
            let fd = open(path, O_RDWR | O_CLOEXEC)
            guard fd >= 0 else { continue }
            if entry.name.hasPrefix(".") {
                // A record its process was still making when it ended: it named nothing yet.
                if flock(fd, LOCK_EX | LOCK_NB) == 0 { unlink(path) }
                close(fd)
                continue
            }
            // Held: its process still runs (this one's own record is held too).
            guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
                close(fd)
                continue
            }
            let bytes = (try? FileIO.pread(fd, offset: 0, count: 1 << 20, path: path)) ?? []
            let (paths, origin) = parse(bytes)
            out.append(Orphan(paths: paths, origin: origin, fd: fd, path: path))
        }
        return out
    }

    // MARK: The file

    ///     vault-uncommitted 1
    ///     by vault chat, pid 1234
    ///     rooms/부산-여행.md
    ///     attachments/9f86d0….png
    static func text(_ record: Record) -> [UInt8] {
        let head = "vault-uncommitted 1\nby vault \(command), pid \(getpid())\n"
        return Array((head + record.paths.map { $0 + "\n" }.joined()).utf8)
    }

    static func parse(_ bytes: [UInt8]) -> (paths: [String], origin: String) {
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
        guard lines.count >= 2, lines[0] == "vault-uncommitted 1", lines[1].hasPrefix("by ") else {
            return ([], "vault")
        }
        // Only paths inside the vault, as vault writes them.
        let paths = lines.dropFirst(2).filter { !$0.hasPrefix("/") && !$0.split(separator: "/").contains("..") }
        return (paths, String(lines[1].dropFirst(3)))
    }

    /// The command this process runs (`chat`), for the record.
    static let command: String = {
        var skipNext = false
        for argument in CommandLine.arguments.dropFirst() {
            if skipNext {
                skipNext = false
                continue
            }
            if argument == "--vault" {
                skipNext = true
                continue
            }
            if !argument.hasPrefix("-") { return argument }
        }
        return "(no command)"
    }()

    private static func create(root: String) -> Result<Record, VaultError> {
        let folder = root + "/" + VaultPath.state + "/uncommitted"
        do {
            try FileIO.makeDirectory(folder)
        } catch {
            return .failure(error)
        }
        let name = "\(getpid())-\(String(UInt32.random(in: 0...UInt32.max), radix: 16))"
        // Locked before it has its name: nobody can take it for an ended process's record.
        let temporary = folder + "/." + name
        let fd = open(temporary, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            return .failure(VaultError.io(path: temporary, operation: "create", reason: FileIO.errorText()))
        }
        let path = folder + "/" + name
        guard flock(fd, LOCK_EX) == 0, rename(temporary, path) == 0 else {
            let reason = FileIO.errorText()
            unlink(temporary)
            close(fd)
            return .failure(VaultError.io(path: path, operation: "create", reason: reason))
        }
        return .success(Record(fd: fd, path: path, paths: []))
    }

    private static func write(_ record: Record) -> Result<Void, VaultError> {
        let bytes = text(record)
        let written = bytes.withUnsafeBytes { pwrite(record.fd, $0.baseAddress, $0.count, 0) }
        guard written == bytes.count, ftruncate(record.fd, off_t(bytes.count)) == 0 else {
            return .failure(VaultError.io(path: record.path, operation: "write", reason: FileIO.errorText()))
        }
        return .success(())
    }
}
