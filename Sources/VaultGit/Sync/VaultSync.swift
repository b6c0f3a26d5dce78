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
            ? GitCommandTransport(
                git: git, interactive: interactive, progress: onProgress, gitDirectory: history.gitDirectory)
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

    /// The programs it starts (git, ssh) get `vault.settings.environment`.
    public init(vault: Vault, history: GitHistory) {
        self.vault = vault.history === history ? vault : vault.with(history: history)
        self.history = history
        self.git = GitTransport(root: vault.root, environment: vault.settings.environment)
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
            // The remote's branch: this vault's, or the one an empty remote's HEAD names.
            let (theirsBranch, checkHead) = try followUnbornRemoteHead(remote, branch: branch, report: &report)
            try refuseRemoteOfAnotherKind(remote, branch: theirsBranch)
            Trace.mark("sync: remote's kind checked")
            let theirsRef = "refs/remotes/\(remote)/\(theirsBranch)"
            // What came in passes the gate before anything is committed, merged or written.
            try admit(theirsRef)
            Trace.mark("sync: incoming trees checked")
            // One change: its commits before the merge are changes of their own (repairs, the
            // merge driver's `.gitattributes`), then hand edits are committed first as for every
            // change (`Change.commitHandEdits`), and the merge is the change's one commit.
            // What this attempt committed before a failure: said with the error, never "nothing was written".
            var committedFirst: [String] = []
            // What the change did on its own (a stale save's messages kept while committing the
            // hand edits) goes into the report, in its place.
            let changeNotes = NoteList()
            let step: MergeStep
            do {
                step = try vault.reporting(to: changeNotes.sink).change { change throws(VaultError) -> MergeStep in
                    Trace.mark("sync: vault locked")
                    // What reached the branch since the last check (a `git pull`) is checked first.
                    if !AuthorshipCheckpoint.isCurrent(root: vault.root) {
                        _ = try Authorship.checkArrived(history: history, vault: vault)
                    }
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
                    let committed = try change.commitHandEdits()
                    try history.keepWatch(scan)
                    report.notes += changeNotes.taken().map(\.description)
                    report.handEdits += committed
                    report.notes += SyncReport.conflictCopyNotes(committed, committed: true, in: vault)
                    committedFirst += committed.map { "\($0) (your hand edit)" }
                    Trace.mark("sync: hand edits committed")
                    var step = MergeStep()
                    try change.commit { () throws(VaultError) -> Bool in
                        step = try merge(
                            theirsRef: theirsRef, describe: "\(remote)/\(theirsBranch)", saveBefore: !savedBefore)
                        return step.merged
                    }
                    Trace.mark("sync: merged")
                    return step
                }
            } catch {
                for note in changeNotes.taken() { vault.report(note) }
                throw committedFirst.isEmpty ? error : VaultError.stoppedAfter(error, done: committedFirst)
            }
            report.notes += changeNotes.taken().map(\.description)
            savedBefore = savedBefore || step.merged
            report.absorb(step)
            // Merges plain git or another tool made, here or elsewhere: what they dropped comes back.
            report.notes += try restoreDroppedByMerges()
            guard try history.isAhead(of: theirsRef) else {
                report.pushed = false
                return report
            }
            Trace.mark("sync: push")
            switch try transport.push(remote: remote, branch: branch, to: theirsBranch) {
            case .pushed:
                Trace.mark("sync: pushed")
                try rememberUpstream(remote, branch: branch)
                pointUnbornRemoteHead(remote, branch: theirsBranch)
                if checkHead, let note = checkRemoteHeadAfterPush(remote, branch: theirsBranch) { report.notes.append(note) }
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
        _ = try transport.fetch(remote: remote, branch: try history.remoteBranch(of: remote, for: branch), into: probe)
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
            let plan = try history.plannedMerge(ours: head, theirs: theirs)
            var described = try describe(plan, oursTree: head.tree, merged: ahead > 0, parsed: ParsedRooms())
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

    /// Gives back what merge commits that reached the branch since the last check dropped
    /// (`DroppedByMerges`), as one commit, `sync: restore …`; the lines for the report.
    private func restoreDroppedByMerges() throws(VaultError) -> [String] {
        let dropped = DroppedByMerges(history: history)
        return try vault.change { change throws(VaultError) -> [String] in
            let losses = try dropped.losses()
            Trace.mark("sync: incoming merges checked (\(losses.count) files lost text)")
            guard !losses.isEmpty else {
                try dropped.markChecked()
                return []
            }
            // The person's edits of those files first, so what is given back goes onto them.
            change.include(losses.map(\.path))
            try change.commitHandEdits()
            let (writes, notes) = try dropped.restoring(losses)
            for write in writes {
                // Worked out from the committed version: a file saved since is not overwritten.
                let stamp = FileIO.stamp(of: vault.absolute(write.path))
                guard GitHistory.same(try history.blobID(ofFile: write.path), try history.headBlob(write.path)) else {
                    throw VaultError.changedOnDisk(path: write.path)
                }
                try change.write(write.bytes, to: write.path, expecting: stamp.map { .unchanged($0) } ?? .absent)
            }
            if !writes.isEmpty {
                var after = git_oid()
                let headBefore = try history.headCommitID()
                let wasAfter = git_reference_name_to_id(&after, history.repo, VaultSync.afterRef) == 0
                    && oidString(&after) == headBefore
                let commits = Set(losses.map(\.commit)).sorted().joined(separator: ", ")
                try change.commit(message: "sync: restore what the merge \(commits) dropped")
                // Part of the sync it follows: `sync --undo` takes both back.
                if wasAfter, let head = try history.headCommit() {
                    defer { git_commit_free(head.commit); git_tree_free(head.tree) }
                    try history.setReference(VaultSync.afterRef, to: git_commit_id(head.commit).pointee)
                }
            }
            try dropped.markChecked()
            return notes
        }
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
        let plan = try history.plannedMerge(ours: head, theirs: theirs)
        Trace.mark("sync merge: planned (\(plan.changes.count) changes)")
        let newCommit: git_oid
        if plan.fastForward {
            newCommit = git_commit_id(theirs).pointee  // not theirsID: the markers' repair may have moved it
            step.report = try describe(plan, oursTree: head.tree, merged: false, parsed: ParsedRooms())
            Trace.mark("sync merge: report described")
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
            // The rooms the check parses, the report reads again: parsed once.
            let parsed = ParsedRooms()
            try history.verify(plan, ours: head, theirs: theirs, result: newTree, parsed: parsed)
            Trace.mark("sync merge: verified")
            // Made once: the commit's subject counts what the report lists.
            step.report = try describe(plan, oursTree: head.tree, merged: true, parsed: parsed)
            Trace.mark("sync merge: report described")
            newCommit = try history.writeCommit(
                tree: newTree, parents: [head.commit, theirs], message: "sync: merge \(name)\(step.report.subjectSuffix)")
            Trace.mark("sync merge: commit written, objects flushed")
        }
        step.report.notes = repairs + step.report.notes
        // Whether each message's commit bears out its author (a claim to be me that it does not is unread).
        try checkAuthors(&step.report, merge: plan.outcome, ours: head.commit, theirs: theirs)
        try history.checkoutAndMoveBranch(
            plan.changes, replacing: head.tree, to: newCommit, from: head.commit, message: "vault: sync \(name)")
        try history.setReference(VaultSync.afterRef, to: newCommit)
        // What it brought was checked just now (`checkAuthors`).
        AuthorshipCheckpoint.advance(from: oidString([oursID]), to: oidString([newCommit]), root: vault.root)
        // Marks stay with their messages when a room is renamed (the report's renames, a fast-forward's too).
        for r in step.report.renamed { UnverifiedMarks.move(from: r.from, to: r.to, root: vault.root) }
        UnverifiedMarks.add(step.report.unverifiedMarks, root: vault.root)
        // What I wrote myself, on another machine, is never unread.
        UnreadMarks.add(
            step.report.rooms.map { room in (room.path, room.newMessageIDs.filter { !room.ownMessageIDs.contains($0) }) },
            root: vault.root)
        step.merged = true
        step.fastForward = plan.fastForward
        return step
    }

    /// Those of `messages` (new in the room at `room`, once named `former`) that this machine never
    /// had: not in this side's or the common ancestor's version of the room, nor in a volume of
    /// it here or in the ancestor (a rollover moved them there), looked for by id in the
    /// volumes' bytes.
    private func unknown(
        _ messages: [Message], room: String, former: [String], ours: OpaquePointer, base: OpaquePointer?,
        parsed: ParsedRooms
    ) throws(VaultError) -> [Message] {
        guard !messages.isEmpty else { return [] }
        var left = messages
        let names = [room] + former
        for tree in [base, ours] {
            guard let tree else { continue }
            for name in names {
                if let id = history.blob(at: name, in: tree) {
                    let ids = Set(((try? parsed.room(id, path: name, in: history)) ?? nil)?.messages.map(\.id) ?? [])
                    left.removeAll { ids.contains($0.id) }
                }
                guard !left.isEmpty else { return [] }
                let folder = VaultPath.volumeFolder(ofRoom: name)
                guard let sub = try history.subtree(folder, of: git_tree_id(tree).pointee) else { continue }
                let raw = try history.trees.read(sub)
                for e in GitHistory.entries(of: raw) where !e.isTree {
                    let bytes = try history.blobBytes(TreeEditor.oid(raw, at: e.oid))
                    left.removeAll { bytes.firstRange(of: Array($0.id.utf8)) != nil }
                    if left.isEmpty { return [] }
                }
            }
        }
        return left
    }

    /// The report of what a change of HEAD's tree brings in.
    ///
    /// A room's new messages are those this side never had: its messages are compared with this
    /// side's version of the room, at the path it had here before a rename, or (when this side
    /// deleted it and the other side's edit brought it back) with the common ancestor's version.
    /// Rooms are read from `parsed` (the no-loss check's, for a merge), each version parsed once.
    private func describe(_ plan: MergePlan, oursTree: OpaquePointer, merged: Bool, parsed: ParsedRooms)
        throws(VaultError) -> SyncReport
    {
        let changes = plan.changes
        let outcome = plan.outcome
        var report = SyncReport(remote: "")
        var renames = outcome.renamed.map { SyncReport.Rename(from: $0.from, to: $0.to) }
        // A fast-forward's changes are paths, with no renames found: a room removed and a room
        // added that are one room (`Merge.isSameItem`) is a rename.
        if plan.fastForward {
            let removed = changes.filter { $0.oid == nil && VaultPath.kind(of: $0.path) == .room }.map(\.path)
            let added = changes.filter {
                $0.oid != nil && VaultPath.kind(of: $0.path) == .room && history.blob(at: $0.path, in: oursTree) == nil
            }
            if !removed.isEmpty && !added.isEmpty && removed.count * added.count <= 10_000 {
                var old: [(path: String, bytes: [UInt8])] = []
                for path in removed {
                    if let id = history.blob(at: path, in: oursTree) { old.append((path, try history.blobBytes(id))) }
                }
                for change in added {
                    let bytes = try history.blobBytes(change.oid!)
                    if let match = old.first(where: { Merge.isSameItem($0.bytes, bytes, oldPath: $0.path, newPath: change.path) }) {
                        renames.append(SyncReport.Rename(from: match.path, to: change.path))
                    }
                }
            }
        }
        let renamedTo = Set(renames.map(\.to))
        let renamedFrom = Set(renames.map(\.from))
        // Every name a file had before the merge: renamed differently on both sides, it had two
        // (the ancestor's, and this side's).
        let formerPaths = SyncReport.formerPaths(renames)
        let baseTree = try history.tree(ofCommit: plan.base)
        defer { git_tree_free(baseTree) }
        // Rooms this side removed of late that come back (a fast-forward has no ancestor to
        // ask): what this side had of each, from the commit that removed it.
        var removedHere: [String: git_oid] = [:]
        if plan.base == nil {
            let back = changes.filter {
                $0.oid != nil && VaultPath.kind(of: $0.path) == .room && history.blob(at: $0.path, in: oursTree) == nil
            }
            removedHere = try history.recentRemovals(of: Set(back.map(\.path)), within: 200)
        }
        var volumeMessages: [String: [Message]] = [:]
        for change in changes {
            let names = [change.path] + (formerPaths[change.path] ?? [])
            let oursBlob = names.lazy.compactMap { self.history.blob(at: $0, in: oursTree) }.first
            let before = try oursBlob.map { id throws(VaultError) in try history.blobBytes(id) }
            // Deleted here, edited there: the messages this side had are the ancestor's.
            var known = oursBlob
            if known == nil, let id = names.reversed().lazy.compactMap({ self.history.blob(at: $0, in: baseTree) }).first {
                known = id
            }
            if known == nil, let id = removedHere[change.path] { known = id }
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
            case (.room, _?):
                guard let room = try parsed.room(change.oid!, path: change.path, in: history) else {
                    report.changed.append(change.path)  // `vault check` says what is wrong with it
                    continue
                }
                let old = try known.flatMap { id throws(VaultError) in try parsed.room(id, path: change.path, in: history) }
                let oldIDs = Set(old?.messages.map(\.id) ?? [])
                var new = room.messages.filter { !oldIDs.contains($0.id) }
                // Had here all the same: in the ancestor's version, or in a volume of the room.
                new = try unknown(
                    new, room: change.path, former: formerPaths[change.path] ?? [], ours: oursTree, base: baseTree,
                    parsed: parsed)
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
            case (.volume, _?):
                // A volume's messages that this machine never had are new in its room.
                guard let roomPath = VaultPath.room(ofVolume: change.path),
                    let volume = try parsed.room(change.oid!, path: change.path, in: history)
                else { continue }
                let before = try history.blob(at: change.path, in: oursTree).map { id throws(VaultError) in
                    Set(((try? parsed.room(id, path: change.path, in: history)) ?? nil)?.messages.map(\.id) ?? [])
                } ?? []
                let new = try unknown(
                    volume.messages.filter { !before.contains($0.id) }, room: roomPath, former: formerPaths[roomPath] ?? [],
                    ours: oursTree, base: baseTree, parsed: parsed)
                if !new.isEmpty { volumeMessages[roomPath, default: []] += new }
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
        let me = Workspace.key(history.author.name)
        for (roomPath, messages) in volumeMessages.sorted(by: { $0.key < $1.key }) {
            let own = messages.filter { $0.author.map { Workspace.key($0.name) } == me }.map(\.id)
            if let k = report.rooms.firstIndex(where: { $0.path == roomPath }) {
                let listed = Set(report.rooms[k].newMessageIDs)
                let more = messages.filter { !listed.contains($0.id) }
                report.rooms[k].newMessageIDs += more.map(\.id)
                report.rooms[k].ownMessageIDs += own.filter { id in more.contains { $0.id == id } }
                for name in more.compactMap({ $0.author?.name }) where !report.rooms[k].authors.contains(name) {
                    report.rooms[k].authors.append(name)
                }
                continue
            }
            let resultBlob = changes.first { $0.path == roomPath }?.oid ?? history.blob(at: roomPath, in: oursTree)
            let title = try resultBlob.flatMap { id throws(VaultError) in
                (try? RoomFile(parsing: try history.blobBytes(id), path: roomPath))?.title
            } ?? VaultPath.commandName(of: roomPath)
            let newest = messages.max { $0.timestamp.date < $1.timestamp.date }
            var authors: [String] = []
            for name in messages.compactMap({ $0.author?.name }) where !authors.contains(name) { authors.append(name) }
            report.rooms.append(
                SyncReport.Room(
                    path: roomPath, title: title, newMessageIDs: messages.map(\.id),
                    newest: newest.map { SyncReport.firstLine($0.body) }, isNew: false, authors: authors,
                    ownMessageIDs: own))
        }
        report.renamed = renames
        report.conflictCopies = outcome.conflictCopies + report.conflictCopies
        report.notes = outcome.notes
        report.merges = merged ? 1 : 0
        return report
    }
}
