import Foundation
import Testing
import VaultCore
import VaultTestSupport

@testable import VaultSearch

/// A vault with rooms and entries written for search: a code fence, front-matter, CRLF lines,
/// text saved in NFD (as macOS writes it), a file that is not valid UTF-8.
func searchVault() throws -> TemporaryDirectory {
    let dir = TemporaryDirectory("vault-search")
    try dir.write("vault.yml", VaultConfig.initialText(locale: "ko_KR", timeZone: TimeZone(identifier: "Asia/Seoul")!))
    try dir.write(
        "rooms/부산-여행.md",
        """
        ---
        title: 부산 여행
        created: 2026-10-28T21:10:00+09:00
        tags: [여행, 바다]
        ---

        ## 🧑 user · 2026년 10월 28일 수요일 오후 9:12 <!-- 2026-10-28T21:12:07+09:00 m-QB7X91ZQF6VJ -->

        해운대 근처 숙소 알려줘

        ## 🤖 assistant · 2026년 10월 28일 수요일 오후 9:12 <!-- 2026-10-28T21:12:09+09:00 m-QB7X91ZQF6VK model=m -->

        해운대는 부산의 바다예요. Docker 말고 KTX를 타세요.

        ```sh
        echo 해운대 docker
        ```

        ## 🧑 user · 2026년 11월 2일 월요일 오전 9:00 <!-- 2026-11-02T09:00:00+09:00 m-QB7X91ZQF6VM -->

        Straße 이름은 해운대로

        """)
    // CRLF line endings.
    try dir.write(
        "rooms/crlf.md",
        "---\r\ntitle: 윈도우\r\ncreated: 2026-11-01T10:00:00+09:00\r\n---\r\n\r\n"
            + "## 🧑 user · 2026년 11월 1일 일요일 오전 10:00 <!-- 2026-11-01T10:00:00+09:00 m-QB7X91ZQF6VN -->\r\n\r\n"
            + "부산 가는 기차\r\n")
    // Saved on macOS: every Hangul syllable decomposed into jamo.
    let nfd = """
        ---
        title: 맥에서 쓴 글
        created: 2026-11-05T08:00:00+09:00
        tags: [맥]
        ---

        # 2026년 11월 5일 목요일

        오늘은 부산에 간다.

        """.decomposedStringWithCanonicalMapping
    try dir.write("diary/2026/2026-11-05-mac.md", nfd)
    try dir.write(
        "diary/2026/2026-11-06-일기.md",
        """
        ---
        title: 일기
        created: 2026-11-06T08:00:00+09:00
        tags: [바다]
        ---

        # 2026년 11월 6일 금요일

        부
        해운대 산책

        """)
    try dir.write("diary/2026/2026-11-07-broken.md", Array("---\ntitle: x\n---\n\n부산 \u{FF}".utf8) + [0xFF, 0x0A])
    return dir
}

func search(_ dir: TemporaryDirectory, _ configure: (inout SearchQuery) -> Void) throws -> SearchResults {
    var query = SearchQuery(pattern: "")
    configure(&query)
    return try VaultSearch(vault: Vault(root: dir.path)).run(query)
}

func hitLines(_ results: SearchResults) -> [String] {
    results.items.flatMap { item in item.hits.map { "\(item.path):\($0.line):\($0.column)" } }
}

