import Foundation
import VaultCore

/// The vault's history, opened only when the first commit is about to be made.
///
/// A command that fails before it changes anything (a name that matches no room, a
/// malformed file) therefore leaves no trace, not even a new repository. A vault with
/// no repository at or above it gets one at that moment; a vault inside a repository
/// it does not own is refused then, before any file is written.
public final class GitHistoryOnDemand: VaultHistory, @unchecked Sendable {
    let root: String
    let config: VaultConfig
    let report: (String) -> Void
    private var opened: GitHistory?
    /// Set while `openInBackground` works; `history()` waits for it.
    private var opening: DispatchGroup?

    /// - Parameter report: shows a note or warning to the person (e.g. on standard error).
    public init(vault root: String, config: VaultConfig, report: @escaping (String) -> Void) {
        self.root = root
        self.config = config
        self.report = report
        LibGit2.warmUp()
    }

    /// Opens the vault's own repository on another core now and reads HEAD's trees down to
    /// `folder` (e.g. `rooms`), so the command's first commit finds them in memory: on a vault
    /// with thousands of rooms, reading the `rooms` tree is a millisecond or more. Only a
    /// repository that already exists at the vault's root is opened this way; anything
    /// else (none yet, a foreign one, an error) is left to `history()`, as before.
    public func openInBackground(readingTreeOf folder: String) {
        guard opened == nil, opening == nil, FileIO.exists(root + "/.git") else { return }
        let group = DispatchGroup()
        opening = group
        DispatchQueue.global(qos: .userInitiated).async(group: group) {
            guard (try? GitHistory.locate(self.root)) == .own,
                let history = try? GitHistory(vault: self.root, config: self.config)
            else { return }
            history.readTrees(to: folder)
            self.opened = history
            Trace.mark("history opened, trees read (other core)")
        }
    }

    /// The repository, opened (or made) now.
    public func history() throws(VaultError) -> GitHistory {
        if let opening {
            opening.wait()
            self.opening = nil
            if let opened, let warning = opened.author.warning { report("warning: " + warning) }
        }
        if let opened { return opened }
        let history: GitHistory
        if try GitHistory.locate(root) == .none {
            history = try GitHistory.create(vault: root, config: config)
            report("made a git repository in \(root): every change is now a commit")
        } else {
            history = try GitHistory(vault: root, config: config)
        }
        if let warning = history.author.warning { report("warning: " + warning) }
        opened = history
        return history
    }

    /// Loads and starts libgit2 on another core right away (its libraries take ~3 ms to load).
    /// `main` calls this first for commands that commit or read history, so the loading
    /// overlaps argument parsing and reading the vault.
    public static func warmUp() { LibGit2.warmUp() }

    public func prepare(_ paths: [String]) throws(VaultError) { try history().prepare(paths) }

    public func commit(_ paths: [String], message: String) throws(VaultError) {
        try history().commit(paths, message: message)
    }
}
