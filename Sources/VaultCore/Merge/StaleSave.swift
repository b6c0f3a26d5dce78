/// A room saved by a tool that read it before a message arrived: an editor left open across a
/// sync or a chat turn, a script, another app. Its save lacks the message, and committing it as
/// it is would take the message away, here and, by the next sync, on every machine.
///
/// `vault edit` knows what it gave the editor and merges three ways (`Editing`). Any other tool
/// gives no such base, so it is found in the file's history: walking back from the last commit,
/// the oldest version the save can have been made from is the oldest one such that no message
/// added after it is in the save. If messages were added after that version, the save is stale:
/// it is merged three ways against the committed file with that version as the base, so those
/// messages are kept, and every other change the person made (edits, removals of messages they
/// saw) stays theirs.
///
/// A commit the person made by hand (`edit:`, `restore:`) ends the walk: what was committed by
/// hand was seen. And a message kept this way once is not kept a second time: removing it again
/// removes it (`remembered`), so no removal is impossible.
///
///     let base = StaleSave.base(saved: onDisk, committed: head, path: "rooms/busan.md",
///                               earlier: versions)   // newest first
///     let merged = base.map { Editing.merged(path, given: $0, saved: onDisk, theirs: head) }
package enum StaleSave {
    /// One change of the file in its history, newest first: the version before it, and whether
    /// a person made it.
    package struct Step: Sendable {
        /// The file before the change (nil: the change created it).
        package var before: [UInt8]?
        /// The change was a person's own (`edit:`, `restore:`), not a sync's or a chat turn's.
        package var byHand: Bool

        package init(before: [UInt8]?, byHand: Bool) {
            self.before = before
            self.byHand = byHand
        }
    }

    /// The version a stale save was made from, or nil when the save is not stale (it lacks no
    /// message that arrived after a version it could have been made from).
    ///
    /// - Parameters:
    ///   - saved: the file as the tool saved it.
    ///   - committed: the file as the last commit has it.
    ///   - remembered: message ids this check kept once already in this file; their removal is
    ///     taken as meant.
    ///   - earlier: the changes of the file, newest first (nil: no more), read only as far as needed.
    package static func base(
        saved: [UInt8], committed: [UInt8], path: String, remembered: Set<String> = [],
        earlier: () throws(VaultError) -> Step?
    ) throws(VaultError) -> [UInt8]? {
        guard let savedIDs = messageIDs(saved, path), let committedIDs = messageIDs(committed, path) else { return nil }
        let missing = committedIDs.subtracting(savedIDs).subtracting(remembered)
        guard !missing.isEmpty else { return nil }
        var base: [UInt8]?
        var steps = 0
        while steps < maximumSteps, let step = try earlier() {
            steps += 1
            if step.byHand { break }
            let before = step.before ?? []
            guard let beforeIDs = messageIDs(before, path) else { break }
            let added = committedIDs.subtracting(beforeIDs)
            // The save has a message added after this version: it was made from a later one.
            guard added.isDisjoint(with: savedIDs) else { break }
            if !added.isDisjoint(with: missing) { base = before }
        }
        return base
    }

    /// How far back the walk goes (changes of the one file): an editor left open for longer
    /// than this many syncs and chat turns of the same room is taken as having seen them.
    package static let maximumSteps = 200

    /// The message ids of a room (nil: it does not parse, and the check does not apply).
    package static func messageIDs(_ bytes: [UInt8], _ path: String) -> Set<String>? {
        if bytes.isEmpty { return [] }
        guard let room = try? RoomFile(parsing: bytes, path: path) else { return nil }
        return Set(room.messages.map(\.id))
    }

    /// The ids of the messages a merge kept that the save lacked: what the person is told of.
    package static func kept(saved: [UInt8], merged: [UInt8], path: String) -> Set<String> {
        (messageIDs(merged, path) ?? []).subtracting(messageIDs(saved, path) ?? [])
    }
}
