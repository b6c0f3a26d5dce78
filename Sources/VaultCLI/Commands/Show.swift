import ArgumentParser
import Foundation
import VaultCore

extension VaultCommand {
    struct Show: VaultRunnable {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show a room or a diary entry, with dates in the vault's locale or another one.")

        @OptionGroup var location: VaultLocation
        @OptionGroup var reading: ReadingOptions
        @Argument(help: "A path, a room slug or title, a diary date (2026-11-21) or file name.") var item: String
        @Flag(help: "Print the file exactly as it is on disk.") var raw = false

        func execute() throws {
            let vault = try location.open()
            let (locale, zone) = try reading.resolve(for: vault)
            let resolved = try vault.resolve(item, workingDirectory: FileManager.default.currentDirectoryPath)
            if raw {
                Terminal.document(Data(try FileIO.read(vault.absolute(resolved.path))))
                return
            }
            switch resolved {
            case .room(let path):
                let room = try ShowMarked.read(path, vault: vault) { bytes throws(VaultError) in
                    try RoomFile(parsing: bytes, path: path)
                }
                print("# \(room.title)")
                var facts = [path]
                if let model = room.frontMatter?.string("model") { facts.append("model: \(model)") }
                print(facts.joined(separator: " · "))
                if let system = room.frontMatter?.string("system"), !system.isEmpty {
                    print("\n⚙️ system\n\(system.trimmingCharacters(in: .newlines))")
                }
                let preamble = room.preamble.trimmingCharacters(in: .whitespacesAndNewlines)
                if !preamble.isEmpty { print("\n\(preamble)") }
                for m in room.messages {
                    var line =
                        "\n\(m.role.icon) \(m.role.rawValue) · "
                        + "\(DateText.header(m.timestamp, locale: locale, timeZone: zone))"
                    if m.role == .assistant, let model = m.header.attribute("model") {
                        line += m.header.attribute("provider") == "offline" ? " · offline, no model" : " · \(model)"
                    }
                    if let status = m.status { line += " · \(status)" }
                    print(line)
                    print(m.body)
                }
                if let pending = room.pendingPrompt {
                    print("\n✍️ not sent yet (send it with `vault chat \(VaultPath.stem(of: path))`)\n\(pending)")
                }
                UnreadMarks.clear(path, root: vault.root)
            case .diaryEntry(let path):
                let entry = try ShowMarked.read(path, vault: vault) { bytes throws(VaultError) in
                    try DiaryFile(parsing: bytes, path: path)
                }
                let day = entry.day.map { DateText.heading($0, locale: locale) } ?? entry.heading ?? ""
                print("# \(day)")
                var facts = [path]
                if entry.frontMatter?.string("title") != nil { facts.append(entry.title) }
                if !entry.tags.isEmpty { facts.append(entry.tags.map { "#" + $0 }.joined(separator: " ")) }
                print(facts.joined(separator: " · "))
                print("")
                print(entry.body.trimmingCharacters(in: .newlines))
            }
        }
    }
}

/// A file git left conflict markers in is shown as this machine's side, with a warning, never
/// with the markers as text.
enum ShowMarked {
    static func read<T>(_ path: String, vault: Vault, parse: ([UInt8]) throws(VaultError) -> T) throws(VaultError) -> T
    {
        let bytes = try FileIO.read(vault.absolute(path))
        guard let marker = ConflictMarkers.problem(in: bytes, path: path), let sides = ConflictMarkers.split(bytes)
        else {
            return try parse(bytes)
        }
        Terminal.warning(
            "\(path):\(marker.line): git left conflict markers in this file; showing this machine's side only."
                + " `vault resolve` merges both sides, losing nothing."
        )
        return try parse(sides.ours)
    }
}
