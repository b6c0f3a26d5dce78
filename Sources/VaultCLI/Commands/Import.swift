import ArgumentParser
import Foundation
import VaultCore
import VaultKit

extension VaultCommand {
    struct Import: VaultRunnable {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Bring in conversations and journals from ChatGPT, Claude, Claude Code, llm, jrnl or Day One.",
            discussion: """
                <source> is chatgpt, claude, claude-code, llm, jrnl or dayone; without it, vault tells from \
                the files. Without <path>, claude-code and llm read where those tools keep their files. \
                Importing the same or a newer export again adds only what is new: rooms keep their ids, and \
                what you wrote since in vault stays. One commit for the whole import.
                """)

        @OptionGroup var location: VaultLocation

        // Parsed in order: a first word that is no tool's name is the first path (`execute`).
        @Argument(help: ArgumentHelp("The tool the files come from (optional).", valueName: "source"))
        var source: String?

        @Argument(help: ArgumentHelp("The export's files or folders.", valueName: "path"))
        var paths: [String] = []

        @Flag(name: .customLong("dry-run"), help: "Read everything and say what would come in; write nothing.")
        var dryRun = false

        @Option(help: ArgumentHelp("Only what was written on or after this day (2026-11-01, yesterday, -7).", valueName: "DAY"))
        var since: String?

        @Flag(
            name: .customLong("keep-going"),
            help: "Leave out each conversation, entry or file that is not in its format, and import the rest (else nothing).")
        var keepGoing = false

        @Option(
            name: .customLong("date-format"),
            help: ArgumentHelp(
                "jrnl only: how the journal writes its dates, as jrnl's timeformat ('%d.%m.%Y %H:%M'); else jrnl's config's, else jrnl's default.",
                valueName: "FORMAT"))
        var dateFormat: String?

        @Flag(help: "Print the report as JSON.") var json = false

        func execute() throws {
            var rest = (self.source.map { [$0] } ?? []) + paths
            var source: ImportSource?
            if let first = rest.first, let named = ImportSource(rawValue: first.lowercased()) {
                source = named
                rest.removeFirst()
            }
            let environment = VaultCommand.settings.environment
            if rest.isEmpty, let source {
                rest = ImportReaders.defaultPaths(for: source, environment: environment)
                guard !rest.isEmpty else { throw UsageError.nothingToImport(source: source.rawValue) }
            }
            guard !rest.isEmpty else { throw ValidationError("give the export's file or folder: vault import [SOURCE] PATH…") }
            let cwd = FileManager.default.currentDirectoryPath
            let paths = rest.map { Vault.absolute($0, from: cwd) }
            for (given, path) in zip(rest, paths) where !FileManager.default.fileExists(atPath: path) {
                throw VaultError.importing(ImportProblem(file: given, problem: "no such file or folder"))
            }
            guard let kind = source ?? ImportReaders.detect(paths[0]) else {
                throw UsageError.unknownImportSource(path: rest[0])
            }
            let session = try location.session(.change)
            let vault = session.vault
            // This machine's caps with the vault's git config (when it has a repository yet);
            // vault.yml lowers them in `Importing`.
            let limits = try session.importLimits()
            if dateFormat != nil, kind != .jrnl {
                throw ValidationError("--date-format is for jrnl journals only (this is \(kind.rawValue))")
            }
            let jrnlFormat = kind == .jrnl ? dateFormat ?? ImportReaders.jrnlTimeFormat(environment: environment) : nil
            guard let reader = ImportReaders.reader(for: kind, timeZone: vault.config.timeZone, jrnlDateFormat: jrnlFormat) else {
                throw VaultError.importing(ImportProblem(file: rest[0], problem: "vault cannot read \(kind.rawValue) exports yet"))
            }
            let from = try since.map { text throws(VaultError) -> Timestamp in
                guard let day = DateArgument.day(text, timeZone: vault.config.timeZone) else {
                    throw DateArgument.problem(text)
                }
                return Timestamp(rfc3339: "\(day)T00:00:00+00:00")!
            }
            let progress = ProgressLine()
            let report = try {
                defer { progress.finish() }
                return try Importing(vault: vault, machineLimits: limits).run(
                    reader, paths: paths, since: from, dryRun: dryRun, keepGoing: keepGoing,
                    progress: progress.handler)
            }()
            if json { return try Terminal.json(report) }
            let verb = dryRun ? "Would import" : report.committed ? "Imported" : "Nothing new in"
            print("\(verb) \(kind.rawValue): \(report.summary).")
            for part in report.leftOut { Terminal.warning("left out \(part)") }
            for note in report.notes { Terminal.warning(note) }
            // Thousands of rooms right in rooms/: each chat turn's commit rewrites a list of all of them.
            if report.committed, report.roomsNew > 0, vault.config.format < 2 {
                let rooms = FileIO.list(vault.absolute(VaultPath.rooms)).count { $0.kind == .file }
                if rooms >= Migrate.suggestedFrom {
                    print("The vault has \(rooms) rooms: `vault migrate` files them by year, so each chat turn stays quick to commit.")
                }
            }
            // Rooms of megabytes: in format 3 a turn commits their newest messages only.
            if report.committed, vault.config.format < RoomVolumes.format {
                let long = report.paths.filter {
                    VaultPath.kind(of: $0) == .room && (FileIO.size(of: vault.absolute($0)) ?? 0) >= RoomVolumes.rollOverSize
                }
                if !long.isEmpty {
                    let rooms = long.count == 1 ? "1 room is" : "\(long.count) rooms are"
                    print("\(rooms) 2 MiB or more (\(long[0])): `vault migrate` (format 3) gives a long room's older messages to volumes, so each chat turn in it stays quick to commit.")
                }
            }
        }
    }
}
