import CGit2
import Foundation
import VaultCore

/// The versions of rooms and volumes one merge reads, each parsed once, by blob id and path.
///
/// The no-loss check (`verify`) reads every room a merge touched in four versions (the
/// ancestor's, ours, theirs, the result), and the report (`describe`) reads three of those again
/// (ours, the ancestor's, the result): before this cache, each was parsed anew every time, a
/// third of a wide merge's time. `prefetch` reads the blobs (libgit2 is used from one thread)
/// and parses them on every core; `room` answers from what was parsed, else parses and keeps it.
/// A parse is a function of the bytes and the path, so the answers are what parsing each time
/// gave, and the merge's outputs (trees, notes, report) are the same.
final class ParsedRooms {
    /// A blob's bytes and, when they read as a room, its parse.
    struct Parsed {
        var bytes: [UInt8]
        var room: RoomFile?
    }

    /// A blob's id and the path it is read at.
    private struct Key: Hashable {
        var id: [UInt8]
        var path: String
    }

    private var parsed: [Key: Parsed] = [:]

    private static func key(_ id: git_oid, _ path: String) -> Key {
        Key(id: withUnsafeBytes(of: id.id) { Array($0) }, path: path)
    }

    /// The blob `id` read as the room (or volume) at `path`; nil when it does not read.
    func room(_ id: git_oid, path: String, in history: GitHistory) throws(VaultError) -> RoomFile? {
        try version(id, path: path, in: history).room
    }

    /// The blob `id`'s bytes, and its parse as the room at `path`.
    func version(_ id: git_oid, path: String, in history: GitHistory) throws(VaultError) -> Parsed {
        let key = ParsedRooms.key(id, path)
        if let known = parsed[key] { return known }
        let bytes = try history.blobBytes(id)
        let version = Parsed(bytes: bytes, room: try? RoomFile(parsing: bytes, path: path))
        parsed[key] = version
        return version
    }

    /// Parses each of `blobs` (a blob and the room or volume path it is read at) not parsed yet,
    /// on every core.
    func prefetch(_ blobs: [(id: git_oid, path: String)], in history: GitHistory) throws(VaultError) {
        var keys = Set<Key>()
        var todo: [(key: Key, path: String, bytes: [UInt8])] = []
        for blob in blobs {
            let key = ParsedRooms.key(blob.id, blob.path)
            guard parsed[key] == nil, keys.insert(key).inserted else { continue }
            todo.append((key, blob.path, try history.blobBytes(blob.id)))
        }
        let rooms = todo.map { (path: $0.path, bytes: $0.bytes) }.mapOnEveryCore { t in
            try? RoomFile(parsing: t.bytes, path: t.path)
        }
        for (t, room) in zip(todo, rooms) { parsed[t.key] = Parsed(bytes: t.bytes, room: room) }
    }
}
