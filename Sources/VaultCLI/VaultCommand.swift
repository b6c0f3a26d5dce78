import ArgumentParser
import Foundation
import VaultCore
import VaultKit

/// `vault`: AI chat rooms and a diary as Markdown files, versioned with git.
package struct VaultCommand: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "vault",
        abstract: "AI chat rooms and a diary, kept as Markdown files in a folder.",
        discussion: """
            The vault is found from --vault DIR, then VAULT_DIR, then by walking up from the \
            current folder to the nearest folder with a vault.yml.
            """,
        version: VaultVersion.current,
        subcommands: [
            Init.self, Rooms.self, RoomCommand.self, Chat.self, Diary.self, Show.self, Check.self, Log.self,
            Diff.self, Restore.self, Remove.self, Unlock.self, Write.self, Today.self, Edit.self, Tag.self,
            Retry.self, Say.self, People.self, Watch.self, Export.self, Import.self, Search.self, Sync.self, Clone.self, Remote.self, Status.self,
            Resolve.self, Migrate.self, UI.self, MergeDriverCommand.self, SearchWatcherCommand.self, ReferenceCommand.self, MCP.self,

        ])

    package init() {}

    /// Runs the command `arguments` names (without the program's name) and returns the exit
    /// status; it never calls `exit` itself.
    ///
    /// ArgumentParser's `main` ends the process with `exit`, which runs the libraries'
    /// clean-up (OpenSSL frees its locks) while the thread that loads libgit2 as the process
    /// starts may still be inside them: a quick exit (`vault chat --help`, a usage error, a
    /// refusal) crashed with SIGSEGV in `pthread_rwlock_unlock` now and then. The caller flushes
    /// the output and ends the process with `_exit`, which runs no clean-up:
    ///
    ///     let status = VaultCommand.run(Array(arguments.dropFirst()))
    ///     fflush(nil)
    ///     _exit(status)
    /// Marks the end of the command in the trace (`VAULT_TRACE=1`).
    package static func traceEnd() { Trace.mark("end") }

    package static func run(_ arguments: [String]) -> Int32 {
        Termination.install()
        var parsed: (any ParsableCommand)?
        // `vault` alone on a terminal is the app (`vault ui`); into a pipe it is the help, as before.
        let arguments = arguments.isEmpty && isatty(0) == 1 && isatty(1) == 1 ? ["ui"] : arguments
        do {
            var command = try parseAsRoot(arguments)
            parsed = command
            try command.run()
            return 0
        } catch {
            let status = ExitStatus.of(error)
            switch error {
            case let error as VaultError:
                // "nothing was written." tells a person whose change was refused that nothing
                // of it happened; after a command that writes nothing it is noise.
                var text = error.description
                let claim = "\nnothing was written."
                if parsed is any ReadingCommand, text.hasSuffix(claim) { text.removeLast(claim.count) }
                Terminal.error(text)
            case let error as UsageError: Terminal.error(error.description)
            case let error as CommandError: if let message = error.message { Terminal.error(message) }
            // A status a command ends with after saying why itself (`vault ui` after its app
            // was killed: 128 + the signal; `vault mcp`'s server).
            case let code as ExitCode: return code.rawValue
            default:
                // ArgumentParser's: help and the version (status 0) as it writes them; a usage
                // error in vault's own format, with at most one hint line.
                let text = fullMessage(for: error)
                if status == .success {
                    if !text.isEmpty { print(text) }
                } else {
                    let (message, hint) = UsageMessage.of(text, arguments: arguments)
                    Terminal.error(hint.map { message + "\n" + $0 } ?? message)
                }
                return status.rawValue
            }
            // A signal held off during a change (`Termination`): its status, 128 + its number.
            Termination.exitIfRequested()
            return status.rawValue
        }
    }

    /// Commands that commit or read the history: libgit2 starts on another core as the
    /// process starts, so its start-up is done by the time the commit is made.
    ///
    /// The one list of them: `CGit2Loader`'s constructor, which starts that load before `main`,
    /// reads a copy in `git_commands.h`, written from this literal by
    /// `scripts/generate-git-commands.py` (`--check` in `scripts/test.sh`): run it after a change.
    static let gitCommands: Swift.Set<String> = [
        "init", "room", "chat", "retry", "say", "people", "write", "today", "edit", "tag", "rm", "restore", "log", "diff", "diary",
    ]

    /// The arguments with a `--vault DIR` given before the command moved behind it, where the
    /// command's own option takes it: `vault --vault ~/notes rooms` is `vault rooms --vault ~/notes`.
    package static func normalized(_ arguments: [String]) -> [String] {
        guard arguments.count > 1 else { return arguments }
        var rest = Array(arguments.dropFirst())
        let moved: [String]
        if rest[0] == "--vault", rest.count > 1 {
            moved = ["--vault", rest[1]]
            rest.removeFirst(2)
        } else if rest[0].hasPrefix("--vault=") {
            moved = [rest[0]]
            rest.removeFirst()
        } else {
            return arguments
        }
        guard !rest.isEmpty else { return arguments }
        let end = rest.firstIndex(of: "--") ?? rest.endIndex
        rest.insert(contentsOf: moved, at: end)
        return [arguments[0]] + rest
    }

    /// Raises the process's limits where it may (`ProcessLimits.prepare`); when they stay too
    /// low for any command, prints why and returns the status to exit with. A chat message
    /// given to `vault chat` is kept first, as the room's pending prompt, when the room can be
    /// named without listing the vault (`Chat.keepForLater`).
    package static func checkLimits(_ arguments: [String]) -> Int32? {
        guard let refusal = ProcessLimits.prepare() else { return nil }
        var outcome = "Nothing was changed"
        if !ProcessLimits.canParse {
            // Too little memory to read the command line safely: a chat message cannot be kept.
            if arguments.first == "chat" { outcome = "Your message was not saved: too little memory to read it" }
        } else if let chat = (try? parseAsRoot(arguments)) as? Chat {
            outcome = chat.keepForLater() ?? outcome
        }
        Terminal.error(refusal + ". " + outcome)
        return ExitStatus.failure.rawValue
    }

    /// What the command line read from its process for the libraries (which never read it):
    /// its environment, and `vault search-watcher` as the search index's watcher.
    package static let settings = ProcessSettings(
        environment: ProcessInfo.processInfo.environment,
        watcherCommand: [SearchWatcherCommand.executable, "search-watcher"])

    /// Hands the libraries the process-wide part of `settings` (tracing, the tests' crash
    /// points and volume sizes, the secrets never printed), first thing in `main`. A crash
    /// point ends the process as a kill does.
    package static func installProcessHooks() {
        ProcessHooks.install(
            settings,
            die: {
                kill(getpid(), SIGKILL)
                _exit(137)
            },
            exit: { status in _exit(status) })
    }

    package static func startGitEarly(for arguments: [String]) {
        Trace.mark("main")
        if arguments.count > 1, arguments[1] == "search" {
            startSearchEarly(arguments)
            return
        }
        guard arguments.count > 1, gitCommands.contains(arguments[1]) else { return }
        // A chat turn commits into rooms/: its repository is opened, and HEAD's rooms tree
        // read, on another core while the arguments are parsed and the room is read.
        if ["chat", "retry"].contains(arguments[1]), let root = earlyVaultRoot(arguments) {
            VaultSession.preopen(root: root, readingTreeOf: VaultPath.rooms, settings: settings)
        } else {
            VaultSession.warmUp()
        }
    }

    /// A search through the index: the index opened, its watcher asked and the files listed on
    /// another core while the arguments are parsed and the vault opened (`Search.execute` uses
    /// the same watcher: none with `--no-watch`). Not for `--index` (a build, with its progress)
    /// or `--no-index`.
    static func startSearchEarly(_ arguments: [String]) {
        let options = arguments.dropFirst(2).prefix { $0 != "--" }
        guard !options.contains("--index"), !options.contains("--no-index"),
            let root = earlyVaultRoot(arguments)
        else { return }
        VaultSession.preopenSearch(
            root: root, settings: settings,
            watcherCommand: options.contains("--no-watch") ? nil : settings.watcherCommand)
    }

    /// The vault the command will find (`--vault DIR`, else `VAULT_DIR`, else the folders
    /// above this one), read from the raw arguments before they are parsed; nil when unsure.
    static func earlyVaultRoot(_ arguments: [String]) -> String? {
        var explicit: String?
        for (i, argument) in arguments.enumerated().dropFirst(2) {
            if argument == "--" { break }
            if argument == "--vault", i + 1 < arguments.count { explicit = arguments[i + 1] }
            if argument.hasPrefix("--vault=") { explicit = String(argument.dropFirst(8)) }
        }
        var environment: [String: String] = [:]
        if let dir = getenv("VAULT_DIR") { environment["VAULT_DIR"] = String(cString: dir) }
        return try? Vault.locate(
            explicit: explicit, environment: environment, workingDirectory: FileManager.default.currentDirectoryPath)
    }
}

