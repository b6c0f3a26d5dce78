import CGit2
import CVaultObjects
import Foundation
import VaultCore

/// `vault sync`: the vault's changes meet another machine's through a git remote, and nothing
/// is lost on the way.
///
/// One sync, as `sync(remote:)` runs it:
/// 1. fetch the remote (`git fetch`, no lock held: a chat turn can go on meanwhile);
/// 2. under the vault's lock: commit hand edits as their own commit (`edit: …`), then merge the
///    remote's branch with vault's own merge (`TreeMerge`), check that every message and entry
///    of both sides is in the result, write the changed files, and move the branch to the merge
///    commit (two parents), or fast-forward it;
/// 3. push (`git push`, never forced); a push the remote refuses because it moved meanwhile
///    starts again at 1, at most `attempts` times.
///
/// The state before the first merge is kept in `refs/vault/sync/before` for `undo()`
/// (`VaultSync+Undo.swift`). The whole sync holds the sync lock (`.vault/sync-lock`: a second
/// sync waits), and a remote that is not this vault is refused after the fetch, before
/// anything is merged (`VaultSync+Safety.swift`).
public final class VaultSync {
    public let vault: Vault
    let history: GitHistory
    let git: GitTransport
    /// Whether git and ssh may ask the person for a password (a terminal is attached).
    public var interactive = false
    /// Where the fetches and the push report how far they are (objects received, deltas
    /// resolved, objects sent), then `ProgressEvent.ended` after each; nil (the default): git
    /// and libgit2 are not asked for progress at all.
    public var onProgress: ProgressHandler?
    /// The `git` command when it is installed, else libgit2 (remotes on this machine only).
    var transport: any RemoteTransport {
        GitTransport.isInstalled(environment: git.environment)
            ? GitCommandTransport(git: git, interactive: interactive, progress: onProgress)
            : LibGit2Transport(history: history, progress: onProgress)
    }
    /// How many times a push the remote refused is tried again after a new fetch and merge.
    public var attempts = 3
    /// Whether a remote whose branch is not this vault (no `vault.yml`, no common commit) may be
    /// merged all the same (`--allow-unrelated`); refused by default (`refuseRemoteOfAnotherKind`).
    public var allowUnrelated = false
    /// Asked which rooms and diary entries changed since the last sync, instead of stamping
    /// every file (`GitHistory.workTreeChanges(asking:)`); nil: every file is stamped.
    public var watcher: (any WorkTreeWatcher)?
    /// This machine's caps on what comes in (the defaults with the user configuration's
    /// `limits:`, given by the front end), before the vault's git config and `vault.yml`
    /// (`GitHistory.incomingLimits(machine:vault:)`): a `vault.yml` that came in lowers them, never raises them.
    public var machineLimits = IncomingLimits()

    static let beforeRef = "refs/vault/sync/before"
    static let afterRef = "refs/vault/sync/after"
    static let undoneRef = "refs/vault/sync/undone"
    static let dryRunPrefix = "refs/vault/dry-run/"

    public init(vault: Vault, history: GitHistory, environment: [String: String] = ProcessInfo.processInfo.environment)
    {
        self.vault = vault.history === history ? vault : vault.with(history: history)
        self.history = history
        self.git = GitTransport(root: vault.root, environment: environment)
    }

    // MARK: Sync

