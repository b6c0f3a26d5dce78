import CGit2
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
    /// repository on its own (`git commit` runs `git gc --auto`); vault does the same. After
    /// a commit it samples one of the 256 fan-out folders (`objects/17`), as git does, and
    /// estimates the loose objects' number and size:
    /// - past git's `gc.auto` objects (default 6,700), it runs `git gc --auto --quiet`;
    /// - past `vault.looseObjectBytes` bytes (default 256 MiB; large trees reach it long
    ///   before the count), it runs the same with `gc.auto=1`, so git packs now.
    /// `gc.auto=0` turns both off. git packs in the background and is safe next to other git
    /// programs. Without the git command line nothing happens: the repository stays correct,
    /// only larger, until someone runs `git gc`.
    ///
    /// - Returns: whether `git gc` was started.
    @discardableResult
    func packIfNeeded() -> Bool {
        let (countLimit, byteLimit) = looseObjectLimits()
        guard countLimit > 0 else { return false }
        let sample = gitDirectory + "/objects/17"
        guard let folder = opendir(sample) else { return false }
        var count = 0
        var bytes: Int64 = 0
        while let entry = readdir(folder) {
            // Object files are named by the 38 hex digits that follow the folder's two.
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
            }
            guard name.utf8.count == 38 else { continue }
            count += 1
            var st = stat()
            if stat(sample + "/" + name, &st) == 0 { bytes += Int64(st.st_size) }
        }
        closedir(folder)
        if count > (countLimit + 255) / 256 {
            return GitHistory.runQuietly(["git", "-C", root, "gc", "--auto", "--quiet"])
        }
        if byteLimit > 0, bytes * 256 > byteLimit {
            return GitHistory.runQuietly(["git", "-C", root, "-c", "gc.auto=1", "gc", "--auto", "--quiet"])
        }
        return false
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
