import Foundation

/// Who uses vault on this machine: the one identity its commits and its messages carry.
///
/// Resolved once, in this order (FORMAT.md, "Who you are"):
/// 1. `me:` in the user configuration (`$XDG_CONFIG_HOME/vault/config.yml`): this machine's
///    person, never synced, the same in every vault;
/// 2. `author:` in `vault.yml`, in a vault without `people:` (one person's vault, synced between
///    their own machines: the file travels, so in a vault several people share it would make
///    them all one person, and is not used there);
/// 3. git's `user.name` and `user.email` (the repository's `.git/config`, else the global one);
/// 4. `vault <vault@localhost>`, with a warning that says how to set it.
///
/// The commit's author (`GitHistory`) and a message's `author=` (`Posting`) both come from it.
///
///     let me = Identity.resolve(me: "Ada Kim <ada@example.com>", vault: config, git: nil)
///     me.author.name  // "Ada Kim"
public struct Identity: Sendable, Equatable {
    public var name: String
    public var email: String
    /// Where it came from.
    public var origin: Origin
    /// Set when nothing named anyone (`Origin.fallback`): the front end shows it once.
    public var warning: String?

    /// Where an identity was found.
    public enum Origin: String, Sendable {
        case userConfig = "me: in the user configuration"
        case vaultConfig = "author: in vault.yml"
        case git = "git's user.name and user.email"
        case fallback = "the default"
    }

    public init(name: String, email: String, origin: Origin, warning: String? = nil) {
        self.name = name
        self.email = email
        self.origin = origin
        self.warning = warning
    }

    /// The name as a message's author (`author=`). A name `Author` refuses (one git takes, with
    /// a control character) gives the default's.
    public var author: Author { Author(name: name) ?? Author(name: Identity.fallbackName)! }

    static let fallbackName = "vault"
    static let fallbackEmail = "vault@localhost"

    /// This machine's identity: `me` (the user configuration's `me:`), else `vault.yml`'s
    /// `author:` when the vault lists no `people:`, else `git` (git's `user.name` and
    /// `user.email`), else the default with a warning.
    public static func resolve(me: String?, vault: VaultConfig, git: (name: String, email: String)?) -> Identity {
        if let me, let parsed = parse(me) {
            // A name alone: the email is git's, when there is one.
            let email = parsed.email ?? git.map(\.email).flatMap { $0.isEmpty ? nil : $0 } ?? fallbackEmail
            return Identity(name: parsed.name, email: email, origin: .userConfig)
        }
        if vault.values["people"] == nil, case .string(let text)? = vault.values["author"],
            let parsed = parse(text), let email = parsed.email
        {
            return Identity(name: parsed.name, email: email, origin: .vaultConfig)
        }
        if let git, !git.name.isEmpty, !git.email.isEmpty {
            return Identity(name: git.name, email: git.email, origin: .git)
        }
        return Identity(
            name: fallbackName, email: fallbackEmail, origin: .fallback,
            warning: "commits are authored as \"vault <vault@localhost>\": set `me: Your Name <you@example.com>`"
                + " in ~/.config/vault/config.yml, or git's user.name and user.email")
    }

    /// `Name <email>` or `Name` read: the name (without spaces around it) and the email, or nil
    /// when there is no name, or it holds `<`, `>` or a character `Author` refuses.
    public static func parse(_ text: String) -> (name: String, email: String?)? {
        var name = Substring(text)
        var email: String?
        if let open = text.firstIndex(of: "<") {
            guard let close = text.lastIndex(of: ">"), open < close,
                text[text.index(after: close)...].allSatisfy({ $0 == " " || $0 == "\t" })
            else { return nil }
            let inside = text[text.index(after: open)..<close].trimmingCharacters(in: .whitespaces)
            guard !inside.isEmpty, !inside.contains("<"), !inside.contains(">"), !inside.contains(" ") else {
                return nil
            }
            email = inside
            name = text[..<open]
        }
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        guard !trimmed.contains("<"), !trimmed.contains(">"), let author = Author(name: trimmed) else { return nil }
        return (author.name, email)
    }
}

extension Vault {
    /// Who uses vault on this machine (`Identity`): the identity of the history's commits; for
    /// a vault opened without history, the same resolution without git's settings.
    ///
    /// - Parameter environment: where the user configuration is found (`UserConfig.path`).
    /// - Throws: when the user configuration cannot be read, or the repository cannot be opened.
    public func me(environment: [String: String]) throws(VaultError) -> Identity {
        // Read first so that a broken file is said, not passed over (the history reads it too).
        let user = try UserConfig.load(environment: environment)
        if let identity = try history?.identity() { return identity }
        return Identity.resolve(me: user.me, vault: config, git: nil)
    }
}
