#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A room file, parsed: front-matter, preamble, messages and the pending prompt.
///
/// `RoomFile` keeps the file's bytes; it never re-renders what it read.
/// Writing an untouched `RoomFile` gives back the same bytes, appending adds
/// bytes after the last message, and changing a setting rewrites only that
/// key's lines (FORMAT.md, "Room files").
///
///     var room = try RoomFile(parsing: bytes, path: "rooms/busan.md")
///     let updated = room.appending([reply], style: style)
public struct RoomFile: Sendable {
    public let path: String
    /// The file as read.
    public let bytes: [UInt8]
    public let hasByteOrderMark: Bool
    public let lineEnding: LineEnding
    public let frontMatter: FrontMatter?
    /// Text between the front-matter and the first message, as written.
    public let preamble: String
    public let messages: [Message]
    /// Byte offset of the prompt marker line that ends the conversation, if the file has one.
    public let promptMarkerOffset: Int?
    /// Text typed below the prompt marker, as written (`nil` without a marker).
    public let pendingText: String?
    /// Stray prompt markers found while reading.
    let markerWarnings: [FormatProblem]
    /// Message headers that could not be read (an invalid timestamp, id or role), when the
    /// room was read with `readingWhatCan`: each such line is kept as text of the message
    /// above it. Empty for a room read with `init(parsing:)`, which refuses them.
    public let unreadHeaders: [FormatProblem]
    /// Set when the room was read without the middle of its file (`readEnd`): `bytes` is the
    /// file's head (up to the end of the front-matter) followed by its end, `messages` are the
    /// last messages only, and `preamble` is not known.
    public let elision: Elision?

    /// The part of a file a room read with `readEnd` leaves out.
    public struct Elision: Sendable, Equatable {
        /// Where it starts, in the file and in `bytes`: the end of the front-matter.
        package var offset: Int
        /// Its length in bytes.
        package var count: Int
        /// The line feeds in it.
        package var lines: Int
    }

    /// The offset in the file of an offset in `bytes`.
    public func fileOffset(_ offset: Int) -> Int {
        guard let e = elision, offset >= e.offset else { return offset }
        return offset + e.count
    }

    /// Problems that do not stop the file from being read (`vault check` reports them):
    /// stray prompt markers and message ids used twice.
    public var warnings: [FormatProblem] {
        var out = markerWarnings
        if frontMatter?.lacksOpening == true {
            out.append(FormatProblem(path: path, line: 1, kind: .noOpeningFrontMatter))
        }
        var firstLineOfID: [String: Int] = [:]
        for m in messages {
            if let first = firstLineOfID[m.id] {
                out.append(FormatProblem(path: path, line: m.line, kind: .duplicateMessageID(m.id, firstLine: first)))
            } else {
                firstLineOfID[m.id] = m.line
            }
        }
        for c in conflicts {
            out.append(FormatProblem(path: path, line: c.other.line, kind: .unsettledConflict(c.original.id, other: c.other.id, firstLine: c.original.line)))
        }
        return out.sorted { $0.line < $1.line }
    }

    /// The pending prompt, without surrounding blank lines, or `nil` when there is none.
    public var pendingPrompt: String? {
        guard let text = pendingText else { return nil }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }

    /// The title from the front-matter, else the file name without `.md`.
    public var title: String {
        if let t = frontMatter?.string("title"), !t.isEmpty { return t }
        return VaultPath.stem(of: path)
    }

    /// Parses a room file.
    ///
    /// - Throws: `VaultError.malformed` with every error found (line numbers included).
    /// - Parameter elision: for the head and end of a file read without its middle (`readEnd`).
    public init(parsing bytes: [UInt8], path: String, elision: Elision? = nil) throws(VaultError) {
        if let markers = ConflictMarkers.problem(in: bytes, path: path) { throw VaultError.malformed([markers]) }
        do {
            self = try RoomFile.parse(bytes, path: path, elision: elision)
        } catch {
            throw VaultError.malformed(error.problems)
        }
    }

