import ArgumentParser
import Foundation
import VaultCore
import VaultGit
import VaultMCP
import VaultSearch

extension VaultCommand {
    struct MCP: VaultRunnable {
        static let configuration = CommandConfiguration(
            commandName: "mcp",
            abstract: "Serve the vault to AI apps over the Model Context Protocol (stdio).",
            discussion: """
                An MCP client (Claude Desktop, Claude Code, Cursor, …) starts `vault mcp` and talks JSON-RPC with it \
                on standard input and output; logs go to standard error. Tools list, read and search rooms and diary \
                entries, show recent activity and history, write and edit diary entries, tag them and chat in rooms; \
                every room and entry is a vault:// resource the client can subscribe to. Every change is one commit \
                whose message names the client. --read-only offers no tool that writes.
                """)

        @OptionGroup var location: VaultLocation
        @Flag(help: "Offer only the tools that read; open the vault without attaching its history.")
        var readOnly = false

        func execute() throws {
            let plain = try location.open()
            let log: @Sendable (String) -> Void = { Terminal.standardError("vault mcp: \($0)\n") }
            var vault = plain
            var naming: ClientNamedHistory?
            if !readOnly {
                let history = ClientNamedHistory(GitHistoryOnDemand(vault: plain.root, config: plain.config, report: log))
                naming = history
                vault = plain.with(history: history)
            }
            // `vault search`'s watcher tells what changed, for subscriptions (VAULT_NO_WATCH=1: stamps).
            var watcher: (any WorkTreeWatcher)?
            if (ProcessInfo.processInfo.environment["VAULT_NO_WATCH"] ?? "").isEmpty {
                watcher = VaultWatcher(vaultRoot: vault.root, command: [SearchWatcherCommand.executable, "search-watcher"])
            }
            let server = MCPServer(vault: vault, naming: naming, readOnly: readOnly, watcher: watcher, log: log)
            let status = server.serve()
            if status != 0 { throw ExitCode(status) }
        }
    }
}
