import ArgumentParser
import Foundation
import VaultCore

extension VaultCommand {
    struct Chat: VaultRunnable {
        static let configuration = CommandConfiguration(
            abstract: "Send a message to a room's model and append the reply to the room.",
            discussion: """
                The message comes from the argument, else from standard input when it is not a \
                terminal, else from the text typed below the prompt marker at the end of the room file.
                """)

        @OptionGroup var location: VaultLocation
        @Argument(help: "The room: a path, its slug, or the start of its title.") var room: String
        @Argument(help: "The message.") var message: String?

        func execute() throws {
            let vault = try location.openForChange()
            Trace.mark("vault opened")
            let path = try vault.resolveRoom(room, workingDirectory: FileManager.default.currentDirectoryPath)
            Trace.mark("room resolved")
            var text = message
            if text == nil && !Terminal.stdinIsTerminal {
                let data = FileHandle.standardInput.readDataToEndOfFile()
                guard let s = String(data: data, encoding: .utf8) else {
                    throw VaultError.invalidArgument("the message on standard input is not UTF-8")
                }
                if !s.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { text = s }
            }
            let providerName = (try? vault.readRoom(path))?.frontMatter?.string("provider") ?? vault.config.provider
            guard providerName == "offline" else {
                throw VaultError.invalidArgument(
                    "the provider '\(providerName)' is not available in this version; only the built-in 'offline' provider is")
            }
            let turn = ChatTurn(vault: vault, roomPath: path, provider: OfflineProvider())
            let outcome = try turn.run(message: text) { Terminal.stream($0) }
            Terminal.stream("\n")
            Trace.mark("done")
            FileHandle.standardError.write(Data("(saved to \(path), line \(outcome.reply.line))\n".utf8))
        }
    }
}
