#if canImport(Glibc)
import Glibc
#endif

extension Array where Element == UInt8 {
    /// Where `needle` first occurs in these bytes, found with the C library's `memmem`.
    ///
    /// Chosen over Foundation's generic `DataProtocol.firstRange(of:)` wherever VaultGit
    /// searches bytes for bytes (this overload is the more specific one): Foundation's compares
    /// element by element through generic indices, which on a sync of 100 long rooms took ~80 ms
    /// of the merge step (Authorship's look for ` author=`, `Benchmarks/sync-bench.sh`'s wide
    /// merge); `memmem` takes well under a millisecond for the same bytes.
    func firstRange(of needle: [UInt8]) -> Range<Int>? {
        guard !needle.isEmpty else { return 0..<0 }
        guard needle.count <= count else { return nil }
        return withUnsafeBytes { hay -> Range<Int>? in
            needle.withUnsafeBytes { pin -> Range<Int>? in
                guard let base = hay.baseAddress, let found = memmem(base, hay.count, pin.baseAddress, pin.count)
                else { return nil }
                let start = base.distance(to: UnsafeRawPointer(found))
                return start..<(start + needle.count)
            }
        }
    }
}
