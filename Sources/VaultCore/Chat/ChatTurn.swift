/// One chat turn: the person's message is saved, the provider answers, the answer is saved.
///
/// The user's message is written (and the lock released) *before* the provider is
/// asked, so a failure or a crash during the reply never loses what the person
/// typed. The reply is appended to the file as it is on disk then: an edit a
/// person saved in the meantime is kept.
public struct ChatTurn {
    public let vault: Vault
    public let roomPath: String
    public let provider: any ChatProvider

    public init(vault: Vault, roomPath: String, provider: any ChatProvider) {
        self.vault = vault
        self.roomPath = roomPath
        self.provider = provider
    }

    public struct Outcome: Sendable {
        public var prompt: Message
        public var reply: Message
    }

    /// Sends `message`, or the room's pending prompt when `message` is `nil`.
    public func run(message: String?, onText: (String) -> Void) throws(VaultError) -> Outcome {
        let (prompt, request, written) = try vault.changing { () throws(VaultError) -> (Message, ChatRequest, [UInt8]) in
            let room = try vault.readRoom(roomPath)
            let usePending = message == nil
            guard let text = (message ?? room.pendingPrompt).map(ChatTurn.tidy), !text.isEmpty else {
                throw VaultError.invalidArgument(
                    "nothing to send: give a message (`vault chat \(VaultPath.stem(of: roomPath)) \"…\"`), pipe one in, or type it below the prompt marker at the end of \(roomPath)")
            }
            // Commit what the person changed by hand first (the file itself is not touched).
            try vault.history?.prepare([roomPath])
            let draft = MessageDraft(role: .user, body: text, timestamp: vault.now())
            let (bytes, written) = room.appending([draft], consumingPendingPrompt: usePending, display: vault.headerDisplay)
            try vault.write(bytes, to: roomPath)
            let model = room.frontMatter?.string("model") ?? vault.config.model
            var turns: [ChatRequest.Turn] = []
            if let system = room.frontMatter?.string("system"), !system.isEmpty {
                turns.append(.init(role: .system, content: system))
            }
            for m in room.messages + written where m.status == nil {
                turns.append(.init(role: m.role, content: m.body))
            }
            return (written[0], ChatRequest(model: model, turns: turns), bytes)
        }
        let text = ChatTurn.tidy(try provider.reply(to: request, onText: onText))
        let reply = try vault.changing { () throws(VaultError) -> Message in
            // Edited in the meantime (saved in an editor while the reply came): commit that
            // state on its own before the reply, so the person's edit stays their own.
            let onDisk = try FileIO.read(vault.absolute(roomPath))
            var added = 2
            if onDisk != written {
                try vault.history?.commit([roomPath], message: "edit: \(roomPath) (while waiting for the reply)")
                added = 1
            }
            let room = try RoomFile(parsing: onDisk, path: roomPath)
            let draft = MessageDraft(
                role: .assistant, body: text, timestamp: vault.now(),
                attributes: [.init("model", request.model), .init("provider", provider.name)],
                displaySuffix: provider.label(model: request.model))
            let (bytes, appended) = room.appending([draft], display: vault.headerDisplay)
            try vault.write(bytes, to: roomPath)
            try vault.history?.commit([roomPath], message: "chat: \(room.title) (+\(added) message\(added == 1 ? "" : "s"))")
            return appended[0]
        }
        return Outcome(prompt: prompt, reply: reply)
    }

    /// Leading and trailing blank lines removed (spaces inside lines are kept).
    static func tidy(_ text: String) -> String {
        var lines = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map(Substring.init)
        while let first = lines.first, first.allSatisfy({ $0.isWhitespace }) { lines.removeFirst() }
        while let last = lines.last, last.allSatisfy({ $0.isWhitespace }) { lines.removeLast() }
        return lines.joined(separator: "\n")
    }
}
