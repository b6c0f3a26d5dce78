import Foundation
import Testing
@testable import VaultCLI
import VaultCore
import VaultTestSupport

/// Each layer's errors, fed through the built `vault`: the message, the exit status, and no
/// file changed; and README.md's exit-status table against `ExitStatus`.
@Suite struct ExitStatusTests {
    /// The rows of README.md's exit-status table: the status as written ("64", "128 + N") → its meaning.
    static func readmeTable() throws -> [(status: String, meaning: String)] {
        let readme = try String(contentsOfFile: Project.root + "/README.md", encoding: .utf8)
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let header = try #require(lines.firstIndex(of: "| status | meaning |"), "README.md has no exit-status table")
        var rows: [(String, String)] = []
        for line in lines[(header + 2)...] {
            guard line.hasPrefix("| ") else { break }
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            rows.append((cells[0], cells[1]))
        }
        return rows
    }

    @Test func theReadmeTableListsEveryStatusTheCodeGivesAndNoOther() throws {
        let rows = try Self.readmeTable()
        let documented = rows.compactMap { Int32($0.status) }
        #expect(documented.count == Set(documented).count, "a status is listed twice: \(documented)")
        #expect(Set(documented) == Set(VaultCLI.ExitStatus.allCases.map(\.rawValue)))
        // Signals are not errors (`Termination` ends the process with 128 + N): one row says so.
        #expect(rows.filter { Int32($0.status) == nil }.map(\.status) == ["128 + N"])
        #expect(rows.first { $0.status == "64" }?.meaning.contains("usage error") == true)
        #expect(rows.first { $0.status == "70" }?.meaning.contains("internal error") == true)
    }

    @Test func everyLayersErrorHasItsStatus() {
        let cases: [(any Error, VaultCLI.ExitStatus)] = [
            (VaultError.malformed([FormatProblem(path: "a.md", line: 3, kind: .frontMatterNotMapping)]), .failure),
            // An option's value that names no day or month: a usage error, as `--color sometimes`.
            (VaultError.input(.unreadableDate("someday")), .usage),
            (VaultError.input(.unreadableMonth("13")), .usage),
            (VaultError.input(.emptyTitle), .failure),
            (VaultError.repository(.libgit2(doing: "write the index", message: "disk full", errorClass: 2)), .failure),
            (VaultError.provider(ProviderFailure(.timeout, "no answer"), kept: false), .unreachable),
            (VaultError.provider(ProviderFailure(.noKey, "no key"), kept: false), .keyRefused),
            (VaultError.provider(ProviderFailure(.cutOff, "cut off"), kept: true), .badReply),
            (VaultError.provider(ProviderFailure(.interrupted, "interrupted"), kept: true), .interrupted),
            (VaultError.provider(ProviderFailure(.unsaved, "not saved"), kept: false), .failure),
            (VaultError.editor(.savedNothing(editor: "vi", how: "exit status 1", path: "a.md")), .failure),
            (VaultError.internal(InternalError("the merge would lose 1 item(s)", context: "abc")), .internalError),
            (UsageError.unknownFormat("pdf"), .usage),
            (CommandError.noMatch, .failure),
            (CommandError.invalidSearch(VaultError.input(.emptyPattern)), .invalidSearch),
            (CommandError.invalidSearch(UsageError.unknownRole("robot")), .usage),
            (CommandError.invalidSearch(VaultError.itemNotFound("x", hint: "")), .failure),
            (CommandError.outputExists("x.md"), .failure),
        ]
        for (error, status) in cases {
            #expect(VaultCLI.ExitStatus.of(error) == status, "\(error)")
        }
        // ArgumentParser's own usage errors are usage errors too.
        do {
            _ = try VaultCommand.parseAsRoot(["rooms", "--bogus"])
            Issue.record("`vault rooms --bogus` was accepted")
        } catch {
            #expect(VaultCLI.ExitStatus.of(error) == .usage)
        }
    }

