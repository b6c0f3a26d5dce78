import CGit2
import CVaultObjects
import VaultCore

#if canImport(Glibc)
import Glibc
#endif

/// Files of the vault as blobs, large ones read in pieces (`CVaultObjects/blobs.c`).
///
/// A long room (10,000 messages, megabytes) changes by a few kilobytes at its end on every
/// turn. Its blob is hashed and written without holding the file in memory, and the
/// compressed pieces of the unchanged beginning are copied from the blob written the turn
/// before: where they end, and the Adler-32 of the file up to each end, is kept in
/// `.vault/blobs/<blob id>` (a cache: without it, or when the file differs, everything is
/// compressed again). Small files go through `ObjectStore` whole.
extension GitHistory {
    /// Files at least this large are read in pieces.
    static let largeFileSize = 256 * 1024
    /// Bytes of a large file between two points where its compressed stream can be reused.
    static let blobPieceSize: UInt64 = 64 * 1024

    /// What is at a vault path on disk, as git sees it: a symbolic link is a link (its blob is
    /// the link's own text, its mode 120000), never what it points to.
    enum WorkFile {
        case missing
        case link(text: [UInt8])
        case file(size: Int)
    }

    /// What is at `relative`. A path below a linked folder is refused, as `git add` refuses a
    /// path "beyond a symbolic link": what is there lies outside the vault's tree.
    func workFile(_ relative: String) throws(VaultError) -> WorkFile {
        var folder = ""
        for part in relative.split(separator: "/").dropLast() {
            folder += (folder.isEmpty ? "" : "/") + part
            switch FileIO.kind(of: root + "/" + folder) {
            case .directory?: continue
            case .symbolicLink?:
                let text = FileIO.linkText(root + "/" + folder).map { String(decoding: $0, as: UTF8.self) } ?? "?"
                throw VaultError.symbolicLink(path: folder, target: text)
            default: return .missing
            }
        }
        var st = stat()
        guard lstat(root + "/" + relative, &st) == 0 else { return .missing }
        switch st.st_mode & S_IFMT {
        case S_IFLNK: return .link(text: FileIO.linkText(root + "/" + relative) ?? [])
        case S_IFREG: return .file(size: Int(st.st_size))
        default: return .missing
        }
    }

    /// The blob id of the vault path `relative` as it is on disk and whether it is a symbolic
    /// link, or nil when there is nothing there.
    ///
    /// What is read: nothing when `known` (the bytes a change holds) is still the version on
    /// disk (its stamp; then its bytes are hashed), nor for a large file whose facts
    /// (`.vault/facts/`) are about the version on disk; else the file, whole or in pieces.
    func blobEntry(ofFile relative: String, known: KnownFile? = nil) throws(VaultError)
        -> (oid: git_oid, isLink: Bool)?
    {
        switch try workFile(relative) {
        case .missing: return nil
        case .link(let text): return (text.withUnsafeBytes { ObjectStore.id(of: $0, type: GIT_OBJECT_BLOB) }, true)
        case .file(let size):
            if let bytes = current(known, of: relative, size: size) {
                return (bytes.withUnsafeBytes { ObjectStore.id(of: $0, type: GIT_OBJECT_BLOB) }, false)
            }
            return try blobID(ofFile: relative, size: size).map { ($0, false) }
        }
    }

    /// The bytes of `known` when they are the regular file `relative` of `size` bytes (from
    /// `workFile`) as it is now: the file has the stamp they were read or written with.
    func current(_ known: KnownFile?, of relative: String, size: Int) -> [UInt8]? {
        guard let known, known.bytes.count == size, FileIO.stamp(of: root + "/" + relative) == known.stamp else {
            return nil
        }
        return known.bytes
    }

    /// The blob id of the vault file `relative` as it is on disk, or nil when there is none.
    /// A symbolic link gives the id of its text (`blobEntry(ofFile:)`).
    func blobID(ofFile relative: String) throws(VaultError) -> git_oid? {
        try blobEntry(ofFile: relative)?.oid
    }

