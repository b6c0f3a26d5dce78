import Foundation
import VaultCore

/// Rooms and diary entries as one document to share: Markdown, HTML or JSON.
///
/// The Markdown is what a person reads: a diary entry is its date heading (in
/// the vault's locale), its title, its tags and its body as written; a room is
/// its title and each message under a `### 🧑 user · <date>` heading. The
/// machine half of the files (message header comments, the prompt marker,
/// front-matter) is left out. The HTML is that Markdown rendered by cmark-gfm
/// in a page of its own, with attachments embedded. The JSON keeps the data:
/// bodies exactly as the files hold them.
///
///     let exporter = Exporter(vault: vault)
///     let items = try [ExportItem(.room("rooms/부산-여행.md"), in: vault)]
///     let page = exporter.html(items)
///     page.warnings   // attachments that could not be embedded
public struct Exporter: Sendable {
    /// The locale dates are written in (`ko_KR`).
    public var locale: String
    /// The zone message times are shown in.
    public var timeZone: TimeZone
    /// The vault's folder: where `attachments/` is. `nil` embeds no attachment.
    public var vaultRoot: String?
    /// Told after each item is done (`exporting`, items): never printed here.
    public var onProgress: ProgressHandler?

    public init(locale: String, timeZone: TimeZone, vaultRoot: String? = nil) {
        self.locale = locale
        self.timeZone = timeZone
        self.vaultRoot = vaultRoot
    }

    /// Dates in the vault's locale and zone; attachments from its folder.
    public init(vault: Vault) {
        self.init(locale: vault.config.locale, timeZone: vault.config.timeZone, vaultRoot: vault.root)
    }

    // MARK: Markdown

    /// One Markdown document: the items in order, separated by `---`.
    public func markdown(_ items: [ExportItem]) -> String {
        var out = ""
        for (k, item) in items.enumerated() {
            if k > 0 { Exporter.appendBlock("---", to: &out) }
            for part in parts(of: item) { Exporter.appendBlock(part.markdown, to: &out) }
            reportProgress(k + 1, of: items.count)
        }
        if !out.isEmpty, out.utf8.last != 10 { out += "\n" }
        return out
    }

    /// Tells `onProgress` that `done` of `total` items are exported.
    func reportProgress(_ done: Int, of total: Int) {
        onProgress?(ProgressEvent("exporting", done: done, of: total, unit: "items"))
    }

    /// A block of an item: the Markdown of its heading, of one message, or of its body.
    struct Part {
        enum Kind: Equatable {
            /// The item's headings (and a diary entry's tags).
            case head
            /// One message: its heading and body.
            case message(Role)
            /// A diary entry's body.
            case body
        }
        var kind: Kind
        var markdown: String
        /// A message that is not the conversation itself (`kind=` in its header: a model's
        /// `thoughts`, a `tool-call`, a `tool-result`, a `hidden` or `sidechain` message, as
        /// `vault import` marks them): its heading and body apart, shown folded in HTML.
        var folded: (kind: String, heading: String, body: String)? = nil
    }

    /// The `kind=` values whose messages an HTML export shows folded (`<details>`).
    static let foldedKinds: Set<String> = ["thoughts", "tool-call", "tool-result", "hidden", "sidechain", "summary"]

    /// The blocks `item` is made of, in order.
    func parts(of item: ExportItem) -> [Part] {
        switch item {
        case .diaryEntry(let entry, let day):
            var head =
                "# " + Exporter.inline(day.map { DateText.heading($0, locale: locale) } ?? entry.heading ?? entry.title)
            if let title = entry.frontMatter?.string("title"), !title.isEmpty {
                head += "\n\n## " + Exporter.inline(title)
            }
            let tags = entry.tags.map { $0.replacingOccurrences(of: "`", with: "") }.filter { !$0.isEmpty }
            if !tags.isEmpty {
                head += "\n\n" + tags.map { "`#\($0)`" }.joined(separator: " ")
            }
            var parts = [Part(kind: .head, markdown: head)]
            let body = entry.body.trimmingCharacters(in: .newlines)
            if !body.isEmpty { parts.append(Part(kind: .body, markdown: body)) }
            return parts
        case .room(let room):
            var parts = [Part(kind: .head, markdown: "# " + Exporter.inline(room.title))]
            for message in room.messages {
                let heading = messageHeading(message)
                var text = "### " + Exporter.inline(heading)
                let body = Exporter.demotingHeadings(room.body(of: message, marking: Exporter.unreadHeaderMark))
                if !body.isEmpty { Exporter.appendBlock(body, to: &text) }
                var part = Part(kind: .message(message.role), markdown: text)
                if let kind = message.header.attribute("kind"), Exporter.foldedKinds.contains(kind) {
                    part.folded = (kind, heading, body)
                }
                parts.append(part)
            }
            return parts
        }
    }

