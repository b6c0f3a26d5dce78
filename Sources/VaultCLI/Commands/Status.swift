import ArgumentParser
import Foundation
import VaultCore
import VaultKit

extension VaultCommand {
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
            let status = try location.session(.readOnly).status()
            if json { return try Terminal.json(status) }
            SyncOutput.show(status)
        }
    }
}
