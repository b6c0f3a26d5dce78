import ArgumentParser
import Foundation
import VaultCore

extension VaultCommand {
    struct Check: VaultRunnable {
        static let configuration = CommandConfiguration(
            commandName: "check",
            abstract: "Check every file of the vault; report each problem as file:line.",
            discussion: """
                The findings and the summary line go to standard output (`vault check | less` shows \
                them); the exit status says whether there were any: 1 when there is any problem.
                """)

        @OptionGroup var location: VaultLocation
        @Argument(help: "The vault's folder (same as --vault).") var directory: String?

        func execute() throws {
            var location = self.location
            if let directory { location.directory = directory }
            let vault: Vault
            do {
                vault = try location.open()
            } catch .malformed(let problems) {
                for p in problems { print("\(p)") }
                throw CommandError.problemsReported
            }
            let problems = vault.check()
            let files = vault.roomPaths().count + vault.diaryPaths().count
            for p in problems {
                let label = p.severity == .warning ? "warning: " : ""
                print("\(p.path):\(p.line): \(label)\(p.message)")
            }
            if problems.isEmpty {
                print("\(files) files checked, no problems.")
            } else {
                let plural = problems.count == 1 ? "" : "s"
                print("\(files) files checked, \(problems.count) problem\(plural).")
                throw CommandError.problemsReported
            }
        }
    }
}
