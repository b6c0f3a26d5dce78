import Foundation
import VaultCore

/// Reads jrnl's journals: its plain-text file (or a folder journal's `.txt` files) and
/// `jrnl --export json`.
///
/// In the plain text an entry begins with a line `[YYYY-MM-DD HH:MM(:SS)?( AM|PM)?] Title`;
/// the title is that line's first sentence (up to `.`, `?`, `!` or `…` and a space) or the
/// whole line, and the body is the rest of the line and the lines up to the next entry. A `*`
/// at the end of the entry's first line (or right after its date) stars it. Tags are the words
/// that begin with `@` or `#` (jrnl's default tag symbols), kept without the symbol.
///
/// jrnl keeps no zone: its times are the clock of the computer that wrote them, read in
/// `timeZone` (this computer's by default). jrnl keeps no ids either: an entry's id is made from
/// its time to the minute and its title, so the plain text and the JSON export of one journal
/// give the same ids (the JSON has no seconds).
///
///     let reader = JrnlReader()                       // times in this computer's zone
///     try reader.read(["~/.local/share/jrnl/journal.txt"], since: nil) { item in … }
package struct JrnlReader: ImportReader {
    package var source: ImportSource { .jrnl }
    /// The zone jrnl's times are read in.
    package var timeZone: TimeZone
    /// The journal's `timeformat` (jrnl's configuration: `%d.%m.%Y %H:%M` writes
    /// `[09.06.2013 15:39]`), when it is not jrnl's default; nil: `%Y-%m-%d %H:%M`, with or
    /// without seconds and AM/PM.
    package var dateFormat: String?

    package init(timeZone: TimeZone = .current, dateFormat: String? = nil) {
        self.timeZone = timeZone
        self.dateFormat = dateFormat
    }

    /// A file whose first line with text is a jrnl entry's date line, a jrnl JSON export
    /// (`entries` with `date` and `time`), or a folder journal (`YYYY/MM/DD.txt`).
    package static func recognizes(_ path: String) -> Bool {
        let head: [UInt8]?
        if ExportFile.isFolder(path) {
            guard let folder = try? ExportDirectory(path), let first = textFiles(in: folder).first else { return false }
            head = (try? folder.open(first))?.prefix(65536)
        } else {
            head = ExportFile.head(path)
        }
        guard let head else { return false }
        // An encrypted journal is told as one, so the import says so instead of "unknown".
        if Self.encryption(head) != nil { return true }
        let text = String(decoding: head, as: UTF8.self)
        let start = text.drop { $0.isWhitespace }
        if start.hasPrefix("{") {
            return text.contains("\"entries\"") && text.contains("\"time\"") && text.contains("\"starred\"")
                && !text.contains("\"creationDate\"")
        }
        let firstLine = String(start.prefix { !$0.isNewline })
        return DateLine(firstLine) != nil || DateLine(firstLine, format: TimeFormat.jrnl1, bracketed: false) != nil
    }

    package func read(_ paths: [String], since: Timestamp?, into sink: ImportSink) throws(VaultError) {
        for path in paths {
            // A folder journal's files are opened inside it, a link among them refused by name.
            let folder = ExportFile.isFolder(path) ? try ExportDirectory(path) : nil
            let files = folder.map(Self.textFiles) ?? [path]
            if files.isEmpty { throw ExportFile.problem(path, "holds no jrnl journal (.txt files)") }
            for file in files {
                try sink.part { () throws(VaultError) in
                    let opened = if let folder { try folder.open(file) } else { try ExportInput.openNamed(path) }
                    for entry in try entries(of: try opened.bytes(sink.limits, what: "journal"), file: opened.name) {
                        if let since, entry.time < since { continue }
                        try sink.emit(.entry(entry))
                    }
                }
            }
        }
    }

    /// A folder journal's day files, `YYYY/MM/DD.txt` as jrnl writes and reads them (their
    /// paths in it, links among them too), in order; jrnl passes over any other file
    /// (`should-be-ignored.txt`, notes beside the years), and so does vault.
    static func textFiles(in folder: ExportDirectory) -> [String] {
        folder.files().map(\.path).filter(isDayFile)
    }

    static func isDayFile(_ path: String) -> Bool {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 3, parts[parts.count - 1].hasSuffix(".txt") else { return false }
        let (year, month, day) = (parts[parts.count - 3], parts[parts.count - 2], parts[parts.count - 1].dropLast(4))
        let digits = { (s: Substring, n: Int) in s.count == n && s.utf8.allSatisfy { $0 >= 48 && $0 <= 57 } }
        return digits(year, 4) && digits(month, 2) && digits(day, 2)
    }

    /// jrnl's encryption of a journal, by its first bytes: `v3` (`JRNLv3`, a header with its
    /// salt), `v2` (a Fernet token, `gAAAAA`); nil for a journal in plain text.
    static func encryption(_ head: [UInt8]) -> String? {
        if head.starts(with: Array("JRNLv3".utf8)) { return "v3" }
        if head.starts(with: Array("gAAAAA".utf8)) { return "v2" }
        return nil
    }

    /// The problem of an encrypted journal: what it is and how to give vault its text.
    static func encrypted(_ file: String, _ version: String) -> VaultError {
        ExportFile.problem(
            file,
            "is an encrypted jrnl journal (\(version)); vault reads journals in plain text only: export it with "
                + "`jrnl --format json --file journal.json` (jrnl asks for its password) and import journal.json")
    }

    /// The entries of one file's bytes, plain text or JSON (`file` names it in problems).
    func entries(of bytes: [UInt8], file: String) throws(VaultError) -> [ImportedEntry] {
        if let version = Self.encryption(Array(bytes.prefix(8))) { throw Self.encrypted(file, version) }
        // jrnl 1.x encrypted with AES: bytes from the first, no text at all.
        if let bad = ExportFile.firstInvalidUTF8(bytes.prefix(64).prefix { $0 != 10 }), bad < 32 {
            throw ExportFile.problem(
                file,
                "is not text (byte \(bad) is not UTF-8): if it is a journal encrypted by jrnl 1.x, decrypt it with jrnl "
                    + "(`jrnl --decrypt`) or export it (`jrnl --format json --file journal.json`) and import that")
        }
        let first = bytes.first { ![32, 9, 10, 13].contains($0) }
        if first == UInt8(ascii: "{") { return try jsonEntries(bytes, file: file) }
        return try plainEntries(bytes, file: file)
    }

    // MARK: Plain text

    /// The date line of an entry: `[2023-01-15 09:30:00 PM] rest`.
    struct DateLine {
        var day: LocalDate
        var hour: Int
        var minute: Int
        var second: Int
        /// What follows `] `.
        var rest: Substring

        /// A date line written with `format`: `[<date>] rest`, or (`bracketed` false: jrnl 1.x)
        /// `<date> rest`.
        init?(_ line: String, format: TimeFormat, bracketed: Bool) {
            var text = Substring(line)
            if bracketed {
                guard text.hasPrefix("["), let close = text.firstIndex(of: "]") else { return nil }
                guard let read = format.read(text[text.index(after: text.startIndex)..<close]), read.rest.isEmpty else {
                    return nil
                }
                (day, hour, minute, second) = (read.day, read.hour, read.minute, read.second)
                text = text[text.index(after: close)...]
            } else {
                guard let read = format.read(text), read.rest.isEmpty || read.rest.hasPrefix(" ") else { return nil }
                (day, hour, minute, second) = (read.day, read.hour, read.minute, read.second)
                text = read.rest
            }
            if text.hasPrefix(" ") { text = text.dropFirst() }
            rest = text
        }

        init?(_ line: String) {
            guard line.hasPrefix("["), let close = line.firstIndex(of: "]") else { return nil }
            let inside = line[line.index(after: line.startIndex)..<close]
            let parts = inside.split(separator: " ")
            // `[2019-07 14:23]`: a month without its day, which jrnl reads as the month's first.
            let monthOnly = parts.first.map { $0.count == 7 && $0.dropFirst(4).first == "-" } == true
            guard parts.count == 2 || parts.count == 3,
                let day = LocalDate(iso: monthOnly ? parts[0] + "-01" : parts[0])
            else { return nil }
            let clock = parts[1].split(separator: ":", omittingEmptySubsequences: false)
            guard clock.count == 2 || clock.count == 3,
                clock.allSatisfy({ !$0.isEmpty && $0.count <= 2 && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
                var hour = Int(clock[0]), let minute = Int(clock[1]), minute < 60
            else { return nil }
            let second = clock.count == 3 ? Int(clock[2]) ?? 99 : 0
            guard second < 60 else { return nil }
            if parts.count == 3 {
                let half = parts[2].uppercased()
                guard half == "AM" || half == "PM", (1...12).contains(hour) else { return nil }
                hour = hour % 12 + (half == "PM" ? 12 : 0)
            }
            guard hour < 24 else { return nil }
            self.day = day
            self.hour = hour
            self.minute = minute
            self.second = second
            var rest = line[line.index(after: close)...]
            if rest.hasPrefix(" ") { rest = rest.dropFirst() }
            self.rest = rest
        }
    }

    private func plainEntries(_ bytes: [UInt8], file: String) throws(VaultError) -> [ImportedEntry] {
        var out: [ImportedEntry] = []
        var current: (date: DateLine, starred: Bool, lines: [String], line: Int)?
        var number = 0
        // The file's first entry says how its dates are written: in brackets (jrnl 2 and
        // later), or bare, as jrnl 1.x wrote them (`2010-06-10 15:00 Title`).
        var bare: Bool?
        let format = dateFormat.map(TimeFormat.init)
        func dateLine(_ line: String) -> DateLine? {
            if bare != true {
                // The journal's format first; jrnl's own default (what it writes unless told
                // otherwise) too, as jrnl reads both.
                if let read = format.flatMap({ DateLine(line, format: $0, bracketed: true) }) ?? DateLine(line) {
                    bare = false
                    return read
                }
            }
            if bare != false, let read = DateLine(line, format: format ?? TimeFormat.jrnl1, bracketed: false) {
                bare = true
                return read
            }
            return nil
        }
        func finish() throws(VaultError) {
            guard let entry = current else { return }
            let time = try localTime(entry.date.day, entry.date.hour, entry.date.minute, entry.date.second) { text in
                ExportFile.problem(file, at: "line \(entry.line)", text)
            }
            out.append(makeEntry(entry.date, time: time, starred: entry.starred, following: entry.lines))
        }
        for raw in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            number += 1
            var line = try ExportFile.text(raw, file: file, place: "line \(number)")
            if line.hasSuffix("\r") { line.removeLast() }
            if let date = dateLine(line) {
                try finish()
                var starred = false
                var rest = date.rest
                while rest.last == " " { rest = rest.dropLast() }
                if rest.hasSuffix("*") {
                    starred = true
                    rest = rest.dropLast()
                }
                if rest.hasPrefix("*") {
                    starred = true
                    rest = rest.dropFirst()
                }
                var withRest = date
                withRest.rest = rest
                current = (withRest, starred, [], number)
            } else if current != nil {
                current?.lines.append(line)
            } else if !line.trimmingCharacters(in: .whitespaces).isEmpty {
                throw ExportFile.problem(
                    file, at: "line \(number)",
                    "is not a jrnl entry (an entry begins with a line like \"[2024-05-01 09:30] Title\"; for dates written "
                        + "otherwise, give jrnl's timeformat: --date-format '%d.%m.%Y %H:%M')")
            }
        }
        try finish()
        if out.isEmpty {
            throw ExportFile.problem(file, "is not a jrnl journal: no line begins with a date like \"[2024-05-01 09:30]\"")
        }
        return out
    }

    private func makeEntry(_ date: DateLine, time: Timestamp, starred: Bool, following: [String]) -> ImportedEntry {
        let first = date.rest.trimmingCharacters(in: .whitespaces)
        var title = first
        var bodyLines = following
        if let end = Self.sentenceEnd(first) {
            title = String(first[..<end]).trimmingCharacters(in: .whitespaces)
            bodyLines.insert(String(first[end...]).trimmingCharacters(in: .whitespaces), at: 0)
        }
        while bodyLines.first?.trimmingCharacters(in: .whitespaces).isEmpty == true { bodyLines.removeFirst() }
        while bodyLines.last?.trimmingCharacters(in: .whitespaces).isEmpty == true { bodyLines.removeLast() }
        let body = bodyLines.joined(separator: "\n")
        return ImportedEntry(
            source: .jrnl, sourceID: Self.id(date.day, date.hour, date.minute, title), title: title, time: time,
            tags: Self.tags(in: title + "\n" + body), starred: starred, body: body)
    }

    /// Where the first sentence of `text` ends (after its terminal and closing quotes or
    /// brackets), when a space follows it; jrnl's rule for a title.
    static func sentenceEnd(_ text: String) -> String.Index? {
        let terminals: Set<Character> = [".", "!", "?", "…", "‼", "‽", "⁇", "⁈", "⁉"]
        let closers: Set<Character> = ["'", "’", "\"", "”", "]", ")"]
        var i = text.startIndex
        while i < text.endIndex {
            if "！．？｡。".contains(text[i]) { return text.index(after: i) }
            if terminals.contains(text[i]) {
                var j = text.index(after: i)
                while j < text.endIndex, closers.contains(text[j]) { j = text.index(after: j) }
                if j < text.endIndex, text[j].isWhitespace { return j }
            }
            i = text.index(after: i)
        }
        return nil
    }

    /// The words of `text` that begin with `@` or `#` and follow a space or a line's start,
    /// without the symbol, each once (the first spelling kept); a word of symbols only (a
    /// Markdown heading's `#`, `##`) is none.
    static func tags(in text: String) -> [String] {
        var out: [String] = []
        var seen: Set<String> = []
        var previous: Character = " "
        var i = text.startIndex
        while i < text.endIndex {
            let c = text[i]
            if (c == "@" || c == "#"), previous.isWhitespace {
                var j = text.index(after: i)
                while j < text.endIndex, text[j].isLetter || text[j].isNumber || "_-+*#/".contains(text[j]) {
                    j = text.index(after: j)
                }
                let tag = String(text[text.index(after: i)..<j])
                // A Markdown heading's `##` is no tag: a tag has a letter or a digit.
                if tag.contains(where: { $0.isLetter || $0.isNumber }), seen.insert(tag.lowercased()).inserted {
                    out.append(tag)
                }
                previous = " "
                i = j
                continue
            }
            previous = c
            i = text.index(after: i)
        }
        return out
    }

    /// jrnl keeps no ids: its entry's time to the minute and its title make one.
    static func id(_ day: LocalDate, _ hour: Int, _ minute: Int, _ title: String) -> String {
        let clock = (hour < 10 ? "0" : "") + "\(hour):" + (minute < 10 ? "0" : "") + "\(minute)"
        return "jrnl-" + ExportFile.shortHash("\(day) \(clock) \(title)")
    }

    /// The time in `timeZone`; `problem` makes the error when it is outside the years 0 to 9999
    /// (Foundation's calendar takes the year 0000 for 1 BC, which no timestamp spells).
    private func localTime(
        _ day: LocalDate, _ hour: Int, _ minute: Int, _ second: Int, problem: (String) -> VaultError
    ) throws(VaultError) -> Timestamp {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let components = DateComponents(
            year: day.year, month: day.month, day: day.day, hour: hour, minute: minute, second: second)
        let date = calendar.date(from: components) ?? day.noonUTC
        let time = Timestamp(date: date, timeZone: timeZone)
        guard ExportFile.spellsFourDigitYear(time) else {
            throw problem("is a time vault cannot hold in \(timeZone.identifier) (the years 0 to 9999 only)")
        }
        return time
    }

    // MARK: Date formats

    /// A strftime-style `timeformat` as jrnl's configuration holds it, read from a date line:
    /// `%Y %y %m %d %H %I %M %S %p %b %B`, and `%F` (`%Y-%m-%d`), `%T` (`%H:%M:%S`), `%R`
    /// (`%H:%M`), `%r` (`%I:%M:%S %p`), `%%`; any other character is itself.
    struct TimeFormat {
        /// jrnl 1.x's default: `2010-06-10 15:00`.
        static let jrnl1 = TimeFormat("%Y-%m-%d %H:%M")

        enum Piece: Equatable {
            case literal(Character)
            case field(Character)
        }
        let pieces: [Piece]

        init(_ format: String) {
            let expanded = format.replacingOccurrences(of: "%F", with: "%Y-%m-%d").replacingOccurrences(of: "%T", with: "%H:%M:%S")
                .replacingOccurrences(of: "%R", with: "%H:%M").replacingOccurrences(of: "%r", with: "%I:%M:%S %p")
            var pieces: [Piece] = []
            var percent = false
            for c in expanded {
                if percent {
                    pieces.append(c == "%" ? .literal("%") : .field(c))
                    percent = false
                } else if c == "%" {
                    percent = true
                } else {
                    pieces.append(.literal(c))
                }
            }
            self.pieces = pieces
        }

        static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

        /// The date and time at the start of `text`, and what follows; nil when it is not one.
        func read(_ text: Substring) -> (day: LocalDate, hour: Int, minute: Int, second: Int, rest: Substring)? {
            var i = text.startIndex
            var (year, month, day, hour, minute, second) = (-1, -1, -1, 0, 0, 0)
            var half: Bool?
            func number(_ most: Int) -> Int? {
                var j = i
                var n = 0
                while j < text.endIndex, text.distance(from: i, to: j) < most, let d = text[j].wholeNumberValue, text[j].isASCII {
                    n = n * 10 + d
                    j = text.index(after: j)
                }
                guard j > i else { return nil }
                i = j
                return n
            }
            for piece in pieces {
                switch piece {
                case .literal(let c):
                    guard i < text.endIndex, text[i] == c else { return nil }
                    i = text.index(after: i)
                case .field(let f):
                    switch f {
                    case "Y": guard let n = number(4) else { return nil }; year = n
                    case "y": guard let n = number(2) else { return nil }; year = 2000 + n
                    case "m": guard let n = number(2) else { return nil }; month = n
                    case "d": guard let n = number(2) else { return nil }; day = n
                    case "H", "I": guard let n = number(2) else { return nil }; hour = n
                    case "M": guard let n = number(2) else { return nil }; minute = n
                    case "S": guard let n = number(2) else { return nil }; second = n
                    case "p":
                        let word = text[i...].prefix(2).uppercased()
                        guard word == "AM" || word == "PM" else { return nil }
                        half = word == "PM"
                        i = text.index(i, offsetBy: 2)
                    case "b", "B":
                        let letters = text[i...].prefix { $0.isLetter }
                        guard let k = Self.months.firstIndex(where: { letters.lowercased().hasPrefix($0) }) else { return nil }
                        month = k + 1
                        i = letters.endIndex
                    default: return nil
                    }
                }
            }
            if let half {
                guard (1...12).contains(hour) else { return nil }
                hour = hour % 12 + (half ? 12 : 0)
            }
            guard year >= 0, (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 60,
                let date = LocalDate(iso: String(format: "%04d-%02d-%02d", year, month, day))
            else { return nil }
            return (date, hour, minute, second, text[i...])
        }
    }

    // MARK: JSON export

    private func jsonEntries(_ bytes: [UInt8], file: String) throws(VaultError) -> [ImportedEntry] {
        _ = try ExportFile.text(bytes, file: file)
        guard let value = ExportFile.json(bytes) else { throw ExportFile.problem(file, "is not valid JSON") }
        guard let object = value as? [String: Any], let list = object["entries"] as? [Any] else {
            throw ExportFile.problem(file, "is not a jrnl JSON export: it has no \"entries\" list")
        }
        var out: [ImportedEntry] = []
        for (n, item) in list.enumerated() {
            let place = "entries[\(n)]"
            guard let entry = item as? [String: Any] else { throw ExportFile.problem(file, at: place, "is not an object") }
            guard let dayText = entry["date"] as? String, let day = LocalDate(iso: dayText) else {
                throw ExportFile.problem(file, at: place + ".date", "is not a date like \"2024-05-01\"")
            }
            let clock = (entry["time"] as? String ?? "").split(separator: ":")
            guard clock.count >= 2, let hour = Int(clock[0]), let minute = Int(clock[1]), hour < 24, minute < 60 else {
                throw ExportFile.problem(file, at: place + ".time", "is not a time like \"09:30\"")
            }
            let second = clock.count > 2 ? Int(clock[2]) ?? 0 : 0
            let title = (entry["title"] as? String ?? "").trimmingCharacters(in: .whitespaces)
            let body = (entry["body"] as? String ?? "").trimmingCharacters(in: .newlines)
            var tags: [String] = []
            var seen: Set<String> = []
            for tag in entry["tags"] as? [String] ?? [] {
                let word = String(tag.drop { $0 == "@" || $0 == "#" })
                if !word.isEmpty, seen.insert(word.lowercased()).inserted { tags.append(word) }
            }
            out.append(
                ImportedEntry(
                    source: .jrnl, sourceID: Self.id(day, hour, minute, title), title: title,
                    time: try localTime(day, hour, minute, second) { ExportFile.problem(file, at: place + ".date", $0) },
                    tags: tags, starred: ExportFile.flag(entry["starred"]),
                    body: body))
        }
        return out
    }
}