    /// The room as far as it can be read, for a reader (`vault show`, `vault export`): a message
    /// header with an invalid part stays in the text of the message above it and is listed in
    /// `unreadHeaders`, so one bad timestamp never hides the rest of the room. Any other problem
    /// is thrown as `init(parsing:)` throws it. Never write what this returns.
    ///
    ///     let room = try RoomFile.readingWhatCan(bytes, path: "rooms/busan.md")
    ///     room.unreadHeaders   // [rooms/busan.md:14: the message header has an invalid timestamp …]
    public static func readingWhatCan(_ bytes: [UInt8], path: String) throws(VaultError) -> RoomFile {
        if let markers = ConflictMarkers.problem(in: bytes, path: path) { throw VaultError.malformed([markers]) }
        do {
            return try RoomFile.parse(bytes, path: path, keepingUnreadHeaders: true)
        } catch {
            throw VaultError.malformed(error.problems)
        }
    }

    /// `message`'s body with each unread header inside it (`unreadHeaders`) passed through
    /// `mark`, which gets the line as written and its problem.
    public func body(of message: Message, marking mark: (String, FormatProblem) -> String) -> String {
        let body = message.body
        guard let k = messages.firstIndex(where: { $0.line == message.line }) else { return body }
        let end = k + 1 < messages.count ? messages[k + 1].line : Int.max
        let inside = unreadHeaders.filter { $0.line > message.line && $0.line < end }
        guard !inside.isEmpty else { return body }
        var lines = body.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var from = 0
        for problem in inside {
            let text = lineText(problem.line)
            guard let i = lines[from...].firstIndex(where: { $0 == text || $0 == text + "\r" }) else { continue }
            lines[i] = mark(text, problem)
            from = i + 1
        }
        return lines.joined(separator: "\n")
    }

