import ArgumentParser
import Foundation
import VaultCore
import VaultKit

extension VaultCommand {
    struct RoomCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "room", abstract: "Make, show and change rooms.", subcommands: [New.self, Show.self, Set.self, Join.self, Leave.self])
    }
}
