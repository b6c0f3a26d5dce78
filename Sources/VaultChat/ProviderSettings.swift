import Foundation
import VaultCore

/// Which provider and model a turn uses, from the command line, the room, `vault.yml`, the user
/// configuration (`UserConfig`: `$XDG_CONFIG_HOME/vault/config.yml`) and the environment, in that
/// order (FORMAT.md, "Configuration").
///
///     providers:
///       ollama:
///         base_url: http://localhost:11434/v1
///         model: llama3.1:8b
///       openai:
///         base_url: https://api.openai.com/v1
///         api_key_env: OPENAI_API_KEY      # the *name* of the variable, never the key
///
/// Two rules keep a vault someone shares with you from doing harm, and a named model from being
/// faked:
/// - `vault.yml` travels with the vault, so it cannot decide where a key goes: a key is sent
///   only to a server approved outside it (`KeyApprovals`: the environment, or
///   `$XDG_CONFIG_HOME/vault/config.yml`);
/// - the offline provider answers only when it is named, or when nothing names a provider nor
///   a model: never in place of a model a room (or `--model`, or `vault.yml`) names.
///
/// Either refusal is a provider that fails every request with the reason (`UnavailableProvider`),
/// so the turn keeps the person's message for `vault retry` once it is set right.
package struct ProviderSettings: Sendable {
    package var provider: any ChatProvider
    package var model: String

    /// - Parameters:
    ///   - flagProvider, flagModel: `--provider`, `--model`.
    ///   - environment: the environment, which also locates the user configuration.
    ///   - room: the room's front-matter.
    /// - Throws: `VaultError` for a provider `vault.yml` does not describe usably, or a user
    ///   configuration that does not parse; nothing has been written then.
    package static func resolve(
        flagProvider: String?, flagModel: String?, room: FrontMatter?, config: VaultConfig,
        environment: [String: String]
    ) throws(VaultError) -> ProviderSettings {
        let env = { (name: String) -> String? in environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        let fromEnvironment = env("OPENAI_BASE_URL") != nil || env("OPENAI_API_KEY") != nil
        let user = try UserConfig.load(environment: environment)
        let namedProvider =
            flagProvider ?? room?.string("provider") ?? config.values["provider"].flatMap(string) ?? user.provider
        let name = namedProvider ?? (fromEnvironment ? "openai" : "offline")
        let namedModel: (source: String, model: String)? =
            flagModel.map { ("--model", $0) } ?? room?.string("model").map { ("the room", $0) }
            ?? config.values["model"].flatMap(string).map { ("vault.yml", $0) }
            ?? user.model.map { (user.path, $0) }
        let table = providers(config)
        if name == "offline" && table["offline"] == nil {
            let model = flagModel ?? room?.string("model") ?? config.values["model"].flatMap(string) ?? user.model
                ?? config.model
            if namedProvider == nil, let named = namedModel, named.model != OfflineProvider.model {
                let failure = ProviderFailure(
                    .noKey,
                    """
                    \(named.source) names the model '\(named.model)', but no provider is set up to reach it (the \
                    offline provider never stands in for a model): set OPENAI_API_KEY (and OPENAI_BASE_URL for a \
                    server other than OpenAI's), or name a provider in vault.yml or the room; `--provider offline` \
                    gives the offline provider's reply instead
                    """
                )
                return ProviderSettings(
                    provider: UnavailableProvider(name: "openai", failure: failure), model: named.model)
            }
            return ProviderSettings(provider: OfflineProvider(), model: model)
        }
        let entry = table[name]
        if entry == nil && name != "openai" {
            throw VaultError.input(.unknownProvider(name))
        }
        let base = entry?["base_url"] ?? (name == "openai" ? env("OPENAI_BASE_URL") ?? KeyApprovals.openAIBaseURL : nil)
        guard let base, KeyApprovals.origin(of: base) != nil else {
            throw VaultError.input(.unusableBaseURL(provider: name))
        }
        let keyVariable = entry?["api_key_env"] ?? (name == "openai" ? "OPENAI_API_KEY" : nil)
        let key = keyVariable.flatMap { env($0) }
        let model =
            flagModel ?? room?.string("model") ?? entry?["model"] ?? config.values["model"].flatMap(string)
            ?? user.model
        guard let model, !model.isEmpty else {
            throw VaultError.input(.noModel(provider: name, room: nil, userConfig: user.path))
        }
        if let key {
            Secrets.register(key)
            let approvals = KeyApprovals(user: user, environment: environment)
            if let variable = keyVariable, !approvals.allow(variable, to: base) {
                return ProviderSettings(
                    provider: UnavailableProvider(
                        name: name, failure: approvals.refusal(provider: name, variable: variable, url: base)),
                    model: model)
            }
        } else if KeyApprovals.origin(of: base) == KeyApprovals.origin(of: KeyApprovals.openAIBaseURL) {
            // OpenAI answers nothing without a key: say which variable to set instead of asking.
            let variable = keyVariable ?? "OPENAI_API_KEY"
            let failure = ProviderFailure(
                .noKey,
                """
                the provider '\(name)' talks to OpenAI (\(base)), which needs an API key, and \(variable) is not set: \
                set it to your key
                """
            )
            return ProviderSettings(provider: UnavailableProvider(name: name, failure: failure), model: model)
        }
        return ProviderSettings(provider: OpenAIProvider(name: name, baseURL: base, apiKey: key), model: model)
    }

    static func string(_ v: FrontMatterValue) -> String? {
        if case .string(let s) = v, !s.isEmpty { return s }
        return nil
    }

    static func providers(_ config: VaultConfig) -> [String: [String: String]] { config.providers }
}

/// The servers an API key may be sent to, as approved outside the vault.
///
/// A key held in variable `V` may go to a base URL `U` (compared by scheme, host and port) when:
/// - `V` is `OPENAI_API_KEY` and `U` is OpenAI's (`https://api.openai.com`), or `U` is
///   `OPENAI_BASE_URL` in the environment: the environment is the user's own;
/// - the user configuration (`$XDG_CONFIG_HOME/vault/config.yml`, never synced) lists `U` for
///   `V` under `api_keys:`.
///
/// Never because `vault.yml` says so: it travels with the vault, and whoever shares the vault
/// writes it too (it could name `AWS_SECRET_ACCESS_KEY` and a server of theirs).
package struct KeyApprovals: Sendable {
    /// OpenAI's own API, where `OPENAI_API_KEY` goes unless `OPENAI_BASE_URL` says otherwise.
    package static let openAIBaseURL = "https://api.openai.com/v1"

    /// Approved origins by variable.
    let approved: [String: Set<String>]
    /// The user configuration's path (named in the refusal).
    package let configPath: String

    /// Reads the approvals of the environment and the user configuration.
    package init(environment: [String: String]) throws(VaultError) {
        self.init(user: try UserConfig.load(environment: environment), environment: environment)
    }

    /// The approvals of the environment and of `user`, a user configuration already read.
    init(user: UserConfig, environment: [String: String]) {
        var approved: [String: Set<String>] = [:]
        for (variable, urls) in user.approvedKeys {
            for url in urls {
                if let origin = KeyApprovals.origin(of: url) { approved[variable, default: []].insert(origin) }
            }
        }
        for url in [KeyApprovals.openAIBaseURL, environment["OPENAI_BASE_URL"] ?? ""] {
            if let origin = KeyApprovals.origin(of: url) { approved["OPENAI_API_KEY", default: []].insert(origin) }
        }
        self.approved = approved
        self.configPath = user.path
    }

    /// Whether the key in `variable` may be sent to `url`.
    package func allow(_ variable: String, to url: String) -> Bool {
        guard let origin = KeyApprovals.origin(of: url) else { return false }
        return approved[variable]?.contains(origin) ?? false
    }

    /// The failure of a turn whose key may not go where `vault.yml` sends it: what to do, in one line.
    func refusal(provider: String, variable: String, url: String) -> ProviderFailure {
        var message = """
            vault.yml's provider '\(provider)' would send the API key in \(variable) to \(url), which this machine \
            has not approved (vault.yml travels with the vault, so it cannot approve a server itself); if you trust \
            that server, add `\(variable): \(url)` under `api_keys:` in \(configPath)
            """
        if variable == "OPENAI_API_KEY" { message += ", or set OPENAI_BASE_URL=\(url)" }
        return ProviderFailure(.keyNotApproved, message)
    }

    /// `scheme://host:port` of an http(s) URL (host and scheme lower-cased, the default port
    /// written out); nil for anything else, and for a URL with a user name, password, query
    /// or fragment (which parsers read differently: the key must go where the check looked).
    package static func origin(of url: String) -> String? {
        guard let c = URLComponents(string: url), let scheme = c.scheme?.lowercased(),
            scheme == "http" || scheme == "https",
            let host = c.host?.lowercased(), !host.isEmpty, c.user == nil, c.password == nil, c.query == nil,
            c.fragment == nil,
            !url.contains("\\")
        else { return nil }
        return "\(scheme)://\(host):\(c.port ?? (scheme == "https" ? 443 : 80))"
    }
}

/// A provider that cannot be used as things are set up: every request fails with the reason,
/// so the turn keeps the person's message (for `vault retry`) and says what to do.
package struct UnavailableProvider: ChatProvider {
    package let name: String
    package let failure: ProviderFailure

    package init(name: String, failure: ProviderFailure) {
        self.name = name
        self.failure = failure
    }

    package func label(model: String) -> String { model }

    package func reply(to request: ChatRequest, onText: (String) -> Void) throws(ProviderFailure) -> ReplyEnding {
        throw failure
    }
}
