import ArgumentParser
import Foundation
import VaultCore
import VaultKit
import VaultGit
import VaultSearch

extension VaultCommand {
    struct Sync: VaultRunnable {
        static let configuration = CommandConfiguration(
            commandName: "sync",
            abstract: "Sync the vault with a remote: commit hand edits, fetch, merge without losing a word, push.",
            discussion: """
                Rooms merge by message id, diary entries and vault.yml line by line and key by key; \
                where both sides changed the same lines of an entry, the other version is kept next to \
                it as a conflict copy. Nothing is ever force-pushed. --undo puts the vault back as it \
                was before the last sync, and keeps uncommitted edits as they are. A remote whose \
                branch is not this vault (no vault.yml, or no commit in common) is refused before \
                anything is merged or sent, unless --allow-unrelated. `vault sync NAME` does not \
                change the default remote (`vault remote default NAME` does). Two syncs take turns \
                (the second waits up to VAULT_LOCK_TIMEOUT seconds, default 30).
                """)

        @OptionGroup var location: VaultLocation
        @Argument(help: "The remote (default: the branch's upstream, else origin, else the only one).")
        var remote: String?
        @Flag(name: .customLong("dry-run"), help: "Say what would come in and go out; change nothing.")
        var dryRun = false
        @Flag(help: "Put the vault back as it was before the last sync.") var undo = false
        @Flag(
            name: .customLong("allow-unrelated"),
            help: "Merge a remote branch that has no vault.yml or no commit in common with the vault.")
        var allowUnrelated = false
        @Flag(help: "Print the report as JSON.") var json = false

        func execute() throws {
            let session = try location.session(.change)
            let history = try session.repository()
            let sync = VaultSync(vault: session.vault.with(history: history), history: history)
            sync.interactive = Terminal.stdinIsTerminal
            sync.allowUnrelated = allowUnrelated
            sync.machineLimits = try IncomingLimits.ofThisMachine()
            // The search's inotify watcher answers which rooms and entries changed since the last
            // sync, so a sync need not stamp every file (VAULT_NO_WATCH=1: it does).
            sync.watcher = SearchWatcherCommand.watcher(forVaultAt: session.vault.root)
            if undo {
                guard !dryRun, remote == nil, !allowUnrelated else { throw UsageError.undoWithOptions }
                let done = try sync.undo()
                if json { return try Terminal.json(done) }
                print(
                    "Undid the last sync: the vault is back at \(done.restored.prefix(7)) (\(done.paths.count)"
                        + " file\(done.paths.count == 1 ? "" : "s") restored)."
                )
                print(
                    "The undone merge is kept as refs/vault/sync/undone (\(done.undone.prefix(7)));"
                        + " the remote was not changed, so the next `vault sync` brings its changes in again."
                )
                if !done.keptEdits.isEmpty {
                    let edits = done.keptEdits.joined(separator: ", ")
                    print("Your uncommitted edits were kept as they were (not committed): \(edits).")
                }
                if !done.editedAndSynced.isEmpty {
                    print(
                        "  \(done.editedAndSynced.joined(separator: ", ")): changed by the sync and edited since;"
                            + " kept as you edited it, with what the sync brought in.")
                }
                return
            }
            // The transfers' progress on standard error, on a terminal only; cleared before the report.
            let progress = ProgressLine()
            sync.onProgress = progress.handler
            let report = try {
                defer { progress.finish() }
                return dryRun ? try sync.dryRun(remote: remote) : try sync.sync(remote: remote)
            }()
            if json { return try Terminal.json(report) }
            SyncOutput.show(report)
        }
    }

    struct Clone: VaultRunnable {
        static let configuration = CommandConfiguration(
            commandName: "clone",
            abstract: "Set up this machine with a vault from a remote, ready for `vault chat` and `vault sync`.")

        @Argument(help: "The remote: a path, file://, ssh (host:path or ssh://) or https URL.") var url: String
        @Argument(help: "The folder to make (default: named after the remote).") var directory: String?

