#if canImport(Glibc)
import Glibc
#endif

/// The listed paths of a refresh, found by their UTF-8 bytes.
///
/// When the listing differs from the recorded one (a file added, removed or renamed), every
/// recorded path is looked up in it. A `[String: Int]` would make a `String` of each of 50,000
/// recorded paths and hash it as Unicode (canonical equivalence: slow for Korean); this table
/// hashes bytes as they come from the side file or from SQLite, and compares bytes.
struct ListedPaths {
    private let files: [String]
    /// Position of the path with that hash; -1 when two listed paths have it.
    private var byHash: [UInt64: Int32] = [:]
    /// Whether two listed paths share a hash (the same path listed twice, or a collision):
    /// then this table cannot tell them apart, and the caller matches paths as `String`s.
    private(set) var isAmbiguous = false

    init(_ files: [String]) {
        self.files = files
        byHash.reserveCapacity(files.count)
        for (k, path) in files.enumerated() {
            var path = path
            let hash = path.withUTF8 { StampFile.pathHash(UnsafeRawBufferPointer($0)) }
            if byHash.updateValue(Int32(k), forKey: hash) != nil {
                byHash[hash] = -1
                isAmbiguous = true
            }
        }
    }

    /// The position of the listed path whose UTF-8 is `bytes`, nil when it is not listed.
    func position(of bytes: UnsafeRawBufferPointer) -> Int? {
        guard let k = byHash[StampFile.pathHash(bytes)], k >= 0 else { return nil }
        var path = files[Int(k)]
        let same = path.withUTF8 { utf8 in
            guard utf8.count == bytes.count else { return false }
            guard let a = utf8.baseAddress, let b = bytes.baseAddress else { return bytes.isEmpty }
            return memcmp(a, b, bytes.count) == 0
        }
        return same ? Int(k) : nil
    }
}
