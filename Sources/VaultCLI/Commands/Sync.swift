import ArgumentParser
import Foundation
import VaultCore
import VaultKit

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
            // With the session's watcher (the search's inotify watcher answers which rooms and
            // entries changed since the last sync; VAULT_NO_WATCH=1: every file is stamped).
            let sync = try location.session(.change).syncing()
            sync.interactive = Terminal.stdinIsTerminal
            sync.allowUnrelated = allowUnrelated
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
}
