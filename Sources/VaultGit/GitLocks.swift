import Foundation
import VaultCore

#if canImport(Glibc)
    import Glibc
#endif

/// git's lock files (`index.lock`, `refs/heads/main.lock`), taken so that a later vault can
/// prove that a vault process killed while holding one left it, and remove it.
///
/// git takes a lock by creating `NAME.lock` exclusively, and a process killed while holding one
/// leaves it behind: every later commit, vault's and git's, is refused until someone removes it
/// (33 of 200 `vault` processes killed at random left `index.lock`). Nothing in the lock says
/// who made it. So vault makes the lock as a second name of a file of its own: it creates
/// `.git/vault-locks/<pid>-<start>-<NAME>` (the holder: this process's id and start time,
/// `ProcessIdentity`), then links the lock's name to it (`link` fails, as git's exclusive
/// create does, when the lock exists). The lock and the holder are then one file (same device
/// and inode). A later vault that finds a holder whose process is gone, and a lock that is
/// still that very file, knows the lock is a dead vault's and removes both; any other lock
/// (git's, or one made meanwhile) is never touched. The holder keeps its inode alive, so the
/// number cannot be reused by another lock while it exists.
///
/// Where links are not supported, the lock is made as git makes it, and is not provable.
final class HeldLock: @unchecked Sendable {
    // One owner, used by one thread at a time.
    /// The lock, e.g. `/v/.git/index.lock`.
    let lockPath: String
    /// The holder that proves the lock is ours; nil where links are not supported.
    private(set) var holderPath: String?
    /// The lock file, open for writing (its contents are the new index, or the ref's new value).
    private(set) var fd: Int32

    /// The folder of holders: `.git/vault-locks`.
    static func holderFolder(_ gitDirectory: String) -> String { gitDirectory + "/vault-locks" }

    /// Takes the lock `name` (relative to the git folder), waiting up to `timeout` seconds for
    /// another program to release it. A lock left by a dead vault is removed first.
    ///
    /// - Throws: `VaultError.repository` naming the lock, when it stays taken.
    init(gitDirectory: String, name: String, timeout: Double = 0, whenLocked: String) throws(VaultError) {
        let lock = gitDirectory + "/" + name
        lockPath = lock
        let folder = HeldLock.holderFolder(gitDirectory)
        let holder = folder + "/" + ProcessIdentity.current.tag + "-" + HeldLock.flatten(name)
        if mkdir(folder, 0o755) != 0 && errno != EEXIST { throw HeldLock.failure(folder) }
        let locked = VaultError.repository(.lockFileExists(path: lock, outcome: whenLocked))
        var waited = 0.0
        var cleaned = false
        // Another try after a lock of a dead vault was removed, or after a short wait.
        func again() -> Bool {
            if !cleaned {
                cleaned = true
                if !HeldLock.removeLocksOfDeadVaults(gitDirectory: gitDirectory).isEmpty { return true }
            }
            guard waited < timeout else { return false }
            usleep(10_000)
            waited += 0.01
            return true
        }
        unlink(holder)  // this process's own, from a lock it did not get (it never held it)
        let made = open(holder, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard made >= 0 else { throw HeldLock.failure(holder) }
        while true {
            if link(holder, lock) == 0 {
                fd = made
                holderPath = holder
                return
            }
            let code = errno
            if code == EEXIST, again() { continue }
            close(made)
            unlink(holder)
            if code == EEXIST { throw locked }
            break  // no hard links on this file system
        }
        // Made as git makes it: exclusively, and not provable.
        while true {
            let plain = open(lock, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if plain >= 0 {
                fd = plain
                holderPath = nil
                return
            }
            let code = errno
            if code == EEXIST, again() { continue }
            throw code == EEXIST ? locked : HeldLock.failure(lock, code: code)
        }
    }

    /// Writes `bytes` at the end of the lock file.
    func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var done = 0
        while done < bytes.count {
            let n = Glibc.write(fd, bytes.baseAddress! + done, bytes.count - done)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            done += n
        }
        return true
    }

    /// Flushes what was written into the lock to disk (before `finish(renamingTo: target,
    /// durable: false)`, when the flush should share the disk's wait with other files).
    /// On failure the lock is given up and the error names `target`.
    func flush(target: String) throws(VaultError) {
        guard fsync(fd) != 0 else { return }
        let reason = String(cString: strerror(errno))
        release()
        throw VaultError.repository(.cannotWrite(path: target, reason: reason))
    }

    /// Closes the lock file (flushed first with `durable`) and renames it over `target`: the
    /// change git's lock protocol makes. The holder goes last: killed before, it names a file
    /// that is no longer the lock, which a later vault only cleans away.
    func finish(renamingTo target: String, durable: Bool, truncatingTo size: Int? = nil) throws(VaultError) {
        var ok = true
        if let size { ok = ftruncate(fd, off_t(size)) == 0 }
        if ok, durable { ok = fsync(fd) == 0 }
        let closed = close(fd) == 0
        fd = -1
        guard ok, closed, rename(lockPath, target) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(lockPath)
            dropHolder()
            throw VaultError.repository(.cannotWrite(path: target, reason: reason))
        }
        if durable { HeldLock.syncFolder(FileIO.parent(of: target)) }
        dropHolder()
    }

    /// Gives the lock up without changing what it protects.
    func release() {
        guard fd >= 0 else { return }
        close(fd)
        fd = -1
        unlink(lockPath)
        dropHolder()
    }

    private func dropHolder() {
        if let holderPath { unlink(holderPath) }
        holderPath = nil
    }

    deinit { release() }

    /// Flushes a folder's entries (a rename in it) to disk.
    static func syncFolder(_ path: String) {
        let folder = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { return }
        _ = fsync(folder)
        close(folder)
    }

    /// `refs/heads/main.lock` → `refs%heads%main.lock` (a holder's name; `%` is not in ref names).
    static func flatten(_ name: String) -> String { name.replacingOccurrences(of: "/", with: "%") }

    static func failure(_ path: String, code: Int32 = errno) -> VaultError {
        .repository(.cannotLock(path: path, reason: String(cString: strerror(code))))
    }

    /// Removes the locks of vault processes that are gone: each holder in `.git/vault-locks`
    /// whose process is not running is removed, and with it the lock it names if that lock is
    /// still the holder's own file. Holders of running processes are left alone, and so is
    /// every lock without one.
    ///
    /// - Returns: the locks removed.
    @discardableResult
    static func removeLocksOfDeadVaults(gitDirectory: String) -> [String] {
        let folder = holderFolder(gitDirectory)
        guard let listing = opendir(folder) else { return [] }
        var names: [String] = []
        while let entry = readdir(listing) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
            }
            if name != "." && name != ".." { names.append(name) }
        }
        closedir(listing)
        var removed: [String] = []
        for name in names {
            // <pid>-<start>-<lock name with / as %>
            let parts = name.split(separator: "-", maxSplits: 2)
            guard parts.count == 3, let owner = ProcessIdentity(tag: parts[0] + "-" + parts[1]) else { continue }
            guard !owner.isRunning else { continue }
            let holder = folder + "/" + name
            let lock = gitDirectory + "/" + parts[2].replacingOccurrences(of: "%", with: "/")
            var h = stat()
            var l = stat()
            if stat(holder, &h) == 0, lstat(lock, &l) == 0, h.st_dev == l.st_dev, h.st_ino == l.st_ino,
                unlink(lock) == 0
            {
                removed.append(lock)
            }
            unlink(holder)
        }
        return removed
    }
}
