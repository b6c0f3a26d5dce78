import ArgumentParser
import Foundation
import VaultCore
import VaultKit

extension VaultCommand {
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
                try location.session(.change).remotes(making: true).add(name: name, url: url)
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
}

extension VaultLocation {
    /// The vault's remotes, its repository opened (not made: listing, removing and choosing a
    /// remote need one already).
    func remotes() throws -> Remotes {
        try session(.change).remotes()
    }
}
