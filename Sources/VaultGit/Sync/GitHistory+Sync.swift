import CGit2
import CVaultObjects
import Foundation
import VaultCore

/// The repository operations a sync is made of: references, remotes, the work tree.
extension GitHistory {
    // MARK: References

    /// The commit a reference names, or nil when there is no such reference.
    func referenceCommit(_ name: String) throws(VaultError) -> OpaquePointer? {
        var oid = git_oid()
        let code = git_reference_name_to_id(&oid, repo, name)
        if code == GIT_ENOTFOUND.rawValue { return nil }
        try GitFailure.check(code, "read \(name)")
        var commit: OpaquePointer?
        try GitFailure.check(git_commit_lookup(&commit, repo, &oid), "read the commit \(name) names")
        return commit
    }

    /// The bytes of the file `path` in the commit `reference` names; nil when there is none.
    func file(_ path: String, atReference reference: String) throws(VaultError) -> [UInt8]? {
        guard let commit = try referenceCommit(reference) else { return nil }
        defer { git_commit_free(commit) }
        var tree: OpaquePointer?
        try GitFailure.check(git_commit_tree(&tree, commit), "read the tree of \(reference)")
        defer { git_tree_free(tree) }
        return try blob(at: path, in: tree).map { id throws(VaultError) in try blobBytes(id) }
    }

    func setReference(_ name: String, to id: git_oid) throws(VaultError) {
        var oid = id
        var ref: OpaquePointer?
        try GitFailure.check(git_reference_create(&ref, repo, name, &oid, 1, "vault: sync"), "write \(name)")
        git_reference_free(ref)
    }

    func deleteReference(_ name: String) {
        _ = git_reference_remove(repo, name)
    }

    /// `main` for `refs/heads/main`.
    func branchName() throws(VaultError) -> String {
        let branch = try currentBranch()
        return branch.hasPrefix("refs/heads/") ? String(branch.dropFirst(11)) : branch
    }

    /// Commits HEAD has that `ref` has not (false when `ref` does not exist but HEAD does).
    func isAhead(of ref: String) throws(VaultError) -> Bool {
        guard let head = try headCommit() else { return false }
        defer { git_commit_free(head.commit); git_tree_free(head.tree) }
        guard let other = try referenceCommit(ref) else { return true }
        defer { git_commit_free(other) }
        return try aheadBehind(head.commit, other).ahead > 0
    }

    /// Whether `commit` is `head` or one of its ancestors: merging it brings nothing new.
    func has(_ commit: OpaquePointer, in head: OpaquePointer) -> Bool {
        git_oid_equal(git_commit_id(head), git_commit_id(commit)) != 0
            || git_graph_descendant_of(repo, git_commit_id(head), git_commit_id(commit)) == 1
    }

    func aheadBehind(_ local: OpaquePointer, _ upstream: OpaquePointer) throws(VaultError) -> (ahead: Int, behind: Int)
    {
        var ahead = 0
        var behind = 0
        try GitFailure.check(
            git_graph_ahead_behind(&ahead, &behind, repo, git_commit_id(local), git_commit_id(upstream)),
            "count the commits on each side")
        return (ahead, behind)
    }

    /// The number of commits reachable from `revision` (and not from `notIn`).
    func commitCount(from revision: String, notIn: String?) throws(VaultError) -> Int {
        var walk: OpaquePointer?
        try GitFailure.check(git_revwalk_new(&walk, repo), "walk the history")
        defer { git_revwalk_free(walk) }
        guard git_revwalk_push_ref(walk, revision == "HEAD" ? (try currentBranch()) : revision) == 0 else { return 0 }
        if let notIn { _ = git_revwalk_hide_ref(walk, notIn) }
        var oid = git_oid()
        var n = 0
        while git_revwalk_next(&oid, walk) == 0 { n += 1 }
        return n
    }

    /// Moves the current branch from `old` to `id`, only if it still points at `old`, as a
    /// commit moves it (`moveBranch(_:from:to:message:by:)`: under a lock a killed vault's
    /// successor can prove stale, flushed, logged).
    func moveBranch(to id: git_oid, from old: OpaquePointer, message: String) throws(VaultError) {
        let branch = try currentBranch()
        let signature: UnsafeMutablePointer<git_signature>? = try signatureNow("make the log's author")
        defer { git_signature_free(signature) }
        try moveBranch(
            branch, from: git_commit_id(old).pointee, to: id, message: message, by: signature!.pointee,
            whenMoved: "run `vault sync` again")
        // Tests: killed with the branch moved and the files written, git's index not yet.
        CrashPoint.reach("sync-branch-moved")
    }