@Suite struct SearchTests {
    @Test func aKoreanWordIsFoundInEveryFormWithWhoAndWhen() throws {
        let dir = try searchVault()
        let r = try search(dir) { $0.pattern = "부산" }
        // Rooms first, then the diary; columns count bytes, as editors do.
        let macColumn = 1 + "오늘은 ".decomposedStringWithCanonicalMapping.utf8.count
        #expect(
            hitLines(r) == [
                "rooms/crlf.md:8:1", "rooms/부산-여행.md:2:8", "rooms/부산-여행.md:13:14",
                "diary/2026/2026-11-05-mac.md:9:\(macColumn)",
            ])
        // The NFD file is found, and its column counts its own (decomposed) bytes.
        let busan = try #require(r.items.first { $0.path == "rooms/부산-여행.md" })
        #expect(busan.title == "부산 여행")
        #expect(busan.hits[0].inFrontMatter && busan.hits[0].message == nil)
        #expect(busan.hits[1].message?.role == .assistant)
        #expect(busan.hits[1].message?.id == "m-QB7X91ZQF6VK")
        let mac = try #require(r.items.first { $0.path.hasSuffix("mac.md") })
        #expect(mac.title == "맥에서 쓴 글")
        #expect(mac.day == LocalDate(iso: "2026-11-05"))
        #expect(mac.hits[0].message == nil && !mac.hits[0].inFrontMatter)
        // CRLF: the line has no carriage return.
        let crlf = try #require(r.items.first { $0.path == "rooms/crlf.md" })
        #expect(crlf.hits[0].text == "부산 가는 기차")
        // The file that is not valid UTF-8 is skipped and said so.
        #expect(r.skipped.map(\.path) == ["diary/2026/2026-11-07-broken.md"])
        #expect(r.skipped.first?.reason.contains("not valid UTF-8") == true)
    }

    @Test func aQueryTypedDecomposedFindsComposedText() throws {
        let dir = try searchVault()
        let r = try search(dir) { $0.pattern = "해운대 근처".decomposedStringWithCanonicalMapping }
        #expect(hitLines(r) == ["rooms/부산-여행.md:9:1"])
    }

    @Test func oneAndTwoSyllablesAreFound() throws {
        let dir = try searchVault()
        let one = try search(dir) { $0.pattern = "부" }
        #expect(hitLines(one).contains("diary/2026/2026-11-06-일기.md:9:1"))
        let two = try search(dir) { $0.pattern = "산책" }
        #expect(hitLines(two) == ["diary/2026/2026-11-06-일기.md:10:11"])
    }

    @Test func hitsInCodeFencesAndFrontMatterAreHitsAndSaySo() throws {
        let dir = try searchVault()
        let fence = try search(dir) { $0.pattern = "echo 해운대" }
        #expect(hitLines(fence) == ["rooms/부산-여행.md:16:1"])
        #expect(fence.items[0].hits[0].message?.role == .assistant)
        let front = try search(dir) { $0.pattern = "바다" }
        let lines = front.items.flatMap { item in item.hits.map { (item.path, $0.line, $0.inFrontMatter) } }
        #expect(lines.contains { $0 == ("rooms/부산-여행.md", 4, true) })
        #expect(lines.contains { $0 == ("rooms/부산-여행.md", 13, false) })
    }

    @Test func caseIsIgnoredUnlessThePatternHasCapitals() throws {
        let dir = try searchVault()
        #expect(hitLines(try search(dir) { $0.pattern = "docker" }).count == 2)
        let column = 1 + "해운대는 부산의 바다예요. ".utf8.count
        #expect(hitLines(try search(dir) { $0.pattern = "Docker" }) == ["rooms/부산-여행.md:13:\(column)"])
        #expect(hitLines(try search(dir) { $0.pattern = "Docker"; $0.caseMode = .insensitive }).count == 2)
        // Unicode case folding: ß is ss.
        #expect(hitLines(try search(dir) { $0.pattern = "strasse" }) == ["rooms/부산-여행.md:21:1"])
        #expect(hitLines(try search(dir) { $0.pattern = "STRASSE"; $0.caseMode = .insensitive }).count == 1)
    }

    @Test func filtersByRoleRoomTagAndDay() throws {
        let dir = try searchVault()
        let user = try search(dir) { $0.pattern = "해운대"; $0.role = .user }
        #expect(hitLines(user) == ["rooms/부산-여행.md:9:1", "rooms/부산-여행.md:21:19"])
        let room = try search(dir) { $0.pattern = "해운대"; $0.scope = .item("rooms/부산-여행.md") }
        #expect(room.items.count == 1 && room.filesSearched == 1)
        let diary = try search(dir) { $0.pattern = "해운대"; $0.scope = .diary }
        #expect(hitLines(diary) == ["diary/2026/2026-11-06-일기.md:10:1"])
        let tagged = try search(dir) { $0.pattern = "부산"; $0.tag = "맥" }
        #expect(tagged.items.map(\.path) == ["diary/2026/2026-11-05-mac.md"])
        let november = try search(dir) {
            $0.pattern = "해운대"
            $0.since = LocalDate(iso: "2026-11-01")
            $0.until = LocalDate(iso: "2026-11-30")
        }
        #expect(hitLines(november) == ["rooms/부산-여행.md:21:19", "diary/2026/2026-11-06-일기.md:10:1"])
    }

    @Test func regularExpressionsUseTheirLiteralAndMatchInNFC() throws {
        let dir = try searchVault()
        let r = try search(dir) { $0.pattern = "해운대(는|로)"; $0.isRegex = true }
        #expect(hitLines(r) == ["rooms/부산-여행.md:13:1", "rooms/부산-여행.md:21:19"])
        #expect(RegexLiteral.required(in: "docker\\s+(run|build)") == "docker")
        #expect(RegexLiteral.required(in: "a|b") == nil)
        #expect(RegexLiteral.required(in: "ab?c+de") == "de")
    }

    /// With `onItem`, items go out while the scan goes on, in path order whichever worker found
    /// them, and are not kept; the counts are those of a search that keeps them.
    @Test func itemsGivenAsTheyAreFoundComeInPathOrderAndAreNotKept() throws {
        let dir = try searchVault()
        let header = "## 🧑 user · 2026년 11월 8일 <!-- 2026-11-08T09:00:00+09:00 m-QB7X91ZQF6VP -->"
        for i in 0..<300 where i % 3 != 0 {
            try dir.write("rooms/방-\(1000 + i).md", "---\ntitle: 방 \(i)\n---\n\n\(header)\n\n부산 \(i)\n부산\n")
        }
        let kept = try search(dir) { $0.pattern = "부산" }
        final class Seen: @unchecked Sendable {
            var paths: [String] = []
        }
        let seen = Seen()
        var streaming = VaultSearch(vault: try Vault(root: dir.path))
        streaming.onItem = { seen.paths.append($0.path) }
        let streamed = try streaming.run(SearchQuery(pattern: "부산"))
        #expect(streamed.items.isEmpty)
        #expect(seen.paths == kept.items.map(\.path))
        #expect(streamed.itemCount == kept.items.count && streamed.itemCount > 200)
        #expect(streamed.hitCount == kept.hitCount)
        #expect(streamed.skipped.map(\.path) == kept.skipped.map(\.path))
    }

    /// With a printer, each item is rendered on the thread that scanned it (a renderer per
    /// thread) and the bytes written in path order (parts of a long file:
    /// `aFileWithVeryManyHitsIsGivenInParts`).
    @Test func printedItemsAreRenderedWhereTheyAreFoundAndWrittenInPathOrder() throws {
        let dir = try searchVault()
        let header = "## 🧑 user · 2026년 11월 8일 <!-- 2026-11-08T09:00:00+09:00 m-QB7X91ZQF6VP -->"
        for i in 0..<200 { try dir.write("rooms/방-\(1000 + i).md", "\(header)\n\n부산 \(i)\n부산\n") }
        let kept = try search(dir) { $0.pattern = "부산" }
        final class Written: @unchecked Sendable {
            var text = ""
            var renderers = 0
        }
        let written = Written()
        let lock = NSLock()
        var printing = VaultSearch(vault: try Vault(root: dir.path))
        printing.printer = SearchPrinter(
            makeRenderer: {
                lock.withLock { written.renderers += 1 }
                return { item, out in out += "\(item.continued ? "+" : "")\(item.path) \(item.hits.count)\n".utf8 }
            },
            write: { bytes, continued in
                #expect(continued == (bytes.first == UInt8(ascii: "+")))
                written.text += String(decoding: bytes, as: UTF8.self)
            })
        let printed = try printing.run(SearchQuery(pattern: "부산"))
        #expect(printed.items.isEmpty)
        #expect(printed.itemCount == kept.items.count && printed.hitCount == kept.hitCount)
        let lines = written.text.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        #expect(lines.map { $0[0] } == kept.items.map(\.path))
        #expect(lines.map { Int($0[1]) } == kept.items.map(\.hits.count))
        // One renderer per scanning thread, in each of the two scans (the rooms, then the diary).
        #expect(written.renderers >= 1 && written.renderers <= 2 * ProcessInfo.processInfo.activeProcessorCount)
    }

    /// A listing saved between searches (`listingCache`) is taken while the folders are
    /// unchanged, and a room added or removed since is seen.
    @Test func aSavedListingStillSeesRoomsAddedAndRemoved() throws {
        let dir = try searchVault()
        let cacheDir = TemporaryDirectory("search-listing-cache")
        var searching = VaultSearch(vault: try Vault(root: dir.path))
        searching.listingCache = cacheDir.path + "/listing"
        searching.racyMargin = 0
        func paths() throws -> [String] { try searching.run(SearchQuery(pattern: "부산")).items.map(\.path) }
        let before = try paths()
        #expect(before == ["rooms/crlf.md", "rooms/부산-여행.md", "diary/2026/2026-11-05-mac.md"])
        #expect(FileManager.default.fileExists(atPath: cacheDir.path + "/listing"))
        try waitForTheFileSystemClock(pastEverythingIn: [dir.path, cacheDir.path], probeIn: cacheDir.path)
        #expect(try paths() == before)
        try dir.write("rooms/새-방.md", "부산\n")
        #expect(try paths() == ["rooms/crlf.md", "rooms/부산-여행.md", "rooms/새-방.md", "diary/2026/2026-11-05-mac.md"])
        try waitForTheFileSystemClock(pastEverythingIn: [dir.path, cacheDir.path], probeIn: cacheDir.path)
        try FileManager.default.removeItem(atPath: dir.path + "/rooms/새-방.md")
        #expect(try paths() == before)
        // Nothing was written in the vault.
        #expect(!dir.files().contains { $0.contains("listing") })
    }

    /// A file with more hits than `spillAfter` is given to `onItem` in parts as it is read: the
    /// first part opens the item, the others go on from it, and together they are its hits.
    @Test func aFileWithVeryManyHitsIsGivenInParts() throws {
        let dir = try searchVault()
        let header = "## 🧑 user · 2026년 11월 8일 <!-- 2026-11-08T09:00:00+09:00 m-QB7X91ZQF6VP -->"
        // Three pieces of 8 MiB: parts can go out between them.
        let body = String(repeating: "부산 바다 \(String(repeating: "가", count: 300))\n", count: 26_000)
        try dir.write("rooms/긴-방.md", "---\ntitle: 긴 방\n---\n\n\(header)\n\n\(body)")
        let whole = try search(dir) { $0.pattern = "부산 바다" }
        final class Seen: @unchecked Sendable {
            var items: [SearchItem] = []
        }
        let seen = Seen()
        var streaming = VaultSearch(vault: try Vault(root: dir.path))
        streaming.spillAfter = 1_000
        streaming.onItem = { seen.items.append($0) }
        let r = try streaming.run(SearchQuery(pattern: "부산 바다"))
        let parts = seen.items.filter { $0.path == "rooms/긴-방.md" }
        #expect(parts.count >= 3)
        #expect(parts.first?.continued == false && parts.dropFirst().allSatisfy(\.continued))
        #expect(parts.flatMap(\.hits).map(\.line) == whole.items.first { $0.path == "rooms/긴-방.md" }?.hits.map(\.line))
        #expect(parts.allSatisfy { $0.title == "긴 방" })
        #expect(r.itemCount == whole.items.count && r.hitCount == whole.hitCount)
        // Through a printer, the same parts, flagged as they go on.
        final class Written: @unchecked Sendable {
            var parts: [(continued: Bool, hits: Int)] = []
        }
        let written = Written()
        streaming.onItem = nil
        streaming.printer = SearchPrinter(
            makeRenderer: { { item, out in out += "\(item.path)\t\(item.hits.count)".utf8 } },
            write: { bytes, continued in
                let fields = String(decoding: bytes, as: UTF8.self).split(separator: "\t")
                if fields[0] == "rooms/긴-방.md" { written.parts.append((continued, Int(fields[1]) ?? -1)) }
            })
        _ = try streaming.run(SearchQuery(pattern: "부산 바다"))
        #expect(written.parts.count >= 3)
        #expect(written.parts.first?.continued == false && written.parts.dropFirst().allSatisfy(\.continued))
        #expect(written.parts.map(\.hits).reduce(0, +) == parts.map(\.hits.count).reduce(0, +))
    }

    /// `-l` builds only an item's first hit, but still reads the lines after it that could match,
    /// so a file that is not UTF-8 further on is skipped as the full search skips it.
    @Test func firstHitOnlyKeepsTheFirstHitAndStillSkipsWhatIsNotUTF8() throws {
        let dir = try searchVault()
        try dir.write("rooms/later-broken.md", Array("---\ntitle: x\n---\n\n부산 하나\n부산 \u{FF}".utf8) + [0xFF, 0x0A])
        let all = try search(dir) { $0.pattern = "부산" }
        let first = try search(dir) {
            $0.pattern = "부산"
            $0.firstHitOnly = true
        }
        #expect(first.items.map(\.path) == all.items.map(\.path))
        #expect(first.items.allSatisfy { $0.hits.count == 1 })
        #expect(first.items.map { $0.hits[0].line } == all.items.map { $0.hits[0].line })
        #expect(all.items.contains { $0.hits.count > 1 })
        #expect(first.skipped.map(\.path) == all.skipped.map(\.path))
        #expect(first.skipped.map(\.path).contains("rooms/later-broken.md"))
    }

    /// An NFC line goes to ICU as it is and its UTF-16 offsets are mapped back; an NFD line is
    /// matched in its key: either way every match is the line's own bytes, past emoji (two
    /// UTF-16 units), Hangul (three bytes) and decomposed letters.
    @Test func aRegularExpressionsMatchesAreTheLinesOwnBytes() throws {
        let dir = try searchVault()
        let line = "😀😀 a héllo 😀 wörld 한국 z😀héllo"
        let header = "## 🧑 user · 2026년 11월 8일 <!-- 2026-11-08T09:00:00+09:00 m-QB7X91ZQF6VP -->"
        try dir.write("rooms/nfc.md", "---\ntitle: nfc\n---\n\n\(header)\n\n\(line)\n")
        let decomposed = line.decomposedStringWithCanonicalMapping
        try dir.write("rooms/nfd.md", "---\ntitle: nfd\n---\n\n\(header)\n\n\(decomposed)\n")
        let r = try search(dir) { $0.pattern = "h.llo|w.rld|국 z"; $0.isRegex = true }
        #expect(r.items.map(\.path) == ["rooms/nfc.md", "rooms/nfd.md"])
        for item in r.items {
            let hit = try #require(item.hits.first)
            let bytes = Array(hit.text.utf8)
            let found = hit.matches.map {
                String(decoding: bytes[$0], as: UTF8.self).precomposedStringWithCanonicalMapping
            }
            #expect(found == ["héllo", "wörld", "국 z", "héllo"], "\(item.path)")
            #expect(hit.column == 1 + "😀😀 a ".utf8.count)
        }
    }

    @Test(arguments: [
        ("ab(c", 3, "never closed"), ("a)b", 2, "closes no group"), ("*a", 1, "repeats nothing"),
        ("[abc", 1, "never closed"), ("ab\\", 3, "backslash"), ("a{3,1}", 2, "below the minimum"),
    ])
    func anInvalidRegularExpressionSaysWhere(pattern: String, position: Int, reason: String) throws {
        var query = SearchQuery(pattern: pattern)
        query.isRegex = true
        #expect {
            try query.validate()
        } throws: { error in
            let text = (error as? VaultError)?.description ?? ""
            return text.contains("at position \(position):") && text.contains(reason)
        }
    }

    @Test func aLongRoomIsSearchedInPiecesWithLinesAndMessagesRight() throws {
        let dir = try searchVault()
        // About 20 MB: more than two pieces of 8 MB.
        var text = "---\ntitle: 긴 방\ncreated: 2026-01-01T00:00:00+09:00\n---\n"
        let filler = String(repeating: "가나다라마바사 아자차카타파하 ", count: 60) + "\n"
        var expected: [Int] = []
        var line = 4
        for k in 0..<1200 {
            let minute = String(format: "%02d", k % 60)
            let hour = String(format: "%02d", k / 60 % 24)
            let id = "m-" + String(format: "%012d", k).replacingOccurrences(of: "0", with: "A")
            text += "\n## 🧑 user · x <!-- 2026-01-01T\(hour):\(minute):00+09:00 \(id) -->\n\n"
            line += 3
            for j in 0..<15 {
                text += j == 7 && k % 100 == 0 ? "찾는 말 \(k)\n" : filler
                line += 1
                if j == 7 && k % 100 == 0 { expected.append(line) }
            }
        }
        try dir.write("rooms/긴-방.md", text)
        let r = try search(dir) { $0.pattern = "찾는 말" }
        let hits = try #require(r.items.first { $0.path == "rooms/긴-방.md" }).hits
        #expect(hits.map(\.line) == expected)
        #expect(
            hits.map { $0.message?.id }
                == expected.indices.map {
                    "m-" + String(format: "%012d", $0 * 100).replacingOccurrences(of: "0", with: "A")
                })
    }
}
