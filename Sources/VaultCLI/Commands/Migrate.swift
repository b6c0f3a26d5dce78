import ArgumentParser
import Foundation
import VaultCore

/// `vault migrate`: the vault brought to the newest format (`Migration`), as one commit.
struct Migrate: VaultRunnable {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Bring the vault to format 3: rooms filed by year, long rooms in volumes (one commit).",
        discussion: """
            Format 3 keeps each room in a folder of its year (rooms/2026/busan.md) instead of all \
            of them in rooms/, so a chat turn's commit rewrites one year's folder, not a list of \
            every room: for vaults of thousands of rooms (an import brings them). And a room's file \
            that grows past 2 MiB gives its older messages to volumes (volumes/2026/busan/0001.md) \
            at its next message, so a turn's commit hashes a small file whatever the room's \
            history; `vault show`, export, search and the chat context read them as part of the \
            room. Rooms are moved by a rename, their bytes as they are; vault.yml gets format: 3 \
            (that line only) and .gitattributes the merge driver's patterns for rooms in folders \
            and for volumes. Names stay what they \
            were: `vault chat busan` finds rooms/2026/busan.md. Run it on one machine and sync: \
            every machine that syncs the vault needs a vault that knows format 3 (one that knows \
            format 2 refuses the vault; older ones refuse nothing but do not see the moved rooms). A room an older clone makes in \
            rooms/ is filed when you migrate again; an edit it makes to a room moved meanwhile \
            lands in the moved file at the next sync.
            """)

    /// From how many rooms right in `rooms/` `vault import` suggests migrating (their tree is
    /// then 60 KB or more, written on every chat turn).
    static let suggestedFrom = 1_000

    @OptionGroup var location: VaultLocation
    @Flag(name: .customLong("dry-run"), help: "Say what would move; change nothing.") var dryRun = false

    func execute() throws {
        let vault = try location.openForChange()
        let migration = Migration(vault: vault)
        let plan = dryRun ? migration.plan() : try migration.migrate()
        for (path, reason) in plan.kept { Terminal.warning("left \(path) in rooms/: \(reason)") }
        guard !plan.isEmpty else {
            print("Nothing to migrate: the vault is in format \(vault.config.format), every room filed.")
            return
        }
        let years = Dictionary(grouping: plan.moves) { FileIO.parent(of: $0.to) }
        let counts = years.keys.sorted().map { "\($0)/ \(years[$0]!.count)" }.joined(separator: ", ")
        let rooms = "\(plan.moves.count) room\(plan.moves.count == 1 ? "" : "s")"
        if dryRun {
            for move in plan.moves { print("\(move.from) -> \(move.to)") }
            print("Would move \(rooms)\(counts.isEmpty ? "" : " (\(counts))") and write format: \(VaultConfig.newestFormat) in vault.yml.")
        } else {
            let moved = plan.moves.isEmpty ? "" : "Moved \(rooms)\(counts.isEmpty ? "" : " (\(counts))"); "
            print(moved + "the vault is in format \(VaultConfig.newestFormat), in one commit.")
            print("Sync it; every machine that syncs this vault needs vault \(VaultVersion.current) or later.")
        }
    }
}
