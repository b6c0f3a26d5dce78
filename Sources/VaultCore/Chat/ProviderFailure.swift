/// Why a provider gave no (complete) reply. The message is one line for the person at the
/// terminal; it never holds an API key, and it is never written into the room as a reply.
/// The text that arrived before the failure is not part of it: the turn has kept it as it came
/// (`ReplySpool`), and saves it marked `status=interrupted`. Each kind has its own exit status
/// (VaultCLI's `ExitStatus`; README, "Exit status"), so a script can tell a wrong key from a
/// server that is down, and whether retrying later may help (`timeout`, `rateLimited`,
/// `serverError`, `cutOff`).
public struct ProviderFailure: Error, Sendable, Hashable {
    public enum Kind: String, Sendable {
        /// DNS, connection refused, TLS.
        case unreachable
        /// Connecting took too long, or the server stopped sending.
        case timeout
        /// 401 or 403: the key.
        case unauthorized
        /// 404: usually the model.
        case notFound
        /// 429, after the retries allowed.
        case rateLimited
        /// 5xx, after the retries allowed.
        case serverError
        /// The stream ended before the reply was complete.
        case cutOff
        /// The server sent something that is not the chat completions protocol.
        case malformed
        /// The reply ended properly but held no text.
        case empty
        /// Ctrl-C.
        case interrupted
        /// A bad request (400 and other 4xx) or a configuration problem.
        case rejected
        /// The reply passed the longest reply kept (`VAULT_MAX_REPLY_BYTES`) and was stopped there.
        case tooLong
        /// The provider needs an API key and none is set, or a room names a model that no
        /// provider is set up to reach (the offline provider never stands in for it).
        case noKey
        /// `vault.yml` would send a key to a server this machine's user has not approved.
        case keyNotApproved
        /// The reply could not be saved (the disk is full).
        case unsaved
    }

    public var kind: Kind
    public var message: String
    /// The room of the turn that failed, as a command names it (`VaultPath.commandName`), for
    /// the hint `vault retry ROOM`; set by the chat turn.
    public var room: String?

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }
}
