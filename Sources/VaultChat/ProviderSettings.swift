import Foundation
import VaultCore

/// Which provider and model a turn uses, from the command line, the room, `vault.yml` and the
/// environment, in that order (FORMAT.md, "Configuration").
///
///     providers:
///       ollama:
///         base_url: http://localhost:11434/v1
///         model: llama3.1:8b
///       openai:
///         base_url: https://api.openai.com/v1
///         api_key_env: OPENAI_API_KEY      # the *name* of the variable, never the key
public struct ProviderSettings: Sendable {
    public var provider: any ChatProvider
    public var model: String

    /// - Parameters:
    ///   - flagProvider, flagModel: `--provider`, `--model`.
    ///   - room: the room's front-matter.
    public static func resolve(
        flagProvider: String?, flagModel: String?, room: FrontMatter?, config: VaultConfig,
        environment: [String: String]
    ) throws(VaultError) -> ProviderSettings {
        let env = { (name: String) -> String? in environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        let fromEnvironment = env("OPENAI_BASE_URL") != nil || env("OPENAI_API_KEY") != nil
        let name = flagProvider ?? room?.string("provider") ?? config.values["provider"].flatMap(string)
            ?? (fromEnvironment ? "openai" : "offline")
        let table = providers(config)
        if name == "offline" && table["offline"] == nil {
            return ProviderSettings(provider: OfflineProvider(), model: flagModel ?? room?.string("model") ?? config.model)
        }
        let entry = table[name]
        if entry == nil && name != "openai" {
            throw VaultError.invalidArgument(
                "the provider '\(name)' is not configured: add it under `providers:` in vault.yml (base_url, model, api_key_env), or use --provider offline")
        }
        let base = entry?["base_url"] ?? (name == "openai" ? env("OPENAI_BASE_URL") ?? "https://api.openai.com/v1" : nil)
        guard let base, URL(string: base)?.scheme != nil else {
            throw VaultError.invalidArgument("the provider '\(name)' has no usable base_url in vault.yml")
        }
        let keyVariable = entry?["api_key_env"] ?? (name == "openai" ? "OPENAI_API_KEY" : nil)
        let key = keyVariable.flatMap { env($0) }
        let model = flagModel ?? room?.string("model") ?? entry?["model"] ?? config.values["model"].flatMap(string)
        guard let model, !model.isEmpty else {
            throw VaultError.invalidArgument("no model for provider '\(name)': give --model, or set `model:` in the room or vault.yml")
        }
        return ProviderSettings(provider: OpenAIProvider(name: name, baseURL: base, apiKey: key), model: model)
    }

    static func string(_ v: FrontMatterValue) -> String? {
        if case .string(let s) = v, !s.isEmpty { return s }
        return nil
    }

    static func providers(_ config: VaultConfig) -> [String: [String: String]] { config.providers }
}
