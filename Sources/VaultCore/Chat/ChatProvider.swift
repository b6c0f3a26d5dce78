/// What a chat provider is sent: the system prompt and the conversation so far.
public struct ChatRequest: Sendable, Hashable {
    public struct Turn: Sendable, Hashable {
        public var role: Role
        public var content: String
        /// Images sent with the message (to vision-capable models), as `data:` URLs.
        public var images: [String]
        public init(role: Role, content: String, images: [String] = []) {
            self.role = role
            self.content = content
            self.images = images
        }
    }

    public var model: String
    public var turns: [Turn]

    public init(model: String, turns: [Turn]) {
        self.model = model
        self.turns = turns
    }
}

/// How a reply ended, when it ended without a failure.
public struct ReplyEnding: Sendable, Hashable {
    /// Why the model stopped before it was done, when it did: the server's `finish_reason`
    /// (`length`: its limit on the reply's length; `content_filter`: its filter). The reply is
    /// saved marked `truncated=<reason>`, and `vault retry` asks the model to go on.
    public var truncation: String?

    public init(truncation: String? = nil) { self.truncation = truncation }

    /// A reply the model finished.
    public static let complete = ReplyEnding()
}

/// Something that answers a conversation: the built-in offline provider, or an
/// OpenAI-compatible server (`VaultChat`).
public protocol ChatProvider: Sendable {
    /// The name written into the `provider=` attribute of replies.
    var name: String { get }
    /// Text shown after the date in the reply's header.
    func label(model: String) -> String
    /// Answers `request`, handing each piece of text to `onText` as it arrives. The provider
    /// keeps none of the text: a reply can be longer than memory (the turn writes it to a file
    /// as it comes, `ReplySpool`).
    func reply(to request: ChatRequest, onText: (String) -> Void) throws(ProviderFailure) -> ReplyEnding
}

/// The built-in provider that works with no network and no model.
///
/// Its replies say plainly that they come from no model, and its messages are
/// marked `provider=offline` in the room, so an offline reply is never taken
/// for a model's. It exists so a new vault and the quickstart work anywhere.
public struct OfflineProvider: ChatProvider {
    public init() {}

    public var name: String { "offline" }

    public func label(model: String) -> String { "offline, no model" }

    public func reply(to request: ChatRequest, onText: (String) -> Void) throws(ProviderFailure) -> ReplyEnding {
        let last = request.turns.last { $0.role == .user }?.content ?? ""
        let words = last.split(whereSeparator: { $0.isWhitespace }).count
        let characters = last.count
        let exchanged = request.turns.filter { $0.role != .system }.count
        let quoted = last.split(separator: "\n", omittingEmptySubsequences: false).prefix(3).map { "> " + $0 }
            .joined(separator: "\n")
        let text = """
            (offline) This reply comes from vault's built-in offline provider, not from a model: \
            nothing was sent anywhere.

            Your message has \(words) word\(words == 1 ? "" : "s") and \(characters) characters; \
            it is message \(exchanged) of this room.

            \(quoted)

            To talk to a model, name a provider in vault.yml or in the room's front-matter.
            """
        // Hand it over in word-sized pieces, as a streaming server would.
        var piece = ""
        for ch in text {
            piece.append(ch)
            if ch == " " || ch == "\n" {
                onText(piece)
                piece = ""
            }
        }
        if !piece.isEmpty { onText(piece) }
        return .complete
    }

    /// The model the offline provider answers as, when nothing names one (FORMAT.md,
    /// "Configuration"). Any other model named for a turn is a real model, which the offline
    /// provider never stands in for.
    public static let model = "echo"
}