/// Options every command that works on a vault takes.
struct VaultLocation: ParsableArguments {
    @Option(name: .customLong("vault"), help: ArgumentHelp("The vault's folder.", valueName: "DIR"))
    var directory: String?

    /// The vault's session (`VaultSession`): its notes printed on standard error (or to `notes`).
    func session(
        _ access: VaultSession.Access, notes: @escaping NoteSink = Terminal.print, prefetching folder: String? = nil
    ) throws(VaultError) -> VaultSession {
        try VaultSession(
            locating: directory, workingDirectory: FileManager.default.currentDirectoryPath, access: access,
            settings: VaultCommand.settings, notes: notes, prefetching: folder)
    }

    /// The vault, to read: every change refused (`VaultError.readOnly`).
    func open() throws(VaultError) -> Vault {
        try session(.readOnly).vault
    }

    /// The vault, to change: with its git history, so every change becomes a commit.
    ///
    /// - Parameter folder: the folder the command will change (`rooms`): its repository is
    ///   opened, and HEAD's trees down to that folder read, on another core meanwhile.
    func openForChange(prefetching folder: String? = nil) throws(VaultError) -> Vault {
        try session(.change, prefetching: folder).vault
    }
}

/// A command that only reads the vault (`show`, `rooms`, `check`, …): its refusals do not add
/// "nothing was written.", which only a command that writes needs to say.
protocol ReadingCommand: ParsableCommand {}

