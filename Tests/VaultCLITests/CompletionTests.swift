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
        #expect(rooms.stdout.split(separator: "\n") == ["부산-맛집", "부산-여행", "부산 맛집", "부산 여행"], "\(rooms.stdout)")
        // Typed on a Mac (NFD), completed all the same, in the form typed (the shell compares it).
        let nfd = try complete(["chat"], ["부산-여".decomposedStringWithCanonicalMapping], in: vault.path)
        #expect(nfd.stdout == "부산-여행".decomposedStringWithCanonicalMapping + "\n", "\(nfd.stdout)")
        let items = try complete(["log"], [""], in: vault.path + "/rooms")
        let names = items.stdout.split(separator: "\n").map(String.init)
        #expect(
            Set(names) == [
                "부산-맛집", "부산-여행", "weekly-plans", "부산 맛집", "부산 여행", "Weekly plans", "2026-11-22",
                "2026-11-22-산책",
            ], "\(names)")
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

    /// A vault with rooms whose titles have spaces, Korean, an apostrophe, a colon, and one
    /// title that starts another.
    func titledVault() throws -> TemporaryDirectory {
        let vault = try freshVault()
        for title in ["부산 여행", "부산 여행 2", "부산 맛집", "Tom's notes", "Plan: 2027"] {
            expectSuccess(try runVault(["room", "new", title], in: vault.path))
        }
        return vault
    }

    @Test func titlesAreOfferedUnquotedFromWhatWasTypedAndEscapedForEachShell() throws {
        let vault = try titledVault()
        func offered(_ word: String, shell: String) throws -> [String] {
            let all = ["vault", "show", word]
            let r = try runVault(
                ["---completion", "show", "--", "positional@0", "2", String(word.count)] + all, in: vault.path,
                environment: ["SAP_SHELL": shell])
            expectSuccess(r)
            let lines = r.stdout.split(separator: "\n").map(String.init)
            // zsh's script drops the last line ArgumentParser prints for it.
            return shell == "zsh" ? Array(lines.dropLast()) : lines
        }
        // The word as typed: with a backslash, in double or single quotes.
        for word in ["부산\\ 여", "\"부산 여", "'부산 여"] {
            #expect(try offered(word, shell: "fish") == ["부산 여행", "부산 여행 2"], "\(word)")
        }
        // bash's script expands each name (compgen -W): shell characters are escaped.
        #expect(try offered("부산\\ 여", shell: "bash") == ["부산\\ 여행", "부산\\ 여행\\ 2"])
        #expect(try offered("Tom", shell: "bash") == ["Tom\\'s\\ notes"])
        // zsh's _describe reads NAME:DESCRIPTION: a colon is escaped.
        #expect(try offered("Plan", shell: "zsh") == ["Plan\\: 2027"])
        #expect(try offered("Plan", shell: "fish") == ["Plan: 2027"])
        // Typed decomposed (a Mac's Hangul): offered decomposed.
        let decomposed = try offered("부산 맛".decomposedStringWithCanonicalMapping, shell: "fish")
        #expect(decomposed == ["부산 맛집".decomposedStringWithCanonicalMapping])
        // A whole title names its room even when another title starts with it.
        let shown = try runVault(["show", "부산 여행", "--no-pager", "--color", "never"], in: vault.path)
        expectSuccess(shown)
        #expect(shown.stdout.contains("rooms/부산-여행.md") && !shown.stdout.contains("부산-여행-2"), "\(shown.stdout)")
    }

    /// Real bash, zsh and fish on a pseudo-terminal, with the scripts vault generates: a title
    /// typed in part is completed on the line, quoted as the shell quotes, and the command then
    /// run (`vault show`) finds the room.
    @Test(arguments: ["bash", "zsh", "fish"])
    func eachShellCompletesTitlesWithSpacesAndKoreanOnTheLine(shell: String) throws {
        let installed = ["/usr/bin/", "/bin/"].contains { FileManager.default.isExecutableFile(atPath: $0 + shell) }
        try #require(installed, "\(shell) is not installed: scripts/common.sh installs it (VAULT_APT_PACKAGES)")
        let vault = try titledVault()
        let scratch = TemporaryDirectory("completion-shells")
        let script = scratch.path + "/vault." + shell
        let generated = try runVault(["--generate-completion-script", shell], in: "/")
        expectSuccess(generated)
        try generated.stdout.write(toFile: script, atomically: true, encoding: .utf8)
        let command: [String]
        let load: String
        switch shell {
        case "bash":
            command = ["bash", "--norc", "--noprofile", "-i"]
            load = "source \(script)"
        case "zsh":
            command = ["zsh", "-f", "-i"]
            load = "autoload -Uz compinit && compinit -u -d \(scratch.path)/zcompdump; source \(script)"
        default:
            command = ["fish", "--no-config", "-i"]
            load = "source \(script)"
        }
        let folder = (Project.vaultExecutable as NSString).deletingLastPathComponent
        let path = folder + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        // Each text waited for appears only once the completion (or the command) did its part.
        let s = try ChatPromptTests.drive(
            [
                ("", load + "; echo RE''ADY\r"),
                // Two titles start so ("부산 여행 2"): the common part is completed, with a bell.
                ("READY", "vault show 부산\\ 여\t"), ("행", "\r"),
                ("rooms/부산-여행.md", "vault show \"부산 맛\t"), ("맛집\"", "\r"),
                ("rooms/부산-맛집.md", "vault show Tom\\'\t"), ("notes", "\r"),
                ("rooms/tom-s-notes.md", "exit\r"),
            ], command, in: vault.path,
            environment: [
                "PATH": path, "HOME": scratch.path, "XDG_CONFIG_HOME": scratch.path, "NO_COLOR": "1",
                "VAULT_PAGER": "cat", "TERM": "xterm",
            ], scratch: scratch)
        #expect(!s.output.contains("NEVER SAW"), "\(shell): \(s.output)")
        #expect(!s.output.contains("vault: error"), "\(shell): \(s.output)")
        #expect(s.status == 0, "\(shell): \(s.output)")
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
