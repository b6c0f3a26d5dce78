import ArgumentParser
import Foundation
import VaultCore

extension VaultCommand.RoomCommand {
    struct Join: VaultRunnable {
        static let configuration = CommandConfiguration(
            commandName: "join", abstract: "Join a shared room: add yourself to its members.")

        @OptionGroup var location: VaultLocation
        @Argument(help: "The room.", completion: .rooms) var room: String

        func execute() throws {
            let vault = try location.openForChange()
            let path = try vault.resolveRoom(room, workingDirectory: FileManager.default.currentDirectoryPath)
            let me = try myIdentity(vault).author
            let name = Terminal.visible(me.name, singleLine: true)
            switch try Membership(vault: vault).join(path, as: me) {
            case .alreadySo: print("\(path): \(name) is a member already.")
            case .changed(let members): print("\(path): \(name) joined; members: \(shown(members)).")
            }
        }
    }

    struct Leave: VaultRunnable {
        static let configuration = CommandConfiguration(
            commandName: "leave",
            abstract: "Leave a shared room: take yourself out of its members (your messages stay).")

        @OptionGroup var location: VaultLocation
        @Argument(help: "The room.", completion: .rooms) var room: String

        func execute() throws {
            let vault = try location.openForChange()
            let path = try vault.resolveRoom(room, workingDirectory: FileManager.default.currentDirectoryPath)
            let me = try myIdentity(vault).author
            let name = Terminal.visible(me.name, singleLine: true)
            switch try Membership(vault: vault).leave(path, as: me) {
            case .alreadySo: print("\(path): \(name) is not a member.")
            case .changed(let members):
                let left = members.isEmpty ? "no members are left" : "members: \(shown(members))"
                print("\(path): \(name) left; \(left). Your messages stay in the room.")
            }
        }
    }
}

private func shown(_ members: [String]) -> String {
    members.map { Terminal.visible($0, singleLine: true) }.joined(separator: ", ")
}
