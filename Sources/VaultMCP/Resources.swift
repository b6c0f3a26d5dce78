import Foundation
import Synchronization
import VaultCore

/// Every room and diary entry as a resource, `vault://` + its path in the vault
/// (`vault://rooms/부산-여행.md`, `vault://diary/2026/2026-11-21-첫눈.md`), and the
/// subscriptions to them.
///
/// What changed is asked of `vault search`'s inotify watcher (`watcher`, a `WorkTreeWatcher`:
/// the same process a search and a sync ask) every `interval`: a subscribed item it names is
/// told to the client (`notifications/resources/updated`), and a room or entry made or
/// removed makes the list change (`notifications/resources/list_changed`). Where no watcher
/// answers (none given, `VAULT_NO_WATCH`, a file system inotify does not see, or an answer of
/// "everything may have changed"), each subscribed file's stamp (`FileIO.stamp`) is compared
/// instead. Either way a save in an editor, a sync's merge, another `vault`'s change or the
/// server's own is told within about `interval`.
final class ResourceWatch: @unchecked Sendable {
    static let scheme = "vault://"
    let vault: Vault
    let interval = 0.2
    let watcher: (any WorkTreeWatcher)?
    var notify: (@Sendable (String) -> Void)?
    var listChanged: (@Sendable () -> Void)?
    /// Subscribed paths, each with the stamp last seen (nil: no file).
    private let watched = Mutex<[String: FileIO.Stamp?]>([:])
    private let stopped = Atomic<Bool>(false)
    private let started = Atomic<Bool>(false)

    init(vault: Vault, watcher: (any WorkTreeWatcher)?) {
        self.vault = vault
        self.watcher = watcher
    }

    /// Resources in one answer of `resources/list`; more are paged (`nextCursor`).
    static let page = 1000

    /// A page of the resources: rooms (most recent first), then diary entries (newest first),
    /// from `cursor` (the position, as text, that the previous page gave).
    func list(cursor: String?) throws(ToolFailure) -> JSONValue {
        if watcher != nil { start() }
        var start = 0
        if let cursor {
            guard let n = Int(cursor), n >= 0 else { throw ToolFailure("not a cursor of this server: \(cursor.debugDescription)") }
            start = n
        }
        var out: [JSONValue] = []
        for room in vault.roomSummaries() {
            out.append([
                "uri": .string(Self.scheme + room.path), "name": .string(room.slug), "title": .string(room.title),
                "description": .string("Chat room, last activity \(room.lastActivity ?? "unknown")"),
                "mimeType": "text/markdown",
            ])
        }
        for entry in vault.diarySummaries() {
            out.append([
                "uri": .string(Self.scheme + entry.path), "name": .string(VaultPath.stem(of: entry.path)),
                "title": .string(entry.title),
                "description": .string("Diary entry of \(entry.date?.description ?? "an unknown day")"),
                "mimeType": "text/markdown",
            ])
        }
        let end = min(out.count, start + Self.page)
        var page: [String: JSONValue] = ["resources": .array(start < end ? Array(out[start..<end]) : [])]
        if end < out.count { page["nextCursor"] = .string(String(end)) }
        return .object(page)
    }

    /// The vault path a `vault://` URI names: only an existing room or diary entry, exactly.
    func path(of uri: String?) throws(ToolFailure) -> String {
        guard let uri else { throw ToolFailure("missing 'uri'") }
        guard uri.hasPrefix(Self.scheme) else {
            throw ToolFailure("\(uri.debugDescription) is not a vault:// resource", code: .resourceNotFound)
        }
        let wanted = String(uri.dropFirst(Self.scheme.count)).removingPercentEncoding ?? ""
        guard !wanted.split(separator: "/").contains(".."), !wanted.hasPrefix("/"),
            let item = try? vault.resolve(wanted, workingDirectory: vault.root), item.path == wanted
        else {
            throw ToolFailure("no room or diary entry \(uri.debugDescription)", code: .resourceNotFound)
        }
        return item.path
    }

    func read(_ uri: String?) throws(ToolFailure) -> JSONValue {
        let path = try path(of: uri)
        let item: VaultItem = VaultPath.kind(of: path) == .room ? .room(path) : .diaryEntry(path)
        let text = try ItemReading.text(of: item, in: vault, cancellation: .never)
        return ["contents": [["uri": .string(Self.scheme + path), "mimeType": "text/markdown", "text": .string(text)]]]
    }

    func subscribe(_ uri: String?, on: Bool) throws(ToolFailure) {
        let path = try path(of: uri)
        let stamp = FileIO.stamp(of: vault.absolute(path))
        watched.withLock { if on { $0[path] = stamp } else { $0[path] = nil } }
        if on { start() }
    }

    /// Starts watching (once): on the first subscription, or the first listing (after which a
    /// room or entry made or removed is told as a change of the list).
    func start() {
        guard !started.exchange(true, ordering: .sequentiallyConsistent) else { return }
        Thread.detachNewThread { [self] in watch() }
    }

    private func watch() {
        var point = watcher?.changes(since: nil)?.point
        var known = Set(vault.roomPaths(sorted: false) + vault.diaryPaths(sorted: false))
        while !stopped.load(ordering: .sequentiallyConsistent) {
            usleep(UInt32(interval * 1_000_000))
            // The paths the watcher names; nil: it cannot say (the stamps are compared).
            var named: Set<String>?
            if let watcher {
                let answer = watcher.changes(since: point)
                if let answer, let asked = point, answer.point.epoch == asked.epoch, let changed = answer.changed {
                    named = Set(changed)
                }
                point = answer?.point
            }
            if let named, !named.isEmpty {
                let made = named.filter { FileIO.exists(vault.absolute($0)) != known.contains($0) }
                if !made.isEmpty {
                    for path in made {
                        if known.contains(path) { known.remove(path) } else { known.insert(path) }
                    }
                    listChanged?()
                }
            }
            let changed = watched.withLock { list -> [String] in
                var out: [String] = []
                for (path, seen) in list {
                    let now = FileIO.stamp(of: vault.absolute(path))
                    if named?.contains(path) ?? (now != seen) {
                        list[path] = now
                        out.append(path)
                    }
                }
                return out
            }
            for path in changed { notify?(Self.scheme + path) }
        }
    }

    func stop() { stopped.store(true, ordering: .sequentiallyConsistent) }
}
