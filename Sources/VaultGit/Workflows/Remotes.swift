import VaultCore

/// `vault remote`: the git remotes a vault syncs with (`vault sync`), as a library workflow.
///
/// Adding one also registers vault's merge driver, so that a plain `git pull` merges rooms and
/// diary entries as vault does; `.gitattributes`, when it changes, is committed through the
/// change path (`Vault.change`) as a commit of its own. Removing one leaves the remote's data
/// alone.
///
/// ```swift
/// let remotes = Remotes(vault: vault, history: history)
/// try remotes.add(name: "origin", url: "ssh://example.org/vault.git")
/// ```
public struct Remotes {
    /// The vault, with `history` attached to commit into.
    public let vault: Vault
    let history: GitHistory

    public init(vault: Vault, history: GitHistory) {
        self.vault = vault.history === history ? vault : vault.with(history: history)
        self.history = history
    }

    /// The remotes, by name, with their URLs.
    public func list() throws(VaultError) -> [(name: String, url: String)] {
        try history.remotes()
    }

    /// Adds the remote `name` at `url` (a path, `file://`, ssh or https) and registers vault's
    /// merge driver, under the vault's lock.
    ///
    /// - Throws: `VaultError.input` when the name is not one git takes or is taken.
    public func add(name: String, url: String) throws(VaultError) {
        try vault.change { change throws(VaultError) in
            try history.addRemote(name: name, url: url)
            try history.ensureMergeDriver(in: change)
        }
    }

    /// The remote a plain `vault sync` uses (the branch's upstream, else `origin`, else the only
    /// one); nil when that is not decided (no remote, or several and none chosen).
    public func defaultName() -> String? {
        try? history.syncRemote(named: nil)
    }

    /// Makes `name` the remote a plain `vault sync` (and `git pull`) uses: the branch's upstream.
    /// `vault sync NAME` syncs with another remote without changing it.
    ///
    /// - Throws: `VaultError.input` when there is no such remote.
    public func makeDefault(name: String) throws(VaultError) {
        try vault.changing { () throws(VaultError) in
            let known = try history.remotes().map(\.name)
            guard known.contains(name) else { throw VaultError.input(.unknownRemote(name, known: known)) }
            try history.setUpstream(remote: name, branch: try history.branchName())
        }
    }

    /// Removes the remote `name` from the repository's configuration, under the vault's lock.
    ///
    /// - Throws: `VaultError.input` when there is no such remote.
    public func remove(name: String) throws(VaultError) {
        try vault.change { _ throws(VaultError) in try history.removeRemote(name: name) }
    }
}
