import Foundation
import VaultCore

/// `vault init`: makes a folder a vault with a git repository of its own, or gives an
/// existing vault (copied without its `.git`, or made by hand) the repository it lacks.
///
///     let made = try Initializing.run(at: "/home/me/notes", locale: "ko_KR", timeZone: seoul)
///     // made.vault.root, made.madeVault (false: it was a vault already), made.authorWarning
public enum Initializing {
    /// What `run` did.
    public struct Outcome: Sendable {
        /// The vault, as it is now.
        public var vault: Vault
        /// true: the folder became a vault; false: it was one, and got its own repository.
        public var madeVault: Bool
        /// The git repository the folder lies inside, when it does: the vault gets one of its
        /// own all the same (its files are never committed into the outer one).
        public var outerRepository: String?
        /// Why the commits' author is a stand-in (no `user.name`/`user.email` in git's
        /// configuration), when it is.
        public var authorWarning: String?
    }

    /// Makes `root` (created if missing) a vault whose new dates are written in `locale` and
    /// `timeZone`, with its own git repository and its files in the first commit.
    ///
    /// - Throws: `VaultError.alreadyAVault` when `root` is a vault with its own repository
    ///   already (nothing is changed); a `VaultError.repository` when git cannot make one.
    public static func run(
        at root: String, locale: String, timeZone: TimeZone, settings: ProcessSettings
    ) throws(VaultError) -> Outcome {
        let location = try GitHistory.locate(root)
        var outer: String?
        if case .inside(let path) = location { outer = path }
        if FileIO.exists(root + "/" + VaultPath.config) {
            guard location != .own else { throw VaultError.alreadyAVault(root) }
            let vault = try Vault(root: root, settings: settings)
            let history = try GitHistory.create(vault: vault.root, config: vault.config, settings: settings)
            return Outcome(
                vault: vault, madeVault: false, outerRepository: outer, authorWarning: history.author.warning)
        }
        let vault = try Vault.create(at: root, locale: locale, timeZone: timeZone)
        let history = try GitHistory.create(vault: vault.root, config: vault.config, settings: settings)
        return Outcome(vault: vault, madeVault: true, outerRepository: outer, authorWarning: history.author.warning)
    }
}
