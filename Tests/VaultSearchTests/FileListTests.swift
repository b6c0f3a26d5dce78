import Foundation
import Testing
import VaultCore
import VaultTestSupport

@testable import VaultSearch
import CVaultScan

#if canImport(Glibc)
import Glibc
#endif

/// The listing in C (`CVaultScan`): the files a search reads, opened and stamped relative to
/// their folders; and the index's answers through it after changes the stamps must catch.
@Suite(.serialized) struct FileListTests {
    @Test func listsRoomsAndDiaryEntriesByTheirBytes() throws {
        let dir = TemporaryDirectory("search-list")
        let nfd = "diary/2024/2024-03-02-제주.md".decomposedStringWithCanonicalMapping
        for path in [
            "rooms/b.md", "rooms/a.md", "rooms/Z.md", "rooms/한국.md", "rooms/.hidden.md", "rooms/notes.txt",
            "rooms/.md", "rooms/sub/deep.md", "rooms/.trash/gone.md", "diary/2024/2024-03-01-a.md", nfd,
            "diary/2023/x/y/2023-01-01.md",
            "diary/.git/z.md", "diary/top.md", "other/c.md",
        ] {
            try dir.write(path, "text\n")
        }
        #expect(symlink(dir.path + "/rooms/a.md", dir.path + "/rooms/link.md") == 0)
        #expect(mkdir(dir.path + "/rooms/folder.md", 0o755) == 0)
        let list = FileList.everything(root: dir.path)
        let expected = [
            // Rooms at any depth (format 2 files them in `rooms/<yyyy>/`), none in a hidden folder.
            ["rooms/Z.md", "rooms/a.md", "rooms/b.md", "rooms/sub/deep.md", "rooms/한국.md"],
            ["diary/2023/x/y/2023-01-01.md", "diary/2024/2024-03-01-a.md", nfd, "diary/top.md"],
        ].map { $0.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) } }.joined()
        #expect(list.paths.map { Array($0.utf8) } == expected.map { Array($0.utf8) })
        // Each opens, relative to its folder.
        for k in 0..<list.count {
            let fd = list.open(k)
            #expect(fd >= 0)
            close(fd)
        }
        // Stamps as the index takes them path by path: a removed file is unreadable.
        #expect(unlink(dir.path + "/rooms/b.md") == 0)
        let folder = open(dir.path, O_RDONLY | O_DIRECTORY)
        defer { close(folder) }
        #expect(list.stamps(threads: 2) == FileStamp.stamps(of: list.paths, in: folder, threads: 1))
        #expect(list.stamps(threads: 1)[2] == .unreadable)
    }

    @Test func manyFoldersAreListedWithoutKeepingThemAllOpen() throws {
        let dir = TemporaryDirectory("search-list-many")
        for k in 0..<300 { try dir.write("diary/\(1000 + k)/\(1000 + k)-01-01.md", "day \(k)\n") }
        let list = FileList(root: dir.path, folders: [("diary", true)])
        #expect(list.count == 300)
        #expect(list.path(299) == "diary/1299/1299-01-01.md")
        for k in [0, 255, 256, 299] {
            let fd = list.open(k)
            #expect(fd >= 0)
            close(fd)
        }
        // Stamped on several threads, as one.
        #expect(list.stamps(threads: 4) == list.stamps(threads: 1))
    }

    /// Rooms and diary are listed on two threads and joined (`vs_files_append`): the diary's
    /// folders (more than are kept open: the rest are opened from the root) move with its
    /// files, and the joined listing saves and loads as one.
    @Test func theJoinedListingOpensEveryFileAndSavesAsOne() throws {
        let dir = TemporaryDirectory("search-list-joined")
        let cacheDir = TemporaryDirectory("search-list-joined-cache")
        for k in 0..<300 { try dir.write("diary/\(1000 + k)/\(1000 + k)-01-01.md", "day \(k)\n") }
        for k in 0..<5 { try dir.write("rooms/r\(k).md", "room \(k)\n") }
        let cache = cacheDir.path + "/listing"
        let listed = FileList.everything(root: dir.path, cache: cache, racyMargin: 0)
        try waitForTheFileSystemClock(pastEverythingIn: [dir.path, cacheDir.path], probeIn: cacheDir.path)
        let loaded = FileList.everything(root: dir.path, cache: cache, racyMargin: 0)
        #expect(!listed.fromCache && loaded.fromCache)
        for list in [listed, loaded] {
            #expect(list.count == 305)
            #expect(list.path(0) == "rooms/r0.md" && list.path(304) == "diary/1299/1299-01-01.md")
            for k in 0..<list.count {
                let fd = list.open(k)
                #expect(fd >= 0, "\(list.path(k))")
                if fd >= 0 { close(fd) }
            }
            #expect(list.listHash == StampFile.listHash(list.paths))
        }
    }

    /// After a change in `rooms/` only, the diary's saved files are taken (`top`), and the
    /// listing joined with the rooms read again is whole, opens, and is taken whole later; after
    /// a change in a diary folder, the diary's part is not taken.
    @Test func theDiarysSavedFilesAreTakenAfterAChangeInRoomsOnly() throws {
        let dir = TemporaryDirectory("search-list-part")
        let cacheDir = TemporaryDirectory("search-list-part-cache")
        let cache = cacheDir.path + "/listing"
        try dir.write("rooms/a.md", "a\n")
        for k in 0..<5 { try dir.write("diary/\(2020 + k)/\(2020 + k)-01-01.md", "day\n") }
        _ = FileList.everything(root: dir.path, cache: cache, racyMargin: 0)
        try waitForTheFileSystemClock(pastEverythingIn: [dir.path, cacheDir.path], probeIn: cacheDir.path)
        try dir.write("rooms/b.md", "b\n")
        let part = try #require(FileList.saved(root: dir.path, cache: cache, racyMargin: 0, top: "diary"))
        #expect(part.paths == (0..<5).map { "diary/\(2020 + $0)/\(2020 + $0)-01-01.md" })
        #expect(FileList.saved(root: dir.path, cache: cache, racyMargin: 0, top: "rooms") == nil)
        #expect(FileList.saved(root: dir.path, cache: cache, racyMargin: 0) == nil)
        for k in 0..<part.count {
            let fd = part.open(k)
            #expect(fd >= 0)
            if fd >= 0 { close(fd) }
        }
        let joined = FileList.everything(root: dir.path, cache: cache, racyMargin: 0)
        #expect(!joined.fromCache)
        #expect(joined.paths == ["rooms/a.md", "rooms/b.md"] + part.paths)
        try waitForTheFileSystemClock(pastEverythingIn: [dir.path, cacheDir.path], probeIn: cacheDir.path)
        let whole = try #require(FileList.saved(root: dir.path, cache: cache, racyMargin: 0))
        #expect(whole.paths == joined.paths && whole.listHash == StampFile.listHash(joined.paths))
        // A new entry in one diary folder: the diary's part is read again.
        try dir.write("diary/2022/2022-02-02.md", "new\n")
        #expect(FileList.saved(root: dir.path, cache: cache, racyMargin: 0, top: "diary") == nil)
        #expect(FileList.everything(root: dir.path, cache: cache, racyMargin: 0).paths.contains("diary/2022/2022-02-02.md"))
    }

    /// The listing's sort (a radix quicksort in C) gives the order of the paths' bytes, for
    /// names sharing long prefixes, Korean, NFD and ASCII case.
    @Test func theListingIsSortedByBytes() throws {
        let dir = TemporaryDirectory("search-list-sort")
        var random = SeededRandom(seed: 11)
        let parts = ["api-설계", "api-설계-2", "API", "a", "부산", "부산 여행", "b", "-", "1", "10"]
        var names: Set<String> = []
        while names.count < 400 {
            let n = Int.random(in: 1...4, using: &random)
            var name = (0..<n).map { _ in parts.randomElement(using: &random)! }.joined()
            if Bool.random(using: &random) { name = name.decomposedStringWithCanonicalMapping }
            names.insert(name)
        }
        for name in names { try dir.write("rooms/\(name).md", "x\n") }
        let expected = names.map { Array("rooms/\($0).md".utf8) }.sorted { $0.lexicographicallyPrecedes($1) }
        #expect(FileList(root: dir.path, folders: [("rooms", false)]).paths.map { Array($0.utf8) } == expected)
    }

    @Test func givenPathsAreOpenedAsTheyAre() throws {
        let dir = TemporaryDirectory("search-list-paths")
        try dir.write("rooms/a.md", "text\n")
        #expect(symlink(dir.path + "/rooms/a.md", dir.path + "/rooms/link.md") == 0)
        let list = FileList(root: dir.path, paths: ["rooms/a.md", "rooms/link.md", "rooms/gone.md"])
        #expect(list.paths == ["rooms/a.md", "rooms/link.md", "rooms/gone.md"])
        let fd = list.open(0)
        #expect(fd >= 0)
        close(fd)
        #expect(list.open(1) < 0)  // a symbolic link is not followed
        #expect(list.open(2) < 0)
        #expect(list.stamps(threads: 1)[1] == .unreadable)
    }

    /// The saved listing is taken only while every folder it read is unchanged and was settled
    /// when it was read; any name added, removed or renamed, in any folder, reads them again.
    @Test func theSavedListingIsTakenOnlyWhileItsFoldersAreUnchanged() throws {
        let dir = TemporaryDirectory("search-list-cache")
        let cacheDir = TemporaryDirectory("search-list-cache-file")
        let cache = cacheDir.path + "/listing"
        try dir.write("rooms/a.md", "a\n")
        try dir.write("diary/2024/2024-01-01-x.md", "x\n")
        func list(margin: Int64 = 0) -> FileList {
            FileList.everything(root: dir.path, cache: cache, racyMargin: margin)
        }
        let first = list()
        #expect(!first.fromCache)
        #expect(first.paths == ["rooms/a.md", "diary/2024/2024-01-01-x.md"])
        // Just written: within the default margin, not trusted.
        #expect(!list(margin: 2_000_000_000).fromCache)
        try waitForTheFileSystemClock(pastEverythingIn: [dir.path, cacheDir.path], probeIn: cacheDir.path)
        let again = list()
        #expect(again.fromCache)
        #expect(again.paths == first.paths)
        let fd = again.open(1)
        #expect(fd >= 0)
        close(fd)
        // A change in each kind of folder, each seen.
        let nfd = "diary/2024/2024-01-02-제주.md".decomposedStringWithCanonicalMapping
        let x = "diary/2024/2024-01-01-x.md"
        let changes: [(String, () throws -> Void, [String])] = [
            ("a new room", { try dir.write("rooms/b.md", "b\n") }, ["rooms/a.md", "rooms/b.md", x]),
            ("an NFD entry", { try dir.write(nfd, "y\n") }, ["rooms/a.md", "rooms/b.md", x, nfd]),
            ("a removed room", { #expect(unlink(dir.path + "/rooms/a.md") == 0) }, ["rooms/b.md", x, nfd]),
            ("a new folder", { try dir.write("diary/2025/2025-01-01-z.md", "z\n") },
             ["rooms/b.md", x, nfd, "diary/2025/2025-01-01-z.md"]),
            ("a renamed entry", {
                #expect(rename(dir.path + "/diary/2025/2025-01-01-z.md", dir.path + "/diary/2025/2025-01-02-z.md") == 0)
            }, ["rooms/b.md", x, nfd, "diary/2025/2025-01-02-z.md"]),
            ("a room made a link", {
                #expect(unlink(dir.path + "/rooms/b.md") == 0)
                #expect(symlink(dir.path + "/diary/2024/2024-01-01-x.md", dir.path + "/rooms/b.md") == 0)
            }, [x, nfd, "diary/2025/2025-01-02-z.md"]),
        ]
        for (what, change, expected) in changes {
            try change()
            let changed = list()
            #expect(!changed.fromCache, "\(what)")
            #expect(changed.paths.map { Array($0.utf8) } == expected.map { Array($0.utf8) }, "\(what)")
            try waitForTheFileSystemClock(pastEverythingIn: [dir.path, cacheDir.path], probeIn: cacheDir.path)
            #expect(list().fromCache, "\(what)")
        }
        // A damaged or foreign saved listing is not taken.
        var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: cache)))
        bytes[bytes.count - 2] ^= 0xFF
        try Data(bytes).write(to: URL(fileURLWithPath: cache))
        #expect(!list().fromCache)
        try waitForTheFileSystemClock(pastEverythingIn: [dir.path, cacheDir.path], probeIn: cacheDir.path)
        let other = TemporaryDirectory("search-list-cache-other")
        try other.write("rooms/c.md", "c\n")
        let foreign = FileList.everything(root: other.path, cache: cache, racyMargin: 0)
        #expect(!foreign.fromCache)
        #expect(foreign.paths == ["rooms/c.md"])
    }

    /// A search that keeps case (smart case: `Swift`) reads only the files with its capitals as
    /// written (the index's case-kept terms); one without capitals, `-i` and a regular expression
    /// read every file with the letters; each finds what the scan finds.
    @Test func aSearchThatKeepsCaseReadsOnlyTheFilesWithItsCapitals() throws {
        try withCacheHome { _ in
            let dir = TemporaryDirectory("search-case-terms")
            try dir.write("vault.yml", "format: 1\n")
            try dir.write("rooms/a.md", "---\ntitle: A\n---\n\nSwift 6 동시성.\n")
            try dir.write("rooms/b.md", "---\ntitle: B\n---\n\nswift 패키지만.\n")
            try dir.write("rooms/c.md", "---\ntitle: C\n---\n\nSWIFT 대문자.\n")
            try dir.write("diary/2024/2024-03-01-x.md", "# x\n\nTaylor Swift 노래.\n")
            try dir.write("diary/2024/2024-03-02-y.md", "# y\n\nSwif\u{301}t, decomposed accents around: Swı̇ft.\n")
            let search = VaultSearch(vault: try Vault(root: dir.path))
            let index = try SearchIndex(vaultRoot: dir.path, cacheHome: ProcessSettings.ofThisTest.cacheHome)
            func searched(_ query: SearchQuery, sourceLocation: SourceLocation = #_sourceLocation) throws -> Int {
                let scan = try search.run(query)
                let (indexed, _) = try search.run(query, index: index)
                #expect(indexed.usedIndex, sourceLocation: sourceLocation)
                #expect(
                    indexed.items.map { "\($0.path) \($0.hits.map(\.line))" }
                        == scan.items.map { "\($0.path) \($0.hits.map(\.line))" }, sourceLocation: sourceLocation)
                return indexed.filesSearched
            }
            #expect(try searched(SearchQuery(pattern: "Swift")) == 2)
            #expect(try searched(SearchQuery(pattern: "SWIFT")) == 1)
            #expect(try searched(SearchQuery(pattern: "swift")) == 4)
            var insensitive = SearchQuery(pattern: "Swift")
            insensitive.caseMode = .insensitive
            #expect(try searched(insensitive) == 4)
            // A regular expression's literal part narrows by its folded terms only.
            var regex = SearchQuery(pattern: "Swi[f]t")
            regex.isRegex = true
            #expect(try searched(regex) >= 4)
            // A capital that is not A–Z (`Å`) adds no term: the files with the letters are read.
            try dir.write("rooms/d.md", "---\ntitle: D\n---\n\nÅngström 단위.\n")
            try dir.write("rooms/e.md", "---\ntitle: E\n---\n\nångström 단위.\n")
            #expect(try searched(SearchQuery(pattern: "Ångström")) == 2)
            #expect(try searched(SearchQuery(pattern: "Ångström 단")) == 2)
        }
    }

    /// Through `VaultSearch.run(_:index:)` (stamps from the C listing, candidates by position):
    /// an edit in place that keeps the size and the modification time, in the same second as
    /// the index read the file, is found (the file was recorded unsettled); so are a deleted
    /// file, a new one with an NFD name, and one rewritten by rename.
    @Test func theIndexThroughTheListingSeesEveryChange() throws {
        try withCacheHome { _ in
            let dir = TemporaryDirectory("search-list-index")
            try dir.write("vault.yml", "format: 1\n")
            try dir.write("rooms/a.md", "---\ntitle: A\n---\n\n## 🧑 user\n\n해운대 바다 보러 가자.\n")
            try dir.write("rooms/b.md", "---\ntitle: B\n---\n\n광안리 바다.\n")
            try dir.write("diary/2024/2024-03-01-x.md", "# x\n\n바다 일기.\n")
            let vault = try Vault(root: dir.path)
            let search = VaultSearch(vault: vault)
            let index = try SearchIndex(vaultRoot: dir.path, cacheHome: ProcessSettings.ofThisTest.cacheHome)
            func same(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
                let scan = try search.run(SearchQuery(pattern: text))
                let (indexed, _) = try search.run(SearchQuery(pattern: text), index: index)
                #expect(
                    indexed.items.map { "\($0.path) \($0.hits.map(\.line))" }
                        == scan.items.map { "\($0.path) \($0.hits.map(\.line))" }, sourceLocation: sourceLocation)
            }
            try same("해운대")
            // In place, same size, times put back: only the racy rule finds it.
            var before = stat()
            #expect(stat(dir.path + "/rooms/a.md", &before) == 0)
            let old = try dir.readText("rooms/a.md")
            let edited = old.replacingOccurrences(of: "해운대", with: "송정역")
            #expect(edited.utf8.count == old.utf8.count)
            let fd = open(dir.path + "/rooms/a.md", O_WRONLY)
            _ = Array(edited.utf8).withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
            var times = [before.st_atim, before.st_mtim]
            #expect(futimens(fd, &times) == 0)
            close(fd)
            try same("송정역")
            try same("해운대")
            // Deleted, added under an NFD name, replaced by rename.
            #expect(unlink(dir.path + "/rooms/b.md") == 0)
            try dir.write(
                "rooms/광안리.md".decomposedStringWithCanonicalMapping, "---\ntitle: 광\n---\n\n광안리 바다 송정역.\n")
            try dir.write("diary/2024/tmp", "# x\n\n광안리 일기.\n")
            #expect(rename(dir.path + "/diary/2024/tmp", dir.path + "/diary/2024/2024-03-01-x.md") == 0)
            for text in ["광안리", "송정역", "바다", "일기", "광안리 바다"] { try same(text) }
        }
    }
}

