import Foundation
import Testing
import VaultCore
import VaultTestSupport

@testable import VaultSearch

#if canImport(Glibc)
import Glibc
#endif

/// Timings of the index on a large vault, printed, never asserted: runs only when
/// `VAULT_SEARCH_BENCH` names a vault (it is only read; the index goes to a temporary
/// `XDG_CACHE_HOME`). Meaningful in a release build:
///
///     swift build -c release --build-tests -Xswiftc -enable-testing
///     VAULT_SEARCH_BENCH=/work/bench50k swift test -c release --skip-build --filter SearchIndexBenchmark
///
/// It also checks, on that vault, that the candidates are exactly the files whose search text
/// contains the needle (by brute force over every file), unless `VAULT_SEARCH_BENCH_QUICK` is
/// set. `VAULT_SEARCH_BENCH_CACHE` names a cache folder to keep between runs (then only the
/// first run builds the index).
extension SearchIndexTests {
    static let benchVault = ProcessInfo.processInfo.environment["VAULT_SEARCH_BENCH"] ?? ""

    @Test(.enabled(if: !benchVault.isEmpty))
    func searchIndexBenchmark() throws {
        let environment = ProcessInfo.processInfo.environment
        try withCacheHome { temporary in
            let cache = environment["VAULT_SEARCH_BENCH_CACHE"] ?? temporary
            setenv("XDG_CACHE_HOME", cache, 1)
            let root = Self.benchVault
            var clock = Stopwatch()
            let files = Self.listing(root)
            print("bench: \(files.count) files listed in \(clock.lap()) ms (readdir)")

            let index = try SearchIndex(vaultRoot: root, cacheHome: ProcessSettings.ofThisTest.cacheHome)
            let build = try index.refresh(files)
            let buildTime = clock.lap()
            print(
                "bench: first build \(buildTime) ms: read \(build.read), indexed \(build.indexed),"
                    + " not UTF-8 \(build.invalidUTF8.count); index \(index.sizeInBytes / 1_000_000) MB at \(cache)")
            let needles = ["부산 여행", "습니다", "좋은 질문이에요", "docker", "the schedule runs", "\"title\"", "zzqqxx"]
                .map { SearchText.key($0, folding: true) }

            // Repeated searches: a new index object each time (as a new `vault search` process
            // opens it), nothing changed on disk.
            var opening: [Double] = []
            var refresh: [Double] = []
            var query: [Double] = []
            var total: [Double] = []
            var counts: [Int] = []
            for run in 0..<15 {
                var lap = Stopwatch()
                let again = try SearchIndex(vaultRoot: root, cacheHome: ProcessSettings.ofThisTest.cacheHome)
                let o = lap.lap()
                let r = try again.refresh(files)
                let f = lap.lap()
                let found = try again.candidates(containingAll: [needles[run % needles.count]])
                let q = lap.lap()
                #expect(r.read == 0)
                opening.append(o)
                refresh.append(f)
                query.append(q)
                total.append(o + f + q)
                counts.append(found?.count ?? -1)
            }
            print(
                "bench: repeated search, median of 15: open \(median(opening)) ms, refresh \(median(refresh)) ms,"
                    + " candidates \(median(query)) ms, total \(median(total)) ms"
                    + " (min \(total.min() ?? 0), max \(total.max() ?? 0))")
            print("bench: candidates per needle: \(zip(needles, counts).map { "\($0.0)=\($0.1)" })")

            // The parts of an up-to-date refresh.
            var stamps: [Double] = []
            for _ in 0..<7 {
                var lap = Stopwatch()
                let folder = open(root, O_RDONLY | O_DIRECTORY)
                _ = FileStamp.stamps(of: files, in: folder, threads: index.stampThreads)
                stamps.append(lap.lap())
                close(folder)
            }
            var oneThread: [Double] = []
            for _ in 0..<7 {
                var lap = Stopwatch()
                let folder = open(root, O_RDONLY | O_DIRECTORY)
                _ = FileStamp.stamps(of: files, in: folder, threads: 1)
                oneThread.append(lap.lap())
                close(folder)
            }
            print("bench: stamps of \(files.count) files on 1 thread \(median(oneThread)) ms")
            var side: [Double] = []
            for _ in 0..<7 {
                var lap = Stopwatch()
                _ = StampFile.read(index.stampPath)
                _ = StampFile.listHash(files)
                side.append(lap.lap())
            }
            print(
                "bench: of a refresh: stamps of \(files.count) files on \(index.stampThreads) threads"
                    + " \(median(stamps)) ms, side file read and list hash \(median(side)) ms")

            var sorting: [Double] = []
            for seed in 0..<3 {
                var random = SeededRandom(seed: UInt64(seed))
                let shuffled = files.shuffled(using: &random)
                var lap = Stopwatch()
                _ = SearchIndex.sortedOrder(shuffled)
                sorting.append(lap.lap())
            }
            print("bench: sorting \(files.count) paths listed in random order: \(median(sorting)) ms")

            // A file added or removed: the listing differs from the side file's.
            var lap = Stopwatch()
            let fewer = try index.refresh(Array(files.dropLast()))
            let dropped = lap.lap()
            let back = try index.refresh(files)
            let readded = lap.lap()
            print(
                "bench: one file fewer: \(dropped) ms (removed \(fewer.removed));"
                    + " back: \(readded) ms (read \(back.read))")

            // Exactly the files that contain each needle.
            if environment["VAULT_SEARCH_BENCH_QUICK"] != nil { return }
            var truth = Array(repeating: [String](), count: needles.count)
            var reading = 0.0
            var keying = 0.0
            var searching = 0.0
            for file in files {
                var lap = Stopwatch()
                guard let bytes = try? FileIO.read(root + "/" + file),
                    let text = String(validating: bytes, as: UTF8.self)
                else { continue }
                reading += lap.lap()
                let key = SearchText.key(text, folding: true)
                keying += lap.lap()
                #expect(Array(FileVersion.searchKey(text).utf8) == Array(key.utf8), "\(file)")
                _ = lap.lap()
                for (k, needle) in needles.enumerated() where contains(key, needle) { truth[k].append(file) }
                searching += lap.lap()
            }
            print(
                "bench: brute force over every file: \(clock.lap()) ms (reading and UTF-8 check \(Int(reading)) ms,"
                    + " SearchText.key \(Int(keying)) ms, byte search \(Int(searching)) ms)")
            for (k, needle) in needles.enumerated() {
                #expect(try index.candidates(containingAll: [needle]) == truth[k].sorted(), "\(needle)")
            }
        }
    }

