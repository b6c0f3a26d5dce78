import Foundation
import Testing
import VaultCore
import VaultTestSupport

@testable import VaultSearch

/// The trigram index against brute force on generated texts: for a needle of 3 or more
/// characters, the candidates are every file whose search text contains it, and exactly the
/// files whose search text holds every run of three scalars of it (the terms the index looks
/// up; the index's answer is a superset, the scan decides). (In the serialized suite, which sets
/// `XDG_CACHE_HOME`.)
extension SearchIndexTests {
    /// Pieces the texts are made of: Korean (frequent syllables, so needles of 1, 2 and 3
    /// syllables find many texts, and long phrases), Japanese (a kana written decomposed too),
    /// emoji (with modifiers, joiners, flags), Latin with diacritics and the letters case folding
    /// changes in length or form, FTS5's own syntax, and line endings.
    static let pieces: [String] = [
        "부", "산", "여", "행", "바", "다", "부산", "여행", "부산 여행", "좋은 질문이에요", "습니다.", "했어요",
        "東京タワー", "ひらがな", "カタカナ", "が", "か\u{3099}", "日本語",
        "😀", "👍🏽", "👨‍👩‍👧", "🇰🇷", "☕️",
        "café", "cafe\u{301}", "naïve", "Straße", "STRASSE", "ǰ", "Ångström", "\u{212B}", "İstanbul", "ΣΑΣ", "ς", "ﬁ",
        "Hello", "WORLD", "vault", "Search", "\"", "'", "*", "(", ")", "-", "AND", "OR", "NOT", "NEAR", "^", ":",
        " ", " ", " ", "\n", "\r\n", "\t", "\u{0}",
    ]

    /// A generated text: pieces, sometimes a random Hangul syllable; written in NFD, in upper
    /// case, or with CRLF line endings for some.
    static func text(_ random: inout SeededRandom) -> String {
        var out = ""
        for _ in 0..<Int.random(in: 5...120, using: &random) {
            if Int.random(in: 0..<10, using: &random) == 0 {
                out.unicodeScalars.append(Unicode.Scalar(0xAC00 + UInt32.random(in: 0..<11_172, using: &random)) ?? "?")
            } else {
                out += pieces.randomElement(using: &random) ?? ""
            }
        }
        switch Int.random(in: 0..<6, using: &random) {
        case 0: return out.decomposedStringWithCanonicalMapping
        case 1: return out.uppercased()
        case 2: return out.replacingOccurrences(of: "\n", with: "\r\n")
        default: return out
        }
    }

