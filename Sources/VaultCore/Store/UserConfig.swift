import Foundation
import Yams

/// This machine's own settings, outside every vault: `$XDG_CONFIG_HOME/vault/config.yml`
/// (`~/.config/vault/config.yml` when `XDG_CONFIG_HOME` is not set).
///
/// `vault.yml` travels with the vault (sync, shared folders), so whoever shares a vault with
/// you writes it too. What only you may decide lives here, never synced: which servers may
/// receive which API key, and your defaults.
///
/// The defaults come after what the command line, the room and `vault.yml` say, and before the
/// environment: a turn's provider is `--provider`, the room's, `vault.yml`'s, then `provider`
/// here, then `openai` when `OPENAI_API_KEY` or `OPENAI_BASE_URL` is set; its model likewise
/// (the provider entry's model between `vault.yml`'s and this one). `locale` shows dates when
/// `--locale` is not given (the vault's locale still writes them). `editor` is used when neither
/// `$VISUAL` nor `$EDITOR` is set: those are set per session (an IDE's terminal sets its own),
/// so they win. `pager` and `color` (`auto`, `always`, `never`) are kept for the terminal.
/// `limits:` are this machine's caps on what a sync, a clone or an import takes in
/// (`IncomingLimits`): a vault's `vault.yml` may lower them, never raise them.
///
///     # ~/.config/vault/config.yml
///     model: llama3.1:8b
///     provider: ollama
///     locale: ko_KR
///     editor: nano
///     pager: less -R
///     color: auto
///     me: Ada Kim <ada@example.com>
///     api_keys:
///       OPENROUTER_API_KEY: https://openrouter.ai/api/v1
///       LAB_KEY:
///         - http://gpu-box:8000/v1
///         - https://backup.example.com/v1
///     limits:
///       max_file_size: 256M
package struct UserConfig: Sendable {
    /// Where the file is (or would be).
    package let path: String
    /// `api_keys:`: for each environment variable, the base URLs its key may be sent to.
    package let approvedKeys: [String: [String]]
    /// `model:`: the model used when the command line, the room, the provider and `vault.yml`
    /// name none.
    package var model: String?
    /// `provider:`: the provider used when the command line, the room and `vault.yml` name none.
    package var provider: String?
    /// `locale:`: the locale dates are shown in when `--locale` is not given (normalized, `ko_KR`).
    package var locale: String?
    /// `editor:`: the editor run when neither `$VISUAL` nor `$EDITOR` is set.
    package var editor: String?
    /// `pager:`: the pager for long output.
    package var pager: String?
    /// `color:`: whether output is colored.
    package var color: Color?
    /// `me:`: who you are, `Name <email>` or `Name` (`Identity`): the author of your commits and
    /// of your messages in rooms you share, in every vault.
    package var me: String?
    /// `limits:`: this machine's caps on what comes in (`IncomingLimits.setting(_:)`), the
    /// keys of `IncomingLimits.keys`.
    package var limits = IncomingLimits.Setting()

    /// `color:` in the user configuration.
    package enum Color: String, Sendable, CaseIterable {
        /// Colored on a terminal, plain into a pipe or a file.
        case auto
        case always
        case never
    }

    /// The keys the file may hold; another is refused with the nearest of these.
    package static let keys = ["api_keys", "model", "provider", "locale", "editor", "pager", "color", "me", "limits"]

    package init(
        path: String, approvedKeys: [String: [String]] = [:], model: String? = nil, provider: String? = nil,
        locale: String? = nil, editor: String? = nil, pager: String? = nil, color: Color? = nil
    ) {
        self.path = path
        self.approvedKeys = approvedKeys
        self.model = model
        self.provider = provider
        self.locale = locale
        self.editor = editor
        self.pager = pager
        self.color = color
    }

    /// The file's path: `$XDG_CONFIG_HOME/vault/config.yml`, else `$HOME/.config/vault/config.yml`.
    package static func path(environment: [String: String]) -> String {
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") { return xdg + "/vault/config.yml" }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.config/vault/config.yml"
    }

    /// Reads the file; a missing file is an empty configuration.
    ///
    /// Values are read as the person wrote them (`color: no` is the text `no`, not YAML's false).
    ///
    /// - Throws: `VaultError.malformed` naming the file and line when it is not valid YAML,
    ///   `api_keys:` is not a mapping of variable names to URLs, a default is not one word or
    ///   text (`color` not `auto`, `always` or `never`, `locale` not one vault knows), or a key
    ///   is not one of `keys` (with the nearest).
    package static func load(environment: [String: String]) throws(VaultError) -> UserConfig {
        let path = path(environment: environment)
        guard FileIO.exists(path) else { return UserConfig(path: path, approvedKeys: [:]) }
        let bytes = try FileIO.read(path)
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw VaultError.malformed([FormatProblem(path: path, line: 1, kind: .invalidUTF8)])
        }
        let pairs: [(key: String, value: Node)]
        do {
            pairs = try YAMLReader.pairs(text)
        } catch let failure as YAMLReader.Failure {
            switch failure {
            case .notMapping:
                throw VaultError.malformed([FormatProblem(path: path, line: 1, kind: .frontMatterNotMapping)])
            case .syntax(let message, let line):
                throw VaultError.malformed([FormatProblem(path: path, line: line, kind: .invalidYAML(message))])
            }
        } catch {
            throw VaultError.malformed([FormatProblem(path: path, line: 1, kind: .invalidYAML("\(error)"))])
        }
        var approved: [String: [String]] = [:]
        if let node = pairs.first(where: { $0.key == "api_keys" })?.value {
            let line = (node.mark?.line ?? 1)
            let wrong = FormatProblem(
                path: path, line: line,
                kind: .invalidSetting(
                    key: "api_keys",
                    reason: "write one line per variable: `VARIABLE: https://server/v1` (or a list of URLs)"))
            guard let mapping = node.mapping else { throw VaultError.malformed([wrong]) }
            for (k, v) in mapping {
                guard let variable = k.scalar?.string else { throw VaultError.malformed([wrong]) }
                if let url = v.scalar?.string {
                    approved[variable, default: []].append(url)
                } else if let list = v.sequence {
                    for item in list {
                        guard let url = item.scalar?.string else { throw VaultError.malformed([wrong]) }
                        approved[variable, default: []].append(url)
                    }
                } else {
                    throw VaultError.malformed([wrong])
                }
            }
        }
        var config = UserConfig(path: path, approvedKeys: approved)
        if let node = pairs.first(where: { $0.key == "limits" })?.value {
            let line = node.mark?.line ?? 1
            let wrong = "write one cap a line below it: `max_file_size: 256M` (\(IncomingLimits.keys.joined(separator: ", ")))"
            guard let mapping = node.mapping else {
                throw VaultError.malformed([FormatProblem(path: path, line: line, kind: .invalidSetting(key: "limits", reason: wrong))])
            }
            var written: [(key: String, value: String)] = []
            for (k, v) in mapping {
                guard let key = k.scalar?.string, let value = v.scalar?.string else {
                    throw VaultError.malformed([FormatProblem(path: path, line: line, kind: .invalidSetting(key: "limits", reason: wrong))])
                }
                written.append((key, value))
            }
            let parsed = IncomingLimits.Setting.parse(written)
            if !parsed.problems.isEmpty {
                throw VaultError.malformed(
                    parsed.problems.map { key, reason in
                        FormatProblem(path: path, line: line, kind: .invalidSetting(key: "limits." + key, reason: reason))
                    })
            }
            config.limits = parsed.setting
        }
        for (key, node) in pairs where key != "api_keys" && key != "limits" {
            let line = node.mark?.line ?? 1
            func wrong(_ reason: String) -> VaultError {
                let problem = FormatProblem(path: path, line: line, kind: .invalidSetting(key: key, reason: reason))
                return VaultError.malformed([problem])
            }
            guard UserConfig.keys.contains(key) else {
                let nearest = NearestName.nearest(to: key, among: UserConfig.keys)
                let guess = nearest.map { " (did you mean '\($0)'?)" } ?? ""
                throw wrong("not a setting of this file\(guess); it holds " + UserConfig.keys.joined(separator: ", "))
            }
            guard let text = node.scalar?.string.trimmingCharacters(in: .whitespaces), !text.isEmpty else {
                throw wrong("write one value on the line")
            }
            switch key {
            case "model": config.model = text
            case "provider": config.provider = text
            case "editor": config.editor = text
            case "pager": config.pager = text
            case "me":
                guard Identity.parse(text) != nil else {
                    throw wrong("write your name, and your email between < and >: `me: Ada Kim <ada@example.com>`")
                }
                config.me = text
            case "locale":
                guard let id = LocaleSetting.normalize(text), LocaleSetting.isKnown(id) else {
                    throw wrong("unknown locale \"\(text)\" (write one like ko_KR, ja_JP, de_DE, en_US)")
                }
                config.locale = id
            default:
                guard let color = Color(rawValue: text) else { throw wrong("write auto, always or never") }
                config.color = color
            }
        }
        return config
    }
}
