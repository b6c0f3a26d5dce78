/// One change of the vault, made under its lock, that becomes one commit.
///
/// Every workflow that changes files (`DiaryWriting`, `Tagging`, `RoomSettings`, a chat turn,
/// `Removal`, …) makes its changes through one: `Vault.change` takes the lock and hands the
/// change to the workflow's body, which reads what it needs through `vault`, writes through
/// `write`, `remove` and `replaceTail`, and ends with `commit(message:)`. So no workflow
/// decides on its own what to lock or what to commit first:
///
/// - before the first write (or the commit), what a person changed by hand in the change's
///   paths is committed as its own commit (`edit: …`), so hand edits and vault's own changes
///   never mix (`commitHandEdits()`; `HandEdits` for the workflows that do otherwise);
/// - every write is crash-safe (`Vault.write`, `Vault.replaceTail`), and noted first so that
///   a process killed before its commit leaves the path for the next command to commit;
/// - the change's own commit is made at most once; a body that throws before it commits
///   nothing of its own.
///
/// ```swift
/// let tags = try vault.change([path]) { change throws(VaultError) -> [String] in
///     let (bytes, tags, stamp) = try vault.retagging(path, adding: ["busan"], removing: [], now: now)
///     try change.write(bytes, to: path, expecting: .unchanged(stamp))
///     try change.commit(message: "tag: 2026-11-21 첫눈 +busan")
///     return tags
/// }
/// ```
///
/// A vault opened without history (`Vault.history == nil`) writes the same files and commits
/// nothing.
public final class Change {
    /// What to do with hand edits of the change's paths.
    public enum HandEdits: Sendable {
        /// Committed first, as their own commit (`edit: …`): the usual case.
        case committedFirst
        /// Part of this change: an editor made them for it (`vault edit`, a new entry written
        /// in the editor), or the change takes away what they made (a symbolic link removed).
        case partOfTheChange
        /// Found by the workflow's own rule and committed with `commitHandEdit(of:message:)`:
        /// a chat turn's reply, whose question is not committed yet, so the last commit cannot
        /// tell the turn's writes from a person's.
        case foundByTheWorkflow
    }

    public let vault: Vault
    /// The paths the commit takes: those given to `Vault.change`, and every one written or
    /// removed since.
    public private(set) var paths: [String]
    let handEdits: HandEdits
    private var handEditsChecked = false
    /// Paths the hand-edit check wrote anew (a stale save given back what it lacked).
    private(set) var handEditsRewrote: Set<String> = []
    /// Versions of files the change holds whole (`know`), kept up to date by its writes.
    private var known: [String: KnownFile] = [:]
    /// Whether the change's own commit was made (nil: `commit(message:)` was not called yet).
    public private(set) var committed: Bool?

    init(vault: Vault, paths: [String], handEdits: HandEdits) {
        self.vault = vault
        self.paths = paths
        self.handEdits = handEdits
    }

    /// Adds paths to the change (a new file's name is found under the lock), before anything
    /// is written: their hand edits are committed first like the others'.
    public func include(_ more: [String]) {
        for path in more where !paths.contains(path) { paths.append(path) }
    }

    /// Gives the change a file's bytes as just read, and the stamp of that version, so that the
    /// hand-edit check and the commit use them instead of reading the file again, while the file
    /// keeps that stamp (`KnownFile`; a file saved meanwhile is read as it is). `replaceTail`
    /// keeps them up to date with what it writes.
    ///
    /// What is read when: a room read whole (up to `RoomFile.wholeReadLimit`) is known, so a chat
    /// turn reads it once; a long room read with `RoomFile.readEnd` is not held whole and is not
    /// given: its hand-edit check is answered by `.vault/facts/` while the file keeps the stamp
    /// of the last commit, and its commit reads it in pieces (bounded memory). Files of 256 KiB
    /// and more are committed in pieces even when known.
    public func know(_ bytes: [UInt8], of path: String, stamp: FileIO.Stamp) {
        guard bytes.count <= RoomFile.wholeReadLimit else { return }
        known[path] = KnownFile(bytes: bytes, stamp: stamp)
    }

