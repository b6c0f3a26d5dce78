import Foundation
import VaultCore

#if canImport(Glibc)
import Glibc
#endif

/// How an import opens what an export holds. An export is not trusted (issue #36): someone may
/// send one made so that a name in it (a Day One photo's `md5`, a member's path) points at your
/// files, a file in it is a symbolic link to one of them, or the path given is a FIFO that would
/// be waited on forever.
///
/// - A path the person names (`vault import chatgpt ~/Downloads/export.zip`) is taken as named (a
///   link there is followed: the person chose it), but only when it is a regular file or a
///   folder: it is `stat`ed before it is opened, and opened with `O_NONBLOCK` and `fstat`ed, so a
///   FIFO, a device or a socket is refused at once, never waited on or read without end.
///   `Importing` checks every path this way before it takes the vault's lock.
/// - A file inside an export's folder is opened relative to that folder (`ExportDirectory`), one
///   component at a time with `openat` and `O_NOFOLLOW`, after its name was checked
///   (`isInsideName`): no name can reach outside the folder, and a link or a special file inside
///   the export is refused by its name, never read.
///
///     let kind = try ExportInput.kind(of: "/home/me/Downloads/export")   // .folder
///     let folder = try ExportDirectory("/home/me/Downloads/export")
///     let photo = try folder.open("photos/0a1b2c.jpeg")                 // a problem if it is a link
///     let bytes = try photo.bytes(ImportLimits(), what: "photo")
enum ExportInput {
    /// What a path the person named is.
    enum Kind: Equatable { case file, folder }

    /// Whether `path` (a link followed) is a regular file or a folder, told without opening it.
    ///
    /// - Throws: `VaultError.importing` naming `path`: it does not exist, cannot be reached, or is
    ///   a FIFO, a device or a socket.
    static func kind(of path: String) throws(VaultError) -> Kind {
        var st = stat()
        guard stat(path, &st) == 0 else {
            throw problem(path, errno == ENOENT ? "does not exist" : "cannot be opened (\(String(cString: strerror(errno))))")
        }
        switch st.st_mode & S_IFMT {
        case S_IFREG: return .file
        case S_IFDIR: return .folder
        default:
            throw problem(
                path, "is \(kindName(st.st_mode)), not a file or a folder; vault reads an export only from regular files and folders")
        }
    }

    /// Opens the regular file `path` the person named (a link followed) without waiting on it;
    /// `name` is how problems name it (`path` when nil).
    static func openNamed(_ path: String, name: String? = nil) throws(VaultError) -> ExportFileHandle {
        guard try kind(of: path) == .file else {
            throw problem(name ?? path, "is a folder, not a file")
        }
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { throw problem(name ?? path, "cannot be opened (\(String(cString: strerror(errno))))") }
        return try ExportFileHandle(fd: fd, name: name ?? path)
    }

    /// Whether `relative` names something inside a folder: not empty, not absolute, no empty,
    /// `.` or `..` component, no NUL.
    static func isInsideName(_ relative: String) -> Bool {
        !relative.isEmpty && !relative.utf8.contains(0) && !relative.hasPrefix("/")
            && !relative.split(separator: "/", omittingEmptySubsequences: false).contains { $0.isEmpty || $0 == "." || $0 == ".." }
    }

    static func problem(_ file: String, at place: String = "", _ text: String) -> VaultError {
        .importing(ImportProblem(file: file, place: place, problem: text))
    }

    /// What a file of mode `mode` is, in words (`a symbolic link`, `a FIFO`).
    static func kindName(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFLNK: return "a symbolic link"
        case S_IFIFO: return "a FIFO"
        case S_IFCHR, S_IFBLK: return "a device"
        case S_IFSOCK: return "a socket"
        case S_IFDIR: return "a folder"
        default: return "not a regular file"
        }
    }
}

