import CVaultScan

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
    public var role: Role
    public var timestamp: Timestamp
    public var id: String
    /// Icon, display text and attributes: read from the file's bytes only when asked for,
    /// so that reading a long room allocates next to nothing per message.
    private var details: Details

    private enum Details: Sendable {
        case values(icon: String?, display: String, attributes: [Attribute])
        case bytes([UInt8], icon: Range<Int>?, display: Range<Int>, attributes: Range<Int>)
    }

    public struct Attribute: Sendable, Hashable {
        package var key: String
        package var value: String
        package init(_ key: String, _ value: String) {
            self.key = key
            self.value = value
        }
    }

    public init(
        icon: String?, role: Role, display: String, timestamp: Timestamp, id: String, attributes: [Attribute] = []
    ) {
        self.role = role
        self.timestamp = timestamp
        self.id = id
        self.details = .values(icon: icon, display: display, attributes: attributes)
    }

    init(
        role: Role, timestamp: Timestamp, id: String, file: [UInt8], icon: Range<Int>?, display: Range<Int>,
        attributes: Range<Int>
    ) {
        self.role = role
        self.timestamp = timestamp
        self.id = id
        self.details = .bytes(file, icon: icon, display: display, attributes: attributes)
    }

    private var values: (icon: String?, display: String, attributes: [Attribute]) {
        switch details {
        case .values(let icon, let display, let attributes): return (icon, display, attributes)
        case .bytes(let file, let icon, let display, let attributes):
            let text = { (r: Range<Int>) in String(decoding: file[r], as: UTF8.self) }
            var list: [Attribute] = []
            for field in text(attributes).split(separator: " ") {
                if let eq = field.firstIndex(of: "=") {
                    list.append(Attribute(String(field[..<eq]), String(field[field.index(after: eq)...])))
                }
            }
            return (icon.map(text), text(display), list)
        }
    }

    /// Decoration before the role, e.g. 🧑.
    public var icon: String? {
        get { values.icon }
        set { let v = values; details = .values(icon: newValue, display: v.display, attributes: v.attributes) }
    }

    /// The locale-formatted text between `·` and `<!--`. Display only.
    public var display: String {
        get { values.display }
        set { let v = values; details = .values(icon: v.icon, display: newValue, attributes: v.attributes) }
    }

    /// `key=value` pairs after the id, in order.
    public var attributes: [Attribute] {
        get { values.attributes }
        set { let v = values; details = .values(icon: v.icon, display: v.display, attributes: newValue) }
    }

    public static func == (a: MessageHeader, b: MessageHeader) -> Bool {
        a.role == b.role && a.timestamp == b.timestamp && a.id == b.id && a.values == b.values
    }

    public func hash(into h: inout Hasher) {
        h.combine(id)
        h.combine(timestamp)
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

    /// The header the line `line` holds (its bytes, without the line ending), or nil when it
    /// holds none (body text, the prompt marker, a header with an invalid part).
    public static func parse(line: UnsafeBufferPointer<UInt8>) -> MessageHeader? {
        if case .header(let header) = classify(line, 0, line.count) { return header }
        return nil
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
    static func classify(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, file: [UInt8] = []) -> LineClass {
        let e = b.trimmedEnd(start, end)
        guard e - start >= 4 else { return .text }
        let first = b[start]
        if first == UInt8(ascii: "#") {
            guard b.hasPrefix("## ", at: start, end: e), b.hasSuffix(" -->", start: start, end: e) else { return .text }
            return classifyCandidate(b, start, e, file: file.isEmpty ? Array(b) : file)
        }
        if first == UInt8(ascii: "<") {
            return b.hasPrefix("<!-- vault:prompt", at: start, end: e) && b.hasSuffix("-->", start: start, end: e)
                ? .promptMarker : .text
        }
        return .text
    }

    /// Who wrote the message, when, and its id, from the header line `line` (its bytes, without
    /// the line ending); nil when it holds no valid header. What `parse(line:)` reads, without
    /// keeping the line's bytes for the icon, display text and attributes: for readers that
    /// meet many headers and want only these (a search's hits).
    public static func essentials(line b: UnsafeBufferPointer<UInt8>) -> (role: Role, timestamp: Timestamp, id: String)? {
        let e = b.trimmedEnd(0, b.count)
        guard e >= 4, b.hasPrefix("## ", at: 0, end: e), b.hasSuffix(" -->", start: 0, end: e),
            case .parts(let p) = candidateParts(b, 0, e)
        else { return nil }
        return (
            p.role, Timestamp(parsed: p.parsed, bytes: UnsafeBufferPointer(rebasing: b[p.stamp])), b.string(p.id)
        )
    }

    /// Where the parts of a header line are.
    private struct Parts {
        var role: Role
        var parsed: Timestamp.Parsed
        var stamp: Range<Int>
        var id: Range<Int>
        var icon: Range<Int>?
        var display: Range<Int>
        var attributes: Range<Int>
    }

    private enum Candidate {
        case text
        case invalid(String)
        case parts(Parts)
    }

    /// Looks at a line that starts with `## ` and ends with ` -->` (`start..<end`, trailing
    /// blanks removed). Byte-level: Foundation's string search is far too slow for the hot path.
    private static func classifyCandidate(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, file: [UInt8])
        -> LineClass
    {
        switch candidateParts(b, start, end) {
        case .text: return .text
        case .invalid(let problem): return .invalidHeader(problem)
        case .parts(let p):
            return .header(
                MessageHeader(
                    role: p.role, timestamp: Timestamp(parsed: p.parsed, bytes: UnsafeBufferPointer(rebasing: b[p.stamp])),
                    id: b.string(p.id), file: file, icon: p.icon, display: p.display, attributes: p.attributes))
        }
    }

    /// The parts of the header candidate `start..<end` (see `classifyCandidate`).
    private static func candidateParts(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Candidate {
        let commentEnd = end - 4  // start of " -->"
        // The last " <!-- " before the end: each `<` from the end (`vs_last_byte`), looked behind.
        var open = start + 2  // none
        let low = start + 4
        var limit = commentEnd - 4
        while limit > low, let base = b.baseAddress {
            let back = vs_last_byte(base + low, UInt8(ascii: "<"), limit - low)
            guard back < limit - low else { break }
            if b.hasPrefix(" <!-- ", at: low + back - 1, end: commentEnd) {
                open = low + back - 1
                break
            }
            limit = low + back
        }
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
        // The comment: timestamp, id, then attributes, split at single spaces.
        let stampStart = open + 6
        var stampEnd = stampStart
        while stampEnd < commentEnd, b[stampEnd] != 32 { stampEnd += 1 }
        let idStart = stampEnd + 1
        guard stampEnd > stampStart, idStart < commentEnd, b[stampStart] >= 48, b[stampStart] <= 57,
            b.hasPrefix("m-", at: idStart, end: commentEnd)
        else { return .text }
        var idEnd = idStart
        while idEnd < commentEnd, b[idEnd] != 32 { idEnd += 1 }
        // From here on the line is a header candidate: every problem is an error.
        guard let role = Role(bytes: UnsafeBufferPointer(rebasing: b[roleStart..<dot])) else {
            return .invalid("has an unknown role '\(b.string(roleStart..<dot))' (use user, assistant or system)")
        }
        guard let parsed = Timestamp.parse(UnsafeBufferPointer(rebasing: b[stampStart..<stampEnd])) else {
            return .invalid(
                "has an invalid timestamp \"\(b.string(stampStart..<stampEnd))\""
                    + " (write RFC 3339 with an offset, like 2026-11-21T09:31:07+09:00)"
            )
        }
        guard Identifier.isMessageID(UnsafeBufferPointer(rebasing: b[idStart..<idEnd])) else {
            return .invalid(
                "has an invalid id \"\(b.string(idStart..<idEnd))\" (write m- and 4 to 40 letters or digits)")
        }
        // Attributes: key=value, key starting with a lower-case letter, no empty parts.
        let attributesStart = min(idEnd + 1, commentEnd)
        var f = attributesStart
        while f < commentEnd {
            var e = f
            while e < commentEnd, b[e] != 32 { e += 1 }
            var eq = f
            while eq < e, b[eq] != UInt8(ascii: "=") { eq += 1 }
            guard eq > f, eq + 1 < e, b[f] >= 97, b[f] <= 122 else {
                return .invalid("has a malformed attribute \"\(b.string(f..<e))\" (write key=value)")
            }
            f = e + 1
        }
        var displayStart = dot + 3
        if displayStart < open, b[displayStart] == 32 { displayStart += 1 }
        return .parts(
            Parts(
                role: role, parsed: parsed, stamp: stampStart..<stampEnd, id: idStart..<idEnd,
                icon: space.map { headStart..<$0 }, display: displayStart..<max(displayStart, open),
                attributes: attributesStart..<commentEnd))
    }
}

/// Who wrote a message.
public enum Role: String, Sendable, Hashable, Codable, CaseIterable {
    case user, assistant, system

    init?(bytes b: UnsafeBufferPointer<UInt8>) {
        switch b.count {
        case 4 where b.elementsEqual("user".utf8): self = .user
        case 9 where b.elementsEqual("assistant".utf8): self = .assistant
        case 6 where b.elementsEqual("system".utf8): self = .system
        default: return nil
        }
    }

    /// The icon the tool writes in front of the role.
    public var icon: String {
        switch self {
        case .user: return "🧑"
        case .assistant: return "🤖"
        case .system: return "⚙️"
        }
    }
}

/// Escaping of body lines that would read as structure (FORMAT.md, "Escaping"): in a room, a
/// header, the prompt marker or a git conflict marker; in a diary entry, a conflict marker.
///
/// Works on UTF-8 bytes and splits lines at `\n` only: Swift's `Character` treats `\r\n`
/// as one character, so splitting a `String` at `"\n"` would miss lines of CRLF text.
///
///     BodyEscaping.escape("<<<<<<< HEAD\nmine\n=======\ntheirs\n>>>>>>> main")
///     // "\\<<<<<<< HEAD\nmine\n\\=======\ntheirs\n\\>>>>>>> main"
package enum BodyEscaping {
    /// What a body is framed in: which lines of it the file's reader would take as structure.
    package enum Frame: Sendable {
        /// A message of a room: headers, the prompt marker and conflict markers.
        case room
        /// A diary entry's body: conflict markers.
        case diary
    }

    /// True when the line `start..<end`, after removing all its leading backslashes, would be read as structure.
    static func isStructural(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, in frame: Frame = .room)
        -> Bool
    {
        var s = start
        while s < end, b[s] == UInt8(ascii: "\\") { s += 1 }
        if ConflictMarkers.marker(b, s, end) != nil { return true }
        guard frame == .room else { return false }
        switch MessageHeader.classify(b, s, end) {
        case .text: return false
        case .promptMarker, .header, .invalidHeader: return true
        }
    }

    /// The body as it is written to the file: one `\` added in front of each structural line.
    package static func escape(_ body: String, in frame: Frame = .room) -> String {
        transform(body, frame) { b, start, end in isStructural(b, start, end, in: frame) ? .add : .keep }
    }

    /// The body as it was before `escape`.
    package static func unescape(_ stored: String, in frame: Frame = .room) -> String {
        transform(stored, frame) { b, start, end in
            start < end && b[start] == UInt8(ascii: "\\") && isStructural(b, start, end, in: frame) ? .remove : .keep
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

    /// True when a line of `b`, after its leading backslashes, starts with seven of one of the
    /// marker characters `<`, `|`, `=`, `>`: the only lines that may be conflict markers.
    static func containsMarkerLike(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        while i < b.count {
            var s = i
            while s < b.count, b[s] == UInt8(ascii: "\\") { s += 1 }
            if s + 7 <= b.count {
                let c = b[s]
                if c == UInt8(ascii: "<") || c == UInt8(ascii: "|") || c == UInt8(ascii: "=") || c == UInt8(ascii: ">"),
                    (s + 1..<s + 7).allSatisfy({ b[$0] == c })
                {
                    return true
                }
            }
            guard let nl = b.firstNewline(from: s) else { return false }
            i = nl + 1
        }
        return false
    }

    private static func transform(
        _ text: String, _ frame: Frame, _ decide: (UnsafeBufferPointer<UInt8>, Int, Int) -> Change
    ) -> String {
        var copy = text
        return copy.withUTF8 { b -> String in
            // Only lines that end in "-->" or start like a conflict marker can be structural; most bodies have none.
            guard b.count >= 4, (frame == .room && containsCommentEnd(b)) || containsMarkerLike(b) else { return text }
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
