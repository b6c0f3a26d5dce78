#if canImport(Glibc)
import Glibc
#endif

/// A file's bytes, mapped read-only (or none), for files only ever replaced by renaming a new
/// file over them, never written in place (the listing cache, git's index), so the mapped
/// version stays whole while it is read.
package final class MappedBytes: @unchecked Sendable {
    package let buffer: UnsafeBufferPointer<UInt8>

    package init() { buffer = UnsafeBufferPointer(start: nil, count: 0) }

    /// The file at `file`, nil when it cannot be opened or mapped, or is empty. With
    /// `populate` every page is mapped at once (`MAP_POPULATE`), for a file read whole: one
    /// call instead of a page fault every few pages.
    package init?(file: String, populate: Bool = false) {
        let fd = open(file, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        let flags = MAP_PRIVATE | (populate ? MAP_POPULATE : 0)
        guard fstat(fd, &st) == 0, st.st_size > 0, let map = mmap(nil, Int(st.st_size), PROT_READ, flags, fd, 0),
            map != MAP_FAILED
        else { return nil }
        buffer = UnsafeBufferPointer(start: map.assumingMemoryBound(to: UInt8.self), count: Int(st.st_size))
    }

    /// How many bytes a walk through a mapped file reads between two `release`s.
    static let releaseStep = 1 << 20

    /// Gives the whole pages of `range` back to the system (`MADV_DONTNEED`): a walk through a
    /// long file then keeps only the pages it is at. Read again, they are mapped again from the
    /// file (it is only ever replaced by a rename, never written in place), so nothing is lost.
    func release(_ range: Range<Int>) {
        guard let base = buffer.baseAddress, !range.isEmpty else { return }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let first = (range.lowerBound + page - 1) / page * page
        let end = range.upperBound / page * page
        guard end > first else { return }
        madvise(UnsafeMutableRawPointer(mutating: base + first), end - first, MADV_DONTNEED)
    }

    deinit {
        if let start = buffer.baseAddress { munmap(UnsafeMutableRawPointer(mutating: start), buffer.count) }
    }
}