extension VaultCommand.Show: ReadingCommand {}
extension VaultCommand.Rooms: ReadingCommand {}
extension VaultCommand.Diary.List: ReadingCommand {}
extension VaultCommand.Diary.MonthCalendar: ReadingCommand {}
extension VaultCommand.Check: ReadingCommand {}
extension VaultCommand.Log: ReadingCommand {}
extension VaultCommand.Diff: ReadingCommand {}
extension VaultCommand.Search: ReadingCommand {}
extension VaultCommand.Export: ReadingCommand {}
extension VaultCommand.Status: ReadingCommand {}
extension VaultCommand.Remote.List: ReadingCommand {}

/// A command whose failures are printed for a person (`vault: error: …`), never as a trace:
/// what `execute` throws (`VaultError`, `UsageError`, `CommandError`) reaches `VaultCommand.run`,
/// which prints it and returns its status (`ExitStatus.of`).
protocol VaultRunnable: ParsableCommand {
    func execute() throws
}

extension VaultRunnable {
    func run() throws {
        // A paged command's output is held, and shown through the pager once it is done.
        if let paged = self as? any PagedCommand, let pager = Pager.start(paged.output) {
            defer { pager.finish() }
            try execute()
        } else {
            try execute()
        }
        if let signal = Termination.signal {
            let name = Termination.name(of: signal)
            Terminal.note("\(name): stopped once the change in progress was saved and committed")
            Termination.exitIfRequested()
        }
        if let problem = Terminal.unwrittenOutput() {
            throw CommandError.outputUnwritable(problem)
        }
    }
}
