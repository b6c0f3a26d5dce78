import Foundation
import VaultCore

#if canImport(Glibc)
import Glibc
#endif

/// The files a search reads: `rooms/*.md` and `diary/**/*.md`, as `Vault.roomPaths` and
/// `diaryPaths` list them (no hidden names, no symbolic links), but by `readdir`'s file types
/// and sorted by their bytes: on 50,000 files, Swift's Unicode-aware string sort and a `stat`
/// per entry cost more than the search itself.
enum FileList {
    /// The kind of a path this list gave (`VaultPath.kind` checks far more, for any path).
    static func kind(of path: String) -> VaultPath.Kind {
        path.utf8.starts(with: "rooms/".utf8) ? .room : .diaryEntry
    }

    static func rooms(root: String) -> [String] {
        var out: [[UInt8]] = []
        collect(root: root, folder: Array("rooms".utf8), recursive: false, into: &out)
        return sorted(out)
    }

    static func diary(root: String) -> [String] {
        var out: [[UInt8]] = []
        collect(root: root, folder: Array("diary".utf8), recursive: true, into: &out)
        return sorted(out)
    }

    static func sorted(_ paths: [[UInt8]]) -> [String] {
        paths.sorted { $0.lexicographicallyPrecedes($1) }.map { String(decoding: $0, as: UTF8.self) }
    }

    private static func collect(root: String, folder: [UInt8], recursive: Bool, into out: inout [[UInt8]]) {
        var seen = Set<[UInt64]>()
        var stack = [folder]
        while let dir = stack.popLast() {
            let path = root + "/" + String(decoding: dir, as: UTF8.self)
            guard let handle = opendir(path) else { continue }
            defer { closedir(handle) }
            // A folder reached twice (a bind mount) is listed once.
            var st = stat()
            if fstat(dirfd(handle), &st) == 0, !seen.insert([UInt64(st.st_dev), UInt64(st.st_ino)]).inserted {
                continue
            }
            while let entry = readdir(handle) {
                let name: [UInt8] = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    let p = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
                    return Array(UnsafeBufferPointer(start: p, count: strnlen(raw.baseAddress!.assumingMemoryBound(to: CChar.self), raw.count)))
                }
                guard let first = name.first, first != UInt8(ascii: ".") else { continue }
                var type = entry.pointee.d_type
                if type == UInt8(DT_UNKNOWN) {
                    var est = stat()
                    let full = path + "/" + String(decoding: name, as: UTF8.self)
                    guard lstat(full, &est) == 0 else { continue }
                    let mode = est.st_mode & S_IFMT
                    type = mode == S_IFDIR ? UInt8(DT_DIR) : mode == S_IFREG ? UInt8(DT_REG) : UInt8(DT_LNK)
                }
                let rel = dir + [UInt8(ascii: "/")] + name
                if type == UInt8(DT_DIR) {
                    if recursive { stack.append(rel) }
                } else if type == UInt8(DT_REG), name.count > 3, name.suffix(3).elementsEqual(".md".utf8) {
                    out.append(rel)
                }
            }
        }
    }
}
