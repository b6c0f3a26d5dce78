import VaultCore

#if canImport(Glibc)
import Glibc
#endif

/// Reading a room to show it: as far as it can be read, a file git left conflict markers in
/// shown as this machine's side, a page of its messages; clearing its unread marks is a step
/// of its own (`markRead`), for the front end to take when the person has seen it.
///
/// Nothing is printed: what the reader should know (the markers, headers kept as text) comes
/// back in the page's `notes`.
///
///     let reading = RoomReading(vault: session.vault)
///     let page = try reading.read("rooms/busan.md", messages: .last(20))
///     show(page.messages); page.notes.forEach(log)
///     reading.markRead(page.path)
public struct RoomReading: Sendable {
    public let vault: Vault

    public init(vault: Vault) { self.vault = vault }

    /// Which of a room's messages a page holds.
    public enum Messages: Sendable, Equatable {
        /// Every message.
        case all
        /// `count` messages from the `offset`th (0 is the first).
        case range(offset: Int, count: Int)
        /// The last `count` messages.
        case last(Int)
    }

    /// A room read, with the page of its messages asked for.
    public struct Page: Sendable {
        /// The room's path, relative to the vault.
        public var path: String
        /// The whole room as read (title, front-matter, preamble, pending prompt, its messages,
        /// those of its volumes first: `RoomVolumes`);
        /// of a long room asked for its last messages, the front-matter and the end only
        /// (`room.elision` says what was left out).
        public var room: RoomFile
        /// The page's messages, in order.
        public var messages: ArraySlice<Message>
        /// The index of the page's first message among the room's; nil when the start of a
        /// long room was not read (`.last(n)` reads only its end).
        public var offset: Int? { room.elision == nil ? messages.startIndex : nil }
        /// How many messages the room has; nil when the start of a long room was not read.
        public var total: Int? { room.elision == nil ? room.messages.count : nil }
        /// Whether the file holds git's conflict markers (only this machine's side is shown).
        public var shownFromOneSide: Bool
        /// Warnings: the conflict markers, each message header kept as text.
        public var notes: [Note]
        /// Messages that came in by sync whose `author=` the commit bringing them did not bear
        /// out: id → why (`UnverifiedMarks`). A front end marks each where it shows it.
        public var unverified: [String: String] = [:]
    }

    /// Reads the room at `path` (relative to the vault).
    ///
    /// - Throws: `VaultError.io` when it cannot be read, `.malformed` when even what can be
    ///   read of it cannot, `.cancelled` when `cancellation` is cancelled first.
    public func read(_ path: String, messages: Messages = .all, cancellation: Cancellation = .never)
        throws(VaultError) -> Page
    {
        try cancellation.check("reading \(path)")
        if case .last(let count) = messages, let page = try lastMessagesOfALongRoom(path, count: count) {
            return page
        }
        var notes: [Note] = []
        // What can be read: a message header with a bad timestamp stays as text, marked.
        // A long room's older messages in its volumes come first (`RoomVolumes`).
        let (room, oneSide) = try OneSideReading.read(path, vault: vault, notes: &notes) {
            bytes throws(VaultError) in
            try RoomFile.readingWhatCan(RoomVolumes.wholeBytes(ofRoom: path, bytes: bytes, root: vault.root), path: path)
        }
        for problem in room.unreadHeaders {
            notes.append(.warning("\(problem); shown as text, marked ⚠️ (the rest of the room is read as usual)"))
        }
        let all = room.messages
        let range: Range<Int>
        switch messages {
        case .all: range = 0..<all.count
        case .range(let offset, let count):
            let start = min(max(offset, 0), all.count)
            range = start..<min(all.count, start + max(count, 0))
        case .last(let count): range = max(all.count - max(count, 0), 0)..<all.count
        }
        return Page(
            path: path, room: room, messages: all[range], shownFromOneSide: oneSide, notes: notes,
            unverified: UnverifiedMarks.of(path, root: vault.root))
    }

    /// The last `count` messages of a room too long to read whole (`RoomFile.wholeReadLimit`),
    /// from its end alone (`RoomFile.readEnd`), so a page costs the same on a room of years;
    /// nil when the room is short, or its end cannot be read on its own (conflict markers, a
    /// broken header: it is then read whole, as far as it can be).
    private func lastMessagesOfALongRoom(_ path: String, count: Int) throws(VaultError) -> Page? {
        let absolute = vault.absolute(path)
        var st = stat()
        guard lstat(absolute, &st) == 0, Int(st.st_size) >= RoomFile.wholeReadLimit else { return nil }
        let wanted = max(count, 0)
        let room: RoomFile
        do {
            room = try RoomFile.readEnd(absolute, path: path, facts: vault.facts(of: path)) {
                $0.messages.count > wanted
            }.room
        } catch .malformedEnd {
            return nil
        }
        // Read to its start, the file may have volumes before it: the room is read whole.
        if room.elision == nil, !RoomVolumes.paths(ofRoom: path, root: vault.root).isEmpty { return nil }
        let all = room.messages
        return Page(
            path: path, room: room, messages: all[max(all.count - wanted, 0)..<all.count], shownFromOneSide: false,
            notes: [], unverified: UnverifiedMarks.of(path, root: vault.root))
    }

    /// Clears the room's unread marks (its replies that came while no one looked): a front
    /// end calls it once the person has seen the room.
    public func markRead(_ path: String) {
        UnreadMarks.clear(path, root: vault.root)
    }
}

/// Reading a diary entry to show it, as `RoomReading` reads a room.
public struct EntryReading: Sendable {
    public let vault: Vault

    public init(vault: Vault) { self.vault = vault }

    /// The entry at `path` and what the reader should know (conflict markers).
    public func read(_ path: String, cancellation: Cancellation = .never) throws(VaultError)
        -> (entry: DiaryFile, notes: [Note])
    {
        try cancellation.check("reading \(path)")
        var notes: [Note] = []
        let (entry, _) = try OneSideReading.read(path, vault: vault, notes: &notes) {
            bytes throws(VaultError) in try DiaryFile(parsing: bytes, path: path)
        }
        return (entry, notes)
    }
}

/// A file git left conflict markers in is read as this machine's side, with a warning, never
/// with the markers as text.
enum OneSideReading {
    static func read<T>(
        _ path: String, vault: Vault, notes: inout [Note], parse: ([UInt8]) throws(VaultError) -> T
    ) throws(VaultError) -> (T, oneSide: Bool) {
        let bytes = try FileIO.read(vault.absolute(path))
        guard let marker = ConflictMarkers.problem(in: bytes, path: path), let sides = ConflictMarkers.split(bytes)
        else {
            return (try parse(bytes), false)
        }
        notes.append(
            .warning(
                "\(path):\(marker.line): git left conflict markers in this file; showing this machine's side only."
                    + " `vault resolve` merges both sides, losing nothing."))
        return (try parse(sides.ours), true)
    }
}
