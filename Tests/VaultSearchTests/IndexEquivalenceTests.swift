import Foundation
import Testing
import VaultCore
import VaultTestSupport

@testable import VaultSearch

/// The index only narrows which files are read: with it, a search gives exactly the hits (and
/// reports exactly the files) a scan of every file gives. Checked on a generated corpus with
/// Korean, Japanese, emoji, accented Latin, CRLF files, text and file names in NFD, a file that
/// is not UTF-8, and an index that is stale, deleted or damaged.
@Suite struct IndexEquivalenceTests {
    static let words = [
        "부산", "해운대", "바다", "여행", "숙소", "서울역", "기차", "점심", "돼지국밥", "산책", "눈", "겨울",
        "大阪", "朝ごはん", "コーヒー", "散歩", "🍜", "🌊", "☕️", "café", "Straße", "naïve", "Docker", "docker",
        "KTX", "swift", "Swift", "async", "await", "테스트", "ÉCOLE", "école", "résumé",
    ]

    func corpus(_ dir: TemporaryDirectory, seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        try dir.write(
            "vault.yml", VaultConfig.initialText(locale: "ko_KR", timeZone: TimeZone(identifier: "Asia/Seoul")!))
        for k in 0..<120 {
            var lines: [String] = []
            for _ in 0..<Int.random(in: 3...25, using: &random) {
                lines.append(
                    (0..<Int.random(in: 1...8, using: &random)).map { _ in Self.words.randomElement(using: &random)! }
                        .joined(separator: Bool.random(using: &random) ? " " : ""))
            }
            var text =
                "---\ntitle: 방 \(k)\ncreated: 2026-11-01T10:00:00+09:00\n---\n\n" + lines.joined(separator: "\n") + "\n"
            if k % 7 == 0 { text = text.decomposedStringWithCanonicalMapping }
            if k % 5 == 0 { text = text.replacingOccurrences(of: "\n", with: "\r\n") }
            // Some names in NFD, as a Mac writes them.
            var name = "방-\(k)-\(Self.words[k % Self.words.count])"
            if k % 3 == 0 { name = name.decomposedStringWithCanonicalMapping }
            let folder = k % 2 == 0 ? "rooms" : "diary/2026"
            let file =
                folder == "rooms"
                ? "\(folder)/\(name).md" : "\(folder)/2026-11-\(String(format: "%02d", k % 28 + 1))-\(name).md"
            try dir.write(file, text)
        }
        try dir.write("rooms/not-utf8.md", Array("---\ntitle: x\n---\n\n부산 바다 ".utf8) + [0xFF, 0xFE, 0x0A])
    }

    func queries(_ random: inout SeededRandom) -> [SearchQuery] {
        var out: [SearchQuery] = []
        var patterns = Self.words + ["부", "바다 여", "산책눈", "🍜🌊", "e", "RÉSUMÉ", "strasse", "CAFÉ", "kt"]
        for _ in 0..<10 {
            let w = Self.words.randomElement(using: &random)!
            let chars = Array(w)
            let from = Int.random(in: 0..<chars.count, using: &random)
            patterns.append(String(chars[from..<Int.random(in: (from + 1)...chars.count, using: &random)]))
        }
        for p in patterns {
            for mode in [SearchQuery.CaseMode.smart, .insensitive, .sensitive] {
                var q = SearchQuery(pattern: p)
                q.caseMode = mode
                out.append(q)
                if mode == .smart, p.decomposedStringWithCanonicalMapping != p {
                    out.append(SearchQuery(pattern: p.decomposedStringWithCanonicalMapping))
                }
            }
        }
        for p in ["해운대(는)?", "[Dd]ocker", "caf(e|é)", "바다.여행"] {
            var q = SearchQuery(pattern: p)
            q.isRegex = true
            out.append(q)
        }
        return out
    }

    func answer(_ r: SearchResults) -> [String] {
        r.items.flatMap { item in item.hits.map { "\(item.path):\($0.line):\($0.column):\($0.matches)" } }
            + r.skipped.map { "skipped \($0.path)" }
    }

