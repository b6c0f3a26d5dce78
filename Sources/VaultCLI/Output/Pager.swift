import Foundation
import VaultCore

#if canImport(Glibc)
import Glibc
#endif

/// A command whose output goes through the pager on a terminal when it is longer than the screen.
protocol PagedCommand: VaultRunnable {
    var output: OutputOptions { get }
}

/// Long output through a pager, as git does: while the command runs, what it prints to standard
/// output is held in an unnamed temporary file; when it is done, the output goes to the
/// terminal as it is when it fits the screen, else to the pager's standard input.
///
/// The pager is `VAULT_PAGER`, else the user configuration's `pager`, else `$PAGER`, else
/// `less -FRX`, run by `/bin/sh -c`; `LESS=FRX` and `LV=-c` when not set. An empty one or `cat`
/// means none. Only when standard output is a terminal and `--no-pager` is not given; a pager
/// that cannot start (or is not found: status 127) leaves the output printed directly. The
/// pager quitting before reading it all (`q` in less) is no error: paged commands only read.
final class Pager {
    let command: String
    let terminal: Int32
    let held: Int32
    /// The pager already running, fed as the command prints (`pageIfScreenIsFull`), and the
    /// SIGINT disposition to restore when it ends.
    private var streaming: TerminalChild?
    /// How much of the held output `pageIfScreenIsFull` has counted, and the rows it takes.
    private var counted = (bytes: 0, rows: 0)

    /// The pager of the command running now, while it holds the output.
    nonisolated(unsafe) private(set) static var active: Pager?

    init(command: String, terminal: Int32, held: Int32) {
        self.command = command
        self.terminal = terminal
        self.held = held
    }

    /// The pager command, nil for none.
    static func command(environment: [String: String]) -> String? {
        let chosen =
            environment["VAULT_PAGER"]
            ?? (try? UserConfig.load(environment: environment).pager) ?? environment["PAGER"] ?? "less -FRX"
        let trimmed = chosen.trimmingCharacters(in: .whitespaces)
        return trimmed.isEmpty || trimmed == "cat" ? nil : trimmed
    }

    /// Starts holding standard output for the pager, or nil when it is not to be used.
    static func start(_ options: OutputOptions, environment: [String: String] = ProcessInfo.processInfo.environment)
        -> Pager?
    {
        guard !options.noPager, isatty(1) == 1, let command = command(environment: environment) else { return nil }
        guard let file = tmpfile() else { return nil }
        let held = dup(fileno(file))
        fclose(file)
        guard held >= 0 else { return nil }
        fflush(nil)
        let terminal = dup(1)
        guard terminal >= 0, dup2(held, 1) >= 0 else {
            close(held)
            if terminal >= 0 { close(terminal) }
            return nil
        }
        Terminal.terminalOutput.store(terminal, ordering: .relaxed)
        active = Pager(command: command, terminal: terminal, held: held)
        return active
    }

    /// Starts the pager at once, fed what was held, once that fills the screen: what the command
    /// prints after goes straight to it, so the first screen shows while a long listing is still
    /// being written (as git starts its pager). A listing calls it after each row it prints.
    static func pageIfScreenIsFull() {
        guard let pager = active, pager.streaming == nil, pager.runnable, let rows = rows(of: pager.terminal) else { return }
        fflush(nil)
        // Only what was printed since the last call is counted (whole lines).
        var piece = [UInt8](repeating: 0, count: 1 << 16)
        let n = piece.withUnsafeMutableBytes { pread(pager.held, $0.baseAddress, $0.count, off_t(pager.counted.bytes)) }
        guard n > 0, let end = piece[..<n].lastIndex(of: 0x0A) else { return }
        pager.counted.bytes += end + 1
        pager.counted.rows += lines(Array(piece[...end]), columns: Terminal.columns ?? 80, atLeast: rows)
        guard pager.counted.rows >= rows, let (child, writeEnd) = pager.start(output: pager.terminal) else { return }
        let text = pager.readHeld()
        pager.streaming = child
        pager.write(text, to: writeEnd)
        // From now on standard output is the pager's input; the terminal stays `terminalOutput`.
        dup2(writeEnd, 1)
        close(writeEnd)
        Trace.mark("pager: started with the first screen")
    }