    /// A needle: a piece of a text's search key (any scalars, from 1 to 14), or pieces put
    /// together, keyed as the command keys a query.
    static func needle(_ keys: [String], _ random: inout SeededRandom) -> String {
        if Int.random(in: 0..<3, using: &random) > 0, let text = keys.randomElement(using: &random),
            !text.unicodeScalars.isEmpty
        {
            let scalars = Array(text.unicodeScalars)
            let start = Int.random(in: 0..<scalars.count, using: &random)
            let length = min(scalars.count - start, Int.random(in: 1...14, using: &random))
            var view = String.UnicodeScalarView()
            view.append(contentsOf: scalars[start..<(start + length)])
            return String(view)
        }
        let joined = (0..<Int.random(in: 1...3, using: &random)).map { _ in pieces.randomElement(using: &random) ?? "" }
            .joined()
        return SearchText.key(
            Bool.random(using: &random) ? joined.uppercased() : joined.decomposedStringWithCanonicalMapping,
            folding: true)
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func needlesMatchTheTextsThatHoldTheirTrigrams(seed: UInt64) throws {
        try withCacheHome { _ in
            var random = SeededRandom(seed: seed)
            let vault = TemporaryDirectory("search-property")
            var files: [String] = []
            var keys: [String] = []
            for k in 0..<150 {
                let text = Self.text(&random)
                let path = k % 3 == 0 ? "diary/2024/e\(k).md" : "rooms/r\(k).md"
                try vault.write(path, text)
                files.append(path)
                keys.append(SearchText.key(text, folding: true))
                // The index's shortcut (no NFC normalization of a text that is NFC) gives the same key.
                #expect(Array(FileVersion.searchKey(text).utf8) == Array(keys[k].utf8))
            }
            // Each text's trigrams, made once: the brute force is the suite's slowest part otherwise.
            let keyTrigrams = keys.map(scalarTrigrams)
            let index = try SearchIndex(vaultRoot: vault.path, cacheHome: ProcessSettings.ofThisTest.cacheHome)
            _ = try index.refresh(files)
            var checked = 0
            for _ in 0..<300 {
                let needle = Self.needle(keys, &random)
                let found = try index.candidates(containingAll: [needle])
                guard needle.unicodeScalars.count >= 3 else {
                    // One or two characters: looked up by their CJK pair or characters, if any.
                    let expected = files.indices.filter { holdsShortGrams(keys[$0], of: needle) == true }
                        .map { files[$0] }.sorted()
                    #expect(
                        found == (holdsShortGrams("", of: needle) == nil ? nil : expected),
                        "\(needle.debugDescription) \(needle.unicodeScalars.map { String($0.value, radix: 16) })")
                    let containing = files.indices.filter { contains(keys[$0], needle) }.map { files[$0] }
                    if let found { #expect(Set(containing).isSubset(of: found)) }
                    continue
                }
                checked += 1
                let containing = files.indices.filter { contains(keys[$0], needle) }.map { files[$0] }
                let wanted = scalarTrigrams(needle)
                let expected = files.indices.filter { wanted.isSubset(of: keyTrigrams[$0]) }.map { files[$0] }.sorted()
                #expect(
                    found == expected,
                    "\(needle.debugDescription) \(needle.unicodeScalars.map { String($0.value, radix: 16) })")
                #expect(Set(containing).isSubset(of: found ?? []))
                // A scan that compares lines by characters (the standard library's `firstRange(of:)`,
                // canonical equivalence of grapheme clusters) finds no line outside the candidates.
                for k in files.indices where !(found ?? []).contains(files[k]) {
                    let lines = keys[k].split(separator: "\n", omittingEmptySubsequences: false)
                    #expect(
                        !lines.contains { $0.firstRange(of: needle) != nil }, "\(files[k]) \(needle.debugDescription)")
                }
                // Two needles: the texts that contain both.
                let other = Self.needle(keys, &random)
                if other.unicodeScalars.count >= 3 {
                    let wantedToo = scalarTrigrams(other)
                    let both = files.indices.filter {
                        wanted.isSubset(of: keyTrigrams[$0]) && wantedToo.isSubset(of: keyTrigrams[$0])
                    }.map { files[$0] }.sorted()
                    #expect(try index.candidates(containingAll: [needle, other]) == both)
                }
            }
            #expect(checked > 150)
        }
    }

    /// A search that keeps case (`Swift`): the candidates of a needle as written are exactly the
    /// files whose search key holds its trigrams and whose NFC text holds its runs of three with a
    /// capital A–Z, and every file that contains it as written is one.
    @Test(arguments: [4, 5] as [UInt64])
    func needlesAsWrittenMatchTheTextsThatHoldTheirCapitals(seed: UInt64) throws {
        try withCacheHome { _ in
            var random = SeededRandom(seed: seed)
            let vault = TemporaryDirectory("search-property-case")
            var files: [String] = []
            var written: [String] = []
            for k in 0..<120 {
                let text = Self.text(&random)
                let path = "rooms/r\(k).md"
                try vault.write(path, text)
                files.append(path)
                written.append(SearchText.key(text, folding: false))
            }
            let folded = written.map { scalarTrigrams(SearchText.fold($0)) }
            let capitals = written.map(capitalTrigrams)
            let index = try SearchIndex(vaultRoot: vault.path, cacheHome: ProcessSettings.ofThisTest.cacheHome)
            _ = try index.refresh(files)
            var narrowed = 0
            for _ in 0..<200 {
                let asWritten = Self.needle(written, &random)
                guard asWritten.unicodeScalars.count >= 3 else { continue }
                let needle = SearchText.fold(asWritten)
                let found = try index.candidates(containingAll: [needle], asWritten: [asWritten])
                let wanted = scalarTrigrams(needle)
                let wantedCapitals = capitalTrigrams(asWritten)
                let expected = files.indices.filter {
                    wanted.isSubset(of: folded[$0]) && wantedCapitals.isSubset(of: capitals[$0])
                }.map { files[$0] }.sorted()
                #expect(found == expected, "\(asWritten.debugDescription)")
                let containing = files.indices.filter { contains(written[$0], asWritten) }.map { files[$0] }
                #expect(Set(containing).isSubset(of: found ?? []), "\(asWritten.debugDescription)")
                let ignoringCase = try index.candidates(containingAll: [needle]) ?? []
                if !wantedCapitals.isEmpty && (found?.count ?? 0) < ignoringCase.count { narrowed += 1 }
            }
            // Capitals narrow some needles further than their folded trigrams do.
            #expect(narrowed > 0)
        }
    }
}