    /// Syncs with `remote` (nil: the branch's upstream remote, else `origin`, else the only one).
    public func sync(remote name: String? = nil) throws(VaultError) -> SyncReport {
        let (syncLock, cleared) = try holdSyncLock()
        defer { withExtendedLifetime(syncLock) {} }
        let remote = try history.syncRemote(named: name)
        let branch = try history.branchName()
        var report = SyncReport(remote: remote)
        report.notes += cleared
        var savedBefore = false
        for attempt in 1...max(1, attempts) {
            Trace.mark("sync: fetch")
            try transport.fetch(remote: remote)
            Trace.mark("sync: fetched")
            try refuseRemoteOfAnotherKind(remote, branch: branch)
            Trace.mark("sync: remote's kind checked")
            let theirsRef = "refs/remotes/\(remote)/\(branch)"
            // What came in passes the gate before anything is committed, merged or written.
            try admit(theirsRef)
            Trace.mark("sync: incoming trees checked")
            // One change: its commits before the merge are changes of their own (repairs, the
            // merge driver's `.gitattributes`), then hand edits are committed first as for every
            // change (`Change.commitHandEdits`), and the merge is the change's one commit.
            // What this attempt committed before a failure: said with the error, never "nothing was written".
            var committedFirst: [String] = []
            let step: MergeStep
            do {
                step = try vault.change { change throws(VaultError) -> MergeStep in
                    Trace.mark("sync: vault locked")
                    // What plain git left (an unfinished merge, markers in changed files) is repaired first.
                    let scan = try history.workTreeChanges(asking: watcher)
                    var edits = scan.paths
                    Trace.mark("sync: work tree read")
                    let resolve = VaultResolve(vault: vault, history: history)
                    resolve.machineLimits = machineLimits
                    let repaired = try resolve.repair(
                        candidates: try history.locallyChangedPaths(since: theirsRef, workTree: edits), copies: false,
                        before: change)
                    report.notes += repaired
                    committedFirst += repaired
                    if !repaired.isEmpty { edits = try history.workTreeChanges() }
                    Trace.mark("sync: repair checked")
                    try history.ensureMergeDriver(in: change)
                    change.include(edits)
                    let shown = history.report
                    history.report = { report.notes.append($0) }
                    defer { history.report = shown }
                    let committed = try change.commitHandEdits()
                    try history.keepWatch(scan)
                    report.handEdits += committed
                    report.notes += SyncReport.conflictCopyNotes(committed, committed: true, in: vault)
                    committedFirst += committed.map { "\($0) (your hand edit)" }
                    Trace.mark("sync: hand edits committed")
                    var step = MergeStep()
                    try change.commit { () throws(VaultError) -> Bool in
                        step = try merge(
                            theirsRef: theirsRef, describe: "\(remote)/\(branch)", saveBefore: !savedBefore)
                        return step.merged
                    }
                    Trace.mark("sync: merged")
                    return step
                }
            } catch {
                throw committedFirst.isEmpty ? error : VaultError.stoppedAfter(error, done: committedFirst)
            }
            savedBefore = savedBefore || step.merged
            report.absorb(step)
            guard try history.isAhead(of: theirsRef) else {
                report.pushed = false
                return report
            }
            Trace.mark("sync: push")
            switch try transport.push(remote: remote, branch: branch) {
            case .pushed:
                Trace.mark("sync: pushed")
                try rememberUpstream(remote, branch: branch)
                report.pushed = true
                return report
            case .rejected(let why):
                report.retries = attempt
                if attempt == max(1, attempts) {
                    throw VaultError.repository(.pushKeptRefused(remote: remote, reason: why, attempts: attempt))
                }
            }
        }
        return report
    }

    /// What a sync would bring in and send out, without changing the vault, its refs or the remote.
    public func dryRun(remote name: String? = nil) throws(VaultError) -> SyncReport {
        let syncLock = try holdSyncLock().lock
        defer { withExtendedLifetime(syncLock) {} }
        let remote = try history.syncRemote(named: name)
        let branch = try history.branchName()
        let probe = VaultSync.dryRunPrefix + branch
        defer { history.deleteReference(probe) }
        _ = try transport.fetch(remote: remote, branch: branch, into: probe)
        try admit(probe)
        var report = SyncReport(remote: remote)
        report.dryRun = true
        report.pendingHandEdits = try history.workTreeChanges()
        report.notes += SyncReport.conflictCopyNotes(report.pendingHandEdits, committed: false, in: vault)
        guard let theirs = try history.referenceCommit(probe) else {
            report.outgoingCommits = try history.commitCount(from: "HEAD", notIn: nil)
            return report
        }
        defer { git_commit_free(theirs) }
        guard let head = try history.headCommit() else { return report }
        defer { git_commit_free(head.commit); git_tree_free(head.tree) }
        let (ahead, behind) = try history.aheadBehind(head.commit, theirs)
        report.outgoingCommits = ahead
        report.incomingCommits = behind
        if behind > 0 {
            // Nothing the plan writes is kept.
            cvault_odb_writer_begin_batch(history.objects.writer)
            defer { cvault_odb_writer_abandon_batch(history.objects.writer) }
            let plan = try plannedMerge(ours: head, theirs: theirs)
            var described = try describe(plan, oursTree: head.tree, merged: ahead > 0)
            try checkAuthors(&described, merge: plan.outcome, ours: head.commit, theirs: theirs)
            report.absorb(described)
        }
        return report
    }

