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

    /// The whole file.
    public static func read(_ path: String) throws(VaultError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw VaultError.io(path: path, operation: "read", reason: errorText()) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw VaultError.io(path: path, operation: "read", reason: errorText()) }
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
    static func read(_ path: String, offset: Int, count: Int) throws(VaultError) -> (bytes: [UInt8], size: Int) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw VaultError.io(path: path, operation: "read", reason: errorText()) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw VaultError.io(path: path, operation: "read", reason: errorText()) }
        let size = Int(st.st_size)
        let want = max(0, min(count, size - offset))
        var out = [UInt8](repeating: 0, count: want)
        var filled = 0
        while filled < want {
            let n = out.withUnsafeMutableBytes { buf in pread(fd, buf.baseAddress! + filled, want - filled, off_t(offset + filled)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            filled += n
        }
        if filled < want { out.removeSubrange(filled...) }
        return (out, size)
    }

    /// Replaces (or creates) `path` with `bytes`, atomically and durably.
    public static func write(_ bytes: [UInt8], to path: String) throws(VaultError) {
        let dir = parent(of: path)
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let temp = "\(dir)/.\(name).vault-tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
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
        if failure == nil, fsync(fd) != 0 { failure = errno }
        if close(fd) != 0, failure == nil { failure = errno }
        if failure == nil, rename(temp, path) != 0 { failure = errno }
        if let failure {
            unlink(temp)
            throw VaultError.io(path: path, operation: "write", reason: errorText(failure))
        }
        syncDirectory(dir)
    }

    /// Flushes a folder's entries (the rename) to disk.
    static func syncDirectory(_ dir: String) {
        let fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
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

    public static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Names in a folder (not `.`/`..`), with whether each is a folder.
    static func list(_ dir: String) -> [(name: String, isDirectory: Bool)] {
        guard let d = opendir(dir) else { return [] }
        defer { closedir(d) }
        var out: [(String, Bool)] = []
        while let entry = readdir(d) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name == "." || name == ".." { continue }
            var isDir = entry.pointee.d_type == UInt8(DT_DIR)
            if entry.pointee.d_type == UInt8(DT_UNKNOWN) || entry.pointee.d_type == UInt8(DT_LNK) {
                isDir = isDirectory(dir + "/" + name)
            }
            out.append((name, isDir))
        }
        return out
    }
}
