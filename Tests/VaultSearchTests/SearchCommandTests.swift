import Foundation
import Testing
import VaultTestSupport

/// `vault search` as a person runs it: output, exit statuses, and a vault left as it was.
@Suite struct SearchCommandTests {
    /// Every file's bytes under `dir` (`.git` included), to compare before and after.
    func snapshot(_ dir: TemporaryDirectory) -> [String: Data] {
        var out: [String: Data] = [:]
        let e = FileManager.default.enumerator(atPath: dir.path)
        while let rel = e?.nextObject() as? String {
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: dir.path + "/" + rel, isDirectory: &isDir), !isDir.boolValue {
                out[rel] = FileManager.default.contents(atPath: dir.path + "/" + rel)
            }
        }
        return out
    }

    @Test func hitsArePrintedGroupedWithQuickfixPrefixesAndTheVaultIsUnchanged() throws {
        let dir = try searchVault()
        _ = try git(["init", "-q"], in: dir.path)
        let before = snapshot(dir)
        let r = try runVault(["search", "해운대"], in: dir.path)
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "부산 여행 · rooms/부산-여행.md")
        #expect(lines.contains { $0.hasPrefix("rooms/부산-여행.md:9:1: 🧑 user · 2026년 10월 28일 수요일 오후 9:12 │ 해운대 근처") })
        #expect(lines.contains { $0.hasPrefix("diary/2026/2026-11-06-일기.md:10:1: 📔 2026년 11월 6일 금요일 │ 해운대 산책") })
        // Not on a terminal: no color codes.
        #expect(!r.stdout.contains("\u{1B}["))
        // A file that is not valid UTF-8 and may hold a hit is named on standard error.
        #expect(r.stderr.isEmpty, "\(r.stderr)")
        let broken = try runVault(["search", "부산"], in: dir.path)
        #expect(broken.status == 0)
        #expect(broken.stderr.contains("skipped diary/2026/2026-11-07-broken.md: not valid UTF-8"), "\(broken.stderr)")
        #expect(snapshot(dir) == before)
    }

    /// The listing of the vault's files is kept in the cache folder, never in the vault: a cache
    /// folder inside the vault is not written at all.
    @Test func theListingIsKeptInTheCacheAndNeverInTheVault() throws {
        let dir = try searchVault()
        let cache = TemporaryDirectory("search-command-cache")
        let before = snapshot(dir)
        for home in [cache.path, dir.path + "/cache"] {
            for _ in 0..<2 {
                let r = try runVault(["search", "해운대"], in: dir.path, environment: ["XDG_CACHE_HOME": home])
                #expect(r.status == 0, "\(r.stderr)")
                #expect(r.stdout.contains("rooms/부산-여행.md:9:1:"))
            }
        }
        let kept = try FileManager.default.contentsOfDirectory(atPath: cache.path + "/vault/search")
        #expect(kept.count == 1 && kept[0].hasSuffix(".sqlite.listing"), "\(kept)")
        #expect(snapshot(dir) == before)
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/cache"))
    }

    @Test func colorWhenAskedAndNeverWithNoColor() throws {
        let dir = try searchVault()
        let colored = try runVault(["search", "해운대", "--color", "always"], in: dir.path)
        #expect(colored.stdout.contains("\u{1B}[1;31m해운대\u{1B}[0m"))
        let plain = try runVault(["search", "해운대", "--color", "auto"], in: dir.path, environment: ["NO_COLOR": "1"])
        #expect(!plain.stdout.contains("\u{1B}["))
    }

    @Test func jsonLinesReadBackByAJSONParser() throws {
        let dir = try searchVault()
        let r = try runVault(["search", "해운대", "--role", "user", "--json"], in: dir.path)
        #expect(r.status == 0, "\(r.stderr)")
        let objects = try r.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(objects.count == 2)
        #expect(objects[0]["path"] as? String == "rooms/부산-여행.md")
        #expect(objects[0]["line"] as? Int == 9 && objects[0]["column"] as? Int == 1)
        #expect(objects[0]["role"] as? String == "user")
        #expect(objects[0]["message_id"] as? String == "m-QB7X91ZQF6VJ")
        #expect(objects[0]["timestamp"] as? String == "2026-10-28T21:12:07+09:00")
        #expect(objects[0]["kind"] as? String == "room" && objects[0]["title"] as? String == "부산 여행")
        #expect(objects[0]["text"] as? String == "해운대 근처 숙소 알려줘")
        #expect(objects[0]["front_matter"] as? Bool == false)
    }

    @Test func filesWithMatchesAndContext() throws {
        let dir = try searchVault()
        let l = try runVault(["search", "해운대", "-l"], in: dir.path)
        #expect(l.stdout == "rooms/부산-여행.md\ndiary/2026/2026-11-06-일기.md\n")
        let c = try runVault(["search", "산책", "-C", "1"], in: dir.path)
        #expect(c.stdout.contains("diary/2026/2026-11-06-일기.md-9-  부\n"), "\(c.stdout)")
        #expect(c.stdout.contains("diary/2026/2026-11-06-일기.md:10:11:"))
    }

    /// grep's 2 is for the pattern; a value an option does not take is a usage error, 64, as in
    /// every command (README, "Exit status").
    @Test func noHitIsStatusOneAndAnInvalidPatternStatusTwo() throws {
        let dir = try searchVault()
        let none = try runVault(["search", "없는말없는말"], in: dir.path)
        #expect(none.status == 1 && none.stdout.isEmpty)
        let before = snapshot(dir)
        let bad = try runVault(["search", "--regex", "해운대(는"], in: dir.path)
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("invalid regular expression at position 4"), "\(bad.stderr)")
        let day = try runVault(["search", "해운대", "--since", "someday"], in: dir.path)
        #expect(day.status == 64 && day.stderr.contains("--since 'someday' is not a day"))
        let role = try runVault(["search", "해운대", "--role", "robot"], in: dir.path)
        #expect(role.status == 64 && role.stderr.contains("unknown role 'robot'"))
        #expect(snapshot(dir) == before)
    }

    @Test func aRoomNamedBySlugOrTitle() throws {
        let dir = try searchVault()
        let r = try runVault(["search", "해운대", "--room", "부산"], in: dir.path)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!r.stdout.contains("diary/"))
        #expect(r.stdout.contains("rooms/부산-여행.md:13:1:"))
    }
}
