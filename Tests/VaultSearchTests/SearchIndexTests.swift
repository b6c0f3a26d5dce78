import Foundation
import Testing
import VaultCore
import VaultTestSupport

@testable import VaultSearch

#if canImport(Glibc)
import Glibc
#endif

/// The search index on real files in temporary vaults, with its cache in a temporary
/// `XDG_CACHE_HOME`. Serialized: the tests set that environment variable.
@Suite(.serialized) struct SearchIndexTests {
    // MARK: - Answers

    @Test func candidatesAreTheFilesWhoseTextContainsEveryNeedle() throws {
        try withCacheHome { _ in
            let vault = try SampleVault()
            let index = try SearchIndex(vaultRoot: vault.dir.path, cacheHome: ProcessSettings.ofThisTest.cacheHome)
            index.racyMargin = 0
            let refresh = try index.refresh(vault.files())
            #expect(refresh.read == vault.files().count)
            #expect(refresh.removed == 0)
            #expect(
                try index.candidates(containingAll: [key("부산 여행")]) == [
                    "diary/2024/2024-03-01-busan.md", "rooms/busan.md",
                ])
            #expect(try index.candidates(containingAll: [key("BUSAN TRIP")]) == ["rooms/busan.md"])
            #expect(try index.candidates(containingAll: [key("부산 여행"), key("일정을")]) == ["rooms/busan.md"])
            #expect(try index.candidates(containingAll: [key("\"days\": 3")]) == ["rooms/busan.md"])
            #expect(try index.candidates(containingAll: [key("STRASSE")]) == ["rooms/berlin.md"])
            #expect(try index.candidates(containingAll: [key("nowhere at all")]) == [])
            // A text written in NFD is found by the NFC needle, and the other way round.
            #expect(try index.candidates(containingAll: [key("제주도")]) == ["diary/2024/2024-03-02-jeju.md"])
            #expect(
                try index.candidates(containingAll: [key("café".decomposedStringWithCanonicalMapping)])
                    == ["rooms/berlin.md"])
            // Not refreshed, an index cannot narrow.
            #expect(try SearchIndex(vaultRoot: vault.dir.path, cacheHome: ProcessSettings.ofThisTest.cacheHome).candidates(containingAll: [key("부산 여행")]) == nil)
        }
    }

    @Test func anotherProcessWritingBetweenRefreshAndQueryIsSeen() throws {
        try withCacheHome { _ in
            let vault = try SampleVault()
            let index = try SearchIndex(vaultRoot: vault.dir.path, cacheHome: ProcessSettings.ofThisTest.cacheHome)
            _ = try index.refresh(vault.files())
            // Another `vault search` indexes an edit: this index's record is not the database's
            // any more, and it answers from the database's rows.
            try vault.dir.write("rooms/tokyo.md", "부산 여행도 좋다.\n")
            let other = try SearchIndex(vaultRoot: vault.dir.path, cacheHome: ProcessSettings.ofThisTest.cacheHome)
            _ = try other.refresh(vault.files())
            let expected = ["diary/2024/2024-03-01-busan.md", "rooms/busan.md", "rooms/tokyo.md"]
            #expect(try index.candidates(containingAll: [key("부산 여행")]) == expected)
            #expect(try index.candidates(containingAll: [key("東京タワー")]) == [])
            #expect(try other.candidates(containingAll: [key("부산 여행")]) == expected)
        }
    }

    @Test func shortNeedlesThatAreNotCJKCannotNarrow() throws {
        try withCacheHome { _ in
            let vault = try SampleVault()
            let index = try SearchIndex(vaultRoot: vault.dir.path, cacheHome: ProcessSettings.ofThisTest.cacheHome)
            _ = try index.refresh(vault.files())
            for needles in [[], [""], ["ab"], ["a"], ["😀😀"], ["ab", "ß"]] {
                #expect(try index.candidates(containingAll: needles) == nil, "\(needles)")
            }
            // Three scalars (not three bytes, not three graphemes) are enough; a short needle
            // beside a long one is left out, and the long one still narrows.
            #expect(
                try index.candidates(containingAll: [key("부산 ")]) == [
                    "diary/2024/2024-03-01-busan.md", "rooms/busan.md",
                ])
            #expect(try index.candidates(containingAll: ["ab", key("일정을")]) == ["rooms/busan.md"])
        }
    }

    /// Korean words are mostly one or two syllables: a CJK needle of one or two characters is
    /// looked up by its pair (both CJK) or its characters, NFD text included (#41).
    @Test func oneAndTwoCharacterCJKNeedlesNarrow() throws {
        try withCacheHome { _ in
            let vault = try SampleVault()
            let index = try SearchIndex(vaultRoot: vault.dir.path, cacheHome: ProcessSettings.ofThisTest.cacheHome)
            _ = try index.refresh(vault.files())
            let busan = ["diary/2024/2024-03-01-busan.md", "rooms/busan.md"]
            #expect(try index.candidates(containingAll: [key("부산")]) == busan)
            #expect(try index.candidates(containingAll: [key("부")]) == busan)
            #expect(try index.candidates(containingAll: [key("바다")]) == ["diary/2024/2024-03-01-busan.md"])
            #expect(try index.candidates(containingAll: [key("여행")]) == [
                "diary/2024/2024-03-01-busan.md", "diary/2024/2024-03-02-jeju.md", "rooms/busan.md",
            ])
            // Written in NFD, found by the NFC needle, and the other way round.
            #expect(try index.candidates(containingAll: [key("제주")]) == ["diary/2024/2024-03-02-jeju.md"])
            #expect(
                try index.candidates(containingAll: [key("주".decomposedStringWithCanonicalMapping)])
                    == ["diary/2024/2024-03-02-jeju.md"])
            #expect(try index.candidates(containingAll: [key("東京")]) == ["rooms/tokyo.md"])
            #expect(try index.candidates(containingAll: [key("京")]) == ["rooms/tokyo.md"])
            #expect(try index.candidates(containingAll: [key("タ")]) == ["rooms/tokyo.md"])
            #expect(try index.candidates(containingAll: [key("꿈")]) == [])
            #expect(try index.candidates(containingAll: [key("야경")]) == [])
            // Syllables apart are not a pair: `산부` is in no text, though both syllables are.
            #expect(try index.candidates(containingAll: [key("산부")]) == [])
            // One CJK character beside another one: looked up by the CJK one.
            #expect(try index.candidates(containingAll: [key("a부")]) == busan)
            #expect(try index.candidates(containingAll: ["ab", key("부")]) == busan)
        }
    }

    /// An index written by the previous schema (trigrams only, version 2) is deleted and built
    /// again, so short CJK needles find the files it had already indexed.
    @Test func anIndexOfTheTrigramOnlySchemaIsBuiltAgain() throws {
        try withCacheHome { _ in
            let vault = try SampleVault()
            let first = try SearchIndex(vaultRoot: vault.dir.path, cacheHome: ProcessSettings.ofThisTest.cacheHome)
            first.racyMargin = 0
            _ = try first.refresh(vault.files())
            do {
                let db = try SQLiteConnection(path: first.path, busyMilliseconds: 1_000)
                try db.execute("PRAGMA user_version = 2")
            }
            // Files just written are read again anyway (the racy rule): not counted on here.
            let second = try SearchIndex(vaultRoot: vault.dir.path, cacheHome: ProcessSettings.ofThisTest.cacheHome)
            second.racyMargin = 0
            #expect(try second.refresh(vault.files()).read == vault.files().count)
            #expect(try second.candidates(containingAll: [key("東京")]) == ["rooms/tokyo.md"])
        }
    }

    /// An index of version 3 (no `auto_vacuum`: the pages FTS5's merges free stayed in the file)
    /// is built again; a first build then leaves no free page, and FTS5's leaves fit a page.
    @Test func aBuiltIndexKeepsNoFreePagesAndNoOverflowingLeaves() throws {
        try withCacheHome { _ in
            let vault = try SampleVault()
            // Enough text for FTS5 to write leaves of its full size, in several segments merged.
            for k in 0..<300 {
                let words = (0..<400).map { "w\((k * 7919 + $0 * 104_729) % 1_000_003)" }.joined(separator: " ")
                try vault.dir.write("rooms/bulk-\(k).md", "부산 \(k) " + words + "\n")
            }
            let first = try SearchIndex(vaultRoot: vault.dir.path, cacheHome: ProcessSettings.ofThisTest.cacheHome)
            first.racyMargin = 0
            first.optimizeAfter = 100
            _ = try first.refresh(vault.files())
            do {
                let db = try SQLiteConnection(path: first.path, busyMilliseconds: 1_000)
                #expect(try db.integer("PRAGMA auto_vacuum") == 2)  // incremental
                #expect(try db.integer("PRAGMA freelist_count") == 0)
                #expect(try db.integer("SELECT count(*) FROM texts_data WHERE length(block) > 3000") ?? 0 > 10)
                // A leaf row fits the 4,053 bytes a 4,096-byte page with 8 reserved holds.
                #expect(try db.integer("SELECT max(length(block)) FROM texts_data") ?? 0 <= 4_050)
                try db.execute("PRAGMA user_version = 3")
            }
            let second = try SearchIndex(vaultRoot: vault.dir.path, cacheHome: ProcessSettings.ofThisTest.cacheHome)
            second.racyMargin = 0
            #expect(try second.refresh(vault.files()).read == vault.files().count)
            #expect(try second.candidates(containingAll: [key("w7919")])?.contains("rooms/bulk-1.md") == true)
        }
    }

    @Test func filesThatAreNotUTF8AreListedAndNeverCandidates() throws {
        try withCacheHome { _ in
            let vault = try SampleVault()
            try vault.dir.write("rooms/latin1.md", Array("부산 여행 ".utf8) + [0xC0, 0xFF, 0x20] + Array("café".utf8))
            let index = try SearchIndex(vaultRoot: vault.dir.path, cacheHome: ProcessSettings.ofThisTest.cacheHome)
            let refresh = try index.refresh(vault.files())
            #expect(refresh.invalidUTF8 == ["rooms/latin1.md"])
            #expect(index.invalidUTF8Files == ["rooms/latin1.md"])
            #expect(try index.candidates(containingAll: [key("부산 여행")])?.contains("rooms/latin1.md") == false)
            // Also as recorded in the database, for an index that has not refreshed.
            #expect(try SearchIndex(vaultRoot: vault.dir.path, cacheHome: ProcessSettings.ofThisTest.cacheHome).invalidUTF8Files == ["rooms/latin1.md"])
            // Made valid, it is indexed and found.
            try vault.dir.write("rooms/latin1.md", "부산 여행 café")
            let again = try index.refresh(vault.files())
            #expect(again.invalidUTF8 == [])
            #expect(try index.candidates(containingAll: [key("부산 여행")])?.contains("rooms/latin1.md") == true)
        }
    }

    @Test func listedFilesTheIndexCannotReadAreAlwaysCandidates() throws {
        try withCacheHome { _ in
            let vault = try SampleVault()
            #expect(symlink(vault.dir.path + "/rooms/busan.md", vault.dir.path + "/rooms/link.md") == 0)
            let files = vault.files() + ["rooms/vanished.md"]
            let index = try SearchIndex(vaultRoot: vault.dir.path, cacheHome: ProcessSettings.ofThisTest.cacheHome)
            index.racyMargin = 0
            _ = try index.refresh(files)
            let found = try index.candidates(containingAll: [key("nowhere at all")])
            #expect(found == ["rooms/link.md", "rooms/vanished.md"])
            // Nothing changed: nothing is read or written again for them.
            #expect(try index.refresh(files).read == 0)
        }
    }

    @Test func aPathListedTwiceIsRecordedOnce() throws {
        try withCacheHome { _ in
            let vault = try SampleVault()
            let files = vault.files() + ["rooms/busan.md"]
            let index = try SearchIndex(vaultRoot: vault.dir.path, cacheHome: ProcessSettings.ofThisTest.cacheHome)
            index.racyMargin = 0
            #expect(try index.refresh(files).read == files.count)
            #expect(try index.refresh(files).read == 0)
            #expect(
                Set(try index.candidates(containingAll: [key("부산 여행")]) ?? []) == [
                    "diary/2024/2024-03-01-busan.md", "rooms/busan.md",
                ])
            // Then listed once (the side file's listing differs, and was ambiguous).
            #expect(try index.refresh(vault.files()).read == 0)
            #expect(
                try index.candidates(containingAll: [key("부산 여행")]) == [
                    "diary/2024/2024-03-01-busan.md", "rooms/busan.md",
                ])
        }
    }

    // MARK: - Staleness

    @Test func changesSinceTheLastRefreshAreFound() throws {
        try withCacheHome { _ in
            let vault = try SampleVault()
            let index = try SearchIndex(vaultRoot: vault.dir.path, cacheHome: ProcessSettings.ofThisTest.cacheHome)
            index.racyMargin = 0
            _ = try index.refresh(vault.files())
            #expect(try index.refresh(vault.files()) == .init(read: 0, indexed: 0, removed: 0, invalidUTF8: []))
            let path = vault.dir.path
            // A new tick of the file system's clock, so every change below gets a new time.
            try waitForTheFileSystemClock(past: vault.files().map { path + "/" + $0 }, probeIn: path)
            // Edited by hand, keeping its size, its modification time set back as it was.
            var before = stat()
            #expect(stat(path + "/rooms/berlin.md", &before) == 0)
            let old = try vault.dir.readText("rooms/berlin.md")
            let edited = old.replacingOccurrences(of: "Straße", with: "Gassen!")
            #expect(edited.utf8.count == old.utf8.count)
            try vault.dir.write("rooms/berlin.md", edited)
            var times = [before.st_atim, before.st_mtim]
            #expect(utimensat(AT_FDCWD, path + "/rooms/berlin.md", &times, 0) == 0)
            // Deleted, added, renamed, touched.
            #expect(unlink(path + "/diary/2024/2024-03-02-jeju.md") == 0)
            try vault.dir.write("diary/2024/2024-03-03-seoul.md", "# 서울\n\n부산 여행 다음은 서울.\n")
            #expect(rename(path + "/rooms/tokyo.md", path + "/rooms/tokyo-trip.md") == 0)
            #expect(utimensat(AT_FDCWD, path + "/rooms/busan.md", nil, 0) == 0)

            let refresh = try index.refresh(vault.files())
            #expect(refresh.read == 4)  // edited, added, renamed (its new name), touched
            #expect(refresh.indexed == 2)  // edited, added: the renamed and touched texts are reused
            #expect(refresh.removed == 2)  // deleted, renamed (its old name)
            try expectExact(index, vault)
            #expect(try index.candidates(containingAll: [key("straße")]) == [])
            #expect(try index.candidates(containingAll: [key("gassen!")]) == ["rooms/berlin.md"])
            #expect(try index.candidates(containingAll: [key("東京タワー")]) == ["rooms/tokyo-trip.md"])
            #expect(try index.refresh(vault.files()).read == 0)
        }
    }

    @Test func filesWrittenJustBeforeTheyWereReadAreReadAgain() throws {
        try withCacheHome { _ in
            let vault = try SampleVault()
            let index = try SearchIndex(vaultRoot: vault.dir.path, cacheHome: ProcessSettings.ofThisTest.cacheHome)
            _ = try index.refresh(vault.files())
            // Within the default margin, the stamps are not trusted: the files are read (hashed)
            // again, and their texts reused.
            let again = try index.refresh(vault.files())
            #expect(again.read == vault.files().count)
            #expect(again.indexed == 0)
            // An edit in the same tick of the clock, keeping size and times, is then found.
            let old = try vault.dir.readText("rooms/berlin.md")
            var before = stat()
            #expect(stat(vault.dir.path + "/rooms/berlin.md", &before) == 0)
            try vault.dir.write("rooms/berlin.md", old.replacingOccurrences(of: "Straße", with: "Gassen!"))
            var times = [before.st_atim, before.st_mtim]
            #expect(utimensat(AT_FDCWD, vault.dir.path + "/rooms/berlin.md", &times, 0) == 0)
            _ = try index.refresh(vault.files())
            try expectExact(index, vault)
        }
    }

    // MARK: - Damage

    @Test func aDeletedIndexIsBuiltAgain() throws {
        try withCacheHome { _ in
            let vault = try SampleVault()
            let first = try SearchIndex(vaultRoot: vault.dir.path, cacheHome: ProcessSettings.ofThisTest.cacheHome)
            _ = try first.refresh(vault.files())
            let answers = try vault.answers(first)
            SearchIndex.removeDatabase(at: first.path)
            #expect(!FileManager.default.fileExists(atPath: first.path))
            let second = try SearchIndex(vaultRoot: vault.dir.path, cacheHome: ProcessSettings.ofThisTest.cacheHome)
            #expect(try second.refresh(vault.files()).read == vault.files().count)
            #expect(try vault.answers(second) == answers)
            // Deleted while open: the next refresh finds no tables, and builds it again.
            SearchIndex.removeDatabase(at: second.path)
            _ = try second.refresh(vault.files())
            #expect(try vault.answers(second) == answers)
            #expect(FileManager.default.fileExists(atPath: second.path))
        }
    }

    enum Damage: String, CaseIterable, CustomTestStringConvertible {
        case truncatedToHalf, garbageBytes, garbageInTheMiddle, oneByteInEachPageFlipped, empty, otherSchemaVersion,
            otherDatabase, noChecksums

        var testDescription: String { rawValue }

        func apply(to path: String) throws {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            var random = SeededRandom(seed: 7)
            switch self {
            case .truncatedToHalf:
                #expect(truncate(path, off_t(bytes.count / 2)) == 0)
            case .garbageBytes:
                try Data((0..<bytes.count).map { _ in UInt8.random(in: 0...255, using: &random) })
                    .write(to: URL(fileURLWithPath: path))
            case .garbageInTheMiddle:
                var damaged = bytes
                for k in (bytes.count / 4)..<(bytes.count * 3 / 4) {
                    damaged[k] = UInt8.random(in: 0...255, using: &random)
                }
                try damaged.write(to: URL(fileURLWithPath: path))
            case .oneByteInEachPageFlipped:
                var damaged = bytes
                for page in stride(from: 4_096, to: bytes.count, by: 4_096) {
                    let at = page + Int.random(in: 0..<4_088, using: &random)
                    damaged[at] ^= 0x10
                }
                try damaged.write(to: URL(fileURLWithPath: path))
            case .empty:
                #expect(truncate(path, 0) == 0)
            case .otherSchemaVersion:
                let db = try SQLiteConnection(path: path, busyMilliseconds: 1_000)
                try db.execute("PRAGMA user_version = 99")
            case .otherDatabase:
                SearchIndex.removeDatabase(at: path)
                let db = try SQLiteConnection(path: path, busyMilliseconds: 1_000)
                try db.execute("CREATE TABLE notes(body TEXT); INSERT INTO notes VALUES ('부산 여행')")
            case .noChecksums:
                // The index's tables, in a file without the pages' reserved bytes for checksums.
                SearchIndex.removeDatabase(at: path)
                let db = try SQLiteConnection(path: path, busyMilliseconds: 1_000)
                try db.execute(SearchIndex.schema)
            }
        }
    }

    @Test(arguments: Damage.allCases)
    func aDamagedIndexIsBuiltAgainWithTheSameAnswers(damage: Damage) throws {
        try withCacheHome { _ in
            let vault = try SampleVault(extraFiles: 300)
            let answers: [[String]?]
            let path: String
            do {
                let first = try SearchIndex(vaultRoot: vault.dir.path, cacheHome: ProcessSettings.ofThisTest.cacheHome)
                first.racyMargin = 0
                _ = try first.refresh(vault.files())
                answers = try vault.answers(first)
                path = first.path
            }
            // Closed (its log checkpointed into the file), then damaged; the side file of stamps
            // is left as it was, so a refresh may find nothing to read and the damage be found
            // only by a query: that query cannot narrow (nil), and the next refresh builds the
            // index again.
            #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
            try damage.apply(to: path)
            let second = try SearchIndex(vaultRoot: vault.dir.path, cacheHome: ProcessSettings.ofThisTest.cacheHome)
            second.racyMargin = 0
            _ = try second.refresh(vault.files())
            for (found, expected) in zip(try vault.answers(second), answers) {
                #expect(found == nil || found == expected)
            }
            _ = try second.refresh(vault.files())
            #expect(try vault.answers(second) == answers)
            try expectExact(second, vault)
            // The damaged file was replaced: a third index reads nothing.
            let third = try SearchIndex(vaultRoot: vault.dir.path, cacheHome: ProcessSettings.ofThisTest.cacheHome)
            #expect(try third.refresh(vault.files()).read == 0)
            #expect(try vault.answers(third) == answers)
        }
    }

    @Test func everyPageOfTheIndexCarriesItsChecksum() throws {
        try withCacheHome { _ in
            let vault = try SampleVault(extraFiles: 300)
            let path: String
            do {
                let index = try SearchIndex(vaultRoot: vault.dir.path, cacheHome: ProcessSettings.ofThisTest.cacheHome)
                _ = try index.refresh(vault.files())
                path = index.path
            }
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            let pageSize = Int(bytes[16]) << 8 | Int(bytes[17])
            #expect(bytes[20] == 8)  // reserved bytes a page
            #expect(pageSize == 4_096)
            #expect(bytes.count > 20 * pageSize)
            var pagesWithTheirChecksum = 0
            bytes.withUnsafeBytes { raw in
                guard let base = raw.baseAddress else { return }
                for start in stride(from: 0, to: raw.count, by: pageSize) {
                    let stored = UInt64(
                        littleEndian: (base + start).loadUnaligned(fromByteOffset: pageSize - 8, as: UInt64.self))
                    if ChecksumVFS.checksum(base + start, count: pageSize) == stored { pagesWithTheirChecksum += 1 }
                }
            }
            #expect(pagesWithTheirChecksum == bytes.count / pageSize)
        }
    }

    @Test func aTornOrForeignSideFileIsIgnored() throws {
        try withCacheHome { _ in
            let vault = try SampleVault()
            let index = try SearchIndex(vaultRoot: vault.dir.path, cacheHome: ProcessSettings.ofThisTest.cacheHome)
            index.racyMargin = 0
            _ = try index.refresh(vault.files())
            let stamps = index.stampPath
            let whole = try Data(contentsOf: URL(fileURLWithPath: stamps))
            #expect(StampFile.read(stamps) != nil)
            for torn in [whole.prefix(whole.count / 2), whole.prefix(10), Data(), Data(whole.reversed())] {
                try torn.write(to: URL(fileURLWithPath: stamps))
                #expect(StampFile.read(stamps) == nil)
                #expect(try index.refresh(vault.files()).read == 0)
                #expect(StampFile.read(stamps) != nil)  // written again from the database's rows
            }
            // One flipped byte in the body fails the checksum.
            var flipped = whole
            flipped[flipped.count - 3] ^= 0x40
            try flipped.write(to: URL(fileURLWithPath: stamps))
            #expect(StampFile.read(stamps) == nil)
        }
    }

    // MARK: - Where it lives

    @Test func theIndexLivesUnderXDGCacheHomeAndNothingIsWrittenInTheVault() throws {
        try withCacheHome { cache in
            let vault = try SampleVault()
            let before = try vault.listing()
            let index = try SearchIndex(vaultRoot: vault.dir.path + "/rooms/..", cacheHome: ProcessSettings.ofThisTest.cacheHome)
            _ = try index.refresh(vault.files())
            _ = try index.candidates(containingAll: [key("부산 여행")])
            let real = try #require(SearchIndex.realPath(vault.dir.path))
            let hex = FileVersion.sha1(Array(real.utf8)).map { String(format: "%02x", $0) }.joined()
            #expect(index.path == cache + "/vault/search/" + hex + ".sqlite")
            #expect(FileManager.default.fileExists(atPath: index.path))
            #expect(index.sizeInBytes > 0)
            #expect(try vault.listing() == before)
        }
    }

    @Test func withoutXDGCacheHomeTheIndexIsInDotCache() throws {
        try withCacheHome { _ in
            let home = TemporaryDirectory("search-home")
            let saved = getenv("HOME").map { String(cString: $0) }
            setenv("HOME", home.path, 1)
            defer { setenv("HOME", saved ?? "", 1) }
            for value in ["", "relative/cache"] {
                setenv("XDG_CACHE_HOME", value, 1)
                #expect(SearchIndex.defaultPath(forVaultAt: "/v", cacheHome: ProcessSettings.ofThisTest.cacheHome).hasPrefix(home.path + "/.cache/vault/search/"))
            }
        }
    }

    @Test func anIndexInsideTheVaultIsRefused() throws {
        try withCacheHome { _ in
            let vault = try SampleVault()
            let before = try vault.listing()
            #expect(throws: VaultError.self) {
                try SearchIndex(vaultRoot: vault.dir.path, cacheHome: ProcessSettings.ofThisTest.cacheHome, path: vault.dir.path + "/cache/i.sqlite")
            }
            setenv("XDG_CACHE_HOME", vault.dir.path + "/.cache", 1)
            #expect(throws: VaultError.self) { try SearchIndex(vaultRoot: vault.dir.path, cacheHome: ProcessSettings.ofThisTest.cacheHome) }
            #expect(try vault.listing() == before)
        }
    }

    // MARK: - Two at once

    @Test func twoRefreshesAtOnceAgree() throws {
        try withCacheHome { _ in
            let vault = try SampleVault(extraFiles: 1_500)
            let files = vault.files()
            let root = vault.dir.path
            let outcomes = Outcomes()
            DispatchQueue.concurrentPerform(iterations: 2) { k in
                do {
                    let index = try SearchIndex(vaultRoot: root, cacheHome: ProcessSettings.ofThisTest.cacheHome)
                    index.racyMargin = 0
                    let refresh = try index.refresh(files)
                    let found = try index.candidates(containingAll: [SearchText.key("부산 여행", folding: true)])
                    outcomes.record(k, .success((refresh.read, found)))
                } catch {
                    outcomes.record(k, .failure(error))
                }
            }
            let results = try outcomes.all.map { try $0.get() }
            #expect(results.count == 2)
            #expect(results.allSatisfy { $0.0 == files.count })
            #expect(results[0].1 == results[1].1)
            let third = try SearchIndex(vaultRoot: root, cacheHome: ProcessSettings.ofThisTest.cacheHome)
            third.racyMargin = 0
            #expect(try third.refresh(files).read == 0)
            #expect(try third.candidates(containingAll: [key("부산 여행")]) == results[0].1)
            try expectExact(third, vault)
        }
    }

    /// The results of threads, by thread.
    final class Outcomes: @unchecked Sendable {
        private let lock = NSLock()
        private var byThread: [Int: Result<(Int, [String]?), any Error>] = [:]

        func record(_ k: Int, _ outcome: Result<(Int, [String]?), any Error>) {
            lock.lock()
            byThread[k] = outcome
            lock.unlock()
        }

        var all: [Result<(Int, [String]?), any Error>] { byThread.sorted { $0.key < $1.key }.map(\.value) }
    }
}

