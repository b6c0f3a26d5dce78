import CGit2
import CVaultObjects
import Foundation
import VaultCore

extension GitHistory {
    // MARK: VaultHistory

    @discardableResult
    public func prepare(_ paths: [String], known: [String: KnownFile], notes: NoteSink) throws(VaultError) -> [String] {
        Trace.mark("prepare: start")
        try recoverFromKilledVaults()
        try checkReady()
        if let head = try headCommit() {
            git_commit_free(head.commit)
            git_tree_free(head.tree)
        } else {
            // A repository with no commit yet (`git init` by hand): the vault as it is becomes
            // its first commit, as `vault init` makes it; the change then gets its own.
            try commitAll(message: "init: vault (the repository had no commit yet)")
        }
        let head = try headCommit()
        defer { head.map { git_commit_free($0.commit); git_tree_free($0.tree) } }
        let editor = trees
        let rootID = head.map { git_tree_id($0.tree).pointee }
        var edited: [String] = []
        var added: [String] = []
        for path in paths {
            // A symbolic link is compared as git does: its text and its kind, never its target.
            let onDisk = try blobEntry(ofFile: path, known: known[path])
            let committed = try rootID.flatMap { id throws(VaultError) in try editor.entry(at: path, in: id) }
            switch (onDisk, committed) {
            case (nil, nil): continue
            case (let a?, let b?) where GitHistory.same(a.oid, b.oid) && a.isLink == b.isLink: continue
            case (let a?, nil) where !a.isLink:
                edited.append(path)
                added.append(path)
            default: edited.append(path)
            }
        }
        Trace.mark("prepare: hand edits checked")
        if !edited.isEmpty {
            // A file new to HEAD may be one renamed by hand: its old path goes in the same commit.
            let renames = try head.map { h throws(VaultError) in try handRenames(of: added, head: h.commit) } ?? []
            let renamed = Set(renames.map(\.to))
            let others = edited.filter { !renamed.contains($0) }
            edited += renames.flatMap { [$0.from] + $0.alongside }
            // A room saved from a buffer older than messages that arrived gets them back first.
            let kept = try head.map { h throws(VaultError) in try keepingWhatArrived(in: edited, head: h.commit) } ?? []
            for note in kept { notes(Note(reported: note)) }
            // The hand-edit commit of the change path (`Change.commitHandEdits` calls this).
            let named = renames.map { "\($0.from) renamed to \($0.to)" } + others
            try commit(
                edited,
                message: "edit: " + GitHistory.list(named)
                    + (kept.isEmpty ? "" : " (kept messages a stale save lacked)"))
            // A renamed room's unverified marks go with it.
            for r in renames { UnverifiedMarks.move(from: r.from, to: r.to, root: root) }
        }
        return edited
    }

    /// Paths as a commit's subject names them: all of them up to five, else the first five and
    /// how many more (`a.md, b.md, c.md, d.md, e.md and 3 more`).
    static func list(_ paths: [String]) -> String {
        paths.count > 5
            ? paths.prefix(5).joined(separator: ", ") + " and \(paths.count - 5) more" : paths.joined(separator: ", ")
    }

    public func willChange(_ paths: [String]) {
        CommitIntent.add(paths, root: root)
    }

    /// A commit of at least this many files writes its objects into one pack
    /// (`cvault_odb_writer_begin_pack`): 256 loose objects are what git's `gc.auto` would
    /// leave in one of its 256 fan-out folders before packing.
    static let packedCommitFiles = 256

