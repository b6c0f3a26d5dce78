import VaultCore

/// `vault restore`: a room or diary entry brought back as it was at a revision (or, when it
/// is gone, as it last was), as one change (`restore: rooms/busan.md (as of 1a2b3c4)`).
///
/// The current version, hand edits included, is committed first, so restoring never loses it.
public struct Restore {
    /// The vault, with `history` attached to commit into.
    public let vault: Vault
    let history: GitHistory
    /// This machine's caps (`VaultSync.machineLimits`): a file the history holds is restored
    /// only when a sync would take it in.
    public var machineLimits = IncomingLimits()

    public init(vault: Vault, history: GitHistory) {
        self.vault = vault.history === history ? vault : vault.with(history: history)
        self.history = history
    }

    /// What a restore did.
    public struct Restored: Sendable, CustomStringConvertible {
        /// The short id of the revision restored from.
        package var revision: String
        /// The short id of the commit that kept the hand edit restoring replaced (`edit: …`),
        /// when the file had one.
        package var handEdit: String?
        public var description: String { revision }
    }

    /// Brings `path` back as it was at `revision`. With no revision, a deleted file as it last
    /// was, and a file with an uncommitted hand edit as it was at its last commit, as
    /// `git restore FILE` does; the hand edit is committed first (`edit: …`), so it is never
    /// lost (`Restored.handEdit`).
    ///
    /// - Parameter name: the name the person gave for it (the error names it when no version is
    ///   in the history); the path when nil.
    /// - Throws: `VaultError.input` when the file did not exist at `revision`, when
    ///   it exists as committed and no revision is given, or when it is already as it was;
    ///   nothing changes.
    ///   - anyway: restore a deleted room even when it lives on under another name (`livesOnAs`).
    public func restore(_ path: String, named name: String? = nil, at revision: String?, anyway: Bool = false)
        throws(VaultError) -> Restored
    {
        let exists = FileIO.exists(vault.absolute(path))
        let source: (bytes: [UInt8], revision: String)
        if let revision {
            guard let bytes = try history.contents(of: path, at: revision) else {
                throw VaultError.input(.absentAt(path: path, revision: revision))
            }
            source = (bytes, try history.commitID(revision))
        } else if !exists, let last = try history.lastVersion(of: path) {
            source = last
        } else if exists {
            // A hand edit since the last commit: that commit's version comes back.
            guard let committed = try history.contents(of: path, at: "HEAD"),
                try FileIO.read(vault.absolute(path)) != committed
            else {
                throw VaultError.input(.restoreNeedsRevision(path: path))
            }
            source = (committed, try history.commitID("HEAD"))
        } else {
            throw VaultError.itemNotFound(name ?? path, hint: "No version of it is in the history.")
        }
        if !exists, !anyway, let other = try livingCopy(of: source.bytes, path: path) {
            throw VaultError.input(.livesOnAs(path: path, other: other))
        }
        let short = String(source.revision.prefix(7))
        // The history may hold what a remote brought before vault checked it: the same rules.
        if let problem = IncomingPath.problem(with: path) {
            throw VaultError.untrusted(.refusedPath(commit: short, path: path, problem: problem))
        }
        let limits = try history.incomingLimits(machine: machineLimits, vault: vault.config.limits)
        func refuseLarge(_ path: String, _ size: Int) throws(VaultError) {
            guard size > limits.maxFileSize else { return }
            throw VaultError.untrusted(
                .fileTooLarge(
                    commit: short, path: path, size: size, limit: limits.maxFileSize,
                    origin: limits.origin(of: "max_file_size")))
        }
        try refuseLarge(path, source.bytes.count)
        // A room's volumes come back as they were with it (`RoomVolumes`): those it had then
        // written, those it has now and did not have then removed (their messages are in the
        // room's file as it was then).
        let isRoom = VaultPath.kind(of: path) == .room
        let volumesThen = !isRoom ? [] : try history.files(under: VaultPath.volumeFolder(ofRoom: path), at: source.revision)
            .filter { VaultPath.room(ofVolume: $0.path) == path }
        for volume in volumesThen {
            if let problem = IncomingPath.problem(with: volume.path) {
                throw VaultError.untrusted(.refusedPath(commit: short, path: volume.path, problem: problem))
            }
            try refuseLarge(volume.path, volume.bytes.count)
        }
        let handEdit = try vault.change([path]) { change throws(VaultError) -> String? in
            let volumesNow = isRoom ? RoomVolumes.paths(ofRoom: path, root: vault.root) : []
            change.include(volumesNow + volumesThen.map(\.path))
            let edited = try change.commitHandEdits().contains(path)
            let thenPaths = Set(volumesThen.map(\.path))
            let changedVolumes = volumesThen.filter { (try? FileIO.read(vault.absolute($0.path))) != $0.bytes }
            let goneVolumes = volumesNow.filter { !thenPaths.contains($0) }
            if exists, try FileIO.read(vault.absolute(path)) == source.bytes, changedVolumes.isEmpty, goneVolumes.isEmpty {
                throw VaultError.input(.alreadyAsAt(path: path, revision: short))
            }
            let kept = edited ? String(try history.commitID("HEAD").prefix(7)) : nil
            for volume in changedVolumes { try change.write(volume.bytes, to: volume.path) }
            for volume in goneVolumes { try change.remove(volume) }
            try change.write(source.bytes, to: path)
            let also = volumesThen.isEmpty ? "" : ", and its " + Merge.counted(volumesThen.count, "volume", "volumes")
            try change.commit(message: "restore: \(path) (as of \(short))\(also)")
            return kept
        }
        return Restored(revision: short, handEdit: handEdit)
    }
}

extension Restore {
    /// The room of the vault that is `bytes` (a deleted room's last version) under another
    /// name: renamed on another machine, edited there, and removed here (`Merge.isSameItem`: a
    /// message in common, or the same `created` and title while one has none). Found by its
    /// messages' ids (or its `created` time) in the rooms' bytes, without parsing rooms that
    /// hold none of them.
    func livingCopy(of bytes: [UInt8], path: String) throws(VaultError) -> String? {
        guard VaultPath.kind(of: path) == .room, let room = try? RoomFile(parsing: bytes, path: path) else { return nil }
        // The newest message is the one most likely still in the room's own file, not in a
        // volume; a room with no message yet is known by its `created` time (and title).
        var needles = [room.messages.last, room.messages.first].compactMap { $0 }.map { Array($0.id.utf8) }
        if needles.isEmpty, let created = room.frontMatter?.string("created"), !created.isEmpty {
            needles = [Array(created.utf8)]
        }
        guard !needles.isEmpty else { return nil }
        for other in vault.roomPaths() where other != path {
            guard let candidate = try? FileIO.read(vault.absolute(other)),
                needles.contains(where: { candidate.firstRange(of: $0) != nil }),
                Merge.isSameItem(bytes, candidate, oldPath: path, newPath: other)
            else { continue }
            return other
        }
        return nil
    }
}
