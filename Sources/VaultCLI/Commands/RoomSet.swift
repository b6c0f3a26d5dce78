import ArgumentParser
import Foundation
import VaultCore
import VaultKit

extension VaultCommand.RoomCommand {
    struct Set: VaultRunnable {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Set a room's front-matter setting (model, provider, system, temperature, …).",
            discussion: """
                Only that key's lines change; comments, quoting and other keys stay as they are. --unset \
                removes the key. Every setting is used or sent to the server; another key is refused.

                """ + RoomSetting.all.map { "  \($0.key): \($0.meaning)" }.joined(separator: "\n"))

        @OptionGroup var location: VaultLocation
        @Argument(help: "The room.", completion: .rooms) var room: String
        @Argument(help: "The key, e.g. model or temperature.", completion: .list(RoomSetting.all.map(\.key)))
        var key: String
        // Every argument not an option of this command: a negative number (`-0.5`) is a value.
        @Argument(parsing: .allUnrecognized, help: ArgumentHelp("The value.", valueName: "value"))
        var values: [String] = []
        @Flag(help: "Remove the key.") var unset = false

        func execute() throws {
            guard values.count <= 1 else { throw UsageError.severalValues(key: key, values: values) }
            let value = values.first
            guard unset || value != nil else { throw UsageError.missingValue(key: key) }
            let vault = try location.openForChange()
            let path = try vault.resolveRoom(room, workingDirectory: FileManager.default.currentDirectoryPath)
            // As it is stored (`yesterday` → `2026-11-25`), and as it is echoed.
            let stored = try value.map { v throws(VaultError) in
                try RoomSetting.checked(key, v, timeZone: vault.config.timeZone)
            }
            let result = try RoomSettings(vault: vault).set(key, to: unset ? nil : stored, inRoom: path)
            let shown = stored.map { Terminal.visible($0, singleLine: true) } ?? ""
            switch result {
            case .alreadySo where unset: print("\(path): '\(key)' is not set.")
            case .alreadySo: print("\(path): \(key) is already \(shown)")
            case .removed: print("\(path): removed '\(key)'.")
            case .set: print("\(path): \(key) is now \(shown)")
            }
        }
    }
}
