import Foundation
import Testing
@testable import VaultCLI
import VaultTestSupport

/// The manual's EXIT STATUS, ENVIRONMENT and EXAMPLES (issue 27, item 10) come from one set of
/// definitions, `Reference`: README.md's tables say exactly what they say, the environment list
/// names every variable the code reads, the manual holds them all, and every example is a
/// command line vault accepts.
@Suite struct ReferenceTests {
    /// The rows of README.md's table whose header line is `header`, as cells.
    static func readmeTable(_ header: String) throws -> [[String]] {
        let readme = try String(contentsOfFile: Project.root + "/README.md", encoding: .utf8)
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let start = try #require(lines.firstIndex(of: header), "README.md has no table headed \(header)")
        var rows: [[String]] = []
        for line in lines[(start + 2)...] {
            guard line.hasPrefix("| ") else { break }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
            rows.append(cells.map { $0.trimmingCharacters(in: .whitespaces) })
        }
        return rows
    }

    @Test func theReadmesExitStatusTableIsTheDefinitions() throws {
        let rows = try Self.readmeTable("| status | meaning |")
        let defined = Reference.exitStatuses.map { [$0.status, $0.meaning] }
        #expect(rows == defined)
        #expect(defined.count == ExitStatus.allCases.count + 1)
    }

    @Test func theReadmesEnvironmentTableIsTheDefinitions() throws {
        let rows = try Self.readmeTable("| variable | default | meaning |")
        #expect(rows == Reference.environment.map { ["`\($0.name)`", $0.fallback, $0.meaning] })
    }

    /// Variables the code reads that are not for people to set, each with why.
    static let notListed: [String: String] = [
        "HOME": "the system's, for ~ when XDG_* is not set",
        "PATH": "the system's, to find git",
        "LESS": "set for less when not set, as git does",
        "LV": "set for lv when not set, as git does",
        "SAP_SHELL": "ArgumentParser's, set by its completion scripts",
        "VAULT_CRASH_AT": "the tests' crash points",
        "VAULT_UI_GUARD": "set by `vault ui`'s guard in its app's environment",
        "VAULT_TEST_VOLUME_SIZES": "the tests' small volumes (the kill loop)",
        "LC_TIME": "listed with LC_ALL",
        "LANG": "listed with LC_ALL",
        "GIT_SSH": "the person's, passed on to git (and looked at: vault sets no ssh command of its own then)",
        "GIT_SSH_COMMAND": "the person's, passed on to git (as GIT_SSH)",
        "GIT_TERMINAL_PROMPT": "set for the git command vault runs",
        "GIT_TRACE_PACKET": "set for the `git ls-remote` that reads an empty remote's unborn HEAD",
    ]

    /// Every environment variable the code reads, found the way a reviewer would grep for them.
    static func variablesTheCodeReads() throws -> Set<String> {
        let patterns = [
            #/(?:environment|env)\["([A-Z][A-Z0-9_]*)"\]/#,
            #/getenv\("([A-Z][A-Z0-9_]*)"\)/#,
            #/(?:seconds|setting)\("([A-Z][A-Z0-9_]*)"\)/#,
            #/"(VAULT_[A-Z0-9_]+|OPENAI_[A-Z0-9_]+|LC_[A-Z]+|XDG_[A-Z_]+)"/#,
        ]
        var names: Set<String> = []
        let sources = Project.root + "/Sources"
        let files = FileManager.default.enumerator(atPath: sources)
        while let file = files?.nextObject() as? String {
            guard file.hasSuffix(".swift") || file.hasSuffix(".c") else { continue }
            guard !file.hasPrefix("VaultCLI/Reference/") else { continue }
            let text = try String(contentsOfFile: sources + "/" + file, encoding: .utf8)
            for pattern in patterns {
                for match in text.matches(of: pattern) { names.insert(String(match.output.1)) }
            }
        }
        return names
    }

    @Test func everyVariableTheCodeReadsIsListed() throws {
        let read = try Self.variablesTheCodeReads()
        // The search found what it must (else it proves nothing).
        for name in ["VAULT_PAGER", "NO_COLOR", "VAULT_IDLE_TIMEOUT", "VAULT_NO_WATCH", "VAULT_GIT_TOKEN", "TZ"] {
            #expect(read.contains(name), "\(name) was not found in Sources")
        }
        let listed = Set(Reference.environment.map(\.name))
        let missing = read.subtracting(listed).subtracting(Self.notListed.keys)
        #expect(missing.isEmpty, "read by the code, not in Reference.environment: \(missing.sorted())")
        let stale = listed.subtracting(read)
        #expect(stale.isEmpty, "listed, never read: \(stale.sorted())")
    }

    @Test func theManualHasEveryStatusVariableAndExample() throws {
        let manual = try String(contentsOfFile: Project.root + "/docs/vault.1", encoding: .utf8)
        func section(_ name: String) throws -> String {
            let start = try #require(manual.range(of: ".SH \(name)\n"), "no \(name) in the manual")
            let rest = manual[start.upperBound...]
            return String(rest[..<(rest.range(of: "\n.SH ")?.lowerBound ?? rest.endIndex)])
        }
        let statuses = try section("EXIT STATUS")
        for row in Reference.exitStatuses {
            #expect(statuses.contains(".TP\n\\fB\(row.status)\\fR\n"), "\(row.status)")
        }
        #expect(statuses.contains("A usage error: an unknown option"))
        let environment = try section("ENVIRONMENT")
        for variable in Reference.environment {
            #expect(environment.contains(".TP\n\\fB\(variable.name.replacingOccurrences(of: "-", with: "\\-"))\\fR\n"), "\(variable.name)")
        }
        #expect(environment.contains("Seconds for the first byte of an answer (default: 60)."))
        let examples = try section("EXAMPLES")
        #expect(examples.components(separatedBy: ".RS 4").count == Reference.examples.count + 1)
        // `vault help` and its argument are described.
        let help = try #require(manual.range(of: ".SS vault help\n"))
        #expect(manual[help.upperBound...].hasPrefix("Show a command's help: vault help diary list is vault diary list \\-\\-help.\n"))
        #expect(manual.contains("\\fIsubcommands\\fR\nThe command, and its subcommand, to show the help of (nothing: vault's).\n"))
    }

    /// A command line split as a shell splits it (single and double quotes), up to a pipe.
    static func words(_ line: String) -> [String] {
        var words: [String] = []
        var word = ""
        var quote: Character?
        var inWord = false
        for c in line {
            if let q = quote {
                if c == q { quote = nil } else { word.append(c) }
            } else if c == "'" || c == "\"" {
                quote = c
                inWord = true
            } else if c == " " {
                if inWord { words.append(word) }
                word = ""
                inWord = false
            } else if c == "|" {
                break
            } else {
                word.append(c)
                inWord = true
            }
        }
        if inWord { words.append(word) }
        return words
    }

    @Test func everyExampleIsACommandLineVaultAccepts() throws {
        for example in Reference.examples {
            let words = Self.words(example.command)
            #expect(words.first == "vault", "\(example.command)")
            do {
                let command = try VaultCommand.parseAsRoot(Array(words.dropFirst()))
                #expect(!(command is VaultCommand), "\(example.command) names no command")
            } catch {
                Issue.record("\(example.command): \(VaultCommand.fullMessage(for: error))")
            }
        }
    }
}
