import ArgumentParser
import Foundation
import Synchronization
import VaultCore
import VaultKit

#if canImport(Glibc)
import Glibc
#endif

extension VaultCommand {
    struct Chat: VaultRunnable {
        static let configuration = CommandConfiguration(
            commandName: "chat",
            abstract: "Send a message to a room's model and append the reply to the room.",
            discussion: """
                The message comes from the argument, else from standard input when it is not a \
                terminal, else from the text typed below the prompt marker at the end of the room \
                file; on a terminal with none of these, vault opens a prompt: line editing and history \
                (libedit; Up and Down recall earlier messages), and /retry, /model NAME, /system TEXT, \
                /edit, /help, /exit. Several lines make one message: end a line with \\ to go on on the \
                next, or paste them (a paste keeps its line breaks and is sent when you press Enter). \
                An error prints and the prompt returns. Ctrl-C stops a reply (what arrived is saved, \
                marked interrupted) or drops the line being typed, and the prompt returns; Ctrl-D on an \
                empty line, or /exit, ends.
                """)

        @OptionGroup var location: VaultLocation
        @Argument(help: "The room: a path, its slug, or the start of its title.", completion: .rooms) var room: String
        @Argument(help: "The message (`-`: read from standard input).") var message: String?
        @Option(help: "Use this provider for this turn (a name from vault.yml, openai, or offline).")
        var provider: String?
        @Option(help: "Use this model for this turn.") var model: String?
        @Option(
            name: .customLong("attach"), help: "A file to attach (copied into attachments/; images go to the model).")
        var attachments: [String] = []

        func execute() throws {
            Trace.mark("arguments parsed")
            let cwd = FileManager.default.currentDirectoryPath
            let files = attachments.map { Vault.absolute($0, from: cwd) }
            for file in files where !FileIO.exists(file) || FileIO.isDirectory(file) {
                throw VaultError.io(path: file, operation: "attach", reason: "no such file")
            }
            let session = try location.session(.change, prefetching: VaultPath.rooms)
            let vault = session.vault
            Trace.mark("vault opened")
            let path = try vault.resolveRoom(room, workingDirectory: FileManager.default.currentDirectoryPath)
            Trace.mark("room resolved")
            // `-`: the message is read from standard input, even from a terminal (until Ctrl-D).
            let fromStandardInput = message == "-"
            var text = fromStandardInput ? nil : message
            if text == nil && (fromStandardInput || !Terminal.stdinIsTerminal) {
                let data = FileHandle.standardInput.readDataToEndOfFile()
                guard let s = String(data: data, encoding: .utf8) else {
                    throw VaultError.input(.standardInputNotUTF8(what: "message"))
                }
                if !s.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { text = s }
            }
            // The room's one read: its settings choose the provider, and the turn starts from it.
            let read = try ChatTurn.read(path, in: vault)
            if text == nil, Terminal.stdinIsTerminal, read.room.pendingPrompt == nil {
                // The prompt makes a turn for each message: a room it cannot talk in yet (no
                // model) opens all the same, says why, and `/model NAME` fixes it there.
                do {
                    _ = try makeTurn(vault: vault, path: path, room: read, provider: provider, model: model)
                } catch {
                    Terminal.error(error.description)
                }
                var prompt = ChatPrompt(
                    session: session, path: path, provider: provider, model: model, files: files, send: send)
                prompt.run()
                return
            }
            let turn = try makeTurn(vault: vault, path: path, room: read, provider: provider, model: model)
            try send(turn, text, files)
        }

        /// When no turn can run (too few open files: `VaultCommand.checkLimits`), keeps the
        /// message (the argument, or standard input as `execute` reads it) as the room's pending
        /// prompt, without listing the vault: the room must be named by its path or slug. Says
        /// what became of the message, or nil when there was none to keep.
        func keepForLater() -> String? {
            let fromStandardInput = message == "-"
            var text = fromStandardInput ? nil : message
            if text == nil && (fromStandardInput || !Terminal.stdinIsTerminal) {
                let data = FileHandle.standardInput.readDataToEndOfFile()
                text = String(data: data, encoding: .utf8)
            }
            guard let text = text.map(ChatTurn.tidy), !text.isEmpty else { return nil }
            do {
                let vault = try location.openForChange()
                guard let path = vault.roomWithoutListing(room, from: FileManager.default.currentDirectoryPath) else {
                    return "Your message was not saved: name the room by its path or slug to have it kept"
                }
                try vault.keepAsPendingPrompt(text, inRoom: path)
                return "Your message is kept below the prompt marker of \(path): `vault chat \(VaultPath.stem(of: path))` sends it"
            } catch {
                return "Your message was not saved (\(error))"
            }
        }

