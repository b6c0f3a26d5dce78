import ArgumentParser
import Foundation
import VaultCore
import VaultKit

extension VaultCommand {
    struct Clone: VaultRunnable {
        static let configuration = CommandConfiguration(
            commandName: "clone",
            abstract: "Set up this machine with a vault from a remote, ready for `vault chat` and `vault sync`.")

        @Argument(help: "The remote: a path, file://, ssh (host:path or ssh://) or https URL.") var url: String
        @Argument(help: "The folder to make (default: named after the remote).") var directory: String?

        func execute() throws {
            let cwd = FileManager.default.currentDirectoryPath
            let name = directory ?? VaultSession.cloneFolder(for: url)
            let root = Vault.absolute(name, from: cwd)
            let progress = ProgressLine()
            let vault = try {
                defer { progress.finish() }
                return try VaultSession.clone(
                    url: url, into: root, settings: VaultCommand.settings, interactive: Terminal.stdinIsTerminal,
                    onProgress: progress.handler)
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
}