    // MARK: Steps

    /// Checks the commit `ref` names with `IncomingTree` against HEAD's tree, unless HEAD has it
    /// already; throws `UntrustedInput` naming the commit and the path, with nothing changed.
    private func admit(_ ref: String) throws(VaultError) {
        guard let theirs = try history.referenceCommit(ref) else { return }
        defer { git_commit_free(theirs) }
        if let head = try history.headCommit() {
            defer { git_commit_free(head.commit); git_tree_free(head.tree) }
            if history.has(theirs, in: head.commit) { return }
        }
        try history.admit(commit: theirs, limits: try history.incomingLimits(machine: machineLimits, vault: vault.config.limits))
    }

    struct MergeStep {
        var merged = false
        var fastForward = false
        var report = SyncReport(remote: "")
    }

    /// Merges the commit `theirsRef` names into HEAD (inside the vault's lock).
    private func merge(theirsRef: String, describe name: String, saveBefore: Bool) throws(VaultError) -> MergeStep {
        var step = MergeStep()
        guard var theirs = try history.referenceCommit(theirsRef) else { return step }  // the remote has no branch yet
        defer { git_commit_free(theirs) }
        guard let head = try history.headCommit() else {
            // A vault with no commit yet takes the remote's history as it is.
            throw VaultError.repository(.noCommits)
        }
        defer { git_commit_free(head.commit); git_tree_free(head.tree) }
        let oursID = git_commit_id(head.commit).pointee
        if history.has(theirs, in: head.commit) { return step }  // nothing new there
        let repairs = try IncomingMarkers(history: history).repair(&theirs, against: head.tree)  // markers came in
        if saveBefore { try history.setReference(VaultSync.beforeRef, to: oursID) }
        // The merge's objects are written as one batch, made durable just before the branch moves.
        cvault_odb_writer_begin_batch(history.objects.writer)
        defer { cvault_odb_writer_abandon_batch(history.objects.writer) }
        Trace.mark("sync merge: start")
        let plan = try plannedMerge(ours: head, theirs: theirs)
        Trace.mark("sync merge: planned (\(plan.changes.count) changes)")
        let newCommit: git_oid
        if plan.fastForward {
            newCommit = git_commit_id(theirs).pointee  // not theirsID: the markers' repair may have moved it
        } else {
            let newTree = try history.trees.apply(
                plan.changes.map { ($0.path, $0.oid) }, to: git_tree_id(head.tree).pointee)
            Trace.mark("sync merge: tree written")
            guard let newTree else {
                throw VaultError.internal(
                    InternalError(
                        "the merge would leave the vault empty",
                        context: "ours \(oidString(git_commit_id(head.commit)).prefix(12)),"
                            + " theirs \(oidString(git_commit_id(theirs)).prefix(12))"))
            }
            try verify(plan: plan, ours: head, theirs: theirs, result: newTree)
            Trace.mark("sync merge: verified")
            let summary = try describe(plan, oursTree: head.tree, merged: true)
            Trace.mark("sync merge: described")
            newCommit = try history.writeCommit(
                tree: newTree, parents: [head.commit, theirs], message: "sync: merge \(name)\(summary.subjectSuffix)")
            Trace.mark("sync merge: commit written, objects flushed")
        }
        step.report = try describe(plan, oursTree: head.tree, merged: !plan.fastForward)
        step.report.notes = repairs + step.report.notes
        Trace.mark("sync merge: report described")
        // Whether each message's commit bears out its author (a claim to be me that it does not is unread).
        try checkAuthors(&step.report, merge: plan.outcome, ours: head.commit, theirs: theirs)
        try history.checkoutAndMoveBranch(
            plan.changes, replacing: head.tree, to: newCommit, from: head.commit, message: "vault: sync \(name)")
        try history.setReference(VaultSync.afterRef, to: newCommit)
        UnverifiedMarks.add(step.report.unverifiedMarks, root: vault.root)
        // What I wrote myself, on another machine, is never unread.
        UnreadMarks.add(
            step.report.rooms.map { room in (room.path, room.newMessageIDs.filter { !room.ownMessageIDs.contains($0) }) },
            root: vault.root)
        step.merged = true
        step.fastForward = plan.fastForward
        return step
    }

