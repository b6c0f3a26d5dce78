import CGit2
import CVaultObjects
import Foundation
import VaultCore

/// The vault's history in its own git repository, through libgit2.
///
/// Every change is one commit made without touching the rest of the vault: the
/// changed files are written as blobs, a new tree is built from HEAD's tree with
/// only those paths replaced, the commit is created, the branch moved with a
/// compare-and-swap, and the index entries of the changed paths updated (so
/// `git status` stays clean). Nothing stats or hashes the whole vault.
///
/// One `GitHistory` owns one `git_repository` handle and is used from one place
/// at a time (inside the vault's lock).
public final class GitHistory: VaultHistory, @unchecked Sendable {
    public let root: String
    let repo: OpaquePointer
    /// The object database, with vault's loose-object writer in front (`CVaultObjects`): a
    /// commit rewrites the large tree of the folder it touches, and compressing it spends most
    /// of a commit on a 20,000-room folder for little gain (object ids do not compress).
    /// Trees are written with zlib's stored blocks (what git writes with
    /// core.looseCompression=0), everything else at zlib's fastest level; `git gc` packs and
    /// compresses them later. Every object file is flushed to disk before it is renamed in.
    let odb: OpaquePointer
    public let author: Author
    /// What the front end read from its process (this machine's name, the environment for git
    /// and ssh): `ProcessSettings.standard` unless it says.
    public let settings: ProcessSettings
    /// The vault's zone: commits carry its offset, as the rooms' timestamps do, whatever the
    /// machine's zone (`signatureNow`).
    let zone: TimeZone
    /// Reads and writes trees (and remembers the ones it saw).
    private(set) lazy var trees = TreeEditor(repo: repo, objects: objects)
    /// This machine's name, for the `Vault-Machine:` trailer of every commit (`machineName()`).
    private(set) lazy var machine: String = machineName()
    /// Object ids and writes (OpenSSL's SHA-1, vault's loose-object writer).
    let objects: ObjectStore
    /// The bytes and objects of the writer already added to `.vault/loose-bytes`.
    var writtenBytesCounted: Int64 = 0
    var writtenObjectsCounted: Int64 = 0
    /// True while committing what killed vault processes left (`recoverFromKilledVaults`): the
    /// test crash points (`CrashPoint`) are meant for the command's own commit.
    var recovering = false
    /// The bytes of large blobs written in pieces (`LargeBlobs.swift`), not yet added to it.
    var streamedBytesWritten: Int64 = 0

    /// Who commits: this machine's `Identity` (the user configuration's `me:`, else `author:`
    /// in vault.yml, else git's `user.name`/`user.email`, else a default with a warning), the
    /// same identity that authors this machine's messages.
    public typealias Author = Identity

    /// Where a vault stands with git.
    public enum Location: Sendable, Equatable {
        /// The vault's folder is the root of a repository.
        case own
        /// The vault is inside the repository at this path, which vault does not own.
        case inside(String)
        /// No repository at or above the vault.
        case none
    }

    /// Where the vault at `root` stands with git.
    ///
    /// - Throws: when the vault has no `.git` of its own and libgit2, needed to look further
    ///   up, cannot be loaded.
    public static func locate(_ root: String) throws(VaultError) -> Location {
        if FileIO.exists(root + "/.git") { return .own }
        try LibGit2.ready()
        // A folder that does not exist yet (`vault init new-folder`) is inside whatever holds its parent.
        var existing = root
        while !FileIO.isDirectory(existing), existing != "/" { existing = FileIO.parent(of: existing) }
        var buf = git_buf()
        defer { git_buf_dispose(&buf) }
        guard git_repository_discover(&buf, existing, 0, nil) == 0, let ptr = buf.ptr else { return .none }
        var path = String(cString: ptr)
        if path.hasSuffix("/") { path.removeLast() }
        if path.hasSuffix("/.git") { path.removeLast(5) }
        return .inside(path)
    }

