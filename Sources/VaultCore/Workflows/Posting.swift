/// `vault say`: a person's message appended to a room without asking a model, as one change
/// (`say: 부산 여행 (Ada Kim)`).
///
/// The message carries its author (`author=`, FORMAT.md "Message header"), this machine's
/// person (`Vault.me`) unless another is given (an AI app writing through `vault mcp` names
/// itself). It goes through the change path a chat turn's message takes: the room's turn lock
/// (so it never lands between a question and its reply on this machine), the vault's lock,
/// hand edits committed first, the end of the file replaced in place crash-safely over the
/// version read (a save made meanwhile is never overwritten), and one commit. A reply to
/// another message (`replyingTo`) starts with a quote of it and carries `reply-to=<id>`.
///
/// ```swift
/// let posted = try Posting(vault: vault).post("도착했어!", to: "rooms/trip.md", as: Author(name: "Ada Kim"))
/// posted.message.author?.name  // "Ada Kim"
/// ```
public struct Posting {
    public let vault: Vault

    public init(vault: Vault) {
        self.vault = vault
    }

    /// What a post did.
    public struct Outcome: Sendable {
        /// The message as written (its id, header and line).
        public var message: Message
        /// The room it was written to.
        public var path: String
        /// Whether a commit was made (false for a vault opened without history).
        public var committed: Bool
    }

    /// The header attribute naming the message a reply answers.
    public static let replyToKey = "reply-to"
    /// Lines of the replied message its quote shows, and the longest such line (in characters).
    static let quotedLines = 3
    static let quotedWidth = 160

    /// Appends `text` (blank lines around it removed) to the room at `roomPath` as a message
    /// of `author`, with `attachments` (paths of files to copy into `attachments/` and link).
    ///
    /// - Parameters:
    ///   - author: who writes it; nil: this machine's person (`Vault.me`).
    ///   - replyingTo: the id of a message of the room this one answers (`m-…`).
    ///   - environment: where the user configuration is found, for `Vault.me`.
    /// - Throws: `VaultError.input(.emptyMessage)` for a blank message without attachments,
    ///   `.input(.noSuchMessage)` for a `replyingTo` the room does not hold, `.notARoom` for
    ///   a path that is not a room's; nothing is written then.
    public func post(
        _ text: String, to roomPath: String, as author: Author? = nil, replyingTo: String? = nil,
        attachments: [String] = [], environment: [String: String] = [:]
    ) throws(VaultError) -> Outcome {
        guard VaultPath.kind(of: roomPath) == .room else { throw VaultError.input(.notARoom(roomPath)) }
        let text = ChatTurn.tidy(text)
        guard !text.isEmpty || !attachments.isEmpty else { throw VaultError.input(.emptyMessage(room: roomPath)) }
        let author = try { () throws(VaultError) -> Author in
            if let author { return author }
            return try vault.me(environment: environment).author
        }()
        let lock = try VaultLock(turnIn: roomPath, of: vault, report: { [vault] in vault.report(.note($0)) })
        defer { withExtendedLifetime(lock) {} }
        try vault.rollOverIfLong(roomPath)
        return try ChatTurn.retryingIfChangedOnDisk { () throws(VaultError) -> Outcome in
            try vault.change([roomPath]) { change throws(VaultError) -> Outcome in
                // The end of the room, back to the replied message when there is one.
                let (room, stamp) = try RoomFile.readEnd(
                    vault.absolute(roomPath), path: roomPath, facts: vault.facts(of: roomPath)
                ) { room in
                    replyingTo.map { id in room.messages.contains { $0.id == id } } ?? true
                }
                if room.elision == nil { change.know(room.bytes, of: roomPath, stamp: stamp) }
                var attributes = [author.attribute]
                var body = text
                if let id = replyingTo {
                    // A message the room's file gave to its volumes is answered as well.
                    let earlier = room.elision != nil || room.messages.contains { $0.id == id } ? [] :
                        RoomVolumes.earlierMessages(ofRoom: roomPath, root: vault.root) { $0.contains { $0.id == id } }
                    guard let replied = (room.messages + earlier).first(where: { $0.id == id }) else {
                        throw VaultError.input(.noSuchMessage(id: id, room: roomPath))
                    }
                    attributes.append(.init(Posting.replyToKey, replied.id))
                    body = Posting.quote(replied) + (body.isEmpty ? "" : "\n\n" + body)
                }
                // What the person changed by hand is committed first, in the room's volumes too.
                change.include(RoomVolumes.paths(ofRoom: roomPath, root: vault.root))
                try change.commitHandEdits()
                for file in attachments {
                    let stored = try Attachments.store(file, in: change)
                    body += (body.isEmpty ? "" : "\n\n") + stored.markdown
                }
                let draft = MessageDraft(
                    role: .user, body: body, timestamp: vault.now(), attributes: attributes, displaySuffix: author.name)
                let appended = room.appendingAtEnd([draft], display: vault.headerDisplay)
                let after = try change.replaceTail(
                    of: roomPath, from: appended.offset, with: appended.bytes, mark: appended.mark, expecting: stamp)
                vault.remember(lines: appended.room, stamp: after)
                let committed = try change.commit(message: "say: \(room.title) (\(author.name))")
                return Outcome(message: appended.messages[0], path: roomPath, committed: committed)
            }
        }
    }

    /// Whether `text` asks the room's model: it starts with `@assistant`, or `@` and `model`
    /// (the model the room would ask), in any case, followed by a space, a line break or nothing.
    public static func asksModel(_ text: String, model: String?) -> Bool {
        let text = ChatTurn.tidy(text)
        guard text.hasPrefix("@") else { return false }
        let word = text.dropFirst().prefix { !$0.isWhitespace }.lowercased()
        return word == "assistant" || (model.map { !$0.isEmpty && word == $0.lowercased() } ?? false)
    }

    /// The quote a reply starts with: who wrote the replied message, its id, and its first lines.
    ///
    ///     > **Ada Kim** (m-0A1B2C3D4E5F):
    ///     > 내일 몇 시에 만나?
    static func quote(_ message: Message) -> String {
        var lines = ["> **\(Posting.writer(of: message))** (\(message.id)):"]
        let body = message.body.split(separator: "\n", omittingEmptySubsequences: true)
            .map { $0.trimmingSuffix("\r") }.filter { !$0.allSatisfy(\.isWhitespace) }
        for line in body.prefix(quotedLines) {
            lines.append("> " + (line.count > quotedWidth ? line.prefix(quotedWidth) + "…" : line))
        }
        if body.count > quotedLines { lines.append("> …") }
        return lines.joined(separator: "\n")
    }

    /// Who wrote a message, as people see it: its author, else the model of a reply, else its role.
    public static func writer(of message: Message) -> String {
        if let author = message.author { return author.name }
        if message.role == .assistant, let model = message.header.attribute("model") { return model }
        return message.role.rawValue
    }
}

extension Substring {
    fileprivate func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : String(self)
    }
}