        func send(_ turn: ChatTurn, _ text: String?, _ files: [String]) throws(VaultError) {
            try Chat.send(turn, text, files)
        }

        /// Runs `turn` with `text` (nil: the pending prompt) and `files`, the reply streamed to
        /// standard output (also `vault say ROOM "@assistant …"`).
        static func send(_ turn: ChatTurn, _ text: String?, _ files: [String]) throws(VaultError) {
            let outcome = try turn.run(message: text ?? (files.isEmpty ? nil : ""), attachments: files) {
                Terminal.stream($0)
            }
            Terminal.stream("\n")
            Trace.mark("done")
            warnIfTruncated(outcome)
            try reportSaved(outcome)
        }
    }

    struct Retry: VaultRunnable {
        static let configuration = CommandConfiguration(
            commandName: "retry",
            abstract: "Send a room's last unanswered message again (after a failed turn).")

        @OptionGroup var location: VaultLocation
        @Argument(help: "The room.", completion: .rooms) var room: String
        @Option(help: "Use this provider for this turn.") var provider: String?
        @Option(help: "Use this model for this turn.") var model: String?

        func execute() throws {
            let vault = try location.openForChange(prefetching: VaultPath.rooms)
            let path = try vault.resolveRoom(room, workingDirectory: FileManager.default.currentDirectoryPath)
            let read = try ChatTurn.read(path, in: vault)
            let turn = try makeTurn(vault: vault, path: path, room: read, provider: provider, model: model)
            let outcome = try turn.retry { Terminal.stream($0) }
            Terminal.stream("\n")
            warnIfTruncated(outcome)
            try reportSaved(outcome)
        }
    }
}

/// A reply the server cut short is saved, and the person is told so (with how to go on).
func warnIfTruncated(_ outcome: ChatTurn.Outcome) {
    guard let reason = outcome.reply.truncation else { return }
    Terminal.warning(
        """
        the server cut the reply short (finish_reason: \(reason)); it is saved, marked truncated=\(reason). \
        `vault retry \(VaultPath.stem(of: outcome.path))` asks the model to go on
        """)
}

/// Says where the reply was saved; if standard output failed meanwhile (a full disk: ENOSPC),
/// says that the reply is saved all the same, and fails. A reader that went away (`| head`:
/// EPIPE) is no failure: it wanted no more.
func reportSaved(_ outcome: ChatTurn.Outcome) throws(VaultError) {
    Terminal.standardError("(saved to \(outcome.path), line \(outcome.reply.line))\n")
    let code = Terminal.outputError.load(ordering: .relaxed)
    if code != 0 && code != EPIPE, let problem = Terminal.outputProblem {
        throw VaultError.io(
            path: "standard output", operation: "write the reply to",
            reason: "\(problem); the reply is saved all the same, in \(outcome.path) (line \(outcome.reply.line))")
    }
}

/// The turn for a room (`Vault.chatTurn`), showing "waiting for the server at …" on a terminal
/// while the server is silent.
func makeTurn(
    vault: Vault, path: String, room: ChatTurn.RoomVersion, provider: String?, model: String?
) throws(VaultError) -> ChatTurn {
    var onWait: (@Sendable (ServerWait) -> Void)?
    if Terminal.stderrIsTerminal { onWait = { WaitingIndicator.shared.report($0) } }
    var turn = try vault.chatTurn(
        path, room, provider: provider, model: model, onWait: onWait, cancellation: Termination.cancellation)
    // A room shared with people: the question is mine by name, the reply the model's.
    if !Workspace.members(of: room.room.frontMatter).isEmpty {
        turn.author = try vault.me(environment: vault.settings.environment).author
    }
    return turn
}
