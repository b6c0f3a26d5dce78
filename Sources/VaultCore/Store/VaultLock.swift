import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An `flock(2)` on a file in `.vault/`: the vault-wide lock that makes two `vault` processes
/// take turns, the sync lock, and a room's turn lock.
///
/// The kernel releases the lock when its holder ends, however it ends: a crash never leaves a
/// stale lock behind. The holder writes its pid into the file so a waiting process can say who
/// it waits for.
///
/// - The vault's lock (`.vault/lock`) and the sync lock (`.vault/sync-lock`, held for a whole
///   `vault sync`): `init(vaultRoot:name:timeout:doing:)` waits up to a timeout, then fails
///   naming the holder.
/// - A room's turn lock: one chat turn at a time in a room (`init(turnIn:of:report:)`). A turn
///   holds the vault's lock only while it writes; while the reply streams, other commands may
///   work. Two turns in one room at once would put both questions first and both replies after
///   them, and the second turn's commit would take in the first's unanswered message as a hand
///   edit (`edit: …`). So a turn holds this lock, on `.vault/turns/<FNV-1a of the room's path>`,
///   from before it writes the person's message until its reply is committed; a second turn in
///   that room says it waits, and waits as long as the turn in progress takes.
public final class VaultLock {
    private let fd: Int32
    public let path: String

    /// Takes the lock, waiting up to `timeout` seconds for another process to release it.
    ///
    /// `name` is the lock's file in `.vault/` (`lock`, the vault's; `sync-lock`, held for a
    /// whole `vault sync`); `doing` is written after the pid, so that a waiting process can say
    /// what it waits for (`pid 4242 (vault sync)`).
    public convenience init(vaultRoot: String, name: String = "lock", timeout: Double = 30, doing: String? = nil)
        throws(VaultError)
    {
        let dir = vaultRoot + "/" + VaultPath.state
        try FileIO.makeDirectory(dir)
        try self.init(
            path: dir + "/" + name, opening: "open the lock", doing: doing, waiting: .upTo(seconds: timeout))
    }

    /// Takes the turn lock of the room at `room` (relative to the vault), waiting as long as the
    /// turn in progress takes; `report` says once that it waits, and for whom.
    convenience init(turnIn room: String, of vault: Vault, report: @escaping (String) -> Void) throws(VaultError) {
        let folder = vault.absolute(VaultPath.state + "/turns")
        try FileIO.makeDirectory(folder)
        let path = folder + "/" + String(TailWrite.fnv1a(Array(room.utf8)), radix: 16)
        try self.init(path: path, opening: "open the turn lock", doing: nil, waiting: .forTheTurn(in: room, report: report))
    }

    /// How a lock held by another process is waited for.
    private enum Waiting {
        /// Tried again every 20 ms for `seconds`, then `VaultError.locked` naming the holder.
        case upTo(seconds: Double)
        /// Said once (`report`), then waited for as long as it takes.
        case forTheTurn(in: String, report: (String) -> Void)
    }

    private init(path: String, opening: String, doing: String?, waiting: Waiting) throws(VaultError) {
        self.path = path
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw VaultError.io(path: path, operation: opening, reason: FileIO.errorText()) }
        var waited = 0.0
        taking: while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else { throw failure() }
            switch waiting {
            case .upTo(let timeout):
                if waited >= timeout {
                    // Read through this descriptor: `FileIO.read` takes a shared `flock`, which would
                    // wait for the holder to end.
                    var bytes = [UInt8](repeating: 0, count: 256)
                    let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
                    let holder = String(decoding: bytes.prefix(max(0, n)), as: UTF8.self)
                    close(fd)
                    let text = holder.trimmingCharacters(in: .whitespacesAndNewlines)
                    throw VaultError.locked(path: path, holder: text.isEmpty ? "unknown" : text)
                }
                usleep(20_000)
                waited += 0.02
            case .forTheTurn(let room, let report):
                let holder = (try? FileIO.pread(fd, offset: 0, count: 64, path: path))
                    .map { String(decoding: $0, as: UTF8.self) }
                let who = holder?.split(separator: "\n").first.map { " (vault \($0))" } ?? ""
                report("waiting for the turn in progress in \(room)\(who) to finish…")
                while flock(fd, LOCK_EX) != 0 {
                    guard errno == EINTR else { throw failure() }
                }
                break taking
            }
        }
        let note = Array("pid \(getpid())\(doing.map { " (\($0))" } ?? "")\n".utf8)
        ftruncate(fd, 0)
        _ = note.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
    }

    /// The error of a failed `flock` (`errno` as it is now), the descriptor closed.
    private func failure() -> VaultError {
        let reason = FileIO.errorText()
        close(fd)
        return VaultError.io(path: path, operation: "lock", reason: reason)
    }

    deinit {
        ftruncate(fd, 0)
        flock(fd, LOCK_UN)
        close(fd)
    }
}