    struct Plan {
        var changes: [TreeMerge.Change]
        var outcome: TreeMerge.Outcome
        var fastForward: Bool
        /// The common ancestor's commit (nil: a fast-forward, or no common history).
        var base: git_oid?
    }

    /// The changes to HEAD's tree a merge with `theirs` makes (blobs written, nothing else).
    private func plannedMerge(ours head: (commit: OpaquePointer, tree: OpaquePointer), theirs: OpaquePointer)
        throws(VaultError)
        -> Plan
    {
        var oursID = git_commit_id(head.commit).pointee
        var theirsID = git_commit_id(theirs).pointee
        var theirsTree: OpaquePointer?
        try GitFailure.check(git_commit_tree(&theirsTree, theirs), "read the remote's tree")
        defer { git_tree_free(theirsTree) }
        if git_graph_descendant_of(history.repo, &theirsID, &oursID) == 1 {
            let changes = try history.directChanges(from: head.tree, to: theirsTree!)
            return Plan(changes: changes, outcome: TreeMerge.Outcome(), fastForward: true)
        }
        var baseID = git_oid()
        var baseTree: OpaquePointer?
        let found = git_merge_base(&baseID, history.repo, &oursID, &theirsID)
        Trace.mark("sync merge: merge base found")
        if found == 0 {
            var baseCommit: OpaquePointer?
            try GitFailure.check(git_commit_lookup(&baseCommit, history.repo, &baseID), "read the common ancestor")
            defer { git_commit_free(baseCommit) }
            try GitFailure.check(git_commit_tree(&baseTree, baseCommit), "read the common ancestor's tree")
        } else if found != GIT_ENOTFOUND.rawValue {
            try GitFailure.check(found, "find the common ancestor")
        }
        defer { git_tree_free(baseTree) }
        let merge = TreeMerge(history: history)
        let outcome = try merge.merge(
            base: baseTree, ours: history.side(head.commit, tree: head.tree),
            theirs: history.side(theirs, tree: theirsTree!))
        return Plan(changes: outcome.changes, outcome: outcome, fastForward: false, base: found == 0 ? baseID : nil)
    }

