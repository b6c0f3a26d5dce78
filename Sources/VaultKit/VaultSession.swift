import Foundation
import Synchronization
import VaultCore
import VaultGit
import VaultSearch

/// A vault opened by a front end: the one place the command line and the MCP server open
/// one, with its history attached, or read-only by choice.
///
/// Opened for change, every change the vault's workflows make is one commit: the repository
/// is opened when the first commit is about to be made (`GitHistoryOnDemand`; a vault with none
/// gets one then, a vault inside someone else's repository is refused then). Opened read-only,
/// every change is refused before anything is locked or written (`VaultError.readOnly`):
/// there is no third way, a vault that changes files and silently commits nothing.
///
/// The session prints nothing: what the library has to say (a repository made, an
/// interrupted append finished, a turn waited for) goes to `notes`. A long-running front end
/// keeps one session and gives each request its own notes (`vault.reporting(to:)`).
///
///     let session = try VaultSession(
///         locating: nil, access: .change, notes: { note in log(note.description) })
///     let writing = DiaryWriting(vault: session.vault, zone: session.vault.config.timeZone)
///     let entry = try writing.newEntry(title: "첫눈", date: nil, tags: [])
///     let result = try writing.write(entry, text: "눈이 왔다.\n")      // one commit
///
///     let reader = try VaultSession(root: "/home/me/vault", access: .readOnly)
///     try DiaryWriting(vault: reader.vault, zone: zone).write(entry, text: "…")  // VaultError.readOnly
public final class VaultSession: Sendable {
    /// What the session may do to the vault.
    public enum Access: Sendable, Equatable {
        /// Change it: every change a commit.
        case change
        /// Only read it: every change refused, nothing locked, written or committed.
        case readOnly
    }

    /// The vault, with its history (`.change`) or refusing changes (`.readOnly`).
    public let vault: Vault
    public let access: Access
    /// Where the session's notes go (also the vault's `notes`).
    public let notes: NoteSink
    /// What the front end read from its process (also the vault's and its history's).
    public let settings: ProcessSettings
    /// The history committed into, opened on demand (`.change` only).
    private let onDemand: GitHistoryOnDemand?
    /// The repository as it is, once opened (`existingRepository`, a read-only session's).
    private let existing = Mutex<GitHistory?>(nil)
    /// The watcher of the vault's files (`watcher`), once built.
    private let builtWatcher = Mutex<VaultWatcher??>(nil)

    /// Opens the vault at `root`.
    ///
    /// - Parameters:
    ///   - access: `.change` attaches the history; `.readOnly` refuses every change.
    ///   - settings: what the front end read from its process (`ProcessSettings`).
    ///   - notes: where notes go as they happen; nowhere by default.
    ///   - folder: the folder the session will change first (`rooms` for a chat turn): its
    ///     repository is opened, and HEAD's trees down to it read, on another core meanwhile.
    /// - Throws: `VaultError.notAVault` when `root` has no `vault.yml`; `.malformed` when it
    ///   cannot be read; `.untrusted` when its `.vault` or `.git` is a link or another user's.
    public init(
        root: String, access: Access, settings: ProcessSettings, notes: @escaping NoteSink = { _ in },
        prefetching folder: String? = nil
    ) throws(VaultError) {
        let plain = try Vault(root: root, notes: notes, settings: settings)
        self.access = access
        self.notes = notes
        self.settings = settings
        switch access {
        case .readOnly:
            onDemand = nil
            vault = plain.readingOnly()
        case .change:
            let history = GitHistoryOnDemand(vault: plain.root, config: plain.config, settings: settings) {
                notes(Note(reported: $0))
            }
            if let folder { history.openInBackground(readingTreeOf: folder) }
            onDemand = history
            vault = plain.with(history: history)
        }
        checkArrivals()
    }

    /// Checks who wrote the commits that reached the branch since this machine last looked
    /// (`git pull`, `git merge`, `git am`, a plain `git clone`, a fast-forward by hand) as a sync
    /// checks what it brings (issue #36): a message whose commit does not bear out its author is
    /// marked unverified, and unread. When nothing came in it costs one comparison of HEAD's id
    /// with the one last checked, read from two small files; libgit2 is not loaded. Every session
    /// does it as it opens; a long-running front end (the MCP server) before each request.
    ///
    /// Never fails a read: what keeps it from checking (a lock another process holds past the
    /// timeout, a damaged repository) is a note, and the next command tries again.
    public func checkArrivals() {
        VaultSession.checkArrivals(of: vault, settings: settings)
    }

