import Foundation
import VaultCore
import VaultGit

#if canImport(Glibc)
import Glibc
#endif

/// The rooms and diary entries that changed in a window of days: by vault's own commits, by
/// what came in by sync (its merge commits, and the commits of other machines a sync brought),
/// and by hand edits not committed yet (a file whose modification time falls in the window
/// and that differs from its last commit).
///
///     let activity = try RecentActivity(vault: vault, history: session.existingRepository())
///     let recent = try activity.changes(from: today.adding(days: -1), to: nil)
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
            guard let day = RecentActivity.modifiedDay(vault.absolute(path), zone: zone) else { continue }
            if let from, day < from { continue }
            if let to, day > to { continue }
            let committed = try history?.committedVersion(of: path)
            if history != nil, let bytes = try? FileIO.read(vault.absolute(path)), committed == bytes { continue }
            var found = item(path)
            found.editedByHand = true
            if byPath[path] == nil { order.append(path) }
            byPath[path] = found
        }
        if let history {
            try cancellation.check("reading the history")
            let commits = try history.log(LogFilter(since: from, until: to, zone: zone, limit: Int.max))
            for commit in commits {
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

    /// The day, in `zone`, of the file's last modification; nil when it cannot be read.
    static func modifiedDay(_ path: String, zone: TimeZone) -> LocalDate? {
        var st = stat()
        guard lstat(path, &st) == 0 else { return nil }
        let seconds = Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec) / 1e9
        return Timestamp(date: Date(timeIntervalSince1970: seconds), timeZone: zone).localDate
    }
}
