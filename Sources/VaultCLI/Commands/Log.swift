import ArgumentParser
import Foundation
import VaultCore
import VaultKit

extension VaultCommand {
    struct Log: PagedCommand {
        static let configuration = CommandConfiguration(
            commandName: "log",
            abstract: "Show the history of the vault, or of one room or diary entry.",
            discussion: """
                Each commit: its id, its time in the vault's locale and zone, its author and what it did, \
                then the files it changed; the last 50 unless -n says otherwise. --format prints each commit as a template of your own (like \
                git for-each-ref --format); its fields:

                """ + ListingTemplate.help(LogRow.fields))

        @OptionGroup var location: VaultLocation
        @OptionGroup var reading: ReadingOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "A room or diary entry (also a deleted one).", completion: .items) var item: String?
        @OptionGroup var dates: DateRangeOptions
        @OptionGroup var limit: LimitOptions
        @OptionGroup var format: ListingFormatOptions

        func execute() throws {
            let template = try format.template(fields: LogRow.fields, piped: nil)
            let count = try limit.count(default: 50)
            let (vault, history) = try location.openHistory()
            let (locale, zone) = try reading.resolve(for: vault)
            let style = try output.style()
            let (since, until) = try dates.days(in: vault.config.timeZone)
            let path = try item.map { name throws(VaultError) in
                try resolveInHistory(name, vault: vault, history: history)
            }
            let entries = try history.log(
                LogFilter(path: path, since: since, until: until, zone: vault.config.timeZone, limit: count))
            if format.json { return try Terminal.json(entries) }
            let rows = entries.map { e in
                LogRow(
                    entry: e,
                    when: Timestamp(rfc3339: e.time).map { DateText.header($0, locale: locale, timeZone: zone) } ?? e.time)
            }
            if let template {
                for row in rows { print(template.line(for: row)) }
                return
            }
            if entries.isEmpty {
                print(path.map { "No commits change \($0)." } ?? "No commits yet.")
                return
            }
            let width = rows.map { Terminal.width($0.when) }.max() ?? 0
            let authorWidth = min(20, rows.map { Terminal.width($0.entry.author) }.max() ?? 0)
            let columns = Terminal.columns
            for row in rows {
                let e = row.entry
                let fixed = "\(e.shortID)  \(Terminal.fit(row.when, width))  \(Terminal.fit(e.author, authorWidth))  "
                if let columns, Terminal.width(fixed) >= columns {
                    print(Terminal.clip(fixed + e.summary, columns))
                } else {
                    let summary = Terminal.clip(e.summary, columns.map { $0 - Terminal.width(fixed) })
                    let when = style.date(Terminal.fit(row.when, width))
                    Terminal.line(
                        "\(style.commit(e.shortID))  \(when)  \(Terminal.fit(e.author, authorWidth))  \(summary)")
                }
                // The files it changed, under the id, as `git log --name-only` lists them.
                for file in e.files { print(Terminal.clip("         " + file, columns)) }
            }
        }
    }
}

/// A commit in `vault log`, with its time as shown.
struct LogRow {
    let entry: HistoryEntry
    /// The time in the locale and zone shown (`2026년 11월 21일 토요일 오전 9:31`).
    let when: String

    static let fields: [ListingField<LogRow>] = [
        ListingField(name: "id", meaning: "the commit's id") { $0.entry.id },
        ListingField(name: "short_id", meaning: "its first seven characters") { $0.entry.shortID },
        ListingField(name: "time", meaning: "when it was made, ISO 8601 with the offset it was written with") {
            $0.entry.time
        },
        ListingField(name: "when", meaning: "when it was made, in the locale and zone") { $0.when },
        ListingField(name: "author", meaning: "who made it") { $0.entry.author },
        ListingField(name: "summary", meaning: "what it did (room: new 부산 여행)") { $0.entry.summary },
        ListingField(name: "files", meaning: "the files it changed, separated by spaces") {
            $0.entry.files.joined(separator: " ")
        },
    ]
}
