import Foundation
import Testing
import VaultTestSupport

@testable import VaultCore

@Suite struct MergeTextTests {
    func b(_ s: String) -> [UInt8] { Array(s.utf8) }

    func text(_ base: String?, _ ours: String, _ theirs: String) -> FileMerge {
        Merge.text(base: base.map(b), ours: b(ours), theirs: b(theirs))
    }

    // MARK: the line diff

    /// The length of a longest common subsequence, by dynamic programming.
    func lcsLength(_ a: [Int], _ b: [Int]) -> Int {
        var row = [Int](repeating: 0, count: b.count + 1)
        for x in a {
            var diagonal = 0
            for j in 0..<b.count {
                let above = row[j + 1]
                row[j + 1] = x == b[j] ? diagonal + 1 : max(row[j + 1], row[j])
                diagonal = above
            }
        }
        return row[b.count]
    }

    @Test func hunksTurnOneSequenceIntoTheOtherWithALongestCommonSubsequence() {
        var rng = SeededRandom(seed: 42)
        for _ in 0..<2000 {
            let a = (0..<Int.random(in: 0...14, using: &rng)).map { _ in Int.random(in: 0...4, using: &rng) }
            var b = a
            for _ in 0..<Int.random(in: 0...6, using: &rng) {
                switch Int.random(in: 0...2, using: &rng) {
                case 0: b.insert(Int.random(in: 0...6, using: &rng), at: Int.random(in: 0...b.count, using: &rng))
                case 1 where !b.isEmpty: b.remove(at: Int.random(in: 0..<b.count, using: &rng))
                default:
                    if !b.isEmpty { b[Int.random(in: 0..<b.count, using: &rng)] = Int.random(in: 0...6, using: &rng) }
                }
            }
            let hunks = LineDiff.hunks(a, b)
            // Applying the hunks gives b; the lines between hunks are equal; no two hunks touch.
            var out: [Int] = []
            var x = 0
            var y = 0
            for h in hunks {
                #expect(h.old.lowerBound - x == h.new.lowerBound - y)
                #expect(Array(a[x..<h.old.lowerBound]) == Array(b[y..<h.new.lowerBound]))
                #expect(h.old.lowerBound >= x && (x == 0 && y == 0 || h.old.lowerBound > x || h.new.lowerBound > y))
                out += a[x..<h.old.lowerBound]
                out += b[h.new]
                x = h.old.upperBound
                y = h.new.upperBound
            }
            out += a[x...]
            #expect(out == b)
            let unchanged = a.count - hunks.reduce(0) { $0 + $1.old.count }
            #expect(unchanged == lcsLength(a, b), "a=\(a) b=\(b)")
        }
    }

    @Test func aLargeFileMergesQuickly() {
        var rng = SeededRandom(seed: 3)
        var lines = (0..<24000).map {
            "line \($0) " + String(repeating: "x", count: Int.random(in: 20...60, using: &rng)) + "\n"
        }
        let base = lines.joined()
        lines[100] = "ours changed this\n"
        lines.insert("ours inserted this\n", at: 15000)
        let ours = lines.joined()
        lines = base.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map { $0 + "\n" }
        lines[9000] = "theirs changed this\n"
        lines.removeSubrange(19000..<19100)
        let theirs = lines.joined()
        #expect(base.utf8.count > 1_000_000)
        let start = Date()
        let merged = text(base, ours, theirs)
        #expect(Date().timeIntervalSince(start) < 10)
        #expect(merged.conflictCopy == nil)
        let out = merged.text
        #expect(out.contains("ours changed this\n") && out.contains("ours inserted this\n"))
        #expect(out.contains("theirs changed this\n") && !out.contains("line 19050 "))
        #expect(out.split(separator: "\n").count == 24000 + 1 - 100)
        // Completely different files: nothing to match, still quick.
        let other = (0..<24000).map { "other \($0)\n" }.joined()
        let start2 = Date()
        #expect(text(base, other, ours).conflictCopy == Array(ours.utf8))
        #expect(Date().timeIntervalSince(start2) < 10)
    }

    // MARK: text files