    /// Before the merge commit is written: the text of every version of every message and diary
    /// entry either side made is in the result (`Integrity.lost`), in the merged file or in a
    /// conflict copy. Otherwise nothing is changed and the sync stops.
    private func verify(
        plan: Plan, ours: (commit: OpaquePointer, tree: OpaquePointer), theirs: OpaquePointer, result: git_oid
    ) throws(VaultError) {
        var theirsTree: OpaquePointer?
        try GitFailure.check(git_commit_tree(&theirsTree, theirs), "read the remote's tree")
        defer { git_tree_free(theirsTree) }
        var oursID = git_commit_id(ours.commit).pointee
        var theirsID = git_commit_id(theirs).pointee
        var baseID = git_oid()
        var baseTree: OpaquePointer?
        if git_merge_base(&baseID, history.repo, &oursID, &theirsID) == 0 {
            var c: OpaquePointer?
            if git_commit_lookup(&c, history.repo, &baseID) == 0 {
                _ = git_commit_tree(&baseTree, c)
                git_commit_free(c)
            }
        }
        defer { git_tree_free(baseTree) }
        // The paths either side changed: only they can have lost anything. The result's version
        // of each is the change's, else ours (the result tree is ours with the changes applied).
        var resultBlobs: [String: git_oid?] = [:]
        for change in plan.changes { resultBlobs[change.path] = change.oid }
        var paths = Set(plan.changes.map(\.path))
        for (from, to) in plan.outcome.renamed { paths.insert(from); paths.insert(to) }
        // A file renamed on both sides, differently: its base version is under the base's name.
        for p in plan.outcome.movedFromBase { paths.insert(p) }
        for p in plan.outcome.keptEdits { paths.insert(p) }
        var versions = (base: [String: [UInt8]](), ours: [String: [UInt8]](), theirs: [String: [UInt8]](),
            result: [String: [UInt8]]())
        func read(_ blob: git_oid??, _ path: String, into map: inout [String: [UInt8]]) throws(VaultError) {
            if case .some(.some(let id)) = blob { map[path] = try history.blobBytes(id) }
        }
        for path in paths where [.room, .volume, .diaryEntry].contains(VaultPath.kind(of: path)) {
            let oursBlob = history.blob(at: path, in: ours.tree)
            try read(oursBlob, path, into: &versions.ours)
            try read(history.blob(at: path, in: theirsTree), path, into: &versions.theirs)
            try read(history.blob(at: path, in: baseTree), path, into: &versions.base)
            try read(resultBlobs[path] ?? oursBlob, path, into: &versions.result)
        }
        let missing = Integrity.lost(
            base: versions.base, ours: versions.ours, theirs: versions.theirs, result: versions.result)
        if !missing.isEmpty {
            let lost = missing.prefix(5).joined(separator: "; ")
            throw VaultError.internal(
                InternalError(
                    "the merge would lose the text of \(missing.count) version(s) (\(lost))",
                    context: "the remote's commit is \(oidString(git_commit_id(theirs)).prefix(12))"))
        }
    }

