import ArgumentParser
import Foundation
import VaultCore

extension VaultCommand {
    struct Check: VaultRunnable {
        static let configuration = CommandConfiguration(
            commandName: "check",
            abstract: "Check every file of the vault, or the files named; report each problem as file:line.",
            discussion: """
                The findings and the summary line go to standard output (`vault check | less` shows \
                them); the exit status says whether there were any: 1 when there is any problem.
                """)

        @OptionGroup var location: VaultLocation
        @Argument(
            help: """
                Rooms and diary entries to check, and only them (paths or names); or the vault's folder (as --vault).
                """,
            completion: .items)
        var items: [String] = []

        func execute() throws {
            var location = self.location
            var names = items
            // `vault check DIR`: the vault's folder, as before names could be given.
            if names.count == 1, FileIO.isDirectory(names[0]) {
                location.directory = names[0]
                names = []
            }
            let vault: Vault
            do {
                vault = try location.open()
            } catch .malformed(let problems) {
                for p in problems { print("\(p)") }
                throw CommandError.problemsReported
            }
            let problems: [FormatProblem]
            let files: Int
            if names.isEmpty {
                problems = vault.check()
                files = vault.roomPaths(sorted: false).count + vault.diaryPaths(sorted: false).count
                    + vault.volumePaths().count
            } else {
                let here = FileManager.default.currentDirectoryPath
                var chosen: [VaultItem] = []
                for name in names {
                    let item = try vault.resolve(name, workingDirectory: here, allowingLink: true)
                    if !chosen.contains(item) { chosen.append(item) }
                }
                problems = vault.check(chosen)
                files = chosen.count
            }
            let noun = files == 1 ? "file" : "files"
            for p in problems {
                let label = p.severity == .warning ? "warning: " : ""
                print("\(p.path):\(p.line): \(label)\(p.message)")
            }
            if problems.isEmpty {
                print("\(files) \(noun) checked, no problems.")
            } else {
                let plural = problems.count == 1 ? "" : "s"
                print("\(files) \(noun) checked, \(problems.count) problem\(plural).")
                throw CommandError.problemsReported
            }
        }
    }
}
