import ArgumentParser
import Foundation
import VaultCore
import VaultKit

extension VaultCommand {
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
            let report = try location.session(.change).unlocking().unlock(force: force)
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
