import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The terminal while the app runs: raw keys (no echo, no line buffering, no signal keys:
/// Ctrl-C, Ctrl-Z and Ctrl-\ arrive as keys), the alternate screen, bracketed paste; and always
/// given back as it was found.
///
/// Given back on every way out: `leave()` on a normal end; a handler for the crash signals
/// (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP) that writes the leaving sequence and
/// puts the settings back with async-signal-safe calls only, then lets the signal go on; and
/// for SIGKILL, which no process can catch, the front end's guard (`vault ui` runs the app as
/// its child and waits for it, so the shell waits for the guard) writes the leaving sequence
/// and puts the settings back before the shell gets its terminal again.
///
/// Ctrl-Z is a key here (raw mode): `suspend()` gives the terminal back, stops the process
/// (SIGTSTP to its group, as the shell expects), and on `fg` takes the terminal again and has
/// the screen drawn whole. SIGWINCH (a resize), SIGCONT (a `fg` after a stop from outside) and
/// SIGTSTP from `kill` are turned into bytes on `events`, for the app's `poll`.
package final class TerminalMode {
    package let input: Int32
    package let output: Int32
    private var saved = termios()
    private var active = false

    /// What arrived by signal, read from `events`.
    package enum Event: UInt8 {
        case resized = 1
        case continued = 2
        case stopRequested = 3
    }

    /// Readable when a resize, a continue or a stop request arrived (`takeEvents`).
    package let events: Int32
    private static let eventWriter = Atomic<Int32>(-1)

    /// The settings and sequences the crash handler puts back, kept where a signal handler can
    /// reach them without allocating.
    nonisolated(unsafe) private static var crashRestore = termios()
    nonisolated(unsafe) private static var crashOutput: Int32 = -1
    nonisolated(unsafe) private static var crashHandlersInstalled = false
    /// The crash signals' actions before the app's, which its handler hands the signal on to.
    nonisolated(unsafe) private static var previousActions: [sigaction] = (0..<32).map { _ in sigaction() }

    static let enterSequence = "\u{1B}[?1049h\u{1B}[?2004h\u{1B}[?1h\u{1B}=\u{1B}[H\u{1B}[2J"
    /// What gives the screen back (the main screen, the cursor, no paste brackets, colors
    /// reset): also what `vault ui`'s guard writes when the app was killed in the middle.
    package static let leaveSequence = "\u{1B}[?2026l\u{1B}[0m\u{1B}[?25h\u{1B}[?2004l\u{1B}[?1l\u{1B}>\u{1B}[?1049l"
    private static let leaveBytes: [UInt8] = Array(leaveSequence.utf8)

    /// Opens the terminal on `input`/`output`; nil when they are not a terminal.
    package init?(input: Int32 = 0, output: Int32 = 1) {
        guard isatty(input) == 1, isatty(output) == 1, tcgetattr(input, &saved) == 0 else { return nil }
        self.input = input
        self.output = output
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return nil }
        events = ends[0]
        for fd in ends {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        TerminalMode.eventWriter.store(ends[1], ordering: .sequentiallyConsistent)
    }

    /// The terminal's size (rows, columns): the kernel's, else `LINES`/`COLUMNS`, else 24 × 80.
    package func size(environment: [String: String]) -> (rows: Int, columns: Int) {
        var w = winsize()
        if ioctl(output, UInt(TIOCGWINSZ), &w) == 0, w.ws_row > 0, w.ws_col > 0 {
            return (Int(w.ws_row), Int(w.ws_col))
        }
        let rows = environment["LINES"].flatMap(Int.init) ?? 24
        let columns = environment["COLUMNS"].flatMap(Int.init) ?? 80
        return (max(rows, 1), max(columns, 1))
    }

    /// Raw keys, the alternate screen, bracketed paste; the handlers of the crash and job
    /// signals installed.
    package func enter() {
        var raw = saved
        // cfmakeraw, keeping output processing (a newline is still a newline) off too: the
        // renderer moves the cursor itself.
        raw.c_iflag &= ~tcflag_t(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR | IGNCR | ICRNL | IXON)
        raw.c_oflag &= ~tcflag_t(OPOST)
        raw.c_lflag &= ~tcflag_t(ECHO | ECHONL | ICANON | ISIG | IEXTEN)
        raw.c_cflag &= ~tcflag_t(CSIZE | PARENB)
        raw.c_cflag |= tcflag_t(CS8)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        TerminalMode.crashRestore = saved
        TerminalMode.crashOutput = output
        TerminalMode.installHandlers()
        // TCSADRAIN, not TCSAFLUSH: keys typed ahead (while the app starts, right after `fg`) are
        // kept, not thrown away.
        tcsetattr(input, TCSADRAIN, &raw)
        write(TerminalMode.enterSequence)
        active = true
    }

    /// Raw keys and the app's screen again after the process was stopped and continued from
    /// outside (SIGSTOP, then SIGCONT): the shell may have put its own settings back meanwhile.
    package func reassert() {
        guard active else { return }
        active = false
        enter()
    }

    /// The terminal as it was found: the main screen, the person's settings.
    package func leave() {
        guard active else { return }
        active = false
        write(TerminalMode.leaveSequence)
        tcsetattr(input, TCSADRAIN, &saved)
    }

    /// Ctrl-Z: the terminal given back, the process stopped as a job; returns after `fg`
    /// with the terminal taken again (the caller draws the screen whole).
    package func suspend() {
        leave()
        // The default action for SIGTSTP while it is sent, so the shell sees a stopped job.
        var previous = sigaction()
        var stop = sigaction()
        stop.__sigaction_handler.sa_handler = SIG_DFL
        sigemptyset(&stop.sa_mask)
        sigaction(SIGTSTP, &stop, &previous)
        kill(0, SIGTSTP)
        sigaction(SIGTSTP, &previous, nil)
        // Here after SIGCONT.
        var now = termios()
        tcgetattr(input, &now)
        saved = now
        enter()
    }

    /// Writes all of `bytes` to the terminal, going on after a signal; false when the terminal
    /// is gone (a closed ssh session).
    @discardableResult
    package func write(_ bytes: [UInt8]) -> Bool {
        var done = 0
        while done < bytes.count {
            let n = bytes[done...].withUnsafeBytes { Glibc.write(output, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN {
                    var fds = pollfd(fd: output, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&fds, 1, 100)
                    continue
                }
                return false
            }
            done += n
        }
        return true
    }

    @discardableResult
    package func write(_ text: String) -> Bool { write(Array(text.utf8)) }

    /// The signal events that arrived since the last call.
    package func takeEvents() -> [Event] {
        var buffer = [UInt8](repeating: 0, count: 64)
        var taken: [Event] = []
        while true {
            let n = read(events, &buffer, buffer.count)
            guard n > 0 else { break }
            taken += buffer[..<n].compactMap(Event.init(rawValue:))
        }
        return taken
    }

    private static func installHandlers() {
        guard !crashHandlersInstalled else { return }
        crashHandlersInstalled = true
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { signal in
            let writer = TerminalMode.eventWriter.load(ordering: .relaxed)
            guard writer >= 0 else { return }
            var byte: UInt8 =
                signal == SIGWINCH
                ? Event.resized.rawValue : signal == SIGCONT ? Event.continued.rawValue : Event.stopRequested.rawValue
            _ = Glibc.write(writer, &byte, 1)
        }
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        for signal in [SIGWINCH, SIGCONT, SIGTSTP] { sigaction(signal, &action, nil) }

        var crash = sigaction()
        crash.__sigaction_handler.sa_handler = { signal in
            // Only async-signal-safe calls: write, tcsetattr, sigaction, raise. Then the action
            // there was before (Swift's backtrace, now on the person's own screen).
            if TerminalMode.crashOutput >= 0 {
                TerminalMode.leaveBytes.withUnsafeBytes { _ = Glibc.write(TerminalMode.crashOutput, $0.baseAddress, $0.count) }
                _ = tcsetattr(TerminalMode.crashOutput, TCSANOW, &TerminalMode.crashRestore)
            }
            if signal >= 0, signal < 32 {
                _ = sigaction(signal, &TerminalMode.previousActions[Int(signal)], nil)
            } else {
                Glibc.signal(signal, SIG_DFL)
            }
            raise(signal)
        }
        sigemptyset(&crash.sa_mask)
        crash.sa_flags = Int32(bitPattern: UInt32(SA_RESETHAND))
        for signal in [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP] {
            sigaction(signal, &crash, &previousActions[Int(signal)])
        }
        _ = leaveBytes.count
    }
}
