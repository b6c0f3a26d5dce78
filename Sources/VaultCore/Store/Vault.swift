import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A vault on disk: its folder, its settings, and the operations on its files.
///
/// Reads never take the vault's lock: a whole-file write is an atomic rename, and a chat
/// turn's append (`TailWrite`) holds the room file with an exclusive `flock` that readers
/// wait for, so a reader sees the old file or the new one. Every change runs inside
/// `changing`, which holds the vault's lock and re-reads the file under it, so two
/// processes never interleave and an edit saved in the meantime is kept.
public final class Vault: Sendable {
    /// Absolute path of the vault's folder.
    public let root: String
    public let config: VaultConfig
    /// Where changes are committed; `nil` for a vault opened only to read, or by a test of
    /// `VaultCore` alone (front ends open vaults through `VaultKit`'s `VaultSession`, which
    /// attaches the history, or marks the vault read-only).
    public let history: (any VaultHistory)?
    /// Whether every change is refused (`VaultError.readOnly`) before it locks or writes.
    public let isReadOnly: Bool
    /// Where the library's notes go as they happen (`report`): nowhere unless a front end
    /// says (`reporting(to:)`); the library never prints.
    public let notes: NoteSink
    /// What the front end read from its process (the lock's timeout, the environment for the
    /// programs vault starts): `ProcessSettings.standard` unless it says.
    public let settings: ProcessSettings

    public init(
        root: String, history: (any VaultHistory)? = nil, notes: @escaping NoteSink = { _ in },
        settings: ProcessSettings = .standard
    ) throws(VaultError) {
        self.root = root
        self.history = history
        self.isReadOnly = false
        self.notes = notes
        self.settings = settings
        let path = root + "/" + VaultPath.config
        guard FileIO.exists(path) else {
            throw VaultError.notAVault(
                "\(root) is not a vault: it has no \(VaultPath.config). Run `vault init \(root)` to make it one.")
        }
        self.config = try VaultConfig(parsing: try FileIO.read(path))
        try Vault.checkOwnState(root: root)
        // An append a crash interrupted is finished before anything reads the vault.
        if TailWrite.Journal.isPending(journalPath) {
            try changing {}
        }
    }

    /// The same vault with a history to commit into (its configuration is not read again).
    public func with(history: any VaultHistory) -> Vault {
        Vault(root: root, config: config, history: history, isReadOnly: false, notes: notes, settings: settings)
    }

    /// The same vault, every change refused with `VaultError.readOnly` (nothing locked, written
    /// or committed): what a front end opens to read only.
    public func readingOnly() -> Vault {
        Vault(root: root, config: config, history: nil, isReadOnly: true, notes: notes, settings: settings)
    }

    /// The same vault with `settings` (a test's, or a front end's that opened it before).
    public func with(settings: ProcessSettings) -> Vault {
        Vault(root: root, config: config, history: history, isReadOnly: isReadOnly, notes: notes, settings: settings)
    }

    /// The same vault, its notes sent to `sink` (one request's `NoteList`).
    public func reporting(to sink: @escaping NoteSink) -> Vault {
        Vault(root: root, config: config, history: history, isReadOnly: isReadOnly, notes: sink, settings: settings)
    }

    private init(
        root: String, config: VaultConfig, history: (any VaultHistory)?, isReadOnly: Bool, notes: @escaping NoteSink,
        settings: ProcessSettings
    ) {
        self.root = root
        self.config = config
        self.history = history
        self.isReadOnly = isReadOnly
        self.notes = notes
        self.settings = settings
    }

    /// Refuses a vault whose `.vault` (its lock, journal, intents) or `.git` is not a real
    /// folder of this user: a link there would send vault's own writes wherever it points.
    /// A `.git` file (a work tree's pointer) is git's to read, and allowed.
    static func checkOwnState(root: String) throws(VaultError) {
        for name in [VaultPath.state, ".git"] {
            let path = root + "/" + name
            var st = stat()
            guard lstat(path, &st) == 0 else { continue }
            let kind = st.st_mode & S_IFMT
            if kind == S_IFLNK {
                let target = FileIO.linkText(path).map { String(decoding: $0, as: UTF8.self) } ?? "?"
                throw VaultError.untrusted(.stateNotAFolder(path: path, why: "is a symbolic link (to \(target))"))
            }
            if kind == S_IFREG && name == ".git" { continue }
            if kind != S_IFDIR {
                throw VaultError.untrusted(.stateNotAFolder(path: path, why: "is not a folder"))
            }
            if st.st_uid != geteuid() {
                throw VaultError.untrusted(
                    .stateNotAFolder(path: path, why: "belongs to another user (uid \(st.st_uid))"))
            }
        }
    }

