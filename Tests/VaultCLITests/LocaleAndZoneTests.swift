import Foundation
import Testing
import VaultCore
import VaultTestSupport

/// Language and zone (issue 27, item 12): the calendar's summary in the vault's locale and no
/// streak under a month to come; commits and diary times in the vault's zone when the machine
/// names none; search's times as message headers show them.
@Suite struct LocaleAndZoneTests {
    static let seoul = TimeZone(identifier: "Asia/Seoul")!

    @Test func theCalendarsSummaryIsInTheLocaleAndAMonthToComeHasNoStreak() throws {
        let vault = try freshVault(locale: "ko_KR", timeZone: "Asia/Seoul")
        let today = Timestamp(date: Date(), timeZone: Self.seoul).localDate
        for day in [today.adding(days: -1), today] {
            expectSuccess(try runVault(["write", "--date", "\(day)", "--body", "오늘"], in: vault.path))
        }
        let before = try vault.snapshot()
        let now = try runVault(["diary", "calendar"], in: vault.path)
        expectSuccess(now)
        // Yesterday may be last month: count this month's entries the way a person would.
        let thisMonth = [today.adding(days: -1), today].filter { $0.month == today.month }.count
        #expect(now.stdout.hasSuffix("\n\n일기 \(thisMonth)편, \(thisMonth)일 · 연속 2일\n"), "\(now.stdout)")
        let german = try runVault(["diary", "calendar", "--locale", "de_DE"], in: vault.path)
        let tage = thisMonth == 1 ? "1 Eintrag an 1 Tag" : "2 Einträge an 2 Tagen"
        #expect(german.stdout.hasSuffix("\n\n\(tage) · Serie: 2 Tage\n"), "\(german.stdout)")
        // Next month: its own counts, no streak (the issue saw "0 entries on 0 days · streak: 2 days").
        let next = today.month == 12 ? "\(today.year + 1)-01" : String(format: "%04d-%02d", today.year, today.month + 1)
        let future = try runVault(["diary", "calendar", next], in: vault.path)
        expectSuccess(future)
        #expect(future.stdout.hasSuffix("\n\n일기 0편, 0일\n"), "\(future.stdout)")
        let futureGerman = try runVault(["diary", "calendar", next, "--locale", "de_DE"], in: vault.path)
        #expect(futureGerman.stdout.hasSuffix("\n\n0 Einträge an 0 Tagen\n"), "\(futureGerman.stdout)")
        expectUnchanged(before, try vault.snapshot())
    }

