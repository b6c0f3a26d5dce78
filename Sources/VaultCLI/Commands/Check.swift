import ArgumentParser
import Foundation
import VaultCore

extension VaultCommand {
    struct Check: VaultRunnable {
        static let configuration = CommandConfiguration(
            commandName: "check",
            abstract: "Check every file of the vault; report each problem as file:line.",
            discussion: "Exits with status 1 when there is any problem.")

        @OptionGroup var location: VaultLocation
        @Argument(help: "The vault's folder (same as --vault).") var directory: String?

        func execute() throws {
            var location = self.location
            if let directory { location.directory = directory }
            let vault: Vault
            do {
                vault = try location.open()
            } catch .malformed(let problems) {
                for p in problems { Terminal.standardError("\(p)\n") }
                throw CommandError.problemsReported
            }
            let problems = vault.check()
            let files = vault.roomPaths().count + vault.diaryPaths().count
            for p in problems {
                let label = p.severity == .warning ? "warning: " : ""
                Terminal.standardError("\(p.path):\(p.line): \(label)\(p.message)\n")
            }
            if problems.isEmpty {
                print("\(files) files checked, no problems.")
            } else {
                let plural = problems.count == 1 ? "" : "s"
                Terminal.standardError("\(files) files checked, \(problems.count) problem\(plural).\n")
                throw CommandError.problemsReported
            }
        }
    }
}
