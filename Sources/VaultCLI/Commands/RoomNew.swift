import ArgumentParser
import Foundation
import VaultCore
import VaultKit

extension VaultCommand.RoomCommand {
    struct New: VaultRunnable {
        static let configuration = CommandConfiguration(commandName: "new", abstract: "Start a new chat room.")

        @OptionGroup var location: VaultLocation
        @Argument(help: "The room's title.") var title: String
        @Option(help: "The model to use in this room.") var model: String?
        @Option(help: "The room's system prompt.") var system: String?
        @Flag(help: "Refuse when the title's file name is taken, instead of making TITLE-2.") var unique = false
        @Option(
            name: .customLong("with"),
            help: ArgumentHelp("Share the room with this person of vault.yml's people: (repeat for a group).", valueName: "NAME"))
        var people: [String] = []

        func execute() throws {
            let title = self.title.trimmingCharacters(in: .whitespacesAndNewlines)
            let vault = try location.openForChange()
            let members = try vault.sharedMembers(with: people)
            let path = try RoomCreation(vault: vault).create(
                title: title, model: model, system: system, unique: unique, members: members)
            let taken = RoomCreation.taken(title: title, in: vault, free: path).map {
                " (\($0) has that title's name already; --unique refuses instead)"
            } ?? ""
            let name = VaultPath.stem(of: path)
            // A room shared with people is talked in with `vault say`: `vault chat` would send
            // every message to a model; `@assistant` asks it there.
            let talk =
                members.isEmpty
                ? "`vault chat \(name) \"…\"`"
                : "`vault say \(name) \"…\"` (`vault say \(name) \"@assistant …\"` asks the model)"
            print("Made \(path)\(taken). Talk in it with \(talk).")
        }
    }
}