    /// Writes a commit object (not moving any branch) and makes it durable.
    func writeCommit(tree treeID: git_oid, parents: [OpaquePointer], message: String) throws(VaultError) -> git_oid {
        var treeOID = treeID
        var tree: OpaquePointer?
        try GitFailure.check(git_tree_lookup(&tree, repo, &treeOID), "read the merged tree")
        defer { git_tree_free(tree) }
        let signature: UnsafeMutablePointer<git_signature>? = try signatureNow("make the commit's author")
        defer { git_signature_free(signature) }
        var commitID = git_oid()
        try createCommit(
            &commitID, author: signature!, committer: signature!, message: withMachine(message), tree: tree,
            parents: parents)
        try GitFailure.check(cvault_odb_writer_flush_batch(objects.writer), "write the new objects to disk")
        return commitID
    }

    // MARK: Machines

    /// This machine's name in commit trailers and conflict copies: `ProcessSettings.machineName`
    /// (`VAULT_MACHINE`), else git config `vault.machine`, else the host name.
    func machineName() -> String {
        if let name = settings.machineName { return name }
        if let name = try? configString("vault.machine"), !name.isEmpty { return name }
        var buffer = [CChar](repeating: 0, count: 256)
        gethostname(&buffer, buffer.count - 1)
        let host = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return host.isEmpty ? "unknown" : host
    }

    /// `message` with a `Vault-Machine:` trailer naming this machine.
    func withMachine(_ message: String) -> String {
        message + "\n\nVault-Machine: " + machine + "\n"
    }

    /// One side of a merge: its commit, tree, machine and time.
    func side(_ commit: OpaquePointer, tree: OpaquePointer) -> TreeMerge.Side {
        let message = git_commit_message(commit).map { String(cString: $0) } ?? ""
        var machine = git_commit_author(commit).map { String(cString: $0.pointee.name) } ?? "other"
        for line in message.split(separator: "\n") where line.hasPrefix("Vault-Machine: ") {
            machine = String(line.dropFirst(15))
        }
        return TreeMerge.Side(
            commit: commit, tree: tree, machine: machine,
            time: Date(timeIntervalSince1970: Double(git_commit_time(commit))))
    }

    // MARK: The work tree

    /// Paths that differ between HEAD and the files (hand edits, new and deleted files),
    /// as `git status` finds them; ignored files (`.vault/`) are not included.
    public func workTreeChanges() throws(VaultError) -> [String] {
        // `git status` is several times faster than libgit2's on a large vault (its index
        // preload and untracked-file walk); libgit2's is the fallback without the command.
        let git = GitTransport(root: root, environment: settings.environment)
        if GitTransport.isInstalled(environment: git.environment) {
            // No folder changed since a full scan found no untracked file: no file can be new,
            // and only the tracked ones are looked at (`FolderStamps`).
            let noNewFiles = FolderStamps.unchanged(root: root)
            let stamps = noNewFiles ? nil : FolderStamps.take(root: root, environment: git.environment)
            let output = try git.run(
                ["--no-optional-locks", "status", "--porcelain=v1", "-z",
                 "--untracked-files=\(noNewFiles ? "no" : "all")", "--no-renames"])
            if output.status == 0 {
                // `XY PATH\0` records; with renames off there is no second path. A path can come
                // twice (`D ` and `??`: an index behind HEAD), and is listed once.
                let records = output.stdout.split(separator: "\0")
                if !noNewFiles {
                    if let stamps, !records.contains(where: { $0.hasPrefix("?? ") }) {
                        FolderStamps.save(stamps, root: root)
                    } else {
                        FolderStamps.forget(root: root)
                    }
                }
                return Set(records.compactMap { record in record.count > 3 ? String(record.dropFirst(3)) : nil }).sorted()
            }
        }
        var options = git_status_options()
        git_status_options_init(&options, UInt32(GIT_STATUS_OPTIONS_VERSION))
        options.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR
        options.flags =
            GIT_STATUS_OPT_INCLUDE_UNTRACKED.rawValue | GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS.rawValue
            | GIT_STATUS_OPT_EXCLUDE_SUBMODULES.rawValue
        var list: OpaquePointer?
        try GitFailure.check(git_status_list_new(&list, repo, &options), "find changed files")
        defer { git_status_list_free(list) }
        var paths = Set<String>()
        for i in 0..<git_status_list_entrycount(list) {
            guard let entry = git_status_byindex(list, i)?.pointee else { continue }
            for delta in [entry.head_to_index, entry.index_to_workdir] {
                guard let d = delta?.pointee else { continue }
                if let p = d.old_file.path { paths.insert(String(cString: p)) }
                if let p = d.new_file.path { paths.insert(String(cString: p)) }
            }
        }
        return paths.sorted()
    }