        func execute() throws {
            let cwd = FileManager.default.currentDirectoryPath
            let name = directory ?? VaultClone.defaultFolder(for: url)
            let root = Vault.absolute(name, from: cwd)
            let limits = try IncomingLimits.ofThisMachine()
            let progress = ProgressLine()
            let vault = try {
                defer { progress.finish() }
                return try VaultClone.clone(
                    url: url, into: root, interactive: Terminal.stdinIsTerminal, onProgress: progress.handler,
                    limits: limits)
            }()
            let rooms = vault.roomPaths().count
            let entries = vault.diaryPaths(sorted: false).count
            print(
                "Cloned \(url) into \(root): \(rooms) room\(rooms == 1 ? "" : "s"),"
                    + " \(entries) diary entr\(entries == 1 ? "y" : "ies")."
            )
            print("Ready: `cd \(name)` then `vault rooms`, `vault chat ROOM`, and `vault sync` to exchange changes.")
        }
    }

    struct Remote: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remote", abstract: "List, add and remove the remotes the vault syncs with.",
            subcommands: [List.self, Add.self, RemoveRemote.self, Default.self], defaultSubcommand: List.self)

        struct List: VaultRunnable {
            static let configuration = CommandConfiguration(commandName: "list", abstract: "List the remotes.")
            @OptionGroup var location: VaultLocation

            func execute() throws {
                let list = try location.remotes()
                let remotes = try list.list()
                if remotes.isEmpty { print("No remotes. Add one with `vault remote add origin URL`.") }
                let chosen = list.defaultName()
                for r in remotes { print("\(r.name)\t\(r.url)\(r.name == chosen ? "\t(default)" : "")") }
            }
        }

        struct Add: VaultRunnable {
            static let configuration = CommandConfiguration(commandName: "add", abstract: "Add a remote.")
            @OptionGroup var location: VaultLocation
            @Argument(help: "Its name, e.g. origin.") var name: String
            @Argument(help: "Its URL: a path, file://, ssh or https.") var url: String

            func execute() throws {
                let session = try location.session(.change)
                try Remotes(vault: session.vault, history: try session.repository()).add(name: name, url: url)
                print("Added the remote \(name) (\(url)). `vault sync` sends and receives changes.")
            }
        }

        struct Default: VaultRunnable {
            static let configuration = CommandConfiguration(
                commandName: "default",
                abstract: "Make a remote the one a plain `vault sync` uses (`vault sync NAME` never changes it).")
            @OptionGroup var location: VaultLocation
            @Argument(help: "Its name.") var name: String

            func execute() throws {
                try location.remotes().makeDefault(name: name)
                print("`vault sync` now syncs with \(name).")
            }
        }

        struct RemoveRemote: VaultRunnable {
            static let configuration = CommandConfiguration(
                commandName: "remove", abstract: "Remove a remote (its data is not touched).")
            @OptionGroup var location: VaultLocation
            @Argument(help: "Its name.") var name: String

            func execute() throws {
                try location.remotes().remove(name: name)
                print("Removed the remote \(name).")
            }
        }
    }

    struct Status: VaultRunnable {
        static let configuration = CommandConfiguration(
            commandName: "status",
            abstract:
                "Hand edits not committed yet, commits ahead of and behind the remote,"
                + " unfinished merges, conflict copies."
        )

        @OptionGroup var location: VaultLocation
        @Flag(help: "Print JSON.") var json = false

        func execute() throws {
            let (vault, history) = try location.openHistory()
            let status = try VaultStatus.read(vault: vault, history: history)
            if json { return try Terminal.json(status) }
            SyncOutput.show(status)
        }
    }

    struct Resolve: VaultRunnable {
        static let configuration = CommandConfiguration(
            commandName: "resolve",
            abstract:
                "Repair what other tools left: an unfinished git merge, conflict markers,"
                + " Syncthing and Dropbox conflict copies.",
            discussion: """
                An unfinished merge is finished from git's three versions of each file; a file with \
                conflict markers is merged from the sides the markers hold; a conflict copy is merged \
                into its original (rooms by message id) and removed. All in one commit; nothing is lost.

                With a room, settles its messages edited differently on two machines (kept twice, \
                `vault show` marks them, `vault check` lists them): --keep ID keeps that version and \
                removes the other, --keep-both keeps both as messages of their own.
                """)

        @OptionGroup var location: VaultLocation
        @Argument(help: "A room whose messages in two versions to settle.", completion: .items) var room: String?
        @Option(help: "The version to keep (a message id `vault show` marks); the other is removed.") var keep: String?
        @Flag(help: "Keep both versions of every message in two versions, as messages of their own.") var keepBoth = false

        func execute() throws {
            if room != nil || keep != nil || keepBoth {
                guard let room, (keep != nil) != keepBoth else { throw UsageError.settleHow }
                let vault = try location.openForChange()
                let path = try vault.resolveRoom(room, workingDirectory: FileManager.default.currentDirectoryPath)
                let done = try Termination.deferring { () throws(VaultError) -> [String] in
                    try ConflictSettling(vault: vault).settle(path, keep.map { .keep($0) } ?? .keepBoth)
                }
                for line in done { print("\(path): \(line).") }
                return
            }
            let (vault, history) = try location.session(.change).changingExistingRepository()
            let resolve = VaultResolve(vault: vault, history: history)
            resolve.machineLimits = try IncomingLimits.ofThisMachine()
            let done = try resolve.run()
            if done.isEmpty {
                print("Nothing to resolve: no unfinished merge, no conflict markers, no conflict copies.")
                return
            }
            for line in done { print(line) }
        }
    }

    struct MergeDriverCommand: VaultRunnable {
        static let configuration = CommandConfiguration(
            commandName: "merge-driver",
            abstract: "vault's merge for `git merge` and `git pull` (git runs it: `vault merge-driver %O %A %B %P`).",
            shouldDisplay: false)

        @Argument(help: "The common ancestor's version (%O).") var ancestor: String
        @Argument(help: "This side's version, replaced by the merge (%A).") var current: String
        @Argument(help: "The other side's version (%B).") var other: String
        @Argument(help: "The file's path in the vault (%P).") var path: String

        func execute() throws {
            let root = FileManager.default.currentDirectoryPath
            let limits = try IncomingLimits.ofThisMachine()
            for note in try MergeDriver.run(
                ancestor: ancestor, current: current, other: other, path: path, root: root, machineLimits: limits)
            {
                Terminal.note(note)
            }
        }
    }
}

