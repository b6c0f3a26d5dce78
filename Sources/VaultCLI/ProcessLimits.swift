import Dispatch
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The process's limits on open files (`ulimit -n`) and address space (`ulimit -v`), taken in
/// hand before any command runs, so that a low limit ends a command with a message and a
/// status, never with a signal.
///
/// Why: libdispatch opens three descriptors (epoll, an eventfd, a timerfd) the first time any
/// queue runs work on a thread of its own, and traps (SIGILL, no message) when it cannot; a
/// search, a chat turn's background loading of libgit2 and libcurl, and a listing of many
/// files all get there. With the soft limit raised to the hard one, and that set-up done at
/// start-up while descriptors are free, later work finds `EMFILE` in ordinary calls, which
/// every layer turns into an error naming the file. Below the minimum, nothing is run.
///
///     if let refusal = ProcessLimits.prepare() { … print it, exit 1 }
package enum ProcessLimits {
    /// Open files vault needs: the three standard streams, libdispatch's three, and what a
    /// chat turn holds at once (the vault and turn locks, the journal, the room, git's index,
    /// objects and packs, the reply's spool).
    static let minimumOpenFiles: rlim_t = 32
    /// Address space vault needs to start: the binary and its libraries mapped, ICU's data,
    /// a few threads' stacks and malloc arenas.
    static let minimumAddressSpace: rlim_t = 1 << 30
    /// Address space below which even reading the command line (ArgumentParser's reflection)
    /// may run out of memory and crash: measured, a debug build parses `vault chat ROOM TEXT`
    /// in 150,000 KiB and crashes in 100,000 KiB; kept at twice the first.
    static let parsingAddressSpace: rlim_t = 300_000 * 1024

    /// Whether the command line can be read with the limits as they are now.
    package static var canParse: Bool {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &limit) == 0 else { return true }
        return limit.rlim_cur == rlim_t.max || limit.rlim_cur >= parsingAddressSpace
    }

    /// Raises the soft limits on open files and address space to the hard ones, and starts
    /// libdispatch's event loop now while descriptors are free. Returns why no command can
    /// run (the start of a sentence for `vault: error: …`), or nil.
    package static func prepare() -> String? {
        // At most 65,536: the programs vault starts (git, ssh, an editor) inherit the limit, and
        // some go through every descriptor number up to it.
        let files = raise(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), upTo: 1 << 16)
        if files < minimumOpenFiles {
            return "too few open files allowed: the limit (ulimit -n) is \(files), and vault needs at least "
                + "\(minimumOpenFiles); raise it (ulimit -n 1024) and run the command again"
        }
        let space = raise(__rlimit_resource_t(RLIMIT_AS.rawValue))
        if space < minimumAddressSpace {
            return "too little memory allowed: the address space limit (ulimit -v) is \(space / 1024) KiB, and "
                + "vault needs at least \(minimumAddressSpace / 1024) KiB; raise it (ulimit -v unlimited) and run "
                + "the command again"
        }
        // A few hundred descriptors or more: libdispatch gets its own whenever it starts.
        if files < 1024 { startDispatch() }
        return nil
    }

    /// The soft limit `resource` raised to its hard limit (or `cap`, when lower) when it was
    /// lower; the limit now.
    static func raise(_ resource: __rlimit_resource_t, upTo cap: rlim_t = .max) -> rlim_t {
        let unlimited = rlim_t.max  // RLIM_INFINITY, which Swift reads as -1
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return unlimited }
        let target = min(limit.rlim_max, cap)
        if limit.rlim_cur < target {
            var raised = limit
            raised.rlim_cur = target
            if setrlimit(resource, &raised) == 0 { return raised.rlim_cur }
        }
        return limit.rlim_cur
    }

    /// Runs one empty item on a global queue and waits for it: the worker thread sets up
    /// libdispatch's event loop (its descriptors) on the way.
    static func startDispatch() {
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async { done.signal() }
        done.wait()
    }
}
