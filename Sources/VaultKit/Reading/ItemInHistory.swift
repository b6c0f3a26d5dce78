import Foundation
import VaultCore
import VaultGit

extension GitHistory {
    /// Names a room or entry that exists now or existed once: a current item, else a deleted
    /// path whose path, file name or slug matches (`vault log`, `diff`, `restore`; a server's
    /// history of an item).
    ///
    /// - Returns: the item's path, relative to the vault.
    /// - Throws: `VaultError.itemNotFound` when neither the vault nor its history has it,
    ///   `.ambiguousItem` when several deleted paths match.
    public func item(named name: String, in vault: Vault, from workingDirectory: String) throws(VaultError) -> String {
        do {
            return try vault.resolve(name, workingDirectory: workingDirectory).path
        } catch .itemNotFound {
            let key = name.precomposedStringWithCanonicalMapping
            var deleted = try deletedPaths(under: [VaultPath.rooms, VaultPath.diary])
            let relative = Vault.absolute(name, from: workingDirectory)
            // The path as the history spells it (`==` on strings ignores Unicode normalization: a
            // name typed on Linux finds the file made on a Mac).
            if relative.hasPrefix(vault.root + "/") {
                let inVault = String(relative.dropFirst(vault.root.count + 1))
                if let hit = deleted.first(where: { $0 == inVault }) { return hit }
            }
            if let hit = deleted.first(where: { $0 == key }) { return hit }
            deleted = deleted.filter {
                let stem = VaultPath.stem(of: $0).precomposedStringWithCanonicalMapping
                return stem == key || stem.hasPrefix(key)
            }
            if deleted.count == 1 { return deleted[0] }
            if deleted.count > 1 { throw VaultError.ambiguousItem(name, candidates: deleted) }
            throw VaultError.itemNotFound(name, hint: "It is not in the vault, nor in its history.")
        }
    }
}
