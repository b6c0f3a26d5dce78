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

    /// Commits, as their own commit (`edit: …`), what a person changed by hand in the change's
    /// paths since the last commit; checks first that a commit can be made at all (no merge in
    /// progress, no stale lock). Done once, by the first write, removal or commit at the
    /// latest; call it earlier to fail before anything is read.
    public func commitHandEdits() throws(VaultError) {
        guard !handEditsChecked else { return }
        handEditsChecked = true
        if handEdits == .committedFirst { try vault.history?.prepare(paths) }
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
        try vault.write(bytes, to: path, expecting: expecting)
    }

    /// Removes a vault file (`Vault.remove`), after the hand edits are committed.
    public func remove(_ path: String) throws(VaultError) {
        try willWrite(path)
        try vault.remove(path)
    }

    /// Replaces a room's end in place (`Vault.replaceTail`), after the hand edits are committed.
    ///
    /// - Returns: the file's stamp after the write.
    public func replaceTail(
        of path: String, from offset: Int, with bytes: [UInt8], mark: [UInt8], expecting expected: FileIO.Stamp
    ) throws(VaultError) -> FileIO.Stamp {
        try willWrite(path)
        return try vault.replaceTail(of: path, from: offset, with: bytes, mark: mark, expecting: expected)
    }

    /// Like `replaceTail(of:from:with:mark:expecting:)`, with the new end in parts (a long reply
    /// copied from its file).
    public func replaceTail(
        of path: String, from offset: Int, with parts: [TailWrite.Part], mark: [UInt8], expecting expected: FileIO.Stamp
    ) throws(VaultError) -> FileIO.Stamp {
        try willWrite(path)
        return try vault.replaceTail(of: path, from: offset, with: parts, mark: mark, expecting: expected)
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
        let made = try vault.history?.commit(paths, message: message) ?? false
        committed = made
        return made
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
            try body(Change(vault: self, paths: paths, handEdits: handEdits))
        }
    }
}
