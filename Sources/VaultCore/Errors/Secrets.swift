import Foundation
import Synchronization

/// The secrets this process holds (API keys, access tokens), and their removal from every text
/// it prints.
///
/// A key is read from the environment to be sent to a server, and a careless server (or proxy)
/// may quote it back in an error message; a trace may show the request's headers. Every line
/// vault writes to the terminal (`vault: error: …`, notes, warnings, `VAULT_TRACE`) passes
/// through `redact`, so a key registered here is shown as `[redacted]` wherever it would have
/// appeared. The keys of `OPENAI_API_KEY` and `VAULT_GIT_TOKEN` are known from the start; a
/// provider's key is registered as it is read (`register`).
///
///     Secrets.register(key)
///     FileHandle.standardError.write(Data(Secrets.redact(message).utf8))
package enum Secrets {
    /// What a secret is replaced with.
    package static let placeholder = "[redacted]"

    /// Secrets shorter than this are not looked for: replacing every "abc" in a message would
    /// garble it, and a key that short protects nothing.
    package static let shortest = 6

    /// The secrets known: those registered, among them the front end's `OPENAI_API_KEY` and
    /// `VAULT_GIT_TOKEN` (`ProcessHooks.install`).
    private static let known = Mutex<[String]>([])

    /// Remembers `secret`, to be hidden from everything printed from now on.
    package static func register(_ secret: String) {
        guard secret.count >= shortest else { return }
        known.withLock { list in
            if !list.contains(secret) { list.append(secret) }
        }
    }

    /// `text` with every registered secret replaced by `[redacted]`.
    package static func redact(_ text: String) -> String {
        let secrets = known.withLock { $0 }
        var out = text
        for secret in secrets where out.contains(secret) {
            out = out.replacingOccurrences(of: secret, with: placeholder)
        }
        return out
    }
}
