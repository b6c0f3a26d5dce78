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
    /// vault's threshold of loose object bytes (`vault.looseObjectBytes`): 256 MiB.
    static let defaultLooseByteLimit: Int64 = 256 << 20

    /// Starts `git gc --auto` when loose objects have piled up.
    ///
    /// Every vault commit writes loose objects (a chat turn on a 20,000-room vault writes a
    /// 1.2 MB tree), and libgit2 has no garbage collector. The git command line packs a
    /// repository on its own (`git commit` runs `git gc --auto`); vault does the same:
    /// - past git's `gc.auto` loose objects (default 6,700), estimated as git does from one
    ///   of the 256 fan-out folders (`objects/17`), it runs `git gc --auto --quiet`;
    /// - past `vault.looseObjectBytes` bytes of objects written by vault since it last had
    ///   them packed (default 256 MiB; kept in `.vault/loose-bytes`), it runs `git repack -d -l`
    ///   (the loose objects into a new pack): large trees fill that long before the count.
    /// `gc.auto=0` turns both off. git packs in the background and is safe next to other git
    /// programs. Without the git command line nothing happens: the repository stays correct,
    /// only larger, until someone runs `git gc`.
    ///
    /// - Returns: whether `git gc` was started.
    @discardableResult
    func packIfNeeded() -> Bool {
        let (countLimit, byteLimit) = looseObjectLimits()
        let written = recordWrittenBytes()
        guard countLimit > 0 else { return false }
        if looseObjectsInSample() > (countLimit + 255) / 256 {
            resetWrittenBytes()
            return GitHistory.runQuietly(["git", "-C", root, "gc", "--auto", "--quiet"])
        }
        if byteLimit > 0, written > byteLimit {
            resetWrittenBytes()
            // Not `gc --auto` with `gc.auto=1`: that still estimates from `objects/17`, which a
            // few large objects can leave with one entry or none, and then packs nothing.
            return GitHistory.runQuietly(["git", "-C", root, "repack", "-d", "-l", "-q"])
        }
        return false
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

    var writtenBytesPath: String { root + "/" + VaultPath.state + "/loose-bytes" }

    /// Adds what this process's object writer wrote since the last call to the vault's tally
    /// (`.vault/loose-bytes`) and returns the new total.
    func recordWrittenBytes() -> Int64 {
        let total = Int64(clamping: cvault_odb_writer_bytes_written(objects.writer))
        let new = total - writtenBytesCounted + streamedBytesWritten
        writtenBytesCounted = total
        streamedBytesWritten = 0
        let previous = (try? FileIO.read(writtenBytesPath)).flatMap { Int64(String(decoding: $0, as: UTF8.self)) } ?? 0
        let sum = previous + new
        if new > 0 { writeTally(sum) }
        return sum
    }

    func resetWrittenBytes() { writeTally(0) }

    private func writeTally(_ value: Int64) {
        // A tally, not data: a plain write is enough (a torn one reads as 0).
        try? FileIO.makeDirectory(root + "/" + VaultPath.state)
        let fd = open(writtenBytesPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return }
        let text = Array(String(value).utf8)
        _ = text.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    /// `gc.auto` and `vault.looseObjectBytes` from git's configuration (repository, user,
    /// system), else the defaults.
    func looseObjectLimits() -> (count: Int, bytes: Int64) {
        var config: OpaquePointer?
        guard git_repository_config_snapshot(&config, repo) == 0 else {
            return (GitHistory.defaultLooseObjectLimit, GitHistory.defaultLooseByteLimit)
        }
        defer { git_config_free(config) }
        var count: Int32 = 0
        if git_config_get_int32(&count, config, "gc.auto") != 0 { count = Int32(GitHistory.defaultLooseObjectLimit) }
        var bytes: Int64 = 0
        if git_config_get_int64(&bytes, config, "vault.looseObjectBytes") != 0 { bytes = GitHistory.defaultLooseByteLimit }
        return (Int(count), bytes)
    }

    /// Runs a program with no input or output and waits for it (`git gc --auto` detaches
    /// itself to pack in the background). False when it cannot be started or fails.
    static func runQuietly(_ arguments: [String]) -> Bool {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd: Int32 in [0, 1, 2] {
            posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Its own process group: a Ctrl-C meant for vault does not stop the packing.
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        var pid: pid_t = 0
        let started = withCStrings(arguments) { pointers -> Int32 in
            var argv = pointers.map { UnsafeMutablePointer(mutating: $0) } + [nil]
            return posix_spawnp(&pid, arguments[0], &actions, &attributes, &argv, environ)
        }
        guard started == 0 else { return false }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return status == 0
    }
}
