/// Random identifiers for messages (`m-…`) and diary entries (`d-…`).
///
/// Twelve Crockford base-32 characters (60 random bits): short enough to read,
/// long enough that two machines writing to the same room offline do not pick
/// the same id.
package enum Identifier {
    static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)

    /// A new message id, like `m-01JPA3K8Z4QX`.
    package static func newMessageID() -> String { "m-" + randomBody() }
    /// A new diary entry id, like `d-01JPA3K8Z4QX`.
    package static func newEntryID() -> String { "d-" + randomBody() }

    /// A message id made from 60 given bits (an imported message's, from its source's ids).
    package static func messageID(bits: UInt64) -> String { "m-" + body(bits) }
    /// A diary entry id made from 60 given bits.
    package static func entryID(bits: UInt64) -> String { "d-" + body(bits) }

    static func randomBody() -> String {
        var generator = SystemRandomNumberGenerator()
        return body(generator.next() as UInt64)
    }

    /// Twelve characters for the low 60 bits of `bits`.
    static func body(_ bits: UInt64) -> String {
        var chars = [UInt8](repeating: 0, count: 12)
        for i in 0..<12 { chars[i] = alphabet[Int((bits >> (UInt64(i) * 5)) & 31)] }
        return String(decoding: chars, as: UTF8.self)
    }

    /// True when `text` is a message id: `m-` and 4 to 40 ASCII letters or digits.
    package static func isMessageID(_ text: String) -> Bool {
        Array(text.utf8).withUnsafeBufferPointer { isMessageID($0) }
    }

    static func isMessageID(_ u: UnsafeBufferPointer<UInt8>) -> Bool {
        guard u.count >= 6, u.count <= 42, u[0] == UInt8(ascii: "m"), u[1] == UInt8(ascii: "-") else { return false }
        return u.dropFirst(2).allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) }
    }
}
