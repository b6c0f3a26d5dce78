#if canImport(Glibc)
import Glibc
#endif

/// One chat turn at a time in a room: the next waits for the one in progress.
///
/// A turn holds the vault's lock only while it writes; while the reply streams, other
/// commands may work. Two turns in one room at once would put both questions first and both
/// replies after them, and the second turn's commit would take in the first's unanswered
/// message as a hand edit (`edit: …`). So a turn holds this lock, an `flock` on
/// `.vault/turns/<FNV-1a of the room's path>`, from before it writes the person's message until
/// its reply is committed; a second turn in that room says it waits, and waits. The kernel
/// releases the lock when its holder ends, however it ends.
final class TurnLock {
    private let fd: Int32

    /// Takes the lock of the room at `room` (relative to the vault), waiting as long as the
    /// turn in progress takes; `report` says once that it waits, and for whom.
    init(vault: Vault, room: String, report: (String) -> Void) throws(VaultError) {
        let folder = vault.absolute(VaultPath.state + "/turns")
        try FileIO.makeDirectory(folder)
        let path = folder + "/" + String(TailWrite.fnv1a(Array(room.utf8)), radix: 16)
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw VaultError.io(path: path, operation: "open the turn lock", reason: FileIO.errorText())
        }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                let reason = FileIO.errorText()
                close(fd)
                throw VaultError.io(path: path, operation: "lock", reason: reason)
            }
            let holder = (try? FileIO.pread(fd, offset: 0, count: 64, path: path))
                .map { String(decoding: $0, as: UTF8.self) }
            let who = holder?.split(separator: "\n").first.map { " (vault \($0))" } ?? ""
            report("waiting for the turn in progress in \(room)\(who) to finish…")
            while flock(fd, LOCK_EX) != 0 {
                guard errno == EINTR else {
                    let reason = FileIO.errorText()
                    close(fd)
                    throw VaultError.io(path: path, operation: "lock", reason: reason)
                }
            }
        }
        let note = Array("pid \(getpid())\n".utf8)
        ftruncate(fd, 0)
        _ = note.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
    }

    deinit {
        ftruncate(fd, 0)
        flock(fd, LOCK_UN)
        close(fd)
    }
}
