import Foundation

/// ArgumentParser's usage errors in vault's one error format: `vault: error: …` and at most one
/// hint line, never its four-line block of "Error:", "Help:", "Usage:" and "See …".
///
///     vault chat
///     // vault: error: missing <room> (the room: a path, its slug, or the start of its title)
///     //   usage: vault chat [--vault <DIR>] <room> [<message>] …
///     vault shwo x
///     // vault: error: 'shwo' is not a command of `vault`
///     //   did you mean `vault show`?
enum UsageMessage {
    /// The message and its hint for ArgumentParser's `fullMessage` of a usage error made by
    /// `arguments` (the command line without the program's name).
    static func of(_ fullMessage: String, arguments: [String]) -> (message: String, hint: String?) {
        if let unknown = CommandSuggestion.unknownCommand(in: arguments) { return (unknown.message, unknown.hint) }
        let lines = fullMessage.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        func after(_ prefix: String) -> String? {
            lines.first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
        }
        var message = after("Error: ") ?? lines.first ?? "the command line is not one vault understands"
        let usage = after("Usage: ")
        // "See 'vault log --help' for more information."
        let help = after("See '").flatMap { $0.split(separator: "'").first.map(String.init) }
        // "Help:  <room>  The room: a path, …": what the argument or option is.
        var explanation: String?
        if let text = after("Help:") {
            let parts = text.components(separatedBy: "  ").map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty }
            if parts.count >= 2 { explanation = lowercasedFirst(parts.dropFirst().joined(separator: " ")) }
        }
        var hint = help.map { "`\($0)` says what it takes" }
        if message.hasPrefix("Missing expected argument '"), let name = quoted(message) {
            message = "missing \(name)"
            hint = usage.map { "usage: " + $0 }
        } else {
            message = lowercasedFirst(message)
        }
        if var explanation {
            while explanation.hasSuffix(".") { explanation.removeLast() }
            message += " (\(explanation))"
        }
        return (message, hint)
    }

    /// The first text between single quotes.
    private static func quoted(_ text: String) -> String? {
        let parts = text.split(separator: "'", omittingEmptySubsequences: false)
        return parts.count >= 3 ? String(parts[1]) : nil
    }

    /// `text` with its first letter in lower case, unless the first word is a name in capitals (`URL`).
    private static func lowercasedFirst(_ text: String) -> String {
        guard let first = text.first, first.isUppercase else { return text }
        let word = text.prefix { $0.isLetter }
        if word.count > 1, word.allSatisfy(\.isUppercase) { return text }
        return first.lowercased() + text.dropFirst()
    }
}
