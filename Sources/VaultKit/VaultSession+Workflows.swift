import Foundation
import VaultCore
import VaultGit
import VaultSearch

// The workflows a session hands out, built from what it opened once (the vault, its history,
// the watcher, this machine's caps): a front end never pairs a vault with a history, opens a
// second repository, or builds a watcher. What they return are the library's own types,
// named through VaultKit (`VaultKit/README.md`, "The public surface").

/// `vault sync`'s workflow (`VaultSession.syncing()`).
public typealias VaultSync = VaultGit.VaultSync
/// What a sync did.
public typealias SyncReport = VaultGit.SyncReport
/// What `vault sync --undo` did.
public typealias UndoReport = VaultGit.UndoReport
/// `vault status`.
public typealias VaultStatus = VaultGit.VaultStatus
/// The rooms' background sync of the chat prompt and `vault watch`.
public typealias LiveSync = VaultGit.LiveSync
/// `vault resolve`.
public typealias VaultResolve = VaultGit.VaultResolve
/// `vault remote`.
public typealias Remotes = VaultGit.Remotes
/// `vault restore`.
public typealias Restore = VaultGit.Restore
/// `vault unlock`.
public typealias Unlocking = VaultGit.Unlocking
/// `vault init`'s outcome.
public typealias Initialized = VaultGit.Initializing.Outcome
/// The vault's repository, for reading its history (`log`, `diff`).
public typealias GitHistory = VaultGit.GitHistory
/// A commit in the history (`vault log`).
public typealias HistoryEntry = VaultGit.HistoryEntry
/// Which commits `vault log` lists.
public typealias LogFilter = VaultGit.LogFilter

extension VaultSession {
    /// `vault sync`: the session's repository (made if the vault has none), its watcher and this
    /// machine's caps.
    ///
    /// - Throws: `VaultError.readOnly` for a read-only session; `.malformed` when the user
    ///   configuration's `limits:` cannot be read.
    public func syncing() throws(VaultError) -> VaultSync {
        let history = try repository()
        let sync = VaultSync(vault: vault.with(history: history), history: history)
        sync.machineLimits = try machineLimits()
        sync.watcher = watcher
        return sync
    }

    /// The background sync of a chat prompt in a shared room, or of `vault watch`. It runs on a
    /// thread of its own beside the session's commits, so on a repository of its own
    /// (`openRepository`).
    ///
    /// - Throws: `VaultError.readOnly` for a read-only session; `.repository` when the vault
    ///   has none (nothing to sync with).
    public func liveSync(remote: String? = nil, interval: Double = 5, maxInterval: Double = 60) throws(VaultError) -> LiveSync {
        guard access == .change else {
            throw VaultError.readOnly(root: vault.root, operation: "sync with its remote")
        }
        let history = try openRepository()
        let live = LiveSync(vault: vault.with(history: history), history: history, remote: remote, interval: interval, maxInterval: maxInterval)
        live.machineLimits = try machineLimits()
        // Each sync with a watcher of its own, made on the live sync's thread.
        let (root, settings) = (vault.root, settings)
        live.prepare = { sync in sync.watcher = VaultSession.watcher(ofVaultAt: root, settings: settings) }
        return live
    }

    /// `vault status`: the vault's repository as it is, never made.
    public func status() throws(VaultError) -> VaultStatus {
        try VaultStatus.read(vault: vault, history: existingRepository())
    }

    /// `vault resolve`: repairs a history that must already be there.
    public func resolving() throws(VaultError) -> VaultResolve {
        let (vault, history) = try changingExistingRepository()
        let resolve = VaultResolve(vault: vault, history: history)
        resolve.machineLimits = try machineLimits()
        return resolve
    }

    /// `vault restore`.
    public func restoring() throws(VaultError) -> Restore {
        let (vault, history) = try changingExistingRepository()
        var restore = Restore(vault: vault, history: history)
        restore.machineLimits = try machineLimits()
        return restore
    }

    /// `vault remote`: `making` opens or makes the repository (adding a remote to a new vault);
    /// else it must be there (listing, removing, choosing one).
    public func remotes(making: Bool = false) throws(VaultError) -> Remotes {
        Remotes(vault: vault, history: making ? try repository() : try existingRepository())
    }