    /// Every `rooms/*.md` and `diary/**/*.md` below `root`, relative, sorted by folder, as the
    /// scan lists them (`readdir`, with the entry types it gives: no `stat`).
    static func listing(_ root: String) -> [String] {
        var out: [String] = []
        func walk(_ relative: String, recursive: Bool) {
            guard let dir = opendir(root + "/" + relative) else { return }
            defer { closedir(dir) }
            var entries: [(String, Bool)] = []
            while let entry = readdir(dir) {
                let name = withUnsafePointer(to: entry.pointee.d_name) {
                    $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
                }
                if name.hasPrefix(".") { continue }
                entries.append((name, entry.pointee.d_type == UInt8(DT_DIR)))
            }
            for (name, isFolder) in entries.sorted(by: { $0.0 < $1.0 }) {
                if isFolder {
                    if recursive { walk(relative + "/" + name, recursive: true) }
                } else if name.hasSuffix(".md") {
                    out.append(relative + "/" + name)
                }
            }
        }
        walk("rooms", recursive: false)
        walk("diary", recursive: true)
        return out
    }
}

/// Milliseconds between laps, on the monotonic clock.
struct Stopwatch {
    private var last = Stopwatch.now()

    static func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) * 1e3 + Double(t.tv_nsec) / 1e6
    }

    /// Milliseconds since the last lap (or the start), rounded to 0.1.
    mutating func lap() -> Double {
        let now = Stopwatch.now()
        defer { last = now }
        return ((now - last) * 10).rounded() / 10
    }
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
}
