import Dispatch

#if canImport(Glibc)
import Glibc
#endif

/// What tells one version of a file from another without reading it: device, inode, size, and
/// the modification and change times in nanoseconds.
///
/// Any write changes at least one of them: a save by rename gives a new inode, an in-place
/// save a new change time, and the change time cannot be set back (`touch -d` sets the
/// modification time, and that moves the change time forward). A plain value of five integers,
/// so the index compares 50,000 of them as fast as memory allows.
struct FileStamp: Equatable, Sendable {
    var device: Int64
    var inode: Int64
    var size: Int64
    var modifiedNanoseconds: Int64
    var changedNanoseconds: Int64

    /// The stamp of a listed path that is not a regular file the index can read (gone, a
    /// symbolic link, a folder, not permitted). Such a path is always a candidate: the scan
    /// meets it and reports it as it would without the index.
    static let unreadable = FileStamp(
        device: -1, inode: -1, size: -1, modifiedNanoseconds: -1, changedNanoseconds: -1)

    init(device: Int64, inode: Int64, size: Int64, modifiedNanoseconds: Int64, changedNanoseconds: Int64) {
        self.device = device
        self.inode = inode
        self.size = size
        self.modifiedNanoseconds = modifiedNanoseconds
        self.changedNanoseconds = changedNanoseconds
    }

    /// The stamp of a regular file's `stat`; `unreadable` for anything else.
    init(_ st: stat) {
        guard st.st_mode & S_IFMT == S_IFREG else {
            self = .unreadable
            return
        }
        self.init(
            device: Int64(bitPattern: UInt64(st.st_dev)), inode: Int64(bitPattern: UInt64(st.st_ino)),
            size: Int64(st.st_size),
            modifiedNanoseconds: Int64(st.st_mtim.tv_sec) &* 1_000_000_000 &+ Int64(st.st_mtim.tv_nsec),
            changedNanoseconds: Int64(st.st_ctim.tv_sec) &* 1_000_000_000 &+ Int64(st.st_ctim.tv_nsec))
    }

    /// The stamp recorded for a file whose content was read too soon after it was written to
    /// trust the stamp: a write within the same tick of the file system's clock can leave every
    /// field as it was (git calls such entries "racily clean"). The size -2 matches no real
    /// stamp, so the next refresh reads the file again (and, its blob id unchanged, only hashes
    /// it).
    var unsettled: FileStamp {
        var copy = self
        copy.size = -2
        return copy
    }

    /// Whether a file with this stamp may have been written within `margin` nanoseconds
    /// before `now`, or later (a clock set back, a time set in the future).
    func isRecent(now: Int64, margin: Int64) -> Bool {
        max(modifiedNanoseconds, changedNanoseconds) > now &- margin
    }

    /// The stamps of `paths` (relative to the folder open as `folder`), in their order,
    /// taken on `threads` threads: `fstatat` of 50,000 files is the larger part of an
    /// up-to-date refresh.
    static func stamps(of paths: [String], in folder: Int32, threads: Int) -> [FileStamp] {
        var stamps = [FileStamp](repeating: .unreadable, count: paths.count)
        let count = paths.count
        let parts = max(1, min(threads, count / 2_000))
        stamps.withUnsafeMutableBufferPointer { buffer in
            nonisolated(unsafe) let out = buffer
            DispatchQueue.concurrentPerform(iterations: parts) { part in
                var st = stat()
                for k in (count * part / parts)..<(count * (part + 1) / parts) {
                    let ok = paths[k].withCString { fstatat(folder, $0, &st, AT_SYMLINK_NOFOLLOW) } == 0
                    out[k] = ok ? FileStamp(st) : .unreadable
                }
            }
        }
        return stamps
    }
}
