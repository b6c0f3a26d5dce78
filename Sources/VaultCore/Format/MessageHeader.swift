#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one line that starts a message in a room file.
///
/// It carries the role, the time with its offset and the message id in a
/// strict, locale-free HTML comment, and a display date for people that is
/// never read back:
///
///     ## 🧑 user · 2026년 11월 21일 토요일 오전 9:31 <!-- 2026-11-21T09:31:07+09:00 m-01JPA3K8Z4QX -->
///
/// See FORMAT.md, "Message header", for the grammar.
public struct MessageHeader: Sendable, Hashable {
    public var icon: String?
    public var role: Role
    /// The locale-formatted text between `·` and `<!--`. Display only.
    public var display: String
    public var timestamp: Timestamp
    public var id: String
    /// `key=value` pairs after the id, in order.
    public var attributes: [Attribute]

    public struct Attribute: Sendable, Hashable {
        public var key: String
        public var value: String
        public init(_ key: String, _ value: String) {
            self.key = key
            self.value = value
        }
    }

    public init(icon: String?, role: Role, display: String, timestamp: Timestamp, id: String, attributes: [Attribute] = []) {
        self.icon = icon
        self.role = role
        self.display = display
        self.timestamp = timestamp
        self.id = id
        self.attributes = attributes
    }

    public func attribute(_ key: String) -> String? { attributes.first { $0.key == key }?.value }

    /// The header line, without a line ending.
    public var line: String {
        var s = "## "
        if let icon { s += icon + " " }
        s += role.rawValue + " · " + display + " <!-- " + timestamp.text + " " + id
        for a in attributes { s += " " + a.key + "=" + a.value }
        return s + " -->"
    }

    /// How a line of a room file reads.
    enum LineClass {
        /// Body text.
        case text
        /// The prompt marker.
        case promptMarker
        /// A valid message header.
        case header(MessageHeader)
        /// The shape of a header with an invalid part; the text says which.
        case invalidHeader(String)
    }

