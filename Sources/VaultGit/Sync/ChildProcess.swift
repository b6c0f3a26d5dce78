import Foundation
import VaultCore

#if canImport(Glibc)
import Glibc
#endif

/// Runs a program with `posix_spawn` and collects what it prints.
///
/// Foundation's `Process` on Linux spends about 60 ms starting each child (it walks every
/// possible file descriptor to close it); a sync runs git three or four times, and a sync with
/// nothing to do should take about as long as `git pull`. Here the child gets only the three
/// descriptors it needs (stdin, and the two pipes, opened close-on-exec on our side).
enum ChildProcess {
    struct Result {
        var status: Int32
        var stdout: [UInt8]
        var stderr: [UInt8]
    }

    /// Runs `path` with `arguments` (argv[1…]) with exactly `environment`, in vault's working
    /// folder (git is given its folder with `-C`).
    /// `inheritStdin`: the child reads the terminal (a password prompt); else `stdinFile`, else
    /// /dev/null.
    /// `onStderr`: given each piece of standard error as it arrives (git's progress), on the
    /// calling thread, while standard output is drained on another; the result holds it all too.
    static func run(
        _ path: String, _ arguments: [String], environment: [String: String],
        inheritStdin: Bool = false, stdinFile: String? = nil, captureOutput: Bool = true,
        onStderr: (([UInt8]) -> Void)? = nil
    ) throws(VaultError) -> Result {
        var outPipe: [Int32] = [-1, -1]
        var errPipe: [Int32] = [-1, -1]
        guard pipe(&outPipe) == 0 else { throw failure(path) }
        guard pipe(&errPipe) == 0 else {
            close(outPipe[0]); close(outPipe[1])
            throw failure(path)
        }
        for fd in outPipe + errPipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if !inheritStdin { posix_spawn_file_actions_addopen(&actions, 0, stdinFile ?? "/dev/null", O_RDONLY, 0) }
        if captureOutput {
            posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
            posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // The child starts with default signal handling and nothing blocked (a test runner
        // or vault's own handlers may block SIGTERM, SIGINT).
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let env = environment.map { "\($0.key)=\($0.value)" }
        var pid: pid_t = 0
        let started = withCStrings([path] + arguments) { argv -> Int32 in
            withCStrings(env) { envp -> Int32 in
                var a = argv.map { UnsafeMutablePointer(mutating: $0) } + [nil]
                var e = envp.map { UnsafeMutablePointer(mutating: $0) } + [nil]
                return posix_spawn(&pid, path, &actions, &attributes, &a, &e)
            }
        }
        close(outPipe[1])
        close(errPipe[1])
        guard started == 0 else {
            close(outPipe[0]); close(errPipe[0])
            throw failure(path, errno: started)
        }
        // Both pipes are drained while the child runs, so a long output never blocks it.
        let out = LockedBytes()
        let group = DispatchGroup()
        let outFD = outPipe[0]
        DispatchQueue.global().async(group: group) { out.value = ChildProcess.readAll(outFD) }
        let err = readAll(errPipe[0], each: onStderr)
        group.wait()
        close(outPipe[0])
        close(errPipe[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        // Exit status, or 128 + the signal that ended it (as a shell reports it).
        let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return Result(status: code, stdout: out.value, stderr: err)
    }

    /// Everything `fd` gives until its end; each piece also to `each`, as it is read.
    private static func readAll(_ fd: Int32, each: (([UInt8]) -> Void)? = nil) -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n > 0 {
                bytes += buffer[0..<n]
                each?(Array(buffer[0..<n]))
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                return bytes
            }
        }
    }

    private static func failure(_ path: String, errno code: Int32 = errno) -> VaultError {
        .repository(.cannotRun(program: path, reason: String(cString: strerror(code))))
    }
}

/// Bytes written by one thread and read by another after a `DispatchGroup.wait()`.
final class LockedBytes: @unchecked Sendable {
    var value: [UInt8] = []
}