extension VaultLocation {
    /// The vault's remotes, its repository opened (not made: listing, removing and choosing a
    /// remote need one already).
    func remotes() throws -> Remotes {
        let session = try session(.change)
        return Remotes(vault: session.vault, history: try session.existingRepository())
    }
}

/// How sync, status and resolve print for a person.
enum SyncOutput {
    /// One line of text from a file or a remote: every control character shown, line feeds too.
    static func one(_ text: String) -> String { Terminal.visible(text, singleLine: true) }

    static func show(_ r: SyncReport) {
        var summary: [String] = []
        if r.newMessageCount > 0 {
            summary.append(
                "\(r.newMessageCount) new message\(r.newMessageCount == 1 ? "" : "s")"
                    + " in \(r.rooms.count) room\(r.rooms.count == 1 ? "" : "s")"
            )
        }
        if !r.newEntries.isEmpty {
            summary.append("\(r.newEntries.count) new diary entr\(r.newEntries.count == 1 ? "y" : "ies")")
        }
        let newRooms = r.rooms.filter { $0.isNew && $0.newMessageIDs.isEmpty }.count
        if newRooms > 0 { summary.append("\(newRooms) new room\(newRooms == 1 ? "" : "s")") }
        if !r.changed.isEmpty { summary.append("\(r.changed.count) changed") }
        if !r.deleted.isEmpty { summary.append("\(r.deleted.count) deleted") }
        if !r.renamed.isEmpty { summary.append("\(r.renamed.count) renamed") }
        if !r.conflictCopies.isEmpty {
            summary.append("\(r.conflictCopies.count) conflict cop\(r.conflictCopies.count == 1 ? "y" : "ies")")
        }
        let unverified = r.unverifiedMarks.reduce(0) { $0 + $1.reasons.count }
        if unverified > 0 { summary.append("\(unverified) unverified") }
        // Every line the report lists below is counted here: never "nothing new" above a list.
        if !r.notes.isEmpty { summary.append("\(r.notes.count) note\(r.notes.count == 1 ? "" : "s")") }
        if r.dryRun {
            print("Dry run against \(r.remote): nothing was changed.")
            print(
                "  would come in: \(r.incomingCommits) commit\(r.incomingCommits == 1 ? "" : "s")"
                    + "\(summary.isEmpty ? "" : " (" + summary.joined(separator: ", ") + ")")"
            )
            print("  would go out:  \(r.outgoingCommits) commit\(r.outgoingCommits == 1 ? "" : "s")")
            if !r.pendingHandEdits.isEmpty {
                print("  hand edits committed first: \(r.pendingHandEdits.joined(separator: ", "))")
            }
        } else {
            let came = summary.isEmpty ? "nothing new came in" : summary.joined(separator: ", ")
            print("Synced with \(r.remote): \(came); \(r.pushed ? "your changes were sent" : "nothing to send").")
            if !r.handEdits.isEmpty {
                print("  committed your hand edits first: \(r.handEdits.joined(separator: ", "))")
            }
        }
        for room in r.rooms {
            let count = room.newMessageIDs.count
            let newest = room.newest.map { " — \"\($0)\"" } ?? ""
            // A shared room: who wrote what came in.
            let from = room.authors.isEmpty ? "" : " from " + room.authors.joined(separator: ", ")
            print(
                "  \(room.isNew ? "new room " : "")\(one(room.title)) (\(one(room.path))): +\(count)\(one(from))\(one(newest))")
            for (id, why) in room.unverified.sorted(by: { $0.key < $1.key }) {
                print("  unverified: \(one(room.path)) \(one(id)): \(one(why))")
            }
        }
        for (path, edits) in r.unverifiedEdits.sorted(by: { $0.key < $1.key }) {
            for (id, why) in edits.sorted(by: { $0.key < $1.key }) {
                print("  unverified: \(one(path)) \(one(id)): \(one(why))")
            }
        }
        for e in r.newEntries { print("  new entry: \(one(e))") }
        for e in r.changed { print("  changed: \(one(e))") }
        for e in r.deleted { print("  deleted: \(one(e))") }
        for e in r.renamed { print("  renamed: \(one(e.from)) → \(one(e.to))") }
        for c in r.conflictCopies {
            print("  conflict copy: \(one(c)) (both sides changed the same lines; the other version is here)")
        }
        for n in r.notes { print("  note: \(one(n))") }
        if r.retries > 0 { print("  the remote moved during the sync; merged again (\(r.retries)×)") }
    }