    /// The text of the file's 1-based line `number`, without its line ending.
    func lineText(_ number: Int) -> String {
        var line = 1 + (elision?.lines ?? 0)
        var start = 0
        while line < number, let nl = bytes[start...].firstIndex(of: 10) {
            start = nl + 1
            line += 1
        }
        var end = bytes[start...].firstIndex(of: 10) ?? bytes.count
        if end > start, bytes[end - 1] == 13 { end -= 1 }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    /// Every problem in a room file, errors and warnings.
    public static func problems(in bytes: [UInt8], path: String) -> [FormatProblem] {
        if let markers = ConflictMarkers.problem(in: bytes, path: path) { return [markers] }
        do {
            return try parse(bytes, path: path).warnings
        } catch {
            return error.problems
        }
    }

    init(
        path: String, bytes: [UInt8], bom: Bool, lineEnding: LineEnding, frontMatter: FrontMatter?, preamble: String,
        messages: [Message], promptMarkerOffset: Int?, pendingText: String?, warnings: [FormatProblem],
        elision: Elision? = nil, unreadHeaders: [FormatProblem] = []
    ) {
        self.unreadHeaders = unreadHeaders
        self.elision = elision
        self.path = path
        self.bytes = bytes
        self.hasByteOrderMark = bom
        self.lineEnding = lineEnding
        self.frontMatter = frontMatter
        self.preamble = preamble
        self.messages = messages
        self.promptMarkerOffset = promptMarkerOffset
        self.pendingText = pendingText
        self.markerWarnings = warnings
    }

    static func parse(
        _ bytes: [UInt8], path: String, elision: Elision? = nil, keepingUnreadHeaders: Bool = false
    ) throws(FormatProblemList) -> RoomFile {
        let result: Result<RoomFile, FormatProblemList> = bytes.withUnsafeBufferPointer { b in
            do throws(FormatProblemList) {
                return .success(
                    try parse(b, bytes: bytes, path: path, elision: elision, keepingUnreadHeaders: keepingUnreadHeaders))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    private static func parse(
        _ b: UnsafeBufferPointer<UInt8>, bytes: [UInt8], path: String, elision: Elision?, keepingUnreadHeaders: Bool
    ) throws(FormatProblemList) -> RoomFile {
        if let bad = UTF8Check.firstInvalidByte(b) {
            throw FormatProblemList([FormatProblem(path: path, line: b.lineNumber(of: bad), kind: .invalidUTF8)])
        }
        let bom = b.count >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF
        let start = bom ? 3 : 0
        let lineEnding = LineEnding.detect(b, from: start)
        var problems: [FormatProblem] = []
        var unreadHeaders: [FormatProblem] = []
        var frontMatter: FrontMatter?
        do throws(FormatProblemList) {
            frontMatter =
                try FrontMatter.parse(b, from: start, path: path)
                ?? FrontMatter.parseWithoutOpening(b, from: start, path: path)
        } catch {
            if error.problems.contains(where: { $0.kind == .unclosedFrontMatter }) { throw error }
            problems += error.problems
        }
        do throws(FormatProblem) {
            _ = try frontMatter?.time("created", path: path)
        } catch {
            problems.append(error)
        }
        let bodyStart = frontMatter?.range.upperBound ?? start
        var line = 1 + (elision?.lines ?? 0)
        if let fm = frontMatter {
            for i in fm.range where b[i] == 10 { line += 1 }
        }

        // One pass over the lines: find headers and prompt markers.
        struct Boundary {
            var lineStart: Int
            var next: Int
            var line: Int
            var header: MessageHeader?
        }
        var boundaries: [Boundary] = []
        var i = bodyStart
        while i < b.count {
            let nl = b.firstNewline(from: i)
            let next = nl.map { $0 + 1 } ?? b.count
            let first = b[i]
            if first == UInt8(ascii: "#") || first == UInt8(ascii: "<") {
                switch MessageHeader.classify(b, i, b.contentEnd(lineStart: i, newline: nl), file: bytes) {
                case .text: break
                case .promptMarker: boundaries.append(Boundary(lineStart: i, next: next, line: line, header: nil))
                case .header(let h): boundaries.append(Boundary(lineStart: i, next: next, line: line, header: h))
                case .invalidHeader(let why):
                    let problem = FormatProblem(path: path, line: line, kind: .invalidHeader(why))
                    if keepingUnreadHeaders { unreadHeaders.append(problem) } else { problems.append(problem) }
                }
            }
            line += 1
            i = next
        }
        if !problems.isEmpty { throw FormatProblemList(problems) }

        var warnings: [FormatProblem] = []
        var messages: [Message] = []
        messages.reserveCapacity(boundaries.count)
        let firstHeader = boundaries.first { $0.header != nil }
        // The marker that ends the conversation: the last boundary, when it is a marker.
        let marker = boundaries.last.flatMap { $0.header == nil ? $0 : nil }
        let preambleEnd = firstHeader?.lineStart ?? marker?.lineStart ?? b.count
        let preamble = b.string(bodyStart..<preambleEnd)
        let lastIndex = boundaries.count - 1
        for (k, boundary) in boundaries.enumerated() {
            guard let header = boundary.header else {
                if k != lastIndex {
                    warnings.append(FormatProblem(path: path, line: boundary.line, kind: .strayPromptMarker))
                }
                continue
            }
            // The content runs to the next header or the final marker; stray markers stay in the text.
            var end = b.count
            for j in (k + 1)..<boundaries.count where boundaries[j].header != nil || j == lastIndex {
                end = boundaries[j].lineStart
                break
            }
            let content = unframe(b, boundary.next, end, lineEnding)
            // Only a body with a backslash can hold an escaped line.
            let mayBeEscaped =
                memchr(b.baseAddress! + content.lowerBound, Int32(UInt8(ascii: "\\")), content.count) != nil
            messages.append(
                Message(
                    header: header, file: bytes, bodyRange: content, mayBeEscaped: mayBeEscaped, line: boundary.line))
        }
        return RoomFile(
            path: path, bytes: bytes, bom: bom, lineEnding: lineEnding, frontMatter: frontMatter, preamble: preamble,
            messages: messages, promptMarkerOffset: marker?.lineStart,
            pendingText: marker.map { b.string($0.next..<b.count) }, warnings: warnings, elision: elision,
            unreadHeaders: unreadHeaders)
    }

    /// The body's bytes within a message's content: one leading line ending and up to
    /// two trailing ones are framing (FORMAT.md, "Message bodies and framing").
    static func unframe(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, _ eol: LineEnding) -> Range<Int> {
        var s = start
        var e = end
        if s < e, b[s] == 10 {
            s += 1
        } else if eol == .crlf, s + 1 < e, b[s] == 13, b[s + 1] == 10 {
            // Only the file's own line ending is framing (FORMAT.md): in an LF file a carriage
            // return there is the body's first character. Read as framing, a body "\r" that ended
            // the file lost it once a message was appended after it (fuzzing).
            s += 2
        }
        for _ in 0..<2 {
            if e > s, b[e - 1] == 10 {
                e -= 1
                if eol == .crlf, e > s, b[e - 1] == 13 { e -= 1 }
            }
        }
        return s..<e
    }
}
