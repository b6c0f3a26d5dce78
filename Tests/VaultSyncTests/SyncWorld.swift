import Foundation
import Testing
import VaultCore
import VaultTestSupport

/// A bare remote and machines that sync through it, each a vault in a temporary folder, run
/// with the built `vault` and checked with the `git` command line.
final class SyncWorld {
    let folder = TemporaryDirectory("vault-sync")
    /// The bare repository every machine syncs with.
    var remote: String { folder.path + "/remote.git" }
    /// Machine name → its vault folder.
    private(set) var machines: [String: String] = [:]
    /// Variables every `vault` of this world runs with, besides its own.
    var environment: [String: String] = [:]

    /// Machine `first` holds a copy of sample-vault, pushed to the remote; the others are clones.
    init(_ first: String = "laptop", clones: [String] = ["desktop"], sample: Bool = true) throws {
        try git(["init", "--quiet", "--bare", remote], in: folder.path)  // git's own default branch
        let root = folder.path + "/" + first
        if sample {
            try FileManager.default.copyItem(atPath: Project.root + "/sample-vault", toPath: root)
            try expectOK(vault(first, ["init", "."], in: root))
        } else {
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            try expectOK(vault(first, ["init", ".", "--locale", "en_US", "--time-zone", "Asia/Tokyo"], in: root))
        }
        machines[first] = root
        try expectOK(vault(first, ["remote", "add", "origin", remote]))
        try expectOK(vault(first, ["sync"]))
        for name in clones { try clone(name) }
    }

    func clone(_ name: String) throws {
        let root = folder.path + "/" + name
        try expectOK(vault(name, ["clone", remote, root], in: folder.path))
        machines[name] = root
    }

    func path(_ machine: String) -> String { machines[machine]! }

    /// Runs `vault` as `machine` (its own VAULT_MACHINE name; `vault` on the PATH for git's merge driver).
    @discardableResult
    func vault(
        _ machine: String, _ arguments: [String], in directory: String? = nil, environment: [String: String] = [:]
    )
        throws -> RunResult
    {
        var env = ["VAULT_MACHINE": machine, "PATH": SyncWorld.pathWithVault, "VAULT_LOCK_TIMEOUT": "60"]
        for (k, v) in self.environment { env[k] = v }
        for (k, v) in environment { env[k] = v }
        return try runVault(arguments, in: directory ?? path(machine), environment: env)
    }

    static let pathWithVault: String = {
        let dir = (Project.vaultExecutable as NSString).deletingLastPathComponent
        return dir + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
    }()

    /// A chat turn with the offline provider.
    func chat(_ machine: String, _ room: String, _ message: String) throws {
        try expectOK(vault(machine, ["chat", room, message, "--provider", "offline"]))
    }

    func read(_ machine: String, _ relative: String) throws -> String {
        String(decoding: try Data(contentsOf: URL(fileURLWithPath: path(machine) + "/" + relative)), as: UTF8.self)
    }

    func write(_ machine: String, _ relative: String, _ text: String) throws {
        let full = path(machine) + "/" + relative
        try FileManager.default.createDirectory(
            atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: full))
    }

    /// Every file of the machine's vault (not `.git/`, not `.vault/`), path → bytes.
    func files(_ machine: String) throws -> [String: [UInt8]] { try SyncWorld.files(at: path(machine)) }

    /// Every file of the vault at `root` (not `.git/`, not `.vault/`), path → bytes.
    static func files(at root: String) throws -> [String: [UInt8]] {
        var out: [String: [UInt8]] = [:]
        let e = FileManager.default.enumerator(atPath: root)
        while let p = e?.nextObject() as? String {
            if p == ".git" || p == ".vault" { e?.skipDescendants(); continue }
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: root + "/" + p, isDirectory: &isDir), !isDir.boolValue {
                out[p] = Array(try Data(contentsOf: URL(fileURLWithPath: root + "/" + p)))
            }
        }
        return out
    }

    /// Message ids of a room as the parser reads it.
    func ids(_ machine: String, _ room: String) throws -> [String] {
        try RoomFile(parsing: Array(read(machine, room).utf8), path: room).messages.map(\.id)
    }

    /// `git fsck --strict` is clean, `git status` shows nothing, and `vault check` passes.
    /// - Parameter tolerating: a problem `vault check` may report besides conflict copies (words of it).
    func expectHealthy(_ machine: String, tolerating: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let root = path(machine)
        _ = try git(["fsck", "--strict", "--no-progress"], in: root)
        #expect(
            try git(["status", "--porcelain"], in: root) == "", "git status not clean on \(machine)",
            sourceLocation: sourceLocation)
        // Conflict copies and messages kept in two versions (in one file, or a volume's and the
        // file's: a message moved on one machine and edited on the other) are listed (as warnings)
        // until a person settles them; nothing else may be reported.
        let check = try vault(machine, ["check"])
        let problems = check.stdout.split(separator: "\n").filter {
            !$0.contains("a conflict copy of") && !$0.contains("warning: two versions of message")
                && !$0.contains("and the room shows both")
                && !$0.contains("problem") && !(tolerating.map($0.contains) ?? false)
        }
        #expect(problems.isEmpty, "vault check on \(machine): \(check.stdout)", sourceLocation: sourceLocation)
    }

    func expectOK(_ r: RunResult, sourceLocation: SourceLocation = #_sourceLocation) throws {
        if r.status != 0 {
            Issue.record("vault exited \(r.status): \(r.stderr)", sourceLocation: sourceLocation)
            throw SyncTestFailure(r.stderr)
        }
    }
}

struct SyncTestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}