    func compare(_ dir: TemporaryDirectory, _ index: SearchIndex, _ label: String, seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        let search = VaultSearch(vault: try Vault(root: dir.path))
        var narrowed = 0
        for q in queries(&random) {
            let scan = try search.run(q)
            let (indexed, _) = try search.run(q, index: index)
            #expect(answer(indexed) == answer(scan), "\(label): '\(q.pattern)' \(q.caseMode) regex=\(q.isRegex)")
            if indexed.usedIndex { narrowed += 1 }
        }
        // The index did narrow most searches (patterns of three characters or more).
        #expect(narrowed > 30, "\(label): the index narrowed only \(narrowed) searches")
    }

    /// A one- or two-character CJK search (a Korean word of one or two syllables, a Han or kana
    /// character) is narrowed by the index, and gives the scan's hits (#41); so is a regular
    /// expression whose literal part is that short.
    @Test func shortCJKSearchesUseTheIndex() throws {
        let dir = TemporaryDirectory("vault-index-short")
        try corpus(dir, seed: 11)
        let cache = TemporaryDirectory("vault-index-short-cache")
        let index = try SearchIndex(vaultRoot: dir.path, cacheHome: ProcessSettings.ofThisTest.cacheHome, path: cache.path + "/index.sqlite")
        let search = VaultSearch(vault: try Vault(root: dir.path))
        var queries = ["부", "바다", "눈", "大阪", "散", "コ", "꿈", "야경"].map { SearchQuery(pattern: $0) }
        var regex = SearchQuery(pattern: "바다[0-9]?")
        regex.isRegex = true
        queries.append(regex)
        for q in queries {
            let scan = try search.run(q)
            let (indexed, _) = try search.run(q, index: index)
            #expect(answer(indexed) == answer(scan), "'\(q.pattern)'")
            #expect(indexed.usedIndex, "'\(q.pattern)'")
        }
        // One or two Latin letters are in nearly every file: scanned, as before.
        let (latin, _) = try search.run(SearchQuery(pattern: "e"), index: index)
        #expect(!latin.usedIndex)
    }

    @Test func indexAndScanGiveTheSameHits() throws {
        let dir = TemporaryDirectory("vault-index-eq")
        try corpus(dir, seed: 7)
        let cache = TemporaryDirectory("vault-index-cache")
        let path = cache.path + "/index.sqlite"
        let index = try SearchIndex(vaultRoot: dir.path, cacheHome: ProcessSettings.ofThisTest.cacheHome, path: path)
        try compare(dir, index, "fresh", seed: 1)

        // Stale: a file changed by hand keeping its size, one removed, one added, one renamed.
        let rooms = try FileManager.default.contentsOfDirectory(atPath: dir.path + "/rooms").sorted()
        let first = "rooms/" + rooms[0]
        var bytes = try dir.read(first)
        if let at = bytes.firstIndex(of: 0x0A) { bytes.insert(contentsOf: Array("부산".utf8), at: at + 1) }
        try dir.write(first, bytes)
        try FileManager.default.removeItem(atPath: dir.path + "/rooms/" + rooms[1])
        try dir.write("rooms/새-방.md", "---\ntitle: 새 방\n---\n\n해운대 docker 🍜\n")
        try FileManager.default.moveItem(atPath: dir.path + "/rooms/" + rooms[2], toPath: dir.path + "/rooms/옮김.md")
        try compare(dir, index, "stale", seed: 2)

        // Deleted, then damaged: rebuilt, same answers.
        try FileManager.default.removeItem(atPath: path)
        try compare(dir, try SearchIndex(vaultRoot: dir.path, cacheHome: ProcessSettings.ofThisTest.cacheHome, path: path), "deleted", seed: 3)
        let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        truncate(path, off_t(size / 2))
        try compare(dir, try SearchIndex(vaultRoot: dir.path, cacheHome: ProcessSettings.ofThisTest.cacheHome, path: path), "truncated", seed: 4)
        try Data("not a database at all".utf8).write(to: URL(fileURLWithPath: path))
        try compare(dir, try SearchIndex(vaultRoot: dir.path, cacheHome: ProcessSettings.ofThisTest.cacheHome, path: path), "garbage", seed: 5)
    }
}
