import Foundation
import VaultCore
import VaultGit

#if canImport(Glibc)
import Glibc
#endif

/// The rooms and diary entries that changed in a window of time: by vault's own commits, by
/// what came in by sync (its merge commits, and the commits of other machines a sync brought),
/// and by hand edits not committed yet (a file whose modification time falls in the window
/// and that differs from its last commit).
///
///     let activity = try RecentActivity(vault: vault, history: session.existingRepository())
///     let lastHour = try activity.changes(since: Date().addingTimeInterval(-3600))
///     let recent = try activity.changes(from: today.adding(days: -1), to: nil)   // days, the vault's zone
///     for item in recent.items { print(item.path, item.changes.map(\.summary)) }
public struct RecentActivity {
    public let vault: Vault
    /// The vault's repository, or nil for a vault without one (then only files' times count).
    public let history: GitHistory?

    public init(vault: Vault, history: GitHistory?) {
        self.vault = vault
        self.history = history
    }

    /// One commit that changed an item.
    public struct Change: Sendable, Codable, Equatable {
        public var commit: String
        /// The commit's time with its offset, as written.
        public var time: String
        public var author: String
        public var summary: String
        /// Whether it is a sync's merge: the item came in from another machine.
        public var bySync: Bool
    }

    /// A room or diary entry that changed in the window.
    public struct Item: Sendable, Codable, Equatable {
        /// Its path, relative to the vault.
        public var path: String
        /// Whether it is a room (else a diary entry).
        public var isRoom: Bool
        /// Whether it is still there (a removal in the window lists it too).
        public var exists: Bool
        /// Its commits in the window, newest first.
        public var changes: [Change]
        /// Whether the file on disk differs from its last commit (a hand edit not committed yet).
        public var editedByHand: Bool
    }

    /// What changed, newest first (items in the order of their newest change; hand edits first).
    public struct Activity: Sendable {
        public var items: [Item]
        public var notes: [Note]
    }

    /// The rooms and entries that changed on or after `from` and on or before `to` (days in
    /// the vault's time zone; nil: no bound).
    ///
    /// - Throws: `VaultError.cancelled` when `cancellation` is cancelled between steps; the
    ///   repository's errors.
    public func changes(from: LocalDate?, to: LocalDate?, cancellation: Cancellation = .never) throws(VaultError)
        -> Activity
    {
        let zone = vault.config.timeZone
        let inWindow = { (date: Date) -> Bool in
            let day = Timestamp(date: date, timeZone: zone).localDate
            return (from.map { day >= $0 } ?? true) && (to.map { day <= $0 } ?? true)
        }
        return try changes(days: (from, to), inWindow, cancellation: cancellation)
    }

    /// The rooms and entries that changed at or after `since` and before `until` (nil: now):
    /// "the last hour".
    public func changes(since: Date, until: Date? = nil, cancellation: Cancellation = .never) throws(VaultError)
        -> Activity
    {
        let zone = vault.config.timeZone
        let days = (
            Timestamp(date: since, timeZone: zone).localDate, until.map { Timestamp(date: $0, timeZone: zone).localDate }
        )
        let inWindow = { (date: Date) -> Bool in date >= since && (until.map { date < $0 } ?? true) }
        return try changes(days: days, inWindow, cancellation: cancellation)
    }

    /// The changes whose time passes `inWindow`; `days` bounds the walk of the history.
    private func changes(
        days: (LocalDate?, LocalDate?), _ inWindow: (Date) -> Bool, cancellation: Cancellation
    ) throws(VaultError) -> Activity {
        let zone = vault.config.timeZone
        var notes: [Note] = []
        var byPath: [String: Item] = [:]
        var order: [String] = []
        func isItem(_ path: String) -> Bool {
            (path.hasPrefix(VaultPath.rooms + "/") || path.hasPrefix(VaultPath.diary + "/")) && path.hasSuffix(".md")
        }
        func item(_ path: String) -> Item {
            byPath[path]
                ?? Item(
                    path: path, isRoom: path.hasPrefix(VaultPath.rooms + "/"),
                    exists: FileIO.exists(vault.absolute(path)), changes: [], editedByHand: false)
        }
        // Hand edits not committed yet: files whose time is in the window and that differ from HEAD.
        try cancellation.check("looking for hand edits")
        for path in vault.roomPaths(sorted: true) + vault.diaryPaths() {
            guard let modified = RecentActivity.modified(vault.absolute(path)), inWindow(modified) else { continue }
            let committed = try history?.committedVersion(of: path)
            if history != nil, let bytes = try? FileIO.read(vault.absolute(path)), committed == bytes { continue }
            var found = item(path)
            found.editedByHand = true
            if byPath[path] == nil { order.append(path) }
            byPath[path] = found
        }
        if let history {
            try cancellation.check("reading the history")
            let commits = try history.log(LogFilter(since: days.0, until: days.1, zone: zone, limit: Int.max))
            for commit in commits {
                guard let time = Timestamp(rfc3339: commit.time), inWindow(time.date) else { continue }
                let change = Change(
                    commit: commit.id, time: commit.time, author: commit.author, summary: commit.summary,
                    bySync: commit.summary.hasPrefix("sync: merge"))
                for path in commit.files where isItem(path) {
                    var found = item(path)
                    found.changes.append(change)
                    if byPath[path] == nil { order.append(path) }
                    byPath[path] = found
                }
            }
        } else {
            notes.append(.note("the vault has no git repository: only files' modification times were looked at"))
        }
        return Activity(items: order.compactMap { byPath[$0] }, notes: notes)
    }

    /// When the file was last modified; nil when it cannot be read.
    static func modified(_ path: String) -> Date? {
        var st = stat()
        guard lstat(path, &st) == 0 else { return nil }
        return Date(timeIntervalSince1970: Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec) / 1e9)
    }
}
