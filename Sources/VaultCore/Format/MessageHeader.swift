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
            return classifyCandidate(b.string(start..<e))
        }
        if first == UInt8(ascii: "<") {
            return b.hasPrefix("<!-- vault:prompt", at: start, end: e) && b.hasSuffix("-->", start: start, end: e)
                ? .promptMarker : .text
        }
        return .text
    }

    static let roles: [String: Role] = ["user": .user, "assistant": .assistant, "system": .system]

    private static func classifyCandidate(_ t: String) -> LineClass {
        // t starts with "## " and ends with " -->" (trailing blanks removed).
        guard let open = t.range(of: " <!-- ", options: .backwards) else { return .text }
        let head = t[t.index(t.startIndex, offsetBy: 3)..<open.lowerBound]
        let commentEnd = t.index(t.endIndex, offsetBy: -4)
        guard open.upperBound <= commentEnd else { return .text }
        let comment = t[open.upperBound..<commentEnd]
        guard let dot = head.range(of: " ·") else { return .text }
        let words = head[..<dot.lowerBound].split(separator: " ", omittingEmptySubsequences: false)
        guard words.count == 1 || words.count == 2, let roleWord = words.last, !roleWord.isEmpty,
            roleWord.utf8.allSatisfy({ $0 >= 97 && $0 <= 122 })
        else { return .text }
        let fields = comment.split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count >= 2, let c = fields[0].utf8.first, c >= 48, c <= 57, fields[1].hasPrefix("m-") else {
            return .text
        }
        // From here on the line is a header candidate: every problem is an error.
        guard let role = roles[String(roleWord)] else {
            return .invalidHeader("has an unknown role '\(roleWord)' (use user, assistant or system)")
        }
        guard let timestamp = Timestamp(rfc3339: fields[0]) else {
            return .invalidHeader(
                "has an invalid timestamp \"\(fields[0])\" (write RFC 3339 with an offset, like 2026-11-21T09:31:07+09:00)")
        }
        guard Identifier.isMessageID(fields[1]) else {
            return .invalidHeader("has an invalid id \"\(fields[1])\" (write m- and 4 to 40 letters or digits)")
        }
        var attributes: [Attribute] = []
        for field in fields.dropFirst(2) {
            guard let eq = field.firstIndex(of: "="), eq != field.startIndex, field.index(after: eq) != field.endIndex,
                let k = field.utf8.first, k >= 97, k <= 122
            else {
                return .invalidHeader("has a malformed attribute \"\(field)\" (write key=value)")
            }
            attributes.append(Attribute(String(field[..<eq]), String(field[field.index(after: eq)...])))
        }
        var display = head[dot.upperBound...]
        if display.first == " " { display = display.dropFirst() }
        let icon = words.count == 2 ? String(words[0]) : nil
        return .header(
            MessageHeader(
                icon: icon, role: role, display: String(display), timestamp: timestamp, id: String(fields[1]),
                attributes: attributes))
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