    /// Files that may hold what plain git left: changed in the work tree, or committed here since
    /// `ref` (the remote's branch as last fetched; everything when there is none).
    func locallyChangedPaths(since ref: String, workTree: [String]) throws(VaultError) -> [String]? {
        var paths = Set(workTree)
        guard let head = try headCommit() else { return Array(paths) }
        defer { git_commit_free(head.commit); git_tree_free(head.tree) }
        guard let other = try referenceCommit(ref) else { return nil }
        defer { git_commit_free(other) }
        var tree: OpaquePointer?
        try GitFailure.check(git_commit_tree(&tree, other), "read the remote's tree")
        defer { git_tree_free(tree) }
        for change in try directChanges(from: tree!, to: head.tree) where change.oid != nil {
            paths.insert(change.path)
        }
        return paths.sorted()
    }

    /// The last version of each of `paths` that one of the last `limit` commits of HEAD's
    /// first-parent line removed (path → its blob before the removal): what this side had of a
    /// room it removed, when no common ancestor tells.
    func recentRemovals(of paths: Set<String>, within limit: Int) throws(VaultError) -> [String: git_oid] {
        guard !paths.isEmpty, let head = try headCommit() else { return [:] }
        git_tree_free(head.tree)
        var commit: OpaquePointer? = head.commit
        defer { git_commit_free(commit) }
        var found: [String: git_oid] = [:]
        for _ in 0..<limit {
            guard found.count < paths.count, git_commit_parentcount(commit) > 0 else { break }
            var parent: OpaquePointer?
            try GitFailure.check(git_commit_parent(&parent, commit, 0), "read a commit's parent")
            var tree: OpaquePointer?
            var parentTree: OpaquePointer?
            defer { git_tree_free(tree); git_tree_free(parentTree) }
            try GitFailure.check(git_commit_tree(&tree, commit), "read a commit's tree")
            try GitFailure.check(git_commit_tree(&parentTree, parent), "read a commit's tree")
            for change in try directChanges(from: parentTree!, to: tree!)
            where change.oid == nil && paths.contains(change.path) && found[change.path] == nil {
                found[change.path] = blob(at: change.path, in: parentTree)
            }
            git_commit_free(commit)
            commit = parent
        }
        return found
    }

    /// The changes that turn tree `old` into tree `new`, path by path.
    func directChanges(from old: OpaquePointer, to new: OpaquePointer) throws(VaultError) -> [TreeMerge.Change] {
        // The same tree: nothing changed (libgit2's diff would still walk all 50,000 entries).
        if git_oid_equal(git_tree_id(old), git_tree_id(new)) != 0 { return [] }
        let diff = try treeDiff(from: old, to: new)
        defer { git_diff_free(diff) }
        var out: [TreeMerge.Change] = []
        for delta in GitHistory.deltas(of: diff) {
            let path = String(cString: delta.status == GIT_DELTA_DELETED ? delta.old_file.path : delta.new_file.path)
            out.append(TreeMerge.Change(path: path, oid: delta.status == GIT_DELTA_DELETED ? nil : delta.new_file.id))
        }
        return out
    }

