import Foundation

/// A diary entry file, parsed: front-matter, the date heading, the body.
///
/// The heading is display only: the entry's day comes from `created` (in its
/// own offset), else from the file name, else from outside (git history or
/// the file's time, which the store supplies).
public struct DiaryFile: Sendable {
    public let path: String
    public let bytes: [UInt8]
    public let lineEnding: LineEnding
    public let frontMatter: FrontMatter?
    /// The `# ` heading line's text (without `# `), if the entry has one.
    public let heading: String?
    /// Where the body starts in `bytes`.
    private let bodyStart: Int
    /// Where the body starts in `bytes`: what comes before it (front-matter, heading) is kept
    /// byte for byte by an edit of the body (`EntryEditing`).
    public var bodyOffset: Int { bodyStart }

    /// Everything after the heading (or after the front-matter when there is no heading), with
    /// escaped conflict-marker lines given back as written (FORMAT.md, "Escaping").
    /// Decoded when asked for: a listing reads thousands of entries and shows one line of each.
    public var body: String {
        BodyEscaping.unescape(String(decoding: bytes[bodyStart...], as: UTF8.self), in: .diary)
    }
    /// `created` from the front-matter.
    public let created: Timestamp?
    public let updated: Timestamp?

    private init(
        path: String, bytes: [UInt8], lineEnding: LineEnding, frontMatter: FrontMatter?, heading: String?,
        bodyStart: Int,
        created: Timestamp?, updated: Timestamp?
    ) {
        self.path = path
        self.bytes = bytes
        self.lineEnding = lineEnding
        self.frontMatter = frontMatter
        self.heading = heading
        self.bodyStart = bodyStart
        self.created = created
        self.updated = updated
    }

    public init(parsing bytes: [UInt8], path: String) throws(VaultError) {
        if let markers = ConflictMarkers.problem(in: bytes, path: path) { throw VaultError.malformed([markers]) }
        do {
            self = try DiaryFile.parse(bytes, path: path)
        } catch {
            throw VaultError.malformed(error.problems)
        }
    }

    public static func problems(in bytes: [UInt8], path: String) -> [FormatProblem] {
        if let markers = ConflictMarkers.problem(in: bytes, path: path) { return [markers] }
        do {
            let entry = try parse(bytes, path: path)
            var found: [FormatProblem] = []
            if entry.frontMatter?.lacksOpening == true { found.append(FormatProblem(path: path, line: 1, kind: .noOpeningFrontMatter)) }
            if entry.day == nil { found.append(FormatProblem(path: path, line: 1, kind: .noDate)) }
            return found
        } catch {
            return error.problems
        }
    }

    public var id: String? { frontMatter?.string("id") }
    public var tags: [String] { frontMatter?.strings("tags") ?? [] }

    /// The title: front-matter `title`, else the body's first non-empty line, else the file name.
    public var title: String {
        if let t = frontMatter?.string("title"), !t.isEmpty { return t }
        if let first = firstLine { return first }
        return VaultPath.stem(of: path)
    }

    /// The first non-empty line of the body, with Markdown heading marks removed.
    public var firstLine: String? {
        for line in body.unicodeScalars.split(separator: "\n", maxSplits: 50) {
            var t = Substring(line).trimmingCharacters(in: .whitespacesAndNewlines)
            while t.hasPrefix("#") { t.removeFirst() }
            t = t.trimmingCharacters(in: .whitespaces)
            if !t.isEmpty { return t }
        }
        return nil
    }

    /// The day from `created`, else the date in the file's name (`dateInName`).
    public var day: LocalDate? {
        if let created { return created.localDate }
        return DiaryFile.dateInName(path)
    }

    /// Whether the heading is a date heading (display only: `show` writes the day in the vault's
    /// locale in its place), not the person's own (`# 2024 goals`, `# Q3`): the day as
    /// `yyyy-mm-dd`, or as vault writes it in one of the locales it writes (ICU: call it for one
    /// entry, not a listing).
    public func headingIsDate(locale: String) -> Bool {
        guard let heading else { return false }
        guard let day else { return heading.isEmpty }
        if heading.isEmpty || heading == day.description { return true }
        return ([locale] + DiaryFile.headingLocales).contains { DateText.heading(day, locale: $0) == heading }
    }

    /// The locales whose date headings vault writes and reads back as such.
    static let headingLocales = ["ko_KR", "ja_JP", "en_US", "de_DE", "fr_FR", "es_ES", "zh_CN"]