    /// Classifies the line `start..<end` (no line ending). Cheap for ordinary text:
    /// only lines that start with `## ` or `<!-- vault:prompt` are looked at further.
    static func classify(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> LineClass {
        let e = b.trimmedEnd(start, end)
        guard e - start >= 4 else { return .text }
        let first = b[start]
        if first == UInt8(ascii: "#") {
            guard b.hasPrefix("## ", at: start, end: e), b.hasSuffix(" -->", start: start, end: e) else { return .text }
            return classifyCandidate(b, start, e)
        }
        if first == UInt8(ascii: "<") {
            return b.hasPrefix("<!-- vault:prompt", at: start, end: e) && b.hasSuffix("-->", start: start, end: e)
                ? .promptMarker : .text
        }
        return .text
    }

    /// Looks at a line that starts with `## ` and ends with ` -->` (`start..<end`, trailing
    /// blanks removed). Byte-level: Foundation's string search is far too slow for the hot path.
    private static func classifyCandidate(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> LineClass {
        let commentEnd = end - 4  // start of " -->"
        // The last " <!-- " before the end.
        var open = commentEnd - 6
        while open >= start + 3, !b.hasPrefix(" <!-- ", at: open, end: commentEnd) { open -= 1 }
        guard open >= start + 3 else { return .text }
        let headStart = start + 3
        // The first " ·" (U+00B7 is C2 B7 in UTF-8) in the head.
        var dot = headStart
        while dot + 2 < open, !(b[dot] == 32 && b[dot + 1] == 0xC2 && b[dot + 2] == 0xB7) { dot += 1 }
        guard dot + 2 < open else { return .text }
        // One or two words before it: [icon] role.
        var space: Int?
        for i in headStart..<dot where b[i] == 32 {
            guard space == nil else { return .text }
            space = i
        }
        let roleStart = space.map { $0 + 1 } ?? headStart
        guard roleStart < dot, space != headStart,
            b[roleStart..<dot].allSatisfy({ $0 >= 97 && $0 <= 122 })
        else { return .text }
        // Fields of the comment, split at single spaces.
        var fields: [Range<Int>] = []
        var f = open + 6
        for i in (open + 6)...commentEnd where i == commentEnd || b[i] == 32 {
            fields.append(f..<i)
            f = i + 1
        }
        guard fields.count >= 2, !fields[0].isEmpty, b[fields[0].lowerBound] >= 48, b[fields[0].lowerBound] <= 57,
            b.hasPrefix("m-", at: fields[1].lowerBound, end: fields[1].upperBound)
        else { return .text }
        // From here on the line is a header candidate: every problem is an error.
        let roleWord = b.string(roleStart..<dot)
        guard let role = Role(rawValue: roleWord) else {
            return .invalidHeader("has an unknown role '\(roleWord)' (use user, assistant or system)")
        }
        let stampBytes = UnsafeBufferPointer(rebasing: b[fields[0]])
        guard let parsed = Timestamp.parse(stampBytes) else {
            return .invalidHeader(
                "has an invalid timestamp \"\(b.string(fields[0]))\" (write RFC 3339 with an offset, like 2026-11-21T09:31:07+09:00)")
        }
        let id = b.string(fields[1])
        guard Identifier.isMessageID(Substring(id)) else {
            return .invalidHeader("has an invalid id \"\(id)\" (write m- and 4 to 40 letters or digits)")
        }
        var attributes: [Attribute] = []
        for field in fields.dropFirst(2) {
            guard let eq = b[field].firstIndex(of: UInt8(ascii: "=")), eq != field.lowerBound, eq + 1 < field.upperBound,
                b[field.lowerBound] >= 97, b[field.lowerBound] <= 122
            else {
                return .invalidHeader("has a malformed attribute \"\(b.string(field))\" (write key=value)")
            }
            attributes.append(Attribute(b.string(field.lowerBound..<eq), b.string((eq + 1)..<field.upperBound)))
        }
        var displayStart = dot + 3
        if displayStart < open, b[displayStart] == 32 { displayStart += 1 }
        return .header(
            MessageHeader(
                icon: space.map { b.string(headStart..<$0) }, role: role, display: b.string(displayStart..<max(displayStart, open)),
                timestamp: Timestamp(parsed: parsed, text: b.string(fields[0])), id: id, attributes: attributes))
    }
}

/// Who wrote a message.
public enum Role: String, Sendable, Hashable, Codable, CaseIterable {
    case user, assistant, system

    /// The icon the tool writes in front of the role.
    public var icon: String {
        switch self {
        case .user: return "🧑"
        case .assistant: return "🤖"
        case .system: return "⚙️"
        }
    }
}

/// Escaping of body lines that would read as a header or the prompt marker (FORMAT.md, "Escaping").
///
/// Works on UTF-8 bytes and splits lines at `\n` only: Swift's `Character` treats `\r\n`
/// as one character, so splitting a `String` at `"\n"` would miss lines of CRLF text.
public enum BodyEscaping {
    /// True when the line `start..<end`, after removing all its leading backslashes, would be read as structure.
    static func isStructural(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Bool {
        var s = start
        while s < end, b[s] == UInt8(ascii: "\\") { s += 1 }
        switch MessageHeader.classify(b, s, end) {
        case .text: return false
        case .promptMarker, .header, .invalidHeader: return true
        }
    }

    /// The body as it is written to the file: one `\` added in front of each structural line.
    public static func escape(_ body: String) -> String {
        transform(body) { b, start, end in isStructural(b, start, end) ? .add : .keep }
    }

    /// The body as it was before `escape`.
    public static func unescape(_ stored: String) -> String {
        transform(stored) { b, start, end in
            start < end && b[start] == UInt8(ascii: "\\") && isStructural(b, start, end) ? .remove : .keep
        }
    }

    enum Change { case keep, add, remove }

    /// True when `-->` occurs in `b`.
    static func containsCommentEnd(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 2
        while i < b.count {
            let c = b[i]
            if c == UInt8(ascii: ">") {
                if b[i - 1] == UInt8(ascii: "-") && b[i - 2] == UInt8(ascii: "-") { return true }
                i += 1
            } else if c == UInt8(ascii: "-") {
                i += 1
            } else {
                i += 3
            }
        }
        return false
    }

    private static func transform(
        _ text: String, _ decide: (UnsafeBufferPointer<UInt8>, Int, Int) -> Change
    ) -> String {
        var copy = text
        return copy.withUTF8 { b -> String in
            // Only lines that end in "-->" can be structural; most bodies have none.
            guard b.count >= 4, containsCommentEnd(b) else { return text }
            var out: [UInt8] = []
            var changed = false
            var i = 0
            while i <= b.count {
                let nl = b.firstNewline(from: i)
                let end = nl ?? b.count
                let next = nl.map { $0 + 1 } ?? b.count + 1
                switch decide(b, i, end) {
                case .keep:
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: b[i..<min(next, b.count)]))
                case .add:
                    out.append(UInt8(ascii: "\\"))
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: b[i..<min(next, b.count)]))
                    changed = true
                case .remove:
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: b[(i + 1)..<min(next, b.count)]))
                    changed = true
                }
                i = next
            }
            return changed ? String(decoding: out, as: UTF8.self) : text
        }
    }
}
