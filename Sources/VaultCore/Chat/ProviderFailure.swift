/// Why a provider gave no (complete) reply. The message is one line for the person at the
/// terminal; it never holds an API key, and it is never written into the room as a reply.
public struct ProviderFailure: Error, Sendable {
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
    }

    public var kind: Kind
    public var message: String
    /// Text of the reply received before the failure (kept in the room, marked).
    public var partialReply: String

    public init(_ kind: Kind, _ message: String, partialReply: String = "") {
        self.kind = kind
        self.message = message
        self.partialReply = partialReply
    }

    /// The exit status of `vault chat` for this failure (README, "Exit status").
    public var exitStatus: Int32 {
        switch kind {
        case .unreachable, .timeout: return 3
        case .unauthorized: return 4
        case .notFound: return 5
        case .rateLimited: return 6
        case .serverError: return 7
        case .cutOff, .malformed, .empty: return 8
        case .rejected: return 9
        case .interrupted: return 130
        }
    }
}
