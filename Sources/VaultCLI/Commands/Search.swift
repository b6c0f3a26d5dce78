import ArgumentParser
import Foundation
import VaultCore
import VaultSearch

extension VaultCommand {
    struct Search: VaultRunnable {
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
        @Option(help: "Only this room (a path, slug or title).") var room: String?
        @Flag(help: "Only diary entries.") var diary = false
        @Flag(help: "Only rooms.") var rooms = false
        @Option(help: "Only messages of this role: user, assistant or system.") var role: String?
        @Option(help: "Only hits on or after this day (2026-11-21, yesterday, -7).") var since: String?
        @Option(help: "Only hits on or before this day.") var until: String?
        @Option(help: "Only items tagged so.") var tag: String?
        @Flag(name: [.customShort("i"), .customLong("ignore-case")], help: "Ignore case.") var ignoreCase = false
        @Flag(name: [.customShort("s"), .customLong("case-sensitive")], help: "Match case.") var caseSensitive = false
        @Flag(help: "The pattern is a regular expression (ICU's syntax).") var regex = false
        @Flag(name: [.customShort("l"), .customLong("files-with-matches")], help: "Print only the paths.")
        var filesWithMatches = false
        @Option(name: [.customShort("C"), .customLong("context")], help: "Lines of context around each hit.")
        var context = 0
        @Flag(help: "One JSON object per hit (JSON Lines).") var json = false
        @Option(help: "Color: auto, always or never.") var color = "auto"
        @Flag(help: "Build or bring up to date the search index (a cache outside the vault), and use it.")
        var index = false
        @Flag(name: .customLong("no-index"), help: "Scan every file, even if there is an index.") var noIndex = false

        func execute() throws {
            let vault = try location.open()
            let (locale, zone) = try reading.resolve(for: vault)
            var query = SearchQuery(pattern: pattern)
            query.isRegex = regex
            query.caseMode = caseSensitive ? .sensitive : ignoreCase ? .insensitive : .smart
            query.tag = tag
            do {
                query.scope = try scope(vault)
                if let role {
                    guard let r = Role(rawValue: role) else {
                        throw UsageError.unknownRole(role)
                    }
                    query.role = r
                }
                query.since = try day(since, "--since", zone)
                query.until = try day(until, "--until", zone)
                try query.validate()
            } catch {
                throw CommandError.invalidSearch(error)
            }
            guard ["auto", "always", "never"].contains(color) else {
                throw CommandError.invalidSearch(UsageError.unknownColor(color))
            }
            var search = VaultSearch(vault: vault)
            search.context = max(0, context)
            let results: SearchResults
            if !noIndex, index || SearchIndex.exists(forVaultAt: vault.root) {
                let started = Date()
                let searchIndex = try SearchIndex(vaultRoot: vault.root)
                let (found, refresh) = try search.run(query, index: searchIndex)
                if refresh.indexed >= 1000 || (index && refresh.read > 0) {
                    let seconds = String(format: "%.1f", Date().timeIntervalSince(started))
                    let size = ByteCountFormatter.string(fromByteCount: Int64(searchIndex.sizeInBytes), countStyle: .file)
                    Terminal.note(
                        "search index: \(refresh.read) files read, \(refresh.indexed) indexed, \(refresh.removed) removed"
                            + " in \(seconds) s (\(searchIndex.path), \(size))")
                }
                results = found
            } else {
                results = try search.run(query)
            }
            for (path, reason) in results.skipped { Terminal.warning("skipped \(path): \(reason)") }
            let style = SearchOutput(
                colored: color == "always" || (color == "auto" && Terminal.stdoutIsTerminal && !noColor),
                locale: locale, zone: zone)
            if json {
                for item in results.items { for hit in item.hits { Terminal.write(style.json(hit, in: item) + "\n", to: 1) } }
            } else if filesWithMatches {
                for item in results.items { Terminal.write(style.path(item.path) + "\n", to: 1) }
            } else {
                for (n, item) in results.items.enumerated() {
                    Terminal.write((n > 0 ? "\n" : "") + style.lines(item).joined(separator: "\n") + "\n", to: 1)
                }
            }
            if results.items.isEmpty { throw CommandError.noMatch }
        }

        var noColor: Bool { !(ProcessInfo.processInfo.environment["NO_COLOR"] ?? "").isEmpty }

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

/// How hits are printed: grouped by item, each line `path:line:column: who · when │ text`.
struct SearchOutput {
    let colored: Bool
    let locale: String
    let zone: TimeZone
    /// Days as shown, by day: a search can have tens of thousands of hits, and ICU's
    /// formatting takes tens of microseconds each.
    let shownDays = DayCache()

