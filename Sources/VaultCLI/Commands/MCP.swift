import ArgumentParser
import Foundation
import VaultCore
import VaultKit
import VaultMCP

extension VaultCommand {
    struct MCP: VaultRunnable {
        static let configuration = CommandConfiguration(
            commandName: "mcp",
            abstract: "Serve the vault to AI apps over the Model Context Protocol (stdio).",
            discussion: """
                An MCP client (Claude Desktop, Claude Code, Cursor, …) starts `vault mcp` and talks JSON-RPC with it \
                on standard input and output; logs go to standard error. Tools list, read and search rooms and diary \
                entries, show recent activity and history, write and edit diary entries, tag them, add messages to rooms and chat in rooms; \
                every room and entry is a vault:// resource the client can subscribe to. Every change is one commit \
                whose message names the client. --read-only offers no tool that writes.
                """)

        @OptionGroup var location: VaultLocation
        @Flag(help: "Offer only the tools that read; open the vault without attaching its history.")
        var readOnly = false

        func execute() throws {
            let log: @Sendable (String) -> Void = { Terminal.standardError("vault mcp: \($0)\n") }
            // Opened as every command opens a vault (`VaultSession`), its notes logged on standard error.
            let session = try location.session(readOnly ? .readOnly : .change, notes: { log($0.description) })
            let server = MCPServer(session: session, log: log)
            let status = server.serve()
            if status != 0 { throw ExitCode(status) }
        }
    }
}