    @Test func commitsCarryTheVaultsZoneWhateverTheMachines() throws {
        let vault = try freshVault(locale: "ko_KR", timeZone: "Asia/Seoul")
        expectSuccess(try runVault(["room", "new", "Plans"], in: vault.path, environment: ["TZ": "America/Los_Angeles"]))
        // git itself reads the offset vault wrote: Seoul's, not Los Angeles'.
        let offsets = try git(["log", "--format=%cI %aI"], in: vault.path).split(separator: "\n")
        #expect(offsets.count == 2)
        for line in offsets { #expect(line.hasSuffix("+09:00") && line.contains("+09:00 "), "\(line)") }
        let before = try vault.snapshot()
        let json = try runVault(["log", "--json"], in: vault.path, environment: ["TZ": "UTC"])
        let list = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        let times = list.compactMap { $0["time"] as? String }
        #expect(times.count == 2)
        // As written, ISO 8601 with the offset: what git says it is.
        #expect(times == offsets.map { String($0.split(separator: " ")[0]) }, "\(times)")
        expectUnchanged(before, try vault.snapshot())
    }

    /// `created` in the vault's zone when the machine names none (no TZ, the system's zone plain
    /// UTC, as on a server or in a container); in TZ when it is set.
    @Test func diaryTimesUseTheVaultsZoneWhenTheMachineNamesNone() throws {
        let vault = try freshVault(locale: "ko_KR", timeZone: "Asia/Seoul")
        let process = vaultProcess(["write", "--body", "zone"], in: vault.path)
        process.environment?["TZ"] = nil
        let written = try run(process)
        expectSuccess(written)
        let path = String(written.stdout.dropFirst("Wrote ".count).dropLast(2))
        let created = try #require(try vault.readText(path).split(separator: "\n").first { $0.hasPrefix("created: ") })
        // The machine's zone, read as the C library reads it: /etc/localtime.
        let link = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/etc/localtime")) ?? "Etc/UTC"
        let machine = link.components(separatedBy: "zoneinfo/").last ?? "Etc/UTC"
        let plainUTC = ["Etc/UTC", "UTC", "Etc/GMT", "GMT", "Etc/Universal", "Universal", "Etc/Zulu", "Zulu", "UCT", "Etc/UCT"]
        let zone = plainUTC.contains(machine) ? Self.seoul : try #require(TimeZone(identifier: machine))
        let offset = zone.secondsFromGMT(for: Date()) / 60
        let sign = offset < 0 ? "-" : "+"
        let suffix = String(format: "%@%02d:%02d", sign, abs(offset) / 60, abs(offset) % 60)
        #expect(created.hasSuffix(suffix), "\(created) (machine zone \(machine))")
        // TZ set: that zone, even UTC.
        let utc = try runVault(["write", "--body", "utc"], in: vault.path, environment: ["TZ": "UTC"])
        let utcPath = String(utc.stdout.dropFirst("Wrote ".count).dropLast(2))
        #expect(try vault.readText(utcPath).contains(#/\ncreated: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00\n/#))
    }

    @Test func searchPrintsTimesAsHeadersDo() throws {
        let vault = try freshVault(locale: "ko_KR", timeZone: "Asia/Seoul")
        try vault.write(
            "rooms/busan.md",
            "---\ntitle: 부산\ncreated: 2026-11-21T23:40:00+09:00\n---\n\n"
                + "## 🧑 user · 2026년 11월 21일 토요일 오후 11:45 <!-- 2026-11-21T23:45:10+09:00 m-01JPA3K8Z4QX -->\n\n"
                + "해운대 야경\n\n"
                + "## 🧑 user · 2026년 11월 22일 일요일 오전 9:05 <!-- 2026-11-22T09:05:00+09:00 m-01JPA3K8Z4QY -->\n\n"
                + "해운대 아침\n\n\(promptMarker)\n")
        let before = try vault.snapshot()
        let korean = try runVault(["search", "해운대"], in: vault.path)
        expectSuccess(korean)
        #expect(
            korean.stdout == """
                부산 · rooms/busan.md
                rooms/busan.md:8:1: 🧑 user · 2026년 11월 21일 토요일 오후 11:45 │ 해운대 야경
                rooms/busan.md:12:1: 🧑 user · 2026년 11월 22일 일요일 오전 9:05 │ 해운대 아침

                """, "\(korean.stdout)")
        let german = try runVault(["search", "해운대", "--locale", "de_DE"], in: vault.path)
        #expect(german.stdout.contains("rooms/busan.md:8:1: 🧑 user · Samstag, 21. November 2026 23:45 │"), "\(german.stdout)")
        // In another zone, the time there: 23:45 in Seoul is 14:45 UTC.
        let utc = try runVault(["search", "해운대", "--time-zone", "UTC"], in: vault.path)
        #expect(utc.stdout.contains(":8:1: 🧑 user · 2026년 11월 21일 토요일 오후 2:45 │"), "\(utc.stdout)")
        // JSON keeps the timestamp as written.
        let json = try runVault(["search", "야경", "--json"], in: vault.path)
        #expect(json.stdout.contains("\"timestamp\":\"2026-11-21T23:45:10+09:00\""), "\(json.stdout)")
        expectUnchanged(before, try vault.snapshot())
    }

    // MARK: Every word in the vault's language

    /// A ChatGPT export of two conversations without titles: one whose answer was regenerated (a
    /// branch), one with no line of the person's.
    static let untitledExport = """
        [{"title": "", "create_time": 1700000000, "id": "conv-jeju", "current_node": "a1b", "mapping": {
          "u1": {"id": "u1", "parent": null, "children": ["a1", "a1b"], "message": {"id": "u1", "author": {"role": "user"},
            "create_time": 1700000001, "content": {"content_type": "text", "parts": ["제주도 여행 계획 세워줘"]}, "metadata": {}}},
          "a1": {"id": "a1", "parent": "u1", "children": [], "message": {"id": "a1", "author": {"role": "assistant"},
            "create_time": 1700000002, "content": {"content_type": "text", "parts": ["한라산부터 가요."]}, "metadata": {}}},
          "a1b": {"id": "a1b", "parent": "u1", "children": [], "message": {"id": "a1b", "author": {"role": "assistant"},
            "create_time": 1700000003, "content": {"content_type": "text", "parts": ["우도부터 가요."]}, "metadata": {}}}}},
         {"title": null, "create_time": 1700001000, "id": "conv-quiet", "current_node": "b1", "mapping": {
          "b1": {"id": "b1", "parent": null, "children": [], "message": {"id": "b1", "author": {"role": "assistant"},
            "create_time": 1700001001, "content": {"content_type": "text", "parts": ["안녕하세요"]}, "metadata": {}}}}}]
        """

