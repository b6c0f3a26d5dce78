/// One Server-Sent Event.
package struct ServerSentEvent: Sendable, Hashable {
    /// `event:` (default `message`).
    package var type: String
    /// The `data:` lines joined with `\n`.
    package var data: String
    /// The last `id:` seen so far in the stream.
    package var lastEventID: String
}

/// Decodes a `text/event-stream` as the WHATWG HTML standard says ("Parsing an event stream"),
/// from bytes that arrive in pieces of any size.
///
/// - Lines end with CRLF, LF or CR, also when a CR ends one piece and its LF starts the next.
/// - Lines are decoded as UTF-8 only once complete, so a character split between two network
///   reads is never corrupted.
/// - `:` starts a comment; `data:` lines accumulate; an empty line dispatches the event;
///   a leading byte-order mark is dropped; an event not ended by an empty line is not dispatched.
///
///     var decoder = EventStreamDecoder()
///     for chunk in chunks { for event in decoder.feed(chunk) { … } }
///     let rest = decoder.finish()   // events are only dispatched by blank lines: usually empty
package struct EventStreamDecoder: Sendable {
    private var pending: [UInt8] = []
    private var skipLineFeed = false
    private var atStart = true
    private var data: [String] = []
    private var hasData = false
    private var type = ""
    private var lastEventID = ""
    /// The `retry:` value in milliseconds, if the server sent one.
    package private(set) var retry: Int?
    /// Bytes of the `data:` lines of the event not yet dispatched.
    private var dataBytes = 0

    /// Bytes held for what is not complete yet: the unfinished line and the event's `data:`
    /// lines so far (a server that never ends a line or an event makes this grow).
    package var bufferedByteCount: Int { pending.count + dataBytes }

    package init() {}

    /// Feeds bytes; returns the events they complete.
    package mutating func feed(_ bytes: some Collection<UInt8>) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        pending.append(contentsOf: bytes)
        if atStart {
            if pending.count < 3 && [0xEF, 0xBB, 0xBF].starts(with: pending) { return [] }
            if pending.starts(with: [0xEF, 0xBB, 0xBF]) { pending.removeFirst(3) }
            atStart = false
        }
        var start = 0
        var i = 0
        while i < pending.count {
            let c = pending[i]
            if skipLineFeed {
                skipLineFeed = false
                if c == 10 {
                    i += 1
                    start = i
                    continue
                }
            }
            if c == 10 || c == 13 {
                line(pending[start..<i], into: &events)
                skipLineFeed = c == 13
                i += 1
                start = i
            } else {
                i += 1
            }
        }
        pending.removeFirst(start)
        return events
    }

    /// The end of the stream: an unterminated last line is processed; an event without its
    /// closing blank line is dropped, as the standard says. Returns whether one was dropped.
    @discardableResult
    package mutating func finish() -> Bool {
        var events: [ServerSentEvent] = []
        if !pending.isEmpty { line(pending[...], into: &events) }
        pending.removeAll()
        return hasData
    }

    private mutating func line(_ raw: ArraySlice<UInt8>, into events: inout [ServerSentEvent]) {
        if raw.isEmpty {
            if hasData {
                events.append(
                    ServerSentEvent(
                        type: type.isEmpty ? "message" : type, data: data.joined(separator: "\n"),
                        lastEventID: lastEventID))
            }
            data.removeAll(keepingCapacity: true)
            dataBytes = 0
            hasData = false
            type = ""
            return
        }
        if raw.first == UInt8(ascii: ":") { return }  // a comment
        let colon = raw.firstIndex(of: UInt8(ascii: ":"))
        let field = String(decoding: raw[raw.startIndex..<(colon ?? raw.endIndex)], as: UTF8.self)
        var valueStart = colon.map { $0 + 1 } ?? raw.endIndex
        if valueStart < raw.endIndex, raw[valueStart] == 32 { valueStart += 1 }
        let value = String(decoding: raw[valueStart...], as: UTF8.self)
        switch field {
        case "data":
            data.append(value)
            dataBytes += value.utf8.count
            hasData = true
        case "event":
            type = value
        case "id":
            if !value.contains("\u{0}") { lastEventID = value }
        case "retry":
            if !value.isEmpty, value.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) { retry = Int(value) }
        default:
            break
        }
    }
}