    static func show(_ s: VaultStatus) {
        if let remote = s.remote {
            if let ahead = s.ahead, let behind = s.behind {
                print(
                    "\(s.branch) against \(remote)/\(s.branch) (as of the last fetch): \(ahead) ahead, \(behind) behind"
                )
            } else {
                print("\(s.branch): \(remote) has no \(s.branch) yet (`vault sync` sends it)")
            }
        } else {
            print("\(s.branch): no remote (`vault remote add origin URL`)")
        }
        if s.handEdits.isEmpty {
            print("no hand edits waiting")
        } else {
            print("hand edits not committed yet (the next vault command commits them):")
            for p in s.handEdits { print("  \(one(p))") }
        }
        if let merge = s.unfinishedMerge { print("unfinished merge: \(merge) (`vault resolve` finishes it)") }
        for p in s.conflicted { print("  conflicted: \(one(p))") }
        for c in s.conflictCopies {
            print("conflict copy: \(one(c.copy)) (of \(one(c.original)); `vault resolve` merges it in)")
        }
        for u in s.unsettled {
            print("two versions of a message: \(one(u.room)) \(u.message) and \(u.other)"
                + " (`vault resolve \(VaultPath.stem(of: u.room)) --keep ID` keeps one)")
        }
        if let last = s.lastSync { print("last sync: \(last) (`vault sync --undo` undoes it)") }
    }
}
