import Foundation
import Testing
import VaultTestSupport

// Helpers for the end-to-end tests of vault's history. The `git` command line is the
// independent reader of what vault committed; nothing here uses VaultGit itself.

/// The sample vault's only room that uses the built-in offline provider.
let offlineRoom = "rooms/독서-모임-발제문.md"
let offlineRoomTitle = "독서 모임 발제문"
let offlineRoomSlug = "독서-모임-발제문"

/// The identity of commits made by the git command line inside the tests.
let cliIdentity: [String: String] = [
    "GIT_AUTHOR_NAME": "Git CLI", "GIT_AUTHOR_EMAIL": "cli@example.com",
    "GIT_COMMITTER_NAME": "Git CLI", "GIT_COMMITTER_EMAIL": "cli@example.com",
]

/// What the git command line did: its exit status and output.
struct GitRun {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs `git` in `directory` without throwing on failure (for `--quiet` exit codes and
/// commands expected to fail, like a conflicting merge). System config is ignored, the
/// identity is `cliIdentity`, and nothing opens an editor.
@discardableResult
func gitRun(_ arguments: [String], in directory: String, environment: [String: String] = [:]) throws -> GitRun {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["git"] + arguments
    process.currentDirectoryURL = URL(fileURLWithPath: directory)
    var env = ProcessInfo.processInfo.environment
    env["GIT_CONFIG_NOSYSTEM"] = "1"
    env["LC_ALL"] = "C"
    env["GIT_EDITOR"] = "true"
    env["GIT_SEQUENCE_EDITOR"] = "true"
    env["GIT_MERGE_AUTOEDIT"] = "no"
    for (k, v) in cliIdentity { env[k] = v }
    for (k, v) in environment { env[k] = v }
    process.environment = env
    let result = try run(process)
    return GitRun(status: result.status, stdout: result.stdout, stderr: result.stderr)
}

/// Runs `git` (with `cliIdentity`) and returns its output; throws when it fails.
@discardableResult
func gitCLI(_ arguments: [String], in directory: String) throws -> String {
    let r = try gitRun(arguments, in: directory)
    guard r.status == 0 else {
        throw GitTestError("git \(arguments.joined(separator: " ")) exited \(r.status): \(r.stderr)")
    }
    return r.stdout
}

/// The bytes of `spec` (`REV:path`) as git stores them.
func gitBytes(_ spec: String, in directory: String) throws -> [UInt8] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["git", "cat-file", "blob", spec]
    process.currentDirectoryURL = URL(fileURLWithPath: directory)
    var env = ProcessInfo.processInfo.environment
    env["GIT_CONFIG_NOSYSTEM"] = "1"
    process.environment = env
    let out = Pipe()
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw GitTestError("git cat-file blob \(spec) failed") }
    return Array(data)
}

struct GitTestError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

/// Commit subjects, newest first (`git log --format=%s`).
func subjects(_ directory: String) throws -> [String] {
    try git(["log", "--format=%s"], in: directory).split(separator: "\n", omittingEmptySubsequences: false)
        .dropLast().map(String.init)
}

/// Number of commits reachable from HEAD (0 when there is no commit or no repository).
func commitCount(_ directory: String) throws -> Int {
    let r = try gitRun(["rev-list", "--count", "HEAD"], in: directory)
    guard r.status == 0 else { return 0 }
    return Int(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
}

/// The paths a commit changed, with their status letter (`A rooms/x.md`), from `git show`.
func changedPaths(_ revision: String, in directory: String) throws -> [String] {
    try git(
        ["-c", "core.quotePath=false", "show", "--format=", "--name-status", "--no-renames", revision], in: directory
    )
        .split(separator: "\n").map { $0.replacingOccurrences(of: "\t", with: " ") }
}

/// Every file of the commit's tree (`git ls-tree -r --name-only`).
func treeFiles(_ revision: String, in directory: String) throws -> [String] {
    try git(["-c", "core.quotePath=false", "ls-tree", "-r", "--name-only", revision], in: directory)
        .split(separator: "\n").map(String.init)
}

/// The lines a commit added and removed for one path (`+…`/`-…`, diff headers left out).
func diffLines(_ revision: String, path: String, in directory: String) throws -> (added: [String], removed: [String]) {
    let patch = try git(["show", "--format=", "--no-renames", "--unified=0", revision, "--", path], in: directory)
    var added: [String] = []
    var removed: [String] = []
    for line in patch.split(separator: "\n", omittingEmptySubsequences: false) {
        if line.hasPrefix("+++") || line.hasPrefix("---") { continue }
        if line.hasPrefix("+") { added.append(String(line.dropFirst())) }
        if line.hasPrefix("-") { removed.append(String(line.dropFirst())) }
    }
    return (added, removed)
}

/// The repository agrees with the working folder and is sound: `git status --porcelain`
/// prints nothing, `git fsck --strict` is clean, and neither the index nor the work tree
/// differs from HEAD.
func expectRepositoryClean(_ directory: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let status = try gitRun(["status", "--porcelain", "--untracked-files=all"], in: directory)
    #expect(status.status == 0, "git status failed: \(status.stderr)", sourceLocation: sourceLocation)
    #expect(status.stdout == "", "git status is not clean:\n\(status.stdout)", sourceLocation: sourceLocation)
    let fsck = try gitRun(["fsck", "--strict", "--no-progress"], in: directory)
    #expect(fsck.status == 0, "git fsck --strict failed: \(fsck.stdout)\(fsck.stderr)", sourceLocation: sourceLocation)
    let problems = (fsck.stdout + fsck.stderr).split(separator: "\n").filter {
        !$0.hasPrefix("Checking") && !$0.hasPrefix("dangling ")
    }
    #expect(problems.isEmpty, "git fsck --strict reported: \(problems)", sourceLocation: sourceLocation)
    let cached = try gitRun(["diff", "--cached", "--quiet"], in: directory)
    #expect(cached.status == 0, "the index differs from HEAD (git diff --cached)", sourceLocation: sourceLocation)
    let work = try gitRun(["diff", "--quiet"], in: directory)
    #expect(work.status == 0, "the work tree differs from the index (git diff)", sourceLocation: sourceLocation)
}

/// A user-facing failure: non-zero exit, `vault: error:` on stderr holding every fragment.
func expectFailure(_ result: RunResult, _ fragments: [String], sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(
        result.status != 0, "expected a failure, got status 0; stdout: \(result.stdout)", sourceLocation: sourceLocation
    )
    #expect(
        result.stderr.contains("vault: error: "), "stderr has no 'vault: error: ': \(result.stderr)",
        sourceLocation: sourceLocation)
    for fragment in fragments {
        #expect(
            result.stderr.contains(fragment), "stderr lacks \"\(fragment)\": \(result.stderr)",
            sourceLocation: sourceLocation)
    }
    #expect(!result.stderr.contains("Fatal error"), "crashed: \(result.stderr)", sourceLocation: sourceLocation)
}

