#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading and crash-safe writing of whole files, with POSIX calls.
///
/// Every write goes to a temporary file in the same folder, is flushed with
/// `fsync`, and is renamed over the target; the folder is then flushed too.
/// A crash at any moment leaves either the old file or the new one, never a
/// mix, and never half a message.
public enum FileIO {
    static func errorText(_ code: Int32 = errno) -> String { String(cString: strerror(code)) }

    /// What identifies one version of a file on disk: any write by any program changes it
    /// (a save by rename gives a new inode, an in-place save a new change time).
    public struct Stamp: Equatable, Sendable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modified: timespec
        var changed: timespec

        init(device: UInt64, inode: UInt64, size: Int64, modified: timespec, changed: timespec) {
            self.device = device
            self.inode = inode
            self.size = size
            self.modified = modified
            self.changed = changed
        }

        package init(_ st: stat) {
            device = UInt64(st.st_dev)
            inode = UInt64(st.st_ino)
            size = Int64(st.st_size)
            modified = st.st_mtim
            changed = st.st_ctim
        }

        public static func == (a: Stamp, b: Stamp) -> Bool {
            a.device == b.device && a.inode == b.inode && a.size == b.size
                && a.modified.tv_sec == b.modified.tv_sec && a.modified.tv_nsec == b.modified.tv_nsec
                && a.changed.tv_sec == b.changed.tv_sec && a.changed.tv_nsec == b.changed.tv_nsec
        }
    }

    /// What a write expects to find at its path when it replaces it.
    public enum Expectation: Sendable {
        /// Replace whatever is there.
        case anything
        /// A new file: refuse if one appeared meanwhile.
        case absent
        /// The version read before (`read(_:stamp:)`): refuse if anyone wrote the file since.
        case unchanged(Stamp)
    }

    /// Stamps of many files in a few folders, each folder opened once and its files stamped
    /// relative to it (`fstatat`): the kernel walks the vault's path once per folder, not once per
    /// file. Files in the same folder should come one after another. One per thread.
    public struct FolderStamper: ~Copyable {
        let root: String
        private var folder: Substring = ""
        private var descriptor: Int32 = -1

        package init(root: String) { self.root = root }

        deinit { if descriptor >= 0 { close(descriptor) } }

        /// The stamp of `relative` (a path inside `root`; `stamp(of:)`'s answer), nil when there is no file.
        package mutating func stamp(of relative: String) -> Stamp? {
            guard let slash = relative.utf8.lastIndex(of: UInt8(ascii: "/")) else {
                return FileIO.stamp(of: root + "/" + relative)
            }
            let folder = relative[..<slash]
            if descriptor < 0 || folder != self.folder {
                if descriptor >= 0 { close(descriptor) }
                descriptor = open(root + "/" + folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                self.folder = folder
            }
            guard descriptor >= 0 else { return FileIO.stamp(of: root + "/" + relative) }
            var st = stat()
            let name = relative[relative.utf8.index(after: slash)...]
            return fstatat(descriptor, String(name), &st, 0) == 0 ? Stamp(st) : nil
        }
    }

    /// The stamp of the file at `path` now, or nil when there is none.
    public static func stamp(of path: String) -> Stamp? {
        var st = stat()
        return stat(path, &st) == 0 ? Stamp(st) : nil
    }

    /// The whole file and the stamp of the version read.
    public static func readStamped(_ path: String) throws(VaultError) -> (bytes: [UInt8], stamp: Stamp) {
        var stamp: Stamp?
        let bytes = try read(path, stamp: &stamp)
        return (bytes, stamp!)
    }

    /// The whole file.
    public static func read(_ path: String) throws(VaultError) -> [UInt8] {
        var stamp: Stamp?
        return try read(path, stamp: &stamp)
    }

    /// The whole file, only if `path` is not a symbolic link (for the commit engine, which
    /// never commits what a link points to).
    ///
    /// - Throws: `VaultError.symbolicLink` when it is one.
    public static func readWithoutFollowing(_ path: String) throws(VaultError) -> [UInt8] {
        var stamp: Stamp?
        return try read(path, stamp: &stamp, flags: O_NOFOLLOW)
    }

    /// The whole file; `stamp` gets the stamp of the version read (from the same open file).
    static func read(_ path: String, stamp: inout Stamp?, flags: Int32 = 0) throws(VaultError) -> [UInt8] {
        let (fd, st) = try openRegularFile(path, flags: flags)
        defer { close(fd) }
        sharedLock(fd)
        stamp = Stamp(st)
        // Read straight into the array's storage (no zero-filling); a file that grew since
        // fstat is read on to its end.
        let size = Int(st.st_size)
        var failure: Int32?
        var out = [UInt8](unsafeUninitializedCapacity: size) { buf, count in
            while count < size {
                let n = Glibc.read(fd, buf.baseAddress! + count, size - count)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                if n == 0 { return }
                count += n
            }
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 16384) { chunk in
            while failure == nil {
                let n = Glibc.read(fd, chunk.baseAddress!, chunk.count)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                } else if n == 0 {
                    break
                } else {
                    out += chunk[..<n]
                }
            }
        }
        if let failure { throw VaultError.io(path: path, operation: "read", reason: errorText(failure)) }
        return out
    }

    /// Up to `count` bytes from `offset`, and the file's size.
    public static func read(_ path: String, offset: Int, count: Int) throws(VaultError) -> (bytes: [UInt8], size: Int) {
        let (fd, st) = try openRegularFile(path)
        defer { close(fd) }
        sharedLock(fd)
        let size = Int(st.st_size)
        let out = try pread(fd, offset: offset, count: max(0, min(count, size - offset)), path: path)
        return (out, size)
    }

    /// Opens `path` to read, only if it is a regular file: a FIFO is opened without waiting for
    /// a writer (`O_NONBLOCK`) and refused, as are devices, sockets and folders, so that no
    /// command hangs on one or reads a device without end. Returns the descriptor and its stat.
    ///
    /// - Throws: `UntrustedInput.notRegularFile`; `VaultError.symbolicLink` for a link when
    ///   `flags` holds `O_NOFOLLOW`.
    static func openRegularFile(_ path: String, flags: Int32 = 0) throws(VaultError) -> (Int32, stat) {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | flags)
        guard fd >= 0 else {
            if errno == ELOOP, flags & O_NOFOLLOW != 0 {
                let target = linkText(path).map { String(decoding: $0, as: UTF8.self) } ?? "?"
                throw VaultError.symbolicLink(path: path, target: target)
            }
            throw VaultError.io(path: path, operation: "read", reason: errorText())
        }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            let reason = errorText()
            close(fd)
            throw VaultError.io(path: path, operation: "read", reason: reason)
        }
        guard st.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw VaultError.untrusted(.notRegularFile(path: path, kind: kindName(st.st_mode)))
        }
        return (fd, st)
    }

    /// What a file of mode `mode` is, in words.
    static func kindName(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFIFO: return "a FIFO"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFSOCK: return "a socket"
        case S_IFDIR: return "a folder"
        case S_IFLNK: return "a symbolic link"
        default: return "a special file"
        }
    }

    /// Waits while a `TailWrite` is writing the end of the file (it holds an exclusive
    /// `flock`), so a read never sees half of it. Released when the file is closed.
    @inline(__always)
    static func sharedLock(_ fd: Int32) {
        while flock(fd, LOCK_SH) != 0 && errno == EINTR {}
    }

    /// `count` bytes at `offset` of an open file (fewer at its end).
    public static func pread(_ fd: Int32, offset: Int, count: Int, path: String) throws(VaultError) -> [UInt8] {
        guard count > 0 else { return [] }
        var failure: Int32?
        let out = [UInt8](unsafeUninitializedCapacity: count) { buf, filled in
            while filled < count {
                let n = Glibc.pread(fd, buf.baseAddress! + filled, count - filled, off_t(offset + filled))
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                if n == 0 { return }
                filled += n
            }
        }
        if let failure { throw VaultError.io(path: path, operation: "read", reason: errorText(failure)) }
        return out
    }

    /// A file name made from `base` that no other call in any process returns:
    /// `<time>-<pid>-<random>-<base>`.
    static func uniqueName(base: String) -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return "\(now.tv_sec)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))-\(base)"
    }

    /// The names of the temporary files of `write` (a `.gitignore` pattern): `.NAME.vault-tmp-PID-N`.
    public static let temporaryPattern = ".*.vault-tmp-*"

    /// Replaces (or creates) `path` with `bytes`, atomically and durably.
    ///
    /// With `expecting`, the file is replaced only if it is still what the caller read
    /// (`.unchanged`) or still missing (`.absent`); otherwise nothing is written and
    /// `VaultError.changedOnDisk` is thrown, so a save made in an editor meanwhile is never
    /// overwritten. The check is made just before the rename (a new file is linked into
    /// place, which fails if one appeared).
    ///
    /// `durable: false` skips the flushes, for caches whose loss costs only time.
    public static func write(
        _ bytes: [UInt8], to path: String, expecting: Expectation = .anything, durable: Bool = true
    ) throws(VaultError) {
        let temp = try writeTemporary(bytes, for: path, flush: durable)
        var failure: Int32?
        switch expecting {
        case .anything:
            if rename(temp, path) != 0 { failure = errno }
        case .unchanged(let stamp):
            guard FileIO.stamp(of: path) == stamp else {
                unlink(temp)
                throw VaultError.changedOnDisk(path: path)
            }
            if rename(temp, path) != 0 { failure = errno }
        case .absent:
            if link(temp, path) != 0 {
                let code = errno
                unlink(temp)
                if code == EEXIST { throw VaultError.changedOnDisk(path: path) }
                throw VaultError.io(path: path, operation: "write", reason: errorText(code))
            }
            unlink(temp)
        }
        if let failure {
            unlink(temp)
            throw VaultError.io(path: path, operation: "write", reason: errorText(failure))
        }
        if durable { syncDirectory(parent(of: path)) }
    }

    /// Replaces (or creates) every file of `paths` with what `contents` gives for its index,
    /// and removes every file of `removing`: each file atomically, all of them durably, with
    /// one flush per file and one per folder instead of two per file.
    ///
    /// `write` flushes each file and then its folder before the next one begins, so a hundred
    /// files cost two hundred waits for the disk, one after the other. Here every file is first
    /// written to its temporary file (`.NAME.vault-tmp-PID-N`, as `write` names it) without a
    /// flush, its way to the disk only started (`startWriteback`); then each temporary file is flushed (the file system commits the first flush's
    /// journal with the others' metadata in it, so the rest mostly find their work done); only
    /// then is each renamed over its target, and each folder touched is flushed once. A crash
    /// at any moment leaves every file either old or new, never half written, and when this
    /// returns every file is on disk: a caller that moves a branch afterwards never points it
    /// at files that a crash could take back. Removals come last, after the writes.
    ///
    /// Only `contents` of one file at a time is held, so a checkout of many files needs no
    /// more memory than its largest file. When a write fails, the temporary files made so far
    /// are deleted and nothing has been replaced; when a rename fails, the files renamed
    /// before it are new and flushed (their folders too), the rest untouched.
    ///
    /// ```swift
    /// try FileIO.writeAll(["/v/rooms/a.md", "/v/rooms/b.md"]) { i in texts[i] }
    /// ```
    public static func writeAll(
        _ paths: [String], removing: [String] = [], contents: (Int) throws(VaultError) -> [UInt8]
    ) throws(VaultError) {
        var temps: [String] = []
        temps.reserveCapacity(paths.count)
        do throws(VaultError) {
            for (i, path) in paths.enumerated() {
                temps.append(try writeTemporary(try contents(i), for: path, flush: false, startWriteback: true))
            }
            Trace.mark("files: \(paths.count) written")
            for (temp, path) in zip(temps, paths) {
                let fd = open(temp, O_RDONLY | O_CLOEXEC)
                guard fd >= 0, fsync(fd) == 0 else {
                    let reason = errorText()
                    if fd >= 0 { close(fd) }
                    throw VaultError.io(path: path, operation: "write", reason: reason)
                }
                close(fd)
            }
        } catch {
            for temp in temps { unlink(temp) }
            throw error
        }
        Trace.mark("files: flushed")
        var folders: [String] = []
        var seen = Set<String>()
        defer { for folder in folders { syncDirectory(folder) } }
        for (i, (temp, path)) in zip(temps, paths).enumerated() {
            guard rename(temp, path) == 0 else {
                let reason = errorText()
                for left in temps[i...] { unlink(left) }
                throw VaultError.io(path: path, operation: "write", reason: reason)
            }
            let folder = parent(of: path)
            if seen.insert(folder).inserted { folders.append(folder) }
        }
        for path in removing {
            guard unlink(path) == 0 || errno == ENOENT else {
                throw VaultError.io(path: path, operation: "remove", reason: errorText())
            }
            let folder = parent(of: path)
            if seen.insert(folder).inserted { folders.append(folder) }
        }
    }

    /// Writes `bytes` to a new temporary file beside `path` (`.NAME.vault-tmp-PID-N`, with the
    /// mode of the file it will replace), flushed when `flush`, and returns its path.
    private static func writeTemporary(
        _ bytes: [UInt8], for path: String, flush: Bool, startWriteback: Bool = false
    ) throws(VaultError) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let temp = "\(parent(of: path))/.\(name).vault-tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        var mode: mode_t = 0o644
        var st = stat()
        if stat(path, &st) == 0 { mode = st.st_mode & 0o7777 }
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw VaultError.io(path: path, operation: "write", reason: errorText()) }
        var failure: Int32?
        bytes.withUnsafeBytes { buf in
            var done = 0
            while done < buf.count {
                let n = Glibc.write(fd, buf.baseAddress! + done, buf.count - done)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                done += n
            }
        }
        if failure == nil, flush, fsync(fd) != 0 { failure = errno }
        if failure == nil, startWriteback { _ = FileIO.startWriteback?(fd, 0, 0, 2) }  // SYNC_FILE_RANGE_WRITE
        if close(fd) != 0, failure == nil { failure = errno }
        if let failure {
            unlink(temp)
            throw VaultError.io(path: path, operation: "write", reason: errorText(failure))
        }
        return temp
    }

    /// Linux's `sync_file_range`, which Swift's Glibc module leaves out: with
    /// `SYNC_FILE_RANGE_WRITE` it starts writing a file's pages to disk without waiting, so a
    /// batch's files are on their way (and their blocks allocated in one journal transaction)
    /// before the first `fsync` waits. Only a head start: nil (another system), nothing is lost
    /// but time.
    static let startWriteback: (@convention(c) (Int32, Int64, Int64, UInt32) -> Int32)? = {
        #if os(Linux)
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "sync_file_range") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int32, Int64, Int64, UInt32) -> Int32).self)
        #else
        return nil
        #endif
    }()

    /// Flushes a folder's entries (the rename) to disk.
    static func syncDirectory(_ dir: String) {
        let fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }

    /// Removes a file and flushes its folder, so the removal survives a crash. A file that is
    /// already gone is not an error.
    public static func remove(_ path: String) throws(VaultError) {
        guard unlink(path) == 0 || errno == ENOENT else {
            throw VaultError.io(path: path, operation: "remove", reason: errorText())
        }
        syncDirectory(parent(of: path))
    }

    /// Creates a folder and its parents (like `mkdir -p`).
    public static func makeDirectory(_ path: String) throws(VaultError) {
        var st = stat()
        if stat(path, &st) == 0 {
            guard st.st_mode & S_IFMT == S_IFDIR else {
                throw VaultError.io(path: path, operation: "create the folder", reason: "a file with that name exists")
            }
            return
        }
        let up = parent(of: path)
        if up != path && !up.isEmpty { try makeDirectory(up) }
        if mkdir(path, 0o755) != 0 && errno != EEXIST {
            throw VaultError.io(path: path, operation: "create the folder", reason: errorText())
        }
    }

    /// The size in bytes of the file at `path`, or nil when there is none.
    public static func size(of path: String) -> Int? {
        var st = stat()
        return stat(path, &st) == 0 ? Int(st.st_size) : nil
    }

    public static func exists(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0
    }

    public static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && st.st_mode & S_IFMT == S_IFDIR
    }

    /// Seconds since 1970 of the file's last change, or `nil`.
    static func modificationTime(_ path: String) -> Double? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec) / 1e9
    }

    /// Removes the folders above `path` that are empty now, below the vault's own folders
    /// (`rooms/`, `volumes/`, `diary/` stay), as git does when a checkout removes a folder's
    /// last file: `rmdir` only, which never removes a folder that holds anything.
    public static func removeEmptyFolders(above path: String, upTo root: String) {
        var folder = parent(of: path)
        while folder.hasPrefix(root + "/"), folder.dropFirst(root.count + 1).contains("/"), rmdir(folder) == 0 {
            folder = parent(of: folder)
        }
    }

    public static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// What a name in a folder is, without following a symbolic link.
    public enum Kind: Sendable, Equatable {
        case file
        case directory
        case symbolicLink
        /// A device, a socket, a pipe.
        case other
    }

    /// Names in a folder (not `.`/`..`), with what each is. Symbolic links are reported as
    /// such, never followed.
    public static func list(_ dir: String) -> [(name: String, kind: Kind)] {
        guard let d = opendir(dir) else { return [] }
        defer { closedir(d) }
        var out: [(String, Kind)] = []
        while let entry = readdir(d) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name == "." || name == ".." { continue }
            let kind: Kind
            switch Int32(entry.pointee.d_type) {
            case Int32(DT_REG): kind = .file
            case Int32(DT_DIR): kind = .directory
            case Int32(DT_LNK): kind = .symbolicLink
            case Int32(DT_UNKNOWN): kind = FileIO.kind(of: dir + "/" + name) ?? .other
            default: kind = .other
            }
            out.append((name, kind))
        }
        return out
    }

    /// What is at `path` itself (a link is not followed), or nil when nothing is.
    public static func kind(of path: String) -> Kind? {
        var st = stat()
        guard lstat(path, &st) == 0 else { return nil }
        switch st.st_mode & S_IFMT {
        case S_IFREG: return .file
        case S_IFDIR: return .directory
        case S_IFLNK: return .symbolicLink
        default: return .other
        }
    }

    /// Whether anything (a symbolic link included, even one to nothing) is at `path`.
    public static func entryExists(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0
    }

    /// The text of the symbolic link at `path` (where it points, as written), or nil when
    /// `path` is not a link.
    public static func linkText(_ path: String) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = buffer.withUnsafeMutableBufferPointer { b in
            b.baseAddress!.withMemoryRebound(to: CChar.self, capacity: b.count) { readlink(path, $0, b.count) }
        }
        guard n >= 0 else { return nil }
        return Array(buffer[..<n])
    }

    /// The path with every symbolic link, `.` and `..` resolved, or nil when it cannot be
    /// (a link to nothing, a loop).
    public static func resolvedPath(_ path: String) -> String? {
        guard let p = realpath(path, nil) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }
}
