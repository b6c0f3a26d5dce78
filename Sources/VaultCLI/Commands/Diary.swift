import ArgumentParser
import Foundation
import VaultCore
import VaultGit

extension VaultCommand {
    struct Diary: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "diary",
            abstract: "Diary entries.", subcommands: [List.self, MonthCalendar.self, Write.self],
            defaultSubcommand: List.self)

        struct List: PagedCommand {
            static let configuration = CommandConfiguration(
                commandName: "list", abstract: "List diary entries, newest first.")

            @OptionGroup var location: VaultLocation
            @OptionGroup var reading: ReadingOptions
            @OptionGroup var output: OutputOptions
            @Option(
                parsing: .unconditional,
                help: "Only entries on or after this day (2026-11-01, yesterday, or -7 for a week ago).")
            var since: String?
            @Option(parsing: .unconditional, help: "Only entries on or before this day.") var until: String?
            @Option(help: "Only entries with this tag.") var tag: String?
            @Flag(help: "Print JSON.") var json = false

            func execute() throws {
                let vault = try location.open()
                let (locale, _) = try reading.resolve(for: vault)
                let style = try output.style()
                let zone = vault.config.timeZone
                let from = try DateArgument.day(given: since, timeZone: zone)
                let to = try DateArgument.day(given: until, timeZone: zone)
                // An entry with no date of its own is dated by the commit that added it.
                let all = vault.diarySummariesDatedByHistory()
                let entries = all.filter { e in
                    if let from, (e.date ?? LocalDate(year: 0, month: 1, day: 1)) < from { return false }
                    if let to, let d = e.date, d > to { return false }
                    if let tag, !e.tags.contains(tag) { return false }
                    return true
                }
                if json { return try Terminal.json(entries) }
                if entries.isEmpty {
                    print("No diary entries yet.")
                    return
                }
                let columns = Terminal.columns
                for e in entries {
                    let day =
                        e.date.map {
                            DateText.string(
                                for: $0.noonUTC, style: .shortDay, locale: locale,
                                timeZone: TimeZone(identifier: "UTC")!)
                        } ?? "?"
                    let tags = e.tags.isEmpty ? "" : "  " + e.tags.map { "#" + $0 }.joined(separator: " ")
                    let read = e.problem != nil ? "⚠️ cannot be read: run `vault check`" : e.preview
                    let preview = e.conflictCopyOf.map { "[conflict copy of \($0)] " + read } ?? read
                    // The preview and tags take what the two columns leave of the terminal's width.
                    let fixed = "\(Terminal.fit(day, 18)) \(Terminal.fit(e.title, 24)) "
                    if let columns, Terminal.width(fixed) >= columns {
                        print(Terminal.clip(fixed + preview + tags, columns))
                        continue
                    }
                    let rest = Terminal.clip(preview + tags, columns.map { $0 - Terminal.width(fixed) })
                    let title = style.title(Terminal.fit(e.title, 24))
                    Terminal.line("\(style.date(Terminal.fit(day, 18))) \(title) \(rest)")
                }
            }
        }

        struct MonthCalendar: VaultRunnable {
            static let configuration = CommandConfiguration(
                commandName: "calendar",
                abstract: "Draw a month of the diary like `cal`, with the days that have entries marked.")

            @OptionGroup var location: VaultLocation
            @OptionGroup var reading: ReadingOptions
            @Argument(help: "The month: 2026-11, 11 (this year), or nothing for this month.") var month: String?

            func execute() throws {
                let vault = try location.open()
                let (locale, zone) = try reading.resolve(for: vault)
                let today = Timestamp(date: Date(), timeZone: zone).localDate
                let shown = try DiaryCalendar.month(month, today: today)
                // An entry with no date of its own is dated by the commit that added it, as in `diary list`.
                let days = DiaryCalendar.entryDays(vault.diarySummariesDatedByHistory())
                let calendar = DiaryCalendar(month: shown, entryDays: days, today: today, locale: locale)
                for line in calendar.lines() { print(line) }
                print("")
                print(calendar.summary)
            }
        }
    }
}
