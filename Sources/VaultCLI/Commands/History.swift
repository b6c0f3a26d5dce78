import ArgumentParser
import Foundation
import VaultCore
import VaultGit

extension VaultLocation {
    /// The vault and its repository, to read history.
    func openHistory() throws(VaultError) -> (Vault, GitHistory) {
        let vault = try open()
        return (vault, try GitHistory(vault: vault.root, config: vault.config))
    }
}

/// Names a room or entry that exists now or existed once: a current item, else a deleted
/// path whose path, file name or slug matches.
func resolveInHistory(_ name: String, vault: Vault, history: GitHistory) throws(VaultError) -> String {
    do {
        return try vault.resolve(name, workingDirectory: FileManager.default.currentDirectoryPath).path
    } catch .itemNotFound {
        let key = name.precomposedStringWithCanonicalMapping
        var deleted = try history.deletedPaths(under: VaultPath.rooms) + history.deletedPaths(under: VaultPath.diary)
        let relative = Vault.absolute(name, from: FileManager.default.currentDirectoryPath)
        if relative.hasPrefix(vault.root + "/") {
            let inVault = String(relative.dropFirst(vault.root.count + 1))
            if deleted.contains(inVault) { return inVault }
        }
        if deleted.contains(key) { return key }
        deleted = deleted.filter {
            let stem = VaultPath.stem(of: $0).precomposedStringWithCanonicalMapping
            return stem == key || stem.hasPrefix(key)
        }
        if deleted.count == 1 { return deleted[0] }
        if deleted.count > 1 { throw VaultError.ambiguousItem(name, candidates: deleted) }
        throw VaultError.itemNotFound(name, hint: "It is not in the vault, nor in its history.")
    }
}

extension VaultCommand {
    struct Log: VaultRunnable {
        static let configuration = CommandConfiguration(
            commandName: "log",
            abstract: "Show the history of the vault, or of one room or diary entry.")

        @OptionGroup var location: VaultLocation
        @OptionGroup var reading: ReadingOptions
        @Argument(help: "A room or diary entry (also a deleted one).") var item: String?
        @Option(name: [.customShort("n"), .long], help: "Show at most this many commits.") var maxCount = 50
        @Flag(help: "Print JSON.") var json = false

        func execute() throws {
            let (vault, history) = try location.openHistory()
            let (locale, zone) = try reading.resolve(for: vault)
            let path = try item.map { name throws(VaultError) in try resolveInHistory(name, vault: vault, history: history) }
            let entries = try history.log(path: path, limit: maxCount)
            if json { return try Terminal.json(entries) }
            if entries.isEmpty {
                print(path.map { "No commits change \($0)." } ?? "No commits yet.")
                return
            }
            let dates = entries.map { e in
                Timestamp(rfc3339: e.time).map { DateText.header($0, locale: locale, timeZone: zone) } ?? e.time
            }
            let width = dates.map(Terminal.width).max() ?? 0
            for (e, when) in zip(entries, dates) {
                print("\(e.shortID)  \(Terminal.fit(when, width))  \(e.summary)")
            }
        }
    }

    struct Diff: VaultRunnable {
        static let configuration = CommandConfiguration(
            commandName: "diff",
            abstract: "Show how a room or diary entry differs from its last commit, or from an older revision.")

        @OptionGroup var location: VaultLocation
        @Argument(help: "A room or diary entry.") var item: String
        @Argument(help: "A revision (from `vault log`); default: the last commit.") var revision = "HEAD"

        func execute() throws {
            let (vault, history) = try location.openHistory()
            let path = try resolveInHistory(item, vault: vault, history: history)
            let old = try history.contents(of: path, at: revision)
            let new = try? FileIO.read(vault.absolute(path))
            let diff = try history.unifiedDiff(old, new, path: path)
            if diff.isEmpty {
                print("\(path) is the same as in \(revision == "HEAD" ? "the last commit" : revision) (\(try history.shortID(revision))).")
            } else {
                Terminal.stream(diff)
            }
        }
    }

    struct Restore: VaultRunnable {
        static let configuration = CommandConfiguration(
            commandName: "restore",
            abstract: "Bring back a room or diary entry as it was at a revision; also brings back deleted ones.",
            discussion: "The current version is committed first, so restoring never loses it.")

