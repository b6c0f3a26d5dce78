/// One chat turn: the person's message is saved, the provider answers, the answer is saved.
///
/// The user's message is written (and the lock released) *before* the provider is
/// asked, so a failure or a crash during the reply never loses what the person
/// typed. The reply is appended to the file as it is on disk then: an edit a
/// person saved in the meantime is kept. A failed reply is never written as a
/// reply: the turn ends with the user's message unanswered (what `vault retry`
/// sends again), and text that had arrived before a failure is kept, marked
/// `status=interrupted`, and never sent back to a model. A reply the server cut short
/// (`finish_reason: length`) is saved marked `truncated=<reason>`; it is sent as context
/// like any reply, and `vault retry` asks the model to go on from it.
///
/// The reply is written to a file as it arrives (`ReplySpool`) and copied from there into the
/// room: a turn's memory does not grow with the reply.
public struct ChatTurn {
    public let vault: Vault
    public let roomPath: String
    public let provider: any ChatProvider
    /// The model to ask (from `--model`, the room, the provider or the vault).
    public let model: String

    public init(vault: Vault, roomPath: String, provider: any ChatProvider, model: String) {
        self.vault = vault
        self.roomPath = roomPath
        self.provider = provider
        self.model = model
    }

    public struct Outcome: Sendable {
        public var prompt: Message?
        public var reply: SavedReply
    }

    /// A reply as saved in the room (its text, which can be long, is in the file only).
    public struct SavedReply: Sendable {
        public var header: MessageHeader
        /// The header's line in the file (1-based).
        public var line: Int
        /// Why the server cut it short (`length`, `content_filter`), when it did.
        public var truncation: String?
    }

    /// Sends `message`, or the room's pending prompt when `message` is `nil`, with `attachments`
    /// (paths of files to copy into the vault and link from the message).
    public func run(message: String?, attachments: [String] = [], onText: (String) -> Void) throws(VaultError) -> Outcome {
        let (prompt, request, written, attached) = try ChatTurn.retryingIfChangedOnDisk {
            () throws(VaultError) -> (Message, ChatRequest, Written, [String]) in
            try vault.changing { () throws(VaultError) -> (Message, ChatRequest, Written, [String]) in
                let (room, stamp) = try readRoom()
                let usePending = message == nil
                guard var text = (message ?? room.pendingPrompt).map(ChatTurn.tidy), !text.isEmpty || !attachments.isEmpty else {
                    throw VaultError.invalidArgument(
                        "nothing to send: give a message (`vault chat \(VaultPath.stem(of: roomPath)) \"…\"`), pipe one in, or type it below the prompt marker at the end of \(roomPath)")
                }
                // The header's date formatter (ICU's start-up, about a millisecond) is made while
                // the repository is still being opened on the other core.
                _ = vault.headerDisplay(vault.now())
                // Commit what the person changed by hand first (the file itself is not touched).
                try vault.history?.prepare([roomPath])
                var attached: [String] = []
                for file in attachments {
                    let stored = try Attachments.store(file, in: vault)
                    attached.append(stored.path)
                    text += (text.isEmpty ? "" : "\n\n") + stored.markdown
                }
                let draft = MessageDraft(role: .user, body: text, timestamp: vault.now())
                let change = room.appendingAtEnd([draft], consumingPendingPrompt: usePending, display: vault.headerDisplay)
                Trace.mark("turn: message appended")
                // Only over the version read: a save made in an editor meanwhile is never overwritten.
                let after = try vault.replaceTail(
                    of: roomPath, from: change.offset, with: change.bytes, mark: change.mark, expecting: stamp)
                vault.remember(lines: change.room, stamp: after)
                Trace.mark("turn: room written")
                let request = makeRequest(room: room, upTo: room.messages + change.messages)
                return (change.messages[0], request, Written(room: change.room, stamp: after), attached)
            }
        }
        let reply = try ask(request, after: written, added: 2, attached: attached, onText: onText)
        return Outcome(prompt: prompt, reply: reply)
    }

    /// The room as the turn left it on disk, and the stamp of that version.
    struct Written {
        var room: RoomFile
        var stamp: FileIO.Stamp
    }

    /// The room's settings and as many of its last messages as its context budget sends
    /// (a long room is not read whole; see `RoomFile.readEnd`).
    func readRoom() throws(VaultError) -> (room: RoomFile, stamp: FileIO.Stamp) {
        try RoomFile.readEnd(vault.absolute(roomPath), path: roomPath, facts: vault.facts(of: roomPath)) { room in
            let budget = ChatTurn.budget(of: room)
            return ChatTurn.pick(room.messages, maxMessages: budget.messages, maxTokens: budget.tokens).full
        }
    }

