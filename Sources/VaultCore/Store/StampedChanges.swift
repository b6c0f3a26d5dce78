import CVaultScan

#if canImport(Glibc)
import Glibc
#endif

/// The files of a folder that changed since a listing cache was saved, found without a
/// watcher: what a listing the watcher answered for reads (`Vault.keptFiles`), so a listing
/// with no watcher (`VAULT_NO_WATCH`, a vault on a network file system, the first listing after
/// the watcher ended) also walks the cache's lines in place instead of making, sorting and
/// summarizing an item for every file.
///
/// The folder is listed in C (`vs_files_list`: the same files as `Vault.roomPaths` and
/// `diaryPaths`, relative to open folders; or the listing saved beside the cache, as search
/// keeps its own, while no folder of it changed) and every file stamped on two threads; then each of
/// the cache's lines is found in the listing by its path. A file changed when:
/// - its line is not settled, or its stamp is not the line's (device, inode, size, modification
///   and change times, to the nanosecond: the rule `ListingCache.entry(of:stamp:)` applies);
/// - its line's path is not listed now (removed, renamed, or no longer a regular file);
/// - it is listed and has no line (added, renamed to here).
enum StampedChanges {
    /// The paths under `folder` (recursively with `recursive`) that changed since `cache` was
    /// saved; nil when the cache has no lines to compare with, or one is damaged, or the
    /// folder could not be listed (the listing then reads every file).
    static func of(_ folder: String, recursive: Bool, root: String, cache: ListingCache) -> [String]? {
        guard cache.linesEnd > cache.linesStart else { return nil }
        let rootFD = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard rootFD >= 0 else { return nil }
        defer { close(rootFD) }
        var files = vs_files()
        vs_files_init(&files)
        defer { vs_files_free(&files) }
        // The folder's listing saved last time, while none of its folders changed (adding,
        // removing or renaming a name changes a folder's times); else it is read, and saved.
        let saved = cache.file.map { $0 + "-files" }
        let margin = Int64(ListingCache.racyWindow) * 1_000_000_000
        if let saved, vs_files_load(&files, rootFD, saved, margin) == 0 {
            Trace.mark("\(folder): \(files.count) files as found before")
        } else {
            guard vs_files_list(&files, rootFD, folder, recursive ? 1 : 0) == 0 else { return nil }
            if let saved { _ = vs_files_save(&files, rootFD, saved) }
            Trace.mark("\(folder): \(files.count) files found")
        }
        let count = Int(files.count)
        var seen = [UInt8](repeating: 0, count: count)
        var offsets: UnsafeMutablePointer<Int64>?
        let bytes = cache.storage.buffer
        let n = seen.withUnsafeMutableBufferPointer {
            vs_files_check_lines(&files, bytes.baseAddress, cache.linesStart, cache.linesEnd, $0.baseAddress, &offsets)
        }
        defer { free(offsets) }
        guard n >= 0 else { return nil }
        Trace.mark("\(folder): \(count) files stamped")
        var changed: [String] = []
        for i in 0..<Int(n) {
            guard let (entry, _) = ListingCache.line(bytes, at: Int(offsets![i])) else { return nil }
            changed.append(ListingCache.unescape(bytes[entry.path]))
        }
        for k in 0..<count where seen[k] == 0 {
            changed.append(String(cString: files.bytes + Int(files.starts[k])))
        }
        Trace.mark("\(folder): \(changed.count) changed by their stamps")
        return changed
    }
}