    // MARK: Finding a vault

    /// The vault's folder: `explicit` (`--vault`), else `VAULT_DIR`, else the nearest folder
    /// at or above `workingDirectory` that holds `vault.yml`.
    public static func locate(explicit: String?, environment: [String: String], workingDirectory: String)
        throws(VaultError)
        -> String
    {
        if let dir = explicit ?? environment["VAULT_DIR"].flatMap({ $0.isEmpty ? nil : $0 }) {
            let path = absolute(dir, from: workingDirectory)
            guard FileIO.isDirectory(path) else {
                throw VaultError.notAVault("\(dir) is not a folder")
            }
            guard FileIO.exists(path + "/" + VaultPath.config) else {
                let source = explicit != nil ? "--vault" : "VAULT_DIR"
                throw VaultError.notAVault(
                    "\(dir) (from \(source)) is not a vault: it has no \(VaultPath.config)."
                        + " Run `vault init \(dir)` to make it one."
                )
            }
            return path
        }
        var dir = absolute(workingDirectory, from: "/")
        while true {
            if FileIO.exists(dir + "/" + VaultPath.config) { return dir }
            let up = FileIO.parent(of: dir)
            if up == dir { break }
            dir = up
        }
        throw VaultError.notAVault(
            "no vault here: neither \(workingDirectory) nor a folder above it has a \(VaultPath.config)."
                + " Run `vault init`, pass --vault DIR, or set VAULT_DIR."
        )
    }

    /// `path` made absolute against `base`, with `.` and `..` resolved and no trailing `/`.
    public static func absolute(_ path: String, from base: String) -> String {
        let joined = path.hasPrefix("/") ? path : base + "/" + path
        var parts: [Substring] = []
        for part in joined.split(separator: "/") {
            if part == "." || part.isEmpty { continue }
            if part == ".." {
                if !parts.isEmpty { parts.removeLast() }
                continue
            }
            parts.append(part)
        }
        return "/" + parts.joined(separator: "/")
    }

    // MARK: Creating a vault

    /// Makes `root` a vault: `vault.yml`, `.gitattributes`, `.gitignore` and the folders.
    /// Existing files other than `vault.yml` are kept.
    @discardableResult
    public static func create(at root: String, locale: String, timeZone: TimeZone) throws(VaultError) -> Vault {
        if FileIO.exists(root + "/" + VaultPath.config) { throw VaultError.alreadyAVault(root) }
        try FileIO.makeDirectory(root)
        for dir in [VaultPath.rooms, VaultPath.diary, VaultPath.attachments] {
            try FileIO.makeDirectory(root + "/" + dir)
        }
        let attributes = """
            # Written by `vault init`.
            # Keep every file byte for byte: no end-of-line conversion.
            * -text
            *.md diff
            # vault's merge for `git pull` by hand (`vault merge-driver`, registered by `vault init` and `vault clone`):
            # rooms by message id, diary entries and vault.yml without conflict markers.
            rooms/*.md merge=vault
            diary/**/*.md merge=vault
            vault.yml merge=vault

            """
        if !FileIO.exists(root + "/.gitattributes") {
            try FileIO.write(Array(attributes.utf8), to: root + "/.gitattributes")
        }
        // Local state (the lock), and the temporary files of writes a crash interrupted.
        let ignorePath = root + "/.gitignore"
        var ignore = (try? FileIO.read(ignorePath)).map { String(decoding: $0, as: UTF8.self) } ?? ""
        let lines = ignore.split(separator: "\n")
        var missing: [String] = []
        if !lines.contains(where: { $0 == ".vault/" || $0 == "/.vault/" }) { missing.append(".vault/") }
        if !lines.contains(Substring(FileIO.temporaryPattern)) { missing.append(FileIO.temporaryPattern) }
        if !missing.isEmpty {
            ignore += (ignore.isEmpty || ignore.hasSuffix("\n") ? "" : "\n") + missing.joined(separator: "\n") + "\n"
            try FileIO.write(Array(ignore.utf8), to: ignorePath)
        }
        try FileIO.write(
            Array(VaultConfig.initialText(locale: locale, timeZone: timeZone).utf8), to: root + "/" + VaultPath.config)
        return try Vault(root: root)
    }