    @Test func nonOverlappingChangesAreBothApplied() {
        let base = "a\nb\nc\nd\ne\n"
        let merged = text(base, "A\nb\nc\nd\ne\n", "a\nb\nc\nd\nE\nf\n")
        #expect(merged.text == "A\nb\nc\nd\nE\nf\n")
        #expect(merged.conflictCopy == nil)
        #expect(merged.notes.isEmpty)
    }

    @Test func identicalChangesAreAppliedOnce() {
        let merged = text("a\nb\nc\n", "a\nB\nc\nd\n", "a\nB\nc\n")
        #expect(merged.text == "a\nB\nc\nd\n")
        #expect(merged.conflictCopy == nil)
    }

    @Test func overlappingChangesKeepOursAndGiveTheirsAsACopy() {
        let theirs = "a\nthree\nc\n"
        let merged = text("a\nb\nc\n", "a\ntwo\nc\n", theirs)
        #expect(merged.text == "a\ntwo\nc\n")
        #expect(merged.conflictCopy == b(theirs))
        #expect(merged.notes.count == 1)
        #expect(!merged.text.contains("<<<<<<<"))
        // Changes on adjacent lines overlap too (as in git).
        #expect(text("a\nb\nc\n", "A\nb\nc\n", "a\nB\nc\n").conflictCopy != nil)
        // Both inserting different lines at the same place.
        #expect(text("a\nc\n", "a\nb1\nc\n", "a\nb2\nc\n").conflictCopy != nil)
    }

    @Test func crlfAndMissingFinalNewlineAndEmptyFiles() {
        let merged = text("a\r\nb\r\nc\r\nd", "A\r\nb\r\nc\r\nd", "a\r\nb\r\nc\r\nD")
        #expect(merged.text == "A\r\nb\r\nc\r\nD")
        #expect(text("a\nb", "a\nb\nc", "z\na\nb").text == "z\na\nb\nc")
        #expect(text("", "a\n", "").text == "a\n")
        #expect(text("", "", "b\n").text == "b\n")
        #expect(text("x\n", "", "x\ny\n").conflictCopy == b("x\ny\n"))
        #expect(text("x\n", "", "").text == "")
        #expect(text("a\nb\nc\nd\n", "b\nc\nd\n", "a\nb\nc\n").text == "b\nc\n")
    }

    @Test func withoutBaseOnlyTheSameFileMerges() {
        #expect(text(nil, "same\n", "same\n") == FileMerge(bytes: b("same\n")))
        let merged = text(nil, "ours\n", "theirs\n")
        #expect(merged.text == "ours\n")
        #expect(merged.conflictCopy == b("theirs\n"))
    }

