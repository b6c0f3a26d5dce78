import ArgumentParser
import Foundation
import VaultCore
import VaultKit

extension VaultLocation {
    /// The vault and its repository, to read history.
    func openHistory() throws(VaultError) -> (Vault, GitHistory) {
        let session = try session(.readOnly)
        return (session.vault, try session.existingRepository())
    }
}

/// Names a room or entry that exists now or existed once (`GitHistory.item(named:in:from:)`),
/// from the working directory.
func resolveInHistory(_ name: String, vault: Vault, history: GitHistory) throws(VaultError) -> String {
    try history.item(named: name, in: vault, from: FileManager.default.currentDirectoryPath)
}
