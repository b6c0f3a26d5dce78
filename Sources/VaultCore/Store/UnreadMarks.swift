import Foundation

/// Messages that came in by sync and were not shown yet, per room: `vault rooms` counts them,
/// `vault show ROOM` clears the room's. Kept in `.vault/unread.json`, local to the machine
/// (read marks are never synced).
public enum UnreadMarks {
    static func path(root: String) -> String { root + "/" + VaultPath.state + "/unread.json" }

    /// Room path → ids of the messages not shown yet.
    public static func load(root: String) -> [String: [String]] {
        guard let bytes = try? FileIO.read(path(root: root)),
            let marks = try? JSONDecoder().decode([String: [String]].self, from: Data(bytes))
        else { return [:] }
        return marks
    }

    /// Adds messages that came in.
    public static func add(_ rooms: [(path: String, ids: [String])], root: String) {
        let added = rooms.filter { !$0.ids.isEmpty }
        guard !added.isEmpty else { return }
        var marks = load(root: root)
        for (path, ids) in added {
            var current = marks[path] ?? []
            current += ids.filter { !current.contains($0) }
            marks[path] = current
        }
        save(marks, root: root)
    }

    /// Takes back marks `add` made (`vault sync --undo`): the ids, room by room.
    public static func remove(_ rooms: [(path: String, ids: [String])], root: String) {
        var marks = load(root: root)
        var changed = false
        for (path, ids) in rooms {
            guard let current = marks[path] else { continue }
            let left = current.filter { !ids.contains($0) }
            guard left.count != current.count else { continue }
            marks[path] = left.isEmpty ? nil : left
            changed = true
        }
        if changed { save(marks, root: root) }
    }

    /// Marks a room as read.
    public static func clear(_ room: String, root: String) {
        var marks = load(root: root)
        guard marks.removeValue(forKey: room) != nil else { return }
        save(marks, root: root)
    }

    private static func save(_ marks: [String: [String]], root: String) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(marks) else { return }
        try? FileIO.makeDirectory(root + "/" + VaultPath.state)
        // A lost read mark costs nothing but a count: written atomically, not flushed.
        try? FileIO.write(Array(data), to: path(root: root), durable: false)
    }
}
