#if canImport(Glibc)
import Glibc
#endif

extension Array where Element == UInt8 {
    /// Where `needle` first occurs in these bytes, found with the C library's `memchr` (the
    /// first byte) and `memcmp` (the rest).
    ///
    /// Chosen over Foundation's generic `DataProtocol.firstRange(of:)` wherever VaultGit
    /// searches bytes for bytes (this overload is the more specific one): Foundation's compares
    /// element by element through generic indices, which on a sync of 100 long rooms took ~80 ms
    /// of the merge step (Authorship's look for ` author=`, `Benchmarks/sync-bench.sh`'s wide
    /// merge); this takes well under a millisecond for the same bytes.
    func firstRange(of needle: [UInt8]) -> Range<Int>? {
        guard !needle.isEmpty else { return 0..<0 }
        guard needle.count <= count else { return nil }
        return withUnsafeBytes { hay -> Range<Int>? in
            needle.withUnsafeBytes { pin -> Range<Int>? in
                guard let base = hay.baseAddress, let wanted = pin.baseAddress else { return nil }
                let first = Int32(needle[0])
                let last = hay.count - pin.count  // the last offset a match can start at
                var from = 0
                while from <= last {
                    guard let hit = memchr(base + from, first, last - from + 1) else { return nil }
                    let at = base.distance(to: UnsafeRawPointer(hit))
                    if memcmp(base + at, wanted, pin.count) == 0 { return at..<(at + pin.count) }
                    from = at + 1
                }
                return nil
            }
        }
    }
}