    /// The report of what a change of HEAD's tree brings in.
    ///
    /// A room's new messages are those this side never had: its messages are compared with this
    /// side's version of the room, at the path it had here before a rename, or (when this side
    /// deleted it and the other side's edit brought it back) with the common ancestor's version.
    private func describe(_ plan: Plan, oursTree: OpaquePointer, merged: Bool) throws(VaultError) -> SyncReport {
        let changes = plan.changes
        let outcome = plan.outcome
        var report = SyncReport(remote: "")
        let renamedTo = Set(outcome.renamed.map(\.to))
        let renamedFrom = Set(outcome.renamed.map(\.from))
        let formerPath = Dictionary(outcome.renamed.map { ($0.to, $0.from) }, uniquingKeysWith: { a, _ in a })
        var baseTree: OpaquePointer?
        if var baseID = plan.base {
            var commit: OpaquePointer?
            try GitFailure.check(git_commit_lookup(&commit, history.repo, &baseID), "read the common ancestor")
            defer { git_commit_free(commit) }
            try GitFailure.check(git_commit_tree(&baseTree, commit), "read the common ancestor's tree")
        }
        defer { git_tree_free(baseTree) }
        for change in changes {
            let oursBlob = history.blob(at: change.path, in: oursTree)
                ?? formerPath[change.path].flatMap { history.blob(at: $0, in: oursTree) }
            let before = try oursBlob.map { id throws(VaultError) in try history.blobBytes(id) }
            // Deleted here, edited there: the messages this side had are the ancestor's.
            var known = before
            if known == nil, let id = history.blob(at: formerPath[change.path] ?? change.path, in: baseTree) {
                known = try history.blobBytes(id)
            }
            let after = try change.oid.map { id throws(VaultError) in try history.blobBytes(id) }
            if renamedTo.contains(change.path), before == after { continue }  // only renamed: listed as such
            // A conflict copy another machine committed (a sync tool's, or its merge's) is no new room or entry.
            if before == nil, after != nil, !outcome.conflictCopies.contains(change.path),
                VaultPath.kind(of: change.path) != .other, let original = ConflictCopy.original(of: change.path),
                history.blob(at: original, in: oursTree) != nil || changes.contains(where: { $0.path == original })
            {
                report.conflictCopies.append(change.path)
                continue
            }
            switch (VaultPath.kind(of: change.path), after) {
            case (_, nil):
                if !renamedFrom.contains(change.path) { report.deleted.append(change.path) }
            case (.room, let bytes?):
                guard let room = try? RoomFile(parsing: bytes, path: change.path) else {
                    report.changed.append(change.path)  // `vault check` says what is wrong with it
                    continue
                }
                let old = known.flatMap { try? RoomFile(parsing: $0, path: change.path) }
                let oldIDs = Set(old?.messages.map(\.id) ?? [])
                let new = room.messages.filter { !oldIDs.contains($0.id) }
                let me = Workspace.key(history.author.name)
                if !new.isEmpty || before == nil {
                    let newest = new.max { $0.timestamp.date < $1.timestamp.date }
                    var authors: [String] = []
                    for m in new.sorted(by: { $0.timestamp.date < $1.timestamp.date }) {
                        if let name = m.author?.name, !authors.contains(name) { authors.append(name) }
                    }
                    report.rooms.append(
                        SyncReport.Room(
                            path: change.path, title: room.title, newMessageIDs: new.map(\.id),
                            newest: newest.map { SyncReport.firstLine($0.body) }, isNew: before == nil,
                            authors: authors,
                            ownMessageIDs: new.filter { $0.author.map { Workspace.key($0.name) } == me }.map(\.id)))
                } else {
                    report.changed.append(change.path)
                }
            case (.diaryEntry, _):
                if outcome.conflictCopies.contains(change.path) { continue }
                if before == nil && !renamedTo.contains(change.path) {
                    report.newEntries.append(change.path)
                } else {
                    report.changed.append(change.path)
                }
            default:
                if !outcome.conflictCopies.contains(change.path) { report.changed.append(change.path) }
            }
        }
        report.renamed = outcome.renamed.map { SyncReport.Rename(from: $0.from, to: $0.to) }
        report.conflictCopies = outcome.conflictCopies + report.conflictCopies
        report.notes = outcome.notes
        report.merges = merged ? 1 : 0
        return report
    }
}

/// The no-loss check of a merge, on the files' bytes: text, not ids.
///
/// Each side's version of a message (by id) or a diary entry (by `id`, else path) counts when it
/// differs from the base's version of the same message or entry: a version a side left as it
/// was may go (the other side deleted or changed it on purpose). Every version that counts must
/// be in the result, found by the hash of its text (trailing white space aside, as the merge
/// compares) among all the messages or entries of the result's files, conflict copies included.
/// An entry merged line by line matches neither side whole; it counts as kept when one result
/// file of that entry holds every line the side added to the base's text.
///
///     Integrity.lost(base: [:], ours: ["rooms/a.md": a], theirs: ["rooms/a.md": b], result: ["rooms/a.md": a])
///     // ["rooms/a.md: message m-01JPA3K8Z4QX (theirs' version)", …]
enum Integrity {
    /// What one file holds: its messages' or entry's texts, by key.
    private struct Item {
        var key: String
        var hash: Int
        var label: String
        /// An entry's body lines (empty for a message).
        var lines: [Substring] = []
    }