// MARK: - Fixtures

/// `SearchText.key` with folding, as the index is queried.
func key(_ text: String) -> String { SearchText.key(text, folding: true) }

/// Runs `body` with `XDG_CACHE_HOME` set to a new temporary folder; afterwards set back to
/// what it was, or to "" (the same as unset) rather than removed: replacing a variable that is
/// there only swaps a pointer, safe for other threads of the test process that read the
/// environment meanwhile. One body at a time in the whole test process: suites that run at once
/// (`SearchIndexTests`, `FileListTests`) would otherwise set the variable under each other.
func withCacheHome(_ body: (String) throws -> Void) throws {
    cacheHomeLock.lock()
    defer { cacheHomeLock.unlock() }
    let cache = TemporaryDirectory("search-cache")
    let saved = getenv("XDG_CACHE_HOME").map { String(cString: $0) }
    setenv("XDG_CACHE_HOME", cache.path, 1)
    defer { setenv("XDG_CACHE_HOME", saved ?? "", 1) }
    try body(cache.path)
}

private let cacheHomeLock = NSRecursiveLock()

/// A small vault with rooms and diary entries in Korean, Japanese, German and English, one of
/// them written in NFD, one with CRLF line endings; `extraFiles` generated diary entries more.
struct SampleVault {
    let dir = TemporaryDirectory("search-vault")

