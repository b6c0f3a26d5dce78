import Testing
import VaultTestSupport

@testable import VaultSearch

/// `Finder` (the scan's substring search, `vs_find` in C) against the plain definition, on
/// seeded random texts built from few distinct bytes, so that candidates, near misses and
/// occurrences on and across the 16- and 32-byte blocks' edges are common.
@Suite struct FinderTests {
    /// Offsets of the occurrences of `needle` in `text`, each after the end of the last.
    static func expected(_ needle: [UInt8], in text: [UInt8], ignoringASCIICase: Bool) -> [Int] {
        func fold(_ b: UInt8) -> UInt8 { ignoringASCIICase && b >= 0x41 && b <= 0x5A ? b | 0x20 : b }
        var found: [Int] = []
        var i = 0
        while i + needle.count <= text.count {
            if (0..<needle.count).allSatisfy({ fold(text[i + $0]) == needle[$0] }) {
                found.append(i)
                i += needle.count
            } else {
                i += 1
            }
        }
        return found
    }

    static func found(_ finder: Finder, in text: [UInt8]) -> [Int] {
        var found: [Int] = []
        text.withUnsafeBufferPointer { b in
            guard let base = b.baseAddress else { return }
            finder.occurrences(in: base, b.count) { at in
                found.append(at)
                return true
            }
        }
        return found
    }

    @Test(arguments: [false, true])
    func findsWhatThePlainDefinitionFinds(ignoringASCIICase: Bool) {
        var random = SeededRandom(seed: ignoringASCIICase ? 7 : 3)
        // ASCII letters in both cases, a space, and the bytes of 부산 (EB B6 80 EC 82 B0).
        let alphabet: [UInt8] = Array("aAbB k".utf8) + [0xEB, 0xB6, 0x80, 0xEC, 0x82, 0xB0]
        var checked = 0
        for _ in 0..<1500 {
            let m = Int.random(in: 1...7, using: &random)
            var needle = (0..<m).map { _ in alphabet.randomElement(using: &random)! }
            if ignoringASCIICase { needle = needle.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 } }
            let n = Int.random(in: 0...150, using: &random)
            let text = (0..<n).map { _ in alphabet.randomElement(using: &random)! }
            let expected = Self.expected(needle, in: text, ignoringASCIICase: ignoringASCIICase)
            let finder = Finder(needle, ignoringASCIICase: ignoringASCIICase)
            #expect(Self.found(finder, in: text) == expected, "\(needle) in \(text)")
            checked += expected.count
        }
        // The texts did hold occurrences to find.
        #expect(checked > 1000)
    }

    @Test func findsKoreanAtEveryOffsetOfALongText() {
        let needle = Array("부산".utf8)
        let finder = Finder(needle)
        for at in 0..<80 {
            var text = [UInt8](repeating: 0x20, count: 100)
            text.replaceSubrange(at..<(at + needle.count), with: needle)
            #expect(Self.found(finder, in: text) == [at])
        }
        // The same bytes in another order are no occurrence.
        #expect(Self.found(finder, in: Array("산부 부 산".utf8) + [UInt8](repeating: 0x61, count: 40)).isEmpty)
    }

    @Test func stopsWhenAsked() {
        let finder = Finder(Array("ab".utf8))
        var seen = 0
        Array("ab ab ab ab".utf8).withUnsafeBufferPointer { b in
            finder.occurrences(in: b.baseAddress!, b.count) { _ in
                seen += 1
                return seen < 2
            }
        }
        #expect(seen == 2)
    }
}