    /// Runs `step` again (up to three times in all) when the room changed on disk while it was
    /// being written: the step re-reads the room, so the person's save and the turn both stay.
    static func retryingIfChangedOnDisk<T>(_ step: () throws(VaultError) -> T) throws(VaultError) -> T {
        var attempt = 1
        while true {
            do {
                return try step()
            } catch .changedOnDisk(let path) where attempt < 3 {
                Trace.mark("turn: \(path) changed on disk while being written; again")
                attempt += 1
            }
        }
    }

    /// Sends the room's last message again when it is an unanswered user message (after a
    /// failed turn); the reply is appended after it.
    public func retry(onText: (String) -> Void) throws(VaultError) -> Outcome {
        let (request, written) = try vault.changing { () throws(VaultError) -> (ChatRequest, Written) in
            try vault.history?.prepare([roomPath])
            let (room, stamp) = try readRoom()
            let answered = room.messages.filter { $0.status == nil }
            // An unanswered message is sent again; a reply the server cut short is sent as it is,
            // last, for the model to go on from.
            guard let last = answered.last, last.role == .user || last.header.attribute("truncated") != nil else {
                throw VaultError.invalidArgument(
                    "nothing to retry in \(roomPath): its last message has a reply. Send a new one with `vault chat`.")
            }
            return (makeRequest(room: room, upTo: room.messages), Written(room: room, stamp: stamp))
        }
        let reply = try ask(request, after: written, added: 1, onText: onText)
        return Outcome(prompt: nil, reply: reply)
    }

    /// Asks the provider and appends its reply (or what arrived of it) to the room, which is
    /// as `written` left it unless someone changed the file in the meantime.
    private func ask(
        _ request: ChatRequest, after written: Written, added: Int, attached: [String] = [], onText: (String) -> Void
    ) throws(VaultError) -> SavedReply {
        var failure: ProviderFailure?
        var ending = ReplyEnding.complete
        var spool: ReplySpool?
        do {
            spool = try ReplySpool(folder: vault.root + "/" + VaultPath.state)
        } catch {
            // Nowhere to put a reply: the message written above is committed, unanswered.
            failure = ProviderFailure(.unsaved, "the reply could not be saved: \(error.description)")
        }
        if let spool {
            do {
                ending = try provider.reply(to: request) { piece in
                    spool.append(piece)
                    onText(piece)
                }
            } catch {
                failure = error
            }
            spool.finish()
            if let problem = spool.problem {
                failure = ProviderFailure(.unsaved, "the reply could not be saved: \(problem)")
            }
        }
        // Blank lines around the text are not part of it; a reply of none is no reply.
        let body = spool?.body
        if failure == nil && body == nil {
            let why = ending.truncation.map { " (finish_reason: \($0))" } ?? ""
            failure = ProviderFailure(.malformed, "the server's reply has no text\(why)")
        }
        let truncation = failure == nil ? ending.truncation.map(ChatTurn.attributeValue) : nil
        Trace.mark("turn: reply received")
        let title = written.room.title
        // The version the first half of the turn left; after a save in an editor, the version
        // committed on the person's behalf.
        var base = written.stamp
        var count = added
        let saved = try ChatTurn.retryingIfChangedOnDisk { () throws(VaultError) -> SavedReply? in
            try vault.changing { () throws(VaultError) -> SavedReply? in
                var room = written.room
                var stamp = written.stamp
                let onDisk = FileIO.stamp(of: vault.absolute(roomPath))
                let edited = onDisk != base
                if edited {
                    // Edited in the meantime (saved in an editor while the reply came): commit that
                    // state on its own before the reply, so the person's edit stays their own.
                    try vault.history?.commit([roomPath], message: "edit: \(roomPath) (while waiting for the reply)")
                    if base == written.stamp { count -= 1 }
                }
                // Not as this turn left it (edited now, or on an earlier try): its end read again.
                if onDisk != written.stamp {
                    (room, stamp) = try RoomFile.readEnd(vault.absolute(roomPath), path: roomPath) { _ in true }
                    if edited { base = stamp }
                }
                var appended: SavedReply?
                var total = count
                if let body {
                    var attributes: [MessageHeader.Attribute] = [
                        .init("model", ChatTurn.attributeValue(request.model)), .init("provider", ChatTurn.attributeValue(provider.name)),
                    ]
                    var label = provider.label(model: request.model)
                    if failure != nil {
                        attributes.append(.init("status", "interrupted"))
                        label += " · interrupted"
                    } else if let truncation {
                        attributes.append(.init("truncated", truncation))
                        label += " · truncated"
                    }
                    let draft = MessageDraft(
                        role: .assistant, body: "", timestamp: vault.now(), attributes: attributes,
                        displaySuffix: label)
                    let change = room.appendingAtEnd(draft, body: body, display: vault.headerDisplay)
                    appended = SavedReply(header: change.header, line: change.line, truncation: truncation)
                    Trace.mark("turn: reply appended")
                    let after = try vault.replaceTail(
                        of: roomPath, from: change.offset, with: change.parts, mark: change.mark, expecting: stamp)
                    vault.remember(lineFeeds: change.lineFeeds, of: roomPath, stamp: after)
                    Trace.mark("turn: room written")
                } else {
                    total -= 1
                }
                var message = "chat: \(title) (+\(total) message\(total == 1 ? "" : "s")"
                if let failure {
                    message += body == nil ? ", no reply: \(failure.kind.rawValue)" : ", reply \(failure.kind.rawValue)"
                } else if let truncation {
                    message += ", reply truncated: \(truncation)"
                }
                message += ")"
                if total > 0 || appended != nil || !attached.isEmpty {
                    try vault.history?.commit([roomPath] + attached, message: message)
                }
                return appended
            }
        }
        if let failure {
            throw VaultError.provider(failure.message, exitStatus: failure.exitStatus, kept: saved != nil)
        }
        return saved!
    }

