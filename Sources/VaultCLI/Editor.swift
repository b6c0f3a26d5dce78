import Foundation
import VaultCore

/// Runs the person's editor on a file and waits for it.
enum Editor {
    /// `$VISUAL`, else `$EDITOR`, else `editor:` in the user configuration (`UserConfig`), else `vi`.
    /// The variables win: they are set per session (an IDE's terminal sets its own). A user
    /// configuration that cannot be read is left to the commands that need it to say so.
    static func command(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        [environment["VISUAL"], environment["EDITOR"]].compactMap { $0 }.first { !$0.isEmpty }
            ?? (try? UserConfig.load(environment: environment))?.editor ?? "vi"
    }

    /// Runs the editor (`command(environment:)`, through `/bin/sh` so the variable may hold
    /// arguments) on `path` and waits for it.
    ///
    /// Whatever the outcome, the file is as the editor left it: the workflow keeps it (and never
    /// writes it back), see `DiaryWriting` and `Editing`, which get it as a `TextEditor`
    /// (`TextEditor.person`). The library never starts a person's editor itself.
    ///
    /// - Throws: only when the editor cannot be started.
    static func run(_ path: String, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(VaultError) -> TextEditor.Outcome
    {
        let command = command(environment: environment)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command + " \"$1\"", "vault-editor", path]
        do {
            try process.run()
        } catch {
            throw VaultError.editor(.notStarted(command: command, reason: error.localizedDescription))
        }
        // SIGINT, SIGTERM, SIGHUP wait for the editor (it gets its own): what it saves is then
        // committed before vault ends (`Termination`).
        Termination.deferring { process.waitUntilExit() }
        switch (process.terminationReason, process.terminationStatus) {
        case (.exit, 0): return .succeeded
        case (.exit, let status): return .failed("exit status \(status)")
        case (_, let signal): return .failed("killed by signal \(signal)")
        }
    }
}
