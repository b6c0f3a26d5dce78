import Foundation
import Yams

/// This machine's own settings, outside every vault: `$XDG_CONFIG_HOME/vault/config.yml`
/// (`~/.config/vault/config.yml` when `XDG_CONFIG_HOME` is not set).
///
/// `vault.yml` travels with the vault (sync, shared folders), so whoever shares a vault with
/// you writes it too. What only you may decide lives here, never synced: which servers may
/// receive which API key.
///
///     # ~/.config/vault/config.yml
///     api_keys:
///       OPENROUTER_API_KEY: https://openrouter.ai/api/v1
///       LAB_KEY:
///         - http://gpu-box:8000/v1
///         - https://backup.example.com/v1
public struct UserConfig: Sendable {
    /// Where the file is (or would be).
    public let path: String
    /// `api_keys:`: for each environment variable, the base URLs its key may be sent to.
    public let approvedKeys: [String: [String]]

    /// The file's path: `$XDG_CONFIG_HOME/vault/config.yml`, else `$HOME/.config/vault/config.yml`.
    public static func path(environment: [String: String]) -> String {
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") { return xdg + "/vault/config.yml" }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.config/vault/config.yml"
    }

    /// Reads the file; a missing file is an empty configuration.
    ///
    /// - Throws: `VaultError.malformed` naming the file and line when it is not valid YAML or
    ///   `api_keys:` is not a mapping of variable names to URLs.
    public static func load(environment: [String: String]) throws(VaultError) -> UserConfig {
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
        return UserConfig(path: path, approvedKeys: approved)
    }
}