    /// Commits, as their own commit (`edit: …`), what a person changed by hand in the change's
    /// paths since the last commit; checks first that a commit can be made at all (no merge in
    /// progress, no stale lock). Done once, by the first write, removal or commit at the
    /// latest; call it earlier to fail before anything is read.
    ///
    /// - Returns: the paths committed as hand edits (empty when none differed, or when they
    ///   were checked already).
    @discardableResult
    public func commitHandEdits() throws(VaultError) -> [String] {
        guard !handEditsChecked else { return [] }
        handEditsChecked = true
        guard handEdits == .committedFirst, let history = vault.history else { return [] }
        let before = paths.map { FileIO.stamp(of: vault.absolute($0)) }
        let committed = try history.prepare(paths, known: known, notes: vault.notes)
        // A stale save merged with what arrived after it was read is written anew.
        for (path, stamp) in zip(paths, before) where committed.contains(path) {
            if FileIO.stamp(of: vault.absolute(path)) != stamp { handEditsRewrote.insert(path) }
        }
        return committed
    }

    /// Works out the change to `path` with `compute` before the hand edits are committed, so a
    /// change refused there (a file it cannot change) commits nothing; then commits them, and
    /// works it out again when committing them rewrote `path` (a stale save merged).
    ///
    ///     let (bytes, stamp) = try change.workedOut(before: path) { try retagging(path) }
    public func workedOut<T>(before path: String, _ compute: () throws(VaultError) -> T) throws(VaultError) -> T {
        let first = try compute()
        try commitHandEdits()
        return handEditsRewrote.contains(path) ? try compute() : first
    }

    /// Commits `paths` as they are now, with `message`, as a commit of its own before the
    /// change's: a hand edit found by the workflow's own rule (a room edited, renamed or
    /// deleted while a reply came).
    ///
    /// - Returns: whether a commit was made (false: nothing differs from the last commit).
    @discardableResult
    public func commitHandEdit(of paths: [String], message: String) throws(VaultError) -> Bool {
        precondition(committed == nil, "a hand edit is committed before the change, not after it")
        return try vault.history?.commit(paths, message: message) ?? false
    }

    /// Writes a vault file crash-safely (`Vault.write`), after the hand edits are committed.
    public func write(_ bytes: [UInt8], to path: String, expecting: FileIO.Expectation = .anything)
        throws(VaultError)
    {
        try willWrite(path)
        known[path] = nil
        try vault.write(bytes, to: path, expecting: expecting)
    }

    /// Removes a vault file (`Vault.remove`), after the hand edits are committed.
    public func remove(_ path: String) throws(VaultError) {
        try willWrite(path)
        known[path] = nil
        try vault.remove(path)
    }

    /// Moves a vault file by a rename (`Vault.move`), after the hand edits are committed: both
    /// paths are the change's.
    public func move(_ from: String, to: String) throws(VaultError) {
        try willWrite(from)
        include([to])
        known[from] = nil
        try vault.move(from, to: to)
    }

    /// Replaces a room's end in place (`Vault.replaceTail`), after the hand edits are committed.
    ///
    /// - Returns: the file's stamp after the write.
    public func replaceTail(
        of path: String, from offset: Int, with bytes: [UInt8], mark: [UInt8], expecting expected: FileIO.Stamp
    ) throws(VaultError) -> FileIO.Stamp {
        try willWrite(path)
        let base = knownPrefix(of: path, upTo: offset, expecting: expected)
        let after = try vault.replaceTail(of: path, from: offset, with: bytes, mark: mark, expecting: expected)
        if let base { know(base + bytes, of: path, stamp: after) }
        return after
    }

    /// Like `replaceTail(of:from:with:mark:expecting:)`, with the new end in parts (a long reply
    /// copied from its file).
    public func replaceTail(
        of path: String, from offset: Int, with parts: [TailWrite.Part], mark: [UInt8], expecting expected: FileIO.Stamp
    ) throws(VaultError) -> FileIO.Stamp {
        try willWrite(path)
        let base = knownPrefix(of: path, upTo: offset, expecting: expected)
        let after = try vault.replaceTail(of: path, from: offset, with: parts, mark: mark, expecting: expected)
        // The new end is known when the whole file stays small: a part in a file (the reply's
        // spool) is read back from that file, never from the room.
        if var bytes = base, offset + parts.reduce(0, { $0 + $1.count }) <= RoomFile.wholeReadLimit {
            for part in parts {
                switch part {
                case .bytes(let piece): bytes += piece
                case .file(let text):
                    guard let piece = try? FileIO.pread(
                        text.descriptor, offset: text.range.lowerBound, count: text.range.count, path: path)
                    else { return after }
                    bytes += piece
                }
            }
            know(bytes, of: path, stamp: after)
        }
        return after
    }

    /// The known bytes of `path` before `offset`, taken out of what the change knows (the write
    /// about to be made changes the file): nil when the known version is not `expected`.
    private func knownPrefix(of path: String, upTo offset: Int, expecting expected: FileIO.Stamp) -> [UInt8]? {
        defer { known[path] = nil }
        guard let file = known[path], file.stamp == expected, offset <= file.bytes.count else { return nil }
        return Array(file.bytes[..<offset])
    }

