import CGit2
import Foundation
import VaultCore

/// vault's merge for plain `git merge` and `git pull`: `vault merge-driver %O %A %B %P`.
///
/// libgit2 never runs merge drivers from git config, and vault's own sync does not need one (it
/// merges the trees itself). But a person may still run `git pull` by hand: for that, the
/// repository's config names vault as the driver of rooms, diary entries and `vault.yml`
/// (`[merge "vault"]`), and `.gitattributes` assigns it. Without the driver (a clone made by
/// plain git, `vault` not on the PATH), git leaves conflict markers, which every command
/// detects and `vault sync` or `vault resolve` repairs.
public enum MergeDriver {
    /// The lines `.gitattributes` needs.
    public static let attributes = [
        "rooms/*.md merge=vault",
        "diary/**/*.md merge=vault",
        "vault.yml merge=vault",
    ]

    /// The command git runs, from the repository's config.
    public static let command = "vault merge-driver %O %A %B %P"

    /// Merges the three versions git gives (ancestor, current, other) into `current`, by the
    /// kind of `path`. Returns what the person should hear, and whether the merge was clean.
    /// A diary entry whose changes overlap keeps the current version and saves the other next
    /// to it as a conflict copy (in the folder of `root`/`path`); never markers.
    public static func run(
        ancestor: String, current: String, other: String, path: String, root: String
    ) throws(VaultError) -> [String] {
        // git checked the path (`verify_path`); vault's rules are stricter (`.vault`, control
        // characters), and the other side's file is held to the vault's file cap.
        if let problem = IncomingPath.problem(with: path) {
            throw VaultError.untrusted(.refusedPath(commit: "being merged", path: path, problem: problem))
        }
        let config = try? VaultConfig(parsing: try FileIO.read(root + "/" + VaultPath.config))
        let limits = config?.limits ?? IncomingLimits()
        if let size = FileIO.size(of: other), size > limits.maxFileSize {
            throw VaultError.untrusted(
                .fileTooLarge(commit: "being merged", path: path, size: size, limit: limits.maxFileSize))
        }
        let base = FileIO.exists(ancestor) ? try FileIO.read(ancestor) : nil
        let ours = try FileIO.read(current)
        let theirs = try FileIO.read(other)
        let merged = try Merge.file(path: path, base: base, ours: ours, theirs: theirs, newer: .theirs)
        var notes = merged.notes.map { "\(path): \($0)" }
        if let copy = merged.conflictCopy {
            let copyPath = ConflictCopy.name(
                for: path, machine: "merge", time: Date(), version: ConflictCopy.versionID(of: copy))
            try FileIO.makeDirectory(FileIO.parent(of: root + "/" + copyPath))
            try FileIO.write(copy, to: root + "/" + copyPath)
            notes.append("\(path): both sides changed the same lines: the other version is saved as \(copyPath)")
        }
        try FileIO.write(merged.bytes, to: current)
        return notes
    }
}

extension GitHistory {
    /// Registers vault's merge driver in the repository's git config and `.gitattributes`
    /// (committing `.gitattributes` when it changes), so plain `git pull` merges as vault does.
    ///
    /// The `.gitattributes` update is a change of its own (`sync: vault's merge driver …`),
    /// made through the change path before `change`'s commit (`Change.preceding`).
    public func ensureMergeDriver(in change: Change) throws(VaultError) {
        if try configString("merge.vault.driver") != MergeDriver.command {
            try setConfig("merge.vault.name", "vault: rooms by message id, diary entries without conflict markers")
            try setConfig("merge.vault.driver", MergeDriver.command)
        }
        let path = root + "/.gitattributes"
        let text = FileIO.exists(path) ? String(decoding: try FileIO.read(path), as: UTF8.self) : ""
        let lines = Set(text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) })
        let missing = MergeDriver.attributes.filter { !lines.contains($0) }
        guard !missing.isEmpty else { return }
        var updated = text
        if !updated.isEmpty && !updated.hasSuffix("\n") { updated += "\n" }
        updated +=
            "# vault's merge (`vault merge-driver`) for `git pull` by hand\n" + missing.joined(separator: "\n") + "\n"
        try change.preceding([".gitattributes"]) { attributes throws(VaultError) in
            try attributes.write(Array(updated.utf8), to: ".gitattributes")
            try attributes.commit(message: "sync: vault's merge driver for rooms, diary entries and vault.yml")
        }
    }
}