    /// Whether the pager's first word is a program that can run (a name found on `PATH`, or a
    /// path): one that is not is found out only when it has ended (status 127), too late for
    /// output already sent to it, so such a pager gets the output when the command is done.
    private lazy var runnable: Bool = {
        guard let first = command.split(whereSeparator: { $0 == " " || $0 == "\t" }).first.map(String.init) else {
            return false
        }
        if first.contains("/") { return access(first, X_OK) == 0 }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let builtins: Set<String> = ["echo", "exec", "command", "printf", "test", "["]
        return builtins.contains(first)
            || path.split(separator: ":").contains { access(String($0) + "/" + first, X_OK) == 0 }
    }()

    /// Gives standard output back to the terminal and shows what was held: directly when it
    /// fits the screen, else through the pager.
    func finish() {
        Pager.active = nil
        fflush(nil)
        if let child = streaming {
            // The pager's input ends here (its last copy was standard output); it is waited for.
            dup2(terminal, 1)
            close(terminal)
            close(held)
            Terminal.terminalOutput.store(1, ordering: .relaxed)
            _ = child.wait()
            return
        }
        dup2(terminal, 1)
        close(terminal)
        Terminal.terminalOutput.store(1, ordering: .relaxed)
        let text = readHeld()
        close(held)
        guard !text.isEmpty else { return }
        // What was written while held: an error there (a full disk) is the file's, not the terminal's.
        if let rows = Pager.rows(of: 1), Pager.lines(text, columns: Terminal.columns ?? 80, atLeast: rows) >= rows,
            show(text)
        {
            return
        }
        Terminal.write(bytes: text, to: 1)
    }

    private func readHeld() -> [UInt8] {
        var out: [UInt8] = []
        lseek(held, 0, SEEK_SET)
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(held, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            out += chunk[0..<n]
        }
        return out
    }

    /// The terminal's height in rows, nil when unknown.
    static func rows(of fd: Int32) -> Int? {
        var size = winsize()
        guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_row > 0 else { return nil }
        return Int(size.ws_row)
    }

    /// Rows `text` takes on a terminal `columns` wide (long lines wrap; escape sequences take
    /// none), counted until `atLeast` is reached.
    static func lines(_ text: [UInt8], columns: Int, atLeast limit: Int) -> Int {
        var rows = 0
        for line in text.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast(text.last == 0x0A ? 1 : 0) {
            let width = DisplayWidth.of(withoutEscapes(String(decoding: line, as: UTF8.self)))
            rows += max(1, (width + columns - 1) / max(columns, 1))
            if rows >= limit { break }
        }
        return rows
    }

    /// `text` without its SGR sequences (`ESC [ … m`).
    static func withoutEscapes(_ text: String) -> String {
        guard text.contains("\u{1B}") else { return text }
        var out = String.UnicodeScalarView()
        var inEscape = false
        for u in text.unicodeScalars {
            if inEscape {
                if (0x40...0x7E).contains(u.value) && u != "[" { inEscape = false }
            } else if u == "\u{1B}" {
                inEscape = true
            } else {
                out.append(u)
            }
        }
        return String(out)
    }

    /// Runs the pager with `text` on its standard input and waits for it; false when it did
    /// not start or its command was not found (the text is then to be printed directly).
    private func show(_ text: [UInt8]) -> Bool {
        guard let (child, writeEnd) = start(output: 1) else { return false }
        write(text, to: writeEnd)
        close(writeEnd)
        switch child.wait() {
        case .exited(126), .exited(127): return false
        default: return true
        }
    }

    /// Starts the pager (`/bin/sh -c COMMAND`, `LESS=FRX` and `LV=-c` when not set) reading a
    /// pipe and writing to `output` (the terminal): the program and the pipe's end to write,
    /// nil when it could not start. It gets the terminal as the editor does (`TerminalChild`):
    /// in vault's process group, Ctrl-C its own (less stops a search with it) while vault waits.
    private func start(output: Int32) -> (child: TerminalChild, writeEnd: Int32)? {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return nil }
        let (readEnd, writeEnd) = (fds[0], fds[1])
        var environment = ProcessInfo.processInfo.environment
        if environment["LESS"] == nil { environment["LESS"] = "FRX" }
        if environment["LV"] == nil { environment["LV"] = "-c" }
        let child = try? TerminalChild.start(command, environment: environment, input: readEnd, output: output)
        close(readEnd)
        guard let child else {
            close(writeEnd)
            return nil
        }
        return (child, writeEnd)
    }

    /// Writes `text` to the pager; stops when it quit early (EPIPE: what it did not read is not wanted).
    private func write(_ text: [UInt8], to writeEnd: Int32) {
        var done = 0
        while done < text.count {
            let n = text.withUnsafeBytes { Glibc.write(writeEnd, $0.baseAddress! + done, $0.count - done) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            done += n
        }
    }
}