    /// Writes the files of `changes` (`checkout`), moves the branch from `old` to `new`, and
    /// brings git's index up to date for those files: a sync's merge or fast-forward, an undo.
    ///
    /// The paths are noted as this process's intent first (`CommitIntent`), as every commit notes
    /// them: if it is killed after the files or the branch and before the index, the next
    /// command finds the note (`recoverFromKilledVaults`) and puts those paths right, without
    /// comparing the whole index with HEAD.
    func checkoutAndMoveBranch(
        _ changes: [TreeMerge.Change], replacing tree: OpaquePointer, to new: git_oid, from old: OpaquePointer,
        message: String
    ) throws(VaultError) {
        let paths = changes.map(\.path)
        CommitIntent.add(paths, root: root)
        try checkout(changes, replacing: tree)
        Trace.mark("sync: files written")
        try moveBranch(to: new, from: old, message: message)
        Trace.mark("sync: branch moved")
        // The files are the changes' blobs, just written (`checkout`).
        try updateIndex(changes.map { IndexPatcher.Update(path: $0.path, oid: $0.oid) })
        Trace.mark("sync: index updated")
        CommitIntent.remove(paths, root: root)
    }

    /// git's index with `paths` as `tree` has them and no conflict left (a merge finished): a
    /// file as committed is added with its stat, one that differs (the person's edit, left for
    /// the next commit) gets the committed blob and no stat, so `git status` reads it and shows
    /// it changed; a path the tree has not is removed.
    func indexAsCommitted(_ paths: [String], tree: OpaquePointer, index: OpaquePointer) throws(VaultError) {
        for path in paths {
            _ = git_index_conflict_remove(index, path)
            var found: OpaquePointer?
            guard git_tree_entry_bypath(&found, tree, path) == 0, git_tree_entry_type(found) == GIT_OBJECT_BLOB else {
                git_tree_entry_free(found)
                let code = git_index_remove_bypath(index, path)
                if code != GIT_ENOTFOUND.rawValue { try GitFailure.check(code, "remove \(path) from the index") }
                continue
            }
            defer { git_tree_entry_free(found) }
            let id = git_tree_entry_id(found).pointee
            if GitHistory.same(try blobID(ofFile: path), id) {
                try GitFailure.check(git_index_add_bypath(index, path), "add \(path) to the index")
                continue
            }
            var entry = git_index_entry()
            entry.mode = git_tree_entry_filemode(found).rawValue
            entry.id = id
            let code = path.withCString { p -> Int32 in
                entry.path = p
                return git_index_add(index, &entry)
            }
            try GitFailure.check(code, "add \(path) to the index")
        }
        git_index_conflict_cleanup(index)
        try GitFailure.check(git_index_write(index), "write the index")
    }

    /// Writes the files of `changes` into the vault, each atomically and all durably; first checks that every
    /// one is still as in `tree` (the version just committed), so a save an editor made during
    /// the sync is never overwritten: then nothing is written and the sync stops.
    func checkout(_ changes: [TreeMerge.Change], replacing tree: OpaquePointer) throws(VaultError) {
        try checkout(changes) { path in blob(at: path, in: tree) }
    }

    /// `checkout(_:replacing:)`, each file first checked to be as `expected` gives it (nil: absent).
    func checkout(_ changes: [TreeMerge.Change], expected: (String) throws(VaultError) -> git_oid?) throws(VaultError) {
        for change in changes {
            // The incoming tree passed `IncomingTree`; this holds even for a tree that did not:
            // no path leaves its folder, and nothing is written through a link.
            if let problem = IncomingPath.problem(with: change.path) {
                throw VaultError.untrusted(.refusedPath(commit: "being written", path: change.path, problem: problem))
            }
            if let link = Vault.symbolicLink(in: root, on: change.path) {
                throw VaultError.symbolicLink(path: link.path, target: link.target)
            }
        }
        for change in changes {
            let committed = try expected(change.path)
            let onDisk = try blobID(ofFile: change.path)
            if !GitHistory.same(committed, onDisk) {
                throw VaultError.changedOnDisk(path: change.path)
            }
        }
        Trace.mark("sync: files checked")
        // Written as one batch (`FileIO.writeAll`): every file flushed before any is renamed into
        // place, each folder flushed once, all of it durable before the branch moves.
        let written = changes.compactMap { change in change.oid.map { (path: root + "/" + change.path, oid: $0) } }
        for file in written { try FileIO.makeDirectory(FileIO.parent(of: file.path)) }
        let removed = changes.filter { $0.oid == nil }.map { root + "/" + $0.path }
        try FileIO.writeAll(written.map(\.path), removing: removed) { i throws(VaultError) in
            try blobBytes(written[i].oid)
        }
        // A renamed room's old volume folder, emptied, goes as git's checkout would remove it.
        for path in removed { FileIO.removeEmptyFolders(above: path, upTo: root) }
    }

