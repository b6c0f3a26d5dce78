import CGit2
import Foundation
import VaultCore

extension GitHistory {
    /// Before hand edits are committed: a room saved by a tool that read it before messages
    /// arrived (`StaleSave`) gets those messages back, merged three ways into what it saved,
    /// so the `edit:` commit takes away only what the person saw.
    ///
    /// - Returns: notes for the person, one per room merged
    ///   (`rooms/busan.md: kept 1 message that arrived after it was read …`).
    func keepingWhatArrived(in edited: [String], head: OpaquePointer) throws(VaultError) -> [String] {
        var notes: [String] = []
        var remembered = KeptArrivals(root: root)
        for path in edited where VaultPath.kind(of: path) == .room {
            guard case .file(let size) = try workFile(path), size <= RoomFile.wholeReadLimit,
                let committed = try contents(of: path, in: head)
            else { continue }
            let (saved, stamp) = try FileIO.readStamped(root + "/" + path)
            let walk = try FileVersions(history: self, path: path, from: head)
            guard
                let base = try StaleSave.base(
                    saved: saved, committed: committed, path: path, remembered: remembered.ids(of: path),
                    earlier: { () throws(VaultError) in try walk.next() })
            else {
                remembered.forget(path, keeping: saved)
                continue
            }
            let merged = Editing.merged(path, given: base, saved: saved, theirs: committed)
            let kept = StaleSave.kept(saved: saved, merged: merged.bytes, path: path)
            guard !kept.isEmpty, merged.conflictCopy == nil else { continue }
            try FileIO.write(merged.bytes, to: root + "/" + path, expecting: .unchanged(stamp))
            remembered.add(kept, to: path)
            notes.append(
                "\(path): kept \(Merge.counted(kept.count, "message", "messages")) that arrived after it was"
                    + " read by the program that saved it; remove \(kept.count == 1 ? "it" : "them")"
                    + " again to remove \(kept.count == 1 ? "it" : "them") for good")
        }
        remembered.save()
        return notes
    }
}

/// The earlier versions of one file, newest first, along the first parents from a commit:
/// each change of the file with the version before it (`StaleSave.Step`).
final class FileVersions {
    let history: GitHistory
    let path: String
    private var commit: OpaquePointer?
    private var blob: String?
    /// Commits read, changing the file or not: the walk stops at `limit`.
    private var read = 0
    static let limit = 5_000

    init(history: GitHistory, path: String, from head: OpaquePointer) throws(VaultError) {
        self.history = history
        self.path = path
        var copy: OpaquePointer?
        try GitFailure.check(git_commit_dup(&copy, head), "read a commit")
        commit = copy
        blob = try history.blobID(in: copy!, path)
    }

    deinit { git_commit_free(commit) }

    /// The next change of the file going back, or nil at the first commit or the limit.
    func next() throws(VaultError) -> StaleSave.Step? {
        while let current = commit, read < FileVersions.limit {
            read += 1
            var parent: OpaquePointer?
            guard git_commit_parentcount(current) > 0, git_commit_parent(&parent, current, 0) == 0 else {
                git_commit_free(current)
                commit = nil
                return blob == nil ? nil : StaleSave.Step(before: nil, byHand: GitHistory.isByHand(current))
            }
            let parentBlob = try history.blobID(in: parent!, path)
            defer {
                git_commit_free(current)
                commit = parent
                blob = parentBlob
            }
            guard parentBlob != blob else { continue }
            let before = try history.contents(of: path, in: parent!)
            return StaleSave.Step(before: before, byHand: GitHistory.isByHand(current))
        }
        return nil
    }
}

extension GitHistory {
    /// Whether a commit is a person's own change of their files (`edit:`, `restore:`,
    /// `resolve:`, `rm:`), not one that brought text in (a sync, a chat turn, a plain git commit).
    static func isByHand(_ commit: OpaquePointer) -> Bool {
        guard let summary = git_commit_summary(commit).map({ String(cString: $0) }) else { return false }
        return ["edit:", "restore:", "resolve:", "rm:"].contains { summary.hasPrefix($0) }
    }
}

/// Message ids that `keepingWhatArrived` kept once in a room: when a save lacks them again, the
/// removal is meant, and kept. In `.vault/kept-arrivals`, one `PATH<TAB>ID` per line; a cache of
/// this machine's (lost, the next stale save of those messages keeps them once more).
struct KeptArrivals {
    let file: String
    private var entries: [String: Set<String>] = [:]
    private var changed = false

    init(root: String) {
        file = root + "/" + VaultPath.state + "/kept-arrivals"
        guard let bytes = try? FileIO.read(file) else { return }
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: "\t", maxSplits: 1)
            guard parts.count == 2 else { continue }
            entries[String(parts[0]), default: []].insert(String(parts[1]))
        }
    }

    func ids(of path: String) -> Set<String> { entries[path] ?? [] }

    mutating func add(_ ids: Set<String>, to path: String) {
        entries[path, default: []].formUnion(ids)
        changed = true
    }

    /// Forgets the ids the save no longer has (their removal is now committed).
    mutating func forget(_ path: String, keeping saved: [UInt8]) {
        guard let old = entries[path] else { return }
        let present = StaleSave.messageIDs(saved, path) ?? []
        let now = old.intersection(present)
        guard now != old else { return }
        entries[path] = now.isEmpty ? nil : now
        changed = true
    }

    func save() {
        guard changed else { return }
        var text = ""
        for (path, ids) in entries.sorted(by: { $0.key < $1.key }) {
            for id in ids.sorted() { text += "\(path)\t\(id)\n" }
        }
        if text.isEmpty {
            try? FileIO.remove(file)
        } else {
            try? FileIO.write(Array(text.utf8), to: file, durable: false)
        }
    }
}
