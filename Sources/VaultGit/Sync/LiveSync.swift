import Foundation
import VaultCore

/// `vault watch`: the vault synced every few seconds, and the messages that came in, as a
/// messenger shows them while a room is open.
///
/// Each `step` is one `VaultSync.sync` (what this machine wrote meanwhile is pushed by it, what
/// others wrote comes in), and says what arrived, message by message, in the rooms' order.
/// While syncs fail (offline, the remote unreachable) the wait before the next doubles, up to
/// `maxInterval`; the first sync that works brings it back to `interval`. The caller waits
/// (`delay`) and decides when to stop: the library reads no signals.
///
///     let live = LiveSync(vault: vault, history: history, interval: 5)
///     while !stopped {
///         let step = live.step(room: "rooms/trip.md")
///         for arrival in step.arrivals { show(arrival) }
///         wait(step.delay)
///     }
public final class LiveSync {
    public let vault: Vault
    public let history: GitHistory
    /// The remote (nil: as `vault sync` chooses).
    public let remote: String?
    /// Seconds between syncs while they work, and the longest wait while they fail.
    public let interval: Double
    public let maxInterval: Double
    /// Gives each sync what it needs besides the vault (the search watcher): set by the front end.
    public var prepare: ((VaultSync) -> Void)?
    /// This machine's caps on what comes in (`VaultSync.machineLimits`).
    public var machineLimits = IncomingLimits()
    /// The wait before the next sync.
    public private(set) var delay: Double

    public init(vault: Vault, history: GitHistory, remote: String? = nil, interval: Double = 5, maxInterval: Double = 60) {
        self.vault = vault.history === history ? vault : vault.with(history: history)
        self.history = history
        self.remote = remote
        self.interval = max(0.1, interval)
        self.maxInterval = max(self.interval, maxInterval)
        self.delay = self.interval
    }

    /// What came into one room.
    public struct Arrival: Sendable {
        package var path: String
        package var title: String
        /// The messages that came in, in the room's order.
        package var messages: [Message]
    }

    /// What one sync did.
    public struct Step: Sendable {
        /// The sync's report; nil when it failed.
        package var report: SyncReport?
        /// Why it failed.
        package var failure: VaultError?
        /// What came in (in `room` only, when one is watched).
        package var arrivals: [Arrival] = []
        /// The wait before the next sync.
        package var delay: Double
    }

    /// Syncs once and reads what came in and was not shown yet: into `room` only, when given (a
    /// path).
    ///
    /// What came in is what the sync marked unread (`UnreadMarks`, marked as a merge writes it):
    /// so messages a merge brought in are shown even when the sync failed after it (a push the
    /// remote refused three times while others pushed), and what this machine's person wrote is
    /// never shown as arriving. `shown` takes an arrival's marks away.
    public func step(room: String? = nil) -> Step {
        let sync = VaultSync(vault: vault, history: history)
        sync.machineLimits = machineLimits
        prepare?(sync)
        var report: SyncReport?
        var failure: VaultError?
        do {
            report = try sync.sync(remote: remote)
            delay = interval
        } catch {
            failure = error
            delay = min(maxInterval, delay * 2)
        }
        var arrivals: [Arrival] = []
        for (path, marked) in UnreadMarks.load(root: vault.root).sorted(by: { $0.key < $1.key })
        where !marked.isEmpty && (room == nil || path == room) {
            let ids = Set(marked)
            // Read back to the oldest that came in (a long room is not read whole).
            guard
                let file = try? RoomFile.readEnd(vault.absolute(path), path: path, enough: { file in
                    ids.isSubset(of: file.messages.map(\.id))
                }).room
            else { continue }
            let messages = file.messages.filter { ids.contains($0.id) }
            if !messages.isEmpty { arrivals.append(Arrival(path: path, title: file.title, messages: messages)) }
        }
        return Step(report: report, failure: failure, arrivals: arrivals, delay: delay)
    }

    /// Marks an arrival's messages read (they were shown).
    public func shown(_ arrival: Arrival) {
        UnreadMarks.remove([(arrival.path, arrival.messages.map(\.id))], root: vault.root)
    }
}