    /// The date in the file's name: `yyyy-mm-dd` anywhere in it, or a whole name (before `.md`
    /// and any ` words` after a space) in another form daily-note apps use (Obsidian's date
    /// formats): `yyyymmdd`, `yyyy.mm.dd`, `yyyy_mm_dd`; or `yyyy/mm/dd.md` as folders.
    public static func dateInName(_ path: String) -> LocalDate? {
        let parts = path.split(separator: "/")
        let last = parts.last.map(String.init) ?? path
        let name = Array(last.utf8)
        if name.count >= 10 {
            for i in 0...(name.count - 10) {
                if let d = LocalDate(iso: String(decoding: name[i..<(i + 10)], as: UTF8.self)) { return d }
            }
        }
        var stem = last.hasSuffix(".md") ? String(last.dropLast(3)) : last
        if let space = stem.firstIndex(of: " ") { stem = String(stem[..<space]) }
        let digits = stem.filter { $0 != "." && $0 != "_" }
        let separated = stem.count == 10 && [4, 7].allSatisfy {
            let c = stem[stem.index(stem.startIndex, offsetBy: $0)]
            return c == "." || c == "_"
        }
        if digits.count == 8, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber), stem.count == 8 || separated {
            return LocalDate(iso: digits.prefix(4) + "-" + digits.dropFirst(4).prefix(2) + "-" + digits.suffix(2))
        }
        // `2024/05/01.md`: the year and month as folders.
        if parts.count >= 3, stem.count == 2, let month = parts.dropLast().last, month.count == 2,
            let year = parts.dropLast(2).last, year.count == 4
        {
            return LocalDate(iso: "\(year)-\(month)-\(stem)")
        }
        return nil
    }

    static func parse(_ bytes: [UInt8], path: String) throws(FormatProblemList) -> DiaryFile {
        let r: Result<DiaryFile, FormatProblemList> = bytes.withUnsafeBufferPointer { b in
            do throws(FormatProblemList) {
                return .success(try parse(b, bytes: bytes, path: path))
            } catch {
                return .failure(error)
            }
        }
        return try r.get()
    }

    private static func parse(_ b: UnsafeBufferPointer<UInt8>, bytes: [UInt8], path: String) throws(FormatProblemList)
        -> DiaryFile
    {
        if let bad = UTF8Check.firstInvalidByte(b) {
            throw FormatProblemList([FormatProblem(path: path, line: b.lineNumber(of: bad), kind: .invalidUTF8)])
        }
        let start = b.count >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF ? 3 : 0
        let eol = LineEnding.detect(b, from: start)
        let fm = try FrontMatter.parse(b, from: start, path: path) ?? FrontMatter.parseWithoutOpening(b, from: start, path: path)
        var problems: [FormatProblem] = []
        func time(_ key: String) -> Timestamp? {
            do throws(FormatProblem) {
                return try fm?.time(key, path: path)
            } catch {
                problems.append(error)
                return nil
            }
        }
        let created = time("created")
        let updated = time("updated")
        if !problems.isEmpty { throw FormatProblemList(problems) }
        // The heading: the first non-blank line after the front-matter, if it starts with "# ".
        var i = fm?.range.upperBound ?? start
        var heading: String?
        var bodyStart = i
        while i < b.count {
            let nl = b.firstNewline(from: i)
            let end = b.contentEnd(lineStart: i, newline: nl)
            let next = nl.map { $0 + 1 } ?? b.count
            if b.trimmedEnd(i, end) == i {
                i = next
                continue
            }
            if b.hasPrefix("# ", at: i, end: end) {
                // "# " alone is an empty heading (its trailing space is trimmed away: fuzzing found it).
                let text = b.string((i + 2)..<max(i + 2, b.trimmedEnd(i, end)))
                // Every date heading has numbers (a year, a day; in any script's digits); one
                // without any is the person's own (`# To-Dos` of an Obsidian daily note): part of
                // the body, shown as written.
                if text.isEmpty || text.unicodeScalars.contains(where: { $0.properties.numericType != nil }) {
                    heading = text
                    bodyStart = next
                }
            }
            break
        }
        return DiaryFile(
            path: path, bytes: bytes, lineEnding: eol, frontMatter: fm, heading: heading,
            bodyStart: bodyStart, created: created, updated: updated)
    }

    /// A new entry's bytes (FORMAT.md, "Diary entries"); lines of `body` that git would read as
    /// conflict markers are escaped.
    public static func newEntry(
        id: String, title: String?, created: Timestamp, tags: [String], heading: String, body: String
    ) -> [UInt8] {
        var lines = ["---"]
        lines += FrontMatterEditor.render(key: "id", value: .string(id))
        if let title, !title.isEmpty { lines += FrontMatterEditor.render(key: "title", value: .string(title)) }
        lines += FrontMatterEditor.render(key: "created", value: .string(created.text))
        lines += FrontMatterEditor.render(key: "updated", value: .string(created.text))
        lines += FrontMatterEditor.render(key: "tags", value: .list(tags))
        lines += ["---", "", "# " + heading, ""]
        var text = lines.joined(separator: "\n") + "\n" + BodyEscaping.escape(body, in: .diary)
        if !text.hasSuffix("\n") { text += "\n" }
        return Array(text.utf8)
    }
}
