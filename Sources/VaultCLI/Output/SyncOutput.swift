import ArgumentParser
import Foundation
import VaultCore
import VaultKit

/// How sync, status and resolve print for a person.
enum SyncOutput {
    /// One line of text from a file or a remote: every control character shown, line feeds too.
    static func one(_ text: String) -> String { Terminal.visible(text, singleLine: true) }

    static func show(_ r: SyncReport) {
        var summary: [String] = []
        if r.newMessageCount > 0 {
            summary.append(
                "\(r.newMessageCount) new message\(r.newMessageCount == 1 ? "" : "s")"
                    + " in \(r.rooms.count) room\(r.rooms.count == 1 ? "" : "s")"
            )
        }
        if !r.newEntries.isEmpty {
            summary.append("\(r.newEntries.count) new diary entr\(r.newEntries.count == 1 ? "y" : "ies")")
        }
        let newRooms = r.rooms.filter { $0.isNew && $0.newMessageIDs.isEmpty }.count
        if newRooms > 0 { summary.append("\(newRooms) new room\(newRooms == 1 ? "" : "s")") }
        if !r.changed.isEmpty { summary.append("\(r.changed.count) changed") }
        if !r.deleted.isEmpty { summary.append("\(r.deleted.count) deleted") }
        if !r.renamed.isEmpty { summary.append("\(r.renamed.count) renamed") }
        if !r.conflictCopies.isEmpty {
            summary.append("\(r.conflictCopies.count) conflict cop\(r.conflictCopies.count == 1 ? "y" : "ies")")
        }
        let unverified = r.unverifiedMarks.reduce(0) { $0 + $1.reasons.count }
        if unverified > 0 { summary.append("\(unverified) unverified") }
        // Every line the report lists below is counted here: never "nothing new" above a list.
        if !r.notes.isEmpty { summary.append("\(r.notes.count) note\(r.notes.count == 1 ? "" : "s")") }
        if r.dryRun {
            print("Dry run against \(r.remote): nothing was changed.")
            print(
                "  would come in: \(r.incomingCommits) commit\(r.incomingCommits == 1 ? "" : "s")"
                    + "\(summary.isEmpty ? "" : " (" + summary.joined(separator: ", ") + ")")"
            )
            print("  would go out:  \(r.outgoingCommits) commit\(r.outgoingCommits == 1 ? "" : "s")")
            if !r.pendingHandEdits.isEmpty {
                print("  hand edits committed first: \(r.pendingHandEdits.joined(separator: ", "))")
            }
        } else {
            let came = summary.isEmpty ? "nothing new came in" : summary.joined(separator: ", ")
            print("Synced with \(r.remote): \(came); \(r.pushed ? "your changes were sent" : "nothing to send").")
            if !r.handEdits.isEmpty {
                print("  committed your hand edits first: \(r.handEdits.joined(separator: ", "))")
            }
        }
        for room in r.rooms {
            let count = room.newMessageIDs.count
            let newest = room.newest.map { " — \"\($0)\"" } ?? ""
            // A shared room: who wrote what came in.
            let from = room.authors.isEmpty ? "" : " from " + room.authors.joined(separator: ", ")
            print(
                "  \(room.isNew ? "new room " : "")\(one(room.title)) (\(one(room.path))): +\(count)\(one(from))\(one(newest))")
            for (id, why) in room.unverified.sorted(by: { $0.key < $1.key }) {
                print("  unverified: \(one(room.path)) \(one(id)): \(one(why))")
            }
        }
        for (path, edits) in r.unverifiedEdits.sorted(by: { $0.key < $1.key }) {
            for (id, why) in edits.sorted(by: { $0.key < $1.key }) {
                print("  unverified: \(one(path)) \(one(id)): \(one(why))")
            }
        }
        for e in r.newEntries { print("  new entry: \(one(e))") }
        for e in r.changed { print("  changed: \(one(e))") }
        for e in r.deleted { print("  deleted: \(one(e))") }
        for e in r.renamed { print("  renamed: \(one(e.from)) → \(one(e.to))") }
        for c in r.conflictCopies {
            print("  conflict copy: \(one(c)) (both sides changed the same lines; the other version is here)")
        }
        for n in r.notes { print("  note: \(one(n))") }
        if r.retries > 0 { print("  the remote moved during the sync; merged again (\(r.retries)×)") }
    }

    static func show(_ s: VaultStatus) {
        if let remote = s.remote {
            if let ahead = s.ahead, let behind = s.behind {
                print(
                    "\(s.branch) against \(remote)/\(s.remoteBranch ?? s.branch) (as of the last fetch): \(ahead) ahead, \(behind) behind"
                )
            } else {
                print("\(s.branch): \(remote) has no \(s.branch) yet (`vault sync` sends it)")
            }
        } else {
            print("\(s.branch): no remote (`vault remote add origin URL`)")
        }
        if s.handEdits.isEmpty {
            print("no hand edits waiting")
        } else {
            print("hand edits not committed yet (the next vault command commits them):")
            for p in s.handEdits { print("  \(one(p))") }
        }
        if let merge = s.unfinishedMerge { print("unfinished merge: \(merge) (`vault resolve` finishes it)") }
        for p in s.conflicted { print("  conflicted: \(one(p))") }
        for c in s.conflictCopies {
            print("conflict copy: \(one(c.copy)) (of \(one(c.original)); `vault resolve` merges it in)")
        }
        for u in s.unsettled {
            print("two versions of a message: \(one(u.room)) \(u.message) and \(u.other)"
                + " (`vault resolve \(VaultPath.stem(of: u.room)) --keep ID` keeps one)")
        }
        if let last = s.lastSync { print("last sync: \(last) (`vault sync --undo` undoes it)") }
    }
}
