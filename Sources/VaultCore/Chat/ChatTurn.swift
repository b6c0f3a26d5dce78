/// One chat turn: the person's message is saved, the provider answers, the answer is saved.
///
/// The user's message is written (and the lock released) *before* the provider is
/// asked, so a failure or a crash during the reply never loses what the person
/// typed. The reply is appended to the file as it is on disk then: an edit a
/// person saved in the meantime is kept, a room renamed meanwhile gets the reply where it now
/// is, and a room deleted meanwhile has the message and the reply kept in a new room next to
/// it. A failed reply is never written as a reply: the turn ends with the user's message
/// unanswered (what `vault retry` sends again), and text that had arrived before a failure is
/// kept, marked `status=interrupted`, and never sent back to a model. A reply the server cut short
/// (`finish_reason: length`) is saved marked `truncated=<reason>`; it is sent as context
/// like any reply, and `vault retry` asks the model to go on from it.
///
/// The reply is written to a file as it arrives (`ReplySpool`) and copied from there into the
/// room: a turn's memory does not grow with the reply.
///
/// The room is read once for the turn (`RoomVersion`, which the command line also reads the room's
/// settings from): its first write, and the reply's when nobody changed the file meanwhile, work
/// from that value; the file is read again only when it changed. A room read whole is given to
/// the change (`Change.know`) with what the turn writes, so the hand-edit check and the commit
/// hash those bytes instead of reading the file (one open to read, two to write, in a turn); a
/// long room (`RoomFile.readEnd`) is checked by its facts and committed in pieces. Both halves go through the one
/// change path (`Vault.change`): the first commits hand edits first and writes the message, the
/// second writes the reply and makes the turn's commit.
///
/// Turns in one room take turns (a room's turn lock, `VaultLock(turnIn:of:report:)`): each reply follows its own question. From the
/// moment a turn has the room, SIGINT, SIGTERM and SIGHUP stop the reply instead of the
/// process (`Termination`): what arrived is kept and committed before the command ends.
public struct ChatTurn {
    public let vault: Vault
    public let roomPath: String
    public let provider: any ChatProvider
    /// The model to ask (from `--model`, the room, the provider or the vault).
    public let model: String
    /// Who asks, in a room several people share (`@assistant` in `vault say`): the question is
    /// written with this author (`author=`), and the reply with the model as its author. Nil:
    /// a person's own room, whose messages name no one.
    public var author: Author?

    /// The room as read before the turn, used while it is still the version on disk.
    let read: RoomVersion?

    /// - Parameter room: the room as read for this turn (`ChatTurn.read`), so that it is not
    ///   read again while the file is still that version; nil: read when the turn starts.
    public init(vault: Vault, roomPath: String, provider: any ChatProvider, model: String, room: RoomVersion? = nil) {
        self.vault = vault
        self.roomPath = roomPath
        self.provider = provider
        self.model = model
        self.read = room
    }

    /// A version of a room as a turn reads it: its settings and as many of its last messages as
    /// its context budget sends (a long room is not read whole; `RoomFile.readEnd`), and the
    /// stamp of the version read, which a write over it expects.
    public struct RoomVersion: Sendable {
        public var room: RoomFile
        package var stamp: FileIO.Stamp
    }

    /// Reads the room at `path` as a turn needs it (the one read of a turn).
    public static func read(_ path: String, in vault: Vault) throws(VaultError) -> RoomVersion {
        let (room, stamp) = try RoomFile.readEnd(vault.absolute(path), path: path, facts: vault.facts(of: path)) {
            room in
            let budget = ChatTurn.budget(of: room)
            return ChatTurn.pick(room.messages, maxMessages: budget.messages, maxTokens: budget.tokens).full
        }
        return RoomVersion(room: room, stamp: stamp)
    }

