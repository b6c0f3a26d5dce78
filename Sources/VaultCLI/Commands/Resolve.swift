import ArgumentParser
import Foundation
import VaultCore
import VaultKit

extension VaultCommand {
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
            let done = try location.session(.change).resolving().run()
            if done.isEmpty {
                print("Nothing to resolve: no unfinished merge, no conflict markers, no conflict copies.")
                return
            }
            for line in done { print(line) }
        }
    }
}
