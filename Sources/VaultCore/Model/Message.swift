/// One message of a room: who, when, and what.
public struct Message: Sendable, Hashable {
    public var header: MessageHeader
    /// The text of the message, unescaped, byte for byte as it was given.
    public var body: String
    /// 1-based line of the header in the file (0 for a message not yet written).
    public var line: Int

    public init(header: MessageHeader, body: String, line: Int = 0) {
        self.header = header
        self.body = body
        self.line = line
    }

    public var role: Role { header.role }
    public var id: String { header.id }
    public var timestamp: Timestamp { header.timestamp }

    /// The message's status attribute (`failed`, `interrupted`), if any.
    public var status: String? { header.attribute("status") }
}

/// A message to be written: the tool fills in the id and the header's display date.
public struct MessageDraft: Sendable, Hashable {
    public var role: Role
    public var body: String
    public var timestamp: Timestamp
    public var attributes: [MessageHeader.Attribute]
    public var displaySuffix: String?

    /// - Parameter displaySuffix: text shown after the date in the header (e.g. the model's name).
    public init(
        role: Role, body: String, timestamp: Timestamp, attributes: [MessageHeader.Attribute] = [],
        displaySuffix: String? = nil
    ) {
        self.role = role
        self.body = body
        self.timestamp = timestamp
        self.attributes = attributes
        self.displaySuffix = displaySuffix
    }
}
