import Foundation
import Synchronization
import VaultCore

/// Every room and diary entry as a resource, `vault://` + its path in the vault
/// (`vault://rooms/부산-여행.md`, `vault://diary/2026/2026-11-21-첫눈.md`), and the
/// subscriptions to them.
///
/// A subscribed item's file is watched by its stamp (`FileIO.stamp`: size, times, inode),
/// checked every `interval`: a save in an editor, a sync's merge, a change another `vault` made,
/// or one this server made is told to the client (`notifications/resources/updated`) within
/// that time; a file removed or renamed away is told once too.
final class ResourceWatch: @unchecked Sendable {
    static let scheme = "vault://"
    let vault: Vault
    let interval = 0.2
    var notify: (@Sendable (String) -> Void)?
    /// Subscribed paths, each with the stamp last seen (nil: no file).
    private let watched = Mutex<[String: FileIO.Stamp?]>([:])
    private let stopped = Atomic<Bool>(false)
    private let started = Atomic<Bool>(false)

    init(vault: Vault) {
        self.vault = vault
    }

    func list() -> JSONValue {
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
        return ["resources": .array(out)]
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
        let (bytes, _) = try ItemReading.bytes(of: path, in: vault)
        return ["contents": [["uri": .string(Self.scheme + path), "mimeType": "text/markdown", "text": .string(String(decoding: bytes, as: UTF8.self))]]]
    }

    func subscribe(_ uri: String?, on: Bool) throws(ToolFailure) {
        let path = try path(of: uri)
        let stamp = FileIO.stamp(of: vault.absolute(path))
        watched.withLock { if on { $0[path] = stamp } else { $0[path] = nil } }
        if on && !started.exchange(true, ordering: .sequentiallyConsistent) {
            Thread.detachNewThread { [self] in watch() }
        }
    }

    private func watch() {
        while !stopped.load(ordering: .sequentiallyConsistent) {
            usleep(UInt32(interval * 1_000_000))
            let changed = watched.withLock { list -> [String] in
                var out: [String] = []
                for (path, seen) in list {
                    let now = FileIO.stamp(of: vault.absolute(path))
                    if now != seen {
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