    // MARK: Remotes

    /// The remote a sync uses: `name`, else the branch's upstream, else `origin`, else the only one.
    func syncRemote(named name: String?) throws(VaultError) -> String {
        let names = try remotes().map(\.name)
        if let name {
            guard names.contains(name) else {
                throw VaultError.input(.unknownRemote(name, known: names))
            }
            return name
        }
        if let upstream = try? configString("branch.\(branchName()).remote"), names.contains(upstream) {
            return upstream
        }
        if names.contains("origin") { return "origin" }
        if names.count == 1 { return names[0] }
        if names.isEmpty {
            throw VaultError.input(.noRemote)
        }
        throw VaultError.input(.severalRemotes(names))
    }

    /// The remotes and their URLs.
    public func remotes() throws(VaultError) -> [(name: String, url: String)] {
        var list = git_strarray()
        try GitFailure.check(git_remote_list(&list, repo), "list the remotes")
        defer { git_strarray_dispose(&list) }
        var out: [(String, String)] = []
        for i in 0..<list.count {
            guard let cName = list.strings[i] else { continue }
            let name = String(cString: cName)
            var remote: OpaquePointer?
            guard git_remote_lookup(&remote, repo, name) == 0 else { continue }
            defer { git_remote_free(remote) }
            out.append((name, git_remote_url(remote).map { String(cString: $0) } ?? ""))
        }
        return out.sorted { $0.0 < $1.0 }
    }

    public func addRemote(name: String, url: String) throws(VaultError) {
        guard isValidRemoteName(name) else {
            throw VaultError.input(.invalidRemoteName(name))
        }
        if try remotes().contains(where: { $0.name == name }) {
            throw VaultError.input(.remoteExists(name))
        }
        var remote: OpaquePointer?
        try GitFailure.check(git_remote_create(&remote, repo, name, url), "add the remote '\(name)'")
        git_remote_free(remote)
    }

    private func isValidRemoteName(_ name: String) -> Bool {
        var valid: Int32 = 0
        return git_remote_name_is_valid(&valid, name) == 0 && valid == 1
    }

    public func removeRemote(name: String) throws(VaultError) {
        guard try remotes().contains(where: { $0.name == name }) else {
            throw VaultError.input(.noRemoteToRemove(name))
        }
        try GitFailure.check(git_remote_delete(repo, name), "remove the remote '\(name)'")
    }

    func configString(_ key: String) throws(VaultError) -> String? {
        var config: OpaquePointer?
        try GitFailure.check(git_repository_config_snapshot(&config, repo), "read the git config")
        defer { git_config_free(config) }
        var value: UnsafePointer<CChar>?
        guard git_config_get_string(&value, config, key) == 0, let value else { return nil }
        return String(cString: value)
    }

    func setConfig(_ key: String, _ value: String) throws(VaultError) {
        var config: OpaquePointer?
        try GitFailure.check(git_repository_config(&config, repo), "open the git config")
        defer { git_config_free(config) }
        var local: OpaquePointer?
        try GitFailure.check(
            git_config_open_level(&local, config, GIT_CONFIG_LEVEL_LOCAL), "open the repository's git config")
        defer { git_config_free(local) }
        try GitFailure.check(git_config_set_string(local, key, value), "set \(key) in the git config")
    }
}

/// What `workTreeChanges(asking:)` found, and how.
public struct WorkTreeScan: Sendable {
    /// Paths that may differ from the last commit (hand edits, new and removed files).
    public var paths: [String]
    /// The watcher's point when it was asked, before anything was read (nil: none answered).
    public var point: WatchPoint?
    /// The record the paths came from, when the watcher vouched for the rest (nil: every file
    /// was looked at).
    var record: SyncWatchRecord?
}

