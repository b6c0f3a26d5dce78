import Foundation
import VaultCore

/// A run of text in one style, part of a line the app draws.
package struct Span: Sendable, Equatable {
    package var text: String
    package var style: CellStyle

    package init(_ text: String, _ style: CellStyle = .plain) {
        self.text = text
        self.style = style
    }
}

/// One line of a screen's content: spans, and the message it belongs to (for a jump).
package struct TextLine: Sendable, Equatable {
    package var spans: [Span]
    package var messageID: String?

    package init(_ spans: [Span], messageID: String? = nil) {
        self.spans = spans
        self.messageID = messageID
    }

    package static let empty = TextLine([])
}

/// Wrapping text to a width, by display columns: at a space when the line has one, else between
/// characters (a long URL, Korean without spaces); tabs as four spaces; nothing cut.
package enum Wrap {
    package static func lines(_ text: String, width: Int) -> [String] {
        let width = max(width, 4)
        var out: [String] = []
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = raw.replacingOccurrences(of: "\t", with: "    ")
            if DisplayWidth.of(line) <= width {
                out.append(line)
                continue
            }
            var current: [Character] = []
            var used = 0
            var lastSpace: Int?
            for c in line {
                let w = DisplayWidth.of(c)
                if used + w > width {
                    if let space = lastSpace, space > 0 {
                        out.append(String(current[..<space]))
                        current = Array(current[(space + 1)...])
                    } else {
                        out.append(String(current))
                        current = []
                    }
                    used = current.reduce(0) { $0 + DisplayWidth.of($1) }
                    lastSpace = current.lastIndex(of: " ")
                }
                if c == " " { lastSpace = current.count }
                current.append(c)
                used += w
            }
            out.append(String(current))
        }
        return out
    }
}

/// A room's messages laid out for the screen: a divider wherever the day changes (`RoomTranscript`,
/// in the vault's locale and zone), each message's header (its time, who wrote it: the author, the
/// model, or the role in the vault's words; how it ended), its body wrapped to the width with
/// fenced code blocks set apart by a bar, and marks for a conflict version and an unverified
/// author.
package struct TranscriptLayout {
    package static func lines(
        _ messages: ArraySlice<Message>, width: Int, locale: String, zone: TimeZone, me: String?,
        unverified: [String: String], conflicts: Set<String>
    ) -> [TextLine] {
        let words = ListingWords.of(locale)
        let transcript = RoomTranscript(Array(messages), locale: locale, timeZone: zone)
        var out: [TextLine] = []
        for item in transcript.items {
            switch item {
            case .day(_, let text):
                let label = " \(text) "
                let side = max(2, (width - DisplayWidth.of(label)) / 2)
                out.append(.empty)
                out.append(
                    TextLine([Span(String(repeating: "─", count: side) + label + String(repeating: "─", count: side), .dim)]))
            case .message(let view):
                let m = view.message
                let who = view.author ?? words.role(m.role)
                var header = [Span(view.time + " ", .dim), Span(who, CellStyle(bold: true, color: TranscriptLayout.color(of: m, who: who, me: me)))]
                if let note = view.note { header.append(Span(" · " + note, .colored(3))) }
                if conflicts.contains(m.id) { header.append(Span(" · ⚠️ conflict version", .colored(3))) }
                if let why = unverified[m.id] { header.append(Span(" · ⚠️ unverified author: " + why, .colored(1))) }
                out.append(.empty)
                out.append(TextLine(header, messageID: m.id))
                out += body(m.body, width: width, id: m.id)
            }
        }
        return out
    }

    /// The most of a message's body laid out: its end (`body`).
    static let longestShown = 256 * 1024

    /// A message's body: its lines wrapped, two columns in; lines inside a fenced code block
    /// behind a bar, in the code color, not wrapped at spaces but cut into pieces. A reply of
    /// megabytes is shown from where its last `longestShown` bytes begin (a line's start), with a
    /// line saying how much is above it; the whole is in the file (Ctrl-E opens it).
    static func body(_ text: String, width: Int, id: String) -> [TextLine] {
        var layout = BodyLayout(width: width, id: id)
        var trimmed = Substring(text.hasSuffix("\n") ? String(text.dropLast()) : text)
        var out: [TextLine] = []
        let bytes = trimmed.utf8.count
        if bytes > longestShown {
            var start = trimmed.utf8.index(trimmed.utf8.endIndex, offsetBy: -longestShown)
            if let newline = trimmed.utf8[start...].firstIndex(of: UInt8(ascii: "\n")) {
                start = trimmed.utf8.index(after: newline)
            } else {
                // One long line: from a character's start.
                while String.Index(start, within: trimmed) == nil { start = trimmed.utf8.index(after: start) }
            }
            let above = trimmed.utf8.distance(from: trimmed.utf8.startIndex, to: start)
            let size = ByteCountFormatter.string(fromByteCount: Int64(above), countStyle: .file)
            out.append(TextLine([Span("  ⋯ \(size) above (Ctrl-E opens the room in your editor)", .dim)], messageID: id))
            trimmed = trimmed[start...]
        }
        for line in trimmed.split(separator: "\n", omittingEmptySubsequences: false) { layout.append(line) }
        return out + layout.lines
    }

    /// The author's color: you blue, a model green, the system dim; each other person one of
    /// four colors by name, the same in every room.
    static func color(of message: Message, who: String, me: String?) -> UInt8? {
        switch message.role {
        case .assistant: return 2
        case .system: return nil
        default:
            guard let me, message.author?.name != nil, who != me else { return 4 }
            let palette: [UInt8] = [5, 6, 3, 1]
            var hash = 0
            for u in who.unicodeScalars { hash = (hash &* 31 &+ Int(u.value)) & 0xFFFF }
            return palette[hash % palette.count]
        }
    }
}

/// A body laid out line by line, so a reply that streams in is laid out once per line as it
/// comes, not again whole for every piece.
struct BodyLayout {
    let width: Int
    let id: String
    private(set) var lines: [TextLine] = []
    private var inCode = false

    init(width: Int, id: String) {
        self.width = width
        self.id = id
    }

    /// The lines of one more line of the body.
    static func lines(of line: Substring, width: Int, id: String, inCode: inout Bool) -> [TextLine] {
        if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") {
            inCode.toggle()
            return [TextLine([Span("  "), Span(String(line), .dim)], messageID: id)]
        }
        if inCode {
            return Wrap.lines(String(line), width: width - 4).map {
                TextLine([Span("  "), Span("│ ", .dim), Span($0, .colored(6))], messageID: id)
            }
        }
        return Wrap.lines(String(line), width: width - 2).map { TextLine([Span("  " + $0)], messageID: id) }
    }

    mutating func append(_ line: Substring) {
        lines += BodyLayout.lines(of: line, width: width, id: id, inCode: &inCode)
    }

    /// The lines the unfinished last line would take, without keeping them.
    func preview(_ line: Substring) -> [TextLine] {
        var inCode = self.inCode
        return BodyLayout.lines(of: line, width: width, id: id, inCode: &inCode)
    }

    /// Keeps the last `count` lines only (a reply of megabytes is in the file, whole).
    mutating func keepLast(_ count: Int) {
        if lines.count > count * 2 { lines.removeFirst(lines.count - count) }
    }
}
