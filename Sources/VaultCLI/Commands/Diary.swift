import ArgumentParser
import Foundation
import VaultCore

extension VaultCommand {
    struct Diary: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Diary entries.", subcommands: [List.self], defaultSubcommand: List.self)

        struct List: VaultRunnable {
            static let configuration = CommandConfiguration(abstract: "List diary entries, newest first.")

            @OptionGroup var location: VaultLocation
            @OptionGroup var reading: ReadingOptions
            @Flag(help: "Print JSON.") var json = false

            func execute() throws {
                let vault = try location.open()
                let (locale, _) = try reading.resolve(for: vault)
                let entries = vault.diarySummaries()
                if json { return try Terminal.json(entries) }
                if entries.isEmpty {
                    print("No diary entries yet.")
                    return
                }
                for e in entries {
                    let day = e.date.map { DateText.string(for: $0.noonUTC, style: .shortDay, locale: locale, timeZone: TimeZone(identifier: "UTC")!) } ?? "?"
                    let tags = e.tags.isEmpty ? "" : "  " + e.tags.map { "#" + $0 }.joined(separator: " ")
                    let preview = e.problem != nil ? "⚠️ cannot be read: run `vault check`" : e.preview
                    print("\(Terminal.fit(day, 18)) \(Terminal.fit(e.title, 24)) \(preview)\(tags)")
                }
            }
        }
    }
}