/// The caps on what one import holds whole, so that an export cannot fill the memory: a zip of
/// 1 MB whose one conversation inflates to 1 GiB is refused once the first 64 MiB of that
/// conversation are read, whether the import is a dry run or not.
///
/// The cap is this machine's `max_file_size` (64 MiB by default; `IncomingLimits`), the largest
/// file a sync takes in, which vault.yml may lower and never raise: whoever shares the vault
/// cannot make this machine hold more. `Importing` takes it from its `machineLimits` and the
/// vault; a reader used on its own gets it from its `ImportSink` (the default when none is given).
///
///     # ~/.config/vault/config.yml, or `git config vault.maxFileSize 256M` in the vault
///     limits:
///       max_file_size: 256M     # a conversation, a journal, an image of up to 256 MiB
public struct ImportLimits: Sendable, Hashable {
    /// The most bytes of one thing an import holds whole: a conversation (an element of a
    /// conversations file, counted as it is streamed or inflated), a line of a Claude Code log,
    /// a file read whole (a Day One or jrnl journal, `projects.json`, an image or a photo, a
    /// zip's member read whole).
    public var maxItemSize: Int
    /// Whether the cap is this machine's or vault.yml's lower one (what a refusal says to raise).
    public var origin: IncomingLimits.Origin

    public init(maxItemSize: Int = IncomingLimits().maxFileSize, origin: IncomingLimits.Origin = .machine) {
        self.maxItemSize = maxItemSize
        self.origin = origin
    }

    /// The cap of `limits` (`maxFileSize`).
    public init(_ limits: IncomingLimits) {
        self.init(maxItemSize: limits.maxFileSize, origin: limits.origin(of: "max_file_size"))
    }

    /// The problem's text for one `what` (`conversation`, `line`) past the cap.
    func tooLarge(_ what: String) -> String {
        "is more than \(ByteCount.text(maxItemSize)), the most vault holds of one \(what)"
            + " (\(IncomingLimits.raising("max_file_size", origin: origin)))"
    }
}

/// A regular file of an export, open to read; its one owner, this, closes it.
final class ExportFileHandle {
    /// The file as problems name it.
    let name: String
    /// Its size when it was opened.
    let size: Int
    /// The descriptor (closed by this).
    let fd: Int32

    /// Takes `fd` (closing it when it is not a regular file).
    init(fd: Int32, name: String) throws(VaultError) {
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw ExportInput.problem(name, "is \(ExportInput.kindName(st.st_mode)); vault reads only regular files of an export")
        }
        self.fd = fd
        self.name = name
        self.size = Int(st.st_size)
    }

    deinit { close(fd) }

    /// Calls `body` with each piece of the file from where it was left, `chunkSize` bytes at
    /// most, until its end or until `body` returns false.
    func forEachChunk(_ chunkSize: Int = 1 << 20, _ body: (UnsafeBufferPointer<UInt8>) throws(VaultError) -> Bool)
        throws(VaultError)
    {
        var buffer = [UInt8](repeating: 0, count: max(1, chunkSize))
        var offset = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw ExportInput.problem(name, at: "byte \(offset)", "cannot be read (\(String(cString: strerror(errno))))")
            }
            if count == 0 { return }
            offset += count
            let more = try buffer.withUnsafeBufferPointer { (b) throws(VaultError) in
                try body(UnsafeBufferPointer(rebasing: b[0..<count]))
            }
            if !more { return }
        }
    }

    /// The whole file, when it is no more than the cap (checked as it is read: a file that
    /// grows is not read past it); `what` says what the file is in the problem (`journal`).
    func bytes(_ limits: ImportLimits, what: String = "file of an export") throws(VaultError) -> [UInt8] {
        let cap = limits.maxItemSize
        guard size <= cap else { throw ExportInput.problem(name, limits.tooLarge(what)) }
        var out: [UInt8] = []
        out.reserveCapacity(size)
        try forEachChunk(min(1 << 20, cap + 1)) { (chunk) throws(VaultError) in
            guard out.count + chunk.count <= cap else { throw ExportInput.problem(name, limits.tooLarge(what)) }
            out.append(contentsOf: chunk)
            return true
        }
        return out
    }

    /// The file's first `count` bytes (fewer when it is shorter).
    func prefix(_ count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: max(0, count))
        var done = 0
        while done < out.count {
            let n = out.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, $0.count - done, off_t(done)) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            done += n
        }
        return Array(out.prefix(done))
    }
}

