import ArgumentParser
import Foundation
import VaultCore
import VaultKit

extension VaultCommand {
    struct Diff: PagedCommand {
        static let configuration = CommandConfiguration(
            commandName: "diff",
            abstract: "Show how a room or diary entry differs from its last commit, or from an older revision.")

        @OptionGroup var location: VaultLocation
        @Argument(help: "A room or diary entry.", completion: .items) var item: String
        @Argument(help: "A revision (from `vault log`); default: the last commit.") var revision = "HEAD"
        @OptionGroup var output: OutputOptions

        func execute() throws {
            let (vault, history) = try location.openHistory()
            let style = try output.style()
            let path = try resolveInHistory(item, vault: vault, history: history)
            let old = try history.contents(of: path, at: revision)
            let new = try? FileIO.read(vault.absolute(path))
            let diff = try history.unifiedDiff(old, new, path: path)
            if diff.isEmpty {
                print(
                    "\(path) is the same as in \(revision == "HEAD" ? "the last commit" : revision)"
                        + " (\(try history.shortID(revision)))."
                )
            } else if style.colored {
                var lines = diff.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                if lines.last == "" { lines.removeLast() }
                Terminal.write(lines.map(style.diffLine).joined(separator: "\n") + "\n", to: 1)
            } else {
                Terminal.stream(diff)
            }
        }
    }
}
