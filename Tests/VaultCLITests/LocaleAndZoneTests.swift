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
}
