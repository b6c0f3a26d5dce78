#if canImport(Glibc)
import Glibc
#endif

/// Something that tells which of a vault's rooms and diary entries changed since an earlier
/// question, so a command need not `stat` every file to find hand edits: `vault search`'s
/// inotify watcher (`VaultSearch.VaultWatcher`), asked by `vault sync` as by a search.
///
/// It vouches only for the files it watches (`watches(_:)`): `*.md` files straight under
/// `rooms/`, and under `diary/` and its folders, none of whose names begins with a dot.
/// Everything else in the vault is checked the usual way.
///
///     let answer = watcher.changes(since: saved)      // before anything is read
///     if let changed = answer?.changed, answer?.point.epoch == saved?.epoch { /* only these */ }
public protocol WorkTreeWatcher: Sendable {
    /// What changed since `point` (nil: the first question, answered "everything"). Asked
    /// before the files are read: a change made after the answer is in the next one. Nil when
    /// no watcher can answer (a file system inotify does not see, a start that failed).
    func changes(since point: WatchPoint?) -> WatchAnswer?
}

/// A moment in a watcher's life: its epoch (random, one per watcher process) and generation
/// (one more per event).
public struct WatchPoint: Sendable, Equatable {
    public var epoch: UInt64
    public var generation: UInt64

    public init(epoch: UInt64, generation: UInt64) {
        self.epoch = epoch
        self.generation = generation
    }
}

/// A watcher's answer: where it is now, and the watched paths changed since the point asked
/// about (nil: everything may have changed: another watcher, or more than it keeps).
public struct WatchAnswer: Sendable, Equatable {
    public var point: WatchPoint
    public var changed: [String]?

    public init(point: WatchPoint, changed: [String]?) {
        self.point = point
        self.changed = changed
    }
}

extension WorkTreeWatcher {
    /// Whether a watcher vouches for `path` (relative to the vault's root).
    public static func watches(_ path: String) -> Bool {
        WorkTreeWatching.watches(path)
    }
}

/// The rule of what a `WorkTreeWatcher` watches, and the same rule as git pathspecs.
package enum WorkTreeWatching {
    /// `rooms/…/NAME.md` or `diary/…/NAME.md` (at any depth: format 2 files rooms by year); no
    /// name beginning with a dot.
    package static func watches(_ path: String) -> Bool {
        guard path.hasSuffix(".md") else { return false }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.allSatisfy({ !$0.isEmpty && !$0.hasPrefix(".") }), let first = parts.first else { return false }
        return (first == "rooms" || first == "diary") && parts.count >= 2
    }

    /// git pathspecs for the whole vault but what a watcher watches, for `git status` (the
    /// second one also leaves out files in folders whose names begin with a dot, which the
    /// watcher does not watch: those are seen by the next full scan).
    package static let unwatchedPathspecs = [
        ".", ":(exclude,glob)rooms/**/[!.]*.md", ":(exclude,glob)diary/**/[!.]*.md",
    ]
}

/// What `vault sync` keeps between runs to ask a `WorkTreeWatcher` instead of stamping every
/// file: the watcher's point when the last sync had committed every hand edit, and the stamps
/// of the tracked files no watcher watches (`vault.yml`, attachments, …), each of them as the
/// last commit had it then. In `.vault/sync-watch`: `WATCH EPOCH GENERATION`, then one line
/// per file as `FolderStamps` writes them (absolute paths). A stamp taken within
/// `FolderStamps.racyWindow` seconds of the file's last change is not trusted: the file is
/// then written `- PATH` and looked at every time. A cache: lost or damaged, the next sync
/// stamps every file, as without a watcher.
package struct SyncWatchRecord: Sendable {
    package var point: WatchPoint
    /// Absolute path → its stamp then (nil: looked at every time).
    package var stamps: [String: FileIO.Stamp?]

    package init(point: WatchPoint, stamps: [String: FileIO.Stamp?]) {
        self.point = point
        self.stamps = stamps
    }

    static func file(root: String) -> String { root + "/.vault/sync-watch" }

    package static func read(root: String) -> SyncWatchRecord? {
        guard let bytes = try? FileIO.read(file(root: root)), !bytes.isEmpty else { return nil }
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let head = lines[0].split(separator: " ")
        guard lines.count >= 2, lines.last == "", head.count == 3, head[0] == "WATCH",
            let epoch = UInt64(head[1]), let generation = UInt64(head[2])
        else { return nil }
        var stamps: [String: FileIO.Stamp?] = [:]
        for line in lines.dropFirst().dropLast() {
            guard let (path, stamp) = FolderStamps.parse(line) else { return nil }
            stamps[path] = stamp
        }
        return SyncWatchRecord(point: WatchPoint(epoch: epoch, generation: generation), stamps: stamps)
    }

    /// The stamps of `paths` now, each trusted only when its last change is old enough.
    package static func stamps(of paths: [String]) -> [String: FileIO.Stamp?] {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var out: [String: FileIO.Stamp?] = [:]
        for path in paths {
            let stamp = FileIO.stamp(of: path)
            let settled = stamp.map {
                max($0.modified.tv_sec, $0.changed.tv_sec) < now.tv_sec - FolderStamps.racyWindow
            } ?? false
            out[path] = settled ? stamp : .some(nil)
        }
        return out
    }

    /// The paths whose stamp is not the one kept (or none was).
    package func changedPaths() -> [String] {
        stamps.compactMap { path, kept in kept.flatMap { FileIO.stamp(of: path) == $0 ? nil : path } ?? path }
    }

    package func save(root: String) {
        var text = "WATCH \(point.epoch) \(point.generation)\n"
        for (path, stamp) in stamps.sorted(by: { $0.key < $1.key }) { text += FolderStamps.line(path, stamp) }
        try? FileIO.write(Array(text.utf8), to: SyncWatchRecord.file(root: root), durable: false)
    }

    package static func forget(root: String) {
        unlink(file(root: root))
    }
}
