import ArgumentParser
import Foundation
import VaultCore
import VaultKit
import VaultUI

extension VaultCommand {
    struct UI: VaultRunnable {
        static let configuration = CommandConfiguration(
            commandName: "ui",
            abstract: "Open the vault as a full-screen terminal app: rooms, a room's transcript, the diary, search.",
            discussion: """
                `vault` with no arguments on a terminal opens it too. The rooms are listed as `vault rooms` \
                lists them (unread marked), Tab shows the diary with the month's calendar, / searches as you \
                type, Enter opens a room: its transcript with a divider wherever the day changes, and a \
                compose box (Enter sends, Alt-Enter or Ctrl-J a new line; a reply streams in place, Esc stops \
                it and what arrived is kept). Ctrl-E hands the room to your editor, Ctrl-P lists every \
                command, ? the keys, q quits. With a remote, the vault syncs in the background \
                (VAULT_WATCH_INTERVAL seconds, else 5) and what others write appears as it comes. NO_COLOR \
                turns colors off.
                """)

        @OptionGroup var location: VaultLocation
        @OptionGroup var reading: ReadingOptions
        @Argument(help: "A room to open straight away (named as for `show`).", completion: .rooms) var room: String?

        func execute() throws {
            guard let terminal = TerminalMode() else {
                throw CommandError.needsTerminal
            }
            let notes = NoteList()
            let session = try location.session(.change, notes: notes.sink)
            let (locale, zone) = try reading.resolve(for: session.vault)
            let environment = ProcessInfo.processInfo.environment
            let color = (environment["NO_COLOR"] ?? "").isEmpty && environment["TERM"] != "dumb"
            let interval = environment["VAULT_WATCH_INTERVAL"].flatMap(Double.init) ?? 5
            let options = VaultApp.Options(
                room: room, locale: locale, zone: zone, environment: environment, editor: .person, color: color,
                syncInterval: interval, workingDirectory: FileManager.default.currentDirectoryPath, notes: notes)
            let app = try VaultApp(session: session, terminal: terminal, options: options)
            let status = app.run()
            for note in notes.taken() { Terminal.print(note) }
            if status != 0 { throw ExitCode(status) }
        }
    }
}
