import Dispatch
import Foundation
import Synchronization
import VaultCore

/// A search's first steps through the index, taken on another core before its query is known:
/// the index opened, its watcher asked what changed (`askWatcher`; only one that runs: none
/// is started before the search knows it will use the index), and the vault's rooms and
/// entries listed (the saved listing). A front end starts them as its process starts, before it
/// parses its arguments (`vault search`: ~5 ms of argument parsing and opening the vault, which
/// these ~10 ms then overlap); the search that follows takes them over (`takeEarly`) when they
/// are for its vault, its index and its watcher, and does them itself otherwise.
///
/// They are the same steps, in the same order, as `VaultSearch.run(_:index:)` takes: what the
/// watcher vouches for is what had happened when it answered, and the listing is made after
/// the answer. Nothing is written by them (the watch record is written after the refresh, as
/// before); a failure is left for the search to meet again.
extension SearchIndex {
    /// What the early steps found, handed to the search (`VaultSearch.run(_:index:)`).
    struct Early {
        var vouched: Vouched?
        var everything: FileList
    }

    /// The early steps for one vault, on their own thread.
    final class EarlyOpening: @unchecked Sendable {
        let vaultRoot: String
        let cacheHome: String
        let watcherCommand: [String]?
        let done = DispatchGroup()
        /// Set by the early thread before `done` is left, read after waiting on it.
        var index: SearchIndex?

        init(vaultRoot: String, cacheHome: String, watcherCommand: [String]?) {
            (self.vaultRoot, self.cacheHome, self.watcherCommand) = (vaultRoot, cacheHome, watcherCommand)
        }

        func run() {
            defer { done.leave() }
            guard let opened = try? SearchIndex(vaultRoot: vaultRoot, cacheHome: cacheHome) else { return }
            if let watcherCommand { opened.watcher = SearchWatcher(command: watcherCommand) }
            // Only a watcher that runs is asked: whether the search uses the index at all (and
            // so starts a watcher) depends on its pattern, not parsed yet. None answering, the
            // search asks (and starts) one itself, then lists.
            let first = opened.takeFirstSteps(root: vaultRoot, startingWatcher: false)
            if first.vouched != nil || watcherCommand == nil { opened.early = first }
            index = opened
            Trace.mark("search: index opened, watcher asked, files listed (other core)")
        }
    }

    private static let earlyOpening = Mutex<EarlyOpening?>(nil)

    /// Starts the early steps for the vault at `vaultRoot` when it has an index already (a
    /// search that would build one shows its progress, and is left to do it). `watcherCommand`:
    /// the watcher the search will use (nil: none).
    package static func preopen(vaultRoot: String, cacheHome: String, watcherCommand: [String]?) {
        guard exists(forVaultAt: vaultRoot, cacheHome: cacheHome) else { return }
        let opening = EarlyOpening(vaultRoot: vaultRoot, cacheHome: cacheHome, watcherCommand: watcherCommand)
        opening.done.enter()
        earlyOpening.withLock { $0 = opening }
        Thread.detachNewThread { opening.run() }
    }

    /// The index the early steps opened, their findings kept in it for the search, when they
    /// were started for this vault, cache and watcher (waiting for them to end); nil otherwise,
    /// or when they failed. Taken once.
    package static func takeEarly(vaultRoot: String, cacheHome: String, watcherCommand: [String]?) -> SearchIndex? {
        let taken = earlyOpening.withLock { started -> EarlyOpening? in
            guard let opening = started, opening.vaultRoot == vaultRoot, opening.cacheHome == cacheHome,
                opening.watcherCommand == watcherCommand
            else { return nil }
            started = nil
            return opening
        }
        guard let taken else { return nil }
        taken.done.wait()
        return taken.index
    }

    /// The watcher asked, then the files listed: the steps before the query.
    func takeFirstSteps(root: String, startingWatcher: Bool = true) -> Early {
        let vouched = askWatcher(starting: startingWatcher)
        let everything = FileList.everything(root: root, cache: listingPath, racyMargin: racyMargin)
        return Early(vouched: vouched, everything: everything)
    }
}
