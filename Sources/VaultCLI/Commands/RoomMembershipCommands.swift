import ArgumentParser
import Foundation
import VaultCore
import VaultKit

extension VaultCommand.RoomCommand {
    struct Join: VaultRunnable {
        static let configuration = CommandConfiguration(
            commandName: "join", abstract: "Join a shared room: add yourself to its members.")

        @OptionGroup var location: VaultLocation
        @Argument(help: "The room.", completion: .rooms) var room: String

        func execute() throws {
            try changeMembership(location, room) { membership, path, me throws(VaultError) in
                switch try membership.join(path, as: me) {
                case .alreadySo: return "is a member already."
                case .changed(let members): return "joined; members: \(shown(members))."
                }
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
            try changeMembership(location, room) { membership, path, me throws(VaultError) in
                switch try membership.leave(path, as: me) {
                case .alreadySo: return "is not a member."
                case .changed(let members):
                    let left = members.isEmpty ? "no members are left" : "members: \(shown(members))"
                    return "left; \(left). Your messages stay in the room."
                }
            }
        }
    }
}

/// Opens the vault, finds the room, and prints `ROOM: NAME ` and what `change` says it did.
private func changeMembership(
    _ location: VaultLocation, _ room: String,
    _ change: (Membership, String, Author) throws(VaultError) -> String
) throws(VaultError) {
    let vault = try location.openForChange()
    let path = try vault.resolveRoom(room, workingDirectory: FileManager.default.currentDirectoryPath)
    let me = try vault.identity().author
    let said = try change(Membership(vault: vault), path, me)
    print("\(path): \(Terminal.visible(me.name, singleLine: true)) \(said)")
}

private func shown(_ members: [String]) -> String {
    members.map { Terminal.visible($0, singleLine: true) }.joined(separator: ", ")
}
