import Foundation
import VaultCore

#if canImport(Glibc)
    import Glibc
#endif

/// What a vault process killed in the middle of its work can leave behind, found wherever vault
/// makes it, so that `vault unlock` (and `vault sync`, for its own refs) can clear it:
/// - lock files of git refs and of git's own files (`NAME.lock` anywhere under `.git/` but in
///   `objects/` and `vault-locks/`), which libgit2 creates before it writes and a kill leaves;
/// - the temporary files of crash-safe writes (`.NAME.vault-tmp-PID-N`, `FileIO.write`) in the
///   vault's folders and in `.vault/`.
///
/// The locks in `.vault/` are never left behind: they are `flock` locks, which the kernel drops
/// when their process dies.
enum Leftovers {
    /// The lock files under `folder` (a path), at any depth; `skipping` names subfolders of
    /// `folder` not to look into.
    static func lockFiles(under folder: String, skipping: Set<String> = []) -> [String] {
        files(under: folder, skipping: skipping) { $0.hasSuffix(".lock") }
    }

    /// Every lock file of the git folder but the object store's and `HeldLock`'s holders.
    static func gitLocks(gitDirectory: String) -> [String] {
        lockFiles(under: gitDirectory, skipping: ["objects", "vault-locks"])
    }

    /// The lock files of vault's own refs (`refs/vault/sync/before.lock`, …). Only a `vault sync`,
    /// `--dry-run` or `--undo` writes these refs, each holding the sync lock
    /// (`Vault.takeSyncLock`); so whoever holds that lock knows that such a lock file is one a
    /// killed sync left.
    static func syncRefLocks(gitDirectory: String) -> [String] {
        lockFiles(under: gitDirectory + "/refs/vault")
    }

    /// A temporary file vault writes (`.NAME.vault-tmp-PID-N`, `.reply-PID-N.vault-tmp`) and the
    /// process that wrote it; nil for any other name.
    static func temporaryFileOwner(_ name: String) -> Int32? {
        guard name.hasPrefix(".") else { return nil }
        if let marker = name.range(of: ".vault-tmp-") {
            return name[marker.upperBound...].split(separator: "-").first.flatMap { Int32($0) }
        }
        if name.hasPrefix(".reply-"), name.hasSuffix(".vault-tmp") {
            return name.dropFirst(7).split(separator: "-").first.flatMap { Int32($0) }
        }
        return nil
    }

    /// Whether `name` is a temporary file of a vault process that is not running any more.
    static func isDeadTemporaryFile(_ name: String) -> Bool {
        guard let pid = temporaryFileOwner(name), pid > 0 else { return false }
        return kill(pid, 0) != 0 && errno == ESRCH
    }

    /// The temporary files of vault processes that are not running any more, in the vault at
    /// `root` (not in `.git/`; in `.vault/`, whose notes are written the same way).
    static func deadTemporaryFiles(root: String) -> [String] {
        files(under: root, skipping: [".git"], matching: isDeadTemporaryFile)
    }

    /// The same among the files of `folder` itself (not its subfolders): one listing, cheap
    /// enough for every command.
    static func deadTemporaryFiles(in folder: String) -> [String] {
        FileIO.list(folder).compactMap { name, kind in
            kind != .directory && isDeadTemporaryFile(name) ? folder + "/" + name : nil
        }
    }

    /// Removes the files, returning those removed.
    static func remove(_ paths: [String]) -> [String] {
        paths.filter { unlink($0) == 0 }
    }

    /// Files under `folder` whose names `matching` accepts (symbolic links are not followed).
    private static func files(under folder: String, skipping: Set<String>, matching: (String) -> Bool) -> [String] {
        var found: [String] = []
        var pending = [folder]
        while let current = pending.popLast() {
            for (name, kind) in FileIO.list(current) {
                let path = current + "/" + name
                if kind == .directory {
                    if !(current == folder && skipping.contains(name)) { pending.append(path) }
                } else if matching(name) {
                    found.append(path)
                }
            }
        }
        return found.sorted()
    }
}
