/// What a chat provider is sent: the system prompt and the conversation so far.
public struct ChatRequest: Sendable, Hashable {
    public struct Turn: Sendable, Hashable {
        package var role: Role
        package var content: String
        /// Images sent with the message (to vision-capable models), as `data:` URLs.
        package var images: [String]
        package init(role: Role, content: String, images: [String] = []) {
            self.role = role
            self.content = content
            self.images = images
        }
    }

    /// How the model is to choose its words: the room's sampling settings, sent with the request.
    /// Each is nil (or empty) when the room does not set it, and is then not sent: the server's
    /// default applies.
    public struct Sampling: Sendable, Hashable {
        /// `temperature`, 0–2.
        public var temperature: Double?
        /// `top_p`, 0–1.
        public var topP: Double?
        /// `max_tokens`, at least 1.
        public var maxTokens: Int?
        /// `presence_penalty`, −2–2.
        public var presencePenalty: Double?
        /// `frequency_penalty`, −2–2.
        public var frequencyPenalty: Double?
        /// `seed`.
        public var seed: Int?
        /// `stop`: texts that end the reply.
        public var stop: [String]

        public init(
            temperature: Double? = nil, topP: Double? = nil, maxTokens: Int? = nil, presencePenalty: Double? = nil,
            frequencyPenalty: Double? = nil, seed: Int? = nil, stop: [String] = []
        ) {
            self.temperature = temperature
            self.topP = topP
            self.maxTokens = maxTokens
            self.presencePenalty = presencePenalty
            self.frequencyPenalty = frequencyPenalty
            self.seed = seed
            self.stop = stop
        }

        /// The sampling settings of a room's front-matter (`room set` checked them; a value a
        /// person wrote by hand is checked here, with the same rules).
        ///
        /// - Throws: `VaultError.malformed` naming the file, the key's line and what to write,
        ///   for a value of the wrong type or range: a turn never sends a setting it cannot read,
        ///   nor leaves it out.
        package static func of(_ frontMatter: FrontMatter?, path: String) throws(VaultError) -> Sampling {
            guard let frontMatter else { return Sampling() }
            var problems: [FormatProblem] = []
            func value(_ key: String) -> String? {
                switch frontMatter[key] {
                case nil:
                    return nil
                case .string(let text)?:
                    if let expected = RoomSetting.named(key)?.problem(with: text) {
                        problems.append(problem(key, "'\(text)': \(expected)"))
                        return nil
                    }
                    return text.trimmingCharacters(in: .whitespaces)
                case .list?, .other?:
                    problems.append(problem(key, "write one value"))
                    return nil
                }
            }
            func problem(_ key: String, _ reason: String) -> FormatProblem {
                FormatProblem(path: path, line: line(key), kind: .invalidSetting(key: key, reason: reason))
            }
            func line(_ key: String) -> Int { frontMatter.entries.first { $0.key == key }?.line ?? 1 }
            var sampling = Sampling()
            sampling.temperature = value("temperature").flatMap(Double.init)
            sampling.topP = value("top_p").flatMap(Double.init)
            sampling.maxTokens = value("max_tokens").flatMap { Int($0) }
            sampling.presencePenalty = value("presence_penalty").flatMap(Double.init)
            sampling.frequencyPenalty = value("frequency_penalty").flatMap(Double.init)
            sampling.seed = value("seed").flatMap { Int($0) }
            switch frontMatter["stop"] {
            case .string(let text)?:
                if text.isEmpty { problems.append(problem("stop", "write the text that ends the reply")) }
                sampling.stop = text.isEmpty ? [] : [text]
            case .list(let texts)?:
                sampling.stop = texts
            case .other?:
                problems.append(problem("stop", "write a text, or a list of texts"))
            case nil:
                break
            }
            if !problems.isEmpty { throw VaultError.malformed(problems) }
            return sampling
        }
    }

    public var model: String
    public var turns: [Turn]
    /// The room's sampling settings.
    public var sampling: Sampling

    public init(model: String, turns: [Turn], sampling: Sampling = Sampling()) {
        self.model = model
        self.turns = turns
        self.sampling = sampling
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
package struct OfflineProvider: ChatProvider {
    package init() {}

    package var name: String { "offline" }

    package func label(model: String) -> String { "offline, no model" }

    package func reply(to request: ChatRequest, onText: (String) -> Void) throws(ProviderFailure) -> ReplyEnding {
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
    package static let model = "echo"
}
