import ArgumentParser
import Foundation
import VaultCore
import VaultKit

extension VaultCommand {
    struct Diary: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "diary",
            abstract: "Diary entries.", subcommands: [List.self, MonthCalendar.self, Write.self],
            defaultSubcommand: List.self)

        struct List: PagedCommand {
            static let configuration = CommandConfiguration(
                commandName: "list", abstract: "List diary entries, newest first.",
                discussion: """
                    On a terminal (or with COLUMNS set) the rows are aligned and fitted to its width. Into a \
                    pipe or a file each row is its fields whole, separated by tabs: \(DiaryRow.pipedHelp). \
                    --format prints each row as a template \
                    of your own (like git for-each-ref --format); its fields:

                    """ + ListingTemplate.help(DiaryRow.fields))

            @OptionGroup var location: VaultLocation
            @OptionGroup var reading: ReadingOptions
            @OptionGroup var output: OutputOptions
            @OptionGroup var dates: DateRangeOptions
            @Option(help: "Only entries with this tag.") var tag: String?
            @OptionGroup var limit: LimitOptions
            @OptionGroup var format: ListingFormatOptions

            func execute() throws {
                let template = try format.template(fields: DiaryRow.fields, piped: DiaryRow.piped)
                let session = try location.session(.readOnly)
                let vault = session.vault
                let (locale, _) = try reading.resolve(for: vault)
                let style = try output.style()
                let query = try dates.query(tag: tag, in: vault.config.timeZone)
                // Asked which entries changed since the last listing, instead of stamping every one.
                let watcher = session.watcher
                let words = ListingWords.of(locale)
                let columns = Terminal.columns
                // The day (as wide as the locale's widest, never cut), the title, then the preview
                // and the tags (whole) in what is left, a space between each; made for the first row shown.
                lazy var layout = ListingLayout(
                    columns: columns, fixed: 2, date: ListingLayout.diaryDateWidth(locale: locale))
                func show(_ row: DiaryRow) {
                    let day = Terminal.fit(row.day, layout.date)
                    let title = Terminal.fit(row.entry.title, layout.title)
                    let visible = { (text: String) in Terminal.visible(text, singleLine: true) }
                    let rest = ListingLayout.previewAndTags(
                        visible(row.preview), tags: row.entry.tags.map(visible), layout.rest)
                    if let columns, 2 + layout.date >= columns {
                        print(Terminal.clip("\(day) \(title) \(rest)", columns))
                        return
                    }
                    Terminal.line("\(style.date(day)) \(style.title(title)) \(rest)")
                }
                var listed: [DiarySummary]?
                if format.format == nil, !format.json, query.isEmpty {
                    // Every entry, in the listing's order (unless an entry with no date of its own waits
                    // to be dated by the history): each made into a row only as it is printed.
                    let listing = vault.diaryListing(watcher: watcher)
                    // What this listing read goes into the cache once its rows are out.
                    defer { listing.saveCache() }
                    if listing.hasEntryDatedByFileTime {
                        // Dated by the history: from this listing, not a second one.
                        listed = vault.datedByHistory(listing.map { $0.summary() })
                    } else {
                        let count = min(listing.count, try limit.count(default: listing.count))
                        Trace.mark("diary list: chosen")
                        if let template {
                            // Into a pipe: an entry that did not change is printed from its kept line.
                            return DiaryRow.writePiped(listing, count: count, template: template, locale: locale, words: words)
                        }
                        if count == 0 {
                            print(words.noEntries)
                            return
                        }
                        // The first screen goes to the pager (when there is one) as soon as it is printed.
                        for row in listing.prefix(count) {
                            show(DiaryRow(row.summary(), locale: locale, words: words))
                            Pager.pageIfScreenIsFull()
                        }
                        Trace.mark("listing: rows written")
                        return Terminal.keepUntilExit(listing)
                    }
                }
                let entries = try limit.apply(
                    try listed ?? query.entries(in: vault, watcher: watcher, cancellation: Termination.cancellation))
                if format.json { return try Terminal.json(Array(entries)) }
                Trace.mark("diary list: chosen")
                let rows = entries.map { DiaryRow($0, locale: locale, words: words) }
                defer { Terminal.keepUntilExit(rows) }
                Trace.mark("diary list: rows made")
                if let template { return template.write(rows) }
                if rows.isEmpty {
                    print(words.noEntries)
                    return
                }
                rows.forEach(show)
            }
        }

        struct MonthCalendar: PagedCommand {
            static let configuration = CommandConfiguration(
                commandName: "calendar",
                abstract: "Draw a month of the diary like `cal`, with the days that have entries marked.",
                discussion: """
                    Under the grid: the month's entries and days with entries, and under this month the \
                    streak (days in a row with an entry, up to today or yesterday), in the vault's locale.
                    """)

            @OptionGroup var location: VaultLocation
            @OptionGroup var reading: ReadingOptions
            @OptionGroup var output: OutputOptions
            @Flag(help: "Print JSON: the month, each day with its number of entries, the summary.") var json = false
            @Argument(help: "The month: 2026-11, 11 (this year), or nothing for this month.") var month: String?

            func execute() throws {
                let vault = try location.open()
                let (locale, zone) = try reading.resolve(for: vault)
                let style = try output.style()
                let today = Timestamp(date: Date(), timeZone: zone).localDate
                let shown = try DiaryCalendar.month(month, today: today)
                // An entry with no date of its own is dated by the commit that added it, as in `diary list`.
                let days = DiaryCalendar.entryDays(vault.diarySummariesDatedByHistory())
                let calendar = DiaryCalendar(month: shown, entryDays: days, today: today, locale: locale)
                if json { return try Terminal.json(calendar) }
                // Days with entries green, today in reverse video.
                let lines = calendar.lines { day, text in
                    day.isToday ? style.painted(text, "7") : day.entries > 0 ? style.painted(text, "32") : text
                }
                // Month and weekday names are ICU's, the rest digits: nothing to make visible.
                for line in lines { Terminal.line(line) }
                print("")
                print(calendar.summary)
            }
        }
    }
}

