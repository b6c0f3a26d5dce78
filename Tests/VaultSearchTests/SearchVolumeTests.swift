import Foundation
import Testing
import VaultCore
import VaultTestSupport

@testable import VaultSearch

#if canImport(Glibc)
import Glibc
#endif

/// A room's volumes (`volumes/<room>/0001.md`: its older messages, FORMAT.md "Room volumes") are
/// searched as part of their room: their hits are room hits at the volume's own path and line,
/// in every scope that holds the room, and through the index as soon as a volume changes.
@Suite struct SearchVolumeTests {
    static let volume = "volumes/부산-여행/0001.md"

    /// The room's first volume, by hand: a word (`word`, line 9) that is in no other file.
    static func volumeText(_ word: String) -> String {
        """
        ---
        title: 부산 여행
        room: rooms/부산-여행.md
        volume: 1
        ---

        ## 🧑 user · 2026년 10월 20일 화요일 오전 9:31 <!-- 2026-10-20T09:31:07+09:00 m-01JPA3K8Z4QX -->

        \(word) 야경 보러 가자

        ## 🤖 assistant · 2026년 10월 20일 화요일 오전 9:31 <!-- 2026-10-20T09:31:09+09:00 m-01JPA3K8Z4QY model=m -->

        좋아요, 해변에서 보면 돼요.

        """
    }

    /// `searchVault()` with a volume of `rooms/부산-여행.md` holding `광안대교`.
    static func vaultWithAVolume() throws -> TemporaryDirectory {
        let dir = try searchVault()
        try dir.write(volume, volumeText("광안대교"))
        return dir
    }