    /// Opens the repository at the vault's root.
    ///
    /// - Throws: when the vault has no repository of its own; `vault init` makes one.
    public init(vault root: String, config: VaultConfig, settings: ProcessSettings = .standard) throws(VaultError) {
        try LibGit2.ready()
        Trace.mark("libgit2 ready")
        switch try GitHistory.locate(root) {
        case .inside(let outer):
            throw VaultError.repository(.foreignRepository(vault: root, outer: outer))
        case .none:
            throw VaultError.repository(.noRepository(vault: root))
        case .own:
            break
        }
        var handle: OpaquePointer?
        try GitFailure.check(
            git_repository_open_ext(&handle, root, GIT_REPOSITORY_OPEN_NO_SEARCH.rawValue, nil),
            "open the repository in \(root)")
        var database: OpaquePointer?
        let odbCode = git_repository_odb(&database, handle)
        if odbCode < 0 { git_repository_free(handle) }
        try GitFailure.check(odbCode, "open the object database")
        var path = String(cString: git_repository_path(handle!))
        if path.hasSuffix("/") { path.removeLast() }
        var fast: UnsafeMutablePointer<git_odb_backend>?
        var writer: UnsafeMutablePointer<git_odb_backend>?
        if cvault_odb_writer_new(&fast, path + "/objects", 0, 1, 1) == 0, let fast {
            if git_odb_add_backend(database, fast, 1000) == 0 { writer = fast } else { fast.pointee.free?(fast) }
        }
        self.objects = ObjectStore(odb: database!, writer: writer)
        self.root = root
        self.repo = handle!
        self.odb = database!
        self.author = GitHistory.author(repo: handle!, config: config, settings: settings)
        self.settings = settings
        self.zone = config.timeZone
    }

    /// The author and committer of a commit (or a reflog entry) made now: this machine's
    /// author, the time with the vault zone's offset (`git log` then shows vault's commits in
    /// the zone its rooms are written in). The caller frees it with `git_signature_free`.
    func signatureNow(_ doing: String) throws(VaultError) -> UnsafeMutablePointer<git_signature> {
        let now = Date()
        let offset = zone.secondsFromGMT(for: now) / 60
        var signature: UnsafeMutablePointer<git_signature>?
        try GitFailure.check(
            git_signature_new(
                &signature, author.name, author.email, git_time_t(now.timeIntervalSince1970.rounded(.down)),
                Int32(offset)), doing)
        return signature!
    }

    public func identity() -> Identity? { author }

    deinit {
        git_odb_free(odb)
        git_repository_free(repo)
    }

    /// Creates the repository at `root` (or adopts the one there) and commits every file of
    /// the vault that is not committed yet, as the first commit of the vault.
    @discardableResult
    public static func create(
        vault root: String, config: VaultConfig, settings: ProcessSettings = .standard
    ) throws(VaultError) -> GitHistory {
        try LibGit2.ready()
        if !FileIO.exists(root + "/.git") {
            var handle: OpaquePointer?
            var options = git_repository_init_options()
            git_repository_init_options_init(&options, UInt32(GIT_REPOSITORY_INIT_OPTIONS_VERSION))
            options.flags = GIT_REPOSITORY_INIT_MKPATH.rawValue
            let code = "main".withCString { head in
                options.initial_head = head
                return git_repository_init_ext(&handle, root, &options)
            }
            try GitFailure.check(code, "create a git repository in \(root)")
            git_repository_free(handle)
        }
        let history = try GitHistory(vault: root, config: config, settings: settings)
        // Not through `Vault.change`: the first commit of a new repository has no hand edits to
        // commit first (nothing was committed before), it commits the vault as it is, and
        // `GitHistoryOnDemand` makes it inside a change that already holds the vault's lock.
        try history.commitAll(message: "init: vault")
        return history
    }

    /// This machine's identity in the vault at `root` without opening its history to commit (a
    /// command that only reads, as `vault rooms` telling my rooms from others'): the repository's
    /// git settings when it has one, else the resolution without git's.
    public static func identity(ofVault root: String, config: VaultConfig, settings: ProcessSettings) -> Identity {
        var handle: OpaquePointer?
        guard FileIO.exists(root + "/.git"), (try? LibGit2.ready()) != nil,
            git_repository_open_ext(&handle, root, GIT_REPOSITORY_OPEN_NO_SEARCH.rawValue, nil) == 0, let handle
        else {
            let me = (try? UserConfig.load(environment: settings.environment))?.me
            return Identity.resolve(me: me, vault: config, git: nil)
        }
        defer { git_repository_free(handle) }
        return author(repo: handle, config: config, settings: settings)
    }

    static func author(repo: OpaquePointer, config: VaultConfig, settings: ProcessSettings) -> Author {
        // A user configuration that cannot be read is reported by the command that reads it for
        // its own settings; here it names no one.
        let me = (try? UserConfig.load(environment: settings.environment))?.me
        var git: (name: String, email: String)?
        var sig: UnsafeMutablePointer<git_signature>?
        if git_signature_default(&sig, repo) == 0, let sig {
            git = (String(cString: sig.pointee.name), String(cString: sig.pointee.email))
            git_signature_free(sig)
        }
        return Identity.resolve(me: me, vault: config, git: git)
    }
}