extension GitHistory {
    /// `workTreeChanges()`, asking `watcher` first: when it answers for the point the last sync
    /// kept (`SyncWatchRecord`) and no folder changed since (`FolderStamps`: no file can be
    /// new), the paths are the watched files it names, and the unwatched tracked files whose
    /// stamp is not the one kept; no other file is looked at. Else every file is, as without it.
    ///
    /// Why that is enough: the record is kept only after a sync committed every hand edit
    /// (`keepWatch`), with the point asked before that sync looked at any file; every change
    /// of a watched file after that point is named by the same watcher (its epoch), and every
    /// change of another tracked file changes its stamp, which was taken when the file was as
    /// committed (a stamp too close to the file's last change is not kept: such a file is
    /// always looked at). A new file changes its folder's stamp.
    public func workTreeChanges(asking watcher: (any WorkTreeWatcher)?) throws(VaultError) -> WorkTreeScan {
        guard let watcher else { return WorkTreeScan(paths: try workTreeChanges()) }
        let record = SyncWatchRecord.read(root: root)
        let answer = watcher.changes(since: record?.point)
        Trace.mark("sync: watcher answered (\(answer?.changed.map { "\($0.count) changed" } ?? "everything"))")
        if let record, let answer, let changed = answer.changed, answer.point.epoch == record.point.epoch,
            FolderStamps.unchanged(root: root)
        {
            var paths = Set<String>()
            for path in changed where try !isIgnoredNewFile(path) { paths.insert(path) }
            for path in record.changedPaths() where path.hasPrefix(root + "/") {
                paths.insert(String(path.dropFirst(root.count + 1)))
            }
            return WorkTreeScan(paths: paths.sorted(), point: answer.point, record: record)
        }
        return WorkTreeScan(paths: try workTreeChanges(), point: answer?.point)
    }

    /// Keeps what the next sync asks the watcher about (`workTreeChanges(asking:)`): call once
    /// every hand edit the scan found is committed. The unwatched tracked files are those of
    /// HEAD's tree, listed again only when the scan looked at every file.
    public func keepWatch(_ scan: WorkTreeScan) throws(VaultError) {
        guard let point = scan.point else { return }
        let paths: [String]
        if let record = scan.record {
            paths = Array(record.stamps.keys)
        } else {
            guard let head = try headCommit() else { return }
            defer { git_commit_free(head.commit); git_tree_free(head.tree) }
            var found: [String] = []
            try unwatchedFiles(in: git_tree_id(head.tree).pointee, prefix: "", zone: .top) { found.append(root + "/" + $0) }
            paths = found
        }
        SyncWatchRecord(point: point, stamps: SyncWatchRecord.stamps(of: paths)).save(root: root)
    }

    /// Where a tree is, for what a watcher watches (`WorkTreeWatching.watches`).
    enum WatchZone { case top, rooms, diary, unwatched }

    /// Every file of `tree` a watcher does not watch, without making a string of those it does.
    func unwatchedFiles(in tree: git_oid, prefix: String, zone: WatchZone, _ body: (String) -> Void) throws(VaultError) {
        let raw = try trees.read(tree)
        for e in GitHistory.entries(of: raw) {
            let name = raw[e.name]
            let hidden = name.first == UInt8(ascii: ".")
            if e.isTree {
                let text = String(decoding: name, as: UTF8.self)
                let inner: WatchZone
                switch zone {
                case .top: inner = text == "rooms" ? .rooms : text == "diary" ? .diary : .unwatched
                // Both at any depth (format 2 files rooms in `rooms/<yyyy>/`), no hidden folder.
                case .rooms: inner = hidden ? .unwatched : .rooms
                case .diary: inner = hidden ? .unwatched : .diary
                case .unwatched: inner = .unwatched
                }
                try unwatchedFiles(in: TreeEditor.oid(raw, at: e.oid), prefix: prefix + text + "/", zone: inner, body)
                continue
            }
            let markdown = name.count > 3 && name.suffix(3).elementsEqual(".md".utf8)
            if (zone == .rooms || zone == .diary) && markdown && !hidden { continue }
            body(prefix + String(decoding: name, as: UTF8.self))
        }
    }

    /// Whether `path` is not in HEAD and git ignores it (a file the watcher named that a
    /// `git status` would not list).
    func isIgnoredNewFile(_ path: String) throws(VaultError) -> Bool {
        guard try headBlob(path) == nil else { return false }
        var ignored: Int32 = 0
        guard git_ignore_path_is_ignored(&ignored, repo, path) == 0 else { return false }
        return ignored != 0
    }
}