    // MARK: Files

    /// `rooms/x.md` → `/abs/vault/rooms/x.md`.
    public func absolute(_ relative: String) -> String { root + "/" + relative }

    /// Paths (relative to the vault) of every room file, at any depth under `rooms/` (format 2
    /// files them in `rooms/<yyyy>/`), sorted by their bytes (unless `sorted` is false: the
    /// folders' order, for a caller that orders them its own way).
    ///
    /// Symbolic links are not rooms: vault never reads or writes through one (`vault check`
    /// reports them, `symbolicLinks()`); nor is anything when `rooms` itself is a link.
    public func roomPaths(sorted: Bool = true) -> [String] { markdownFiles(under: VaultPath.rooms, sorted: sorted) }

    /// Paths (relative to the vault) of every diary entry, at any depth, sorted (`sorted: false`:
    /// in the folders' order, each folder's files together, for a caller that sorts them its own way).
    public func diaryPaths(sorted: Bool = true) -> [String] { markdownFiles(under: VaultPath.diary, sorted: sorted) }

    /// The `*.md` files under `top`, at any depth, as `roomPaths` and `diaryPaths` give them:
    /// no hidden name, no symbolic link to a file or a folder (so a link that loops cannot make
    /// the walk endless), and a folder reached twice (a bind mount) walked once.
    func markdownFiles(under top: String, sorted: Bool) -> [String] {
        var out: [String] = []
        var seen = Set<FolderIdentity>()
        // Each folder's names sorted by their bytes, a folder's as `name/`, and walked in that order:
        // the paths come out in the order of their bytes (code points) without a sort of them all.
        func walk(_ dir: String) {
            guard FileIO.kind(of: absolute(dir)) == .directory, seen.insert(FolderIdentity(absolute(dir))).inserted
            else { return }
            var names: [String] = []
            // Names tested by their bytes (`String`'s prefix and suffix tests compare characters).
            for entry in FileIO.list(absolute(dir)) where entry.name.utf8.first != UInt8(ascii: ".") {
                if entry.kind == .directory {
                    names.append(entry.name + "/")
                } else if entry.kind == .file && VaultPath.isListedName(entry.name) {
                    names.append(entry.name)
                }
            }
            if sorted { names.sort(by: VaultPath.precedes) }
            for name in names {
                if name.utf8.last == UInt8(ascii: "/") {
                    walk(dir + "/" + name.dropLast())
                } else {
                    out.append(dir + "/" + name)
                }
            }
        }
        walk(top)
        return out
    }

    public func readRoom(_ relative: String) throws(VaultError) -> RoomFile {
        try RoomFile(parsing: try FileIO.read(absolute(relative)), path: relative)
    }

    /// The room as far as it can be read, to show or export (`RoomFile.readingWhatCan`): a
    /// message header with a bad timestamp is kept as text and listed in `unreadHeaders`. The
    /// messages of the room's volumes come first (`RoomVolumes.wholeBytes`).
    public func readRoomWhatCan(_ relative: String) throws(VaultError) -> RoomFile {
        let bytes = try RoomVolumes.wholeBytes(ofRoom: relative, bytes: try FileIO.read(absolute(relative)), root: root)
        return try RoomFile.readingWhatCan(bytes, path: relative)
    }

    /// The room's front-matter and its end (a long room is not read whole; `RoomFile.readEnd`).
    public func readRoomEnd(_ relative: String) throws(VaultError) -> RoomFile {
        try RoomFile.readEnd(absolute(relative), path: relative, facts: facts(of: relative)) { _ in true }.room
    }

    /// The room and the stamp of the version read, for a write that must not overwrite a
    /// save made meanwhile (`write(_:to:expecting:)`).
    public func readRoomStamped(_ relative: String) throws(VaultError) -> (room: RoomFile, stamp: FileIO.Stamp) {
        let (bytes, stamp) = try FileIO.readStamped(absolute(relative))
        return (try RoomFile(parsing: bytes, path: relative), stamp)
    }

    public func readDiaryEntry(_ relative: String) throws(VaultError) -> DiaryFile {
        try DiaryFile(parsing: try FileIO.read(absolute(relative)), path: relative)
    }

    // MARK: Changing files

