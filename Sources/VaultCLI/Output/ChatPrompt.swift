import Foundation
import VaultChat
import VaultCore

/// `vault chat ROOM` on a terminal with no message: a prompt (`LineEditor`: line editing and
/// history) where each message typed is a turn, and slash commands change the room.
///
/// A line ending in `\` goes on on the next line (the message keeps the line break). An empty
/// line asks again. Ctrl-D (on an empty line), `/exit` or the end of input end the session on a
/// new line. A `VaultError` from a turn or a command is printed (`vault: error: …`) and the prompt
/// returns. Ctrl-C at the prompt ends the session at once (nothing is being changed); during a
/// reply it stops the reply, which is saved with what arrived, and then ends the session.
struct ChatPrompt {
    static let help = """
        Type a message and press Enter; end a line with \\ to go on on the next line.
          /retry         send the last unanswered message again
          /model NAME    set the room's model (room set model NAME)
          /system TEXT   set the room's system prompt (no TEXT: remove it)
          /edit          open the room in the editor
          /help          this list
          /exit          end (as Ctrl-D does)
        """

    let vault: Vault
    let path: String
    var provider: String?
    var model: String?
    var files: [String]
    let send: (ChatTurn, String?, [String]) throws(VaultError) -> Void
    let editor = LineEditor()

    /// Runs the prompt until Ctrl-D or `/exit`.
    mutating func run() {
        while let entry = readEntry() {
            if entry.trimmingCharacters(in: .whitespaces).isEmpty { continue }
            editor.remember(entry)
            do {
                if entry.hasPrefix("/") {
                    guard try command(entry) else { return }
                } else {
                    try send(try turn(), entry, files)
                    files = []
                }
            } catch {
                Terminal.error(error.description)
            }
            Termination.exitIfRequested()
        }
        Terminal.write("\n", to: 1)
    }

    /// One message: lines joined while each ends in `\`; nil at the end of input.
    func readEntry() -> String? {
        guard var line = editor.line("you> ") else { return nil }
        var lines: [String] = []
        while line.hasSuffix("\\") {
            lines.append(String(line.dropLast()))
            guard let next = editor.line("...> ") else { break }
            line = next
        }
        lines.append(line)
        return lines.joined(separator: "\n")
    }

    /// The turn as the room is now (a slash command or the editor may have changed it).
    func turn() throws(VaultError) -> ChatTurn {
        let read = try ChatTurn.read(path, in: vault)
        return try makeTurn(vault: vault, path: path, room: read, provider: provider, model: model)
    }

    /// Runs a slash command; false when the session ends.
    mutating func command(_ entry: String) throws(VaultError) -> Bool {
        let trimmed = entry.trimmingCharacters(in: .whitespacesAndNewlines)
        let name = String(trimmed.prefix { !$0.isWhitespace })
        let argument = trimmed.dropFirst(name.count).trimmingCharacters(in: .whitespacesAndNewlines)
        switch name {
        case "/exit", "/quit":
            return false
        case "/help":
            Terminal.standardError(ChatPrompt.help + "\n")
        case "/retry":
            let outcome = try turn().retry { Terminal.stream($0) }
            Terminal.stream("\n")
            warnIfTruncated(outcome)
            try reportSaved(outcome)
        case "/model":
            guard !argument.isEmpty else {
                Terminal.standardError("/model needs a name: /model NAME (now: \(try turn().model))\n")
                return true
            }
            try set("model", to: argument)
            // The room's model now; a --model given for the session no longer hides it.
            model = nil
        case "/system":
            try set("system", to: argument.isEmpty ? nil : argument)
        case "/edit":
            let result = try Termination.deferring { () throws(VaultError) -> Editing.Result in
                try Editing(vault: vault).edit(path, in: .person)
            }
            report(result, vault: vault)
        default:
            Terminal.standardError("unknown command \(name): /help lists them\n")
        }
        return true
    }

    private func set(_ key: String, to value: String?) throws(VaultError) {
        switch try RoomSettings(vault: vault).set(key, to: value, inRoom: path) {
        case .alreadySo: Terminal.standardError("'\(key)' is already so.\n")
        case .removed: Terminal.standardError("removed '\(key)'.\n")
        case .set: Terminal.standardError("\(key) set.\n")
        }
    }
}