        @OptionGroup var location: VaultLocation
        @Argument(help: "A room or diary entry (also a deleted one).") var item: String
        @Option(name: .customLong("at"), help: "The revision to restore from (see `vault log ITEM`).") var revision: String?

        func execute() throws {
            let (plain, history) = try location.openHistory()
            let vault = try Vault(root: plain.root, history: history)
            let path = try resolveInHistory(item, vault: vault, history: history)
            let exists = FileIO.exists(vault.absolute(path))
            let source: (bytes: [UInt8], revision: String)
            if let revision {
                guard let bytes = try history.contents(of: path, at: revision) else {
                    throw VaultError.invalidArgument("\(path) did not exist at \(revision) (`vault log \(path)` shows its history)")
                }
                source = (bytes, try history.commitID(revision))
            } else if !exists, let last = try history.lastVersion(of: path) {
                source = last
            } else if exists {
                throw VaultError.invalidArgument(
                    "\(path) exists; say which version to bring back with --at REV (`vault log \(path)` lists them)")
            } else {
                throw VaultError.itemNotFound(item, hint: "No version of it is in the history.")
            }
            let short = String(source.revision.prefix(7))
            try vault.changing { () throws(VaultError) in
                try history.prepare([path])
                if exists, try FileIO.read(vault.absolute(path)) == source.bytes {
                    throw VaultError.invalidArgument("\(path) is already as it was at \(short); nothing to restore")
                }
                try vault.write(source.bytes, to: path)
                try history.commit([path], message: "restore: \(path) (as of \(short))")
            }
            print("Restored \(path) as of \(short).")
        }
    }

    struct Remove: VaultRunnable {
        static let configuration = CommandConfiguration(
            commandName: "rm", abstract: "Remove a room or diary entry (with a commit: `vault restore` brings it back).")

        @OptionGroup var location: VaultLocation
        @Argument(help: "A room or diary entry.") var item: String
        @Flag(name: [.short, .long], help: "Do not ask for confirmation.") var yes = false

        func execute() throws {
            let plain = try location.open()
            let resolved = try plain.resolve(item, workingDirectory: FileManager.default.currentDirectoryPath)
            let path = resolved.path
            let title: String
            switch resolved {
            case .room: title = (try? plain.readRoom(path).title) ?? VaultPath.stem(of: path)
            case .diaryEntry: title = (try? plain.readDiaryEntry(path).title) ?? VaultPath.stem(of: path)
            }
            if !yes {
                guard Terminal.stdinIsTerminal else {
                    throw VaultError.invalidArgument("not removing \(path) without confirmation: add --yes")
                }
                Terminal.stream("Remove \(path) (\(title))? [y/N] ")
                let answer = readLine()?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
                guard answer == "y" || answer == "yes" else {
                    print("Nothing removed.")
                    return
                }
            }
            let history = try GitHistoryOnDemand(vault: plain.root, config: plain.config) { Terminal.note($0) }.history()
            let vault = try Vault(root: plain.root, history: history)
            try vault.changing { () throws(VaultError) in
                try history.prepare([path])
                try vault.remove(path)
                try history.commit([path], message: "rm: \(path) (\(title))")
            }
            print("Removed \(path). Bring it back with: vault restore \(path)")
        }
    }

    struct Unlock: VaultRunnable {
        static let configuration = CommandConfiguration(
            commandName: "unlock",
            abstract: "Remove git lock files left behind by a crashed program.",
            discussion: """
                Only locks untouched for a minute are removed (a running git program holds its \
                locks for moments); --force removes them all. Make sure no git program is running.
                """)

        @OptionGroup var location: VaultLocation
        @Flag(help: "Remove every lock, however recent.") var force = false

        func execute() throws {
            let vault = try location.open()
            let (removed, kept) = GitHistory.removeStaleLocks(vault: vault.root, force: force)
            for path in removed { print("removed \(path)") }
            for path in kept {
                Terminal.warning("kept \(path): it changed in the last minute, so a git program may be using it (--force removes it)")
            }
            if removed.isEmpty && kept.isEmpty { print("No lock files: nothing to do.") }
            if !kept.isEmpty { throw ExitCode.failure }
        }
    }
}