    /// Runs `change` holding the vault's lock. Everything that writes goes through here: a
    /// change that becomes a commit through `change(_:handEdits:_:)` (`Change`).
    ///
    /// Once the lock is held, SIGINT, SIGTERM and SIGHUP wait for `change` to end
    /// (`Termination`): a change is never stopped half-way by them. (While the lock is awaited
    /// they end the process at once: nothing is written yet.)
    public func changing<T>(_ change: () throws(VaultError) -> T) throws(VaultError) -> T {
        if isReadOnly { throw VaultError.readOnly(root: root, operation: "change its files") }
        let lock = try VaultLock(vaultRoot: root, timeout: lockTimeout)
        defer { withExtendedLifetime(lock) {} }
        return try Termination.deferring { () throws(VaultError) -> T in
            if TailWrite.Journal.isPending(journalPath),
                let note = TailWrite.recover(journal: journalPath, root: root)
            {
                report(.warning(note))
            }
            return try change()
        }
    }

    /// Takes `.vault/sync-lock`, held by a `vault sync` (and `--dry-run`, `--undo`, `vault
    /// unlock`) from its first fetch to its last push, so that a second sync waits for the first
    /// (as long as `VAULT_LOCK_TIMEOUT` says, like the vault's lock) instead of failing on a git
    /// ref the first holds; the vault's own lock is taken inside it only for the merge, so a
    /// chat turn goes on during the fetch and the push. Released when the value is freed.
    ///
    /// - Throws: `VaultError.locked` naming the sync that holds it, when the wait is over.
    public func takeSyncLock() throws(VaultError) -> VaultLock {
        if isReadOnly { throw VaultError.readOnly(root: root, operation: "sync") }
        return try VaultLock(vaultRoot: root, name: "sync-lock", timeout: lockTimeout, doing: "vault sync")
    }

    /// `.vault/journal`: the redo journal of appends in place (`TailWrite`).
    var journalPath: String { root + "/" + VaultPath.state + "/journal" }

    /// Hands a note to the front end (`notes`); the library never prints.
    public func report(_ note: Note) { notes(note) }

    /// Replaces the end of a vault file from `offset` with `bytes`, in place (call inside
    /// `changing`); only if the file is still the version `expected`. See `TailWrite`.
    ///
    /// - Returns: the file's stamp after the write.
    public func replaceTail(
        of relative: String, from offset: Int, with bytes: [UInt8], mark: [UInt8], expecting expected: FileIO.Stamp
    ) throws(VaultError) -> FileIO.Stamp {
        try refuseSymbolicLinks(on: relative)
        history?.willChange([relative])
        do {
            return try TailWrite.replace(
                absolute(relative), relative: relative, from: offset, with: bytes, mark: mark, expecting: expected,
                journal: journalPath)
        } catch VaultError.changedOnDisk {
            throw VaultError.changedOnDisk(path: relative)
        }
    }

    /// Like `replaceTail(of:from:with:mark:expecting:)`, with the new end in parts (a long reply
    /// is copied from its file, never held whole: `RoomFile.LongEndChange`).
    public func replaceTail(
        of relative: String, from offset: Int, with parts: [TailWrite.Part], mark: [UInt8],
        expecting expected: FileIO.Stamp
    ) throws(VaultError) -> FileIO.Stamp {
        do {
            return try TailWrite.replace(
                absolute(relative), relative: relative, from: offset, with: parts, mark: mark, expecting: expected,
                journal: journalPath)
        } catch VaultError.changedOnDisk {
            throw VaultError.changedOnDisk(path: relative)
        }
    }

    /// How long to wait for another process's lock (`ProcessSettings.lockTimeout`).
    var lockTimeout: Double { settings.lockTimeout }

    /// Writes a file of the vault atomically (call inside `changing`). With `expecting`, only
    /// if the file is still as it was read (or still missing); see `FileIO.write`.
    ///
    /// Never through a symbolic link: when the file or a folder on its way is one, nothing is
    /// written (`VaultError.symbolicLink`).
    public func write(_ bytes: [UInt8], to relative: String, expecting: FileIO.Expectation = .anything)
        throws(VaultError)
    {
        try refuseSymbolicLinks(on: relative)
        history?.willChange([relative])
        try FileIO.makeDirectory(FileIO.parent(of: absolute(relative)))
        do {
            try FileIO.write(bytes, to: absolute(relative), expecting: expecting)
        } catch VaultError.changedOnDisk {
            throw VaultError.changedOnDisk(path: relative)
        }
    }

