import Foundation
import Testing
import VaultTestSupport

/// Shell completion of room and diary names, through the built `vault` as the shells' scripts
/// call it, and the manual page generated from the command definitions.
@Suite struct CompletionTests {
    /// What `vault` answers when the bash script asks to complete `vault WORDS… LAST`.
    func complete(_ command: [String], _ words: [String], in directory: String) throws -> RunResult {
        let all = ["vault"] + command + words
        let arguments =
            ["---completion"] + command + ["--", "positional@0", String(all.count - 1), String(words.last?.count ?? 0)]
            + all
        return try runVault(arguments, in: directory)
    }

    @Test func roomAndDiaryNamesAreCompletedFromTheVault() throws {
        let vault = try freshVault()
        for title in ["부산 여행", "부산 맛집", "Weekly plans"] {
            expectSuccess(try runVault(["room", "new", title], in: vault.path))
        }
        expectSuccess(try runVault(["write", "산책", "--date", "2026-11-22", "--body", "걸었다"], in: vault.path))
        let rooms = try complete(["chat"], ["부"], in: vault.path)
        expectSuccess(rooms)
        #expect(rooms.stdout.split(separator: "\n") == ["부산-맛집", "부산-여행"], "\(rooms.stdout)")
        // Typed on a Mac (NFD), completed all the same.
        let nfd = try complete(["chat"], ["부산-여".decomposedStringWithCanonicalMapping], in: vault.path)
        #expect(nfd.stdout.split(separator: "\n") == ["부산-여행"], "\(nfd.stdout)")
        let items = try complete(["log"], [""], in: vault.path + "/rooms")
        let names = items.stdout.split(separator: "\n").map(String.init)
        #expect(Set(names) == ["부산-맛집", "부산-여행", "weekly-plans", "2026-11-22", "2026-11-22-산책"], "\(names)")
        let entries = try complete(["tag"], ["2026"], in: vault.path)
        #expect(entries.stdout.split(separator: "\n") == ["2026-11-22", "2026-11-22-산책"], "\(entries.stdout)")
        // From elsewhere, with --vault on the line.
        let elsewhere = try complete(["chat"], ["--vault", vault.path, "we"], in: "/")
        #expect(elsewhere.stdout == "weekly-plans\n", "\(elsewhere.stdout)")
        // Every name completed resolves.
        for name in names {
            let r = try runVault(["log", name, "-n", "1"], in: vault.path)
            #expect(r.status == 0, "\(name): \(r.stderr)")
        }
    }

    @Test func outsideAVaultNothingIsCompletedAndNothingFails() throws {
        let folder = TemporaryDirectory("no-vault")
        let r = try complete(["chat"], ["부"], in: folder.path)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.isEmpty && r.stderr.isEmpty, "\(r.stdout) \(r.stderr)")
    }

    @Test func theScriptsOfEveryShellCompleteRoomsAndItems() throws {
        for shell in ["bash", "zsh", "fish"] {
            let r = try runVault(["--generate-completion-script", shell], in: "/")
            expectSuccess(r)
            for command in ["chat", "room set", "log", "diff", "export", "tag", "edit", "retry"] {
                #expect(r.stdout.contains("---completion \(command) -- "), "\(shell): \(command)")
            }
            // Setting keys are listed.
            #expect(r.stdout.contains("temperature"), "\(shell)")
        }
    }

    @Test func theManualIsWhatTheCommandDefinitionsGive() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", Project.root + "/scripts/generate-manual.py", "--check", "--vault", Project.vaultExecutable,
        ]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(message)")
        let manual = try String(contentsOfFile: Project.root + "/docs/vault.1", encoding: .utf8)
        for section in [".SH NAME", ".SH SYNOPSIS", ".SS vault room set", ".SS vault chat", "config.yml"] {
            #expect(manual.contains(section), "\(section)")
        }
    }
}
