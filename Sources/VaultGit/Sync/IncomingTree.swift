import CGit2
import VaultCore

#if canImport(Glibc)
import Glibc
#endif

/// The gate every tree from outside passes before vault writes any of it: a remote's commit
/// before `vault sync` merges or fast-forwards to it, a cloned commit before its files are
/// checked out, a commit `vault restore --at` takes a file from.
///
/// Every entry of the incoming tree that the vault does not already hold (same name, mode and
/// object in the tree it is compared with) is checked, down every folder that differs:
/// its name (`IncomingPath.problem(withName:)`: no `..`, no `.git` or `.vault` in any spelling,
/// no control characters), its mode (regular files and folders only: no symbolic link, no
/// submodule), its place (`IncomingPath.isInVaultLayout`), and its size (read from the object's
/// header, never inflated; a file larger than the line cap is read for its longest line) against
/// `IncomingLimits`. Entries are read from the raw tree
/// objects, as they are, not as libgit2 normalizes them. Nothing is written; the first
/// problem is thrown as `UntrustedInput`, naming the commit and the path.
///
///     try IncomingTree(history: history, limits: try history.incomingLimits(machine: caps, vault: vault.config.limits))
///         .check(theirsTree, against: oursTree, commit: "3f2a1c9")
struct IncomingTree {
    let history: GitHistory
    let limits: IncomingLimits
    /// Prefixes of other places this machine accepts files in (`git config vault.acceptPaths`).
    var accepted: [String] = []
    /// Whether the new bytes are held to `limits.maxSyncSize` (a sync; not a clone, which takes
    /// what the remote has).
    var capsTotal = true

    init(history: GitHistory, limits: IncomingLimits, capsTotal: Bool = true) {
        self.history = history
        self.limits = limits
        self.capsTotal = capsTotal
        let configured = (try? history.configString("vault.acceptPaths")) ?? nil
        self.accepted = (configured ?? "").split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces)
        }.filter { !$0.isEmpty }
    }

    /// Checks the tree `tree` of the commit `commit` (its short id, for messages) against
    /// `known` (a tree already in the vault; nil: every entry is checked).
    func check(_ tree: git_oid, against known: git_oid?, commit: String) throws(VaultError) {
        var newBytes = 0
        try walk(tree, known, prefix: "", commit: commit, &newBytes)
    }

    /// Checks the folder `id` against `known`; `newBytes` adds up the sizes of the files it admits.
    private func walk(_ id: git_oid, _ known: git_oid?, prefix: String, commit: String, _ newBytes: inout Int)
        throws(VaultError)
    {
        let raw = try history.trees.read(id)
        // The known folder's entries by name: the whole entry's bytes (mode, name, id), and
        // the folder's id when it is one.
        var knownEntries: [ArraySlice<UInt8>: (whole: ArraySlice<UInt8>, folder: git_oid?)] = [:]
        if let known {
            let knownRaw = try history.trees.read(known)
            TreeEditor.forEachEntry(knownRaw) { _, entry, mode, name, oid in
                let folder = TreeEditor.isTreeMode(knownRaw, mode) ? TreeEditor.oid(knownRaw, at: oid) : nil
                knownEntries[knownRaw[name]] = (knownRaw[entry], folder)
                return true
            }
        }
        struct Entry {
            var name: ArraySlice<UInt8>
            var mode: ArraySlice<UInt8>
            var whole: ArraySlice<UInt8>
            var oid: Int
        }
        var entries: [Entry] = []
        var parsedBytes = 0
        TreeEditor.forEachEntry(raw) { _, entry, mode, name, oid in
            entries.append(Entry(name: raw[name], mode: raw[mode], whole: raw[entry], oid: oid))
            parsedBytes = entry.upperBound
            return true
        }
        func refuse(_ path: String, _ problem: IncomingPath.Problem) -> VaultError {
            .untrusted(.refusedPath(commit: commit, path: path, problem: problem))
        }
        if parsedBytes != raw.count {
            throw refuse(prefix.isEmpty ? "its top folder" : String(prefix.dropLast()), .empty)
        }
        var seen = Set<ArraySlice<UInt8>>()
        for entry in entries {
            let known = knownEntries[entry.name]
            if let known, known.whole.elementsEqual(entry.whole) { continue }  // the vault has it already
            let path = prefix + String(decoding: entry.name, as: UTF8.self)
            if let problem = IncomingPath.problem(withName: entry.name) { throw refuse(path, problem) }
            guard seen.insert(entry.name).inserted else { throw refuse(path, .duplicate) }
            guard let mode = UInt32(String(decoding: entry.mode, as: UTF8.self), radix: 8) else {
                throw refuse(path, .mode(0))
            }
            if let problem = IncomingPath.problem(withMode: mode) { throw refuse(path, problem) }
            let oid = TreeEditor.oid(raw, at: entry.oid)
            if mode == 0o040000 {
                try walk(oid, known?.folder, prefix: path + "/", commit: commit, &newBytes)
                continue
            }
            guard IncomingPath.isInVaultLayout(path, accepted: accepted) else { throw refuse(path, .outsideLayout) }
            let size = try history.objectSize(oid, path: path)
            if size > limits.maxFileSize {
                throw VaultError.untrusted(
                    .fileTooLarge(
                        commit: commit, path: path, size: size, limit: limits.maxFileSize,
                        origin: limits.origin(of: "max_file_size")))
            }
            // git reads `.gitattributes` on every `git status`: none that came in names a command.
            if entry.name.elementsEqual(".gitattributes".utf8),
                let problem = IncomingPath.attributesProblem(in: try history.blobBytes(oid))
            {
                throw refuse(path, problem)
            }
            // Only a file larger than the line cap can hold a longer line: the rest are not read.
            if size > limits.maxLineLength {
                let longest = IncomingTree.longestLine(try history.blobBytes(oid))
                if longest > limits.maxLineLength {
                    throw VaultError.untrusted(
                        .lineTooLong(
                            commit: commit, path: path, length: longest, limit: limits.maxLineLength,
                            origin: limits.origin(of: "max_line_length")))
                }
            }
            newBytes += size
            if capsTotal && newBytes > limits.maxSyncSize {
                throw VaultError.untrusted(
                    .syncTooLarge(
                        commit: commit, size: newBytes, limit: limits.maxSyncSize, origin: limits.origin(of: "max_sync_size")))
            }
        }
    }
}

