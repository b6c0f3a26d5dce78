import Foundation
import Synchronization
import VaultCore

#if canImport(Glibc)
    import Glibc
#endif

/// `.vault/intents/<pid>-<start>`: the files a running vault process has changed, or is about
/// to change, and has not committed yet.
///
/// Every change is written to the files first and committed after; a process killed in between
/// (a `vault rm` after the file was removed, a `room new` after the room was written, a chat
/// turn after the message) left changes no later command committed, unless it happened to
/// change the same file. So each process notes a path just before it writes or removes the file
/// (`add`, from `VaultHistory.willChange`: `Vault.write`, `replaceTail`, `remove`), and drops it
/// once committed (`remove`). The next
/// vault command that changes anything finds the notes of processes that are gone
/// (`ProcessIdentity`) and commits those paths, saying so (`GitHistory.recoverFromKilledVaults`).
///
/// The notes are written atomically but not flushed: they serve when a process dies, not when
/// the machine does (files a power cut leaves uncommitted are committed as hand edits when next
/// changed, as before).
enum CommitIntent {
    /// What a process intends: the command, and the paths (relative to the vault).
    struct Record: Codable, Equatable {
        var command: String
        var paths: [String]
    }

    /// This process's paths not committed yet.
    private static let pending = Mutex<[String]>([])

    static func folder(root: String) -> String { root + "/" + VaultPath.state + "/intents" }

    static func path(root: String, of process: ProcessIdentity = .current) -> String {
        folder(root: root) + "/" + process.tag
    }

    /// The command this process runs (`rm`, `chat`, …), for the recovery commit's message: the
    /// first argument that is not an option (`--vault DIR` skipped).
    static let command: String = {
        var arguments = CommandLine.arguments.dropFirst()[...]
        while let first = arguments.first {
            arguments = arguments.dropFirst()
            if first == "--vault" {
                arguments = arguments.dropFirst()
            } else if !first.hasPrefix("-") {
                return first
            }
        }
        return "vault"
    }()

    /// Notes `paths` (before they change); writes the note only when it grows.
    static func add(_ paths: [String], root: String) {
        let grown = pending.withLock { current -> [String]? in
            let new = paths.filter { !current.contains($0) }
            guard !new.isEmpty else { return nil }
            current += new
            return current
        }
        if let grown { write(Record(command: command, paths: grown), root: root) }
    }

    /// Drops `paths` from this process's note (they are committed); removes the note when empty.
    static func remove(_ paths: [String], root: String) {
        let left = pending.withLock { current -> [String]? in
            guard current.contains(where: paths.contains) else { return nil }
            current.removeAll(where: paths.contains)
            return current
        }
        guard let left else { return }
        if left.isEmpty {
            unlink(path(root: root))
        } else {
            write(Record(command: command, paths: left), root: root)
        }
    }

    private static func write(_ record: Record, root: String) {
        guard let data = try? JSONEncoder().encode(record) else { return }
        try? FileIO.makeDirectory(folder(root: root))
        try? FileIO.write(Array(data), to: path(root: root), durable: false)
    }

    /// The notes of vault processes that are no longer running, with the files they are in.
    static func abandoned(root: String) -> [(owner: ProcessIdentity, record: Record, file: String)] {
        let dir = folder(root: root)
        guard let listing = opendir(dir) else { return [] }
        var names: [String] = []
        while let entry = readdir(listing) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
            }
            names.append(name)
        }
        closedir(listing)
        var out: [(ProcessIdentity, Record, String)] = []
        for name in names.sorted() {
            let file = dir + "/" + name
            if name.hasPrefix("."), let tmp = name.range(of: ".vault-tmp-") {
                // A note's temporary file (`FileIO.write`), left by a process killed as it wrote it.
                let owner = ProcessIdentity(tag: name[name.index(after: name.startIndex)..<tmp.lowerBound])
                if let owner, owner != .current, !owner.isRunning { unlink(file) }
                continue
            }
            guard let owner = ProcessIdentity(tag: name), owner != .current, !owner.isRunning else { continue }
            guard let bytes = try? FileIO.read(file),
                let record = try? JSONDecoder().decode(Record.self, from: Data(bytes))
            else {
                unlink(file)  // not a note vault wrote (they are written whole, by rename)
                continue
            }
            out.append((owner, record, file))
        }
        return out
    }
}