    init(extraFiles: Int = 0) throws {
        try dir.write("vault.yml", "format: 1\n")
        try dir.write(
            "rooms/busan.md",
            "---\ntitle: 부산 여행\n---\n\n## 🧑 user\n\n부산 여행 일정을 짜 줘. BUSAN TRIP\n\n```json\n{\"days\": 3}\n```\n")
        try dir.write(
            "rooms/berlin.md", "---\ntitle: Berlin\n---\n\nDie Straße ist lang. Ein Café.\r\nZweite Zeile.\r\n")
        try dir.write("rooms/tokyo.md", "---\ntitle: 東京\n---\n\n東京タワーに行きたい。😀👍🏽\n")
        try dir.write("diary/2024/2024-03-01-busan.md", "# 부산\n\n부산 여행 첫날. 바다.\n")
        try dir.write("diary/2024/2024-03-02-jeju.md", "# 제주도\n\n제주도 여행.\n".decomposedStringWithCanonicalMapping)
        var random = SeededRandom(seed: 42)
        let words = ["부산", "여행", "바다", "일정", "서울", "커피", "東京", "café", "Straße", "notes", "😀"]
        for k in 0..<extraFiles {
            let body = (0..<40).map { _ in words.randomElement(using: &random) ?? "" }.joined(separator: " ")
            try dir.write("diary/2023/2023-01-\(k).md", "# \(k)\n\n\(body)\n")
        }
    }

