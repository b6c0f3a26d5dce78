import ArgumentParser
import Foundation
import VaultCore
import VaultKit

extension VaultCommand {
    struct Show: PagedCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show a room or a diary entry, with dates in the vault's locale or another one.")

        @OptionGroup var location: VaultLocation
        @OptionGroup var reading: ReadingOptions
        @OptionGroup var output: OutputOptions
        @Argument(
            help: "A path, a room slug or title, a diary date (2026-11-21) or file name.", completion: .items)
        var item: String
        @Flag(help: "Print the file exactly as it is on disk.") var raw = false

        func execute() throws {
            let vault = try location.open()
            let (locale, zone) = try reading.resolve(for: vault)
            let style = try output.style()
            let resolved = try vault.resolve(item, workingDirectory: FileManager.default.currentDirectoryPath)
            if raw {
                Terminal.document(Data(try FileIO.read(vault.absolute(resolved.path))))
                return
            }
            switch resolved {
            case .room(let path):
                let reading = RoomReading(vault: vault)
                let page = try reading.read(path, cancellation: Termination.cancellation)
                page.notes.forEach(Terminal.print)
                let room = page.room
                Terminal.line(style.title("# \(room.title)"))
                var facts = [path]
                if let model = room.frontMatter?.string("model") { facts.append("model: \(model)") }
                Terminal.line(style.date(facts.joined(separator: " · ")))
                if let system = room.frontMatter?.string("system"), !system.isEmpty {
                    Terminal.line("\n" + style.role(.system, "⚙️ system"))
                    print(system.trimmingCharacters(in: .newlines))
                }
                let preamble = room.preamble.trimmingCharacters(in: .whitespacesAndNewlines)
                if !preamble.isEmpty { print("\n\(preamble)") }
                // Both versions of a message edited differently on two machines are marked.
                var versions: [Int: Int] = [:]
                for c in room.conflicts {
                    versions[c.original.line] = 1
                    versions[c.other.line] = 2
                }
                // A divider with the date wherever the day changes; each message with its time.
                for item in RoomTranscript(Array(page.messages), locale: locale, timeZone: zone).items {
                    switch item {
                    case .day(_, let text):
                        Terminal.line("\n" + style.date(RoomTranscript.divider(text)))
                    case .message(let m):
                        // A tool's output, thoughts, a summary: shown as what they are, not as the role.
                        let role = m.message.kind.map(MessageKind.label) ?? "\(m.message.role.icon) \(m.message.role.rawValue)"
                        let label = style.role(m.message.role, role)
                        if let version = versions[m.message.line] {
                            Terminal.line("\n" + style.warning(MessageConflict.mark(
                                version: version, id: m.message.id, room: VaultPath.stem(of: path), locale: locale)))
                        }
                        // A message whose author the commit that brought it does not bear out.
                        let unverified = page.unverified[m.message.id]
                        if let unverified {
                            Terminal.line(
                                (versions[m.message.line] == nil ? "\n" : "")
                                    + style.warning("⚠️ unverified author: " + Terminal.visible(unverified, singleLine: true)))
                        }
                        Terminal.line((versions[m.message.line] == nil && unverified == nil ? "\n" : "") + ([label] + m.facts.map(style.date)).joined(separator: " · "))
                        print(room.body(of: m.message) { line, problem in "⚠️ line \(problem.line): \(line)" })
                    }
                }
                if let pending = room.pendingPrompt {
                    print("\n✍️ not sent yet (send it with `vault chat \(VaultPath.stem(of: path))`)\n\(pending)")
                }
                reading.markRead(path)
            case .diaryEntry(let path):
                let (entry, notes) = try EntryReading(vault: vault).read(path, cancellation: Termination.cancellation)
                notes.forEach(Terminal.print)
                // An entry with no date anywhere (`vault check` says so) gets no empty heading.
                if let day = entry.day.map({ DateText.heading($0, locale: locale) }) ?? entry.heading, !day.isEmpty {
                    Terminal.line(style.title("# \(day)"))
                }
                var facts = [path]
                if entry.frontMatter?.string("title") != nil { facts.append(entry.title) }
                if !entry.tags.isEmpty { facts.append(entry.tags.map { "#" + $0 }.joined(separator: " ")) }
                Terminal.line(style.date(facts.joined(separator: " · ")))
                print("")
                // The person's own heading (`# 2024 goals`) is shown as written, never replaced.
                if let own = entry.heading, entry.day != nil, !entry.headingIsDate(locale: locale) {
                    print("# " + own + "\n")
                }
                print(entry.body.trimmingCharacters(in: .newlines))
            }
        }
    }
}
