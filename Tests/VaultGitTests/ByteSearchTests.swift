import Foundation
import Testing

@testable import VaultGit

/// VaultGit's byte search (`[UInt8].firstRange(of:)`, memchr and memcmp) finds what a plain
/// scan finds: the first occurrence, at the start, at the end, none, overlapping candidates,
/// a needle longer than the bytes, and random bytes over a small alphabet (many near misses).
@Suite struct ByteSearchTests {
    static func naive(_ hay: [UInt8], _ needle: [UInt8]) -> Range<Int>? {
        guard !needle.isEmpty else { return 0..<0 }
        guard needle.count <= hay.count else { return nil }
        for i in 0...(hay.count - needle.count) where Array(hay[i..<(i + needle.count)]) == needle {
            return i..<(i + needle.count)
        }
        return nil
    }

    @Test func findsWhatAPlainScanFinds() {
        let cases: [(String, String)] = [
            ("abc author=x", " author="), (" author=", " author="), ("x  author", " author="),
            ("aaab", "aab"), ("ab", "abc"), ("", "a"), ("abc", ""), ("메시지 author=이", "author=이"),
        ]
        for (hay, needle) in cases {
            let (h, n) = (Array(hay.utf8), Array(needle.utf8))
            #expect(h.firstRange(of: n) == Self.naive(h, n), "\(hay) / \(needle)")
        }
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let hay = (0..<Int.random(in: 0...40, using: &rng)).map { _ in UInt8.random(in: 97...99, using: &rng) }
            let needle = (0..<Int.random(in: 1...4, using: &rng)).map { _ in UInt8.random(in: 97...99, using: &rng) }
            #expect(hay.firstRange(of: needle) == Self.naive(hay, needle), "\(hay) / \(needle)")
        }
    }
}