    public struct Outcome: Sendable {
        public var prompt: Message?
        public var reply: SavedReply
        /// Where the reply was saved: the room, or where it went if it was renamed or deleted
        /// while the reply came.
        public var path: String
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
    public func run(message: String?, attachments: [String] = [], onText: (String) -> Void) throws(VaultError)
        -> Outcome
    {
        let lock = try VaultLock(turnIn: roomPath, of: vault, report: { [vault] in vault.report(.note($0)) })
        defer { withExtendedLifetime(lock) {} }
        return try Termination.deferring { () throws(VaultError) -> Outcome in
            // A long room gives its older messages to volumes first, so the turn's commit hashes
            // a file of bounded size (format 3; `RoomVolumes`).
            try vault.rollOverIfLong(roomPath)
            return try send(message: message, attachments: attachments, onText: onText)
        }
    }

    private func send(message: String?, attachments: [String], onText: (String) -> Void) throws(VaultError) -> Outcome {
        let (prompt, request, written, attached) = try ChatTurn.retryingIfChangedOnDisk {
            () throws(VaultError) -> (Message, ChatRequest, Written, [String]) in
            try vault.change([roomPath]) { change throws(VaultError) -> (Message, ChatRequest, Written, [String]) in
                let (room, stamp) = try readRoom()
                // The one read of the room: the hand-edit check and the write work from it.
                if room.elision == nil { change.know(room.bytes, of: roomPath, stamp: stamp) }
                // A sampling setting the server would not take is refused before anything is written.
                let sampling = try ChatRequest.Sampling.of(room.frontMatter, path: roomPath)
                let usePending = message == nil
                guard var text = (message ?? room.pendingPrompt).map(ChatTurn.tidy),
                    !text.isEmpty || !attachments.isEmpty
                else {
                    throw VaultError.input(.nothingToSend(room: roomPath))
                }
                // The header's date formatter (ICU's start-up, about a millisecond) is made while
                // the repository is still being opened on the other core.
                _ = vault.headerDisplay(vault.now())
                // Commit what the person changed by hand first (the file itself is not touched),
                // in the room's volumes too.
                change.include(RoomVolumes.paths(ofRoom: roomPath, root: vault.root))
                try change.commitHandEdits()
                var attached: [String] = []
                for file in attachments {
                    let stored = try Attachments.store(file, in: change)
                    attached.append(stored.path)
                    text += (text.isEmpty ? "" : "\n\n") + stored.markdown
                }
                var draft = MessageDraft(role: .user, body: text, timestamp: vault.now())
                if let author {
                    draft.author = author
                    draft.displaySuffix = author.name
                }
                let appended = room.appendingAtEnd(
                    [draft], consumingPendingPrompt: usePending, display: vault.headerDisplay)
                Trace.mark("turn: message appended")
                // Only over the version read: a save made in an editor meanwhile is never overwritten.
                let after = try change.replaceTail(
                    of: roomPath, from: appended.offset, with: appended.bytes, mark: appended.mark, expecting: stamp)
                vault.remember(lines: appended.room, stamp: after)
                Trace.mark("turn: room written")
                // The message is committed with the reply (the second half's change).
                let request = makeRequest(room: room, upTo: room.messages + appended.messages, sampling: sampling)
                return (appended.messages[0], request, Written(room: appended.room, stamp: after), attached)
            }
        }
        let (reply, path) = try ask(
            request, after: written, question: prompt, questionPending: true, attached: attached, onText: onText)
        return Outcome(prompt: prompt, reply: reply, path: path)
    }

    /// The room as the turn left it on disk, and the stamp of that version.
    typealias Written = RoomVersion

    /// The room as the turn reads it: the version read before the turn while the file is still
    /// that version (a `stat`, not a read), else read again.
    func readRoom() throws(VaultError) -> (room: RoomFile, stamp: FileIO.Stamp) {
        if let read, FileIO.stamp(of: vault.absolute(roomPath)) == read.stamp { return (read.room, read.stamp) }
        let version = try ChatTurn.read(roomPath, in: vault)
        return (version.room, version.stamp)
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
        let lock = try VaultLock(turnIn: roomPath, of: vault, report: { [vault] in vault.report(.note($0)) })
        defer { withExtendedLifetime(lock) {} }
        return try Termination.deferring { () throws(VaultError) -> Outcome in
            try vault.rollOverIfLong(roomPath)
            let (request, written, last) = try vault.change([roomPath]) {
                change throws(VaultError) -> (ChatRequest, Written, Message) in
                let (room, stamp) = try readRoom()
                if room.elision == nil { change.know(room.bytes, of: roomPath, stamp: stamp) }
                let sampling = try ChatRequest.Sampling.of(room.frontMatter, path: roomPath)
                change.include(RoomVolumes.paths(ofRoom: roomPath, root: vault.root))
                try change.commitHandEdits()
                let answered = room.messages.filter { $0.status == nil }
                // An unanswered message is sent again; a reply the server cut short is sent as it
                // is, last, for the model to go on from.
                guard let last = answered.last, last.role == .user || last.header.attribute("truncated") != nil else {
                    throw VaultError.input(.nothingToRetry(room: roomPath))
                }
                let request = makeRequest(room: room, upTo: room.messages, sampling: sampling)
                return (request, Written(room: room, stamp: stamp), last)
            }
            let (reply, path) = try ask(
                request, after: written, question: last, questionPending: false, onText: onText)
            return Outcome(prompt: nil, reply: reply, path: path)
        }
    }