    /// `checkArrivals()` for `vault` (a clone just made), its notes to the vault's.
    static func checkArrivals(of vault: Vault, settings: ProcessSettings) {
        // Without libgit2 there is nothing to check with; a command that needs git says so itself.
        guard !AuthorshipCheckpoint.isCurrent(root: vault.root), GitHistoryOnDemand.libraryLoads else { return }
        do throws(VaultError) {
            // Its own repository: a server calls it from the thread of each request.
            let history = try GitHistory(vault: vault.root, config: vault.config, settings: settings)
            // First without the lock: when nothing is to be marked (the common case: commits
            // that bear out their authors), all it writes is how far it checked, in the git
            // directory, and a read leaves the vault's folders as they were.
            var check = try history.checkArrivedAuthors(in: vault, lookingOnly: true)
            var lock: VaultLock?
            if check.marksToWrite {
                lock = try VaultLock(
                    vaultRoot: vault.root, timeout: settings.lockTimeout, doing: "vault: checking who wrote what came in")
                guard !AuthorshipCheckpoint.isCurrent(root: vault.root) else { return }
                check = try history.checkArrivedAuthors(in: vault)
            }
            defer { withExtendedLifetime(lock) {} }
            let marked = check.marked.values.reduce(0) { $0 + $1.count }
            if marked > 0 {
                vault.notes(
                    Note(
                        reported: "\(marked) message\(marked == 1 ? "" : "s") that came in outside `vault sync` "
                            + "marked unverified: their commits do not bear out their authors (`vault rooms` counts them)"))
            }
            if check.limited {
                vault.notes(
                    Note(reported: "checked who wrote the last \(check.commits) commits; older ones were not checked"))
            }
        } catch VaultError.repository(.noRepository) {
            return
        } catch {
            vault.notes(Note(reported: "could not check who wrote the commits that came in: \(error.description)"))
        }
    }

    /// Opens the vault `Vault.locate` finds: `explicit` (`--vault DIR`), else `VAULT_DIR` in
    /// `settings.environment`, else the nearest folder at or above `workingDirectory` with `vault.yml`.
    public convenience init(
        locating explicit: String?, workingDirectory: String, access: Access, settings: ProcessSettings,
        notes: @escaping NoteSink = { _ in }, prefetching folder: String? = nil
    ) throws(VaultError) {
        let root = try Vault.locate(
            explicit: explicit, environment: settings.environment, workingDirectory: workingDirectory)
        try self.init(root: root, access: access, settings: settings, notes: notes, prefetching: folder)
    }

    /// The repository the session commits into, opened now (made when the vault has none):
    /// for the workflows that work on git itself (sync, adding a remote).
    ///
    /// - Throws: `VaultError.readOnly` for a read-only session.
    public func repository() throws(VaultError) -> GitHistory {
        guard let onDemand else {
            throw VaultError.readOnly(root: vault.root, operation: "make or change its git repository")
        }
        return try onDemand.history()
    }

    /// The vault's repository as it is, never made: to read its history (`log`, `diff`,
    /// `status`, the remotes), in any session.
    ///
    /// - Throws: `VaultError.repository` when the vault has no repository of its own.
    ///
    /// Opened once, for the thread that uses the session (a command): the session's history
    /// (opened now if it was not, never made), else a repository kept for the session's life.
    /// Work on another thread at the same time asks `openRepository()` for its own.
    public func existingRepository() throws(VaultError) -> GitHistory {
        if let onDemand, FileIO.exists(vault.root + "/.git"), (try? GitHistory.locate(vault.root)) == .own {
            return try onDemand.history()
        }
        if let opened = existing.withLock({ $0 }) { return opened }
        let opened = try GitHistory(vault: vault.root, config: vault.config, settings: settings)
        return existing.withLock { kept in
            if let kept { return kept }
            kept = opened
            return opened
        }
    }

    /// The vault's repository opened anew, never made, for work on a thread of its own: a
    /// server's request, a sync in the background of a chat prompt. libgit2's objects are used
    /// from one thread at a time (its THREADING.md), so two threads never share one.
    ///
    /// - Throws: `VaultError.repository` when the vault has no repository of its own.
    public func openRepository() throws(VaultError) -> GitHistory {
        try GitHistory(vault: vault.root, config: vault.config, settings: settings)
    }

    /// The watcher of the vault's files that tells a sync, `vault watch` and the MCP server what
    /// changed (the search index's; `ProcessSettings.watcherCommand` starts it), nil when the
    /// front end gave no command: then every file's stamp is checked. Built once.
    public var watcher: VaultWatcher? {
        builtWatcher.withLock { built in
            if let built { return built }
            let made = VaultSession.watcher(ofVaultAt: vault.root, settings: settings)
            built = .some(made)
            return made
        }
    }

    /// A watcher of the vault at `root` (nil when `settings` gives no watcher command).
    static func watcher(ofVaultAt root: String, settings: ProcessSettings) -> VaultWatcher? {
        settings.watcherCommand.flatMap { VaultWatcher(vaultRoot: root, command: $0, cacheHome: settings.cacheHome) }
    }

    /// The vault committing into its existing repository, never made (`resolve` and
    /// `restore` repair or read a history that must already be there).
    ///
    /// - Throws: `VaultError.readOnly` for a read-only session; `.repository` when there is none.
    public func changingExistingRepository() throws(VaultError) -> (vault: Vault, history: GitHistory) {
        guard access == .change else {
            throw VaultError.readOnly(root: vault.root, operation: "commit into its git repository")
        }
        let history = try existingRepository()
        return (vault.with(history: history), history)
    }
}
