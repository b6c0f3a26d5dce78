import Foundation
import VaultCore
import VaultTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// A real terminal for the app: a tmux server of the test's own (its socket in a temporary
/// folder, no configuration file read), one window of `columns` × `rows` running an interactive
/// bash with the prompt `$ `, where the test types as a person does (`send-keys`) and reads the
/// screen as text (`capture-pane`). The built `vault` is first on the shell's PATH.
final class TmuxTerminal {
    let folder = TemporaryDirectory("tmux")
    var socket: String { folder.path + "/socket" }
    private(set) var columns: Int
    private(set) var rows: Int

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Starts the server and the shell in `directory`, with the tests' environment for vault
    /// (`vaultProcess`'s) plus `environment`.
    init(columns: Int = 80, rows: Int = 24, directory: String, environment: [String: String] = [:]) throws {
        self.columns = columns
        self.rows = rows
        var env = vaultProcess([], in: directory).environment ?? [:]
        env["TMUX"] = nil
        env["TMUX_PANE"] = nil
        env["PS1"] = "$ "
        env["PROMPT_COMMAND"] = nil
        env["HISTFILE"] = "/dev/null"
        let bin = (Project.vaultExecutable as NSString).deletingLastPathComponent
        env["PATH"] = bin + ":" + (env["PATH"] ?? "/usr/bin:/bin")
        for (k, v) in environment { env[k] = v }
        // The server this starts stays on after the client, with the client's descriptors: it
        // must hold none of the test's (Foundation's `Process` learns of a child's end from a
        // socket the child holds, so it would wait for the server). Started with posix_spawn, every
        // descriptor but the standard ones closed, output to /dev/null and a file.
        let errors = folder.path + "/start-errors"
        let arguments = [
            "tmux", "-S", socket, "-f", "/dev/null", "new-session", "-d", "-x", "\(columns)", "-y", "\(rows)", "-c",
            directory, "env PS1='$ ' bash --norc --noprofile -i",
        ]
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, errors, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? [] {
            if let fd = Int32(entry), fd > 2 { posix_spawn_file_actions_addclose(&actions, fd) }
        }
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        var envp: [UnsafeMutablePointer<CChar>?] = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for p in argv { free(p) }
            for p in envp { free(p) }
        }
        // Signals as a person's terminal has them: none blocked, none ignored (the test process
        // blocks many in its threads, and a child inherits that).
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var all = sigset_t()
        sigfillset(&all)
        sigdelset(&all, SIGKILL)
        sigdelset(&all, SIGSTOP)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(Int32(POSIX_SPAWN_SETSIGDEF) | Int32(POSIX_SPAWN_SETSIGMASK)))
        var pid = pid_t()
        let spawned = posix_spawn(&pid, "/usr/bin/tmux", &actions, &attributes, &argv, &envp)
        guard spawned == 0 else { throw Failure(description: "cannot start tmux: \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        guard status == 0 else {
            let text = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
            throw Failure(description: "tmux new-session failed (\(status)): \(text)")
        }
        // The whole window is the pane (no status line); keys pass at once (a lone Escape is
        // the app's to time, not tmux's); the window keeps the size it is given.
        try tmux(["set-option", "-g", "status", "off"])
        try tmux(["set-option", "-sg", "escape-time", "0"])
        try tmux(["set-option", "-g", "window-size", "manual"])
        try tmux(["resize-window", "-x", "\(columns)", "-y", "\(rows)"])
        try waitForThePrompt()
    }

    /// Whether the shell waits at its prompt: the last line that is not empty is `$` (the
    /// screen's text drops trailing blanks).
    static func atThePrompt(_ screen: String) -> Bool {
        screen.split(separator: "\n").last { !$0.trimmingCharacters(in: .whitespaces).isEmpty } == "$"
    }

    /// Waits for the shell's prompt; the screen then.
    @discardableResult
    func waitForThePrompt(seconds: Double = 20) throws -> String {
        try waitUntil("the shell's prompt", seconds: seconds, TmuxTerminal.atThePrompt)
    }

    deinit {
        _ = try? tmux(["kill-server"])
    }

    /// Runs the tmux client on this server; its output.
    @discardableResult
    func tmux(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/tmux")
        process.arguments = ["-S", socket] + arguments
        let result = try run(process)
        guard result.status == 0 else {
            throw Failure(description: "tmux \(arguments.joined(separator: " ")): \(result.stderr)")
        }
        return result.stdout
    }

    /// Types `text` as it is (no key names).
    func type(_ text: String) throws { try tmux(["send-keys", "-l", "--", text]) }

    /// Presses keys by tmux's names: `Enter`, `Escape`, `C-p`, `BSpace`, `Up`, `PageUp`, `Tab`.
    func press(_ keys: String...) throws { try tmux(["send-keys"] + keys) }

    /// Types a command line at the shell's prompt and presses Enter.
    func runLine(_ line: String) throws {
        try type(line)
        try press("Enter")
    }

    /// The screen as text, one line per row, trailing blanks dropped.
    func screen() throws -> String {
        try tmux(["capture-pane", "-p"])
    }

    /// A value of the pane by tmux's formats: `#{alternate_on}`, `#{cursor_flag}`, `#{pane_pid}`.
    func pane(_ format: String) throws -> String {
        try tmux(["display-message", "-p", format]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Waits until the screen shows `text`; the screen then.
    @discardableResult
    func waitFor(_ text: String, seconds: Double = 20) throws -> String {
        try waitUntil("the screen to show \(text.debugDescription)", seconds: seconds) { $0.contains(text) }
    }

    /// Waits until `condition` holds for the screen; the screen then.
    @discardableResult
    func waitUntil(_ what: String, seconds: Double = 20, _ condition: (String) -> Bool) throws -> String {
        let deadline = Date().addingTimeInterval(seconds)
        var last = ""
        while true {
            last = try screen()
            if condition(last) { return last }
            guard Date() < deadline else {
                throw Failure(description: "waited \(seconds) s for \(what); the screen:\n\(last)")
            }
            usleep(20_000)  // sleep: poll interval: the screen, with a deadline
        }
    }

    /// Makes the window `columns` × `rows` (the app gets SIGWINCH).
    func resize(columns: Int, rows: Int) throws {
        try tmux(["resize-window", "-x", "\(columns)", "-y", "\(rows)"])
        self.columns = columns
        self.rows = rows
    }

    /// The process ids of the shell's children: the job it runs (vault ui's guard), then theirs.
    func descendants(of pid: pid_t) -> [pid_t] {
        var out: [pid_t] = []
        var pending = [pid]
        while let p = pending.popLast() {
            let text =
                (try? String(contentsOfFile: "/proc/\(p)/task/\(p)/children", encoding: .utf8)) ?? ""
            let children = text.split(separator: " ").compactMap { pid_t($0.trimmingCharacters(in: .whitespaces)) }
            out += children
            pending += children
        }
        return out
    }

    /// The shell's process id.
    func shell() throws -> pid_t {
        guard let pid = pid_t(try pane("#{pane_pid}")) else { throw Failure(description: "no pane pid") }
        return pid
    }

    /// Waits for the app (`vault ui`'s second process: the guard's child) to run; its id.
    func appProcess(seconds: Double = 20) throws -> pid_t {
        let shell = try shell()
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            let vaults = descendants(of: shell).filter { pid in
                let line = (try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8)) ?? ""
                let environment = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/environ"))) ?? Data()
                return line.hasPrefix(Project.vaultExecutable) || line.hasPrefix("vault")
                    ? environment.range(of: Data("VAULT_UI_GUARD=".utf8)) != nil : false
            }
            if let app = vaults.first { return app }
            guard Date() < deadline else { throw Failure(description: "no app process under the shell \(shell)") }
            usleep(20_000)  // sleep: poll interval: the process table, with a deadline
        }
    }
}