    /// Removes a vault file (call inside `changing`); the history notes it first, so a process
    /// killed before it commits the removal leaves it for the next command to commit.
    public func remove(_ relative: String) throws(VaultError) {
        history?.willChange([relative])
        guard unlink(absolute(relative)) == 0 else {
            throw VaultError.io(path: relative, operation: "remove", reason: FileIO.errorText())
        }
    }

    /// Moves a vault file to `to` by a rename (its bytes as they are; call inside `changing`),
    /// never over a file there: the history notes both paths first, so a process killed before
    /// it commits leaves them for the next command to commit, and both folders are flushed.
    public func move(_ from: String, to: String) throws(VaultError) {
        history?.willChange([from, to])
        try FileIO.makeDirectory(FileIO.parent(of: absolute(to)))
        guard !FileIO.entryExists(absolute(to)) else {
            throw VaultError.io(path: to, operation: "move \(from) to", reason: "a file is there already")
        }
        guard rename(absolute(from), absolute(to)) == 0 else {
            throw VaultError.io(path: from, operation: "move to \(to)", reason: FileIO.errorText())
        }
        FileIO.syncDirectory(FileIO.parent(of: absolute(to)))
        FileIO.syncDirectory(FileIO.parent(of: absolute(from)))
    }

    /// Notes that `paths` may change outside vault's own writes (an editor is about to open
    /// them) and will be committed by this process; if it ends first, the next command commits
    /// them (`VaultHistory.willChange`). Call it inside `changing`.
    public func willChange(_ paths: [String]) {
        history?.willChange(paths)
    }

    /// What is known of the version of `relative` on disk now (large files only).
    public func facts(of relative: String) -> FileFacts? {
        FileFacts.current(root: root, relative: relative)
    }

    /// Keeps the number of lines of a room just written (version `stamp`), so the next turn on
    /// a long room need not count them (`FileFacts`).
    func remember(lines room: RoomFile, stamp: FileIO.Stamp) {
        guard stamp.size >= Int64(RoomFile.wholeReadLimit) else { return }
        let lines = (room.elision?.lines ?? 0) + RoomFile.lineFeeds(in: room.bytes)
        FileFacts(stamp: stamp, lines: lines).save(root: root, relative: room.path)
    }

    /// Remembers that the version `stamp` of `relative` has `lineFeeds` line feeds.
    func remember(lineFeeds: Int, of relative: String, stamp: FileIO.Stamp) {
        guard stamp.size >= Int64(RoomFile.wholeReadLimit) else { return }
        FileFacts(stamp: stamp, lines: lineFeeds).save(root: root, relative: relative)
    }

    /// A free path for a new room titled `title`, made at `created` (now when nil): named by
    /// the title's slug (`-2`, `-3`, … when a room anywhere under `rooms/` has that name, in any
    /// normalization: a room's name finds one room), in `roomFolder(created:)`.
    public func newRoomPath(title: String, created: Timestamp? = nil) -> String {
        freeRoomPath(stem: VaultPath.slug(title), in: roomFolder(created: created ?? now()))
    }

    /// The folder a room made at `created` is filed in: `rooms/`, or in a vault of format 2
    /// `rooms/<yyyy>/`, its year as the timestamp writes it.
    public func roomFolder(created: Timestamp) -> String { Vault.roomFolder(created: created, format: config.format) }

    /// The folder a room made at `created` is filed in, in a vault of `format`.
    static func roomFolder(created: Timestamp, format: Int) -> String {
        guard format >= 2 else { return VaultPath.rooms }
        return VaultPath.rooms + "/" + String(format: "%04d", created.localDate.year)
    }

    /// `rooms/` and every folder under it (not hidden, no symbolic link): where rooms are.
    public func roomFolders() -> [String] {
        var out: [String] = []
        var seen = Set<FolderIdentity>()
        func walk(_ dir: String) {
            guard FileIO.kind(of: absolute(dir)) == .directory, seen.insert(FolderIdentity(absolute(dir))).inserted
            else { return }
            out.append(dir)
            // A folder with two links has no subfolder (each one's `..` adds one, on ext4, XFS,
            // tmpfs): a format-1 vault's 20,000 rooms are not listed to learn so.
            var st = stat()
            if lstat(absolute(dir), &st) == 0, st.st_nlink == 2 { return }
            for entry in FileIO.list(absolute(dir)) where entry.kind == .directory && !entry.name.hasPrefix(".") {
                walk(dir + "/" + entry.name)
            }
        }
        walk(VaultPath.rooms)
        return out.isEmpty ? [VaultPath.rooms] : out
    }

