import CGit2
import CVaultObjects
import Foundation
import VaultCore

#if canImport(Glibc)
    import Glibc
#endif

extension GitHistory {
    /// git's own threshold of loose objects before `git gc --auto` packs them.
    static let defaultLooseObjectLimit = 6700
    /// The least loose object bytes that get packed (`vault.looseObjectBytes`): 16 MiB.
    static let defaultLooseByteLimit: Int64 = 16 << 20

    /// What vault wrote as loose objects since it last had them packed (`.vault/loose-bytes`).
    struct LooseTally: Equatable {
        var bytes: Int64
        var objects: Int64
    }

    /// Packs the repository (in the background) when loose objects have piled up.
    ///
    /// Every vault commit writes loose objects (a chat turn on a long room writes the whole
    /// room as a new blob; on a 20,000-room vault, a 1.2 MB tree), and libgit2 has no garbage
    /// collector. `git commit` runs `git gc --auto`, which estimates the loose objects from one
    /// of its 256 fan-out folders (`objects/17`): a few large blobs leave that folder empty, and
    /// a 52 MB room grew `.git` to 1.8 GB of loose objects in 124 turns. So vault counts what
    /// its object writer writes (`.vault/loose-bytes`: bytes and objects, across commands) and
    /// packs when
    /// - the objects pass git's `gc.auto` (default 6,700; objects written by other programs
    ///   count through git's own `objects/17` estimate), or
    /// - the bytes pass the larger of `vault.looseObjectBytes` (default 16 MiB) and the size of
    ///   the packs: `.git` then stays within about twice what `git gc` keeps (plus that floor),
    ///   and each repack costs no more than what was written since the last.
    ///
    /// Packing is `git repack -a -d -l`: every object reachable from the refs and their logs in
    /// one pack (deltas reused), loose copies removed; refs are not touched, so a commit made
    /// meanwhile is never refused for a lock. Objects not reachable yet (a commit being made
    /// meanwhile) stay loose. It runs in the background in a session of its own (a Ctrl-C meant
    /// for vault does not stop it), unless `gc.autoDetach` is false; one at a time (it holds
    /// `.vault/pack.lock`). `gc.auto=0` turns packing off. Without the git command line nothing
    /// happens: the repository stays correct, only larger, until someone runs `git gc`.
    ///
    /// - Returns: whether packing was started.
    @discardableResult
    func packIfNeeded() -> Bool {
        let limits = looseObjectLimits()
        let tally = recordWrittenObjects()
        guard limits.count > 0 else { return false }
        var due = max(tally.objects, Int64(looseObjectsInSample()) * 256) > Int64(limits.count)
        if !due, tally.bytes > limits.bytes {
            due = tally.bytes > max(limits.bytes, packedBytes())
        }
        guard due else { return false }
        return startPacking(detached: limits.detach)
    }

    /// Starts `git repack -a -d -l` holding `.vault/pack.lock` (the lock's file descriptor is
    /// inherited, so git holds it until it exits); false when a repack holds it already, or git
    /// cannot be started. The tally starts again once it is started.
    func startPacking(detached: Bool) -> Bool {
        let lockPath = root + "/" + VaultPath.state + "/pack.lock"
        try? FileIO.makeDirectory(root + "/" + VaultPath.state)
        // Not O_CLOEXEC: the repack inherits the lock.
        let lock = open(lockPath, O_RDWR | O_CREAT, 0o644)
        guard lock >= 0 else { return false }
        defer { close(lock) }
        guard flock(lock, LOCK_EX | LOCK_NB) == 0 else { return false }
        let started = GitHistory.run(
            ["git", "-C", root, "repack", "-a", "-d", "-l", "-q"], detached: detached, keeping: lock)
        if started { resetWrittenObjects() }
        return started
    }

