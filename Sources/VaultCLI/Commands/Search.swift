import ArgumentParser
import Foundation
import Synchronization
import VaultCore
import VaultKit

extension VaultCommand {
    struct Search: PagedCommand {
        static let configuration = CommandConfiguration(
            commandName: "search",
            abstract: "Find text in rooms and diary entries, with the room, the speaker and the day of each hit.",
            discussion: """
                Literal text by default, ignoring case unless the pattern has an upper-case letter. Text is \
                compared in Unicode NFC, so a phrase typed on Linux finds it saved on macOS. Each hit starts \
                `path:line:column:`, as vim's quickfix and VS Code read it. Exit status: 0 hits found, 1 none, \
                2 an invalid pattern or date.
                """)

        @OptionGroup var location: VaultLocation
        @OptionGroup var reading: ReadingOptions
        @Argument(help: "The text (or with --regex, the regular expression) to find.") var pattern: String
        @Option(help: "Only this room (a path, slug or title).", completion: .rooms) var room: String?
        @Flag(help: "Only diary entries.") var diary = false
        @Flag(help: "Only rooms.") var rooms = false
        @Option(help: "Only messages of this role: user, assistant or system (a tool's output, thoughts or a summary, kind= in its header, is none of them).")
        var role: String?
        @Option(help: "Only messages written by this author (a person's name in a shared room; any case).")
        var author: String?
        @OptionGroup var dates: DateRangeOptions
        @Option(help: "Only items tagged so.") var tag: String?
        @Flag(name: [.customShort("i"), .customLong("ignore-case")], help: "Ignore case.") var ignoreCase = false
        @Flag(name: [.customShort("s"), .customLong("case-sensitive")], help: "Match case.") var caseSensitive = false
        @Flag(help: "The pattern is a regular expression (ICU's syntax).") var regex = false
        @Flag(name: [.customShort("l"), .customLong("files-with-matches")], help: "Print only the paths.")
        var filesWithMatches = false
        @Flag(
            name: [.customShort("c"), .customLong("count")],
            help: "Print only each file's path and its number of matching lines (path:N), as rg -c does.")
        var count = false
        @Option(name: [.customShort("C"), .customLong("context")], help: "Lines of context around each hit.")
        var context = 0
        @Flag(help: "One JSON object per hit (JSON Lines).") var json = false
        @OptionGroup var output: OutputOptions
        @Flag(help: "Build or bring up to date the search index (a cache outside the vault), and use it.")
        var index = false
        @Flag(name: .customLong("no-index"), help: "Scan every file, even if there is an index.") var noIndex = false
        @Flag(
            name: .customLong("no-watch"),
            help: "With the index, start no background watcher (also VAULT_NO_WATCH=1): every file's stamp is checked.")
        var noWatch = false

        func execute() throws {
            let vault = try location.open()
            Trace.mark("search: vault opened")
            let (locale, zone) = try reading.resolve(for: vault)
            var query = SearchQuery(pattern: pattern)
            query.isRegex = regex
            query.caseMode = caseSensitive ? .sensitive : ignoreCase ? .insensitive : .smart
            query.tag = tag
            query.firstHitOnly = filesWithMatches && !json && !count
            do {
                query.scope = try scope(vault)
                if let role {
                    guard let r = Role(rawValue: role) else {
                        throw UsageError.unknownRole(role)
                    }
                    query.role = r
                }
                query.author = author
                query.since = try day(dates.since, "--since", zone)
                query.until = try day(dates.until, "--until", zone)
                try query.validate()
            } catch {
                throw CommandError.invalidSearch(error)
            }
            let colored: Bool
            do {
                colored = try output.style().colored
            } catch {
                throw CommandError.invalidSearch(error)
            }
            // Items are rendered as the scan finds them, on every core, and written in path order.
            let style = SearchOutput(colored: colored, locale: locale, zone: zone)
            let form: SearchSink.Form = json ? .json : count ? .counts : filesWithMatches ? .paths : .grouped
            let sink = SearchSink(form: form, style: style)
            var searching = Searching(index: noIndex ? .never : index ? .build : .whenBuilt)
            if !noWatch { searching.watcherCommand = VaultCommand.settings.watcherCommand }
            let progress = ProgressLine()
            searching.onProgress = progress.handler
            // The progress line goes before the first hit is written.
            sink.beforeWriting = { progress.finish() }
            let outcome = try {
                defer { progress.finish() }
                return try searching.run(in: vault, query, cancellation: Termination.cancellation) { search in
                    search.context = max(0, context)
                    search.printer = sink.printer
                }
            }()
            sink.flush()
            outcome.notes.forEach(Terminal.print)
            let results = outcome.results
            Trace.mark("search: printed")
            if results.itemCount == 0 { throw CommandError.noMatch }
        }

        func scope(_ vault: Vault) throws -> SearchQuery.Scope {
            let chosen = [room != nil, diary, rooms].filter { $0 }.count
            if chosen > 1 { throw UsageError.severalSearchScopes }
            if let room {
                return .item(try vault.resolveRoom(room, workingDirectory: FileManager.default.currentDirectoryPath))
            }
            return diary ? .diary : rooms ? .rooms : .everything
        }

        func day(_ text: String?, _ option: String, _ zone: TimeZone) throws(UsageError) -> LocalDate? {
            guard let text else { return nil }
            guard let d = DateArgument.day(text, timeZone: zone) else {
                throw UsageError.notADay(option: option, text: text)
            }
            return d
        }
    }
}
