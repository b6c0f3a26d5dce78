/// One message of a room: who, when, and what.
public struct Message: Sendable, Hashable {
    public var header: MessageHeader
    /// 1-based line of the header in the file (0 for a message not yet written).
    public var line: Int
    private var storage: Body

    /// A body is kept as bytes of the (already validated) file until it is asked for:
    /// parsing a room then never copies or re-validates the text of its messages.
    private enum Body: Sendable, Hashable {
        case text(String)
        case bytes([UInt8], Range<Int>, escaped: Bool)
    }

    public init(header: MessageHeader, body: String, line: Int = 0) {
        self.header = header
        self.line = line
        self.storage = .text(body)
    }

    init(header: MessageHeader, file: [UInt8], bodyRange: Range<Int>, mayBeEscaped: Bool, line: Int) {
        self.header = header
        self.line = line
        self.storage = .bytes(file, bodyRange, escaped: mayBeEscaped)
    }

    /// The text of the message, unescaped, byte for byte as it was given.
    public var body: String {
        get {
            switch storage {
            case .text(let s): return s
            case .bytes(let file, let range, let escaped):
                let text = String(decoding: file[range], as: UTF8.self)
                return escaped ? BodyEscaping.unescape(text) : text
            }
        }
        set { storage = .text(newValue) }
    }

    /// Size of the body in bytes, without decoding it.
    public var bodyByteCount: Int {
        switch storage {
        case .text(let s): return s.utf8.count
        case .bytes(_, let range, _): return range.count
        }
    }

    public static func == (a: Message, b: Message) -> Bool {
        a.header == b.header && a.line == b.line && a.body == b.body
    }

    public func hash(into h: inout Hasher) {
        h.combine(header)
        h.combine(body)
    }

    public var role: Role { header.role }
    public var id: String { header.id }
    public var timestamp: Timestamp { header.timestamp }

    /// The message's status attribute (`failed`, `interrupted`), if any.
    public var status: String? { header.attribute("status") }

    /// What the message is when it is not the conversation itself: its header's `kind=`
    /// (`thoughts`, `tool-call`, `tool-result`, `hidden`, `sidechain`, `summary`; FORMAT.md,
    /// "Message kinds"); nil for what its role's writer said. A role filter (`vault search
    /// --role user`, MCP `search` `role`) matches only messages without a kind: a tool's output
    /// Claude Code logs as `user` is not the person's words.
    public var kind: String? { header.attribute("kind") }
}

/// How a message's kind is shown where its role would be (`vault show`: `🔧 tool-call`).
package enum MessageKind {
    /// The kind with its icon; a kind vault does not know is shown as written.
    package static func label(_ kind: String) -> String {
        let icons = [
            "thoughts": "💭", "tool-call": "🔧", "tool-result": "📋", "hidden": "🙈", "sidechain": "🔀", "summary": "📝",
        ]
        return (icons[kind] ?? "🏷️") + " " + kind
    }
}

/// A message to be written: the tool fills in the id and the header's display date.
public struct MessageDraft: Sendable, Hashable {
    public var role: Role
    public var body: String
    public var timestamp: Timestamp
    public var attributes: [MessageHeader.Attribute]
    public var displaySuffix: String?
    /// The message's id when the writer must not pick a new one (an imported message's id is
    /// made from its source's ids, so two machines importing one export write the same file);
    /// nil: a new random id (`Identifier.newMessageID`).
    public var id: String?

    /// - Parameter displaySuffix: text shown after the date in the header (e.g. the model's name).
    public init(
        role: Role, body: String, timestamp: Timestamp, attributes: [MessageHeader.Attribute] = [],
        displaySuffix: String? = nil, id: String? = nil
    ) {
        self.role = role
        self.body = body
        self.timestamp = timestamp
        self.attributes = attributes
        self.displaySuffix = displaySuffix
        self.id = id
    }
}
