/// A key (or a paste) as the app understands it.
package enum Key: Equatable, Sendable {
    /// Printable text typed (one character, or several that came in one read).
    case text(String)
    /// A bracketed paste, whole, its line breaks kept (`ESC[200~` … `ESC[201~`).
    case paste(String)
    case enter
    /// Alt-Enter or Ctrl-J: a new line in the compose box.
    case newline
    case tab, backTab, backspace, delete, escape
    case up, down, left, right, home, end, pageUp, pageDown
    /// Ctrl and a letter (`ctrl("c")`), other than the ones named above.
    case ctrl(Character)
    /// Alt and a character.
    case alt(Character)
    /// A sequence the app does not know (a function key): ignored.
    case unknown
}

/// Bytes from the terminal to keys: UTF-8 text, control keys, CSI and SS3 sequences (xterm's,
/// which tmux, VTE, kitty, iTerm2 and the Linux console send), and bracketed pastes.
///
/// A lone ESC is ambiguous (the Esc key, or the start of a sequence cut across two reads): the
/// decoder keeps it until more bytes come or the caller says the wait is over (`flush`, after
/// a short `poll` timeout), as every terminal app does.
package struct KeyDecoder {
    private var pending: [UInt8] = []
    /// Inside a bracketed paste: what arrived of it.
    private var paste: [UInt8]?

    package init() {}

    /// Whether a lone ESC (or an unfinished sequence) waits for more bytes.
    package var isWaiting: Bool { !pending.isEmpty && paste == nil }

    /// The keys `bytes` complete.
    package mutating func feed(_ bytes: some Sequence<UInt8>) -> [Key] {
        pending += bytes
        var keys: [Key] = []
        while let (key, used) = next() {
            pending.removeFirst(used)
            if let key { keys.append(key) }
        }
        return KeyDecoder.joiningText(keys)
    }

    /// The wait for a sequence's end is over: a lone ESC is the Esc key.
    package mutating func flush() -> [Key] {
        guard paste == nil, !pending.isEmpty else { return [] }
        var keys: [Key] = []
        if pending.first == 0x1B {
            pending.removeFirst()
            keys.append(.escape)
        }
        keys += feed([])
        if !pending.isEmpty {
            // An unfinished sequence that never finished: dropped.
            pending.removeAll()
        }
        return keys
    }

    /// Consecutive text keys as one (a fast typist, or input arriving together).
    private static func joiningText(_ keys: [Key]) -> [Key] {
        var out: [Key] = []
        for key in keys {
            if case .text(let more) = key, case .text(let text)? = out.last {
                out[out.count - 1] = .text(text + more)
            } else {
                out.append(key)
            }
        }
        return out
    }

    /// The next key and the bytes it took; nil when more bytes are needed. A nil key with a
    /// count: bytes consumed that make no key (a paste's start).
    private mutating func next() -> (Key?, Int)? {
        if paste != nil { return pasted() }
        guard let first = pending.first else { return nil }
        switch first {
        case 0x1B:
            return escape()
        case 0x0D: return (.enter, 1)
        case 0x0A: return (.newline, 1)
        case 0x09: return (.tab, 1)
        case 0x7F, 0x08: return (.backspace, 1)
        case 0x00: return (.ctrl(" "), 1)
        case 0x01...0x1A: return (.ctrl(Character(Unicode.Scalar(first + 0x60))), 1)
        case 0x1C...0x1F: return (.unknown, 1)
        default:
            let length = KeyDecoder.utf8Length(first)
            guard pending.count >= length else { return nil }
            let bytes = pending[0..<length]
            guard let text = String(validating: bytes, as: UTF8.self) else { return (.unknown, 1) }
            return (.text(text), length)
        }
    }

    private mutating func escape() -> (Key?, Int)? {
        guard pending.count >= 2 else { return nil }
        let second = pending[1]
        switch second {
        case UInt8(ascii: "["):
            // CSI: parameters and intermediates, then a final byte 0x40–0x7E.
            var i = 2
            while i < pending.count, !(0x40...0x7E).contains(pending[i]) { i += 1 }
            guard i < pending.count else { return pending.count > 32 ? (.unknown, pending.count) : nil }
            let parameters = String(decoding: pending[2..<i], as: UTF8.self)
            let final = pending[i]
            let key = KeyDecoder.csi(parameters, final)
            if parameters == "200", final == UInt8(ascii: "~") {
                paste = []
                return (nil, i + 1)
            }
            return (key, i + 1)
        case UInt8(ascii: "O"):
            guard pending.count >= 3 else { return nil }
            switch pending[2] {
            case UInt8(ascii: "A"): return (.up, 3)
            case UInt8(ascii: "B"): return (.down, 3)
            case UInt8(ascii: "C"): return (.right, 3)
            case UInt8(ascii: "D"): return (.left, 3)
            case UInt8(ascii: "H"): return (.home, 3)
            case UInt8(ascii: "F"): return (.end, 3)
            case UInt8(ascii: "M"): return (.enter, 3)
            default: return (.unknown, 3)
            }
        case 0x0D, 0x0A: return (.newline, 2)
        case 0x1B: return (.escape, 1)
        case 0x7F: return (.unknown, 2)
        default:
            if second < 0x20 { return (.escape, 1) }
            let length = KeyDecoder.utf8Length(second)
            guard pending.count >= 1 + length else { return nil }
            guard let text = String(validating: pending[1..<(1 + length)], as: UTF8.self), let c = text.first else {
                return (.escape, 1)
            }
            return (.alt(c), 1 + length)
        }
    }

    private static func csi(_ parameters: String, _ final: UInt8) -> Key {
        let fields = parameters.split(separator: ";", omittingEmptySubsequences: false)
        let modifier = fields.count > 1 ? Int(fields[1]) ?? 1 : 1
        switch final {
        case UInt8(ascii: "A"): return .up
        case UInt8(ascii: "B"): return .down
        case UInt8(ascii: "C"): return .right
        case UInt8(ascii: "D"): return .left
        case UInt8(ascii: "H"): return .home
        case UInt8(ascii: "F"): return .end
        case UInt8(ascii: "Z"): return .backTab
        case UInt8(ascii: "u"):
            // kitty's and xterm's modifyOtherKeys: `13;2u` is Shift-Enter, `13;3u` Alt-Enter.
            if fields.first == "13" { return modifier > 1 ? .newline : .enter }
            if fields.first == "27" { return .escape }
            return .unknown
        case UInt8(ascii: "~"):
            switch fields.first {
            case "1", "7": return .home
            case "4", "8": return .end
            case "3": return .delete
            case "5": return .pageUp
            case "6": return .pageDown
            case "27" where fields.count > 2 && fields[2] == "13": return .newline
            default: return .unknown
            }
        default: return .unknown
        }
    }

    /// Inside a paste: everything up to `ESC[201~`, taken as text whatever it holds.
    private mutating func pasted() -> (Key?, Int)? {
        let end: [UInt8] = [0x1B, 0x5B, 0x32, 0x30, 0x31, 0x7E]
        if let at = KeyDecoder.find(end, in: pending) {
            let body = (paste ?? []) + pending[0..<at]
            paste = nil
            var text = String(decoding: body, as: UTF8.self)
            text = text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
            return (.paste(text), at + end.count)
        }
        // Keep the tail that could be the start of the end marker.
        let keep = min(pending.count, end.count - 1)
        let take = pending.count - keep
        guard take > 0 else { return nil }
        paste! += pending[0..<take]
        return (nil, take)
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for i in 0...(haystack.count - needle.count) where haystack[i] == needle[0] {
            if Array(haystack[i..<(i + needle.count)]) == needle { return i }
        }
        return nil
    }

    private static func utf8Length(_ lead: UInt8) -> Int {
        switch lead {
        case 0xF0...0xF7: return 4
        case 0xE0...0xEF: return 3
        case 0xC0...0xDF: return 2
        default: return 1
        }
    }
}