    /// Every `rooms/*.md` and `diary/**/*.md`, as the scan lists them.
    func files() -> [String] {
        dir.files().filter { ($0.hasPrefix("rooms/") || $0.hasPrefix("diary/")) && $0.hasSuffix(".md") }
    }

    /// Every path below the vault (folders too) with its size and modification time.
    func listing() throws -> [String] {
        var out: [String] = []
        let e = FileManager.default.enumerator(atPath: dir.path)
        while let p = e?.nextObject() as? String {
            var st = stat()
            _ = lstat(dir.path + "/" + p, &st)
            out.append("\(p) \(st.st_size) \(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec)")
        }
        return out.sorted()
    }

    /// The index's answers for a few needles.
    func answers(_ index: SearchIndex) throws -> [[String]?] {
        try ["부산 여행", "straße", "東京タワー", "여행", "\"days\"", "😀👍🏽", "ab"].map {
            try index.candidates(containingAll: [key($0)])
        }
    }
}

/// The files on disk whose search text contains `needle`, by brute force: byte search of the
/// UTF-8 of `SearchText.key` (the same as a search by Unicode scalars, UTF-8 being
/// self-synchronizing).
func filesContaining(_ needle: String, in vault: SampleVault) -> [String] {
    vault.files().filter { file in
        guard let bytes = try? vault.dir.read(file), let text = String(validating: bytes, as: UTF8.self) else {
            return false
        }
        return contains(key(text), needle)
    }
}

