import Foundation
import VaultCore

extension ChatTurn {
    /// The turn for a room, with the provider and model it uses: the caller's choice for this
    /// turn (`provider`, `model`: `--provider`, `--model`), else the room's front-matter, else
    /// `vault.yml`, else the environment (`ProviderSettings.resolve`).
    ///
    /// A network provider takes its limits from the environment (`VAULT_CONNECT_TIMEOUT`,
    /// `VAULT_FIRST_BYTE_TIMEOUT`, `VAULT_IDLE_TIMEOUT`, `VAULT_MAX_RETRY_WAIT`,
    /// `VAULT_MAX_REPLY_BYTES`), stops when `cancellation` is cancelled (what
    /// arrived is kept; the CLI's handle is cancelled by a SIGINT, SIGTERM or SIGHUP held off), and starts loading libcurl on another core at once.
    /// Every front end gets the same turn; what it shows while the server is silent is its own
    /// (`onWait`).
    ///
    ///     let read = try ChatTurn.read(path, in: vault)
    ///     let turn = try ChatTurn.forRoom(path, read, in: vault, provider: nil, model: nil)
    ///     let outcome = try turn.run(message: "부산 2박 3일 일정 짜줘") { print($0, terminator: "") }
    ///
    /// - Throws: `VaultError.input` or a refusal that keeps the message (`UnavailableProvider`)
    ///   when no provider can answer: an unknown provider, a key not approved, no model.
    public static func forRoom(
        _ path: String, _ room: RoomVersion, in vault: Vault, provider: String?, model: String?,
        environment: [String: String]? = nil,
        onWait: (@Sendable (ServerWait) -> Void)? = nil, cancellation: Cancellation = .never
    ) throws(VaultError) -> ChatTurn {
        // The front end's environment (`ProcessSettings`), unless the caller gives one.
        let environment = environment ?? vault.settings.environment
        let settings: ProviderSettings
        do {
            settings = try ProviderSettings.resolve(
                flagProvider: provider, flagModel: model, room: room.room.frontMatter, config: vault.config,
                environment: environment)
        } catch .input(.noModel(let name, _, let userConfig)) {
            // The hint names this room: `vault room set 부산-여행 model MODEL` works as printed.
            throw .input(.noModel(provider: name, room: VaultPath.commandName(of: path), userConfig: userConfig))
        }
        var chosen = settings.provider
        if var openAI = chosen as? OpenAIProvider {
            // libcurl loads on another core while the room is read and the message saved.
            HTTPClient.warmUp()
            // Cancelled (the CLI's handle: SIGINT, SIGTERM, SIGHUP; a server's: the client's
            // request): the reply stops, and what arrived is kept; a wait before a retry
            // (Retry-After) ends too (the provider polls it while it waits).
            openAI.shouldStop = { cancellation.isCancelled }
            let seconds = { (name: String) in environment[name].flatMap(Double.init) }
            if let s = seconds("VAULT_CONNECT_TIMEOUT") { openAI.client.connectTimeout = s }
            if let s = seconds("VAULT_FIRST_BYTE_TIMEOUT") { openAI.client.firstByteTimeout = s }
            if let s = seconds("VAULT_IDLE_TIMEOUT") { openAI.client.idleTimeout = s }
            if let s = seconds("VAULT_MAX_RETRY_WAIT") { openAI.maxRetryWait = s }
            if let n = environment["VAULT_MAX_REPLY_BYTES"].flatMap(ByteCount.parse) { openAI.maxReplyBytes = n }
            if let onWait { openAI.onWait = onWait }
            chosen = openAI
        }
        return ChatTurn(vault: vault, roomPath: path, provider: chosen, model: settings.model, room: room)
    }
}
