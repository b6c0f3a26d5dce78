import ArgumentParser
import Foundation
import Testing
@testable import VaultCLI
import VaultTestSupport

/// Every command's and subcommand's `--help`, as the built `vault` prints it at 80 columns (what
/// a pipe, and the manual, get): its usage line names real arguments in balanced brackets
/// (`[<SOURCE] [PATH> ...]` did not), and no paragraph is broken mid-sentence by a line feed
/// in the source ("vault\ntells from the\nfiles."). The commands are walked from
/// ArgumentParser's configuration (`VaultCommand.configuration`), so a new one is checked too.
@Suite struct HelpTextTests {
    static let width = 80

    /// Every command path below `vault` (`["room", "set"]`), hidden ones too.
    static func commandPaths(_ command: any ParsableCommand.Type = VaultCommand.self, _ path: [String] = []) -> [[String]] {
        command.configuration.subcommands.flatMap { sub -> [[String]] in
            let name = sub.configuration.commandName ?? String(describing: sub).lowercased()
            return [path + [name]] + commandPaths(sub, path + [name])
        }
    }

    /// A help text's parts: the usage line (its wrapped lines joined) and the lines under each heading.
    struct Help {
        var usage = ""
        var sections: [String: [String]] = [:]

        init(_ text: String) {
            var heading = "OVERVIEW"
            for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
                if line.hasPrefix("USAGE: ") {
                    heading = "USAGE"
                    usage = String(line.dropFirst(7))
                } else if heading == "USAGE", line.hasPrefix("       ") {
                    usage += " " + line.trimmingCharacters(in: .whitespaces)
                } else if let colon = line.firstIndex(of: ":"), line[..<colon].allSatisfy({ $0.isUppercase }),
                    line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces).isEmpty, colon > line.startIndex
                {
                    heading = String(line[..<colon])
                } else {
                    sections[heading, default: []].append(line)
                }
            }
        }

        /// The names an entry of ARGUMENTS or OPTIONS starts with: `<room>`, `--vault`, `<DIR>`, `-n`.
        var definedNames: Set<String> {
            var names: Set<String> = []
            for line in (sections["ARGUMENTS"] ?? []) + (sections["OPTIONS"] ?? []) where line.hasPrefix("  ") {
                let label = line.dropFirst(2).components(separatedBy: "  ").first ?? ""
                guard !label.hasPrefix(" ") else { continue }
                for word in label.split(whereSeparator: { $0 == " " || $0 == "," }) { names.insert(String(word)) }
            }
            return names
        }
    }

    /// What is wrong with `usage` (a command's usage line after `USAGE: `) for the help `help`.
    static func usageProblems(_ usage: String, command: [String], help: Help) -> [String] {
        var problems: [String] = []
        let prefix = (["vault"] + command).joined(separator: " ")
        guard usage == prefix || usage.hasPrefix(prefix + " ") else { return ["does not start with \(prefix)"] }
        var open: [Character] = []
        var name = ""
        var names: [String] = []
        for c in usage.dropFirst(prefix.count) {
            if open.last == "<", c != ">" {
                if "[]<".contains(c) { problems.append("'\(c)' inside <\(name)") }
                name.append(c)
                continue
            }
            switch c {
            case "[", "<": open.append(c)
            case "]": if open.popLast() != "[" { problems.append("a ']' closes nothing") }
            case ">":
                if open.popLast() != "<" { problems.append("a '>' closes nothing") }
                names.append(name)
                name = ""
            default: break
            }
        }
        if !open.isEmpty { problems.append("unclosed \(String(open))") }
        let defined = help.definedNames
        // ArgumentParser's own: `[<options>]` when the options are too many to list.
        for n in names where n != "subcommand" && n != "options" {
            if n.range(of: "^[A-Za-z][A-Za-z0-9_-]*$", options: .regularExpression) == nil {
                problems.append("<\(n)> is no argument's name")
            } else if !defined.contains("<\(n)>") {
                problems.append("<\(n)> is not among its arguments and options")
            }
        }
        if names.contains("subcommand"), help.sections["SUBCOMMANDS"] == nil { problems.append("<subcommand> without subcommands") }
        for word in usage.split(separator: " ") {
            let option = word.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            if option.hasPrefix("-"), option != "...", !defined.contains(option) {
                problems.append("\(option) is not among its options")
            }
        }
        return problems
    }

    /// Lines of `lines` (a help section) that end before ArgumentParser's greedy wrap would (it
    /// keeps lines below `width` characters): the next line goes on with the same sentence and
    /// its first word would have fitted. A
    /// continuation is a line at the same indentation, or at the column the help text of an
    /// argument starts at; a list item (`%(path)`, `key: …`, `-…`, `/…`) starts a line of its own.
    static func brokenLines(_ lines: [String], width: Int) -> [String] {
        func indent(_ s: String) -> Int { s.prefix { $0 == " " }.count }
        var broken: [String] = []
        for (a, b) in zip(lines, lines.dropFirst()) {
            let text = b.trimmingCharacters(in: .whitespaces)
            guard !a.trimmingCharacters(in: .whitespaces).isEmpty, !text.isEmpty else { continue }
            let column = indent(b)
            let aligned =
                column == indent(a)
                || (column > indent(a) && column < a.count && Array(a)[column - 1] == " " && Array(a)[column] != " ")
            let listItem = text.range(of: #"^(%\(|[-/*•]|[A-Za-z_]+: |\S+  )"#, options: .regularExpression) != nil
            guard aligned, !listItem, let last = a.trimmingCharacters(in: .whitespaces).last, !".:;!?".contains(last)
            else { continue }
            let next = text.split(separator: " ").first.map(String.init) ?? ""
            if a.count + 1 + next.count < width { broken.append(a + "⏎" + b) }
        }
        return broken
    }

    @Test func everyCommandsUsageLineIsRightAndNoParagraphIsBrokenMidSentence() throws {
        let paths = Self.commandPaths()
        #expect(paths.contains(["import"]) && paths.contains(["room", "set"]) && paths.contains(["diary", "list"]))
        let dir = TemporaryDirectory("vault-help")
        for path in paths {
            let r = try runVault(path + ["--help"], in: dir.path, environment: ["COLUMNS": "\(Self.width)"])
            #expect(r.status == 0, "\(path): \(r.stderr)")
            let help = Help(r.stdout)
            #expect(!help.usage.isEmpty, "\(path): no usage line in \(r.stdout)")
            for problem in Self.usageProblems(help.usage, command: path, help: help) {
                Issue.record("vault \(path.joined(separator: " ")) --help: USAGE: \(help.usage): \(problem)")
            }
            for (heading, lines) in help.sections where heading != "USAGE" {
                for line in Self.brokenLines(lines, width: Self.width) {
                    Issue.record("vault \(path.joined(separator: " ")) --help, \(heading): broken mid-sentence: \(line)")
                }
            }
        }
    }

    /// The checks catch what they are for: the old `import` usage and its broken discussion.
    @Test func theChecksFindTheOldImportHelpsFaults() {
        let old = Help(
            """
            OVERVIEW: Bring in conversations.

            SOURCE is chatgpt, claude, claude-code, llm, jrnl or dayone; without it, vault
            tells from the
            files. Importing the same or a newer export again adds only what is new.

            USAGE: vault import [--vault <DIR>] [<SOURCE] [PATH> ...]

            ARGUMENTS:
              <SOURCE] [PATH>         The tool the files come from (optional), then the
                                      export's files or folders.

            OPTIONS:
              --vault <DIR>           The vault's folder.
            """)
        let problems = Self.usageProblems(old.usage, command: ["import"], help: old)
        #expect(problems.contains("']' inside <SOURCE") || problems.contains("'[' inside <SOURCE"), "\(problems)")
        #expect(problems.contains { $0.contains("is no argument's name") }, "\(problems)")
        #expect(Self.brokenLines(old.sections["OVERVIEW"] ?? [], width: 80).count == 1, "\(old.sections)")
        let good = Help("USAGE: vault import [--vault <DIR>] [<source>] [<path> ...]\n\nARGUMENTS:\n  <source>  s\n  <path>  p\n\nOPTIONS:\n  --vault <DIR>  v\n")
        #expect(Self.usageProblems(good.usage, command: ["import"], help: good).isEmpty)
        let unnamed = Help("USAGE: vault import <file>\n\nARGUMENTS:\n  <path>  p\n")
        #expect(Self.usageProblems(unnamed.usage, command: ["import"], help: unnamed) == ["<file> is not among its arguments and options"])
    }
}
