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

    /// `TextScan.isValidUTF8` (`vs_utf8_valid`, 32 bytes at a time) accepts what
    /// `String(validating:)` accepts, on seeded random lines of up to 120 bytes: random bytes, bytes
    /// from a few that make near misses (overlong forms, surrogates, code points past U+10FFFF,
    /// sequences cut short at a block's edge), and Hangul text with one byte changed.
    @Test func utf8ValidationAgreesWithSwifts() {
        var random = SeededRandom(seed: 11)
        let pool: [UInt8] = [
            0x41, 0x0A, 0xEA, 0xB0, 0x80, 0xBF, 0xED, 0x9F, 0xA0, 0xE0, 0xF0, 0xF4, 0x8F, 0x90, 0xC2, 0xC1, 0xDF,
            0xF5, 0xFF, 0x9D, 0xEB, 0xB8, 0xE1, 0x84,
        ]
        var valid = 0
        for round in 0..<30_000 {
            let n = Int.random(in: 0..<120, using: &random)
            var bytes: [UInt8]
            switch round % 3 {
            case 0: bytes = (0..<n).map { _ in UInt8.random(in: 0...255, using: &random) }
            case 1: bytes = (0..<n).map { _ in pool.randomElement(using: &random)! }
            default:
                let hangul = (0..<(n / 3)).map { _ in Character(Unicode.Scalar(UInt32.random(in: 0xAC00...0xD7A3, using: &random))!) }
                bytes = Array(String(hangul).utf8) + Array(repeating: 0x20, count: n % 3)
                if !bytes.isEmpty && Bool.random(using: &random) {
                    bytes[Int.random(in: 0..<bytes.count, using: &random)] = pool.randomElement(using: &random)!
                }
            }
            let expected = bytes.withUnsafeBufferPointer { String(validating: $0, as: UTF8.self) != nil }
            let got = bytes.withUnsafeBufferPointer { b in
                b.baseAddress.map { TextScan.isValidUTF8($0, b.count) } ?? true
            }
            if expected { valid += 1 }
            #expect(got == expected, "\(bytes.map { String($0, radix: 16) })")
            if got != expected { break }
        }
        // Both kinds were met often.
        #expect(valid > 3_000 && valid < 27_000)
    }
}
