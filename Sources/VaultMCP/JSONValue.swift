import Foundation

/// A JSON value as the protocol carries it: what a request's `params` hold, what a result is
/// made of.
///
/// Read with `JSONDecoder` (which keeps `true` and `1` apart), written by `serialized` with the
/// keys sorted and DEL and the C1 controls escaped (as `vault search --json` writes them), so a
/// line of the server's output is one message and nothing a terminal would obey.
package enum JSONValue: Sendable, Equatable, Decodable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    package init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let i = try? c.decode(Int.self) {
            self = .int(i)
        } else if let d = try? c.decode(Double.self) {
            self = .double(d)
        } else if let s = try? c.decode(String.self) {
            self = .string(s)
        } else if let a = try? c.decode([JSONValue].self) {
            self = .array(a)
        } else {
            self = .object(try c.decode([String: JSONValue].self))
        }
    }

    /// The value of a JSON text, or nil when it is not JSON.
    package static func parse(_ bytes: [UInt8]) -> JSONValue? {
        try? JSONDecoder().decode(JSONValue.self, from: Data(bytes))
    }

    package subscript(key: String) -> JSONValue? {
        if case .object(let o) = self { return o[key] }
        return nil
    }

    package var string: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    package var int: Int? {
        switch self {
        case .int(let i): return i
        case .double(let d) where d == d.rounded() && abs(d) < 1e15: return Int(d)
        default: return nil
        }
    }

    package var bool: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    package var array: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    package var object: [String: JSONValue]? {
        if case .object(let o) = self { return o }
        return nil
    }

    /// The value as one line of JSON text.
    package var serialized: String {
        var out: [UInt8] = []
        append(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    func append(to out: inout [UInt8]) {
        switch self {
        case .null: out += "null".utf8
        case .bool(let b): out += (b ? "true" : "false").utf8
        case .int(let i): out += String(i).utf8
        case .double(let d): out += (d.isFinite ? String(d) : "null").utf8
        case .string(let s): JSONValue.appendString(s, to: &out)
        case .array(let a):
            out.append(UInt8(ascii: "["))
            for (k, v) in a.enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                v.append(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let o):
            out.append(UInt8(ascii: "{"))
            for (k, key) in o.keys.sorted().enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                JSONValue.appendString(key, to: &out)
                out.append(UInt8(ascii: ":"))
                o[key]!.append(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// `text` as a JSON string: `"` and `\` escaped, control characters, DEL and the C1
    /// controls as `\uXXXX` (or `\n`, `\t`, …). Never a raw line feed: one message, one line.
    static func appendString(_ text: String, to out: inout [UInt8]) {
        out.append(0x22)
        let hex = Array("0123456789abcdef".utf8)
        for scalar in text.unicodeScalars {
            let v = scalar.value
            switch v {
            case 0x22: out += #"\""#.utf8
            case 0x5C: out += #"\\"#.utf8
            case 0x0A: out += #"\n"#.utf8
            case 0x0D: out += #"\r"#.utf8
            case 0x09: out += #"\t"#.utf8
            case 0x00..<0x20, 0x7F, 0x80...0x9F, 0x2028, 0x2029:
                out += #"\u"#.utf8
                for shift in [12, 8, 4, 0] { out.append(hex[Int((v >> UInt32(shift)) & 0xF)]) }
            default:
                out += String(scalar).utf8
            }
        }
        out.append(0x22)
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    package init(stringLiteral value: String) { self = .string(value) }
    package init(booleanLiteral value: Bool) { self = .bool(value) }
    package init(integerLiteral value: Int) { self = .int(value) }
    package init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    package init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    package init(nilLiteral: ()) { self = .null }
}

extension JSONValue {
    /// A value made from something `Encodable` (a `RoomSummary`, a `HistoryEntry`), through its
    /// own coding keys.
    static func encoding<T: Encodable>(_ value: T) -> JSONValue {
        guard let data = try? JSONEncoder().encode(value),
            let v = try? JSONDecoder().decode(JSONValue.self, from: data)
        else { return .null }
        return v
    }

    /// `.string`, or `.null` for nil.
    static func optional(_ s: String?) -> JSONValue { s.map(JSONValue.string) ?? .null }
}
