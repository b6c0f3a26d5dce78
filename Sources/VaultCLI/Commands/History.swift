import ArgumentParser
import Foundation
import VaultCore
import VaultKit
import VaultGit

extension VaultLocation {
    /// The vault and its repository, to read history.
    func openHistory() throws(VaultError) -> (Vault, GitHistory) {
        let session = try session(.readOnly)
        return (session.vault, try session.existingRepository())
    }
}

/// Names a room or entry that exists now or existed once (`GitHistory.item(named:in:from:)`),
/// from the working directory.
func resolveInHistory(_ name: String, vault: Vault, history: GitHistory) throws(VaultError) -> String {
    try history.item(named: name, in: vault, from: FileManager.default.currentDirectoryPath)
}

extension VaultCommand {
    struct Log: PagedCommand {
        static let configuration = CommandConfiguration(
            commandName: "log",
            abstract: "Show the history of the vault, or of one room or diary entry.",
            discussion: """
                Each commit: its id, its time in the vault's locale and zone, its author and what it did, \
                then the files it changed; the last 50 unless -n says otherwise. --format prints each commit as a template of your own (like \
                git for-each-ref --format); its fields:

                """ + ListingTemplate.help(LogRow.fields))

        @OptionGroup var location: VaultLocation
        @OptionGroup var reading: ReadingOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "A room or diary entry (also a deleted one).", completion: .items) var item: String?
        @OptionGroup var dates: DateRangeOptions
        @OptionGroup var limit: LimitOptions
        @OptionGroup var format: ListingFormatOptions