    @discardableResult
    public func commit(_ paths: [String], message: String, known: [String: KnownFile]) throws(VaultError) -> Bool {
        Trace.mark("commit: start")
        if !recovering { CrashPoint.reach("before-commit") }
        try checkReady()
        let head = try headCommit()
        defer { head.map { git_commit_free($0.commit); git_tree_free($0.tree) } }
        // The commit's objects (blobs, trees, the commit) are written as one batch, made durable
        // together just before the branch moves (`makeCommit`); a commit not made leaves none.
        // A commit of many files (an import) writes them into one pack instead of a loose file
        // each: thousands of files fewer to create and flush, and no repack to start after it.
        if paths.count >= GitHistory.packedCommitFiles {
            try GitFailure.check(cvault_odb_writer_begin_pack(objects.writer), "start a pack for the commit's objects")
        } else {
            cvault_odb_writer_begin_batch(objects.writer)
        }
        defer { cvault_odb_writer_abandon_batch(objects.writer) }
        var changes: [(path: String, oid: git_oid?, isLink: Bool)] = []
        let oldRootID = head.map { git_tree_id($0.tree).pointee }
        for path in Set(paths).sorted() {
            switch try workFile(path) {
            case .missing:
                changes.append((path, nil, false))
            case .link(let text):
                // As git commits a link: its own text, never what it points to.
                changes.append((path, try writeBlob(text), true))
            case .file(let size) where size < GitHistory.largeFileSize:
                // A small file the change holds, still that version: its bytes, not read again.
                if let bytes = current(known[path], of: path, size: size) {
                    changes.append((path, try writeBlob(bytes), false))
                } else {
                    changes.append((path, try writeBlob(ofFile: path, size: size, replacing: nil), false))
                }
            case .file(let size):
                // A large file reuses the compressed pieces of the blob it replaces (LargeBlobs.swift).
                var previous: git_oid?
                if size >= GitHistory.largeFileSize, let rootID = oldRootID {
                    previous = try trees.blob(at: path, in: rootID)
                }
                changes.append((path, try writeBlob(ofFile: path, size: size, replacing: previous), false))
            }
        }
        Trace.mark("commit: blobs written")
        // git's index lock is taken now, and the new index written into it on another core
        // while the trees and the commit are written; it replaces the index once the branch moved.
        let lock = try IndexLock(gitDirectory: gitDirectory)
        let updates = changes.map { IndexPatcher.Update(path: $0.path, oid: $0.oid) }
        let pending = PendingIndex()
        var made = false
        let group = DispatchGroup()
        let workdir = root
        DispatchQueue.global().async(group: group) {
            pending.written = lock.patch(updates, workdir: workdir)
            if pending.written { Trace.mark("commit: index written (other core)") }
        }
        do {
            let oldRoot = head.map { git_tree_id($0.tree).pointee }
            var newRoot: git_oid
            if let edited = try trees.apply(changes, to: oldRoot) {
                newRoot = edited
            } else {
                newRoot = try emptyTreeID()
            }
            Trace.mark("commit: trees written")
            // A repository with no commit yet gets this one as its first (unless it holds nothing).
            let unchanged: Bool
            if var old = oldRoot {
                unchanged = git_oid_equal(&old, &newRoot) != 0
            } else {
                unchanged = changes.allSatisfy { $0.oid == nil }
            }
            if !unchanged {
                try makeCommit(tree: newRoot, parent: head?.commit, message: message)
                made = true
                Trace.mark("commit: commit made, branch moved")
            }
        } catch {
            group.wait()
            lock.release()
            throw error
        }
        group.wait()
        try finishIndex(lock, patched: pending.written, paths: changes.map(\.path))
        Trace.mark("commit: index updated")
        CommitIntent.remove(paths, root: root)
        if head == nil {
            // The first commit of a repository made by hand holds only `paths`: the vault's other
            // files follow in a commit of their own, so `git status` is clean.
            try commitAll(message: "init: the vault's other files (the repository had no commit yet)")
        }
        if packIfNeeded() { Trace.mark("commit: git repack started") }
        return made
    }

    /// Reads HEAD's root tree and the tree of `folder` into the tree cache (errors are left
    /// for the commit to meet and report).
    func readTrees(to folder: String) {
        guard let head = try? headCommit() else { return }
        defer { git_commit_free(head.commit); git_tree_free(head.tree) }
        guard let root = try? trees.read(git_tree_id(head.tree).pointee),
            let entry = TreeEditor.find(root, Array(folder.utf8), isTree: true), TreeEditor.isTreeMode(root, entry.mode)
        else { return }
        _ = try? trees.read(TreeEditor.oid(root, at: entry.oid))
    }