func expectSucceeded(_ result: RunResult, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(
        result.status == 0, "status \(result.status); stdout: \(result.stdout) stderr: \(result.stderr)",
        sourceLocation: sourceLocation)
}

/// Path → bytes of every file below `root`, hidden ones and `.git/` included.
///
/// All but `.vault/authorship-checked`: this machine's record of how far it has checked who
/// wrote the commits (FORMAT.md), which the first vault command after commits arrived by plain
/// git writes, whatever the command (a vault made by `git commit`, as these tests make it).
func fullSnapshot(_ root: String) throws -> [String: [UInt8]] {
    var out: [String: [UInt8]] = [:]
    let e = FileManager.default.enumerator(atPath: root)
    while let p = e?.nextObject() as? String {
        if p == ".vault/authorship-checked" { continue }
        var isDir: ObjCBool = false
        let full = root + "/" + p
        if FileManager.default.fileExists(atPath: full, isDirectory: &isDir), !isDir.boolValue {
            out[p] = Array(try Data(contentsOf: URL(fileURLWithPath: full)))
        }
    }
    return out
}

/// Two snapshots are equal; names the paths that differ.
func expectSameFiles(
    _ before: [String: [UInt8]], _ after: [String: [UInt8]], sourceLocation: SourceLocation = #_sourceLocation
) {
    let added = Set(after.keys).subtracting(before.keys).sorted()
    let removed = Set(before.keys).subtracting(after.keys).sorted()
    let changed = before.keys.filter { after[$0] != nil && after[$0] != before[$0] }.sorted()
    #expect(added.isEmpty, "files were added: \(added)", sourceLocation: sourceLocation)
    #expect(removed.isEmpty, "files were removed: \(removed)", sourceLocation: sourceLocation)
    #expect(changed.isEmpty, "files were changed: \(changed)", sourceLocation: sourceLocation)
}

/// A fresh vault made with `vault init` in a new temporary folder.
func initVault(_ label: String = "vault-git") throws -> TemporaryDirectory {
    let dir = TemporaryDirectory(label)
    let r = try runVault(["init", ".", "--locale", "en_US", "--time-zone", "Asia/Tokyo"], in: dir.path)
    guard r.status == 0 else { throw GitTestError("vault init failed: \(r.stderr)") }
    return dir
}

/// A copy of sample-vault given its repository by `vault init`-free means: the first chat.
/// Returns the folder; HEAD is `init: vault` followed by one chat commit in the offline room.
func sampleVaultWithHistory() throws -> TemporaryDirectory {
    let dir = try Project.copyOfSampleVault()
    let r = try runVault(["chat", offlineRoom, "first message"], in: dir.path)
    guard r.status == 0 else { throw GitTestError("first chat failed: \(r.stderr)") }
    return dir
}

/// Appends `text` to a file of `dir`.
func append(_ text: String, to relative: String, in dir: TemporaryDirectory) throws {
    try dir.write(relative, try dir.read(relative) + Array(text.utf8))
}

/// Sets a file's modification time `seconds` into the past.
func age(_ path: String, by seconds: TimeInterval) throws {
    try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-seconds)], ofItemAtPath: path)
}

/// An empty folder to use as HOME so neither git nor libgit2 finds an identity.
func noIdentityEnvironment(home: String) -> [String: String] {
    [
        "HOME": home, "XDG_CONFIG_HOME": home + "/.config", "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": home + "/.gitconfig",
    ]
}