        func execute() throws {
            let template = try format.template(fields: LogRow.fields, piped: nil)
            let count = try limit.count(default: 50)
            let (vault, history) = try location.openHistory()
            let (locale, zone) = try reading.resolve(for: vault)
            let style = try output.style()
            let (since, until) = try dates.days(in: vault.config.timeZone)
            let path = try item.map { name throws(VaultError) in
                try resolveInHistory(name, vault: vault, history: history)
            }
            let entries = try history.log(
                LogFilter(path: path, since: since, until: until, zone: vault.config.timeZone, limit: count))
            if format.json { return try Terminal.json(entries) }
            let rows = entries.map { e in
                LogRow(
                    entry: e,
                    when: Timestamp(rfc3339: e.time).map { DateText.header($0, locale: locale, timeZone: zone) } ?? e.time)
            }
            if let template {
                for row in rows { print(template.line(for: row)) }
                return
            }
            if entries.isEmpty {
                print(path.map { "No commits change \($0)." } ?? "No commits yet.")
                return
            }
            let width = rows.map { Terminal.width($0.when) }.max() ?? 0
            let authorWidth = min(20, rows.map { Terminal.width($0.entry.author) }.max() ?? 0)
            let columns = Terminal.columns
            for row in rows {
                let e = row.entry
                let fixed = "\(e.shortID)  \(Terminal.fit(row.when, width))  \(Terminal.fit(e.author, authorWidth))  "
                if let columns, Terminal.width(fixed) >= columns {
                    print(Terminal.clip(fixed + e.summary, columns))
                } else {
                    let summary = Terminal.clip(e.summary, columns.map { $0 - Terminal.width(fixed) })
                    let when = style.date(Terminal.fit(row.when, width))
                    Terminal.line(
                        "\(style.commit(e.shortID))  \(when)  \(Terminal.fit(e.author, authorWidth))  \(summary)")
                }
                // The files it changed, under the id, as `git log --name-only` lists them.
                for file in e.files { print(Terminal.clip("         " + file, columns)) }
            }
        }
    }

    struct Diff: PagedCommand {
        static let configuration = CommandConfiguration(
            commandName: "diff",
            abstract: "Show how a room or diary entry differs from its last commit, or from an older revision.")

        @OptionGroup var location: VaultLocation
        @Argument(help: "A room or diary entry.", completion: .items) var item: String
        @Argument(help: "A revision (from `vault log`); default: the last commit.") var revision = "HEAD"
        @OptionGroup var output: OutputOptions

        func execute() throws {
            let (vault, history) = try location.openHistory()
            let style = try output.style()
            let path = try resolveInHistory(item, vault: vault, history: history)
            let old = try history.contents(of: path, at: revision)
            let new = try? FileIO.read(vault.absolute(path))
            let diff = try history.unifiedDiff(old, new, path: path)
            if diff.isEmpty {
                print(
                    "\(path) is the same as in \(revision == "HEAD" ? "the last commit" : revision)"
                        + " (\(try history.shortID(revision)))."
                )
            } else if style.colored {
                var lines = diff.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                if lines.last == "" { lines.removeLast() }
                Terminal.write(lines.map(style.diffLine).joined(separator: "\n") + "\n", to: 1)
            } else {
                Terminal.stream(diff)
            }
        }
    }

    struct Restore: VaultRunnable {
        static let configuration = CommandConfiguration(
            commandName: "restore",
            abstract: "Bring back a room or diary entry as it was at a revision; also brings back deleted ones.",
            discussion: """
                Without --at: a deleted item as it last was, or an item you edited by hand as it was at \
                its last commit. The current version, hand edits included, is committed first, so \
                restoring never loses it.
                """)

        @OptionGroup var location: VaultLocation
        @Argument(help: "A room or diary entry (also a deleted one).", completion: .items) var item: String
        @Option(name: .customLong("at"), help: "The revision to restore from (see `vault log ITEM`).")
        var revision: String?
        @Flag(
            name: .customLong("anyway"),
            help: "Bring back a deleted room even though it lives on under another name (every message in two rooms).")
        var anyway = false

        func execute() throws {
            let (vault, history) = try location.session(.change).changingExistingRepository()
            let path = try resolveInHistory(item, vault: vault, history: history)
            var restore = VaultGit.Restore(vault: vault, history: history)
            restore.machineLimits = try IncomingLimits.ofThisMachine()
            let restored = try restore.restore(path, named: item, at: revision, anyway: anyway)
            print("Restored \(path) as of \(restored.revision).")
            if let kept = restored.handEdit {
                let name = VaultPath.commandName(of: path)
                print("Your hand edit is kept in commit \(kept): `vault restore \(name) --at \(kept)` brings it back.")
            }
        }
    }

    struct Remove: VaultRunnable {
        static let configuration = CommandConfiguration(
            commandName: "rm", abstract: "Remove a room or diary entry (with a commit: `vault restore` brings it back)."
        )

        @OptionGroup var location: VaultLocation
        @Argument(help: "A room or diary entry.", completion: .items) var item: String
        @Flag(name: [.short, .long], help: "Do not ask for confirmation.") var yes = false

        func execute() throws {
            let plain = try location.openForChange()
            let cwd = FileManager.default.currentDirectoryPath
            let resolved = try plain.resolve(item, workingDirectory: cwd, allowingLink: true)
            let target = Removal(vault: plain).target(of: resolved)
            let path = target.path
            if !yes {
                guard Terminal.stdinIsTerminal else {
                    throw UsageError.confirmationNeeded(path: path)
                }
                switch target {
                case .item(_, let title): Terminal.stream("Remove \(path) (\(title))? [y/N] ")
                case .link(_, let to):
                    Terminal.stream("Remove the symbolic link \(path) (to \(to); that stays)? [y/N] ")
                }
                let answer = readLine()?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
                guard answer == "y" || answer == "yes" else {
                    print("Nothing removed.")
                    return
                }
            }
            try Removal(vault: plain).remove(target)
            switch target {
            case .item: print("Removed \(path). Bring it back with: vault restore \(path)")
            case .link(_, let to): print("Removed \(path), a symbolic link; what it pointed to (\(to)) is untouched.")
            }
        }
    }

    struct Unlock: VaultRunnable {
        static let configuration = CommandConfiguration(
            commandName: "unlock",
            abstract: "Remove lock and temporary files a crashed program left, and finish what a killed vault left.",
            discussion: """
                A lock left by a vault process that was killed is removed at once (vault proves it \
                is its own and that the process is gone; every command that changes the vault \
                does this by itself), and so is the lock of one of vault's own refs \
                (.git/refs/vault/…, left by a killed sync; unlock waits for a running sync first); \
                the files such a process changed without committing are committed, the \
                temporary files of its writes (.NAME.vault-tmp-PID-N) removed, and git's index, \
                if it was left behind the last commit, put back. Other locks anywhere in .git \
                (left by git or another program) are removed only when untouched for a minute (a \
                running git program holds its locks for moments); --force removes them all. Make \
                sure no git program is running.
                """)

        @OptionGroup var location: VaultLocation
        @Flag(help: "Remove every lock, however recent.") var force = false

        func execute() throws {
            let report = try Unlocking(vault: try location.openForChange()).unlock(force: force)
            let (removed, kept, recovery) = (report.removed, report.kept, report.recovery)
            for path in removed { print("removed \(path)") }
            if let recovery, !recovery.committedPaths.isEmpty {
                let commands = Swift.Set(recovery.commands).sorted().map { "`vault \($0)`" }.joined(separator: ", ")
                let paths = recovery.committedPaths.joined(separator: ", ")
                print("committed \(paths), left uncommitted by \(commands), which stopped before its commit")
            }
            for path in report.temporaryFiles { print("removed \(path) (a killed vault's unfinished write)") }
            if let recovery, !recovery.indexRepaired.isEmpty {
                print(
                    "put git's index back to the last commit for \(recovery.indexRepaired.joined(separator: ", "))"
                        + " (a killed vault had moved the branch and not the index)")
            }
            for path in kept {
                Terminal.warning(
                    "kept \(path): it changed in the last minute, so a git program may be using it (--force removes it)"
                )
            }
            if report.isEmpty {
                print("No lock files, temporary files or unfinished changes: nothing to do.")
            }
            if !kept.isEmpty { throw CommandError.problemsReported }
        }
    }
}

/// A commit in `vault log`, with its time as shown.
struct LogRow {
    let entry: HistoryEntry
    /// The time in the locale and zone shown (`2026년 11월 21일 토요일 오전 9:31`).
    let when: String

    static let fields: [ListingField<LogRow>] = [
        ListingField(name: "id", meaning: "the commit's id") { $0.entry.id },
        ListingField(name: "short_id", meaning: "its first seven characters") { $0.entry.shortID },
        ListingField(name: "time", meaning: "when it was made, ISO 8601 with the offset it was written with") {
            $0.entry.time
        },
        ListingField(name: "when", meaning: "when it was made, in the locale and zone") { $0.when },
        ListingField(name: "author", meaning: "who made it") { $0.entry.author },
        ListingField(name: "summary", meaning: "what it did (room: new 부산 여행)") { $0.entry.summary },
        ListingField(name: "files", meaning: "the files it changed, separated by spaces") {
            $0.entry.files.joined(separator: " ")
        },
    ]
}
