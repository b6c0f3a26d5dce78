import Foundation

/// Messages that came in by sync whose `author=` the commit bringing them does not bear out,
/// per room: each with the sentence saying why (`Unverified.reason`). `vault show`, `vault rooms`,
/// the sync report and MCP `read` mark them. Kept in `.vault/unverified.json`, local to the
/// machine: a mark is what this machine found when the message came in, never synced (a synced
/// mark would be one more thing a collaborator could write).
///
/// Unlike an unread mark, reading the room does not take it away: the message stays marked
/// until the room is gone or `vault sync --undo` takes back the sync that brought it.
///
///     UnverifiedMarks.add([("rooms/trip.md", ["m-0A1B2C3D4E5F": "claims to be you; …"])], root: vault.root)
///     UnverifiedMarks.load(root: vault.root)["rooms/trip.md"]?["m-0A1B2C3D4E5F"]  // "claims to be you; …"
package enum UnverifiedMarks {
    static func path(root: String) -> String { root + "/" + VaultPath.state + "/unverified.json" }

    /// Room path → message id → why it is not verified.
    package static func load(root: String) -> [String: [String: String]] {
        guard let bytes = try? FileIO.read(path(root: root)),
            let marks = try? JSONDecoder().decode([String: [String: String]].self, from: Data(bytes))
        else { return [:] }
        return marks
    }

    /// The marks of one room (message id → why).
    package static func of(_ room: String, root: String) -> [String: String] { load(root: root)[room] ?? [:] }

    /// Adds marks for messages that came in.
    package static func add(_ rooms: [(path: String, reasons: [String: String])], root: String) {
        let added = rooms.filter { !$0.reasons.isEmpty }
        guard !added.isEmpty else { return }
        var marks = load(root: root)
        for (path, reasons) in added { marks[path, default: [:]].merge(reasons) { _, new in new } }
        save(marks, root: root)
    }

    /// Takes back marks `add` made (`vault sync --undo`): the ids, room by room.
    package static func remove(_ rooms: [(path: String, ids: [String])], root: String) {
        var marks = load(root: root)
        var changed = false
        for (path, ids) in rooms {
            guard var current = marks[path] else { continue }
            for id in ids where current.removeValue(forKey: id) != nil { changed = true }
            marks[path] = current.isEmpty ? nil : current
        }
        if changed { save(marks, root: root) }
    }

    private static func save(_ marks: [String: [String: String]], root: String) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(marks) else { return }
        try? FileIO.makeDirectory(root + "/" + VaultPath.state)
        // A lost mark would hide a warning: written atomically and flushed.
        try? FileIO.write(Array(data), to: path(root: root), durable: true)
    }
}