    final class DayCache {
        var shown: [LocalDate: String] = [:]
    }

    /// `2026년 10월 28일 수요일 21:12`: the message's day in the vault's locale, and its time.
    func shown(_ t: Timestamp) -> String {
        let local = Timestamp(date: t.date, timeZone: zone)
        let day = local.localDate
        let text: String
        if let known = shownDays.shown[day] {
            text = known
        } else {
            text = DateText.heading(day, locale: locale)
            shownDays.shown[day] = text
        }
        let seconds = Int(local.secondsSince1970) + local.utcOffsetSeconds
        let minutes = ((seconds / 60) % 1440 + 1440) % 1440
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return text + " " + two(minutes / 60) + ":" + two(minutes % 60)
    }

    func paint(_ text: String, _ code: String) -> String {
        colored ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }

    func path(_ p: String) -> String { paint(Terminal.visible(p, singleLine: true), "35") }

    func lines(_ item: SearchItem) -> [String] {
        var out = [paint(Terminal.visible(item.title, singleLine: true), "1") + " · " + path(item.path)]
        var lastShown = 0
        for hit in item.hits {
            if !hit.before.isEmpty || !hit.after.isEmpty, lastShown > 0, hit.line - hit.before.count > lastShown + 1 {
                out.append(paint("--", "2"))
            }
            for (k, text) in hit.before.enumerated() {
                let n = hit.line - hit.before.count + k
                if n > lastShown { out.append(contextLine(item.path, n, text)) }
            }
            out.append(
                "\(path(item.path)):\(paint(String(hit.line), "32")):\(hit.column): \(label(hit, item)) │ "
                    + highlighted(hit))
            lastShown = hit.line
            for (k, text) in hit.after.enumerated() {
                out.append(contextLine(item.path, hit.line + 1 + k, text))
                lastShown = hit.line + 1 + k
            }
        }
        return out
    }

    func contextLine(_ p: String, _ n: Int, _ text: String) -> String {
        "\(path(p))-\(paint(String(n), "32"))-  " + Terminal.visible(text, singleLine: true)
    }

    /// Who and when: `🧑 user · 2026년 11월 21일 토요일 오전 9:31`, `front-matter`, the entry's day.
    func label(_ hit: SearchHit, _ item: SearchItem) -> String {
        if hit.inFrontMatter { return paint("front-matter", "33") }
        if let m = hit.message {
            return paint("\(m.role.icon) \(m.role.rawValue)", "36") + " · "
                + shown(m.timestamp)
        }
        if let day = item.day, item.kind == .diaryEntry { return paint("📔", "36") + " " + DateText.heading(day, locale: locale) }
        return paint(item.kind == .room ? "room" : "text", "36")
    }

    /// The line with its matches in bold red (colored), control characters made visible.
    func highlighted(_ hit: SearchHit) -> String {
        let bytes = Array(hit.text.utf8)
        var out = ""
        var at = 0
        for r in hit.matches where r.lowerBound >= at && r.upperBound <= bytes.count {
            out += Terminal.visible(String(decoding: bytes[at..<r.lowerBound], as: UTF8.self), singleLine: true)
            out += paint(Terminal.visible(String(decoding: bytes[r], as: UTF8.self), singleLine: true), "1;31")
            at = r.upperBound
        }
        return out + Terminal.visible(String(decoding: bytes[at...], as: UTF8.self), singleLine: true)
    }

    /// One hit as a JSON object on one line.
    func json(_ hit: SearchHit, in item: SearchItem) -> String {
        struct Line: Encodable {
            var path: String
            var line: Int
            var column: Int
            var kind: String
            var title: String
            var front_matter: Bool
            var message_id: String?
            var role: String?
            var timestamp: String?
            var day: String?
            var text: String
            var matches: [[Int]]
        }
        let value = Line(
            path: item.path, line: hit.line, column: hit.column, kind: item.kind == .room ? "room" : "diary",
            title: item.title, front_matter: hit.inFrontMatter, message_id: hit.message?.id,
            role: hit.message?.role.rawValue, timestamp: hit.message?.timestamp.text,
            day: hit.message.map { Timestamp(date: $0.timestamp.date, timeZone: zone).localDate.description }
                ?? item.day?.description,
            text: hit.text, matches: hit.matches.map { [$0.lowerBound, $0.upperBound] })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        return Terminal.escapingC1(String(decoding: data, as: UTF8.self))
    }
}
