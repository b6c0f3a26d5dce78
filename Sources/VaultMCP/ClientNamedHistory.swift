import Synchronization
import VaultCore

/// The vault's history as `vault mcp` attaches it: every commit the server's changes make names
/// the MCP client in its message (`diary: add 2026-11-21 첫눈` becomes
/// `diary: add 2026-11-21 첫눈 (via MCP: Claude Desktop)`), so `vault log` tells what an AI app
/// did. Hand edits committed first (`prepare`) are the person's, and keep their own message.
package final class ClientNamedHistory: VaultHistory {
    let base: any VaultHistory
    /// The client's name, from `initialize`; "an MCP client" until it says.
    package let client = Mutex<String?>(nil)

    package init(_ base: any VaultHistory) {
        self.base = base
    }

    package func prepare(_ paths: [String], known: [String: KnownFile], notes: NoteSink) throws(VaultError) -> [String] {
        try base.prepare(paths, known: known, notes: notes)
    }

    package func commit(_ paths: [String], message: String, known: [String: KnownFile]) throws(VaultError) -> Bool {
        try base.commit(paths, message: ClientNamedHistory.naming(message, client: client.withLock { $0 }), known: known)
    }

    package func willChange(_ paths: [String]) { base.willChange(paths) }

    package func committedVersion(of path: String) throws(VaultError) -> [UInt8]? {
        try base.committedVersion(of: path)
    }

    package func identity() throws(VaultError) -> Identity? { try base.identity() }

    /// `message` with ` (via MCP: NAME)` after its first line. The client is named once: a first
    /// line that names it as the author already (`say: rooms/a.md (claude-ai)`, a message
    /// `append_message` posted as the client) has that name turned into the MCP one.
    static func naming(_ message: String, client: String?) -> String {
        let name = client ?? "an MCP client"
        var lines = message.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        let asAuthor = " (\(name))"
        if lines[0].hasSuffix(asAuthor) { lines[0].removeLast(asAuthor.count) }
        lines[0] += " (via MCP: \(name))"
        return lines.joined(separator: "\n")
    }
}