    /// `🧑 user · 2026년 11월 21일 토요일 오전 9:31`, with the author (`author=`, a shared room),
    /// else the model (or `offline, no model`) for a reply, and the status of a failed or interrupted message.
    ///
    /// Its words are the locale's (`ListingWords`): `🧑 사용자 · …`, `· 중단됨`.
    func messageHeading(_ message: Message) -> String {
        let words = ListingWords.of(locale)
        var line =
            "\(message.role.icon) \(words.role(message.role)) · "
            + DateText.header(message.timestamp, locale: locale, timeZone: timeZone)
        if let author = message.author {
            // A shared room: who wrote it (a person, or the model that answered).
            line += " · " + author.name
        } else if message.role == .assistant {
            if message.header.attribute("provider") == "offline" {
                line += " · " + words.offline
            } else if let model = message.header.attribute("model") {
                line += " · " + model
            }
        }
        if let status = message.status { line += " · " + (status == "interrupted" ? words.interruptedMark : status) }
        // What an imported message is when it is not the conversation itself.
        if let kind = message.header.attribute("kind") { line += " · " + kind }
        return line
    }

    /// A message header vault could not read, kept as text in the message above it: a quoted
    /// line that says so, with the line as written.
    ///
    ///     > ⚠️ line 14: the message header has an invalid timestamp "2026-13-01T09:00:00+09:00"; kept as text: ## 🧑 user · …
    static func unreadHeaderMark(_ line: String, _ problem: FormatProblem) -> String {
        "> ⚠️ line \(problem.line): " + inline(problem.message) + "; kept as text: " + inline(line)
    }

    /// `markdown` with every ATX (`## x`) and setext (`x` over `===`/`---`) heading outside code
    /// blocks made `levels` deeper (at most `######`): a message's `## heading` stays below the
    /// `###` message header it belongs to, in the Markdown and the HTML made from it.
    ///
    ///     Exporter.demotingHeadings("## Plan\ntext")   // "##### Plan\ntext"
    static func demotingHeadings(_ markdown: String, by levels: Int = 3) -> String {
        var lines = markdown.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var fence: (character: Character, count: Int)?
        var i = 0
        func hashes(_ level: Int) -> String { String(repeating: "#", count: min(6, level + levels)) }
        while i < lines.count {
            let line = lines[i]
            let indent = line.prefix { $0 == " " }.count
            let text = line.dropFirst(indent)
            if indent < 4, let first = text.first, first == "`" || first == "~" {
                let run = text.prefix { $0 == first }.count
                if run >= 3 {
                    if let open = fence {
                        if open.character == first, run >= open.count,
                            text.dropFirst(run).allSatisfy({ $0 == " " || $0 == "\t" || $0 == "\r" })
                        {
                            fence = nil
                        }
                    } else if first == "~" || !text.dropFirst(run).contains("`") {
                        fence = (first, run)
                    }
                    i += 1
                    continue
                }
            }
            if fence != nil || indent >= 4 {
                i += 1
                continue
            }
            // ATX: 1 to 6 '#', then a space, a tab or the end of the line.
            let marks = text.prefix { $0 == "#" }.count
            let after = text.dropFirst(marks)
            if (1...6).contains(marks), after.isEmpty || after.first == " " || after.first == "\t" || after == "\r" {
                lines[i] = String(line.prefix(indent)) + hashes(marks) + after
                i += 1
                continue
            }
            // Setext: a paragraph line, then a line of '=' (level 1) or '-' (level 2) alone.
            if i + 1 < lines.count, !text.trimmingCharacters(in: .whitespaces).isEmpty, !isBlockStart(text) {
                let under = lines[i + 1].trimmingCharacters(in: .whitespaces)
                let below = lines[i + 1].prefix { $0 == " " }.count
                if below < 4, let mark = under.first, mark == "=" || mark == "-", under.allSatisfy({ $0 == mark }),
                    i == 0 || lines[i - 1].trimmingCharacters(in: .whitespaces).isEmpty
                {
                    let level = mark == "=" ? 1 : 2
                    lines[i] = hashes(level) + " " + text.trimmingCharacters(in: .whitespaces)
                    lines.remove(at: i + 1)
                }
            }
            i += 1
        }
        return lines.joined(separator: "\n")
    }

    /// Whether a line starts a block a setext underline cannot turn into a heading: a list
    /// item, a quote, a table row, or a thematic break.
    private static func isBlockStart(_ text: Substring) -> Bool {
        guard let first = text.first else { return false }
        if ">|".contains(first) { return true }
        if "-*+".contains(first), text.dropFirst().first == " " { return true }
        if first.isNumber {
            let rest = text.drop { $0.isNumber }
            if let dot = rest.first, dot == "." || dot == ")", rest.dropFirst().first == " " { return true }
        }
        return false
    }

    /// Appends `block` to `text` as a Markdown block of its own: after a blank line.
    static func appendBlock(_ block: String, to text: inout String) {
        if !text.isEmpty {
            // Byte-wise: to Swift "\r\n" is one character, and hasSuffix("\n") would miss it.
            let tail = Array(text.utf8.suffix(2))
            if tail.last != 10 {
                text += "\n\n"
            } else if !(tail.count == 2 && tail[0] == 10) {
                text += "\n"
            }
        }
        text += block
    }

    /// `text` as literal Markdown inline text on one line: punctuation that could start
    /// emphasis, a link, code, HTML or a table cell is backslash-escaped.
    static func inline(_ text: String) -> String {
        var out = ""
        for ch in text {
            switch ch {
            case "\r\n", "\n", "\r", "\t": out.append(" ")
            case "\\", "`", "*", "_", "[", "]", "<", ">", "!", "#", "|", "~", "&":
                out.append("\\")
                out.append(ch)
            default: out.append(ch)
            }
        }
        return out.trimmingCharacters(in: .whitespaces)
    }
}
