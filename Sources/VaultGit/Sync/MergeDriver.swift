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
package enum MergeDriver {
    /// The lines `.gitattributes` needs in a vault of `format` (2 files rooms in folders:
    /// `rooms/**/*.md` matches them at any depth, `rooms/*.md` only right in `rooms/`).
    package static func attributes(format: Int) -> [String] {
        [format >= 2 ? roomsAttribute : flatRoomsAttribute]
            + (format >= RoomVolumes.format ? [MergeDriverPatterns.volumes] : [])
            + ["diary/**/*.md merge=vault", "vault.yml merge=vault"]
    }

    package static let flatRoomsAttribute = MergeDriverPatterns.flatRooms
    package static let roomsAttribute = MergeDriverPatterns.rooms

    /// The command git runs, from the repository's config.
    package static let command = "vault merge-driver %O %A %B %P"

    /// Merges the three versions git gives (ancestor, current, other) into `current`, by the
    /// kind of `path`, with `vault sync`'s rules (`Merge.committed`), so a `git pull` writes the
    /// bytes `vault sync` writes for the same two commits. Returns what the person should hear.
    ///
    /// git gives only the files; the commits come from the repository at `root`: HEAD (this
    /// side) and the commit git names in `GITHEAD_<id>` (the other side, set in `environment`
    /// by `git merge` and `git pull`). The later commit wins a tie and keeps its text, as in a
    /// sync; where changes overlap, the losing side's version is saved next to the file as a
    /// conflict copy named from the losing commit (`TreeMerge.Side.conflictCopyName`), and
    /// listed in `.git/vault-merge-copies` for the hooks that add it to the index
    /// (`stagingHook`). Without those two commits (a rebase, a cherry-pick, an octopus merge)
    /// the other side counts as newer, the current version is kept, and a copy is named
    /// `merge`, the time and the copy's hash.
    ///
    /// `machineLimits`: this machine's caps (`VaultSync.machineLimits`), which the vault's git
    /// config may replace and its `vault.yml` lower.
    package static func run(
        ancestor: String, current: String, other: String, path: String, root: String,
        settings: ProcessSettings, machineLimits: IncomingLimits = IncomingLimits()
    ) throws(VaultError) -> [String] {
        let environment = settings.environment
        // git checked the path (`verify_path`); vault's rules are stricter (`.vault`, control
        // characters), and the other side's file is held to the vault's file cap.
        if let problem = IncomingPath.problem(with: path) {
            throw VaultError.untrusted(.refusedPath(commit: "being merged", path: path, problem: problem))
        }
        let config = try? VaultConfig(parsing: try FileIO.read(root + "/" + VaultPath.config))
        let history = try? GitHistory(vault: root, config: config ?? VaultConfig(parsing: []), settings: settings)
        let shared = config?.limits ?? IncomingLimits.Setting()
        let limits = try history?.incomingLimits(machine: machineLimits, vault: shared) ?? machineLimits.lowered(by: shared)
        if let size = FileIO.size(of: other), size > limits.maxFileSize {
            throw VaultError.untrusted(
                .fileTooLarge(
                    commit: "being merged", path: path, size: size, limit: limits.maxFileSize,
                    origin: limits.origin(of: "max_file_size")))
        }
        // A file both sides made (git's add/add) comes with an empty ancestor: merged as `vault
        // sync` merges it, with none (an empty vault file has nothing to keep from either way).
        let base = FileIO.exists(ancestor) ? try FileIO.read(ancestor) : nil
        let ancestorBytes = base?.isEmpty == true ? nil : base
        let ours = try FileIO.read(current)
        let theirs = try FileIO.read(other)
        let sides = history.flatMap { h in (try? MergeSides(history: h, environment: environment)) ?? nil }
        let merged: FileMerge
        let copyPath: String?
        if let sides {
            let newer: Merge.Newer = sides.theirsNewer ? .theirs : .ours
            if ancestorBytes == nil, let history {
                // A file both sides made (add/add): the rule `vault sync` keeps (`TreeMerge`).
                switch try Merge.addedTwice(
                    path: path, ours: ours, theirs: theirs, newer: newer,
                    isTaken: { sides.isTaken($0, root: root) })
                {
                case .apart(let later, let newPath):
                    // The later room moves to a free name, listed for the hooks that add it to the index.
                    let (kept, moved) = later == .theirs ? (ours, theirs) : (theirs, ours)
                    try FileIO.write(moved, to: root + "/" + newPath)
                    try history.recordMergeCopy(
                        newPath, of: path, from: later == .theirs ? sides.theirsID : sides.oursID,
                        merging: sides.theirsID)
                    try FileIO.write(kept, to: current)
                    return [Merge.keptApart(path, newPath: newPath)]
                case .merged(let m):
                    merged = m
                }
            } else {
                merged = try Merge.committed(path: path, base: ancestorBytes, ours: ours, theirs: theirs, newer: newer)
            }
            copyPath = merged.conflictCopy.map { _ in sides.loser.conflictCopyName(of: path) }
        } else {
            merged = try Merge.file(path: path, base: ancestorBytes, ours: ours, theirs: theirs, newer: .theirs)
            copyPath = merged.conflictCopy.map { copy in
                ConflictCopy.name(for: path, machine: "merge", time: Date(), version: ConflictCopy.versionID(of: copy))
            }
        }
        var notes = merged.notes.map { "\(path): \($0)" }
        if let copy = merged.conflictCopy, let copyPath {
            try FileIO.makeDirectory(FileIO.parent(of: root + "/" + copyPath))
            try FileIO.write(copy, to: root + "/" + copyPath)
            if let history, let sides {
                try history.recordMergeCopy(
                    copyPath, of: path, from: sides.theirsNewer ? sides.oursID : sides.theirsID, merging: sides.theirsID)
            }
            notes.append("\(path): both sides changed the same lines: the version not kept is saved as \(copyPath)")
        }
        try FileIO.write(merged.bytes, to: current)
        return notes
    }

    /// The file in the git directory that lists the conflict copies the driver saved, until a
    /// hook adds them to the index: one `COPY<TAB>COMMIT<TAB>OTHER<TAB>PATH` a line (the copy holds
    /// COMMIT's version of PATH; OTHER is the commit being merged). After `git merge --abort` the next vault command removes the
    /// copies (their text is in COMMIT) and the list (`clearAbortedMergeCopies`).
    static let pendingCopies = "vault-merge-copies"

    /// The hook vault installs as `post-merge` and `pre-commit`: adds the conflict copies the
    /// driver saved to the index (a hook is the only step of a `git pull` that may: git holds the
    /// index while drivers run), so `git commit` after the pull, or the commit that ends a
    /// `git pull --no-commit`, holds them. A hook of the person's own is left as it is.
    static let stagingHook = """
        #!/bin/sh
        # vault: adds the conflict copies `vault merge-driver` saved during `git pull` to the index,
        # so the next commit holds them. Written by vault (delete it to stop this).
        list="$(git rev-parse --git-dir)/\(pendingCopies)"
        [ -f "$list" ] || exit 0
        # A commit outside a merge: the list is an aborted merge's (vault clears it).
        case "$0" in
        *pre-commit) git rev-parse -q --verify MERGE_HEAD >/dev/null || exit 0 ;;
        esac
        tab="$(printf '\t')"
        while IFS="$tab" read -r copy from; do
          [ -f "$copy" ] && git add -- "$copy"
        done < "$list"
        rm -f "$list"
        exit 0

        """

    /// The hooks that run `stagingHook`.
    static let stagingHooks = ["post-merge", "pre-commit"]
}