    /// The rooms named `stem`: a file `<stem>.md` in any room folder, spelled as typed, composed
    /// (NFC, as Linux writes Hangul) or decomposed (NFD, as macOS does). Found by their names,
    /// without listing a folder: a name in another mix of forms is left to a listing
    /// (`resolve` lists every room when this finds none).
    public func rooms(named stem: String) -> [String] {
        let spellings = Set([stem, stem.precomposedStringWithCanonicalMapping, stem.decomposedStringWithCanonicalMapping])
            .sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        var out: [String] = []
        for folder in roomFolders() {
            for spelling in spellings where FileIO.kind(of: absolute(folder + "/" + spelling + ".md")) == .file {
                out.append(folder + "/" + spelling + ".md")
            }
        }
        return out
    }

    /// `<folder>/<stem>.md`, else `<stem>-2.md`, `-3`, …: the first name no room folder has (in
    /// any normalization: Swift's strings are equal when canonically equivalent).
    func freeRoomPath(stem: String, in folder: String) -> String {
        let folders = Set(roomFolders() + [folder])
        // An ASCII name has one spelling: no need to list the folders (20,000 rooms).
        var taken = Set<String>()
        if !stem.utf8.allSatisfy({ $0 < 0x80 }) {
            for f in folders { for entry in FileIO.list(absolute(f)) { taken.insert(entry.name) } }
        }
        var name = stem + ".md"
        var n = 2
        while taken.contains(name) || folders.contains(where: { FileIO.entryExists(absolute($0 + "/" + name)) }) {
            name = "\(stem)-\(n).md"
            n += 1
        }
        return folder + "/" + name
    }

    /// Where the room that was at `relative` is now, after a rename or a move into another
    /// name in its folder (`mv`, `git mv`, a file manager): the file that is the same file
    /// (`identity`: device and inode), else one changed since that version that holds the
    /// message `messageID` (an editor's "save as"). Nil when there is none: it was deleted.
    func whereRoomMoved(from relative: String, identity: FileIO.Stamp, holding messageID: String) -> String? {
        let folder = FileIO.parent(of: relative)
        var changedSince: [String] = []
        for entry in FileIO.list(absolute(folder)) where entry.kind == .file && entry.name.hasSuffix(".md") {
            guard !entry.name.hasPrefix(".") else { continue }
            let candidate = folder + "/" + entry.name
            guard candidate != relative, let stamp = FileIO.stamp(of: absolute(candidate)) else { continue }
            if stamp.device == identity.device && stamp.inode == identity.inode { return candidate }
            let (a, b) = (stamp.changed, identity.changed)
            if a.tv_sec > b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec >= b.tv_nsec) {
                changedSince.append(candidate)
            }
        }
        for candidate in changedSince.sorted() {
            let room = try? RoomFile.readEnd(absolute(candidate), path: candidate) { _ in true }.room
            if room?.messages.contains(where: { $0.id == messageID }) == true { return candidate }
        }
        return nil
    }

    /// `folder/stem.md`, else `folder/stem-2.md`, … : the first name that nothing in the folder
    /// has, in any Unicode normalization (a `부산.md` made on a Mac takes `부산.md` typed on Linux)
    /// and whatever it is (a symbolic link, even to nothing, takes its name).
    func freePath(folder: String, stem: String) -> String {
        // An ASCII name has one spelling: no need to list the folder (20,000 rooms). Otherwise the
        // names there, as a set of strings: Swift's strings are equal when canonically equivalent.
        let taken: Set<String> =
            stem.utf8.allSatisfy { $0 < 0x80 } ? [] : Set(FileIO.list(absolute(folder)).map(\.name))
        var candidate = "\(folder)/\(stem).md"
        var n = 2
        while FileIO.entryExists(absolute(candidate)) || taken.contains(String(candidate.dropFirst(folder.count + 1))) {
            candidate = "\(folder)/\(stem)-\(n).md"
            n += 1
        }
        return candidate
    }

    /// The display date of a new header, in the vault's locale and zone.
    public func headerDisplay(_ t: Timestamp) -> String {
        DateText.header(t, locale: config.locale, timeZone: config.timeZone)
    }

    /// Now, as a timestamp in the vault's zone.
    public func now() -> Timestamp { Timestamp(date: Date(), timeZone: config.timeZone) }
}
