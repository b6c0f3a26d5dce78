import ArgumentParser
import Foundation
import VaultCore
import VaultKit

extension VaultCommand.RoomCommand {
    struct Show: VaultRunnable {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show a room's settings: its front-matter, key by key (`vault show ROOM` shows its messages).")

        @OptionGroup var location: VaultLocation
        @Argument(help: "The room.", completion: .rooms) var room: String
        @Flag(help: "Print JSON: each key with its value as written (text, or a list of texts).") var json = false

        func execute() throws {
            let vault = try location.open()
            let path = try vault.resolveRoom(room, workingDirectory: FileManager.default.currentDirectoryPath)
            // The front-matter and the end of the file only: a room of years reads as fast as a new one.
            let file = try RoomFile.readEnd(vault.absolute(path), path: path) { _ in true }.room
            let entries = file.frontMatter.map { fm in fm.entries.map { ($0.key, fm.values[$0.key]) } } ?? []
            if json {
                var object: [String: RoomSettingValue] = [:]
                for (key, value) in entries {
                    switch value {
                    case .string(let s)?: object[key] = .text(s)
                    case .list(let items)?: object[key] = .list(items)
                    case .other(let yaml)?: object[key] = .text(yaml)
                    case nil: object[key] = .text("")
                    }
                }
                return try Terminal.json(object)
            }
            print(path)
            for (key, value) in entries {
                let text: String
                switch value {
                case .string(let s)?: text = s
                case .list(let items)?: text = "[" + items.joined(separator: ", ") + "]"
                case .other(let yaml)?: text = yaml
                case nil: text = ""
                }
                print("\(key): \(Terminal.visible(text, singleLine: true))")
            }
        }
    }
}

/// A front-matter value in `vault room show --json`: a text, or a list of texts.
enum RoomSettingValue: Encodable {
    case text(String)
    case list([String])

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .text(let s): try container.encode(s)
        case .list(let items): try container.encode(items)
        }
    }
}