/// The two commits of a `git merge` or `git pull` that runs the driver, read as `vault sync`
/// reads its sides: HEAD and the one commit named by git's `GITHEAD_<id>` variable.
private final class MergeSides {
    let theirsNewer: Bool
    let loser: TreeMerge.Side
    /// The two commits' ids.
    let oursID: String
    let theirsID: String
    /// The commits and trees read, freed with the sides.
    private let objects: [OpaquePointer]
    /// This side's tree and the other's.
    private let trees: [OpaquePointer]

    /// Whether `name` is in use, for a second room made under one name (`Merge.addedTwice`):
    /// in either side's tree, or in the work tree.
    func isTaken(_ name: String, root: String) -> Bool {
        let inTrees = trees.contains { tree in
            var entry: OpaquePointer?
            guard git_tree_entry_bypath(&entry, tree, name) == 0 else { return false }
            git_tree_entry_free(entry)
            return true
        }
        return inTrees || FileIO.entryExists(root + "/" + name)
    }

    /// nil when the environment names no single other commit, or HEAD is unborn.
    init?(history: GitHistory, environment: [String: String]) throws(VaultError) {
        let named = environment.keys.filter { $0.hasPrefix("GITHEAD_") }
        guard named.count == 1, let head = try history.headCommit() else { return nil }
        let other: OpaquePointer
        do {
            other = try history.commit(String(named[0].dropFirst(8)))
        } catch {
            git_commit_free(head.commit)
            git_tree_free(head.tree)
            return nil
        }
        var tree: OpaquePointer?
        guard git_commit_tree(&tree, other) == 0, let tree else {
            git_commit_free(head.commit)
            git_tree_free(head.tree)
            git_commit_free(other)
            return nil
        }
        objects = [head.commit, head.tree, other, tree]
        trees = [head.tree, tree]
        let ours = history.side(head.commit, tree: head.tree)
        let theirs = history.side(other, tree: tree)
        theirsNewer = TreeMerge.theirsIsNewer(ours: ours, theirs: theirs)
        loser = theirsNewer ? ours : theirs
        oursID = oidString(git_commit_id(head.commit))
        theirsID = oidString(git_commit_id(other))
    }

