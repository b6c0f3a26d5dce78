import Foundation
import VaultCore
import VaultSearch

/// `vault search`'s choice of engine, for every front end: the index (a cache outside the
/// vault, brought up to date before each search, so a hand edit is found at once) when asked
/// for or already built, else a scan of every file; the index's background watcher when a
/// watcher command is given.
///
/// The search itself is `VaultSearch`'s; this adds the policy and hands back notes (an index
/// build's summary, files skipped) instead of printing them.
///
///     var searching = Searching(index: .whenBuilt)
///     searching.watcherCommand = ["/usr/bin/vault", "search-watcher"]
///     let outcome = try searching.run(VaultSearch(vault: vault), query)
///     outcome.results.items; outcome.notes
public struct Searching {
    /// Whether the index is used.
    public enum IndexUse: Sendable, Equatable {
        /// When the vault has one already (the default).
        case whenBuilt
        /// Built, or brought up to date, now, and used (`--index`).
        case build
        /// Never: every file scanned (`--no-index`).
        case never
    }

    public var index: IndexUse
    /// The program that keeps the index's watcher (`vault search-watcher`), or nil for none:
    /// every file's stamp is then checked before each search.
    public var watcherCommand: [String]?
    /// The index's progress as it is built (`ProgressEvent`), when a front end shows it.
    public var onProgress: ProgressHandler?

    public init(index: IndexUse = .whenBuilt, watcherCommand: [String]? = nil) {
        self.index = index
        self.watcherCommand = watcherCommand
    }

    /// What a search found, and what the person should know.
    public struct Outcome {
        public var results: SearchResults
        /// Whether the index was used (opened and brought up to date).
        public var usedIndex: Bool
        /// The index's summary when it read many files, each file skipped.
        public var notes: [Note]
    }

    /// Runs `query` in `vault`: the engine made here, with its listing cache beside the index,
    /// then given to `configure` (its printer, its context lines).
    ///
    /// - Throws: as `run(_:_:cancellation:)`.
    public func run(
        in vault: Vault, _ query: SearchQuery, cancellation: Cancellation = .never,
        configure: (inout VaultSearch) -> Void = { _ in }
    ) throws(VaultError) -> Outcome {
        var search = VaultSearch(vault: vault)
        search.listingCache = SearchIndex.listingPath(forVaultAt: vault.root, cacheHome: vault.settings.cacheHome)
        configure(&search)
        return try run(search, query, cancellation: cancellation)
    }

    /// Runs `query` with `search` (its printer, context and listing cache set by the caller).
    ///
    /// - Throws: `VaultError.cancelled` when `cancellation` is cancelled before it starts;
    ///   the search's own errors.
    public func run(_ search: VaultSearch, _ query: SearchQuery, cancellation: Cancellation = .never)
        throws(VaultError) -> Outcome
    {
        try cancellation.check("searching")
        let root = search.vault.root
        let cacheHome = search.vault.settings.cacheHome
        var notes: [Note] = []
        let results: SearchResults
        let indexed = index != .never && (index == .build || SearchIndex.exists(forVaultAt: root, cacheHome: cacheHome))
        if indexed {
            let started = Date()
            // Opened, and the watcher asked, on another core as the process started
            // (`VaultSession.preopenSearch`), when that was for this vault and watcher.
            let early = SearchIndex.takeEarly(vaultRoot: root, cacheHome: cacheHome, watcherCommand: watcherCommand)
            let searchIndex: SearchIndex
            if let early { searchIndex = early } else { searchIndex = try SearchIndex(vaultRoot: root, cacheHome: cacheHome) }
            Trace.mark("search: index opened")
            if let watcherCommand { searchIndex.watcher = SearchWatcher(command: watcherCommand) }
            searchIndex.onProgress = onProgress
            let (found, refresh) = try search.run(query, index: searchIndex, refreshingAnyway: index == .build)
            if refresh.indexed >= 1000 || (index == .build && refresh.read > 0) {
                let seconds = String(format: "%.1f", Date().timeIntervalSince(started))
                let size = ByteCountFormatter.string(fromByteCount: Int64(searchIndex.sizeInBytes), countStyle: .file)
                notes.append(
                    .note(
                        "search index: \(refresh.read) files read, \(refresh.indexed) indexed,"
                            + " \(refresh.removed) removed in \(seconds) s (\(searchIndex.path), \(size))"))
            }
            results = found
        } else {
            results = try search.run(query)
        }
        for (path, reason) in results.skipped { notes.append(.warning("skipped \(path): \(reason)")) }
        return Outcome(results: results, usedIndex: indexed, notes: notes)
    }
}

extension VaultSession {
    /// Starts, on another core, a search's first steps through the index of the vault at
    /// `root` (opened, its watcher asked, the files listed; nothing written), when it has one:
    /// a front end calls it as it starts, before parsing its arguments, having found the vault
    /// the way the search will; `Searching.run` then takes them over when it searches that
    /// vault with the same watcher (`watcherCommand`: `Searching.watcherCommand`).
    public static func preopenSearch(root: String, settings: ProcessSettings, watcherCommand: [String]?) {
        SearchIndex.preopen(vaultRoot: root, cacheHome: settings.cacheHome, watcherCommand: watcherCommand)
    }

    /// `vault search-watcher`: the search index's watcher for the vault at `root`, run in this
    /// process until it has been idle for `idleSeconds`; its exit status (`SearchWatcher.serve`).
    public static func serveSearchWatcher(
        root: String, indexPath: String, readyFD: Int32, idleSeconds: Double, maxPaths: Int
    ) -> Int32 {
        SearchWatcher.serve(root: root, indexPath: indexPath, readyFD: readyFD, idleSeconds: idleSeconds, maxPaths: maxPaths)
    }
}