    // MARK: Commit pieces

    /// HEAD's commit and tree, or `nil` for a repository with no commit yet.
    func headCommit() throws(VaultError) -> (commit: OpaquePointer, tree: OpaquePointer)? {
        var ref: OpaquePointer?
        let code = git_repository_head(&ref, repo)
        if code == GIT_EUNBORNBRANCH.rawValue || code == GIT_ENOTFOUND.rawValue { return nil }
        try GitFailure.check(code, "read HEAD")
        defer { git_reference_free(ref) }
        var commit: OpaquePointer?
        try GitFailure.check(git_reference_peel(&commit, ref, GIT_OBJECT_COMMIT), "read HEAD's commit")
        var tree: OpaquePointer?
        let treeCode = git_commit_tree(&tree, commit)
        if treeCode < 0 { git_object_free(commit) }
        try GitFailure.check(treeCode, "read HEAD's tree")
        return (commit!, tree!)
    }

    func emptyTreeID() throws(VaultError) -> git_oid {
        try objects.write(UnsafeRawBufferPointer(start: nil, count: 0), type: GIT_OBJECT_TREE, "write an empty tree")
    }

    func writeBlob(_ bytes: [UInt8]) throws(VaultError) -> git_oid {
        try objects.write(bytes, type: GIT_OBJECT_BLOB, "write a file into the repository")
    }

    func makeCommit(tree treeID: git_oid, parent: OpaquePointer?, message: String) throws(VaultError) {
        var treeOID = treeID
        var tree: OpaquePointer?
        try GitFailure.check(git_tree_lookup(&tree, repo, &treeOID), "read the new tree")
        defer { git_tree_free(tree) }
        let signature: UnsafeMutablePointer<git_signature>? = try signatureNow("make the commit's author")
        defer { git_signature_free(signature) }
        var commitID = git_oid()
        try createCommit(
            &commitID, author: signature!, committer: signature!, message: withMachine(message), tree: tree,
            parents: parent.map { [$0] } ?? [])
        // The branch is locked, compared with `parent` and its new id written into the lock before
        // anything is flushed: the lock file then reaches the disk together with the objects
        // (flushed at once, one wait on the disk for all of them), and a branch another program
        // moved meanwhile stops the commit before any object is flushed.
        let branch = try currentBranch()
        let move = try lockBranch(
            branch, from: parent.map { git_commit_id($0).pointee }, to: commitID, message: "vault: " + message,
            by: signature!.pointee)
        // Every object the commit names is on disk before the branch names it.
        var lockFile = [move.lock.fd]
        let flushed = withCStrings([move.lock.lockPath]) { names in
            cvault_odb_writer_flush_batch_with(objects.writer, &lockFile, names.baseAddress, 1)
        }
        try GitFailure.check(flushed, "write the new objects to disk")
        // With no descriptor left (`ulimit -n`), `git_commit_create` was seen to succeed after
        // every write of the commit's object failed: the branch then named a missing commit.
        // The branch never moves to an object that is not there.
        guard git_odb_exists(objects.odb, &commitID) == 1 else {
            throw GitFailure.error(-1, "write the commit")
        }
        Trace.mark("commit: objects flushed")
        if !recovering { CrashPoint.reach("objects-written") }
        try finish(move)
        // Made here as this machine's person: checked as it is made (`AuthorshipCheckpoint`).
        AuthorshipCheckpoint.advance(from: parent.map { oidString(git_commit_id($0)) }, to: oidString(&commitID), root: root)
        if !recovering { CrashPoint.reach("branch-moved") }
    }