    /// Asks the provider and appends its reply (or what arrived of it) to the room, which is
    /// as `written` left it unless someone changed, renamed or deleted the file meanwhile.
    ///
    /// - Parameters:
    ///   - question: the message the reply follows (the user's, or a reply cut short).
    ///   - questionPending: whether `question` was written by this turn and is not committed yet.
    /// - Returns: the reply as saved, and the file it was saved in.
    private func ask(
        _ request: ChatRequest, after written: Written, question: Message, questionPending: Bool,
        attached: [String] = [], onText: (String) -> Void
    ) throws(VaultError) -> (SavedReply, String) {
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
        // Blank lines around the text are not part of it; a reply of none is no reply: the
        // message stays unanswered, for `vault retry`.
        let body = spool?.body
        if failure == nil && body == nil {
            let why = ending.truncation.map { " (finish_reason: \($0))" } ?? ""
            failure = ProviderFailure(.empty, "the model's reply was empty\(why)")
        }
        let truncation = failure == nil ? ending.truncation.map(ChatTurn.attributeValue) : nil
        Trace.mark("turn: reply received")
        var attributes: [MessageHeader.Attribute] = [
            .init("model", ChatTurn.attributeValue(request.model)),
            .init("provider", ChatTurn.attributeValue(provider.name)),
        ]
        // In a shared room the reply names its writer: the model.
        if author != nil, let model = Author(name: request.model) { attributes.insert(model.attribute, at: 0) }
        // `status=` and `truncated=` say it for readers; the display part says it in the vault's
        // language, as its date (never read back: FORMAT.md), and so names the built-in provider.
        let words = ListingWords.of(vault.config.locale)
        var label = provider is OfflineProvider ? words.offline : provider.label(model: request.model)
        if failure != nil {
            attributes.append(.init("status", "interrupted"))
            label += " · " + words.interruptedMark
        } else if let truncation {
            attributes.append(.init("truncated", truncation))
            label += " · " + words.truncatedMark
        }
        let draft = MessageDraft(
            role: .assistant, body: "", timestamp: vault.now(), attributes: attributes, displaySuffix: label)
        var saving = Saving(
            path: roomPath, base: written.stamp, written: written, questionPending: questionPending, question: question,
            reply: body.map { (draft, $0) }, truncation: truncation, attached: attached, failure: failure)
        let saved = try ChatTurn.retryingIfChangedOnDisk { () throws(VaultError) -> SavedReply? in
            // The turn's commit: hand edits made while the reply came are found by the turn (its
            // message is not committed yet) and committed first, each as its own commit.
            try vault.change(handEdits: .foundByTheWorkflow) { change throws(VaultError) -> SavedReply? in
                try save(&saving, in: change)
            }
        }
        if var failure {
            failure.room = VaultPath.commandName(of: saving.path)
            throw VaultError.provider(failure, kept: saved != nil)
        }
        guard let saved else {
            var unsaved = ProviderFailure(.unsaved, "the reply could not be saved")
            unsaved.room = VaultPath.commandName(of: saving.path)
            throw VaultError.provider(unsaved, kept: false)
        }
        return (saved, saving.path)
    }

