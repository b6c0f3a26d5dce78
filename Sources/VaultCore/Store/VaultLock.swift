import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The vault-wide lock that makes two `vault` processes take turns.
///
/// Held with `flock(2)` on `.vault/lock`, so the kernel releases it when a
/// process dies: a crash never leaves a stale lock behind. The holder writes
/// its pid into the file so a waiting process can say who it waits for.
public final class VaultLock {
    private let fd: Int32
    public let path: String

    /// Takes the lock, waiting up to `timeout` seconds for another process to release it.
    ///
    /// `name` is the lock's file in `.vault/` (`lock`, the vault's; `sync-lock`, held for a
    /// whole `vault sync`); `doing` is written after the pid, so that a waiting process can say
    /// what it waits for (`pid 4242 (vault sync)`).
    public init(vaultRoot: String, name: String = "lock", timeout: Double = 30, doing: String? = nil)
        throws(VaultError)
    {
        let dir = vaultRoot + "/" + VaultPath.state
        try FileIO.makeDirectory(dir)
        path = dir + "/" + name
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw VaultError.io(path: path, operation: "open the lock", reason: FileIO.errorText()) }
        var waited = 0.0
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                let reason = FileIO.errorText()
                close(fd)
                throw VaultError.io(path: path, operation: "lock", reason: reason)
            }
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
        }
        let note = Array("pid \(getpid())\(doing.map { " (\($0))" } ?? "")\n".utf8)
        ftruncate(fd, 0)
        _ = note.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
    }

    deinit {
        ftruncate(fd, 0)
        flock(fd, LOCK_UN)
        close(fd)
    }
}