    /// `vault unlock`.
    public func unlocking() throws(VaultError) -> Unlocking {
        guard access == .change else { throw VaultError.readOnly(root: vault.root, operation: "remove its locks") }
        return Unlocking(vault: vault)
    }

    /// This machine's caps on what comes in (sync, clone, merge, restore, import): the defaults
    /// with the user configuration's `limits:`. The libraries add the vault's git config and let
    /// `vault.yml` lower them, never raise them.
    ///
    /// - Throws: `VaultError.malformed` when the user configuration cannot be read.
    public func machineLimits() throws(VaultError) -> IncomingLimits {
        try IncomingLimits.ofThisMachine(settings)
    }

    /// What an import takes in at most: this machine's caps with the vault's git config
    /// (`vault.maxFileSize`…) when it has a repository yet; `vault.yml` lowers them as the
    /// import reads it.
    public func importLimits() throws(VaultError) -> IncomingLimits {
        let limits = try machineLimits()
        guard let history = try? existingRepository() else { return limits }
        return try history.incomingLimits(machine: limits, vault: IncomingLimits.Setting())
    }

    /// `vault clone`: the vault at `url` set up in `root`, with this machine's caps.
    public static func clone(
        url: String, into root: String, settings: ProcessSettings, interactive: Bool,
        onProgress: ProgressHandler? = nil
    ) throws(VaultError) -> Vault {
        let vault = try VaultClone.clone(
            url: url, into: root, interactive: interactive, settings: settings, onProgress: onProgress,
            limits: try IncomingLimits.ofThisMachine(settings))
        // The whole history it received is checked now, as every later arrival will be.
        VaultSession.checkArrivals(of: vault, settings: settings)
        return vault
    }

    /// The folder `vault clone URL` makes when given none (named after the remote).
    public static func cloneFolder(for url: String) -> String { VaultClone.defaultFolder(for: url) }

    /// `vault init`: a vault (and its repository) made at `root`, or the one there checked.
    public static func initialize(
        at root: String, locale: String, timeZone: TimeZone, settings: ProcessSettings
    ) throws(VaultError) -> Initialized {
        try Initializing.run(at: root, locale: locale, timeZone: timeZone, settings: settings)
    }

    /// `vault merge-driver %O %A %B %P`: the merge git's `git merge` and `git pull` run for a
    /// vault's files, in the vault at `root` (git's working directory). Its notes.
    public static func mergeDriver(
        ancestor: String, current: String, other: String, path: String, root: String, settings: ProcessSettings
    ) throws(VaultError) -> [String] {
        try MergeDriver.run(
            ancestor: ancestor, current: current, other: other, path: path, root: root, settings: settings,
            machineLimits: try IncomingLimits.ofThisMachine(settings))
    }

    /// Starts, on another core, what a chat turn's first commit needs from git (libgit2 loaded,
    /// the repository of the vault at `root` opened, HEAD's trees down to `folder` read): a
    /// front end calls it as it starts, before parsing its arguments; the session then opened
    /// for that vault takes it over.
    public static func preopen(root: String, readingTreeOf folder: String, settings: ProcessSettings) {
        GitHistoryOnDemand.preopen(root: root, readingTreeOf: folder, settings: settings)
    }

    /// Starts loading libgit2 on another core (a command that will commit or read history).
    public static func warmUp() { GitHistoryOnDemand.warmUp() }

    /// A room or entry that exists now or existed once, named as a person names it from
    /// `workingDirectory` (`log`, `diff`, `restore`).
    public func itemInHistory(_ name: String, workingDirectory: String) throws(VaultError) -> String {
        try existingRepository().item(named: name, in: vault, from: workingDirectory)
    }
}

extension IncomingLimits {
    /// The defaults with the user configuration's `limits:` (`UserConfig`, found through
    /// `settings.environment`).
    static func ofThisMachine(_ settings: ProcessSettings) throws(VaultError) -> IncomingLimits {
        IncomingLimits().setting(try UserConfig.load(environment: settings.environment).limits)
    }
}
