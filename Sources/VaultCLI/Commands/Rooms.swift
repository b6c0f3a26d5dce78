import ArgumentParser
import Foundation
import VaultCore

extension VaultCommand {
    struct Rooms: PagedCommand {
        static let configuration = CommandConfiguration(
            commandName: "rooms",
            abstract: "List the chat rooms, most recent activity first, with the last message.")

        @OptionGroup var location: VaultLocation
        @OptionGroup var reading: ReadingOptions
        @OptionGroup var output: OutputOptions
        @Flag(help: "Print JSON.") var json = false

        func execute() throws {
            let vault = try location.open()
            let (locale, zone) = try reading.resolve(for: vault)
            let style = try output.style()
            let rooms = vault.roomSummaries()
            if json { return try Terminal.json(rooms) }
            if rooms.isEmpty {
                print("No rooms yet. Start one with `vault room new TITLE`.")
                return
            }
            let now = Date()
            let columns = Terminal.columns
            for room in rooms {
                // How long ago, in the locale: `3분 전`, `yesterday`, a date once a week old.
                let when = room.lastActivity.flatMap { Timestamp(frontMatter: $0) }
                    .map { RelativeTime.string(for: $0.date, now: now, locale: locale, timeZone: zone) } ?? ""
                let icon =
                    room.problem != nil ? "⚠️" : room.hasPendingPrompt ? "✍️" : room.lastRole?.icon ?? "  "
                var preview =
                    room.problem.map {
                        $0.contains("conflict markers")
                            ? "git left conflict markers: run `vault resolve`" : "cannot be read: run `vault check`"
                    } ?? room.preview
                if room.problem == nil, !room.hasPendingPrompt, room.lastIsInterrupted {
                    preview = "[interrupted] " + preview
                }
                // A Syncthing or Dropbox copy has its original's title: marked, never an unmarked twin.
                if let original = room.conflictCopyOf { preview = "[conflict copy of \(original)] " + preview }
                // Messages that came in by sync and were not shown yet: a dot in the first column, a count.
                let mark = room.unread > 0 ? "●" : " "
                let unread = room.unread > 0 ? "(\(room.unread) new) " : ""
                // The preview takes what the fixed columns leave of the terminal's width.
                let fixed = "\(mark) \(Terminal.fit(when, 14)) \(Terminal.fit(room.title, 24)) \(icon) "
                let left = columns.map { max(1, $0 - Terminal.width(fixed)) }
                let rest = Terminal.clip(unread + preview, left)
                if let columns, Terminal.width(fixed) >= columns {
                    print(Terminal.clip(fixed + unread + preview, columns))
                } else {
                    let when = style.date(Terminal.fit(when, 14))
                    Terminal.line("\(mark) \(when) \(style.title(Terminal.fit(room.title, 24))) \(icon) \(rest)")
                }
            }
        }
    }

    struct RoomCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "room", abstract: "Make and change rooms.", subcommands: [New.self, Set.self])

        struct Set: VaultRunnable {
            static let configuration = CommandConfiguration(
                commandName: "set",
                abstract: "Set a room's front-matter setting (model, provider, system, temperature, …).",
                discussion: """
                    Only that key's lines change; comments, quoting and other keys stay as they are. --unset \
                    removes the key. Every setting is used or sent to the server; another key is refused.

                    """ + RoomSetting.all.map { "  \($0.key): \($0.meaning)" }.joined(separator: "\n"))

            @OptionGroup var location: VaultLocation
            @Argument(help: "The room.", completion: .rooms) var room: String
            @Argument(help: "The key, e.g. model or temperature.", completion: .list(RoomSetting.all.map(\.key)))
            var key: String
            // Every argument not an option of this command: a negative number (`-0.5`) is a value.
            @Argument(parsing: .allUnrecognized, help: ArgumentHelp("The value.", valueName: "value"))
            var values: [String] = []
            @Flag(help: "Remove the key.") var unset = false

            func execute() throws {
                guard values.count <= 1 else { throw UsageError.severalValues(key: key, values: values) }
                let value = values.first
                guard unset || value != nil else { throw UsageError.missingValue(key: key) }
                let vault = try location.openForChange()
                let path = try vault.resolveRoom(room, workingDirectory: FileManager.default.currentDirectoryPath)
                let result = try RoomSettings(vault: vault).set(key, to: unset ? nil : value, inRoom: path)
                switch result {
                case .alreadySo: print("\(path): '\(key)' is already so.")
                case .removed: print("\(path): removed '\(key)'.")
                case .set: print("\(path): \(key) set.")
                }
            }
        }

        struct New: VaultRunnable {
            static let configuration = CommandConfiguration(commandName: "new", abstract: "Start a new chat room.")

            @OptionGroup var location: VaultLocation
            @Argument(help: "The room's title.") var title: String
            @Option(help: "The model to use in this room.") var model: String?
            @Option(help: "The room's system prompt.") var system: String?

            func execute() throws {
                let title = self.title.trimmingCharacters(in: .whitespacesAndNewlines)
                let vault = try location.openForChange()
                let path = try RoomCreation(vault: vault).create(title: title, model: model, system: system)
                print("Made \(path). Talk in it with `vault chat \(VaultPath.stem(of: path)) \"…\"`.")
            }
        }
    }
}
