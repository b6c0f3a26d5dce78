import ArgumentParser
import Foundation
import Synchronization
import VaultCore
import VaultKit
import VaultSearch

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
            var search = VaultSearch(vault: vault)
            search.context = max(0, context)
            // Items are rendered as the scan finds them, on every core, and written in path order.
            let style = SearchOutput(colored: colored, locale: locale, zone: zone)
            let form: SearchSink.Form = json ? .json : count ? .counts : filesWithMatches ? .paths : .grouped
            let sink = SearchSink(form: form, style: style)
            search.printer = sink.printer
            search.listingCache = SearchIndex.listingPath(forVaultAt: vault.root)
            var searching = Searching(index: noIndex ? .never : index ? .build : .whenBuilt)
            if !noWatch { searching.watcherCommand = SearchWatcherCommand.command }
            let progress = ProgressLine()
            searching.onProgress = progress.handler
            // The progress line goes before the first hit is written.
            sink.beforeWriting = { progress.finish() }
            let outcome = try {
                defer { progress.finish() }
                return try searching.run(search, query, cancellation: Termination.cancellation)
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

/// Where `vault search` writes items: each rendered on the thread that scanned it (a renderer per
/// thread, `printer`), the bytes written in path order into one buffer, sent out in pieces of
/// about a megabyte (one `write` per item would be tens of thousands of system calls), a blank
/// line between items when grouped.
final class SearchSink: @unchecked Sendable {
    enum Form {
        /// The title, then `path:line:column: who · when │ text` for each hit.
        case grouped
        /// One JSON object per hit (`--json`).
        case json
        /// The item's path (`-l`).
        case paths
        /// The item's path and its number of hits, `path:N` (`-c`).
        case counts
    }
    let form: Form
    let style: SearchOutput
    /// Runs before anything is written (the progress line is cleared).
    var beforeWriting: (() -> Void)?
    private var out: [UInt8] = []
    private var items = 0
    /// `-c`: the path of the item being counted (its parts arrive one after another) and its hits so far.
    private var counting: (path: [UInt8], hits: Int)?

    init(form: Form, style: SearchOutput) {
        self.form = form
        self.style = style
        out.reserveCapacity(1 << 20 + 1 << 16)
    }

    /// What `VaultSearch.printer` is set to: renderers like `style`, each with caches of its own.
    var printer: SearchPrinter {
        SearchPrinter(
            makeRenderer: { [form, colored = style.colored, locale = style.locale, zone = style.zone] in
                let output = SearchOutput(colored: colored, locale: locale, zone: zone)
                switch form {
                case .grouped:
                    return { item, out in output.render(item, into: &out) }
                case .json:
                    return { item, out in
                        item.hits.withUnsafeBufferPointer { hits in
                            for k in hits.indices { output.appendJSON(hits[k], in: item, to: &out) }
                        }
                    }
                case .counts:
                    // The path (not for a later part of the same file), a NUL, then the part's
                    // matching lines (a line with two matches counts once, as rg -c counts).
                    return { item, out in
                        if !item.continued { out += output.path(item.path).utf8 }
                        out.append(0)
                        var lines = 0
                        var last = -1
                        item.hits.withUnsafeBufferPointer { hits in
                            for k in hits.indices where hits[k].line != last {
                                lines += 1
                                last = hits[k].line
                            }
                        }
                        output.appendDecimal(lines, to: &out)
                    }
                case .paths:
                    return { item, out in
                        // A later part of a file with very many hits: its path is out already.
                        guard !item.continued else { return }
                        out += output.path(item.path).utf8
                        out.append(0x0A)
                    }
                }
            },
            write: { [self] bytes, continued in add(bytes, continued: continued) })
    }

    /// Appends an item's bytes, in path order.
    func add(_ bytes: [UInt8], continued: Bool) {
        if form == .counts {
            let nul = bytes.firstIndex(of: 0) ?? bytes.endIndex
            let hits = Int(String(decoding: bytes[min(nul + 1, bytes.endIndex)...], as: UTF8.self)) ?? 0
            if continued, counting != nil {
                counting!.hits += hits
                return
            }
            endCount()
            counting = (Array(bytes[..<nul]), hits)
            return
        }
        if form == .grouped && items > 0 && !continued { out.append(0x0A) }
        out += bytes
        items += 1
        if out.count >= 1 << 20 { flush() }
    }

    /// `-c`: the line of the item counted so far, into the output.
    private func endCount() {
        guard let (path, hits) = counting else { return }
        out += path
        out.append(UInt8(ascii: ":"))
        out += String(hits).utf8
        out.append(0x0A)
        counting = nil
        items += 1
        if out.count >= 1 << 20 { flush() }
    }

    func flush() {
        endCount()
        guard !out.isEmpty else { return }
        beforeWriting?()
        Terminal.write(bytes: out, to: 1)
        out.removeAll(keepingCapacity: true)
    }
}

extension VaultCommand {
    /// `vault search-watcher`: the search index's watcher (`SearchWatcher`), started by an
    /// indexed search in the background, never by a person.
    struct SearchWatcherCommand: VaultRunnable {
        static let configuration = CommandConfiguration(
            commandName: "search-watcher",
            abstract: "Watch a vault's files for the search index (an indexed search starts it).",
            shouldDisplay: false)

        @Option(help: "The vault's root folder.") var root: String
        @Option(help: "The search index's database.") var index: String

        /// This executable, for the library to start the watcher with: its path when it still
        /// exists, else the kernel's link to it.
        static var executable: String {
            var buffer = [CChar](repeating: 0, count: 4096)
            let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
            guard n > 0 else { return "/proc/self/exe" }
            let path = String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return access(path, X_OK) == 0 ? path : "/proc/self/exe"
        }

        /// The command that starts the watcher (this executable's `search-watcher`), or nil when
        /// `VAULT_NO_WATCH` is set: then every file's stamp is checked instead.
        static var command: [String]? {
            guard (ProcessInfo.processInfo.environment["VAULT_NO_WATCH"] ?? "").isEmpty else { return nil }
            return [executable, "search-watcher"]
        }

        /// The watcher that tells `sync`, `watch` and `mcp` what changed in the vault at `root`
        /// (nil with `VAULT_NO_WATCH`).
        static func watcher(forVaultAt root: String) -> VaultWatcher? {
            command.flatMap { VaultWatcher(vaultRoot: root, command: $0) }
        }

        func execute() throws {
            // Descriptor 3 is the pipe that says "ready" to the search that started it.
            let ready: Int32 = fcntl(3, F_GETFD) >= 0 ? 3 : -1
            let status = SearchWatcher.serve(root: root, indexPath: index, readyFD: ready)
            fflush(nil)
            _exit(status)
        }
    }
}

/// How hits are printed: grouped by item, each line `path:line:column: who · when │ text`.
struct SearchOutput {
    let colored: Bool
    let locale: String
    let zone: TimeZone
    /// Labels as shown, by role and day: a search can have tens of thousands of hits, and ICU's
    /// formatting takes tens of microseconds each.
    let shownDays: DayCache

    init(colored: Bool, locale: String, zone: TimeZone) {
        self.colored = colored
        self.locale = locale
        self.zone = zone
        shownDays = DayCache(zone)
    }

    final class DayCache {
        /// The labels made so far, one after another (a label is a range of it: handing one out
        /// retains nothing).
        private var bytes: [UInt8] = []
        /// The label of a message, without its time, by role and day; of a diary entry, by day.
        private var labels: [LabelKey: Range<Int>] = [:]
        /// The last two labels looked up: hits in one message or entry, or in a conversation's
        /// two sides on one day, share them (no hashing).
        private var last = (key: LabelKey(value: .min), range: 0..<0)
        private var previous = (key: LabelKey(value: .min), range: 0..<0)
        /// The vault zone's offsets, by day.
        let offsets: ZoneOffsets
        /// The times of day as message headers show them in the locale (`오후 11:45`, `11:45 PM`,
        /// `23:45`), by minute of the day, made as they are first needed.
        private var times: [[UInt8]?] = Array(repeating: nil, count: 1440)

        /// Appends the time of day `minutes` after midnight, in `locale`'s short time style.
        func appendTime(_ minutes: Int, locale: String, to out: inout [UInt8]) {
            let minute = min(max(minutes, 0), 1439)
            if let known = times[minute] {
                out += known
                return
            }
            let utc = TimeZone(identifier: "UTC")!
            let text = DateText.string(
                for: Date(timeIntervalSince1970: Double(minute * 60)), style: .time, locale: locale, timeZone: utc)
            let bytes = Array(Terminal.visible(text, singleLine: true).utf8)
            times[minute] = bytes
            out += bytes
        }

        init(_ zone: TimeZone) {
            offsets = ZoneOffsets(zone)
        }

        /// Appends the label of `key` to `out`, made by `make` the first time.
        func append(_ key: LabelKey, to out: inout [UInt8], _ make: () -> [UInt8]) {
            let range: Range<Int>
            if last.key == key {
                range = last.range
            } else {
                if previous.key == key {
                    range = previous.range
                } else if let known = labels[key] {
                    range = known
                } else {
                    let start = bytes.count
                    bytes += make()
                    range = start..<bytes.count
                    labels[key] = range
                }
                previous = last
                last = (key, range)
            }
            bytes.withUnsafeBufferPointer { out.append(contentsOf: UnsafeBufferPointer(rebasing: $0[range])) }
        }
    }

    /// Days as `DateText.heading` shows them, shared by the threads that render (ICU takes tens of
    /// microseconds a day, and a search can meet thousands of days), by locale and day.
    static let headings = Mutex<[String: [LocalDate: String]]>([:])

    func heading(_ day: LocalDate) -> String {
        if let known = Self.headings.withLock({ $0[locale]?[day] }) { return known }
        let text = DateText.heading(day, locale: locale)
        Self.headings.withLock { $0[locale, default: [:]][day] = text }
        return text
    }

    /// A role (or none) and a day (its number), as one integer: made for every hit.
    struct LabelKey: Hashable {
        let value: Int
        init(value: Int) { self.value = value }
        init(role: Role?, day: Int) {
            let r: Int
            switch role {
            case nil: r = 0
            case .user: r = 1
            case .assistant: r = 2
            case .system: r = 3
            }
            value = day * 4 + r
        }
    }

    /// An item's heading, hits and context lines, each ended by a line feed, appended as bytes:
    /// a search can print tens of thousands of hits. The hits are read where they are (a copy of
    /// each would retain and release its text and arrays).
    func render(_ item: SearchItem, into out: inout [UInt8]) {
        // A later part of an item (a file with very many hits) goes on under the same heading.
        if !item.continued {
            appendVisible(item.title, "1", to: &out)
            out += " · ".utf8
            appendVisible(item.path, "35", to: &out)
            out.append(0x0A)
        }
        let pathIsPlain = isPlain(item.path)
        var lastShown = 0
        func line(_ text: String) {
            out += text.utf8
            out.append(0x0A)
        }
        item.hits.withUnsafeBufferPointer { hits in
            for k in hits.indices {
                let (number, before, after) = (hits[k].line, hits[k].before.count, hits[k].after.count)
                if before > 0 || after > 0, lastShown > 0, number - before > lastShown + 1 { line(paint("--", "2")) }
                for (j, text) in hits[k].before.enumerated() where number - before + j > lastShown {
                    line(contextLine(item.path, number - before + j, text))
                }
                appendVisible(item.path, "35", plain: pathIsPlain, to: &out)
                out.append(0x3A)
                if colored { out += "\u{1B}[32m".utf8 }
                appendDecimal(number, to: &out)
                if colored { out += "\u{1B}[0m".utf8 }
                out.append(0x3A)
                appendDecimal(hits[k].column, to: &out)
                out += ": ".utf8
                appendLabel(hits[k], item, to: &out)
                out += " │ ".utf8
                appendHighlighted(hits[k], to: &out)
                out.append(0x0A)
                lastShown = number
                for (j, text) in hits[k].after.enumerated() {
                    line(contextLine(item.path, number + 1 + j, text))
                    lastShown = number + 1 + j
                }
            }
        }
    }

    /// `paint(Terminal.visible(text, singleLine: true), code)` as bytes: the text itself when
    /// it holds nothing to make visible.
    func appendVisible(_ text: String, _ code: StaticString, plain: Bool? = nil, to out: inout [UInt8]) {
        guard plain ?? isPlain(text) else {
            out += paint(Terminal.visible(text, singleLine: true), "\(code)").utf8
            return
        }
        if colored {
            out += "\u{1B}[".utf8
            out.append(contentsOf: UnsafeBufferPointer(start: code.utf8Start, count: code.utf8CodeUnitCount))
            out.append(UInt8(ascii: "m"))
        }
        out += text.utf8
        if colored { out += "\u{1B}[0m".utf8 }
    }

    func appendDecimal(_ value: Int, to out: inout [UInt8]) {
        guard value >= 0 && value < 1_000_000_000 else {
            out += String(value).utf8
            return
        }
        var digits: (UInt64, UInt64) = (0, 0)  // room for the ten digits
        var v = value
        var n = 0
        withUnsafeMutableBytes(of: &digits) { d in
            repeat {
                d[n] = UInt8(0x30 + v % 10)
                v /= 10
                n += 1
            } while v > 0
            for k in stride(from: n - 1, through: 0, by: -1) { out.append(d[k]) }
        }
    }

    /// Who and when (`🧑 user · 2026년 11월 21일 토요일 09:31`, `front-matter`, the entry's day), as
    /// bytes, each day's text made once.
    func appendLabel(_ hit: borrowing SearchHit, _ item: SearchItem, to out: inout [UInt8]) {
        if hit.inFrontMatter {
            out += paint("front-matter", "33").utf8
        } else if let m = hit.message {
            // The local time, as `Timestamp(date:in:)` gives it, in seconds; its day and minute.
            let whole = Int64(m.timestamp.secondsSince1970.rounded(.down))
            let local = whole + Int64(shownDays.offsets.offset(at: whole))
            let day = Int(local >= 0 ? local / 86_400 : (local - 86_399) / 86_400)
            shownDays.append(LabelKey(role: m.role, day: day), to: &out) {
                let date = LocalDate(daysSince1970: day)
                return Array((paint("\(m.role.icon) \(m.role.rawValue)", "36") + " · " + heading(date) + " ").utf8)
            }
            let minutes = Int(local - Int64(day) * 86_400) / 60
            shownDays.appendTime(minutes, locale: locale, to: &out)
            if let author = m.author { out += (" · " + Terminal.visible(author.name, singleLine: true)).utf8 }
        } else if let day = item.day, item.kind == .diaryEntry {
            shownDays.append(LabelKey(role: nil, day: day.daysSince1970), to: &out) {
                Array((paint("📔", "36") + " " + heading(day)).utf8)
            }
        } else {
            out += paint(item.kind == .room ? "room" : "text", "36").utf8
        }
    }

    /// Whether `text` holds nothing `Terminal.visible` would change.
    func isPlain(_ text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { Terminal.isPlainLine(UnsafeRawBufferPointer($0)) } ?? false
    }

    /// `highlighted(hit)` as bytes: the line as it is when it holds nothing to make visible.
    func appendHighlighted(_ hit: borrowing SearchHit, to out: inout [UInt8]) {
        let done = hit.text.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            guard Terminal.isPlainLine(UnsafeRawBufferPointer(bytes)) else { return false }
            guard colored else {
                out.append(contentsOf: bytes)
                return true
            }
            var at = 0
            for r in hit.matches where r.lowerBound >= at && r.upperBound <= bytes.count {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[at..<r.lowerBound]))
                out += "\u{1B}[1;31m".utf8
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[r]))
                out += "\u{1B}[0m".utf8
                at = r.upperBound
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[at...]))
            return true
        }
        if done != true { out += highlighted(hit).utf8 }
    }

    func paint(_ text: String, _ code: String) -> String {
        colored ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }

    func path(_ p: String) -> String { paint(Terminal.visible(p, singleLine: true), "35") }

    func contextLine(_ p: String, _ n: Int, _ text: String) -> String {
        "\(path(p))-\(paint(String(n), "32"))-  " + Terminal.visible(text, singleLine: true)
    }

    /// The line with its matches in bold red (colored), control characters made visible.
    func highlighted(_ hit: borrowing SearchHit) -> String {
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

    /// One hit as a JSON object on one line, its keys sorted, appended to `out`. Written by hand
    /// (a search can print tens of thousands of hits, and an encoder per hit costs ten times the
    /// scan); `JSONLine.appendString` escapes as `JSONEncoder` does, and C1 controls and DEL too.
    func appendJSON(_ hit: borrowing SearchHit, in item: SearchItem, to out: inout [UInt8]) {
        if let author = hit.message?.author {
            out += #"{"author":"#.utf8
            JSONLine.appendString(author.name, to: &out)
            out += #","column":"#.utf8
        } else {
            out += #"{"column":"#.utf8
        }
        appendDecimal(hit.column, to: &out)
        let day = hit.message.map { Timestamp(date: $0.timestamp.date, in: shownDays.offsets).localDate } ?? item.day
        if let day {
            out += #","day":"#.utf8
            JSONLine.appendString(day.description, to: &out)
        }
        out += #","front_matter":"#.utf8
        out += (hit.inFrontMatter ? "true" : "false").utf8
        out += #","kind":"#.utf8
        out += (item.kind == .room ? #""room""# : #""diary""#).utf8
        out += #","line":"#.utf8
        appendDecimal(hit.line, to: &out)
        out += #","matches":["#.utf8
        for (k, r) in hit.matches.enumerated() {
            if k > 0 { out.append(0x2C) }
            out.append(0x5B)
            appendDecimal(r.lowerBound, to: &out)
            out.append(0x2C)
            appendDecimal(r.upperBound, to: &out)
            out.append(0x5D)
        }
        out.append(0x5D)
        if let m = hit.message {
            out += #","message_id":"#.utf8
            JSONLine.appendString(m.id, to: &out)
            if let kind = m.kind {
                out += #","message_kind":"#.utf8
                JSONLine.appendString(kind, to: &out)
            }
        }
        out += #","path":"#.utf8
        JSONLine.appendString(item.path, to: &out)
        if let m = hit.message {
            out += #","role":"#.utf8
            JSONLine.appendString(m.role.rawValue, to: &out)
        }
        out += #","text":"#.utf8
        JSONLine.appendString(hit.text, to: &out)
        if let m = hit.message {
            out += #","timestamp":"#.utf8
            JSONLine.appendString(m.timestamp.text, to: &out)
        }
        out += #","title":"#.utf8
        JSONLine.appendString(item.title, to: &out)
        out += "}\n".utf8
    }
}

/// JSON text for `--json` lines, as bytes.
enum JSONLine {
    /// `text` as a JSON string: `"` and `\\` escaped, control characters as `\n`, `\t`, … or
    /// `\u00XX`, and DEL and the C1 controls (U+0080–U+009F) as `\u007f`, `\u0080`, …, which a
    /// terminal showing the output would otherwise obey. `/` is left as it is.
    static func appendString(_ text: String, to out: inout [UInt8]) {
        out.append(0x22)
        var text = text
        text.withUTF8 { bytes in
            var plainFrom = 0
            var i = 0
            func flush(_ upTo: Int) {
                if upTo > plainFrom { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[plainFrom..<upTo])) }
            }
            while i < bytes.count {
                let b = bytes[i]
                var escape: [UInt8]?
                var width = 1
                switch b {
                case 0x22: escape = Array(#"\""#.utf8)
                case 0x5C: escape = Array(#"\\"#.utf8)
                case 0x0A: escape = Array(#"\n"#.utf8)
                case 0x0D: escape = Array(#"\r"#.utf8)
                case 0x09: escape = Array(#"\t"#.utf8)
                case 0x08: escape = Array(#"\b"#.utf8)
                case 0x0C: escape = Array(#"\f"#.utf8)
                case 0x00..<0x20, 0x7F: escape = unicodeEscape(UInt32(b))
                case 0xC2 where i + 1 < bytes.count && (0x80...0x9F).contains(bytes[i + 1]):
                    escape = unicodeEscape(UInt32(bytes[i + 1]))
                    width = 2
                default: break
                }
                if let escape {
                    flush(i)
                    out += escape
                    i += width
                    plainFrom = i
                } else {
                    i += 1
                }
            }
            flush(bytes.count)
        }
        out.append(0x22)
    }

    static func unicodeEscape(_ value: UInt32) -> [UInt8] {
        let hex = Array("0123456789abcdef".utf8)
        return Array(#"\u00"#.utf8) + [hex[Int(value >> 4)], hex[Int(value & 15)]]
    }
}
