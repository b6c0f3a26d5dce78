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
    /// A terminal editor gets the terminal as `git commit` gives it (`TerminalChild`: vault's
    /// own process group, Ctrl-C the editor's, the terminal's settings put back afterwards).
    /// An editor that returns at once and leaves the file as it was (a GUI editor started
    /// without its flag to wait, `code` for `code --wait`) is explained (`returnedAtOnce`).
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
        let before = FileIO.stamp(of: path)
        let started = Date()
        let editor: TerminalChild
        do {
            editor = try TerminalChild.start(shellLine(command), arguments: [path], environment: environment)
        } catch {
            throw VaultError.editor(.notStarted(command: command, reason: error.reason))
        }
        // SIGTERM and SIGHUP wait for the editor (`Termination`): what it saves is then committed
        // before vault ends.
        let status = Termination.deferring { editor.wait() }
        switch status {
        case .exited(0):
            if FileIO.stamp(of: path) == before,
                let note = returnedAtOnce(command, after: Date().timeIntervalSince(started))
            {
                Terminal.note(note)
            }
            return .succeeded
        case .exited(127):
            // The shell's "not found": the editor never ran.
            throw VaultError.editor(.notStarted(command: command, reason: "no such command (set VISUAL or EDITOR to your editor's command)"))
        default:
            return .failed(status.description)
        }
    }

    /// The shell's line for `command` and the file (`$1`). A plain command (a program and its
    /// arguments) is `exec`'d, so the editor is vault's own child: a SIGINT the terminal sends
    /// the foreground group (before the editor turned it off) then goes to the editor, which
    /// handles it, not to a shell that dies of it and leaves the editor running without vault.
    static func shellLine(_ command: String) -> String {
        let plain = !command.contains { ";&|<>()$`\n".contains($0) }
        return (plain ? "exec " : "") + command + " \"$1\""
    }

    /// Editors that open a window and return at once unless given a flag: the flag to name, and
    /// the flags (short and long) that already make them wait.
    static let windowEditors: [String: (name: String, flag: String, waits: Set<String>)] = {
        var table: [String: (String, String, Set<String>)] = [:]
        for program in ["code", "code-insiders", "codium", "cursor", "windsurf"] {
            table[program] = ("VS Code", "--wait", ["--wait", "-w"])
        }
        table["subl"] = ("Sublime Text", "--wait", ["--wait", "-w"])
        table["sublime_text"] = table["subl"]
        table["zed"] = ("Zed", "--wait", ["--wait", "-w"])
        table["atom"] = ("Atom", "--wait", ["--wait", "-w"])
        table["mate"] = ("TextMate", "--wait", ["--wait", "-w"])
        table["gvim"] = ("gvim", "--nofork", ["--nofork", "-f"])
        table["mvim"] = ("MacVim", "--nofork", ["--nofork", "-f"])
        table["gedit"] = ("gedit", "--wait", ["--wait", "-w", "--standalone", "-s"])
        table["xed"] = ("xed", "--wait", ["--wait", "-w"])
        table["kate"] = ("Kate", "--block", ["--block", "-b"])
        return table
    }()

    /// Editors that run in the terminal: quitting one at once is the person's doing.
    static let terminalEditors: Set<String> = [
        "vi", "vim", "nvim", "view", "vim.basic", "vim.tiny", "nano", "pico", "emacs", "emacsclient", "micro", "hx",
        "helix", "kak", "joe", "jed", "ne", "mg", "ed", "mcedit", "elvis", "nvi", "vis", "amp", "tilde",
    ]

    /// What to tell a person whose editor returned `seconds` after it started without changing
    /// the file, or nil when nothing suggests it did not wait for them: a known window editor
    /// run without its flag, or any editor back within a second.
    static func returnedAtOnce(_ command: String, after seconds: Double) -> String? {
        let words = command.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard let first = words.first else { return nil }
        let program = String(first.split(separator: "/").last ?? Substring(first))
        if let known = windowEditors[program] {
            guard words.dropFirst().allSatisfy({ !known.waits.contains($0) }) else { return nil }
            let fixed = ([first, known.flag] + words.dropFirst()).joined(separator: " ")
            return "'\(command)' returned at once and left the file as it was: \(known.name) opens a window and"
                + " returns unless told to wait. Set EDITOR (or VISUAL) to '\(fixed)' and run the command again."
        }
        guard seconds < 1, !terminalEditors.contains(program) else { return nil }
        return "the editor '\(command)' returned after \(String(format: "%.1f", seconds)) s and left the file as it"
            + " was. If it opens a window, give it its flag to wait (code --wait, subl --wait, gvim --nofork) in"
            + " EDITOR or VISUAL."
    }
}