    /// The blob id of the regular file `relative` of `size` bytes, or nil when it is gone.
    private func blobID(ofFile relative: String, size: Int) throws(VaultError) -> git_oid? {
        let path = root + "/" + relative
        if size < GitHistory.largeFileSize {
            guard let bytes = try readWithoutFollowing(relative) else { return nil }
            return bytes.withUnsafeBytes { ObjectStore.id(of: $0, type: GIT_OBJECT_BLOB) }
        }
        // Known from the last commit of this version of the file (FileFacts): not read again.
        if let known = FileFacts.current(root: root, relative: relative)?.blob {
            var oid = git_oid()
            if git_oid_fromstr(&oid, known) == 0 { return oid }
        }
        var oid = git_oid()
        var hashed: UInt64 = 0
        if cvault_blob_hash_file(&oid, &hashed, path) != 0 {
            if errno == ENOENT { return nil }
            if errno == ELOOP { throw VaultError.changedOnDisk(path: relative) }
            throw GitHistory.unreadable(relative, errno)
        }
        return oid
    }

    /// The bytes of the vault file `relative`, never through a symbolic link (one that
    /// appeared since `workFile` looked: the file changed on disk); nil when it is gone. A file
    /// that is there but cannot be read (its permissions) is an error, never a deletion:
    /// committing it as deleted would drop it from the history, and from every machine the
    /// vault syncs with.
    func readWithoutFollowing(_ relative: String) throws(VaultError) -> [UInt8]? {
        let path = root + "/" + relative
        do {
            return try FileIO.readWithoutFollowing(path)
        } catch .symbolicLink {
            throw VaultError.changedOnDisk(path: relative)
        } catch {
            if !FileIO.entryExists(path) { return nil }
            guard case .io(_, _, let reason) = error else { throw error }
            throw GitHistory.unreadable(relative, reason: reason, permissions: access(path, R_OK) != 0)
        }
    }

    /// A vault file that exists and cannot be read (`code`: errno): nothing is committed.
    static func unreadable(_ relative: String, _ code: Int32) -> VaultError {
        let reason = String(cString: strerror(code))
        return unreadable(relative, reason: reason, permissions: code == EACCES || code == EPERM)
    }

    static func unreadable(_ relative: String, reason: String, permissions: Bool = false) -> VaultError {
        let fix = permissions ? " (give yourself read access: chmod u+r \(relative))" : ""
        return VaultError.io(
            path: relative, operation: "read",
            reason: "\(reason). Nothing was committed: vault commits a file only as it can read it\(fix), "
                + "then run the command again")
    }

    /// Writes the vault file `relative` (a regular file: `workFile`) as a blob and returns its
    /// id (nil when the file is gone). `previous`, the blob it replaces, lends its unchanged
    /// compressed pieces.
    func writeBlob(ofFile relative: String, size: Int, replacing previous: git_oid?) throws(VaultError) -> git_oid? {
        let path = root + "/" + relative
        if size < GitHistory.largeFileSize {
            guard let bytes = try readWithoutFollowing(relative) else { return nil }
            return try writeBlob(bytes)
        }
        let objectsDir = gitDirectory + "/objects"
        let old = previous.flatMap { BlobLayoutFile.read(root: root, blob: $0) }
        defer { old?.points?.deallocate() }
        let oldObject = previous.map { GitHistory.looseObjectPath(objectsDir, $0) }
        var oid = git_oid()
        var layout = cvault_blob_layout()
        var reused: UInt64 = 0
        var written: UInt64 = 0
        var version = stat()
        let code = withUnsafePointer(to: old ?? cvault_blob_layout()) { previousLayout in
            cvault_blob_write(
                &oid, objectsDir, path, old == nil ? nil : oldObject, old == nil ? nil : previousLayout,
                GitHistory.blobPieceSize, 1, 1, &layout, &reused, &written, &version)
        }
        defer { cvault_blob_layout_dispose(&layout) }
        if code != 0 {
            if errno == ENOENT { return nil }
            if errno == ESTALE || errno == ELOOP {
                throw VaultError.changedOnDisk(path: relative)
            }
            if errno == EACCES || errno == EPERM { throw GitHistory.unreadable(relative, errno) }
            // Not a libgit2 call: git_error_last would be another call's message.
            let reason = String(cString: strerror(errno))
            throw VaultError.repository(.cannotWrite(path: "\(relative) into the repository", reason: reason))
        }
        streamedBytesWritten += Int64(written)
        Trace.mark("commit: \(relative) as a blob in pieces (\(reused) of \(size) bytes reused)")
        if layout.count > 0 {
            BlobLayoutFile.write(layout, root: root, blob: oid)
        }
        FileFacts(stamp: FileIO.Stamp(version), blob: GitHistory.hex(oid)).save(root: root, relative: relative)
        if let previous, !GitHistory.same(previous, oid) { BlobLayoutFile.remove(root: root, blob: previous) }
        return oid
    }

