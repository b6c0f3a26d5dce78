import ArgumentParser
import Foundation
import VaultCore

/// "Did you mean …?" for a command line whose subcommand is mistyped (`vault rom`,
/// `vault room sett`), added under ArgumentParser's own "Unexpected argument" message.
enum CommandSuggestion {
    /// The nearest subcommands' full names (`` `vault room` or `vault rm` ``) when `arguments` names a command that
    /// has subcommands and then a word that is none of them; nil otherwise.
    static func nearest(for arguments: [String]) -> String? {
        var command: any ParsableCommand.Type = VaultCommand.self
        var path = [VaultCommand._commandName]
        for argument in arguments {
            let subcommands = command.configuration.subcommands
            guard !subcommands.isEmpty, !argument.hasPrefix("-") else { return nil }
            if let next = subcommands.first(where: { $0._commandName == argument }) {
                command = next
                path.append(argument)
                continue
            }
            let names = subcommands.filter { $0.configuration.shouldDisplay }.map { $0._commandName }
            let nearest = NearestName.tied(to: argument, among: names.map { ($0, [$0]) })
            guard !nearest.isEmpty else { return nil }
            return nearest.map { "`" + (path + [$0]).joined(separator: " ") + "`" }.joined(separator: " or ")
        }
        return nil
    }

    /// ArgumentParser's message with "Did you mean `vault room`?" after its first line, when the
    /// message is about an unexpected argument that is a mistyped subcommand.
    static func adding(to message: String, arguments: [String]) -> String {
        // "Error: Unexpected argument 'rom'", or "Error: 2 unexpected arguments: 'serach', 'x'".
        let first = message.prefix { $0 != "\n" }
        let unexpected = first.hasPrefix("Error: ") && first.contains("nexpected argument")
        guard unexpected, let nearest = nearest(for: arguments) else {
            return message
        }
        var lines = message.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines.insert("Did you mean \(nearest)?", at: 1)
        return lines.joined(separator: "\n")
    }
}
