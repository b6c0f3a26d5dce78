/// Who wrote a message: a person, a model, or an AI app writing through `vault mcp`.
///
/// Stored as the header's `author=` attribute (FORMAT.md, "Authors"), so vaults and versions of
/// vault that know nothing of authors read the room unchanged (unknown attributes are kept).
/// The value is the name's UTF-8 with every byte outside `A–Z a–z 0–9 . _ - @ +` and below 0x80
/// written `%XX`: `author=Kim%20Minsu`, `author=김민수`. Letters of any script stay as they are,
/// so `grep author=김민수` finds a person's messages.
public struct Author: Sendable, Hashable, CustomStringConvertible {
    /// The name as people see it: never empty, one line, no control or formatting characters.
    public let name: String

    /// The longest name in bytes; a longer one is refused rather than cut.
    public static let maximumBytes = 200

    /// An author named `name` (spaces around it removed), or nil when the name is empty, longer
    /// than `maximumBytes`, or holds a control or invisible formatting character (a line break,
    /// a bidirectional override that would make a terminal show another name).
    public init?(name: String) {
        let trimmed = name.trimmingSpaces
        guard !trimmed.isEmpty, trimmed.utf8.count <= Self.maximumBytes else { return nil }
        for scalar in trimmed.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .unassigned, .privateUse:
                return nil
            default: continue
            }
        }
        self.name = trimmed
    }

    /// The author an `author=` attribute names, or nil for a value that is not one
    /// (a broken `%` escape, bytes that are not UTF-8, a name `init(name:)` refuses).
    public init?(attributeValue value: String) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(value.utf8.count)
        var it = value.utf8.makeIterator()
        while let b = it.next() {
            guard b == UInt8(ascii: "%") else { bytes.append(b); continue }
            guard let hi = it.next().flatMap(Self.hexValue), let lo = it.next().flatMap(Self.hexValue) else { return nil }
            bytes.append(hi << 4 | lo)
        }
        guard let text = String(validating: bytes, as: UTF8.self), text == text.trimmingSpaces else { return nil }
        self.init(name: text)
    }

    /// The value written after `author=`.
    public var attributeValue: String {
        var out: [UInt8] = []
        out.reserveCapacity(name.utf8.count)
        let hex = Array("0123456789ABCDEF".utf8)
        for b in name.utf8 {
            if b >= 0x80 || Self.keptAsIs(b) {
                out.append(b)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(b >> 4)])
                out.append(hex[Int(b & 0xF)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    public var description: String { name }

    /// The header attribute naming this author.
    public var attribute: MessageHeader.Attribute { MessageHeader.Attribute(Self.attributeKey, attributeValue) }

    public static let attributeKey = "author"

    private static func keptAsIs(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"),
            UInt8(ascii: "@"), UInt8(ascii: "+"):
            return true
        default: return false
        }
    }

    private static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return b - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return b - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return b - UInt8(ascii: "a") + 10
        default: return nil
        }
    }
}

extension MessageHeader {
    /// Who wrote the message, when its header names someone (`author=`); nil for a header
    /// without one (every message written before authors existed) or with a value that is not a name.
    public var author: Author? { attribute(Author.attributeKey).flatMap(Author.init(attributeValue:)) }
}

extension Message {
    public var author: Author? { header.author }
}

extension MessageDraft {
    /// Who writes the message: sets (or, with nil, removes) its `author=` attribute.
    public var author: Author? {
        get { attributes.first { $0.key == Author.attributeKey }.flatMap { Author(attributeValue: $0.value) } }
        set {
            attributes.removeAll { $0.key == Author.attributeKey }
            if let newValue { attributes.insert(newValue.attribute, at: 0) }
        }
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s.removeFirst() }
        while let l = s.last, l.isWhitespace { s.removeLast() }
        return String(s)
    }
}