extension IncomingTree {
    /// The length in bytes of the longest line of `bytes` (line feeds found with `memchr`).
    static func longestLine(_ bytes: [UInt8]) -> Int {
        bytes.withUnsafeBytes { buffer -> Int in
            guard let base = buffer.baseAddress else { return 0 }
            var longest = 0
            var start = 0
            while start < buffer.count {
                let end = memchr(base + start, 0x0A, buffer.count - start).map { base.distance(to: UnsafeRawPointer($0)) }
                    ?? buffer.count
                longest = max(longest, end - start)
                start = end + 1
            }
            return longest
        }
    }
}

extension GitHistory {
    /// The caps on what comes into this vault: `machine` (the defaults with the user
    /// configuration's `limits:`, from the front end), each replaced by this vault's own git config
    /// (`vault.maxFileSize`, `vault.maxSyncSize`, `vault.maxLineLength`: this machine's, never
    /// synced), then lowered by `shared` (`vault.yml`'s `limits:`, which never raises one).
    ///
    ///     git config vault.maxFileSize 256M      # this vault, on this machine
    ///
    /// - Throws: `VaultError.malformed` naming the git config key when its value is not a size.
    public func incomingLimits(machine: IncomingLimits, vault shared: IncomingLimits.Setting) throws(VaultError)
        -> IncomingLimits
    {
        var own = IncomingLimits.Setting()
        for key in IncomingLimits.keys {
            let name = IncomingLimits.gitConfigKeys[key] ?? key
            guard let raw = try configString(name) else { continue }
            guard let bytes = ByteCount.parse(raw) else {
                throw VaultError.malformed([
                    FormatProblem(
                        path: gitDirectory + "/config", line: 1,
                        kind: .invalidSetting(
                            key: name, reason: "\"\(raw)\" is not a size (`git config \(name) 256M`; 64M, 512MiB, 2G)"))
                ])
            }
            own.bytes[key] = bytes
        }
        return machine.setting(own).lowered(by: shared)
    }

    /// The size of an object, read from its header (a packed object is not inflated).
    func objectSize(_ id: git_oid, path: String) throws(VaultError) -> Int {
        var oid = id
        var size = 0
        var type = GIT_OBJECT_INVALID
        try GitFailure.check(git_odb_read_header(&size, &type, odb, &oid), "read the size of \(path)")
        return size
    }

    /// Checks the tree of `commit` against HEAD's tree (every entry when there is no HEAD yet)
    /// with `IncomingTree`.
    func admit(commit: OpaquePointer, limits: IncomingLimits) throws(VaultError) {
        let theirs = git_commit_tree_id(commit).pointee
        var ours: git_oid?
        if let head = try headCommit() {
            ours = git_tree_id(head.tree).pointee
            git_commit_free(head.commit)
            git_tree_free(head.tree)
        }
        try IncomingTree(history: self, limits: limits).check(
            theirs, against: ours, commit: String(oidString(git_commit_id(commit)).prefix(10)))
    }
}