    /// The bytes of `path` as the last commit has them (`VaultHistory.committedVersion`); nil
    /// when it is not committed, or the vault keeps no history.
    public func committedVersion(of path: String) throws(VaultError) -> [UInt8]? {
        try vault.history?.committedVersion(of: path)
    }

    /// Notes that `paths` may change outside vault's own writes (an editor is about to open
    /// them, without the lock): if this process ends before a later change commits them, the
    /// next command does (`VaultHistory.willChange`).
    public func willChange(_ paths: [String]) {
        vault.willChange(paths)
    }

    /// Makes the change's one commit: the change's paths as they are on disk now, with
    /// `message` (which says what changed: `tag: 2026-11-21 첫눈 +busan`). Hand edits of the
    /// paths are committed first if nothing was written yet.
    ///
    /// - Returns: whether a commit was made: false when the files are as the last commit has
    ///   them, or when the vault keeps no history.
    @discardableResult
    public func commit(message: String) throws(VaultError) -> Bool {
        precondition(committed == nil, "a change is one commit")
        try commitHandEdits()
        let made = try vault.history?.commit(paths, message: message, known: known) ?? false
        committed = made
        return made
    }

    /// Makes the change's one commit by the workflow's own means, for a commit
    /// `VaultHistory.commit` does not make: a sync's merge commit, which has two parents. Hand
    /// edits of the change's paths are committed first, as for `commit(message:)`.
    ///
    /// - Parameter make: makes the commit and returns whether it made one.
    /// - Returns: what `make` returned.
    @discardableResult
    public func commit(by make: () throws(VaultError) -> Bool) throws(VaultError) -> Bool {
        precondition(committed == nil, "a change is one commit")
        try commitHandEdits()
        let made = try make()
        committed = made
        return made
    }

    /// Makes a change of its own, one commit, before this one's and within the same hold of
    /// the vault's lock: for a locked step that makes several commits, each through the
    /// change path (a sync repairs what plain git left, as `resolve: …`, before its own hand
    /// edits and its merge).
    ///
    /// ```swift
    /// try vault.change { sync throws(VaultError) in
    ///     try sync.preceding { repair throws(VaultError) in
    ///         try repair.write(merged, to: path)
    ///         try repair.commit(message: "resolve: \(path)")
    ///     }
    ///     sync.include(handEdited)
    ///     try sync.commitHandEdits()
    ///     try sync.commit { () throws(VaultError) in try makeTheMergeCommit() }
    /// }
    /// ```
    @discardableResult
    public func preceding<T>(
        _ paths: [String] = [], handEdits: HandEdits = .committedFirst, _ body: (Change) throws(VaultError) -> T
    ) throws(VaultError) -> T {
        precondition(committed == nil, "a preceding change comes before this one's commit")
        return try body(Change(vault: vault, paths: paths, handEdits: handEdits))
    }

    /// Before any write: the path joins the change (one met after the hand edits were
    /// checked, an attachment stored with a message, is committed with it), and the hand edits
    /// are committed.
    private func willWrite(_ path: String) throws(VaultError) {
        precondition(committed == nil, "a change writes nothing after its commit")
        include([path])
        try commitHandEdits()
    }
}

extension Vault {
    /// Makes one change of the vault: under the vault's lock, `body` writes through `change`
    /// and makes the change's one commit (`Change`). The single way a workflow changes files.
    ///
    /// - Parameters:
    ///   - paths: the files the change is about (more are added as they are written).
    ///   - handEdits: whether what a person changed by hand in them is committed first, as
    ///     its own commit (the usual case), or is part of this change.
    public func change<T>(
        _ paths: [String] = [], handEdits: Change.HandEdits = .committedFirst,
        _ body: (Change) throws(VaultError) -> T
    ) throws(VaultError) -> T {
        try changing { () throws(VaultError) -> T in
            let change = Change(vault: self, paths: paths, handEdits: handEdits)
            do throws(VaultError) {
                return try body(change)
            } catch {
                // The hand-edit check gave a stale save back what it lacked (`StaleSave`) after
                // the body read the file: the body runs again on the file as it is now, its hand
                // edits committed. (A write refused for a changed file wrote nothing.)
                guard case .changedOnDisk(let path) = error, change.handEditsRewrote.contains(path) else { throw error }
                return try body(Change(vault: self, paths: paths, handEdits: handEdits))
            }
        }
    }
}