/// An export's folder, open: every file in it is reached relative to it, each component of the
/// way opened with `O_NOFOLLOW`, so no name and no link leads out of it (`ExportInput`).
final class ExportDirectory {
    /// The folder as the person named it (problems name its files from it).
    let path: String
    private let fd: Int32

    /// What is at a path inside the folder.
    enum Entry: Equatable {
        case file
        case folder
        case missing
        /// Neither a regular file nor a folder (`kind`: `a symbolic link`, `a FIFO`), at `path`:
        /// the file itself or a folder on the way to it.
        case refused(path: String, kind: String)
    }

    /// Opens the folder `path` (named by the person: a link followed).
    init(_ path: String) throws(VaultError) {
        self.path = path
        guard try ExportInput.kind(of: path) == .folder else { throw ExportInput.problem(path, "is not a folder") }
        fd = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw ExportInput.problem(path, "cannot be opened (\(String(cString: strerror(errno))))") }
    }

    deinit { close(fd) }

    /// How problems name `relative`: the folder's path and it.
    func displayName(_ relative: String) -> String {
        path == "." ? relative : path + "/" + relative
    }

    /// What is at `relative` (nothing is followed on the way).
    func entry(_ relative: String) -> Entry {
        guard ExportInput.isInsideName(relative) else { return .missing }
        let parts = relative.split(separator: "/").map(String.init)
        switch follow(parts.dropLast()) {
        case .folder(let parent): return Self.entry(parent.fd, parts.last!, relative)
        case .stopped(let entry): return entry == .file ? .missing : entry
        }
    }

    /// Opens the regular file `relative`.
    ///
    /// - Throws: `VaultError.importing` naming it: a name that is not inside the folder, nothing
    ///   there, or a link or a special file there or on the way (never opened).
    func open(_ relative: String) throws(VaultError) -> ExportFileHandle {
        guard ExportInput.isInsideName(relative) else {
            throw ExportInput.problem(
                displayName(relative), "is not a name inside the export (it is empty, absolute, or has a `..` or a NUL)")
        }
        let parts = relative.split(separator: "/").map(String.init)
        let parent = try openFolder(parts.dropLast(), for: relative)
        // Told before it is opened: a device is never opened.
        switch Self.entry(parent.fd, parts.last!, relative) {
        case .file: break
        case .missing: throw ExportInput.problem(displayName(relative), "does not exist")
        case .folder: throw ExportInput.problem(displayName(relative), "is a folder, not a file")
        case .refused(let at, let kind): throw refusal(at, kind)
        }
        let file = openat(parent.fd, parts.last!, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard file >= 0 else {
            if errno == ELOOP { throw refusal(relative, "a symbolic link") }
            throw ExportInput.problem(displayName(relative), "cannot be opened (\(String(cString: strerror(errno))))")
        }
        return try ExportFileHandle(fd: file, name: displayName(relative))
    }

    /// The problem of a link or a special file at `relative`.
    func refusal(_ relative: String, _ kind: String) -> VaultError {
        ExportInput.problem(
            displayName(relative), "is \(kind); vault reads no link or special file in an export, only its regular files")
    }

    /// The entries of the folder `relative` ("": this one), by name, sorted: files, folders, and
    /// links and special files (so a reader can name them when it refuses them); none when
    /// `relative` is not a folder reached without a link.
    func entries(in relative: String = "") -> [(name: String, entry: Entry)] {
        let parts = relative.split(separator: "/").map(String.init)
        guard relative.isEmpty || ExportInput.isInsideName(relative), case .folder(let folder) = follow(parts[...]) else {
            return []
        }
        return Self.names(in: folder).map { name in
            (name, Self.entry(folder.fd, name, relative.isEmpty ? name : relative + "/" + name))
        }.sorted { $0.name < $1.name }
    }

    /// Every file below the folder, `/`-separated and sorted, with what it is (not folders;
    /// links and special files are listed, and a folder that is a link is not entered).
    func files() -> [(path: String, entry: Entry)] {
        var out: [(path: String, entry: Entry)] = []
        func walk(_ folder: OpenFolder, _ prefix: String, depth: Int) {
            for name in Self.names(in: folder) {
                let path = prefix.isEmpty ? name : prefix + "/" + name
                let entry = Self.entry(folder.fd, name, path)
                guard entry == .folder else {
                    out.append((path, entry))
                    continue
                }
                let inner = OpenFolder(fd: openat(folder.fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC))
                if inner.fd >= 0 && depth < 64 { walk(inner, path, depth: depth + 1) }
            }
        }
        walk(OpenFolder(fd: dup(fd)), "", depth: 0)
        return out.sorted { $0.path < $1.path }
    }

    // MARK: The walk

    /// A folder's descriptor, closed with it.
    private final class OpenFolder {
        let fd: Int32
        init(fd: Int32) { self.fd = fd }
        deinit { if fd >= 0 { close(fd) } }
    }

    /// Where a walk down to a folder ended: the folder, or what stopped it (`.missing`, `.file`:
    /// not a folder, `.refused`: a link or a special file on the way).
    private enum Way {
        case folder(OpenFolder)
        case stopped(Entry)
    }

    /// The folder `parts` below this one, opened one component at a time with `O_NOFOLLOW`.
    private func follow(_ parts: ArraySlice<String>) -> Way {
        var current = OpenFolder(fd: dup(fd))
        var done: [String] = []
        for part in parts {
            done.append(part)
            let next = openat(current.fd, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard next >= 0 else {
                let entry = Self.entry(current.fd, part, done.joined(separator: "/"))
                return .stopped(entry == .folder ? .missing : entry)
            }
            current = OpenFolder(fd: next)
        }
        return .folder(current)
    }

    /// The folder `parts`, to open `relative` in it; a problem naming what stopped the way.
    private func openFolder(_ parts: ArraySlice<String>, for relative: String) throws(VaultError) -> OpenFolder {
        switch follow(parts) {
        case .folder(let folder): return folder
        case .stopped(.refused(let path, let kind)): throw refusal(path, kind)
        case .stopped(.file): throw ExportInput.problem(displayName(relative), "does not exist (a file is where its folder would be)")
        case .stopped: throw ExportInput.problem(displayName(relative), "does not exist")
        }
    }

    /// What `name` in the folder `parent` is (`path` is what a refusal names), not following it.
    private static func entry(_ parent: Int32, _ name: String, _ path: String) -> Entry {
        var st = stat()
        guard fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else { return .missing }
        switch st.st_mode & S_IFMT {
        case S_IFREG: return .file
        case S_IFDIR: return .folder
        default: return .refused(path: path, kind: ExportInput.kindName(st.st_mode))
        }
    }

    /// The names in an open folder (not `.` and `..`).
    private static func names(in folder: OpenFolder) -> [String] {
        let copy = dup(folder.fd)
        guard copy >= 0 else { return [] }
        guard let stream = fdopendir(copy) else {
            close(copy)
            return []
        }
        defer { closedir(stream) }
        rewinddir(stream)  // the copy shares the folder's offset: a second listing starts over
        var names: [String] = []
        while let item = readdir(stream) {
            let name = withUnsafePointer(to: item.pointee.d_name) {
                String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