    /// Hits as `--json` gives them, one object a line.
    func jsonHits(_ r: RunResult) throws -> [[String: Any]] {
        try r.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    @Test func aWordOnlyInAVolumeIsFoundAtTheVolumesPathAndLineAsARoomHit() throws {
        let dir = try Self.vaultWithAVolume()
        let r = try runVault(["search", "광안대교", "--no-index"], in: dir.path)
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "부산 여행 · \(Self.volume)", "\(r.stdout)")
        #expect(
            lines.contains { $0.hasPrefix("\(Self.volume):9:1: 🧑 user · 2026년 10월 20일 화요일 오전 9:31 │ 광안대교 야경") },
            "\(r.stdout)")
        let json = try jsonHits(try runVault(["search", "광안대교", "--json", "--no-index"], in: dir.path))
        #expect(json.count == 1)
        #expect(json.first?["path"] as? String == Self.volume)
        #expect(json.first?["kind"] as? String == "room" && json.first?["title"] as? String == "부산 여행")
        #expect(json.first?["line"] as? Int == 9 && json.first?["column"] as? Int == 1)
        #expect(json.first?["role"] as? String == "user" && json.first?["message_id"] as? String == "m-01JPA3K8Z4QX")
        // With the room's own hits, rooms first, then volumes, then the diary.
        let l = try runVault(["search", "해변|해운대", "--regex", "-l", "--no-index"], in: dir.path)
        #expect(l.stdout == "rooms/부산-여행.md\n\(Self.volume)\ndiary/2026/2026-11-06-일기.md\n", "\(l.stdout)")
    }

    @Test func theRoomsScopesHoldVolumesAndTheDiaryScopeDoesNot() throws {
        let dir = try Self.vaultWithAVolume()
        let cache = TemporaryDirectory("search-volume-scopes")
        for (arguments, found) in [
            (["--rooms"], true), (["--diary"], false), (["--room", "부산"], true), (["--room", "crlf"], false),
            // A volume has no tags of its own: its room's are its.
            (["--tag", "여행"], true), (["--tag", "맥"], false),
        ] {
            for index in ["--no-index", "--index"] {
                let r = try runVault(
                    ["search", "광안대교", "-l", index, "--no-watch"] + arguments, in: dir.path,
                    environment: ["XDG_CACHE_HOME": cache.path])
                #expect(r.status == (found ? 0 : 1), "\(arguments) \(index): \(r.stderr)")
                #expect(r.stdout == (found ? "\(Self.volume)\n" : ""), "\(arguments) \(index)")
            }
        }
        // The library's listing of the rooms scope: rooms, then volumes.
        var query = SearchQuery(pattern: "광안대교")
        query.scope = .rooms
        let files = VaultSearch(vault: try Vault(root: dir.path)).files(for: query)
        #expect(files == ["rooms/crlf.md", "rooms/부산-여행.md", Self.volume])
    }

    /// A volume edited (a word removed, another added), then deleted, is searched as it is now:
    /// by a scan, and through the index with its watcher (an edit in place that keeps the size
    /// and the modification time, after the index recorded the volume as settled: only a fresh
    /// stamp of the volume sees it, the watcher does not watch `volumes/`).
    @Test func aVolumeChangedOrRemovedIsSearchedAsItIsNow() throws {
        let dir = try Self.vaultWithAVolume()
        let cache = TemporaryDirectory("search-volume-cache")
        let environment = ["XDG_CACHE_HOME": cache.path, "VAULT_WATCH_IDLE": "60", "VAULT_TRACE": "1"]
        defer { stopWatchers(of: cache) }
        func search(_ word: String, _ engine: String) throws -> RunResult {
            try runVault(["search", word, "-l", engine], in: dir.path, environment: environment)
        }
        func expectFound(_ word: String, _ found: Bool, _ label: String) throws {
            for engine in ["--index", "--no-index"] {
                let r = try search(word, engine)
                #expect(r.status == (found ? 0 : 1), "\(label), \(engine): \(word)\n\(r.stderr)")
                #expect(r.stdout == (found ? "\(Self.volume)\n" : ""), "\(label), \(engine): \(word)")
            }
        }
        try expectFound("광안대교", true, "written")
        // Every file settled (changed more than the index's racy margin, 2 s, ago), then
        // searched: the index records the volume settled.
        try waitUntilSettled([dir.path], window: 2)
        let settling = try search("광안대교", "--index")
        #expect(settling.stderr.contains("search: watcher answered (0 changed)"), "\(settling.stderr)")
        // Now nothing is unsettled: only the volume is stamped (the watcher names no file).
        let settled = try search("광안대교", "--index")
        #expect(settled.stderr.contains("search: 1 files stamped"), "\(settled.stderr)")

        // An edit in place: same size, same modification time.
        try overwriteInPlace(dir, Self.volume, replacing: "광안대교", with: "태종대역")
        try expectFound("태종대역", true, "edited in place")
        try expectFound("광안대교", false, "edited in place")

        // Rewritten: another size, another word.
        try dir.write(Self.volume, Self.volumeText("감천문화마을"))
        try expectFound("감천문화마을", true, "rewritten")
        try expectFound("태종대역", false, "rewritten")

        // A second volume, then the room's volumes removed (as `vault rm` takes them with the room).
        try dir.write("volumes/부산-여행/0002.md", Self.volumeText("자갈치시장"))
        let second = try search("자갈치시장", "--index")
        #expect(second.stdout == "volumes/부산-여행/0002.md\n", "\(second.stderr)")
        try FileManager.default.removeItem(atPath: dir.path + "/volumes/부산-여행")
        try expectFound("감천문화마을", false, "removed")
        try expectFound("자갈치시장", false, "removed")
        // The room's own text is still found.
        #expect(try search("해운대 근처", "--index").stdout == "rooms/부산-여행.md\n")
    }

    /// The index's listing (`FileList.everything`): volumes after the rooms, found by their top
    /// folder; a vault without `volumes/` lists none and still takes its saved listing.
    @Test func theListingHoldsVolumesAfterTheRooms() throws {
        let dir = try searchVault()
        let cacheDir = TemporaryDirectory("search-volume-listing")
        let cache = cacheDir.path + "/listing"
        let none = FileList.everything(root: dir.path, cache: cache, racyMargin: 0)
        #expect(none.positions(under: VaultPath.volumes).isEmpty)
        try waitForTheFileSystemClock(pastEverythingIn: [dir.path, cacheDir.path], probeIn: cacheDir.path)
        #expect(FileList.everything(root: dir.path, cache: cache, racyMargin: 0).fromCache)
        // A volume folder made: the saved listing no longer holds.
        try dir.write(Self.volume, Self.volumeText("광안대교"))
        try dir.write("volumes/2026/busan/0001.md", Self.volumeText("x"))
        let list = FileList.everything(root: dir.path, cache: cache, racyMargin: 0)
        #expect(!list.fromCache)
        let volumes = list.positions(under: VaultPath.volumes)
        #expect(volumes.map(list.path) == ["volumes/2026/busan/0001.md", Self.volume])
        #expect(list.paths.prefix(volumes.lowerBound).allSatisfy { $0.hasPrefix("rooms/") })
        #expect(list.paths.suffix(from: volumes.upperBound).allSatisfy { $0.hasPrefix("diary/") })
        #expect(volumes.allSatisfy { FileList.kind(of: list.path($0)) == .room })
        #expect(list.position(of: Self.volume) == volumes.upperBound - 1)
    }

    /// Ends the watchers started for `cache` (their command lines name its index).
    func stopWatchers(of cache: TemporaryDirectory) {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for name in entries {
            guard let pid = Int32(name), let bytes = FileManager.default.contents(atPath: "/proc/\(name)/cmdline")
            else { continue }
            let arguments = bytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            if arguments.contains("search-watcher"), arguments.contains(where: { $0.hasPrefix(cache.path) }) {
                kill(pid, SIGTERM)
            }
        }
    }
}
