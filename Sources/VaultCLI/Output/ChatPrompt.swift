import Foundation
import VaultCore
import VaultKit

/// `vault chat ROOM` on a terminal with no message: a prompt (`LineEditor`: line editing and
/// history) where each message typed is a turn, and slash commands change the room.
///
/// A line ending in `\` goes on on the next line (the message keeps the line break), and a
/// paste of several lines is one message (bracketed paste: its lines arrive as such lines;
/// Enter sends). An empty line asks again. Ctrl-D (on an empty line), `/exit` or the end of
/// input end the session on a new line. A `VaultError` from a turn or a command is printed
/// (`vault: error: …`) and the prompt returns.
///
/// Ctrl-C works as in a REPL: while a line is typed it drops the line and asks again (the
/// first time with a hint how to leave); during a reply it stops the reply, which is saved
/// with what arrived, marked interrupted, and committed, and the prompt returns
/// (`Termination.takeBackInterrupt`). SIGTERM and SIGHUP end the session, once what is in
/// progress is committed, with status 143 and 129.
struct ChatPrompt {
    static let help = """
        Type a message and press Enter. To write several lines, end a line with \\ to go on on
        the next, or paste them: a paste is one message, sent when you press Enter.
        Keys: Up and Down recall earlier messages; Ctrl-C drops the line typed, or stops a reply
        (what arrived is saved); Ctrl-D on an empty line ends.
          /retry         send the last unanswered message again
          /model NAME    set the room's model (room set model NAME)
          /system TEXT   set the room's system prompt (no TEXT: remove it)
          /edit          open the room in the editor
          /help          this list
          /exit          end (as Ctrl-D does)
        """

    /// Said the first time Ctrl-C drops a line: Ctrl-C does not end the session.
    static let leaveHint = "(Ctrl-D or /exit to leave)"

    /// The session the prompt's turns and its background syncs come from.
    let session: VaultSession
    var vault: Vault { session.vault }
    let path: String
    var provider: String?
    var model: String?
    var files: [String]
    let send: (ChatTurn, String?, [String]) throws(VaultError) -> Void
    let editor = LineEditor()
    /// The background syncs of a shared room (`LiveFeed`), while the prompt is open.
    var feed: LiveFeed?

    /// Runs the prompt until Ctrl-D or `/exit` (or SIGTERM, SIGHUP: the process ends).
    ///
    /// The whole session holds signals off, not only its reads: a second Ctrl-C pressed while
    /// the first one's `^C` is printed (between two reads) is recorded too, and the next read
    /// returns at once, instead of ending the process as a signal outside a change does.
    mutating func run() {
        feed = startFeed()
        defer { feed?.stop() }
        Termination.deferring { converse() }
    }

    private mutating func converse() {
        var hinted = false
        while true {
            let entry: String
            switch readEntry() {
            case .end:
                Terminal.write("\n", to: 1)
                return
            case .interrupted:
                guard Termination.takeBackInterrupt() else {
                    // SIGTERM or SIGHUP: nothing is in progress; the shell's prompt on a line of its own.
                    Terminal.write("\n", to: 1)
                    Termination.exitIfRequested()
                    return
                }
                Terminal.write("^C\n", to: 1)
                if !hinted { Terminal.standardError(ChatPrompt.leaveHint + "\n") }
                hinted = true
                continue
            case .line(let line):
                entry = line
            }
            if entry.trimmingCharacters(in: .whitespaces).isEmpty { continue }
            editor.remember(entry)
            do {
                if entry.hasPrefix("/") {
                    guard try command(entry) else { return }
                } else {
                    try sendOrPost(entry)
                    files = []
                }
            } catch {
                if !ChatPrompt.reportInterruption(error) { Terminal.error(error.description) }
            }
            // Ctrl-C stopped what was going on: the session goes on. SIGTERM, SIGHUP end it.
            _ = Termination.takeBackInterrupt()
            Termination.exitIfRequested()
        }
    }

    /// Says what a Ctrl-C during a reply left, in one short line instead of an error; false
    /// when `error` is not that.
    static func reportInterruption(_ error: VaultError) -> Bool {
        guard case .provider(let failure, let kept) = error, failure.kind == .interrupted,
            Termination.signal == SIGINT
        else { return false }
        Terminal.stream("\n")
        Terminal.standardError(
            kept
                ? "(interrupted: what arrived is saved, marked interrupted; /retry asks again)\n"
                : "(interrupted before the reply began: your message is saved; /retry sends it again)\n")
        return true
    }

    /// One message: lines joined while each ends in `\`; read with signals held off, so that
    /// Ctrl-C drops the message being typed (`.interrupted`) instead of ending the process.
    func readEntry() -> LineEditor.Reading {
        Termination.deferring { () -> LineEditor.Reading in
            let first = editor.line("you> ")
            guard case .line(var line) = first else { return first }
            var lines: [String] = []
            while line.hasSuffix("\\") {
                lines.append(String(line.dropLast()))
                let next = editor.line("...> ")
                if next == .interrupted { return .interrupted }
                guard case .line(let following) = next else { break }
                line = following
            }
            lines.append(line)
            return .line(lines.joined(separator: "\n"))
        }
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