    /// The versions `ours` and `theirs` made (path → bytes) that are not in `result`, as
    /// `path: what (whose version)`; empty when nothing is lost.
    static func lost(
        base: [String: [UInt8]], ours: [String: [UInt8]], theirs: [String: [UInt8]], result: [String: [UInt8]]
    ) -> [String] {
        var baseHashes: [String: Set<Int>] = [:]
        var baseLines: [String: [Substring: Int]] = [:]
        for (path, bytes) in base {
            for item in items(in: bytes, path: path) {
                baseHashes[item.key, default: []].insert(item.hash)
                for line in item.lines { baseLines[item.key, default: [:]][line, default: 0] += 1 }
            }
        }
        var present = Set<Int>()
        var resultLines: [String: [[Substring: Int]]] = [:]
        for (path, bytes) in result {
            for item in items(in: bytes, path: path) {
                present.insert(item.hash)
                if !item.lines.isEmpty { resultLines[item.key, default: []].append(counted(item.lines)) }
            }
        }
        var missing: [String] = []
        for (side, files) in [("this side's", ours), ("the other side's", theirs)] {
            for (path, bytes) in files.sorted(by: { $0.key < $1.key }) {
                for item in items(in: bytes, path: path)
                where baseHashes[item.key]?.contains(item.hash) != true && !present.contains(item.hash) {
                    // An entry merged line by line: every line the side added is in one file of it.
                    let base = baseLines[item.key] ?? [:]
                    let added = counted(item.lines).filter { $0.value > base[$0.key, default: 0] }
                    let merged = !item.lines.isEmpty && baseHashes[item.key] != nil
                        && (resultLines[item.key] ?? []).contains { file in
                            added.allSatisfy { file[$0.key, default: 0] >= $0.value - base[$0.key, default: 0] }
                        }
                    if !merged { missing.append("\(path): \(item.label) (\(side) version)") }
                }
            }
        }
        return missing
    }

    private static func counted(_ lines: [Substring]) -> [Substring: Int] {
        var out: [Substring: Int] = [:]
        for line in lines { out[line, default: 0] += 1 }
        return out
    }

    /// The messages of a room, or the entry of a diary file; a file that does not read is one
    /// item of its whole bytes.
    private static func items(in bytes: [UInt8], path: String) -> [Item] {
        switch VaultPath.kind(of: path) {
        case .room, .volume:
            guard let room = try? RoomFile(parsing: bytes, path: path) else { return [whole(bytes, path)] }
            return room.messages.map { Item(key: $0.id, hash: hash(trimmed($0.body)), label: "message \($0.id)") }
        case .diaryEntry:
            guard let entry = try? DiaryFile(parsing: bytes, path: path) else { return [whole(bytes, path)] }
            let body = trimmed(String(decoding: LineEnding.lf.converting(Array(entry.body.utf8)), as: UTF8.self))
            let key = entry.id.map { "entry:" + $0 } ?? "file:" + path
            return [
                Item(
                    key: key, hash: hash(body), label: "the entry's text",
                    lines: body.split(separator: "\n", omittingEmptySubsequences: false))
            ]
        default:
            return []
        }
    }

    private static func whole(_ bytes: [UInt8], _ path: String) -> Item {
        Item(key: "file:" + path, hash: hash(Substring(String(decoding: bytes, as: UTF8.self))), label: "the file")
    }

    /// The text without trailing white space (trailing blank lines are no edit: FORMAT.md, "Merging").
    private static func trimmed(_ text: String) -> Substring {
        var end = text.endIndex
        while end > text.startIndex, text[text.index(before: end)].isWhitespace { end = text.index(before: end) }
        return text[..<end]
    }

    /// A hash of the text's bytes (not of its characters: canonically equal texts in other
    /// normalizations are different versions), line endings aside: a room merge writes a
    /// message in the file's one line ending (FORMAT.md, "Line endings").
    private static func hash(_ text: Substring) -> Int {
        var h = Hasher()
        LineEnding.lf.converting(Array(text.utf8)).withUnsafeBytes { h.combine(bytes: $0) }
        return h.finalize()
    }
}
