import VaultCore
import VaultGit

extension Vault {
    /// This machine's person (`Identity`), also for a vault opened to read: the history's when
    /// it is open, else the same resolution with the repository's git settings (no repository
    /// is made, nothing is written).
    ///
    /// `environment`: the front end's (`settings.environment`) unless given.
    ///
    /// - Throws: when the user configuration cannot be read (said rather than passed over).
    public func identity(environment: [String: String]? = nil) throws(VaultError) -> Identity {
        let environment = environment ?? settings.environment
        if history != nil { return try me(environment: environment) }
        // Read first so that a broken file is said (the resolution below passes over it).
        _ = try UserConfig.load(environment: environment)
        return GitHistory.identity(ofVault: root, config: config, settings: settings)
    }

    /// The members of a room made `--with` the people `names`: this machine's person first, then
    /// them; none when no one is named (one person's own room).
    public func sharedMembers(with names: [String], environment: [String: String]? = nil) throws(VaultError) -> [String] {
        guard !names.isEmpty else { return [] }
        let me = try identity(environment: environment)
        return try Workspace.members(creator: me.author.name, with: names, people: config.people)
    }
}