/// A row of `vault diary list`: the entry, with what the listing shows of it.
struct DiaryRow {
    let entry: DiarySummary
    let locale: String
    /// The entry's day in the locale (`2026년 11월 21일`), `?` when it has none; made when asked for.
    var day: String {
        entry.date.map {
            DateText.string(for: $0.noonUTC, style: .shortDay, locale: locale, timeZone: TimeZone(identifier: "UTC")!)
        } ?? "?"
    }
    /// `#tag #other`.
    let tags: String
    /// The entry's first line, marked when it is a conflict copy or cannot be read.
    let preview: String

    init(_ entry: DiarySummary, locale: String, words: ListingWords? = nil) {
        self.entry = entry
        self.locale = locale
        tags = entry.tags.map { "#" + $0 }.joined(separator: " ")
        let words = words ?? ListingWords.of(locale)
        let read = entry.problem != nil ? "⚠️ " + words.unreadable : entry.preview
        preview = entry.conflictCopyOf.map { words.conflictCopy($0) + " " + read } ?? read
    }

    /// The row into a pipe: the fields that tell entries apart and what a person reads, tab-separated.
    /// `piped`, with its tabs shown as `<TAB>`: for the help.
    static var pipedHelp: String { piped.replacingOccurrences(of: "%09", with: "<TAB>") }

    static let piped = "%(path)%09%(date)%09%(title)%09%(tags)%09%(preview)"

    /// Writes the first `count` entries of `listing` as `template` (`piped`) says, a megabyte at a time,
    /// as `RoomRow.writePiped` does: an entry that did not change, could be read, is no conflict
    /// copy and holds no control character is written from its kept line's bytes.
    static func writePiped(
        _ listing: DiaryListing, count: Int, template: ListingTemplate<DiaryRow>, locale: String, words: ListingWords
    ) {
        typealias F = DiaryListing.Field
        template.write(listing.prefix(count)) { listed, out in
            guard let row = listed.kept, row.field(F.problem.rawValue) == nil,
                KeptRow.appendPlain(row.path, to: &out), out.appending(9),
                KeptRow.appendPlain(row.field(F.date.rawValue), to: &out), out.appending(9),
                KeptRow.appendPlain(row.field(F.title.rawValue), to: &out), out.appending(9)
            else { return false }
            // `#tag #other`: kept separated by U+001F.
            for (k, tag) in (row.field(F.tags.rawValue)?.split(separator: 0x1F) ?? []).enumerated() {
                if k > 0 { out.append(32) }
                out.append(UInt8(ascii: "#"))
                guard KeptRow.appendPlain(tag, to: &out) else { return false }
            }
            out.append(9)
            return KeptRow.appendPlain(row.field(F.preview.rawValue), to: &out)
        } row: { listed in
            DiaryRow(listed.summary(), locale: locale, words: words)
        }
        Terminal.keepUntilExit(listing)
    }

    static let fields: [ListingField<DiaryRow>] = [
        ListingField(name: "path", meaning: "the entry's file (diary/2026/2026-11-21-첫눈.md)") { $0.entry.path },
        ListingField(name: "id", meaning: "its id (d-…), when it has one") { $0.entry.id ?? "" },
        ListingField(name: "date", meaning: "its day, 2026-11-21") { $0.entry.date?.description ?? "" },
        ListingField(name: "day", meaning: "its day in the locale (2026년 11월 21일)") { $0.day },
        ListingField(name: "created", meaning: "its created time, as written") { $0.entry.created ?? "" },
        ListingField(name: "title", meaning: "its title") { $0.entry.title },
        ListingField(name: "tags", meaning: "its tags, #tag #other") { $0.tags },
        ListingField(name: "preview", meaning: "its first line, with the terminal's marks") { $0.preview },
    ]
}
