import CGit2
import Foundation
import VaultCore

#if canImport(Glibc)
import Glibc
#endif

extension GitHistory {
    /// git's own threshold of loose objects before `git gc --auto` packs them.
    static let defaultLooseObjectLimit = 6700

    /// Starts `git gc --auto` when loose objects have piled up past git's threshold.
    ///
    /// Every vault commit writes loose objects (a chat turn on a 20,000-room vault writes a
    /// 1.2 MB tree), and libgit2 has no garbage collector. The git command line packs a
    /// repository on its own (`git commit` runs `git gc --auto`); vault does the same: after a
    /// commit it estimates the loose objects the way git does (the files in one of the 256
    /// fan-out folders, `objects/17`), and past `gc.auto` (default 6,700; 0 turns it off) it
    /// runs `git gc --auto --quiet`, which packs in the background and is safe next to other
    /// git programs. Without the git command line nothing happens: the repository stays
    /// correct, only larger, until someone runs `git gc`.
    ///
    /// - Returns: whether `git gc --auto` was started.
    @discardableResult
    func packIfNeeded() -> Bool {
        let limit = looseObjectLimit()
        guard limit > 0 else { return false }
        guard let folder = opendir(gitDirectory + "/objects/17") else { return false }
        var count = 0
        while let entry = readdir(folder) {
            // Object files are named by the 38 hex digits that follow the folder's two.
            if withUnsafeBytes(of: entry.pointee.d_name, { strnlen($0.baseAddress!.assumingMemoryBound(to: CChar.self), 256) }) == 38 {
                count += 1
            }
        }
        closedir(folder)
        guard count > (limit + 255) / 256 else { return false }
        return GitHistory.runQuietly(["git", "-C", root, "gc", "--auto", "--quiet"])
    }

    /// `gc.auto` from git's configuration (repository, user, system), else git's default.
    func looseObjectLimit() -> Int {
        var config: OpaquePointer?
        guard git_repository_config_snapshot(&config, repo) == 0 else { return GitHistory.defaultLooseObjectLimit }
        defer { git_config_free(config) }
        var value: Int32 = 0
        guard git_config_get_int32(&value, config, "gc.auto") == 0 else { return GitHistory.defaultLooseObjectLimit }
        return Int(value)
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
