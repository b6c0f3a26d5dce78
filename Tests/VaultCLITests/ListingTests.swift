import Foundation
import Testing
import VaultCore
import VaultTestSupport

/// `vault rooms`, `vault diary list` and `vault show`.
@Suite struct ListingTests {
    private func json(_ r: RunResult) throws -> [[String: Any]] {
        try #require(
            try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]],
            "not a JSON list: \(r.stdout)")
    }

    /// A `date` field as `yyyy-mm-dd`, whether it is written as a string or as {year, month, day}.
    private func day(_ value: Any?) -> String? {
        if let s = value as? String { return s }
        if let d = value as? [String: Any], let y = d["year"] as? Int, let m = d["month"] as? Int,
            let dd = d["day"] as? Int
        {
            return String(format: "%04d-%02d-%02d", y, m, dd)
        }
        return nil
    }

    /// Index of each needle in `text`, in order; fails when one is missing.
    private func positions(
        of needles: [String], in text: String, sourceLocation: SourceLocation = #_sourceLocation
    ) -> [Int] {
        needles.map { n in
            guard let r = text.range(of: n) else {
                Issue.record("\"\(n)\" is missing from: \(text)", sourceLocation: sourceLocation)
                return -1
            }
            return text.distance(from: text.startIndex, to: r.lowerBound)
        }
    }

    /// A Syncthing copy of a room and a Dropbox copy of a diary entry (same title, same text as
    /// their originals) are marked in `vault rooms` and `vault diary list`, text and JSON; the
    /// originals are not; listing changes nothing.
    @Test func conflictCopiesAreMarkedInListings() throws {
        let vault = try Project.copyOfSampleVault()
        let room = "rooms/부산-여행.md"
        let roomCopy = "rooms/부산-여행.sync-conflict-20261123-101500-ABCDEFG.md"
        let entry = "diary/2026/2026-11-21-첫눈.md"
        let entryCopy = "diary/2026/2026-11-21-첫눈 (Ada's conflicted copy 2026-11-23).md"
        try vault.write(roomCopy, try vault.read(room))
        try vault.write(entryCopy, try vault.read(entry))
        let before = try vault.snapshot()
        for (arguments, copy, original) in [(["rooms"], roomCopy, room), (["diary", "list"], entryCopy, entry)] {
            let text = try runVault(arguments, in: vault.path)
            expectSuccess(text)
            // The sample vault is Korean: its listing words are too.
            let marked = text.stdout.split(separator: "\n").filter { $0.contains("[\(original)의 충돌 사본]") }
            #expect(marked.count == 1, "\(arguments): \(text.stdout)")
            let list = try json(try runVault(arguments + ["--json"], in: vault.path))
            let byPath = Dictionary(uniqueKeysWithValues: list.map { ($0["path"] as? String ?? "", $0) })
            #expect(byPath[copy]?["conflict_copy_of"] as? String == original, "\(arguments): \(byPath[copy] ?? [:])")
            #expect(byPath[original]?["conflict_copy_of"] == nil, "\(arguments)")
            #expect(list.filter { $0["conflict_copy_of"] != nil }.count == 1, "\(arguments)")
        }
        expectUnchanged(before, try vault.snapshot())
    }

    /// The last message's timestamp of a room file, else its `created`.
    private func lastActivity(_ text: String) -> String? {
        if let last = parseRoom(text).messages.last { return last.header.timestamp }
        for line in text.split(separator: "\n") where line.hasPrefix("created: ") { return String(line.dropFirst(9)) }
        return nil
    }

    // MARK: vault rooms

    static let sampleRoomsNewestFirst = [
        "rooms/독서-모임-발제문.md", "rooms/김치찌개-레시피.md", "rooms/부산-여행.md", "rooms/sf-trip-packing-list.md",
        "rooms/vault-헤더-이스케이프.md", "rooms/swift-concurrency-공부.md",
    ]

    @Test func roomsJSONIsMostRecentFirstByTheLastMessage() throws {
        let vault = try Project.copyOfSampleVault()
        let r = try runVault(["rooms", "--json"], in: vault.path)
        expectSuccess(r)
        let rooms = try json(r)
        // Expected: computed from the files themselves.
        var expected: [(path: String, last: String)] = []
        for f in vault.files() where f.hasPrefix("rooms/") && f.hasSuffix(".md") {
            expected.append((f, try #require(lastActivity(try vault.readText(f)))))
        }
        expected.sort { rfc3339($0.last)! > rfc3339($1.last)! }
        #expect(rooms.map { $0["path"] as? String ?? "" } == expected.map(\.path))
        #expect(rooms.map { $0["last_activity"] as? String ?? "" } == expected.map(\.last))
        #expect(expected.map(\.path) == Self.sampleRoomsNewestFirst)
        for room in rooms {
            #expect(room["title"] is String)
            #expect(room["preview"] is String)
        }
        let byPath = Dictionary(uniqueKeysWithValues: rooms.map { ($0["path"] as! String, $0) })
        #expect(byPath["rooms/부산-여행.md"]?["title"] as? String == "부산 여행")
        #expect(byPath["rooms/sf-trip-packing-list.md"]?["title"] as? String == "SF trip packing list")
        #expect(
            byPath["rooms/sf-trip-packing-list.md"]?["preview"] as? String
                == "Most likely just the plug adapter. Check the label on each charger:")
        // A pending prompt is what the preview shows.
        #expect(
            byPath["rooms/김치찌개-레시피.md"]?["preview"] as? String == "참치 김치찌개로도 해 보고 싶어. 돼지고기 대신 참치캔(150g) 하나 넣으면")
        #expect(byPath["rooms/독서-모임-발제문.md"]?["preview"] as? String == "")
    }

    @Test func roomsTextListsTitlesInTheSameOrder() throws {
        let vault = try Project.copyOfSampleVault()
        let before = try vault.snapshot()
        let r = try runVault(["rooms"], in: vault.path, environment: ["COLUMNS": "200"])
        expectSuccess(r)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        let titles = [
            "독서 모임 발제문", "김치찌개 레시피", "부산 여행", "SF trip packing list", "vault 헤더 이스케이프", "Swift concurrency 공부",
        ]
        try #require(lines.count == titles.count, "\(r.stdout)")
        for (line, title) in zip(lines, titles) { #expect(line.contains(title), "\(line) should be \(title)") }
        // How long ago, in the vault's locale (ko_KR) and zone (what it says depends on today:
        // `VaultCoreTests/TerminalViewsTests` checks the words).
        let last = Timestamp(rfc3339: "2026-11-15T18:03:40+09:00")!.date
        let ago = RelativeTime.string(
            for: last, now: Date(), locale: "ko_KR", timeZone: TimeZone(identifier: "Asia/Seoul")!)
        #expect(lines[1].hasPrefix("  " + ago + " "), "\(lines[1])")
        #expect(lines[1].contains("✍️"))
        expectUnchanged(before, try vault.snapshot())
    }

    /// The order itself (by instant, not local text): `VaultCoreTests/VaultListingTests`.
    @Test func aChatMakesARoomTheMostRecent() throws {
        let vault = try freshVault()
        func room(_ title: String, header: String) -> String {
            let id = "m-" + String(repeating: title.first!.uppercased(), count: 12)
            return "---\ntitle: \(title)\ncreated: 2026-10-01T00:00:00Z\n---\n\n"
                + "## 🧑 user · x <!-- \(header) \(id) -->\n\nhello from \(title)\n\n" + promptMarker + "\n"
        }
        try vault.write("rooms/p.md", room("P", header: "2026-11-01T09:00:00+09:00"))
        try vault.write("rooms/q.md", room("Q", header: "2026-11-02T09:00:00+09:00"))
        let before = try json(try runVault(["rooms", "--json"], in: vault.path))
        #expect(before.map { $0["path"] as? String ?? "" } == ["rooms/q.md", "rooms/p.md"])
        expectSuccess(try runVault(["chat", "p", "now"], in: vault.path))
        let after = try json(try runVault(["rooms", "--json"], in: vault.path))
        #expect(after.map { $0["path"] as? String ?? "" } == ["rooms/p.md", "rooms/q.md"])
        let written = try #require(parseRoom(try vault.readText("rooms/p.md")).messages.last)
        #expect(after.first?["last_activity"] as? String == written.header.timestamp)
        #expect((after.first?["preview"] as? String)?.hasPrefix("(offline)") == true)
    }

    @Test func roomsShowAPendingPrompt() throws {
        let vault = try Project.copyOfSampleVault()
        // A room with no message yet, and text typed below its marker.
        try vault.write(offlineSampleRoom, try vault.read(offlineSampleRoom) + utf8("발제문 첫 문단:\n이 책은 기억에 관한 이야기다.\n"))
        let before = try vault.snapshot()
        let r = try runVault(["rooms", "--json"], in: vault.path)
        expectSuccess(r)
        let byPath = Dictionary(uniqueKeysWithValues: try json(r).map { ($0["path"] as! String, $0) })
        let fresh = try #require(byPath[offlineSampleRoom])
        #expect(fresh["pending_prompt"] as? Bool == true)
        #expect(fresh["preview"] as? String == "발제문 첫 문단:")
        // A room with messages and a pending prompt (in the sample).
        let kimchi = try #require(byPath["rooms/김치찌개-레시피.md"])
        #expect(kimchi["pending_prompt"] as? Bool == true)
        #expect(kimchi["preview"] as? String == "참치 김치찌개로도 해 보고 싶어. 돼지고기 대신 참치캔(150g) 하나 넣으면")
        // Rooms without one.
        #expect(byPath["rooms/부산-여행.md"]?["pending_prompt"] as? Bool == false)
        let text = try runVault(["rooms"], in: vault.path, environment: ["COLUMNS": "200"])
        let line = try #require(text.stdout.split(separator: "\n").first { $0.contains("독서 모임 발제문") })
        #expect(line.contains("✍️") && line.contains("발제문 첫 문단:"), "\(line)")
        expectUnchanged(before, try vault.snapshot())
    }

    // MARK: vault diary list

    static let sampleDiaryNewestFirst = [
        "diary/2026/2026-11-21-첫눈.md", "diary/2026/2026-11-14-단호박-수프.md", "diary/2026/2026-11-07-부산-둘째-날.md",
        "diary/2026/2026-10-22-10월-야근-주간.md", "diary/2026/2026-10-03-大阪の朝.md", "diary/2026/2026-09-30 회고.md",
        "diary/2026/2026-09-25-추석-연휴.md", "diary/2026/2026-09-12-late-night-in-san-francisco.md",
        "diary/2026/2026-08-28-swift-동시성-공부.md", "diary/2026/2026-08-15-광복절-자전거.md",
    ]

    @Test func diaryListJSONIsNewestFirstAndIncludesTheHandMadeEntry() throws {
        let vault = try Project.copyOfSampleVault()
        let r = try runVault(["diary", "list", "--json"], in: vault.path)
        expectSuccess(r)
        let entries = try json(r)
        #expect(entries.map { $0["path"] as? String ?? "" } == Self.sampleDiaryNewestFirst)
        let dates = entries.map { day($0["date"]) ?? "?" }
        #expect(dates == Self.sampleDiaryNewestFirst.map { String(($0 as NSString).lastPathComponent.prefix(10)) })
        let handMade = try #require(entries.first { $0["path"] as? String == "diary/2026/2026-09-30 회고.md" })
        #expect(day(handMade["date"]) == "2026-09-30")
        #expect(handMade["title"] as? String == "3분기 회고")
        #expect(handMade["id"] == nil || handMade["id"] is NSNull)
        #expect(handMade["preview"] as? String == "회사 노트 앱에 쓰다가 여기로 옮겼다. 그냥 텍스트 파일로 둬도 되는 게 이 방식의 좋은 점.")
        let sf = try #require(
            entries.first { $0["path"] as? String == "diary/2026/2026-09-12-late-night-in-san-francisco.md" })
        #expect(sf["title"] as? String == "Late night in San Francisco")
        #expect(sf["tags"] as? [String] == ["travel", "sf", "conference"])
        #expect(sf["created"] as? String == "2026-09-12T23:40:00-07:00")
    }

    @Test func diaryListTextIsNewestFirstInTheVaultLocale() throws {
        let vault = try Project.copyOfSampleVault()
        let r = try runVault(["diary", "list"], in: vault.path, environment: ["COLUMNS": "200"])
        expectSuccess(r)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        try #require(lines.count == 10, "\(r.stdout)")
        #expect(lines[0].hasPrefix("2026년 11월 21일") && lines[0].contains("첫눈") && lines[0].contains("#겨울 #산책"))
        #expect(lines[5].hasPrefix("2026년 9월 30일") && lines[5].contains("3분기 회고"), "\(lines[5])")
        #expect(lines[9].hasPrefix("2026년 8월 15일") && lines[9].contains("광복절 자전거"))
        // `vault diary` alone is the list.
        let plain = try runVault(["diary"], in: vault.path, environment: ["COLUMNS": "200"])
        expectSuccess(plain)
        #expect(plain.stdout == r.stdout)
    }

    // MARK: vault show

    @Test func showARoom() throws {
        let vault = try Project.copyOfSampleVault()
        let before = try vault.snapshot()
        let r = try runVault(["show", "부산"], in: vault.path)
        expectSuccess(r)
        let out = r.stdout
        #expect(out.hasPrefix("# 부산 여행\nrooms/부산-여행.md · model: gpt-4o-mini\n"), "\(out.prefix(200))")
        #expect(out.contains("⚙️ system\nYou are a friendly travel planner. Answer in Korean.\n"))
        let room = parseRoom(try vault.readText("rooms/부산-여행.md"))
        let users = room.messages.filter { $0.header.role == "user" }.count
        let replies = room.messages.filter { $0.header.role == "assistant" }.count
        let shownLines = out.split(separator: "\n")
        #expect(shownLines.filter { $0.hasPrefix("🧑 user · ") }.count == users)
        #expect(shownLines.filter { $0.hasPrefix("🤖 assistant · ") }.count == replies)
        // A divider opens the day; headers show the time.
        #expect(out.contains("\n──── 2026년 10월 28일 수요일 ────\n\n🧑 user · 오후 9:12\n11월 6일 금요일부터"), "\(out)")
        #expect(out.contains("\n🤖 assistant · 오후 9:12 · gpt-4o-mini\n좋아요!"))
        // Every message body is printed, in order.
        let bodyStarts = room.messages.map { String($0.body.prefix(30)) }
        let found = positions(of: bodyStarts, in: out)
        #expect(found == found.sorted())
        expectUnchanged(before, try vault.snapshot())
    }

    @Test func showARoomWithAPendingPrompt() throws {
        let vault = try Project.copyOfSampleVault()
        let r = try runVault(["show", "김치찌개-레시피"], in: vault.path)
        expectSuccess(r)
        #expect(r.stdout.contains("✍️ not sent yet"))
        #expect(r.stdout.hasSuffix("참치 김치찌개로도 해 보고 싶어. 돼지고기 대신 참치캔(150g) 하나 넣으면\n순서나 끓이는 시간이 어떻게 달라져?\n"))
    }

    @Test func showADiaryEntryByDate() throws {
        let vault = try Project.copyOfSampleVault()
        let r = try runVault(["show", "2026-11-21"], in: vault.path)
        expectSuccess(r)
        #expect(
            r.stdout.hasPrefix("# 2026년 11월 21일 토요일\ndiary/2026/2026-11-21-첫눈.md · 첫눈 · #겨울 #산책\n\n아침에 첫눈이 왔다."),
            "\(r.stdout)")
        #expect(r.stdout.hasSuffix("오후엔 독서 모임 발제문을 써야 한다. 어제 방만 만들어 놓고 한 줄도 못 썼다.\n"))
        let handMade = try runVault(["show", "2026-09-30"], in: vault.path)
        expectSuccess(handMade)
        #expect(handMade.stdout.hasPrefix("# 2026년 9월 30일 수요일\ndiary/2026/2026-09-30 회고.md\n"), "\(handMade.stdout)")
        #expect(handMade.stdout.contains("3분기 회고"))
        #expect(handMade.stdout.hasSuffix("- 일정 추정에 테스트 시간 1.5배\n"))
    }

    @Test func showReRendersDatesInAnotherLocaleAndZone() throws {
        let vault = try Project.copyOfSampleVault()
        let before = try vault.snapshot()
        let r = try runVault(["show", "--locale", "de_DE", "--time-zone", "Europe/Berlin", "부산-여행"], in: vault.path)
        expectSuccess(r)
        let out = r.stdout
        #expect(out.contains("November"))
        // 21:12 in Seoul is 13:12 in Berlin (summer time until 25 October); 10:05 in Seoul on 1 November is 02:05.
        // Each day opens with a divider in German; headers show the time only.
        #expect(out.contains("\n──── Mittwoch, 28. Oktober 2026 ────\n\n🧑 user · 13:12\n"), "\(out)")
        #expect(out.contains("\n──── Sonntag, 1. November 2026 ────\n\n🧑 user · 02:05\n"))
        #expect(out.contains("\n──── Montag, 9. November 2026 ────\n"))
        #expect(out.contains("\n🤖 assistant · 13:30 · gpt-4o-mini\n"))
        let headerLines = out.split(separator: "\n").filter {
            $0.hasPrefix("🧑 user · ") || $0.hasPrefix("🤖 assistant · ")
        }
        #expect(!headerLines.isEmpty)
        for l in headerLines { #expect(!l.contains("년"), "Korean date left in: \(l)") }
        // Bodies are text, not dates: left as written.
        #expect(out.contains("11월 6일 금요일부터 8일 일요일까지"))
        // Diary headings too.
        let d = try runVault(["show", "--locale", "de_DE", "2026-11-21"], in: vault.path)
        expectSuccess(d)
        #expect(d.stdout.hasPrefix("# Samstag, 21. November 2026\n"), "\(d.stdout)")
        expectUnchanged(before, try vault.snapshot())
    }

    @Test(arguments: [
        "rooms/부산-여행.md", "rooms/김치찌개-레시피.md", "diary/2026/2026-10-22-10월-야근-주간.md", "diary/2026/2026-09-30 회고.md",
    ])
    func showRawPrintsTheExactBytes(_ path: String) throws {
        let vault = try Project.copyOfSampleVault()
        let r = try runVault(["show", "--raw", path], in: vault.path)
        expectSuccess(r)
        #expect(utf8(r.stdout) == (try vault.read(path)))
    }

    @Test func showRawPrintsCRLFAndBOMUnchanged() throws {
        let vault = try Project.copyOfSampleVault()
        let bytes: [UInt8] =
            [0xEF, 0xBB, 0xBF] + utf8("---\r\ntitle: raw\r\n---\r\n\r\n\(promptMarker)\r\ntrailing  \t\r\n")
        try vault.write("rooms/raw.md", bytes)
        let r = try runVault(["show", "--raw", "raw"], in: vault.path)
        expectSuccess(r)
        #expect(utf8(r.stdout) == bytes)
    }

    @Test(arguments: [
        (["show", "nothing-like-this"], ["no room or diary entry matches 'nothing-like-this'"]),
        (["show", "2026-01-01"], ["2026-01-01"]),
        (["show", "s"], ["more than one item"]),
        (["show", "--locale", "xx_YY", "부산-여행"], ["unknown locale 'xx_YY'"]),
        (["show", "--time-zone", "Mars/Base", "부산-여행"], ["unknown time zone 'Mars/Base'"]),
        (["rooms", "--locale", "xx_YY"], ["unknown locale 'xx_YY'"]),
    ])
    func showFailuresAreClear(args: [String], fragments: [String]) throws {
        let vault = try Project.copyOfSampleVault()
        let before = try vault.snapshot()
        let r = try runVault(args, in: vault.path)
        expectUserError(r, fragments)
        #expect(r.stdout.isEmpty)
        expectUnchanged(before, try vault.snapshot())
    }

    @Test func twoEntriesOnOneDayAreAmbiguousByDate() throws {
        let vault = try freshVault()
        try vault.write(
            "diary/2026/2026-03-01-a.md", "---\ntitle: A\ncreated: 2026-03-01T08:00:00+09:00\n---\n\n# x\n\na\n")
        try vault.write(
            "diary/2026/2026-03-01-b.md", "---\ntitle: B\ncreated: 2026-03-01T20:00:00+09:00\n---\n\n# x\n\nb\n")
        let r = try runVault(["show", "2026-03-01"], in: vault.path)
        expectUserError(r, ["diary/2026/2026-03-01-a.md", "diary/2026/2026-03-01-b.md"])
        let byName = try runVault(["show", "2026-03-01-b"], in: vault.path)
        expectSuccess(byName)
        #expect(byName.stdout.contains("diary/2026/2026-03-01-b.md · B"))
    }
}
