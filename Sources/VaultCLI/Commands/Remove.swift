import ArgumentParser
import Foundation
import VaultCore
import VaultKit

extension VaultCommand {
    struct Remove: VaultRunnable {
        static let configuration = CommandConfiguration(
            commandName: "rm", abstract: "Remove a room or diary entry (with a commit: `vault restore` brings it back)."
        )

        @OptionGroup var location: VaultLocation
        @Argument(help: "A room or diary entry.", completion: .items) var item: String
        @Flag(name: [.short, .long], help: "Do not ask for confirmation.") var yes = false

        func execute() throws {
            let plain = try location.openForChange()
            let cwd = FileManager.default.currentDirectoryPath
            let resolved = try plain.resolve(item, workingDirectory: cwd, allowingLink: true)
            let target = Removal(vault: plain).target(of: resolved)
            let path = target.path
            if !yes {
                guard Terminal.stdinIsTerminal else {
                    throw UsageError.confirmationNeeded(path: path)
                }
                switch target {
                case .item(_, let title): Terminal.stream("Remove \(path) (\(title))? [y/N] ")
                case .link(_, let to):
                    Terminal.stream("Remove the symbolic link \(path) (to \(to); that stays)? [y/N] ")
                }
                let answer = readLine()?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
                guard answer == "y" || answer == "yes" else {
                    print("Nothing removed.")
                    return
                }
            }
            try Removal(vault: plain).remove(target)
            switch target {
            case .item: print("Removed \(path). Bring it back with: vault restore \(path)")
            case .link(_, let to): print("Removed \(path), a symbolic link; what it pointed to (\(to)) is untouched.")
            }
        }
    }
}