/// Whether `text`'s UTF-8 contains `needle`'s.
func contains(_ text: String, _ needle: String) -> Bool {
    let t = Array(text.utf8)
    let n = Array(needle.utf8)
    guard let first = n.first else { return true }
    guard n.count <= t.count else { return false }
    var at = 0
    while at <= t.count - n.count {
        guard let k = t[at...(t.count - n.count)].firstIndex(of: first) else { return false }
        if t[k..<(k + n.count)].elementsEqual(n) { return true }
        at = k + 1
    }
    return false
}

/// Checks that the index's candidates for each of a few needles are exactly the files whose
/// text holds every trigram of it (`holdsTrigrams`), and include every file that contains it.
func expectExact(_ index: SearchIndex, _ vault: SampleVault, sourceLocation: SourceLocation = #_sourceLocation) throws {
    for needle in ["부산 여행", "straße", "gassen!", "東京タワー", "제주도", "café", "서울.", "😀👍🏽", "zweite zeile."] {
        let found = try index.candidates(containingAll: [key(needle)])
        let expected = filesHoldingTrigrams(of: key(needle), in: vault)
        #expect(found == expected.sorted(), "\(needle)", sourceLocation: sourceLocation)
        #expect(
            Set(filesContaining(key(needle), in: vault)).isSubset(of: found ?? []), "\(needle)",
            sourceLocation: sourceLocation)
    }
}

/// The files on disk whose search text holds every trigram of `needle`, by brute force.
func filesHoldingTrigrams(of needle: String, in vault: SampleVault) -> [String] {
    vault.files().filter { file in
        guard let bytes = try? vault.dir.read(file), let text = String(validating: bytes, as: UTF8.self) else {
            return false
        }
        return holdsTrigrams(key(text), of: needle)
    }
}