    deinit {
        for object in objects { git_object_free(object) }
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
        try ensureStagingHooks()
        let path = root + "/.gitattributes"
        let text = FileIO.exists(path) ? String(decoding: try FileIO.read(path), as: UTF8.self) : ""
        let lines = Set(text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) })
        let format = (try? VaultConfig(parsing: FileIO.read(root + "/" + VaultPath.config)))?.format ?? 1
        let missing = MergeDriver.attributes(format: format).filter { !lines.contains($0) }
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

    /// Installs `MergeDriver.stagingHook` as the repository's `post-merge` and `pre-commit`
    /// hooks, unless the person keeps hooks elsewhere (`core.hooksPath`) or has a hook of that
    /// name already (then the copies stay untracked until `vault sync` commits them).
    func ensureStagingHooks() throws(VaultError) {
        if let elsewhere = try? configString("core.hooksPath"), !elsewhere.isEmpty { return }
        let folder = gitDirectory + "/hooks"
        let script = Array(MergeDriver.stagingHook.utf8)
        for name in MergeDriver.stagingHooks {
            let hook = folder + "/" + name
            if FileIO.exists(hook) {
                let current = try FileIO.read(hook)
                // Ours, maybe an older version: rewritten; the person's own: left alone.
                guard current != script, String(decoding: current, as: UTF8.self).contains("# vault: ") else {
                    continue
                }
            }
            try FileIO.makeDirectory(folder)
            try FileIO.write(script, to: hook)
            guard chmod(hook, 0o755) == 0 else {
                throw VaultError.io(path: hook, operation: "make executable", reason: String(cString: strerror(errno)))
            }
        }
    }

    /// Adds `copy` (commit `from`'s version of `path`, saved while merging commit `other`) to
    /// the list of conflict copies the staging hooks add to the index.
    func recordMergeCopy(_ copy: String, of path: String, from commit: String, merging other: String)
        throws(VaultError)
    {
        let list = gitDirectory + "/" + MergeDriver.pendingCopies
        let listed = FileIO.exists(list) ? try FileIO.read(list) : []
        try FileIO.write(listed + Array("\(copy)\t\(commit)\t\(other)\t\(path)\n".utf8), to: list)
    }

    /// What a `git pull` whose merge was given up (`git merge --abort`, `git reset --merge`)
    /// left: the copies the driver saved are removed while each still holds exactly its
    /// commit's version (the text is in that commit), and the list with them. After a merge
    /// that was made (its other commit is in HEAD's history) the copies are the person's files
    /// and stay. Nothing is done while a merge is in progress.
    ///
    /// - Returns: the copies removed.
    @discardableResult
    func clearAbortedMergeCopies() throws(VaultError) -> [String] {
        let list = gitDirectory + "/" + MergeDriver.pendingCopies
        guard FileIO.exists(list), !FileIO.exists(gitDirectory + "/MERGE_HEAD") else { return [] }
        var removed: [String] = []
        let head = try headCommit()
        defer { head.map { git_commit_free($0.commit); git_tree_free($0.tree) } }
        for line in String(decoding: try FileIO.read(list), as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: "\t", maxSplits: 3).map(String.init)
            guard fields.count == 4, IncomingPath.problem(with: fields[0]) == nil,
                let head, try !isAncestor(fields[2], of: head.commit),
                blob(at: fields[0], in: head.tree) == nil,
                case .file = try workFile(fields[0]),
                let version = try? contents(of: fields[3], at: fields[1]),
                try FileIO.read(root + "/" + fields[0]) == version
            else { continue }
            try FileIO.remove(root + "/" + fields[0])
            removed.append(fields[0])
        }
        try FileIO.remove(list)
        return removed
    }

    /// Whether commit `id` is `commit` or one of its ancestors (false for an id not in the repository).
    func isAncestor(_ id: String, of commit: OpaquePointer) throws(VaultError) -> Bool {
        var oid = git_oid()
        guard git_oid_fromstr(&oid, id) == 0 else { return false }
        let tip = git_commit_id(commit)!
        if git_oid_equal(&oid, tip) != 0 { return true }
        let code = git_graph_descendant_of(repo, tip, &oid)
        return code == 1
    }
}
