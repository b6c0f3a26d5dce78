import CGit2Loader
import Foundation
import Synchronization
import VaultCore

/// The vault's history, opened only when the first commit is about to be made.
///
/// A command that fails before it changes anything (a name that matches no room, a
/// malformed file) therefore leaves no trace, not even a new repository. A vault with
/// no repository at or above it gets one at that moment; a vault inside a repository
/// it does not own is refused then, before any file is written.
package final class GitHistoryOnDemand: VaultHistory, @unchecked Sendable {
    let root: String
    let config: VaultConfig
    let settings: ProcessSettings
    let report: (String) -> Void
    private var opened: GitHistory?
    /// The opening on another core (`openInBackground`, or `preopen`'s when it is this
    /// vault's); `history()` waits for it.
    private var pending: Opening?
    /// Held while `history()` opens the repository: a long-running front end (the MCP server)
    /// may ask from several threads at once, and it is opened (or made) once.
    private let opening = NSLock()

    /// - Parameter report: shows a note or warning to the person (e.g. on standard error).
    package init(
        vault root: String, config: VaultConfig, settings: ProcessSettings = .standard,
        report: @escaping (String) -> Void
    ) {
        self.root = root
        self.config = config
        self.settings = settings
        self.report = report
        // Loading libgit2 on another core, unless `preopen` does it already (a thread started
        // while libraries load waits for the loader's lock).
        if !GitHistoryOnDemand.earlyOpen.withLock({ $0 != nil }) { LibGit2.warmUp() }
    }

    /// Opens the vault's own repository on another core now and reads HEAD's trees down to
    /// `folder` (e.g. `rooms`), so the command's first commit finds them in memory: on a vault
    /// with thousands of rooms, reading the `rooms` tree is a millisecond or more. Only a
    /// repository that already exists at the vault's root is opened this way; anything
    /// else (none yet, a foreign one, an error) is left to `history()`, as before.
    package func openInBackground(readingTreeOf folder: String) {
        guard opened == nil, pending == nil, FileIO.exists(root + "/.git") else { return }
        if let started = GitHistoryOnDemand.takeEarlyOpen(root: root) {
            pending = started
            return
        }
        let opening = Opening(root: root, folder: folder, config: config, settings: settings)
        pending = opening
        DispatchQueue.global(qos: .userInitiated).async { opening.run() }
    }

    /// The identity of the repository's commits (opened now, if it was not).
    package func identity() throws(VaultError) -> Identity? { try history().author }

    /// The repository, opened (or made) now.
    package func history() throws(VaultError) -> GitHistory {
        opening.lock()
        defer { opening.unlock() }
        if let pending {
            pending.group.wait()
            self.pending = nil
            opened = pending.history
            if let opened, let warning = opened.author.warning { report("warning: " + warning) }
        }
        if let opened { return opened }
        let history: GitHistory
        if try GitHistory.locate(root) == .none {
            history = try GitHistory.create(vault: root, config: config, settings: settings)
            report("made a git repository in \(root): every change is now a commit")
        } else {
            history = try GitHistory(vault: root, config: config, settings: settings)
        }
        if let warning = history.author.warning { report("warning: " + warning) }
        opened = history
        return history
    }

    /// An opening of a vault's repository on another core.
    final class Opening: @unchecked Sendable {
        let root: String
        let folder: String
        /// The vault's configuration, when known (`preopen` runs before it is read).
        let config: VaultConfig?
        let settings: ProcessSettings
        let group = DispatchGroup()
        // Written by the opening thread before `group` is left; read after waiting on it.
        var history: GitHistory?

        /// Made entered: `run` leaves `group`.
        init(root: String, folder: String, config: VaultConfig? = nil, settings: ProcessSettings) {
            self.root = root
            self.folder = folder
            self.config = config
            self.settings = settings
            group.enter()
        }

        /// Opens the repository (its own, existing one only) and reads HEAD's trees.
        func run() {
            defer { group.leave() }
            guard FileIO.exists(root + "/.git"), (try? GitHistory.locate(root)) == .own,
                let config = config
                    ?? (try? FileIO.read(root + "/" + VaultPath.config)).flatMap({ try? VaultConfig(parsing: $0) }),
                let opened = try? GitHistory(vault: root, config: config, settings: settings)
            else { return }
            opened.readTrees(to: folder)
            history = opened
            Trace.mark("history opened, trees read (other core)")
        }
    }

    private static let earlyOpen = Mutex<Opening?>(nil)

    /// Starts, on another core, what a chat turn's first commit needs from git: loading
    /// libgit2, opening the repository of the vault at `root` (its own, existing one only) and
    /// reading HEAD's trees down to `folder`. `main` calls it before the arguments are parsed,
    /// having found the vault the way the command will (`--vault`, `VAULT_DIR`, the folders
    /// above); the command's `GitHistoryOnDemand` then takes it over. It runs on the thread
    /// that began loading libgit2 as the process started (`CGit2Loader`), else on a new one.
    /// Nothing is created or written, and any failure is left for the command to meet.
    package static func preopen(root: String, readingTreeOf folder: String, settings: ProcessSettings) {
        let opening = Opening(root: root, folder: folder, settings: settings)
        earlyOpen.withLock { $0 = opening }
        let work: @convention(c) (UnsafeMutableRawPointer?) -> Void = { context in
            Unmanaged<Opening>.fromOpaque(context!).takeRetainedValue().run()
        }
        let context = Unmanaged.passRetained(opening)
        if cvault_git2_hand_over(work, context.toOpaque()) == 0 {
            context.release()  // not handed over: not run there
            Thread.detachNewThread { opening.run() }
        }
    }

    static func takeEarlyOpen(root: String) -> Opening? {
        earlyOpen.withLock { started -> Opening? in
            guard let opening = started, opening.root == root else { return nil }
            started = nil
            return opening
        }
    }

    /// Loads and starts libgit2 on another core right away (its libraries take ~3 ms to load).
    /// `main` calls this first for commands that commit or read history, so the loading
    /// overlaps argument parsing and reading the vault.
    package static func warmUp() { LibGit2.warmUp() }

    /// Whether libgit2 can be loaded here (it is, now, when it can).
    package static var libraryLoads: Bool { LibGit2.loads }

    @discardableResult
    package func prepare(_ paths: [String], known: [String: KnownFile], notes: NoteSink) throws(VaultError) -> [String] {
        try history().prepare(paths, known: known, notes: notes)
    }

    /// Notes the paths (`CommitIntent`) without opening the repository.
    package func willChange(_ paths: [String]) { CommitIntent.add(paths, root: root) }

    package func committedVersion(of path: String) throws(VaultError) -> [UInt8]? {
        try history().committedVersion(of: path)
    }

    @discardableResult
    package func commit(_ paths: [String], message: String, known: [String: KnownFile]) throws(VaultError) -> Bool {
        try history().commit(paths, message: message, known: known)
    }
}