    @Test func internalAndGitMessagesCarryTheirContext() {
        let broken = VaultError.internal(
            InternalError("the merge would lose 2 item(s) (rooms/a.md, b.md)", context: "the remote's commit is 1a2b"))
        #expect(
            broken.description
                == "internal error: the merge would lose 2 item(s) (rooms/a.md, b.md) (the remote's commit is 1a2b);"
                + " vault stopped before changing anything. Please report this.")
        let git = VaultError.repository(.libgit2(doing: "write the index", message: "failed to write", errorClass: 10))
        #expect(git.description == "cannot write the index: failed to write")
    }

    /// Runs `arguments` in `vault`, and checks the status, the message and that no file changed.
    func expectRefused(
        _ arguments: [String], in vault: TemporaryDirectory, status: Int32, message: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let before = try vault.snapshot()
        let result = try runVault(arguments, in: vault.path)
        #expect(result.status == status, "\(arguments): \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.hasPrefix("vault: error: " + message), "\(result.stderr)", sourceLocation: sourceLocation)
        expectUnchanged(before, try vault.snapshot(), sourceLocation: sourceLocation)
    }

    @Test func formatErrorsNameTheFileAndLine() throws {
        let vault = try freshVault()
        try vault.write("rooms/twice.md", "---\ntitle: a\ntitle: b\n---\n\n\(promptMarker)\n")
        try expectRefused(
            ["room", "set", "rooms/twice.md", "model", "m"], in: vault, status: 1,
            message: "rooms/twice.md:3: the front-matter key 'title' appears twice (first on line 2); keep one")
    }

    @Test func inputTheLibraryRejectsIsStatusOne() throws {
        let vault = try freshVault()
        try expectRefused(
            ["remote", "add", "no good", "/tmp"], in: vault, status: 1,
            message: "'no good' cannot name a remote (use letters, digits, - and _)")
        try expectRefused(
            ["chat", "rooms/none.md", "hi", "--provider", "nowhere"], in: vault, status: 1,
            message: "no room or diary entry matches 'rooms/none.md'")
        let room = try runVault(["room", "new", "Plans"], in: vault.path)
        expectSuccess(room)
        try expectRefused(
            ["chat", "Plans", "hi", "--provider", "nowhere"], in: vault, status: 1,
            message: "the provider 'nowhere' is not configured: add it under `providers:` in vault.yml")
        try expectRefused(["room", "new", "  "], in: vault, status: 1, message: "give the room a title")
        try expectRefused(
            ["restore", "Plans", "--at", "HEAD"], in: vault, status: 1,
            message: "rooms/plans.md is already as it was at ")
        try expectRefused(
            ["tag", "Plans", "+x"], in: vault, status: 1,
            message: "rooms/plans.md is a room; tags belong to diary entries")
    }

    @Test func gitRefusalsSayWhatToDo() throws {
        let vault = try freshVault()
        expectSuccess(try runVault(["room", "new", "Plans"], in: vault.path))
        _ = try git(["checkout", "-q", "--detach"], in: vault.path)
        try expectRefused(
            ["room", "new", "More"], in: vault, status: 1,
            message: "HEAD is detached in \(vault.path): vault commits on a branch")
    }

    @Test func usageErrorsAreStatus64() throws {
        let vault = try freshVault()
        try expectRefused(["sync", "--undo", "origin"], in: vault, status: 64, message: "--undo takes no remote")
        try expectRefused(["rooms", "--locale", "xx_YY"], in: vault, status: 64, message: "unknown locale 'xx_YY'")
        expectSuccess(try runVault(["room", "new", "Plans"], in: vault.path))
        try expectRefused(["room", "set", "Plans", "model"], in: vault, status: 64, message: "give a value for 'model'")
        try expectRefused(["tag", "Plans"], in: vault, status: 64, message: "give tags to change")
        try expectRefused(
            ["rm", "Plans"], in: vault, status: 64, message: "not removing rooms/plans.md without confirmation")
        let unknown = try runVault(["rooms", "--bogus"], in: vault.path)
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("--bogus"))
    }

    /// grep's 1 and 2 (nothing found, an invalid pattern); options are the command line's, 64.
    @Test func searchKeepsGrepsStatuses() throws {
        let vault = try freshVault()
        try expectRefused(
            ["search", "--regex", "("], in: vault, status: 2, message: "invalid regular expression at position 1")
        try expectRefused(["search", "x", "--role", "robot"], in: vault, status: 64, message: "unknown role 'robot'")
        try expectRefused(["search", "x", "--rooms", "--diary"], in: vault, status: 64, message: "give one of --room")
        let none = try runVault(["search", "nothing-like-this"], in: vault.path)
        #expect(none.status == 1 && none.stderr.isEmpty && none.stdout.isEmpty)
    }
}