    /// The loose objects in `objects/17`, one of git's 256 fan-out folders.
    func looseObjectsInSample() -> Int {
        guard let folder = opendir(gitDirectory + "/objects/17") else { return 0 }
        defer { closedir(folder) }
        var count = 0
        while let entry = readdir(folder) {
            // Object files are named by the 38 hex digits that follow the folder's two.
            let length = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                strnlen(raw.baseAddress!.assumingMemoryBound(to: CChar.self), raw.count)
            }
            if length == 38 { count += 1 }
        }
        return count
    }

    /// The bytes of the repository's packs (`objects/pack/*.pack`).
    func packedBytes() -> Int64 {
        let folder = gitDirectory + "/objects/pack"
        guard let listing = opendir(folder) else { return 0 }
        defer { closedir(listing) }
        var total: Int64 = 0
        while let entry = readdir(listing) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
            }
            if name.hasSuffix(".pack") { total += Int64(FileIO.size(of: folder + "/" + name) ?? 0) }
        }
        return total
    }

    var writtenBytesPath: String { root + "/" + VaultPath.state + "/loose-bytes" }

    /// Adds what this process's object writer wrote since the last call to the vault's tally
    /// (`.vault/loose-bytes`) and returns the new total.
    func recordWrittenObjects() -> LooseTally {
        let bytes = Int64(clamping: cvault_odb_writer_bytes_written(objects.writer))
        let count = Int64(clamping: cvault_odb_writer_objects_written(objects.writer))
        // A large blob written in pieces is one object (two in one commit are counted as one).
        let new = LooseTally(
            bytes: bytes - writtenBytesCounted + streamedBytesWritten,
            objects: count - writtenObjectsCounted + (streamedBytesWritten > 0 ? 1 : 0))
        (writtenBytesCounted, writtenObjectsCounted, streamedBytesWritten) = (bytes, count, 0)
        let previous = readTally()
        let sum = LooseTally(bytes: previous.bytes + new.bytes, objects: previous.objects + new.objects)
        if new.bytes > 0 || new.objects > 0 { writeTally(sum) }
        return sum
    }

    /// `.vault/loose-bytes`: "<bytes> <objects>" (a file of one number, from an older vault,
    /// is bytes). Missing or torn, it reads as nothing written.
    func readTally() -> LooseTally {
        let text = (try? FileIO.read(writtenBytesPath)).map { String(decoding: $0, as: UTF8.self) } ?? ""
        let fields = text.split(whereSeparator: { $0 == " " || $0 == "\n" }).map { Int64($0) }
        return LooseTally(bytes: (fields.first ?? 0) ?? 0, objects: (fields.count > 1 ? fields[1] : 0) ?? 0)
    }

    func resetWrittenObjects() { writeTally(LooseTally(bytes: 0, objects: 0)) }

    private func writeTally(_ value: LooseTally) {
        // A tally, not data: a plain write is enough (a torn one reads as less).
        try? FileIO.makeDirectory(root + "/" + VaultPath.state)
        let fd = open(writtenBytesPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return }
        let text = Array("\(value.bytes) \(value.objects)\n".utf8)
        _ = text.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    /// `gc.auto`, `vault.looseObjectBytes` and `gc.autoDetach` from git's configuration
    /// (repository, user, system), else the defaults.
    func looseObjectLimits() -> (count: Int, bytes: Int64, detach: Bool) {
        var config: OpaquePointer?
        guard git_repository_config_snapshot(&config, repo) == 0 else {
            return (GitHistory.defaultLooseObjectLimit, GitHistory.defaultLooseByteLimit, true)
        }
        defer { git_config_free(config) }
        var count: Int32 = 0
        if git_config_get_int32(&count, config, "gc.auto") != 0 { count = Int32(GitHistory.defaultLooseObjectLimit) }
        var bytes: Int64 = 0
        if git_config_get_int64(&bytes, config, "vault.looseObjectBytes") != 0 {
            bytes = GitHistory.defaultLooseByteLimit
        }
        var detach: Int32 = 1
        if git_config_get_bool(&detach, config, "gc.autoDetach") != 0 { detach = 1 }
        return (Int(count), bytes, detach != 0)
    }

    /// Runs a program with no input or output, in a session of its own (a Ctrl-C meant for
    /// vault does not stop it), keeping the file descriptor `keep` open in it. `detached`: not
    /// waited for (a thread of this process reaps it; if vault exits first, init does); else
    /// waited for. False when it cannot be started, or (waited for) fails.
    static func run(_ arguments: [String], detached: Bool, keeping keep: Int32) -> Bool {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd: Int32 in [0, 1, 2] {
            posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // POSIX_SPAWN_SETSID (glibc's 0x80; not visible to Swift without _GNU_SOURCE).
        posix_spawnattr_setflags(&attributes, 0x80)
        var pid: pid_t = 0
        let started = withCStrings(arguments) { pointers -> Int32 in
            var argv = pointers.map { UnsafeMutablePointer(mutating: $0) } + [nil]
            return posix_spawnp(&pid, arguments[0], &actions, &attributes, &argv, environ)
        }
        guard started == 0 else { return false }
        _ = keep  // inherited: opened without O_CLOEXEC
        if detached {
            let child = pid
            Thread.detachNewThread {
                var status: Int32 = 0
                while waitpid(child, &status, 0) < 0 && errno == EINTR {}
            }
            return true
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return status == 0
    }
}