    /// The room's context budget: `context_messages` and `context_tokens` in front-matter.
    static func budget(of room: RoomFile) -> (messages: Int, tokens: Int) {
        (
            room.frontMatter?.string("context_messages").flatMap { Int($0) } ?? 200,
            room.frontMatter?.string("context_tokens").flatMap { Int($0) } ?? 64_000
        )
    }

    /// The most recent usable messages that fit the budget, newest first; `full` when the
    /// budget, not the messages, ran out (so older messages would not be sent anyway).
    static func pick(_ messages: [Message], maxMessages: Int, maxTokens: Int) -> (picked: [Message], full: Bool) {
        var picked: [Message] = []
        var tokens = 0
        for m in messages.reversed() where m.status == nil {
            let cost = ChatTurn.approximateTokens(m.bodyByteCount)
            if !picked.isEmpty && (picked.count >= maxMessages || tokens + cost > maxTokens) { return (picked, true) }
            picked.append(m)
            tokens += cost
        }
        return (picked, false)
    }

    /// The request for a room: the system prompt and as many recent messages as the room's
    /// budget allows (`context_messages`, `context_tokens` in front-matter). History is never
    /// deleted to fit; the budget only limits what is sent.
    func makeRequest(room: RoomFile, upTo messages: [Message]) -> ChatRequest {
        var turns: [ChatRequest.Turn] = []
        let budget = ChatTurn.budget(of: room)
        let picked = ChatTurn.pick(messages, maxMessages: budget.messages, maxTokens: budget.tokens).picked
        if let system = room.frontMatter?.string("system"), !system.isEmpty {
            turns.append(.init(role: .system, content: system))
        }
        // Images linked from the newest user message go with it (unless the room says `vision: no`);
        // older ones are not sent again.
        let vision = !["no", "false", "off"].contains(room.frontMatter?.string("vision")?.lowercased() ?? "")
        let newestUser = picked.first { $0.role == .user }?.id
        for m in picked.reversed() {
            let images = vision && m.id == newestUser ? Attachments.images(in: m.body, vault: vault) : []
            turns.append(.init(role: m.role, content: m.body, images: images))
        }
        return ChatRequest(model: model, turns: turns)
    }

    /// About one token for every three bytes of UTF-8 (Hangul is about one per character).
    static func approximateTokens(_ bytes: Int) -> Int { bytes / 3 + 1 }

    /// A header attribute value: no spaces (FORMAT.md, "Message header").
    static func attributeValue(_ text: String) -> String {
        let cleaned = String(text.map { $0.isWhitespace ? "_" : $0 })
        return cleaned.isEmpty ? "unknown" : cleaned
    }

    /// Leading and trailing blank lines removed (spaces inside lines are kept).
    static func tidy(_ text: String) -> String {
        var lines = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map(Substring.init)
        while let first = lines.first, first.allSatisfy({ $0.isWhitespace }) { lines.removeFirst() }
        while let last = lines.last, last.allSatisfy({ $0.isWhitespace }) { lines.removeLast() }
        return lines.joined(separator: "\n")
    }
}
