/// What keeps the vault's history: every change the tool makes becomes one commit.
///
/// `VaultCore` does not know git; `VaultGit` implements this with libgit2, and the
/// command line attaches it to the `Vault` for commands that change files. All calls
/// happen inside `Vault.changing`, holding the vault's lock; workflows reach them only through
/// `Change` (`Vault.change`).
public protocol VaultHistory: AnyObject, Sendable {
    /// Checks that a commit can be made now (no merge or rebase in progress, no stale
    /// lock), and commits, as `edit: …`, what a person changed by hand in `paths` since
    /// the last commit, so that hand edits and the tool's changes never mix.
    ///
    /// - Parameter known: versions of some of the paths the caller holds in memory (`KnownFile`):
    ///   a path whose file still has the known stamp is compared by those bytes, not read again.
    /// - Parameter notes: where what the check did on its own goes as it happens (messages a
    ///   stale save lacked, kept): the change's vault's sink (`Vault.notes`).
    /// - Returns: the paths committed as hand edits (empty: none differed from the last commit).
    @discardableResult
    func prepare(_ paths: [String], known: [String: KnownFile], notes: NoteSink) throws(VaultError) -> [String]

    /// Commits `paths` as they are on disk now (a missing file is a deletion).
    ///
    /// - Parameter known: as for `prepare`: a small file that still has the known stamp is
    ///   committed from those bytes (a large one is read in pieces all the same).
    /// - Returns: whether a commit was made: false when the files are already as the last
    ///   commit has them (nothing changed since).
    @discardableResult
    func commit(_ paths: [String], message: String, known: [String: KnownFile]) throws(VaultError) -> Bool

    /// Records that the files at `paths` are about to change (before they do), so that if this
    /// process dies before it commits them, the next vault command commits them for it.
    func willChange(_ paths: [String])

    /// The bytes of `path` as the last commit has them: nil when it is not in that commit,
    /// or there is no commit yet. What a sync or a chat turn made of a file is committed, so
    /// a workflow that handed the file to an editor tells by this what changed meanwhile.
    func committedVersion(of path: String) throws(VaultError) -> [UInt8]?

    /// Who commits (`Identity`), which is also who writes this machine's messages; nil when the
    /// history does not know (then `Vault.me()` resolves it without git's settings).
    func identity() throws(VaultError) -> Identity?
}

extension VaultHistory {
    public func willChange(_ paths: [String]) {}

    public func identity() throws(VaultError) -> Identity? { nil }

    /// `prepare(_:known:notes:)`, every path read from disk, its notes dropped.
    @discardableResult
    public func prepare(_ paths: [String]) throws(VaultError) -> [String] { try prepare(paths, known: [:], notes: { _ in }) }

    /// `commit(_:message:known:)`, every path read from disk.
    @discardableResult
    public func commit(_ paths: [String], message: String) throws(VaultError) -> Bool {
        try commit(paths, message: message, known: [:])
    }
}

/// A version of a file that a change holds whole in memory: the bytes it read or wrote, and
/// the stamp of the file as it read or wrote them.
///
/// A chat turn reads its room once; the hand-edit check and the commit use those bytes, with
/// what the turn appended, instead of reading the file twice more. They are used only while
/// the file still has `stamp` (a `stat`): a save made by an editor since changes the stamp,
/// and the file is then read as it is. (As for `FileFacts` and git's index, an in-place edit
/// that keeps the size within the same clock tick as vault's own write keeps the stamp; it is
/// then committed with vault's next change rather than on its own. No text is lost.)
public struct KnownFile: Sendable {
    public var bytes: [UInt8]
    public var stamp: FileIO.Stamp

    public init(bytes: [UInt8], stamp: FileIO.Stamp) {
        self.bytes = bytes
        self.stamp = stamp
    }
}