/// The byte passes that run many bytes at a time, against their byte-by-byte definitions.
@Suite struct ByteScanTests {
    /// `vs_next_survey_lead` (AVX2, SSE2 or bytes) finds exactly the lead bytes `survey` must look at.
    @Test func surveyLeadsAreFoundAsByteByByte() {
        var random = SeededRandom(seed: 11)
        // Bytes around each edge of the ranges, and plain text.
        let alphabet: [UInt8] = [0x41, 0x0A, 0x20, 0xC2, 0xC3, 0xE3, 0xE4, 0xEA, 0xEB, 0xED, 0xEE, 0xEF, 0xF4, 0xFF,
                                 0x80, 0xAF, 0xB0, 0xBF]
        func flagged(_ b: [UInt8], _ i: Int) -> Bool {
            let x = b[i]
            if (x >= 0xC3 && x <= 0xE3) || x >= 0xEF { return true }
            return x == 0xEA && (i + 1 >= b.count || b[i + 1] < 0xB0)
        }
        for length in [0, 1, 2, 16, 17, 31, 32, 33, 64, 65, 200, 1_000] {
            for sparse in [false, true] {
                let bytes = (0..<length).map { _ in
                    sparse && Int.random(in: 0..<40, using: &random) != 0
                        ? UInt8(ascii: "a") : alphabet.randomElement(using: &random)!
                }
                let expected = bytes.indices.filter { flagged(bytes, $0) }
                var found: [Int] = []
                bytes.withUnsafeBufferPointer { b in
                    guard let p = b.baseAddress else { return }
                    var i = 0
                    while true {
                        i = vs_next_survey_lead(p, i, length)
                        guard i < length else { break }
                        found.append(i)
                        i += 1
                    }
                }
                #expect(found == expected, "length \(length)")
            }
        }
    }