    @Test func binaryFilesAreNeverMergedLineByLine() {
        let base: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0, 1, 2, 10, 3]
        let ours: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0, 9, 2, 10, 3]
        let theirs: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0, 1, 2, 10, 7]
        #expect(Merge.text(base: base, ours: ours, theirs: base) == FileMerge(bytes: ours))
        #expect(Merge.text(base: base, ours: base, theirs: theirs) == FileMerge(bytes: theirs))
        let both = Merge.text(base: base, ours: ours, theirs: theirs)
        #expect(both.bytes == ours && both.conflictCopy == theirs && both.notes.count == 1)
        // Invalid UTF-8 (Latin-1 text) is binary too.
        let latin: [UInt8] = Array("a\nb\n".utf8) + [0xE9, 10]
        let both2 = Merge.text(
            base: latin, ours: Array("A\nb\n".utf8) + [0xE9, 10], theirs: Array("a\nb\n".utf8) + [0xEA, 10])
        #expect(both2.conflictCopy != nil)
    }

    // MARK: diary entries

    static let entry = """
        ---
        id: d-01JPA3K8Z4QX
        title: 첫눈
        created: 2026-11-21T09:30:00+09:00
        updated: 2026-11-21T10:02:41+09:00
        tags: [겨울, 산책]
        ---

        # 2026년 11월 21일 토요일

        아침에 첫눈이 왔다.

        공원을 걸었다.

        저녁엔 집에 있었다.

        """

    func diary(_ base: String?, _ ours: String, _ theirs: String, newer: Merge.Newer = .theirs) throws -> FileMerge {
        try Merge.diaryEntry(base: base.map(b), ours: b(ours), theirs: b(theirs), path: "diary/2026/x.md", newer: newer)
    }

    @Test func diaryEditsInDifferentPlacesMergeCleanly() throws {
        let ours = Self.entry.replacingOccurrences(of: "첫눈이 왔다.", with: "첫눈이 펑펑 왔다.")
            .replacingOccurrences(of: "updated: 2026-11-21T10:02:41+09:00", with: "updated: 2026-11-21T12:00:00+09:00")
            .replacingOccurrences(of: "tags: [겨울, 산책]", with: "tags: [겨울, 산책, 눈]")
        let theirs = Self.entry.replacingOccurrences(of: "집에 있었다.", with: "친구를 만났다.")
            .replacingOccurrences(of: "updated: 2026-11-21T10:02:41+09:00", with: "updated: 2026-11-21T11:00:00+09:00")
            .replacingOccurrences(of: "tags: [겨울, 산책]", with: "tags: [겨울, 산책, 친구]")
        // Theirs is the newer change, but ours' `updated` is the later time.
        let merged = try diary(Self.entry, ours, theirs, newer: .theirs)
        let expected = Self.entry.replacingOccurrences(of: "첫눈이 왔다.", with: "첫눈이 펑펑 왔다.")
            .replacingOccurrences(of: "집에 있었다.", with: "친구를 만났다.")
            .replacingOccurrences(of: "updated: 2026-11-21T10:02:41+09:00", with: "updated: 2026-11-21T12:00:00+09:00")
            .replacingOccurrences(of: "tags: [겨울, 산책]", with: "tags: [겨울, 산책, 눈, 친구]")
        #expect(merged.text == expected)
        #expect(merged.conflictCopy == nil)
        let parsed = try DiaryFile(parsing: merged.bytes, path: "diary/2026/x.md")
        #expect(parsed.tags == ["겨울", "산책", "눈", "친구"])
        #expect(parsed.updated?.text == "2026-11-21T12:00:00+09:00")
    }

    @Test func diaryEditsThatOverlapKeepOursAndGiveACopy() throws {
        let ours = Self.entry.replacingOccurrences(of: "공원을 걸었다.", with: "공원을 오래 걸었다.")
            .replacingOccurrences(of: "title: 첫눈", with: "title: 첫눈 오는 날")
        let theirs = Self.entry.replacingOccurrences(of: "공원을 걸었다.", with: "공원을 뛰었다.")
            .replacingOccurrences(of: "tags: [겨울, 산책]", with: "tags: [겨울]")
        let merged = try diary(Self.entry, ours, theirs)
        // The body is ours' whole; the front-matter is still merged key by key.
        #expect(merged.text == ours.replacingOccurrences(of: "tags: [겨울, 산책]", with: "tags: [겨울]"))
        #expect(merged.conflictCopy == b(theirs))
        #expect(merged.notes.contains { $0.contains("conflict copy") })
        #expect(!merged.text.contains("<<<<<<<") && !merged.text.contains(">>>>>>>"))
    }

    /// One side converted the entry to CRLF, the other edited a line (or both, apart): the
    /// conversion is no edit, so the edits merge with no conflict copy, in CRLF throughout.
    @Test func anEntryConvertedToCRLFOnOneSideKeepsTheOtherSidesEdit() throws {
        let crlf = { (s: String) in s.replacingOccurrences(of: "\n", with: "\r\n") }
        let edited = Self.entry.replacingOccurrences(of: "공원을 걸었다.", with: "공원을 오래 걸었다.")
        for newer in [Merge.Newer.ours, .theirs] {
            let merged = try diary(Self.entry, crlf(Self.entry), edited, newer: newer)
            #expect(merged.text == crlf(edited) && merged.conflictCopy == nil)
            let swapped = try diary(Self.entry, edited, crlf(Self.entry), newer: newer)
            #expect(swapped.text == crlf(edited) && swapped.conflictCopy == nil)
            // The converting side edited elsewhere too: both edits, one line ending.
            let both = crlf(Self.entry.replacingOccurrences(of: "집에 있었다.", with: "친구를 만났다."))
            let full = try diary(Self.entry, both, edited, newer: newer)
            #expect(full.text == crlf(edited.replacingOccurrences(of: "집에 있었다.", with: "친구를 만났다.")))
            #expect(full.conflictCopy == nil)
        }
    }

    @Test func diaryWithoutBase() throws {
        #expect(try diary(nil, Self.entry, Self.entry) == FileMerge(bytes: b(Self.entry)))
        let other = Self.entry.replacingOccurrences(of: "첫눈", with: "둘째 눈")
        let merged = try diary(nil, Self.entry, other)
        #expect(merged.bytes == b(Self.entry) && merged.conflictCopy == b(other))
        #expect(throws: VaultError.self) { try diary(nil, "---\nupdated: yesterday\n---\n", Self.entry) }
    }

    @Test func diaryTitleChangedOnBothSidesTakesTheNewer() throws {
        let ours = Self.entry.replacingOccurrences(of: "title: 첫눈", with: "title: 눈")
        let theirs = Self.entry.replacingOccurrences(of: "title: 첫눈", with: "title: 첫 눈")
        let merged = try diary(Self.entry, ours, theirs, newer: .ours)
        #expect(merged.text == ours)
        #expect(merged.notes == ["title: both sides changed it; kept \"눈\" (the later change), dropped \"첫 눈\""])
    }

    // MARK: vault.yml

    static let config = """
        # vault configuration.
        format: 1
        locale: ko_KR            # locale of the dates
        time_zone: Asia/Seoul
        provider: ollama
        model: llama3.1:8b
        providers:
          ollama:
            base_url: http://localhost:11434/v1
            model: llama3.1:8b

        """

    func config(_ base: String?, _ ours: String, _ theirs: String, newer: Merge.Newer = .theirs) throws -> FileMerge {
        try Merge.config(base: base.map(b), ours: b(ours), theirs: b(theirs), newer: newer)
    }

    @Test func configMergesKeyByKey() throws {
        let ours = Self.config.replacingOccurrences(
            of: "model: llama3.1:8b\nproviders", with: "model: qwen2.5\nproviders")
        let theirs =
            Self.config.replacingOccurrences(of: "locale: ko_KR ", with: "locale: ja_JP ")
            + "  openai:\n    base_url: https://api.openai.com/v1\n    api_key_env: OPENAI_API_KEY\n"
        let merged = try config(Self.config, ours, theirs)
        let expected =
            ours.replacingOccurrences(of: "locale: ko_KR ", with: "locale: ja_JP ")
            + "  openai:\n    base_url: https://api.openai.com/v1\n    api_key_env: OPENAI_API_KEY\n"
        #expect(merged.text == expected)
        #expect(merged.notes.isEmpty)
        let parsed = try VaultConfig(parsing: merged.bytes)
        #expect(parsed.locale == "ja_JP" && parsed.model == "qwen2.5")
        #expect(parsed.providers["openai"]?["api_key_env"] == "OPENAI_API_KEY")
    }

    @Test func configKeyChangedOnBothSidesTakesTheNewer() throws {
        let ours = Self.config.replacingOccurrences(of: "provider: ollama", with: "provider: openai")
        let theirs = Self.config.replacingOccurrences(of: "provider: ollama", with: "provider: offline")
        let merged = try config(Self.config, ours, theirs, newer: .ours)
        #expect(merged.text == ours)
        #expect(
            merged.notes == ["provider: both sides changed it; kept \"openai\" (the later change), dropped \"offline\""]
        )
        // A nested mapping is one key: changed on both sides, the newer side's whole block.
        let o2 = Self.config.replacingOccurrences(of: "11434/v1", with: "11435/v1")
        let t2 = Self.config.replacingOccurrences(of: "    model: llama3.1:8b\n", with: "    model: qwen2.5\n")
        let nested = try config(Self.config, o2, t2, newer: .theirs)
        #expect(nested.text == t2)
        #expect(nested.notes.count == 1 && nested.notes[0].hasPrefix("providers:"))
        // Without a base: key by key, the newer side winning.
        let noBase = try config(nil, ours, theirs + "author: Ada <ada@example.com>\n", newer: .theirs)
        #expect(noBase.text == theirs + "author: Ada <ada@example.com>\n")
        #expect(throws: VaultError.self) { try config(nil, "- a\n- b\n", Self.config) }
    }
}
