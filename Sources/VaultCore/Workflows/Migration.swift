import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `vault migrate`: a vault brought to the newest format (FORMAT.md, "Format versions"), as one
/// change and one commit (`migrate: …`).
///
/// Format 2 files each room in `rooms/<yyyy>/`, the year it was made (`created:`, else its last
/// message's time, else its file's), instead of all of them in `rooms/`: a chat turn's commit
/// then rewrites the tree of that year's folder, not one with every room of the vault in it
/// (1.2 MB at 20,000 rooms). Migrating moves every room right in `rooms/` to its year's folder
/// by a rename (its bytes stay as they are, so git sees each move as a rename, and a sync
/// with a clone that edited the room meanwhile gives the edit under the new name), writes
/// `format: 3` in `vault.yml` (that line only) and the merge driver's patterns for rooms in
/// folders and for volumes in `.gitattributes`. Format 3 also gives a long room's older
/// messages to volumes as it grows (`RoomVolumes`), at its next message, not here. Both formats are read alike, so a vault stopped halfway (a
/// crash) is whole, and migrating again finishes it. A room that an older clone makes in
/// `rooms/` after the migration is filed the next time.
package struct Migration {
    package let vault: Vault

    package init(vault: Vault) {
        self.vault = vault
    }

    /// What a migration does (or did): the rooms moved, and those left where they are.
    package struct Plan: Sendable, Equatable {
        package var moves: [Move] = []
        /// The volumes of the rooms moved (format 3, `RoomVolumes`), each to its room's new folder.
        package var volumeMoves: [Move] = []
        /// Rooms left in `rooms/`, each with why (a room of that name in its year's folder).
        package var kept: [(path: String, reason: String)] = []
        /// Whether `vault.yml` is to say the newest format (it says an older one, or nothing).
        package var setsFormat = false
        /// Whether `.gitattributes` is to get the merge driver's pattern for rooms in folders.
        package var setsAttributes = false

        package var isEmpty: Bool { moves.isEmpty && !setsFormat && !setsAttributes }

        package static func == (a: Plan, b: Plan) -> Bool {
            a.moves == b.moves && a.volumeMoves == b.volumeMoves && a.kept.map(\.path) == b.kept.map(\.path)
                && a.setsFormat == b.setsFormat
                && a.setsAttributes == b.setsAttributes
        }
    }

    package struct Move: Sendable, Equatable {
        package var from: String
        package var to: String
    }

    /// What `migrate` would do now.
    package func plan() -> Plan {
        var plan = Plan()
        plan.setsFormat = vault.config.format < VaultConfig.newestFormat
        plan.setsAttributes = Migration.attributesNeedingRooms(read(".gitattributes")) != nil
        var targets = Set<String>()
        for entry in FileIO.list(vault.absolute(VaultPath.rooms)).sorted(by: { VaultPath.precedes($0.name, $1.name) })
        where entry.kind == .file && VaultPath.isListedName(entry.name) {
            let path = VaultPath.rooms + "/" + entry.name
            let to = Vault.roomFolder(created: made(path), format: 2) + "/" + entry.name
            if FileIO.entryExists(vault.absolute(to)) || !targets.insert(to).inserted {
                plan.kept.append((path, "\(to) is there already"))
                continue
            }
            plan.moves.append(Move(from: path, to: to))
            // A room that has volumes (`format: 3` set by hand on a flat vault) takes them along.
            let folder = VaultPath.volumeFolder(ofRoom: to)
            for volume in RoomVolumes.paths(ofRoom: path, root: vault.root) {
                plan.volumeMoves.append(Move(from: volume, to: folder + "/" + VaultPath.stem(of: volume) + ".md"))
            }
        }
        return plan
    }

    /// Migrates the vault (`plan()`, made under the lock) and commits it; returns what it did.
    /// Hand edits of the rooms moved are committed first, as their own commit.
    @discardableResult
    package func migrate() throws(VaultError) -> Plan {
        try vault.change { change throws(VaultError) -> Plan in
            let plan = plan()
            guard !plan.isEmpty else { return plan }
            let allMoves = plan.moves + plan.volumeMoves
            change.include(allMoves.flatMap { [$0.from, $0.to] } + [VaultPath.config, ".gitattributes"])
            try change.commitHandEdits()
            for move in allMoves { try change.move(move.from, to: move.to) }
            // The volume folders left empty (git keeps none).
            for folder in Set(plan.volumeMoves.map { FileIO.parent(of: $0.from) }) { _ = rmdir(vault.absolute(folder)) }
            if plan.setsAttributes, let text = Migration.attributesNeedingRooms(read(".gitattributes")) {
                try change.write(Array(text.utf8), to: ".gitattributes")
            }
            if plan.setsFormat {
                try change.write(
                    Array(Migration.settingFormat(VaultConfig.newestFormat, in: read(VaultPath.config)).utf8),
                    to: VaultPath.config)
            }
            let years = Dictionary(grouping: plan.moves) { FileIO.parent(of: $0.to) }.keys.sorted()
            var message = "migrate: format \(VaultConfig.newestFormat)"
            if !plan.moves.isEmpty { message += ", \(plan.moves.count) room\(plan.moves.count == 1 ? "" : "s") filed by year" }
            if !years.isEmpty { message += " (" + years.map { String($0.dropFirst(VaultPath.rooms.count + 1)) }.joined(separator: ", ") + ")" }
            try change.commit(message: message)
            return plan
        }
    }

    /// When the room at `path` was made: its `created:`, else its last message's time, else its
    /// file's modification time (in the vault's zone).
    func made(_ path: String) -> Timestamp {
        if let scan = try? RoomTail.scan(vault.absolute(path), path: path) {
            if let created = scan.created { return created }
            if let last = scan.lastHeader?.timestamp { return last }
        }
        let seconds = FileIO.modificationTime(vault.absolute(path)) ?? Date().timeIntervalSince1970
        return Timestamp(date: Date(timeIntervalSince1970: seconds), timeZone: vault.config.timeZone)
    }

    private func read(_ relative: String) -> String {
        (try? FileIO.read(vault.absolute(relative))).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    /// `.gitattributes` with the merge driver's patterns for rooms in folders and for volumes,
    /// nil when it has them (or has no line for rooms at all: a vault made before sync, which
    /// `vault sync` gives the lines it needs). The line for rooms right in `rooms/` becomes the
    /// one for any depth; the one for volumes follows it.
    static func attributesNeedingRooms(_ text: String) -> String? {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let trimmed = lines.map { $0.trimmingCharacters(in: .whitespaces) }
        guard let at = trimmed.firstIndex(where: { $0 == MergeDriverPatterns.flatRooms || $0 == MergeDriverPatterns.rooms })
        else { return nil }
        var out = lines.map(String.init)
        guard trimmed[at] == MergeDriverPatterns.flatRooms || !trimmed.contains(MergeDriverPatterns.volumes) else { return nil }
        out[at] = MergeDriverPatterns.rooms
        if !trimmed.contains(MergeDriverPatterns.volumes) { out.insert(MergeDriverPatterns.volumes, at: at + 1) }
        return out.joined(separator: "\n")
    }

    /// `vault.yml` saying `format: N`: its `format:` line changed (its comment kept), else one
    /// added before the first setting; nothing else is touched.
    static func settingFormat(_ n: Int, in text: String) -> String {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if let at = lines.firstIndex(where: { $0.hasPrefix("format:") }) {
            let rest = lines[at].dropFirst("format:".count)
            let comment = rest.firstIndex(of: "#").map { "  " + rest[$0...] } ?? ""
            lines[at] = "format: \(n)" + comment
        } else {
            let first = lines.firstIndex { !$0.hasPrefix("#") && !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            lines.insert("format: \(n)", at: first ?? lines.endIndex)
        }
        return lines.joined(separator: "\n")
    }
}

/// The `.gitattributes` lines that give rooms to vault's merge driver (`MergeDriver` in VaultGit
/// uses the same): format 1 keeps rooms right in `rooms/`, format 2 in folders under it.
package enum MergeDriverPatterns {
    package static let flatRooms = "rooms/*.md merge=vault"
    package static let rooms = "rooms/**/*.md merge=vault"
    /// Format 3: a long room's volumes, merged as rooms are (by message id).
    package static let volumes = "volumes/**/*.md merge=vault"
}
