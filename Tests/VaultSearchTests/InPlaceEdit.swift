import Foundation
import Testing
import VaultTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Overwrites the first `old` in `relative` with `new` (as many bytes) in place, then puts its
/// modification time back: only its change time tells, and a watcher.
func overwriteInPlace(
    _ dir: TemporaryDirectory, _ relative: String, replacing old: String, with new: String
) throws {
    let path = dir.path + "/" + relative
    let text = try dir.read(relative)
    let needle = Array(old.utf8)
    let replacement = Array(new.utf8)
    precondition(needle.count == replacement.count)
    let offset = try #require(
        (0...(text.count - needle.count)).first { Array(text[$0..<$0 + needle.count]) == needle })
    var st = stat()
    #expect(stat(path, &st) == 0)
    let fd = open(path, O_WRONLY)
    #expect(fd >= 0)
    let written = replacement.withUnsafeBytes { pwrite(fd, $0.baseAddress, replacement.count, off_t(offset)) }
    #expect(written == replacement.count)
    var times = [st.st_atim, st.st_mtim]
    #expect(futimens(fd, &times) == 0)
    close(fd)
    var after = stat()
    #expect(stat(path, &after) == 0 && after.st_size == st.st_size)
    #expect(after.st_mtim.tv_sec == st.st_mtim.tv_sec && after.st_mtim.tv_nsec == st.st_mtim.tv_nsec)
}