    /// `TextScan.lineFeeds`, sixteen bytes at a time, against a count byte by byte.
    @Test func countsAsByteByByte() {
        var random = SeededRandom(seed: 9)
        for length in [0, 1, 15, 16, 17, 100, 4_095, 4_096 + 7, 70_000] {
            // Dense and sparse line feeds, and runs longer than 255 rounds of sixteen bytes.
            let density = [2, 40, 100_000][length % 3]
            let bytes = (0..<length).map { _ in
                UInt8.random(in: 0...255, using: &random) % UInt8(min(density, 255)) == 0 ? 0x0A : UInt8(ascii: "a")
            }
            bytes.withUnsafeBufferPointer { b in
                guard let p = b.baseAddress else { return }
                let ranges = [(0, length), (min(3, length), length), (0, length / 2), (length / 3, length - length / 5)]
                for (from, to) in ranges where from <= to {
                    #expect(TextScan.lineFeeds(p, from: from, to: to) == bytes[from..<to].filter { $0 == 0x0A }.count)
                }
            }
        }
    }
}

/// A 200 MB room is searched in bounded memory: read in pieces, never whole.
@Suite struct SearchMemoryTests {
    static let time = "/usr/bin/time"

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: time)))
    func aTwoHundredMegabyteRoomIsSearchedInBoundedMemory() throws {
        let dir = TemporaryDirectory("search-big-room")
        try dir.write("vault.yml", "format: 1\n")
        try dir.write("rooms/small.md", "---\ntitle: small\n---\n\n해운대 바다\n")
        let path = dir.path + "/rooms/big.md"
        #expect(FileManager.default.createFile(atPath: path, contents: Data("---\ntitle: big\n---\n\n".utf8)))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        handle.seekToEndOfFile()
        // Messages of one long line each (about 2 KB): the hits' lines add up to more than the
        // room, and the test prints them in seconds even from a debug build.
        let line =
            "## 🧑 user · 2026-11-21 <!-- 2026-11-21T09:31:07+09:00 m-01JPA3K8Z4QX -->\n부산 "
            + String(repeating: "여행 일정을 짜 줘. 광안리 바다. ", count: 50) + "\n"
        let block = Data(String(repeating: line, count: (1 << 20) / line.utf8.count).utf8)
        for k in 0..<200 {
            handle.write(block)
            if k % 50 == 7 { handle.write(Data("해운대에서 만나자.\n".utf8)) }
        }
        try handle.close()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.time)
        process.arguments = ["-f", "maxrss=%M", Project.vaultExecutable, "search", "--no-index", "-l", "해운대"]
        process.currentDirectoryURL = URL(fileURLWithPath: dir.path)
        var env = ProcessInfo.processInfo.environment
        env["VAULT_DIR"] = nil
        process.environment = env
        let r = try run(process)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == "rooms/big.md\nrooms/small.md\n")
        let kilobytes = r.stderr.split(separator: "\n").compactMap { $0.split(separator: "=").last.flatMap { Int($0) } }
        // Pieces of 8 MiB a worker and the program itself; the file is 200 MB.
        #expect((kilobytes.last ?? .max) < 120_000, "\(r.stderr)")

        // Every message a hit, about 100,000 lines and 200 MB of output: they stream out in
        // parts as the file is read, never all held (the lines alone would pass the limit).
        let lines = Process()
        lines.executableURL = URL(fileURLWithPath: "/bin/sh")
        lines.arguments = [
            "-c", #""$@" | wc -l -c"#, "sh", Self.time, "-f", "maxrss=%M", Project.vaultExecutable, "search",
            "--no-index", "부산",
        ]
        lines.currentDirectoryURL = URL(fileURLWithPath: dir.path)
        lines.environment = env
        let many = try run(lines)
        let hitsWritten = 200 * ((1 << 20) / line.utf8.count)
        let counts = many.stdout.split(separator: " ", omittingEmptySubsequences: true).compactMap {
            Int($0.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        #expect(counts.first == 1 + hitsWritten, "\(many.stdout) \(many.stderr)")
        #expect((counts.last ?? 0) > 200_000 * 1024, "more printed than the limit below: \(many.stdout)")
        let most = many.stderr.split(separator: "\n").compactMap { $0.split(separator: "=").last.flatMap { Int($0) } }
        #expect((most.last ?? .max) < 200_000, "\(many.stderr)")
    }
}
