import ArgumentParser
import Foundation
import VaultCore
import VaultKit

extension VaultCommand {
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
            let session = try location.session(.change)
            let path = try session.itemInHistory(item, workingDirectory: FileManager.default.currentDirectoryPath)
            let restore = try session.restoring()
            let restored = try restore.restore(path, named: item, at: revision, anyway: anyway)
            print("Restored \(path) as of \(restored.revision).")
            if let kept = restored.handEdit {
                let name = VaultPath.commandName(of: path)
                print("Your hand edit is kept in commit \(kept): `vault restore \(name) --at \(kept)` brings it back.")
            }
        }
    }
}
