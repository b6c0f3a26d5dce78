import Foundation
import VaultCore

/// What a sync brought in and sent out, the way a chat app shows what is new: per room the new
/// messages and the first line of the newest, new and changed diary entries, renames,
/// deletions, conflict copies, and every choice the merge had to make.
public struct SyncReport: Sendable, Codable {
    public var remote: String
    public var dryRun = false
    /// Hand edits committed (as `edit: …`) before the merge.
    public var handEdits: [String] = []
    /// For a dry run: hand edits a sync would commit first.
    public var pendingHandEdits: [String] = []
    /// For a dry run: commits the remote has that the vault has not, and the other way round.
    public var incomingCommits = 0
    public var outgoingCommits = 0
    public var rooms: [Room] = []
    public var newEntries: [String] = []
    public var changed: [String] = []
    public var deleted: [String] = []
    public var renamed: [Rename] = []
    public var conflictCopies: [String] = []
    /// Choices the merge made, one line each (a front-matter key both sides changed, …).
    public var notes: [String] = []
    /// Messages that came in edited (an id this machine had, with another text) whose author the
    /// commit that made the edit does not bear out: room path → id → why (`Authorship`).
    public var unverifiedEdits: [String: [String: String]] = [:]
    /// Merge commits made (0 or 1; a fast-forward makes none).
    public var merges = 0
    public var pushed = false
    /// How many pushes the remote refused before one went through.
    public var retries = 0

    /// A room that received messages.
    public struct Room: Sendable, Codable {
        package var path: String
        package var title: String
        package var newMessageIDs: [String]
        /// The first line of the newest message that came in.
        package var newest: String?
        /// The room did not exist here before.
        package var isNew: Bool
        /// Who wrote the messages that came in (`author=`), each once, in the order they wrote;
        /// messages without an author are not counted here.
        package var authors: [String] = []
        /// Those of `newMessageIDs` this machine's person wrote (on another machine): never unread here.
        package var ownMessageIDs: [String] = []
        /// Those of `newMessageIDs` whose `author=` the commit that brought them does not bear out
        /// (`Authorship`), each with why: marked in `show`, `rooms` and MCP `read` (`UnverifiedMarks`).
        package var unverified: [String: String] = [:]

        enum CodingKeys: String, CodingKey {
            case path, title, newMessageIDs, newest, isNew, authors, unverified
        }
    }

    public struct Rename: Sendable, Codable {
        package var from: String
        package var to: String
    }

    public init(remote: String) { self.remote = remote }

    /// Every name each file had before `renames`, by its name after them, each once: a room
    /// renamed differently on both sides had two (the ancestor's, and this side's).
    static func formerPaths(_ renames: [Rename]) -> [String: [String]] {
        var former: [String: [String]] = [:]
        for r in renames where !(former[r.to]?.contains(r.from) ?? false) { former[r.to, default: []].append(r.from) }
        return former
    }

    /// Whether anything came in.
    public var broughtIn: Bool {
        !rooms.isEmpty || !newEntries.isEmpty || !changed.isEmpty || !deleted.isEmpty || !renamed.isEmpty
            || !conflictCopies.isEmpty
    }

    public var newMessageCount: Int { rooms.reduce(0) { $0 + $1.newMessageIDs.count } }

    /// Every message the report marks unverified, new or edited: room path → id → why.
    public var unverifiedMarks: [(path: String, reasons: [String: String])] {
        rooms.map { ($0.path, $0.unverified) } + unverifiedEdits.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// ` (+3 messages in 2 rooms, 1 entry)` for a merge commit's subject.
    var subjectSuffix: String {
        var parts: [String] = []
        if newMessageCount > 0 {
            parts.append(
                "+\(newMessageCount) message\(newMessageCount == 1 ? "" : "s")"
                    + " in \(rooms.count) room\(rooms.count == 1 ? "" : "s")"
            )
        }
        let entries = newEntries.count
        if entries > 0 { parts.append("+\(entries) entr\(entries == 1 ? "y" : "ies")") }
        if !conflictCopies.isEmpty {
            parts.append("\(conflictCopies.count) conflict cop\(conflictCopies.count == 1 ? "y" : "ies")")
        }
        return parts.isEmpty ? "" : " (" + parts.joined(separator: ", ") + ")"
    }

    mutating func absorb(_ step: VaultSync.MergeStep) {
        absorb(step.report)
    }

    mutating func absorb(_ other: SyncReport) {
        for room in other.rooms {
            if let i = rooms.firstIndex(where: { $0.path == room.path }) {
                rooms[i].newMessageIDs += room.newMessageIDs
                rooms[i].newest = room.newest ?? rooms[i].newest
                rooms[i].authors += room.authors.filter { !rooms[i].authors.contains($0) }
                rooms[i].ownMessageIDs += room.ownMessageIDs
                rooms[i].unverified.merge(room.unverified) { _, new in new }
            } else {
                rooms.append(room)
            }
        }
        newEntries += other.newEntries
        changed += other.changed.filter { !changed.contains($0) }
        deleted += other.deleted
        renamed += other.renamed
        conflictCopies += other.conflictCopies
        notes += other.notes
        unverifiedEdits.merge(other.unverifiedEdits) { a, b in a.merging(b) { _, new in new } }
        merges += other.merges
    }

    /// A note for each of `paths` that is a conflict copy (Syncthing's, Dropbox's, vault's) of a
    /// file the vault has: committed as it is, the copy is sent to every machine until
    /// `vault resolve` merges it into its original.
    static func conflictCopyNotes(_ paths: [String], committed: Bool, in vault: Vault) -> [String] {
        paths.compactMap { path in
            guard VaultPath.kind(of: path) != .other, let original = ConflictCopy.original(of: path),
                FileIO.exists(vault.absolute(original))
            else { return nil }
            let done = committed ? "was committed as a hand edit" : "would be committed as a hand edit"
            return "\(path) is a conflict copy of \(original) (made by a sync tool); it \(done),"
                + " as it is: `vault resolve` merges it into \(original) and removes it"
        }
    }

    static func firstLine(_ body: String) -> String {
        let line = body.split(whereSeparator: \.isNewline).first { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        let text = line.map { String($0).trimmingCharacters(in: .whitespaces) } ?? ""
        return text.count > 80 ? String(text.prefix(79)) + "…" : text
    }
}