    /// Moves `branch` (`refs/heads/main`) from `old` (nil: it must not exist yet) to `new`, as
    /// git does: under its lock (`refs/heads/main.lock`, taken as a `HeldLock` so that a vault
    /// killed while holding it leaves a lock the next vault can prove stale and remove), the
    /// branch compared with `old` (compare-and-swap), the new id written and flushed, renamed
    /// into place, a line appended to its log and to HEAD's, then its folder and both logs
    /// flushed at once. A commit does the same in two parts (`lockBranch`, `finish`), the
    /// lock flushed with its objects.
    ///
    /// A lock held by another git program is waited for up to a second (git's own ref locks
    /// last milliseconds). `whenMoved` ends the error when the branch is no longer at `old`.
    func moveBranch(
        _ branch: String, from old: git_oid?, to new: git_oid, message: String, by who: git_signature,
        whenMoved: String = "your files are saved, run the command again to commit them"
    ) throws(VaultError) {
        let move = try lockBranch(branch, from: old, to: new, message: message, by: who, whenMoved: whenMoved)
        try move.lock.flush(target: move.refPath)
        try finish(move)
    }

    /// A branch about to move: its lock held, holding the new id (not flushed yet), and the line
    /// its logs get.
    struct BranchMove {
        let lock: HeldLock
        /// The ref's file, e.g. `.git/refs/heads/main`.
        let refPath: String
        /// "<old> <new> <name> <<email>> <time> <zone>\t<message>\n"
        let logEntry: String
        let logs: [String]
    }

    /// Takes `branch`'s lock, checks that the branch is still at `old` (compare-and-swap) and
    /// writes `new` into the lock. Nothing is flushed nor renamed yet: `finish` does that.
    func lockBranch(
        _ branch: String, from old: git_oid?, to new: git_oid, message: String, by who: git_signature,
        whenMoved: String = "your files are saved, run the command again to commit them"
    ) throws(VaultError) -> BranchMove {
        let refPath = gitDirectory + "/" + branch
        try FileIO.makeDirectory(FileIO.parent(of: refPath))
        let lock = try HeldLock(
            gitDirectory: gitDirectory, name: branch + ".lock", timeout: 1,
            whenLocked: "Your files are saved: run the command again to commit them.")
        var current = git_oid()
        let found = git_reference_name_to_id(&current, repo, branch)
        if found != 0 && found != GIT_ENOTFOUND.rawValue {
            lock.release()
            throw GitFailure.error(found, "read \(branch)")
        }
        let moved = old.map { found != 0 || !GitHistory.same(current, $0) } ?? (found == 0)
        if moved {
            lock.release()
            throw VaultError.repository(.branchMoved(branch: branch, outcome: whenMoved))
        }
        let line = Array((GitHistory.hex(new) + "\n").utf8)
        guard line.withUnsafeBytes(lock.write) else {
            let reason = String(cString: strerror(errno))
            lock.release()
            throw VaultError.repository(.cannotWrite(path: refPath, reason: reason))
        }
        // The logs: "<old> <new> <name> <<email>> <time> <zone>\t<message>".
        let minutes = Int(who.when.offset)
        let zone = String(format: "%@%02d%02d", minutes < 0 ? "-" : "+", abs(minutes) / 60, abs(minutes) % 60)
        let oldHex = old.map(GitHistory.hex) ?? String(repeating: "0", count: 40)
        let summary = message.map { $0 == "\n" || $0 == "\r" ? " " : $0 }
        let person = "\(String(cString: who.name)) <\(String(cString: who.email))>"
        let entry = "\(oldHex) \(GitHistory.hex(new)) \(person) \(who.when.time) \(zone)\t\(String(summary))\n"
        return BranchMove(
            lock: lock, refPath: refPath, logEntry: entry,
            logs: [gitDirectory + "/logs/" + branch, gitDirectory + "/logs/HEAD"])
    }