    /// What the second half of a turn knows while it saves the reply (kept across tries).
    struct Saving {
        /// Where the room is now.
        var path: String
        /// The version of the room last committed or written by this turn.
        var base: FileIO.Stamp
        let written: Written
        /// Whether the message written by this turn is still uncommitted.
        var questionPending: Bool
        let question: Message
        /// The reply's header and its text (in the spool's file); nil when none came.
        let reply: (draft: MessageDraft, body: FileText)?
        let truncation: String?
        let attached: [String]
        let failure: ProviderFailure?
    }

    /// Appends the reply to the room as it is on disk now and commits (the turn's `change`).
    private func save(_ s: inout Saving, in change: Change) throws(VaultError) -> SavedReply? {
        let title = s.written.room.title
        var onDisk = FileIO.stamp(of: vault.absolute(s.path))
        var keptAfterDeletion = false
        if onDisk == nil {
            // Renamed or deleted while the reply came.
            if let moved = vault.whereRoomMoved(from: s.path, identity: s.written.stamp, holding: s.question.id) {
                try change.commitHandEdit(
                    of: [s.path, moved], message: "edit: \(s.path) → \(moved) (renamed while waiting for the reply)")
                vault.report(.note("\(s.path) was renamed to \(moved) while the reply came: the reply is saved there"))
                s.path = moved
            } else {
                guard try keepAfterDeletion(&s, title: title, in: change) else { return nil }
                keptAfterDeletion = true
            }
            s.questionPending = false
            onDisk = FileIO.stamp(of: vault.absolute(s.path))
            s.base = onDisk ?? s.base
        }
        var room = s.written.room
        var stamp = s.written.stamp
        let edited = onDisk != s.base
        if edited {
            // Edited in the meantime (saved in an editor while the reply came): commit that
            // state on its own before the reply, so the person's edit stays their own.
            try change.commitHandEdit(of: [s.path], message: "edit: \(s.path) (while waiting for the reply)")
            s.questionPending = false
        }
        // Not as this turn left it (edited, renamed, or on an earlier try): its end read again.
        if onDisk != s.written.stamp || s.path != roomPath {
            (room, stamp) = try RoomFile.readEnd(vault.absolute(s.path), path: s.path) { _ in true }
            if edited { s.base = stamp }
        }
        // The room as the turn holds it (the version read, with the message written): the
        // commit takes it with the reply instead of reading the file again (`Change.know`).
        if room.elision == nil { change.know(room.bytes, of: s.path, stamp: stamp) }
        var appended: SavedReply?
        if let reply = s.reply {
            let end = room.appendingAtEnd(reply.draft, body: reply.body, display: vault.headerDisplay)
            appended = SavedReply(header: end.header, line: end.line, truncation: s.truncation)
            Trace.mark("turn: reply appended")
            let after = try change.replaceTail(
                of: s.path, from: end.offset, with: end.parts, mark: end.mark, expecting: stamp)
            vault.remember(lineFeeds: end.lineFeeds, of: s.path, stamp: after)
            Trace.mark("turn: room written")
        }
        let count = (s.questionPending || keptAfterDeletion ? 1 : 0) + (appended != nil ? 1 : 0)
        if count > 0 || !s.attached.isEmpty {
            var message = ChatTurn.commitMessage(
                title: title, count: count, failure: s.failure, replied: appended != nil, truncation: s.truncation)
            if keptAfterDeletion { message += " in \(s.path): \(roomPath) was deleted" }
            change.include([s.path] + s.attached)
            try change.commit(message: message)
        }
        if keptAfterDeletion {
            vault.report(
                .warning(
                    "\(roomPath) was deleted while the reply came: your message and the reply are kept in \(s.path)"))
        }
        return appended
    }

