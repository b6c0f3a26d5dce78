import VaultCore

/// `vault restore`: a room or diary entry brought back as it was at a revision (or, when it
/// is gone, as it last was), as one change (`restore: rooms/busan.md (as of 1a2b3c4)`).
///
/// The current version, hand edits included, is committed first, so restoring never loses it.
public struct Restore {
    /// The vault, with `history` attached to commit into.
    public let vault: Vault
    let history: GitHistory

    public init(vault: Vault, history: GitHistory) {
        self.vault = vault.history === history ? vault : vault.with(history: history)
        self.history = history
    }

    /// Brings `path` back as it was at `revision`; with no revision, a deleted file as it last was.
    ///
    /// - Parameter name: the name the person gave for it (the error names it when no version is
    ///   in the history); the path when nil.
    /// - Returns: the short id of the revision restored from.
    /// - Throws: `VaultError.input` when the file did not exist at `revision`, when
    ///   it exists and no revision is given, or when it is already as it was; nothing changes.
    public func restore(_ path: String, named name: String? = nil, at revision: String?) throws(VaultError)
        -> String
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
            throw VaultError.input(.restoreNeedsRevision(path: path))
        } else {
            throw VaultError.itemNotFound(name ?? path, hint: "No version of it is in the history.")
        }
        let short = String(source.revision.prefix(7))
        // The history may hold what a remote brought before vault checked it: the same rules.
        if let problem = IncomingPath.problem(with: path) {
            throw VaultError.untrusted(.refusedPath(commit: short, path: path, problem: problem))
        }
        if source.bytes.count > vault.config.limits.maxFileSize {
            throw VaultError.untrusted(
                .fileTooLarge(
                    commit: short, path: path, size: source.bytes.count, limit: vault.config.limits.maxFileSize))
        }
        try vault.change([path]) { change throws(VaultError) in
            try change.commitHandEdits()
            if exists, try FileIO.read(vault.absolute(path)) == source.bytes {
                throw VaultError.input(.alreadyAsAt(path: path, revision: short))
            }
            try change.write(source.bytes, to: path)
            try change.commit(message: "restore: \(path) (as of \(short))")
        }
        return short
    }
}
