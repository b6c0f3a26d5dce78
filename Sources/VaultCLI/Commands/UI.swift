import ArgumentParser
import Foundation
import VaultCore
import VaultKit
import VaultUI

extension VaultCommand {
    struct UI: VaultRunnable {
        static let configuration = CommandConfiguration(
            commandName: "ui",
            abstract: "Open the vault as a full-screen terminal app: rooms, a room's transcript, the diary, search.",
            discussion: """
                `vault` with no arguments on a terminal opens it too. The rooms are listed as `vault rooms` \
                lists them (unread marked), Tab shows the diary with the month's calendar, / searches as you \
                type, Enter opens a room: its transcript with a divider wherever the day changes, and a \
                compose box (Enter sends, Alt-Enter or Ctrl-J a new line; a reply streams in place, Esc stops \
                it and what arrived is kept). Ctrl-E hands the room to your editor, Ctrl-P lists every \
                command, ? the keys, q quits. With a remote, the vault syncs in the background \
                (VAULT_WATCH_INTERVAL seconds, else 5) and what others write appears as it comes. NO_COLOR \
                turns colors off.
                """)

        @OptionGroup var location: VaultLocation
        @OptionGroup var reading: ReadingOptions
        @Argument(help: "A room to open straight away (named as for `show`).", completion: .rooms) var room: String?

        func execute() throws {
            guard let terminal = TerminalMode() else {
                throw CommandError.needsTerminal
            }
            var environment = ProcessInfo.processInfo.environment
            // The process the shell waits for is the guard; the app is its child (AppGuard).
            guard let guardian = environment.removeValue(forKey: AppGuard.variable).flatMap({ pid_t($0) }) else {
                let status = try AppGuard.run(environment: environment)
                if status != 0 { throw ExitCode(status) }
                return
            }
            let notes = NoteList()
            let session = try location.session(.change, notes: notes.sink)
            let (locale, zone) = try reading.resolve(for: session.vault)
            let color = (environment["NO_COLOR"] ?? "").isEmpty && environment["TERM"] != "dumb"
            let interval = environment["VAULT_WATCH_INTERVAL"].flatMap(Double.init) ?? 5
            var options = VaultApp.Options(
                room: room, locale: locale, zone: zone, environment: environment, editor: .person, color: color,
                syncInterval: interval, workingDirectory: FileManager.default.currentDirectoryPath, notes: notes,
                guardian: guardian)
            if let fixed = environment["VAULT_UI_NOW"], !fixed.isEmpty {
                guard let moment = ISO8601DateFormatter().date(from: fixed) else {
                    throw ValidationError("VAULT_UI_NOW is not a moment like 2026-12-03T09:00:00+09:00: \(fixed)")
                }
                options.now = { moment }
            }
            let app = try VaultApp(session: session, terminal: terminal, options: options)
            let status = app.run()
            for note in notes.taken() { Terminal.print(note) }
            if status != 0 { throw ExitCode(status) }
        }
    }
}

/// `vault ui` as two processes: the one the shell started (the guard) runs the app as its child,
/// in the same process group (the terminal's foreground: Ctrl-Z stops both, `fg` brings both
/// back), and waits for it. The shell waits for the guard, so when the app ends in a way no
/// handler of its own sees (SIGKILL, the kernel's out-of-memory killer), the guard gives the
/// terminal back (the main screen, the cursor, the person's settings) before the shell prints
/// its prompt: no `reset` needed. SIGTERM and SIGHUP sent to the guard are passed on to the app
/// (it ends after the turn in progress, the draft kept); the app ends too when the guard is gone.
enum AppGuard {
    /// Set in the app's environment to the guard's process id.
    static let variable = "VAULT_UI_GUARD"
    nonisolated(unsafe) private static var app: pid_t = 0

    /// Runs the app (this program again, with the same arguments) and waits for it.
    ///
    /// - Returns: the exit status to end with: the app's, or 128 + the signal that ended it.
    static func run(environment: [String: String]) throws -> Int32 {
        var program = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &program, program.count - 1)
        guard length > 0 else {
            throw VaultError.io(path: "/proc/self/exe", operation: "read", reason: String(cString: strerror(errno)))
        }
        let path = String(decoding: program[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var childEnvironment = environment
        childEnvironment[variable] = String(getpid())
        let child: TerminalChild
        do {
            child = try TerminalChild.start(
                program: path, arguments: CommandLine.arguments, environment: childEnvironment)
        } catch {
            throw VaultError.io(path: path, operation: "start", reason: error.reason)
        }
        app = child.pid
        var pass = sigaction()
        pass.__sigaction_handler.sa_handler = { signal in _ = kill(AppGuard.app, signal) }
        sigemptyset(&pass.sa_mask)
        pass.sa_flags = SA_RESTART
        for signal in [SIGTERM, SIGHUP] { sigaction(signal, &pass, nil) }
        // Ctrl-Z stops the app and the guard together (the shell sees its job stop), so the guard
        // must not block it, nor what it passes on, whatever mask it was started with.
        var job = sigset_t()
        sigemptyset(&job)
        for signal in [SIGTSTP, SIGCONT, SIGTERM, SIGHUP] { sigaddset(&job, signal) }
        pthread_sigmask(SIG_UNBLOCK, &job, nil)
        let (status, putBack) = child.waitReporting()
        switch status {
        case .exited(let code):
            return code
        case .signaled(let signal):
            if putBack {
                // CAN first: ends any sequence the app was in the middle of writing.
                _ = Terminal.write(bytes: Array(("\u{18}" + TerminalMode.leaveSequence).utf8), to: 1)
            }
            let name = String(cString: strsignal(signal))
            Terminal.note(
                "the app ended by signal \(signal) (\(name)); the terminal is given back. "
                    + "What you were typing is kept and comes back when you open the room again.")
            return 128 + signal
        }
    }
}