    /// The room was deleted while the reply came: the deletion is committed (if `vault rm` did
    /// not), and a new room next to where it was gets the message the reply follows (the reply
    /// is then appended to it as to any room). False when no reply came: nothing more is kept.
    private func keepAfterDeletion(_ s: inout Saving, title: String, in change: Change) throws(VaultError) -> Bool {
        let deleted = s.path
        try change.commitHandEdit(of: [deleted], message: "edit: \(deleted) (deleted while waiting for the reply)")
        guard s.reply != nil else {
            vault.report(
                .warning("\(deleted) was deleted while the reply was awaited; no reply came, so nothing more is kept"))
            return false
        }
        let kept = vault.freeRoomPath(stem: VaultPath.stem(of: deleted) + "-reply", in: FileIO.parent(of: deleted))
        let fresh = RoomFile.newRoom(title: "\(title) (reply kept after the room was deleted)", created: vault.now())
        let room = try RoomFile(parsing: fresh, path: kept)
        let question = MessageDraft(
            role: s.question.role, body: s.question.body, timestamp: s.question.timestamp,
            attributes: s.question.header.attributes)
        try change.write(room.appending([question], display: vault.headerDisplay).bytes, to: kept, expecting: .absent)
        s.path = kept
        return true
    }

    /// `chat: 부산 여행 (+2 messages)`, `chat: 부산 여행 (+1 message, no reply: empty)`,
    /// `chat: 부산 여행 (+2 messages, reply interrupted)`, `… reply truncated: length)`.
    static func commitMessage(
        title: String, count: Int, failure: ProviderFailure?, replied: Bool, truncation: String?
    ) -> String {
        var message = "chat: \(title) (+\(count) message\(count == 1 ? "" : "s")"
        if let failure {
            message += replied ? ", reply \(failure.kind.rawValue)" : ", no reply: \(failure.kind.rawValue)"
        } else if let truncation {
            message += ", reply truncated: \(truncation)"
        }
        return message + ")"
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
    /// deleted to fit; the budget only limits what is sent. `sampling`: the room's sampling
    /// settings (`ChatRequest.Sampling.of`), sent with it.
    func makeRequest(room: RoomFile, upTo messages: [Message], sampling: ChatRequest.Sampling) -> ChatRequest {
        var turns: [ChatRequest.Turn] = []
        let budget = ChatTurn.budget(of: room)
        var (picked, full) = ChatTurn.pick(messages, maxMessages: budget.messages, maxTokens: budget.tokens)
        // A context that reaches back past the room's file goes on in its volumes.
        if !full, room.elision == nil {
            let earlier = RoomVolumes.earlierMessages(ofRoom: roomPath, root: vault.root) { found in
                ChatTurn.pick(found + messages, maxMessages: budget.messages, maxTokens: budget.tokens).full
            }
            if !earlier.isEmpty {
                (picked, full) = ChatTurn.pick(earlier + messages, maxMessages: budget.messages, maxTokens: budget.tokens)
            }
        }
        if let system = room.frontMatter?.string("system"), !system.isEmpty {
            turns.append(.init(role: .system, content: system))
        }
        // Images linked from the newest user message go with it (unless the room says `vision: no`);
        // older ones are not sent again.
        let vision = !["no", "false", "off"].contains(room.frontMatter?.string("vision")?.lowercased() ?? "")
        let newestUser = picked.first { $0.role == .user }?.id
        for m in picked.reversed() {
            let images = vision && m.id == newestUser ? Attachments.images(in: m.body, vault: vault) : []
            // Several people's messages: each says who wrote it, so the model can tell them apart.
            let named = m.role == .user ? m.author.map { "\($0.name): " + m.body } : nil
            turns.append(.init(role: m.role, content: named ?? m.body, images: images))
        }
        return ChatRequest(model: model, turns: turns, sampling: sampling)
    }

    /// About one token for every three bytes of UTF-8 (Hangul is about one per character).
    static func approximateTokens(_ bytes: Int) -> Int { bytes / 3 + 1 }

    /// A header attribute value: no spaces (FORMAT.md, "Message header").
    static func attributeValue(_ text: String) -> String {
        let cleaned = String(text.map { $0.isWhitespace ? "_" : $0 })
        return cleaned.isEmpty ? "unknown" : cleaned
    }

    /// Leading and trailing blank lines removed (spaces inside lines are kept).
    public static func tidy(_ text: String) -> String {
        var lines = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map(Substring.init)
        while let first = lines.first, first.allSatisfy({ $0.isWhitespace }) { lines.removeFirst() }
        while let last = lines.last, last.allSatisfy({ $0.isWhitespace }) { lines.removeLast() }
        return lines.joined(separator: "\n")
    }
}
