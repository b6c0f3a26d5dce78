import Foundation
import Testing
import VaultCore
import VaultTestSupport

@testable import VaultSearch

/// One line of megabytes, with hits at its start, middle and end: every hit is found, where it
/// is, in the line as a whole. The time of these searches grew with the square of the line's
/// length (106 s on 1.6 million characters); what is checked here is the answer, not the time
/// (Benchmarks/long-line-bench.sh measures that).
@Suite struct LongLineTests {
    /// A vault with `rooms/long.md`: front-matter, a message header, then `line` and a last line.
    /// The room's bytes before the long line (which is its line 8).
    static let head = Array(
        """
        ---
        title: long
        created: 2026-11-20T09:00:00+09:00
        ---

        ## 🧑 user · 2026-11-20 09:00 <!-- 2026-11-20T09:00:00+09:00 m-QB7X91ZQF6VJ -->


        """.utf8)

    func vault(withLine line: [UInt8]) throws -> TemporaryDirectory {
        let dir = TemporaryDirectory("vault-long-line")
        try dir.write("vault.yml", VaultConfig.initialText(locale: "en_US", timeZone: TimeZone(identifier: "Asia/Seoul")!))
        try dir.write("rooms/long.md", Self.head + line + Array("\nthe end\n".utf8))
        return dir
    }

    /// Filler of exactly `count` bytes with no `q` in it: a seeded block of words (English and
    /// Korean) repeated, spaces at the end.
    func filler(_ count: Int, _ random: inout SeededRandom) -> [UInt8] {
        let words = ["the", "brown", "fox", "부산", "여행", "lazy", "dog", "a", "café"].map { Array($0.utf8) + [0x20] }
        var block: [UInt8] = []
        while block.count < 60_000 { block += words[Int(random.next() % UInt64(words.count))] }
        var out: [UInt8] = []
        out.reserveCapacity(count)
        while out.count + block.count <= count { out += block }
        for word in words where out.count + word.count <= count { out += word }
        return out + [UInt8](repeating: 0x20, count: count - out.count)
    }

    func search(_ dir: TemporaryDirectory, _ pattern: String, regex: Bool = false, firstHitOnly: Bool = false)
        throws -> SearchResults
    {
        var query = SearchQuery(pattern: pattern)
        query.isRegex = regex
        query.firstHitOnly = firstHitOnly
        return try VaultSearch(vault: Vault(root: dir.path)).run(query)
    }

    /// A line of 17 MiB, longer than the scan's buffer even once grown (8, then 16 MiB), with
    /// `quokka` at its start, in its middle, across the file's bytes 8 MiB and 16 MiB and at its
    /// end: one hit, the whole line, five matches at their byte offsets. (A line still without
    /// its end when the buffer was full was cut there and read as two lines.)
    @Test func aLineLongerThanTheBufferIsSearchedWhole() throws {
        var random = SeededRandom(seed: 7)
        let needle = Array("quokka".utf8)
        var line = needle + filler(4 << 20, &random)
        var starts = [0, line.count]
        // Its `k` at the file's byte 8 MiB, then at 16 MiB.
        for mark in [8 << 20, 16 << 20] {
            line += needle + filler(mark - 3 - Self.head.count - line.count - needle.count, &random)
            starts.append(line.count)
            #expect(Self.head.count + line.count + 3 == mark)
        }
        line += needle + filler((17 << 20) - line.count - needle.count, &random)
        starts.append(line.count)
        line += needle
        let dir = try vault(withLine: line)
        let results = try search(dir, "quokka")
        let hits = results.items.flatMap(\.hits)
        #expect(results.itemCount == 1)
        try #require(hits.count == 1, "\(hits.map(\.line))")
        #expect(hits[0].line == 8)
        #expect(hits[0].column == 1)
        #expect(hits[0].text.utf8.count == line.count)
        #expect(hits[0].matches == starts.map { $0..<($0 + needle.count) })
        #expect(hits[0].message?.id == "m-QB7X91ZQF6VJ")
        // `-l`: the item, its first hit.
        let first = try search(dir, "quokka", firstHitOnly: true)
        #expect(first.items.map(\.path) == ["rooms/long.md"])
        // A word on the next line is on line 9, not counted into the long one.
        #expect(try search(dir, "the end").items.flatMap(\.hits).map(\.line) == [9])
    }

    /// A line of 2 MiB holding the needle at every byte (`a` in `aaaa…`): every match is given.
    @Test func aLineThatIsAllHitsGivesEveryMatch() throws {
        let count = 2 << 20
        let dir = try vault(withLine: [UInt8](repeating: UInt8(ascii: "a"), count: count))
        let hits = try search(dir, "aa").items.flatMap(\.hits).filter { $0.line == 8 }
        try #require(hits.count == 1)
        #expect(hits[0].matches.count == count / 2)
        #expect(hits[0].matches.last == (count - 2)..<count)
    }

    /// A line of decomposed text (NFD, as a Mac saves it) of about half a megabyte, searched for
    /// an accented word ignoring case, and by a regular expression: every match found, mapped
    /// back to the bytes of the file.
    @Test func aLongDecomposedLineIsNormalizedAndItsMatchesMapped() throws {
        var random = SeededRandom(seed: 11)
        let word = Array("Café".decomposedStringWithCanonicalMapping.utf8)
        var line = word
        for _ in 0..<2 {
            line += [0x20] + filler(256 << 10, &random) + word
        }
        line = Array(String(decoding: line, as: UTF8.self).decomposedStringWithCanonicalMapping.utf8)
        // Decomposing moves no `Café`: the filler's `café`s decompose before and after alike,
        // so the offsets are found again in the decomposed bytes.
        let expected = Self.offsets(of: word, in: line)
        #expect(expected.count >= 3 && expected.first == 0 && expected.last == line.count - word.count)
        let dir = try vault(withLine: line)
        let literal = try search(dir, "café").items.flatMap(\.hits).filter { $0.line == 8 }
        try #require(literal.count == 1)
        #expect(literal[0].matches == expected.map { $0..<($0 + word.count) })
        let regex = try search(dir, "caf.\\b", regex: true).items.flatMap(\.hits).filter { $0.line == 8 }
        try #require(regex.count == 1)
        #expect(regex[0].matches.count == expected.count)
        #expect(regex[0].matches.first == 0..<word.count)
        #expect(regex[0].matches.last == (line.count - word.count)..<line.count)
    }

    /// The start of every occurrence of `word` (case-insensitively in its first letter) in `line`.
    static func offsets(of word: [UInt8], in line: [UInt8]) -> [Int] {
        var out: [Int] = []
        var i = 0
        while i + word.count <= line.count {
            if (line[i] | 0x20) == (word[0] | 0x20) && Array(line[(i + 1)..<(i + word.count)]) == Array(word.dropFirst()) {
                out.append(i)
                i += word.count
            } else {
                i += 1
            }
        }
        return out
    }
}
