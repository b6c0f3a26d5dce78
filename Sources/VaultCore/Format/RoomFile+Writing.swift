extension RoomFile {
    /// The marker line the tool leaves at the end of a room (FORMAT.md, "The prompt marker").
    public static let promptMarkerLine =
        "<!-- vault:prompt · write your next message below this line, then run `vault chat` -->"

    /// The new bytes of a room file with front-matter and, optionally, nothing else: a new room.
    public static func newRoom(title: String, created: Timestamp, settings: [(String, FrontMatterValue)] = [])
        -> [UInt8]
    {
        var lines = ["---"]
        lines += FrontMatterEditor.render(key: "title", value: .string(title))
        lines += FrontMatterEditor.render(key: "created", value: .string(created.text))
        for (key, value) in settings { lines += FrontMatterEditor.render(key: key, value: value) }
        lines += ["---", "", promptMarkerLine]
        return Array((lines.joined(separator: "\n") + "\n").utf8)
    }

    /// The file after appending `drafts` as messages at the end of the conversation.
    ///
    /// Bytes before the prompt marker (or before the end of the file, when there is no
    /// marker) are kept as they are; at most one or two line endings are added so a blank
    /// line separates the new header from the text before it. A new marker follows the
    /// new messages.
    ///
    /// - Parameters:
    ///   - consumingPendingPrompt: when `true`, the text below the old marker is dropped
    ///     (it was sent as the first of `drafts`); otherwise it is kept below the new marker.
    ///   - display: writes the display date of a header.
    /// - Returns: the new bytes and the messages as written (with ids and line numbers).
    public func appending(
        _ drafts: [MessageDraft], consumingPendingPrompt: Bool = false, display: (Timestamp) -> String
    ) -> (bytes: [UInt8], messages: [Message]) {
        let result = appendingRoom(drafts, consumingPendingPrompt: consumingPendingPrompt, display: display)
        return (result.room.bytes, result.messages)
    }

    /// Like `appending`, and the room those bytes make, built without parsing them again (a
    /// long room takes milliseconds to parse; a chat turn appends twice).
    public func appendingRoom(
        _ drafts: [MessageDraft], consumingPendingPrompt: Bool = false, display: (Timestamp) -> String
    ) -> (room: RoomFile, messages: [Message]) {
        let eol = lineEnding.bytes
        let cut = promptMarkerOffset ?? bytes.count
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + drafts.reduce(256) { $0 + $1.body.utf8.count * 2 + 300 })
        out.append(contentsOf: bytes[..<cut])
        out += separator(before: cut)
        let contentStart = hasByteOrderMark ? 3 : 0
        var line = 1 + RoomFile.lineFeeds(in: out) + (elision?.lines ?? 0)
        var written: [Message] = []
        var firstHeaderStart: Int?
        for draft in drafts {
            if firstHeaderStart == nil { firstHeaderStart = out.count }
            var shown = display(draft.timestamp)
            if let suffix = draft.displaySuffix, !suffix.isEmpty { shown += " · " + suffix }
            let header = MessageHeader(
                icon: draft.role.icon, role: draft.role, display: shown, timestamp: draft.timestamp,
                id: draft.id ?? Identifier.newMessageID(), attributes: draft.attributes)
            let escaped = BodyEscaping.escape(draft.body)
            out += Array(header.line.utf8) + eol + eol + Array(escaped.utf8) + eol + eol
            written.append(Message(header: header, body: draft.body, line: line))
            line += 2
            for byte in escaped.utf8 where byte == 10 { line += 1 }
            line += 2
        }
        let marker = out.count
        out += Array(RoomFile.promptMarkerLine.utf8) + eol
        var pending = ""
        if !consumingPendingPrompt, let text = pendingText, !text.isEmpty {
            out += Array(text.utf8)
            pending = text
        }
        // The preamble ends at the first message: with none before, at the first new one.
        var newPreamble = preamble
        if messages.isEmpty, let end = firstHeaderStart {
            let bodyStart = frontMatter?.range.upperBound ?? contentStart
            newPreamble = String(decoding: out[min(bodyStart, end)..<end], as: UTF8.self)
        }
        let room = RoomFile(
            path: path, bytes: out, bom: hasByteOrderMark, lineEnding: lineEnding, frontMatter: frontMatter,
            preamble: newPreamble, messages: messages + written, promptMarkerOffset: marker, pendingText: pending,
            warnings: markerWarnings, elision: elision)
        return (room, written)
    }

    /// An append as a change of the file's end: from `offset` on, the file becomes `bytes`.
    public struct EndChange: Sendable {
        /// Where the change starts in the file (the prompt marker, or the end of the file).
        package var offset: Int
        /// The file's new end.
        package var bytes: [UInt8]
        /// The first new message's header line: found nowhere else in the file.
        package var mark: [UInt8]
        /// The room after the change.
        package var room: RoomFile
        /// The messages as written.
        package var messages: [Message]
    }

    /// Like `appendingRoom`, as the change of the end of the file to write in place
    /// (`Vault.replaceTail`): everything before the prompt marker stays as it is on disk.
    public func appendingAtEnd(
        _ drafts: [MessageDraft], consumingPendingPrompt: Bool = false, display: (Timestamp) -> String
    ) -> EndChange {
        let cut = promptMarkerOffset ?? bytes.count
        let (room, written) = appendingRoom(drafts, consumingPendingPrompt: consumingPendingPrompt, display: display)
        let end = Array(room.bytes[cut...])
        return EndChange(
            offset: fileOffset(cut), bytes: end, mark: Array((written.first?.header.line ?? "").utf8), room: room,
            messages: written)
    }

    /// The line endings to add after `bytes[..<cut]` so that a blank line separates a new header
    /// from the text before it (none at the start of a file).
    func separator(before cut: Int) -> [UInt8] {
        let eol = lineEnding.bytes
        let contentStart = hasByteOrderMark ? 3 : 0
        guard cut > contentStart else { return [] }
        // The last three bytes are all that matter, with what is added after them.
        var window = Array(bytes[max(contentStart, cut - 3)..<cut])
        var added: [UInt8] = []
        if window.last != 10 {
            added += eol
            window += eol
        }
        let total = cut - contentStart + added.count
        let n = window.count
        let endsBlank = total >= 2 && window[n - 2] == 10 || (total >= 3 && window[n - 2] == 13 && window[n - 3] == 10)
        if !endsBlank { added += eol }
        return added
    }

    /// An append of one message whose body is too long to hold in memory (a model's reply,
    /// `ReplySpool`): the body, already escaped, is read from `body` when the end is written.
    public struct LongEndChange {
        /// Where the change starts in the file (the prompt marker, or the end of the file).
        package var offset: Int
        /// The file's new end: what comes before the body, the body, what comes after.
        package var parts: [TailWrite.Part]
        /// The header line: found nowhere else in the file.
        package var mark: [UInt8]
        /// The message's header as written.
        package var header: MessageHeader
        /// The header's line (1-based).
        package var line: Int
        /// The line feeds in the whole file after the change.
        package var lineFeeds: Int
    }

    /// Like `appendingAtEnd`, for one message whose body is `body` (escaped text in a file);
    /// `draft`'s own body is not used. What is written is the same as `appendingAtEnd` writes
    /// for that text: a blank line, the header, the body, the prompt marker, and the text that
    /// was typed below the old marker.
    public func appendingAtEnd(_ draft: MessageDraft, body: FileText, display: (Timestamp) -> String) -> LongEndChange {
        let eol = lineEnding.bytes
        let cut = promptMarkerOffset ?? bytes.count
        let before = bytes[..<cut]
        var head = separator(before: cut)
        let line = 1 + (elision?.lines ?? 0) + RoomFile.lineFeeds(in: Array(before)) + RoomFile.lineFeeds(in: head)
        var shown = display(draft.timestamp)
        if let suffix = draft.displaySuffix, !suffix.isEmpty { shown += " · " + suffix }
        let header = MessageHeader(
            icon: draft.role.icon, role: draft.role, display: shown, timestamp: draft.timestamp,
            id: draft.id ?? Identifier.newMessageID(), attributes: draft.attributes)
        let mark = Array(header.line.utf8)
        head += mark + eol + eol
        var tail = eol + eol + Array(RoomFile.promptMarkerLine.utf8) + eol
        if let text = pendingText, !text.isEmpty { tail += Array(text.utf8) }
        let lineFeeds =
            line - 1 + RoomFile.lineFeeds(in: Array(mark + eol + eol)) + body.lineFeeds + RoomFile.lineFeeds(in: tail)
        return LongEndChange(
            offset: fileOffset(cut), parts: [.bytes(head), .file(body), .bytes(tail)], mark: mark, header: header,
            line: line, lineFeeds: lineFeeds)
    }

    /// The number of line feeds in `bytes`, eight bytes at a time.
    static func lineFeeds(in bytes: [UInt8]) -> Int {
        bytes.withUnsafeBytes { raw -> Int in
            var count = 0
            var i = 0
            let n = raw.count
            let highs: UInt64 = 0x8080_8080_8080_8080
            let feeds: UInt64 = 0x0A0A_0A0A_0A0A_0A0A
            while i + 8 <= n {
                let x = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) ^ feeds
                // A zero byte of x is a line feed: mark it with its high bit, exactly.
                let zero = ~(((x & ~highs) &+ ~highs) | x) & highs
                count += zero.nonzeroBitCount
                i += 8
            }
            while i < n {
                if raw[i] == 10 { count += 1 }
                i += 1
            }
            return count
        }
    }

    /// The file with front-matter `key` set to `value` (removed when `nil`), all other bytes kept.
    public func setting(_ key: String, to value: FrontMatterValue?, typed: Bool = false) throws(VaultError)
        -> [UInt8]
    {
        try FrontMatterEditor.setting(
            key, to: value, in: bytes, frontMatter: frontMatter, path: path, lineEnding: lineEnding, typed: typed)
    }
}
