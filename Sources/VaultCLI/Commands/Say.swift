import ArgumentParser
import Foundation
import VaultCore

extension VaultCommand {
    struct Say: VaultRunnable {
        static let configuration = CommandConfiguration(
            commandName: "say",
            abstract: "Append your message to a room without asking a model (a room you share with people).",
            discussion: """
                The message is written with you as its author (author= in its header): `me:` in \
                ~/.config/vault/config.yml, else `author:` in vault.yml (in a vault without people:), \
                else git's user.name and user.email. It comes from the argument, or from standard input \
                with `-`. --reply-to ID answers another message of the room: yours starts with a quote \
                of it. One commit: `say: TITLE (NAME)`.
                """)

        @OptionGroup var location: VaultLocation
        @Argument(help: "The room: a path, its slug, or the start of its title.", completion: .rooms) var room: String
        @Argument(help: "The message (`-`: read from standard input).") var message: String
        @Option(
            name: .customLong("reply-to"), help: ArgumentHelp("The id of the message this one answers.", valueName: "ID")
        )
        var replyTo: String?
        @Option(name: .customLong("attach"), help: "A file to attach (copied into attachments/).")
        var attachments: [String] = []

        func execute() throws {
            let cwd = FileManager.default.currentDirectoryPath
            let files = attachments.map { Vault.absolute($0, from: cwd) }
            for file in files where !FileIO.exists(file) || FileIO.isDirectory(file) {
                throw VaultError.io(path: file, operation: "attach", reason: "no such file")
            }
            var text = message
            if message == "-" {
                let data = FileHandle.standardInput.readDataToEndOfFile()
                guard let s = String(data: data, encoding: .utf8) else {
                    throw VaultError.input(.standardInputNotUTF8(what: "message"))
                }
                text = s
            }
            let vault = try location.openForChange(prefetching: VaultPath.rooms)
            let path = try vault.resolveRoom(room, workingDirectory: cwd)
            if ChatTurn.tidy(text).hasPrefix("@"), let turn = try turnAskedFor(text, vault: vault, path: path) {
                guard replyTo == nil else { throw VaultError.input(.replyAsksModel) }
                return try Chat.send(turn, text, files)
            }
            let posted = try Posting(vault: vault).post(
                text, to: path, replyingTo: replyTo, attachments: files,
                environment: ProcessInfo.processInfo.environment)
            let who = posted.message.author.map { Terminal.visible($0.name, singleLine: true) } ?? "?"
            Terminal.standardError("(saved to \(posted.path), line \(posted.message.line), as \(who), \(posted.message.id))\n")
        }

        /// The chat turn `text` asks for when it starts with `@assistant` or `@` and the room's
        /// model: the question written as mine, the reply as the model's. Nil: a message for
        /// people (`@someone` else, or `@model` in a room that cannot ask a model).
        private func turnAskedFor(_ text: String, vault: Vault, path: String) throws(VaultError) -> ChatTurn? {
            let read = try ChatTurn.read(path, in: vault)
            var turn: ChatTurn
            do {
                turn = try makeTurn(vault: vault, path: path, room: read, provider: nil, model: nil)
            } catch {
                // `@assistant` in a room no model can answer says why; `@name` is for people.
                if Posting.asksModel(text, model: nil) { throw error }
                return nil
            }
            guard Posting.asksModel(text, model: turn.model) else { return nil }
            turn.author = try vault.me(environment: ProcessInfo.processInfo.environment).author
            return turn
        }
    }
}