    /// Moves the branch: the lock (flushed by the caller) renamed over the ref, the line
    /// appended to both logs, then the ref's folder and the logs flushed at once
    /// (`cvault_fsync_together`: one wait on the disk instead of three).
    func finish(_ move: BranchMove) throws(VaultError) {
        try move.lock.finish(renamingTo: move.refPath, durable: false)
        let logs = move.logs.map { GitHistory.append(move.logEntry, toLog: $0) }
        let folder = open(FileIO.parent(of: move.refPath), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        let files = (logs + [folder]).filter { $0 >= 0 }
        // A log that cannot be flushed loses only history of the ref's moves, as with git.
        _ = cvault_fsync_together(files, files.count)
        for fd in files { close(fd) }
    }

    /// Appends a line to a ref's log, not flushed yet: returns the open log for its flush, or
    /// -1 (a log that cannot be written loses only history of the ref's moves, as with git).
    static func append(_ line: String, toLog path: String) -> Int32 {
        try? FileIO.makeDirectory(FileIO.parent(of: path))
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return -1 }
        let bytes = Array(line.utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        return fd
    }

    /// The branch HEAD points at, e.g. `refs/heads/main`.
    func currentBranch() throws(VaultError) -> String {
        var head: OpaquePointer?
        try GitFailure.check(git_reference_lookup(&head, repo, "HEAD"), "read HEAD")
        defer { git_reference_free(head) }
        guard git_reference_type(head) == GIT_REFERENCE_SYMBOLIC, let target = git_reference_symbolic_target(head)
        else {
            throw VaultError.repository(.detachedHead(root: root))
        }
        return String(cString: target)
    }

    /// git's index with each of `updates` as the file on disk now holds it, the file just written
    /// from that blob (nil: removed): the records spliced by `IndexPatcher` (stat data from the
    /// files, no file read or hashed), as a commit's are, instead of libgit2's reading the whole
    /// index, hashing each file and writing the index back (a sync's merge of 100 rooms on a
    /// 50,000-file vault: 89 ms). An index the patcher leaves alone (conflicts, another version,
    /// none yet) goes to libgit2 (`updateIndexWithLibgit2`).
    func updateIndex(_ updates: [IndexPatcher.Update]) throws(VaultError) {
        let lock = try IndexLock(gitDirectory: gitDirectory)
        try finishIndex(lock, patched: lock.patch(updates, workdir: root), paths: updates.map(\.path))
    }

    /// The index `lock` holds put in place when `patched` (`IndexLock.patch`), else the lock
    /// given up and `paths` brought up to date by libgit2.
    func finishIndex(_ lock: IndexLock, patched: Bool, paths: [String]) throws(VaultError) {
        if patched {
            try lock.finish()
        } else {
            lock.release()
            try updateIndexWithLibgit2(paths)
        }
    }

    func updateIndexWithLibgit2(_ paths: [String]) throws(VaultError) {
        var index: OpaquePointer?
        try GitFailure.check(git_repository_index(&index, repo), "open the index")
        defer { git_index_free(index) }
        try GitFailure.check(git_index_read(index, 0), "read the index")
        for path in paths {
            if FileIO.entryExists(root + "/" + path) {
                try GitFailure.check(git_index_add_bypath(index, path), "add \(path) to the index")
            } else if git_index_get_bypath(index, path, 0) != nil {
                try GitFailure.check(git_index_remove_bypath(index, path), "remove \(path) from the index")
            }
        }
        try GitFailure.check(git_index_write(index), "write the index")
    }

    /// Commits every vault file that differs from HEAD (used by `vault init`).
    func commitAll(message: String) throws(VaultError) {
        try checkReady()
        var index: OpaquePointer?
        try GitFailure.check(git_repository_index(&index, repo), "open the index")
        defer { git_index_free(index) }
        let specs = [
            VaultPath.config, ".gitattributes", ".gitignore", VaultPath.rooms, VaultPath.diary, VaultPath.attachments,
        ]
        let code = withCStrings(specs) { ptrs -> Int32 in
            let mutable = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>(OpaquePointer(ptrs.baseAddress))
            var array = git_strarray(strings: mutable, count: ptrs.count)
            let added = git_index_add_all(index, &array, 0, nil, nil)
            return added < 0 ? added : git_index_update_all(index, &array, nil, nil)
        }
        try GitFailure.check(code, "add the vault's files to the index")
        try GitFailure.check(git_index_write(index), "write the index")
        var tree = git_oid()
        try GitFailure.check(git_index_write_tree(&tree, index), "write the tree")
        let head = try headCommit()
        defer { head.map { git_commit_free($0.commit); git_tree_free($0.tree) } }
        if var old = head.map({ git_tree_id($0.tree).pointee }), git_oid_equal(&old, &tree) != 0 { return }
        try makeCommit(tree: tree, parent: head?.commit, message: message)
    }

    // MARK: Safety checks

    /// Refuses to commit over a merge or rebase in progress, or through a stale lock.
    func checkReady() throws(VaultError) {
        let state = git_repository_state(repo)
        if state != GIT_REPOSITORY_STATE_NONE.rawValue {
            let what: String
            switch git_repository_state_t(rawValue: UInt32(state)) {
            case GIT_REPOSITORY_STATE_MERGE:
                // Not `git commit`: it would commit git's half-merged files and drop the other side's text.
                what = "a merge (`vault resolve` finishes it with vault's merge, keeping both sides;"
                    + " `git merge --abort` cancels it)"
            case GIT_REPOSITORY_STATE_REBASE, GIT_REPOSITORY_STATE_REBASE_INTERACTIVE,
                GIT_REPOSITORY_STATE_REBASE_MERGE:
                what = "a rebase (finish it with `git rebase --continue`, or `git rebase --abort`)"
            case GIT_REPOSITORY_STATE_CHERRYPICK, GIT_REPOSITORY_STATE_CHERRYPICK_SEQUENCE: what = "a cherry-pick"
            case GIT_REPOSITORY_STATE_REVERT, GIT_REPOSITORY_STATE_REVERT_SEQUENCE: what = "a revert"
            case GIT_REPOSITORY_STATE_BISECT: what = "a bisect (`git bisect reset` ends it)"
            default: what = "another git operation"
            }
            throw VaultError.repository(.operationInProgress(root: root, operation: what))
        }
        // Commits go on a branch: a detached HEAD is refused before any file is touched.
        _ = try currentBranch()
        // Locks of vault processes that were killed are provably stale: removed (`HeldLock`).
        HeldLock.removeLocksOfDeadVaults(gitDirectory: gitDirectory)
        let stale = GitHistory.lockFiles(in: gitDirectory).filter { FileIO.exists($0) }
        if let lock = stale.first {
            throw VaultError.repository(.lockFileExists(path: lock, outcome: "Your files are unchanged."))
        }
    }

    var gitDirectory: String {
        var path = String(cString: git_repository_path(repo))
        if path.hasSuffix("/") { path.removeLast() }
        return path
    }

    /// The lock files a crashed git program can leave behind that block vault's commits.
    static func lockFiles(in gitDir: String) -> [String] {
        var locks = [gitDir + "/index.lock", gitDir + "/HEAD.lock"]
        if let head = try? FileIO.read(gitDir + "/HEAD") {
            let text = String(decoding: head, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if text.hasPrefix("ref: ") { locks.append(gitDir + "/" + text.dropFirst(5) + ".lock") }
        }
        return locks
    }
}

/// Calls `body` with C strings for `strings`, valid during the call.
func withCStrings<R>(_ strings: [String], _ body: (UnsafeBufferPointer<UnsafePointer<CChar>?>) -> R) -> R {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    let pointers = copies.map { UnsafePointer($0) }
    return pointers.withUnsafeBufferPointer(body)
}

/// Whether the new index was written into the lock on another thread while the commit was made.
final class PendingIndex: @unchecked Sendable {
    // Written by one task before `DispatchGroup.wait()` returns, read after it.
    var written = false
}