    static func looseObjectPath(_ objectsDir: String, _ oid: git_oid) -> String {
        let hex = GitHistory.hex(oid)
        return objectsDir + "/" + hex.prefix(2) + "/" + hex.dropFirst(2)
    }

    static func hex(_ oid: git_oid) -> String {
        var id = oid
        var buffer = [CChar](repeating: 0, count: 41)
        git_oid_tostr(&buffer, 41, &id)
        return String(decoding: buffer.prefix(40).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func same(_ a: git_oid, _ b: git_oid) -> Bool {
        var x = a
        var y = b
        return git_oid_equal(&x, &y) != 0
    }
}

/// `.vault/blobs/<blob id>`: where the pieces of a blob written in pieces end.
///
/// Text, one line of sizes and one line per point:
///
///     vault-blob-layout 1 <object size> <file size>
///     <file offset> <stream offset> <adler-32>
///
/// A cache: a missing or unreadable one only means the next blob is compressed whole.
enum BlobLayoutFile {
    static func path(root: String, blob: git_oid) -> String {
        root + "/" + VaultPath.state + "/blobs/" + GitHistory.hex(blob)
    }

    /// The layout, with points allocated for the caller to free.
    static func read(root: String, blob: git_oid) -> cvault_blob_layout? {
        guard let bytes = try? FileIO.read(path(root: root, blob: blob)) else { return nil }
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n")
        guard let first = lines.first else { return nil }
        let head = first.split(separator: " ")
        guard head.count == 4, head[0] == "vault-blob-layout", head[1] == "1",
            let objectSize = UInt64(head[2]), let contentSize = UInt64(head[3])
        else { return nil }
        var points: [cvault_blob_point] = []
        for line in lines.dropFirst() {
            let f = line.split(separator: " ")
            guard f.count == 3, let c = UInt64(f[0]), let s = UInt64(f[1]), let a = UInt32(f[2]) else { return nil }
            points.append(cvault_blob_point(content_offset: c, stream_offset: s, adler: a))
        }
        guard !points.isEmpty else { return nil }
        let storage = UnsafeMutablePointer<cvault_blob_point>.allocate(capacity: points.count)
        storage.initialize(from: points, count: points.count)
        return cvault_blob_layout(object_size: objectSize, content_size: contentSize, count: points.count, points: storage)
    }

    static func write(_ layout: cvault_blob_layout, root: String, blob: git_oid) {
        var text = "vault-blob-layout 1 \(layout.object_size) \(layout.content_size)\n"
        for k in 0..<layout.count {
            let p = layout.points[k]
            text += "\(p.content_offset) \(p.stream_offset) \(p.adler)\n"
        }
        let dir = root + "/" + VaultPath.state + "/blobs"
        // A cache: written atomically, not flushed (a lost one costs one slower commit).
        try? FileIO.makeDirectory(dir)
        try? FileIO.write(Array(text.utf8), to: path(root: root, blob: blob), durable: false)
    }

    static func remove(root: String, blob: git_oid) {
        unlink(path(root: root, blob: blob))
    }
}
