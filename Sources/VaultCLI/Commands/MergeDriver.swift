import ArgumentParser
import Foundation
import VaultCore
import VaultKit

extension VaultCommand {
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
            for note in try VaultSession.mergeDriver(
                ancestor: ancestor, current: current, other: other, path: path, root: root,
                settings: VaultCommand.settings)
            {
                Terminal.note(note)
            }
        }
    }
}
