import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A program vault hands the terminal to while it waits: the person's editor, the pager.
///
/// Foundation's `Process` starts its child in a process group of its own. A program that reads
/// the terminal from a group that is not the terminal's foreground group is stopped by the
/// kernel (SIGTTIN): vim under `Process` shows nothing and waits for ever, in state `T`. So
/// these start with `posix_spawn` in vault's own process group, which is the terminal's
/// foreground group when a shell runs vault as a job, as `git commit` starts the editor
/// (git's `run-command.c`): the program gets the keys, Ctrl-Z stops it and vault together,
/// and `fg` brings both back.
///
/// While it runs, vault ignores SIGINT and SIGQUIT (Ctrl-C and Ctrl-\ are the program's: vim
/// cancels a command with them, less a search); the program itself starts with every signal
/// at its default and none blocked. Afterwards the terminal's settings are put back as they
/// were before it started, should it have ended without restoring them (an editor killed in
/// raw mode). No descriptor of vault's but the three standard ones reaches it.
///
///     let child = try TerminalChild.start("vim -u NONE \"$1\"", arguments: [path])
///     let status = child.wait()          // .exited(0)
struct TerminalChild {
    /// How the program ended.
    enum Status: Equatable {
        case exited(Int32)
        case signaled(Int32)

        /// `exit status 4`, `killed by signal 9`.
        var description: String {
            switch self {
            case .exited(let code): return "exit status \(code)"
            case .signaled(let signal): return "killed by signal \(signal)"
            }
        }
    }

    let pid: pid_t
    /// The terminal's settings when it started, and the descriptor they were read from.
    private let terminal: (descriptor: Int32, settings: termios)?
    /// SIGINT's and SIGQUIT's actions before the program started, restored by `wait`.
    private let interrupt: sigaction
    private let quit: sigaction

    /// Starts `/bin/sh -c COMMAND sh ARGUMENTS…` (so `$1` is the first of `arguments`, and the
    /// command may hold arguments of its own: `code --wait`), with `environment`.
    ///
    /// - Parameters:
    ///   - input: a descriptor to give it as its standard input instead of vault's (the
    ///     pager's pipe).
    ///   - output: one to give it as its standard output (the terminal, when vault's own
    ///     output is not).
    /// - Throws: `errno` as a text when it could not be started.
    static func start(
        _ command: String, arguments: [String] = [], environment: [String: String], input: Int32? = nil,
        output: Int32? = nil
    ) throws(StartFailure) -> TerminalChild {
        try start(
            program: "/bin/sh", arguments: ["/bin/sh", "-c", command, "sh"] + arguments, environment: environment,
            input: input, output: output)
    }

    /// Starts the program at `program` with `arguments` (its `argv`, the name first), as `start`
    /// starts a command line: `vault ui`'s guard starts the app so.
    static func start(
        program: String, arguments all: [String], environment: [String: String], input: Int32? = nil,
        output: Int32? = nil
    ) throws(StartFailure) -> TerminalChild {
        let terminal = ([0, 1, 2] as [Int32]).lazy.compactMap { fd -> (Int32, termios)? in
            var settings = termios()
            guard isatty(fd) == 1, tcgetattr(fd, &settings) == 0 else { return nil }
            return (fd, settings)
        }.first

        var ignore = sigaction()
        ignore.__sigaction_handler.sa_handler = SIG_IGN
        sigemptyset(&ignore.sa_mask)
        var interrupt = sigaction()
        var quit = sigaction()
        sigaction(SIGINT, &ignore, &interrupt)
        sigaction(SIGQUIT, &ignore, &quit)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Ignored and handled signals back at their defaults in the program, none blocked; no
        // POSIX_SPAWN_SETPGROUP: it stays in vault's group, the terminal's foreground.
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGPIPE, SIGTSTP, SIGTTIN, SIGTTOU, SIGCHLD] {
            sigaddset(&defaults, signal)
        }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        posix_spawnattr_setsigmask(&attributes, &unblocked)
        posix_spawnattr_setflags(&attributes, Int16(Int32(POSIX_SPAWN_SETSIGDEF) | Int32(POSIX_SPAWN_SETSIGMASK)))

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let input { posix_spawn_file_actions_adddup2(&actions, input, 0) }
        if let output, output != 1 { posix_spawn_file_actions_adddup2(&actions, output, 1) }
        // No descriptor of vault's beyond the standard three: an inherited lock's descriptor
        // would hold the vault's lock for as long as the editor runs.
        // (glibc's `posix_spawn_file_actions_addclosefrom_np` is not in Swift's Glibc module; a
        // close of a descriptor no longer open when it runs is ignored.)
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? [] {
            if let fd = Int32(entry), fd > 2 { posix_spawn_file_actions_addclose(&actions, fd) }
        }

        var argv: [UnsafeMutablePointer<CChar>?] = all.map { strdup($0) } + [nil]
        var envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for p in argv { free(p) }
            for p in envp { free(p) }
        }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, program, &actions, &attributes, &argv, &envp)
        guard spawned == 0 else {
            sigaction(SIGINT, &interrupt, nil)
            sigaction(SIGQUIT, &quit, nil)
            throw StartFailure(reason: String(cString: strerror(spawned)))
        }
        return TerminalChild(pid: pid, terminal: terminal, interrupt: interrupt, quit: quit)
    }

    struct StartFailure: Error {
        var reason: String
    }

    /// Waits for the program to end, then gives SIGINT and SIGQUIT their actions back and the
    /// terminal its settings (only while vault is in the terminal's foreground: a background
    /// job that sets them is stopped).
    func wait() -> Status { waitReporting().status }

    /// `wait`, saying also whether the terminal's settings had to be put back (the program
    /// ended with them changed).
    func waitReporting() -> (status: Status, settingsPutBack: Bool) {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        var putBack = false
        if let (fd, before) = terminal, tcgetpgrp(fd) == getpgrp() {
            var now = termios()
            if tcgetattr(fd, &now) == 0, !TerminalChild.same(now, before) {
                var settings = before
                tcsetattr(fd, TCSADRAIN, &settings)
                putBack = true
            }
        }
        var interrupt = self.interrupt
        var quit = self.quit
        sigaction(SIGINT, &interrupt, nil)
        sigaction(SIGQUIT, &quit, nil)
        return (status & 0x7F == 0 ? .exited((status >> 8) & 0xFF) : .signaled(status & 0x7F), putBack)
    }

    private static func same(_ a: termios, _ b: termios) -> Bool {
        var a = a
        var b = b
        return memcmp(&a, &b, MemoryLayout<termios>.size) == 0
    }
}
