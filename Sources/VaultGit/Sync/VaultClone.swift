import Foundation
import VaultCore

/// `vault clone URL DIR`: a second machine set up completely, in one command.
public enum VaultClone {
    /// The folder `git clone` would make: the last part of the URL without `.git`.
    public static func defaultFolder(for url: String) -> String {
        var name = url
        while name.hasSuffix("/") { name.removeLast() }
        if let cut = name.lastIndex(where: { $0 == "/" || $0 == ":" }) {
            name = String(name[name.index(after: cut)...])
        }
        if name.hasSuffix(".git") { name.removeLast(4) }
        return name.isEmpty ? "vault" : name
    }

    /// Clones the vault at `url` into `root` (a new or empty folder), registers vault's merge
    /// driver, and checks that what came is a vault. On any failure the folder is removed
    /// again (when vault made it) and nothing else is left behind.
    ///
    /// Through the `git` command when `environment`'s PATH has it, else libgit2 (a remote on
    /// this machine). `interactive`: git and ssh may ask on the terminal. `onProgress`: how far
    /// the transfer is (objects received, deltas resolved, files checked out), then
    /// `ProgressEvent.ended`; nil asks git and libgit2 for no progress.
    public static func clone(
        url: String, into root: String, interactive: Bool = false,
        environment: [String: String] = ProcessInfo.processInfo.environment, onProgress: ProgressHandler? = nil
    ) throws(VaultError) -> Vault {
        let existed = FileIO.exists(root)
        if existed {
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? ["?"]
            guard FileIO.isDirectory(root), entries.isEmpty else {
                throw VaultError.input(.cloneTargetNotEmpty(root))
            }
        }
        let parent = FileIO.parent(of: root)
        guard FileIO.isDirectory(parent) else { throw VaultError.input(.notAFolder(parent)) }
        let transport = GitTransport(root: parent, environment: environment)
        func cleanUp() {
            if existed {
                for name in (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [] {
                    try? FileManager.default.removeItem(atPath: root + "/" + name)
                }
            } else {
                try? FileManager.default.removeItem(atPath: root)
            }
        }
        var empty = false
        if GitTransport.isInstalled(environment: environment) {
            // `--quiet` would leave out the local steps of the progress (receiving, resolving).
            let output = try transport.run(
                ["clone", onProgress == nil ? "--quiet" : "--progress", "--", url, root], interactive: interactive,
                progress: onProgress)
            guard output.status == 0 else {
                cleanUp()
                throw GitTransport.failure("clone \(url)", output, remote: url)
            }
            empty = output.stderr.contains("empty repository")
        } else {
            do {
                try LibGit2Transport.clone(url: url, into: root, progress: onProgress)
            } catch {
                cleanUp()
                throw error
            }
            empty =
                !FileIO.exists(root + "/" + VaultPath.config)
                && (try? FileManager.default.contentsOfDirectory(atPath: root))?.filter { $0 != ".git" }.isEmpty == true
        }
        guard FileIO.exists(root + "/" + VaultPath.config) else {
            cleanUp()
            throw VaultError.notAVault(
                empty
                    ? "\(url) is an empty repository, not a vault yet:"
                        + " on the machine that has the vault, run `vault remote add origin \(url)`"
                        + " and `vault sync`, then clone again. Nothing was kept."
                    : "\(url) is a git repository but not a vault"
                        + " (it has no \(VaultPath.config) at its top); nothing was kept."
            )
        }
        do {
            let vault = try Vault(root: root)
            try FileIO.makeDirectory(root + "/" + VaultPath.state)
            let history = try GitHistory(vault: root, config: vault.config)
            let cloned = vault.with(history: history)
            try cloned.change { change throws(VaultError) in try history.ensureMergeDriver(in: change) }
            return cloned
        } catch {
            cleanUp()
            throw error
        }
    }
}
