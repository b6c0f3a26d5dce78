import Foundation
import Testing
import VaultTestSupport

@testable import VaultCore

/// `Vault.roomSummaries()` and `diarySummaries()`: the order, dates and previews the listings
/// show. How `vault rooms` and `vault diary list` print them: `VaultCLITests/ListingTests`.
@Suite struct VaultListingTests {
    let marker = RoomFile.promptMarkerLine

    func vault(_ files: [String: String], timeZone: String = "Asia/Tokyo") throws -> (TemporaryDirectory, Vault) {
        let dir = TemporaryDirectory("listing")
        try dir.write("vault.yml", "format: 1\nlocale: en_US\ntime_zone: \(timeZone)\n")
        for (path, text) in files { try dir.write(path, text) }
        return (dir, try Vault(root: dir.path))
    }

    func day(_ date: LocalDate?) -> String {
        date.map { String(format: "%04d-%02d-%02d", $0.year, $0.month, $0.day) } ?? "?"
    }

    @Test func roomsAreOrderedByInstantNotByLocalText() throws {
        func room(_ title: String, created: String, header: String?) -> String {
            var s = "---\ntitle: \(title)\ncreated: \(created)\n---\n\n"
            if let header {
                let id = "m-" + String(repeating: title.first!.uppercased(), count: 12)
                s += "## 🧑 user · x <!-- \(header) \(id) -->\n\nhello from \(title)\n\n"
            }
            return s + marker + "\n"
        }
        // Local dates say p > q, but q is one hour later in absolute time.
        let (dir, vault) = try vault([
            "rooms/p.md": room("P", created: "2026-10-01T00:00:00Z", header: "2026-11-01T09:00:00+09:00"),
            "rooms/q.md": room("Q", created: "2026-10-01T00:00:00Z", header: "2026-10-31T20:00:00-05:00"),
            "rooms/r.md": room("R", created: "2026-11-01T00:30:00Z", header: nil),
        ])
        let rooms = vault.roomSummaries()
        withExtendedLifetime(dir) {}
        #expect(rooms.map(\.path) == ["rooms/q.md", "rooms/r.md", "rooms/p.md"])
        #expect(
            rooms.map(\.lastActivity)
                == ["2026-10-31T20:00:00-05:00", "2026-11-01T00:30:00Z", "2026-11-01T09:00:00+09:00"])
        #expect(rooms.map(\.preview) == ["hello from Q", "", "hello from P"])
        #expect(rooms.allSatisfy { $0.problem == nil })
    }

    @Test func roomsShowAPendingPrompt() throws {
        let header = "## 🤖 assistant · x <!-- 2026-11-01T09:00:00+09:00 m-AAAAAAAAAAAA -->"
        let (dir, vault) = try vault([
            // No message yet, and text typed below the marker.
            "rooms/fresh.md": "---\ntitle: fresh\n---\n\n\(marker)\n발제문 첫 문단:\n이 책은 기억에 관한 이야기다.\n",
            // Messages and text typed below the marker.
            "rooms/typed.md": "---\ntitle: typed\n---\n\n\(header)\n\nanswer\n\n\(marker)\n참치 김치찌개로도\n",
            // Messages, nothing typed.
            "rooms/plain.md": "---\ntitle: plain\n---\n\n\(header)\n\nanswer\n\n\(marker)\n",
        ])
        let byPath = Dictionary(uniqueKeysWithValues: vault.roomSummaries().map { ($0.path, $0) })
        withExtendedLifetime(dir) {}
        #expect(byPath["rooms/fresh.md"]?.hasPendingPrompt == true)
        #expect(byPath["rooms/fresh.md"]?.preview == "발제문 첫 문단:")
        #expect(byPath["rooms/typed.md"]?.hasPendingPrompt == true)
        #expect(byPath["rooms/typed.md"]?.preview == "참치 김치찌개로도")
        #expect(byPath["rooms/plain.md"]?.hasPendingPrompt == false)
        #expect(byPath["rooms/plain.md"]?.preview == "answer")
    }

    @Test func diaryEntriesBelongToTheDayInTheirOwnOffset() throws {
        let (dir, vault) = try vault(
            [
                // Written late in Los Angeles: 2026-01-02 07:30 UTC, but the first of January where it was written.
                "diary/late.md":
                    "---\ntitle: Late\ncreated: 2026-01-01T23:30:00-08:00\n---\n\n"
                    + "# Thursday, January 1, 2026\n\nlate night\n",
                // Written early in Seoul: 2026-01-01 21:00 UTC (earlier!), but the second of January there.
                "diary/2026/2026-01-02-morning.md":
                    "---\ntitle: Morning\ncreated: 2026-01-02T06:00:00+09:00\n---\n\n# 2026年1月2日 金曜日\n\nearly\n",
                // By hand, no front-matter, nested anywhere: the date from the file name.
                "diary/old/stuff/2025-12-31 handmade.md": "New Year's Eve\n\nfireworks\n",
            ], timeZone: "Europe/Berlin")
        let entries = vault.diarySummaries()
        withExtendedLifetime(dir) {}
        #expect(
            entries.map(\.path)
                == ["diary/2026/2026-01-02-morning.md", "diary/late.md", "diary/old/stuff/2025-12-31 handmade.md"])
        #expect(entries.map { day($0.date) } == ["2026-01-02", "2026-01-01", "2025-12-31"])
        #expect(entries.map(\.title) == ["Morning", "Late", "New Year's Eve"])
        #expect(entries.map(\.preview) == ["early", "late night", "fireworks"])
    }
}