/// Every run of three consecutive Unicode scalars of `text` that holds a capital A–Z, packed as
/// `scalarTrigrams` packs them: a search's case-kept terms, by brute force.
func capitalTrigrams(_ text: String) -> Set<UInt64> {
    let scalars = text.unicodeScalars.map { UInt64($0.value) }
    guard scalars.count >= 3 else { return [] }
    let capital: (UInt64) -> Bool = { $0 >= 0x41 && $0 <= 0x5A }
    var out = Set<UInt64>()
    for k in 0...(scalars.count - 3) where capital(scalars[k]) || capital(scalars[k + 1]) || capital(scalars[k + 2]) {
        out.insert(scalars[k] << 42 | scalars[k + 1] << 21 | scalars[k + 2])
    }
    return out
}

/// Whether `text` holds every run of three consecutive Unicode scalars of `needle` (anywhere,
/// in any order): what the index's terms say about a text, by brute force.
func holdsTrigrams(_ text: String, of needle: String) -> Bool {
    scalarTrigrams(needle).isSubset(of: scalarTrigrams(text))
}

/// Every run of three consecutive Unicode scalars of `text`, each packed into one number
/// (21 bits a scalar).
func scalarTrigrams(_ text: String) -> Set<UInt64> {
    let scalars = text.unicodeScalars.map { UInt64($0.value) }
    guard scalars.count >= 3 else { return [] }
    var out = Set<UInt64>(minimumCapacity: scalars.count)
    for k in 0...(scalars.count - 3) { out.insert(scalars[k] << 42 | scalars[k + 1] << 21 | scalars[k + 2]) }
    return out
}

/// Whether `text` holds what the index keeps of a needle of one or two Unicode scalars: the
/// pair side by side when both are CJK (Hangul, kana, Han), else each CJK scalar (anywhere);
/// nil when the needle has no CJK scalar (the index cannot look it up). By brute force.
func holdsShortGrams(_ text: String, of needle: String) -> Bool? {
    let n = needle.unicodeScalars.map(\.value)
    let t = text.unicodeScalars.map(\.value)
    if n.count == 2, isCJK(n[0]), isCJK(n[1]) {
        return t.count >= 2 && (0..<(t.count - 1)).contains { t[$0] == n[0] && t[$0 + 1] == n[1] }
    }
    let wanted = n.filter(isCJK)
    guard n.count < 3, !wanted.isEmpty else { return nil }
    return Set(wanted).isSubset(of: Set(t))
}

/// Hangul, kana and Han, as the index's terms (`CVaultScan/grams.c`) take them.
func isCJK(_ c: UInt32) -> Bool {
    let ranges: [ClosedRange<UInt32>] = [
        0xAC00...0xD7A3, 0x1100...0x11FF, 0x3130...0x318F, 0xA960...0xA97F, 0xD7B0...0xD7FF,
        0x3040...0x30FF, 0x31F0...0x31FF, 0xFF66...0xFF9F, 0x3400...0x4DBF, 0x4E00...0x9FFF,
        0xF900...0xFAFF, 0x20000...0x3134F,
    ]
    return ranges.contains { $0.contains(c) }
}
