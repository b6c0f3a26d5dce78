import ArgumentParser
import Foundation
import VaultCore

/// "Did you mean …?" for a command line whose subcommand is mistyped (`vault rom`,
/// `vault room sett`), and the commands people reach for under another name (`vault room list`
/// is `vault rooms`).
enum CommandSuggestion {
    /// A word where a subcommand was expected: the commands before it (`["vault", "room"]`) and
    /// the word (`"sett"`); nil when every word up to the first option or argument names a command.
    static func unknownSubcommand(in arguments: [String]) -> (path: [String], word: String)? {
        var command: any ParsableCommand.Type = VaultCommand.self
        var path = [VaultCommand._commandName]
        for argument in arguments {
            let subcommands = command.configuration.subcommands
            guard !subcommands.isEmpty, !argument.hasPrefix("-") else { return nil }
            guard let next = subcommands.first(where: { $0._commandName == argument }) else {
                return (path, argument)
            }
            command = next
            path.append(argument)
        }
        return nil
    }

    /// The nearest subcommands' full names (`` `vault room` or `vault rm` ``) when `arguments` names a command that
    /// has subcommands and then a word that is none of them; nil otherwise.
    static func nearest(for arguments: [String]) -> String? {
        guard let (path, word) = unknownSubcommand(in: arguments) else { return nil }
        var command: any ParsableCommand.Type = VaultCommand.self
        for name in path.dropFirst() {
            guard let next = command.configuration.subcommands.first(where: { $0._commandName == name }) else {
                return nil
            }
            command = next
        }
        let names = command.configuration.subcommands.filter { $0.configuration.shouldDisplay }.map { $0._commandName }
        let nearest = NearestName.tied(to: word, among: names.map { ($0, [$0]) })
        guard !nearest.isEmpty else { return nil }
        return nearest.map { "`" + (path + [$0]).joined(separator: " ") + "`" }.joined(separator: " or ")
    }

    /// Commands people type that vault spells another way, with the one that does it.
    static let otherSpellings: [String: String] = [
        "vault room list": "`vault rooms` lists the rooms",
        "vault room ls": "`vault rooms` lists the rooms",
        "vault rooms list": "`vault rooms` lists the rooms",
        "vault list": "`vault rooms` lists the rooms, `vault diary list` the diary entries",
        "vault ls": "`vault rooms` lists the rooms, `vault diary list` the diary entries",
        "vault diary ls": "`vault diary list` lists the diary entries",
        "vault diary new": "`vault write TITLE` writes a diary entry",
        "vault diary write": "`vault write TITLE` writes a diary entry",
        "vault room rm": "`vault rm ROOM` removes a room",
        "vault room remove": "`vault rm ROOM` removes a room",
        "vault room show": "`vault show ROOM` shows a room",
    ]

    /// The message and hint for a word that is no subcommand: `'shwo' is not a vault command` and
    /// `` did you mean `vault show`? ``; nil when `arguments` has no such word.
    static func unknownCommand(in arguments: [String]) -> (message: String, hint: String)? {
        guard let (path, word) = unknownSubcommand(in: arguments) else { return nil }
        let parent = path.joined(separator: " ")
        let message = "'\(word)' is not a command of `\(parent)`"
        if let other = otherSpellings[parent + " " + word] { return (message, other) }
        if let nearest = nearest(for: arguments) { return (message, "did you mean \(nearest)?") }
        return (message, "`\(parent) --help` lists its commands")
    }
}