    /// In a ko_KR vault no English word of vault's is written or shown: an interrupted and a
    /// truncated reply (the loopback server cuts one off and ends the other at its length limit)
    /// in `show` and in the room file's headers, an untitled import and its branch, the HTML
    /// exports of the diary and of a room. The machine part (`status=interrupted`,
    /// `truncated=length`) stays as FORMAT.md has it, and is still what `rooms` reads.
    @Test func aKoreanVaultWritesAndShowsNoEnglishWord() throws {
        let server = try FakeOpenAIServer(expectedKey: nil)
        defer { server.stop() }
        let vault = try freshVault(locale: "ko_KR", timeZone: "Asia/Seoul")
        try vault.write(
            "vault.yml",
            try vault.readText("vault.yml") + "provider: local\nproviders:\n  local:\n    base_url: \(server.baseURL)\n")
        _ = try git(["commit", "-qam", "the loopback server"], in: vault.path)
        expectSuccess(try runVault(["room", "new", "제주"], in: vault.path))
        let cut = try runVault(["chat", "제주", "계획 알려줘", "--model", "drop"], in: vault.path)
        #expect(cut.status != 0, "the server cuts the reply off: \(cut.stderr)")
        // Read back by its machine part (`status=interrupted`) behind the Korean word.
        let listed = try runVault(["rooms", "--format", "%(slug) %(preview)"], in: vault.path)
        #expect(listed.stdout.hasPrefix("제주 [중단됨] "), "\(listed.stdout)")
        expectSuccess(try runVault(["chat", "제주", "짧게", "--model", "length"], in: vault.path))
        let room = try vault.readText("rooms/제주.md")
        let headers = room.split(separator: "\n").filter { parseHeader($0) != nil }
        #expect(headers.count == 4, "\(room)")
        #expect(headers.contains { $0.contains("· 중단됨 <!-- ") && $0.contains(" status=interrupted") }, "\(headers)")
        #expect(headers.contains { $0.contains("· 잘림 <!-- ") && $0.contains(" truncated=length") }, "\(headers)")
        // The built-in provider is named in the vault's language too.
        expectSuccess(try runVault(["room", "new", "메모"], in: vault.path))
        expectSuccess(try runVault(["chat", "메모", "안녕", "--provider", "offline"], in: vault.path))
        let offline = try vault.readText("rooms/메모.md")
        #expect(offline.contains(" · 오프라인, 모델 없음 <!-- ") && offline.contains(" provider=offline"), "\(offline)")

        let export = TemporaryDirectory("vault-chatgpt")
        try export.write("conversations.json", Self.untitledExport)
        expectSuccess(try runVault(["import", "chatgpt", export.path + "/conversations.json"], in: vault.path))
        let titles = try runVault(["rooms", "--format", "%(title)"], in: vault.path)
        #expect(
            Set(titles.stdout.split(separator: "\n")) == ["제주", "메모", "제주도 여행 계획 세워줘", "제주도 여행 계획 세워줘 · 분기 2", "제목 없음"],
            "\(titles.stdout)")

        try vault.write(
            "diary/2026/2026-11-28-첫눈.md", "---\ntitle: 첫눈\ncreated: 2026-11-28T08:00:00+09:00\n---\n\n첫눈이 왔다.\n")
        try vault.write(
            "diary/2026/2026-12-02-산책.md", "---\ntitle: 산책\ncreated: 2026-12-02T19:00:00+09:00\n---\n\n걸었다.\n")
        let show = try runVault(["show", "제주"], in: vault.path)
        expectSuccess(show)
        #expect(show.stdout.contains("⚠️ 중단됨: 완성되지 않은 답변"), "\(show.stdout)")
        #expect(show.stdout.contains("⚠️ 서버가 답변을 끊었습니다 (length)"), "\(show.stdout)")
        let diaryHTML = try runVault(["export", "--diary", "--format", "html"], in: vault.path)
        expectSuccess(diaryHTML)
        #expect(diaryHTML.stdout.contains("<title>일기 · 2026-11-28 – 2026-12-02</title>"), "\(diaryHTML.stdout.prefix(400))")
        let roomHTML = try runVault(["export", "제주", "--format", "html"], in: vault.path)
        expectSuccess(roomHTML)
        #expect(roomHTML.stdout.contains("🧑 사용자 · ") && roomHTML.stdout.contains("🤖 어시스턴트 · "), "\(roomHTML.stdout)")

        var written = try vaultFiles(vault.path).filter { $0.key.hasPrefix("rooms/") }.map { ($0.key, String(decoding: $0.value, as: UTF8.self)) }
        written.append(("show", show.stdout))
        written.append(("diary HTML", diaryHTML.stdout))
        written.append(("room HTML", roomHTML.stdout))
        #expect(written.count == 8, "\(written.map(\.0))")
        let english = [
            "interrupted: incomplete reply", "cut off by the server", "· interrupted", "· truncated", "Untitled", "· branch",
            "Diary ·", "offline, no model",
        ]
        // The room files' `🧑 user` is their machine part (FORMAT.md: the role); an export has none.
        let roles = ["🧑 user", "🤖 assistant", "⚙️ system"]
        for (name, text) in written {
            for word in english + (name.hasSuffix("HTML") ? roles : []) {
                #expect(!text.contains(word), "\(name) holds \"\(word)\": \(text)")
            }
        }
    }
}
