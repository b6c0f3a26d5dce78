import Foundation
import Testing
import VaultTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The search index's watcher, with real inotify and real processes: an indexed search with
/// the watcher running answers exactly as a scan after every kind of change made between two
/// searches, a watcher killed or overwhelmed leads back to checking every file, one watcher
/// stays per vault, and it leaves on its own without writing in the vault.
@Suite struct SearchWatcherTests {
    /// A vault for searching, its cache folder, and the environment that points the index there.
    struct Setup {
        let vault: TemporaryDirectory
        let cache: TemporaryDirectory
        var environment: [String: String]

        init(idleSeconds: Int = 120, extra: [String: String] = [:]) throws {
            vault = try searchVault()
            cache = TemporaryDirectory("vault-watch-cache")
            environment = ["XDG_CACHE_HOME": cache.path, "VAULT_WATCH_IDLE": String(idleSeconds)]
            environment.merge(extra) { _, new in new }
        }

        /// `vault search ARGS` in the vault, with the index (traced) or scanning.
        func search(_ arguments: [String], scan: Bool = false) throws -> RunResult {
            var env = environment
            env["VAULT_TRACE"] = scan ? nil : "1"
            return try runVault(["search"] + arguments + (scan ? ["--no-index"] : []), in: vault.path, environment: env)
        }

        /// Waits until every file of the vault was last changed more than the index's racy
        /// margin (2 s) ago, then searches once: the index then records every file as settled,
        /// and re-stamps only what the watcher names (a file read within 2 s of its change is
        /// stamped at every search, watcher or not, and would hide a watcher that names
        /// nothing). Time passing is what is waited for: no event says so.
        func settle() throws {
            var newest = 0.0
            for file in vault.files() {
                var st = stat()
                if stat(vault.path + "/" + file, &st) == 0 {
                    newest = max(newest, Double(st.st_ctim.tv_sec) + Double(st.st_ctim.tv_nsec) / 1e9)
                }
            }
            let settled = Date(timeIntervalSince1970: newest + 2.2)
            while Date() < settled { Thread.sleep(until: settled) }  // sleep: until the racy margin past the files' change times (the condition, computed)
            let r = try search(["해운대", "-l"])
            #expect(r.stderr.contains("search: watcher answered (0 changed)"), "\(r.stderr)")
            // Now nothing is unsettled: no file is stamped but those the watcher names.
            let again = try search(["해운대", "-l"])
            #expect(again.stderr.contains("search: 0 files stamped"), "\(again.stderr)")
        }

        /// The watcher processes started for this cache (their command lines name its index).
        func watchers() -> [Int32] {
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
            return entries.compactMap { name -> Int32? in
                guard let pid = Int32(name),
                    let bytes = FileManager.default.contents(atPath: "/proc/\(name)/cmdline")
                else { return nil }
                let arguments = bytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
                guard arguments.contains("search-watcher"), arguments.contains(where: { $0.hasPrefix(cache.path) })
                else { return nil }
                // A process that ended but was not reaped yet is not a watcher any more.
                let status = (try? String(contentsOfFile: "/proc/\(name)/stat", encoding: .utf8)) ?? ""
                return status.contains(") Z ") ? nil : pid
            }.sorted()
        }

        /// Ends every watcher of this cache (at the end of a test).
        func stopWatchers() {
            for pid in watchers() { kill(pid, SIGTERM) }
        }
    }

    /// Waits until at most `remaining` of `pids` are alive, through pidfds (Python's
    /// `os.pidfd_open`), up to `seconds`; returns the pids still alive.
    @discardableResult
    func waitUntil(atMost remaining: Int, of pids: [Int32], seconds: Double = 20) throws -> [Int32] {
        let script = """
            import os, select, sys, time
            remaining, deadline = int(sys.argv[1]), time.monotonic() + float(sys.argv[2])
            fds = {}
            for p in sys.argv[3:]:
                try: fds[os.pidfd_open(int(p))] = int(p)
                except ProcessLookupError: pass
            poll = select.poll()
            for fd in fds: poll.register(fd, select.POLLIN)
            alive = dict(fds)
            while len(alive) > remaining and time.monotonic() < deadline:
                for fd, _ in poll.poll(max(1, int((deadline - time.monotonic()) * 1000))):
                    poll.unregister(fd); alive.pop(fd, None)
            print(" ".join(str(p) for p in sorted(alive.values())))
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, String(remaining), String(seconds)] + pids.map(String.init)
        let result = try run(process)
        let words = result.stdout.split(separator: " ")
        return words.compactMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    /// The same hits, statuses and warnings through the index (with the watcher) as by a scan,
    /// for `patterns`; returns the traces of the indexed searches.
    @discardableResult
    func expectSameAsScan(
        _ setup: Setup, _ patterns: [String], _ label: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [String] {
        var traces: [String] = []
        for pattern in patterns {
            let indexed = try setup.search([pattern, "--json"])
            let scanned = try setup.search([pattern, "--json"], scan: true)
            #expect(indexed.stdout == scanned.stdout, "\(label): '\(pattern)'", sourceLocation: sourceLocation)
            #expect(indexed.status == scanned.status, "\(label): '\(pattern)'", sourceLocation: sourceLocation)
            let warnings = indexed.stderr.split(separator: "\n").filter { !$0.hasPrefix("vault trace:") }
            #expect(warnings.joined(separator: "\n") == scanned.stderr.trimmingCharacters(in: .newlines),
                    "\(label): '\(pattern)'", sourceLocation: sourceLocation)
            traces.append(indexed.stderr)
        }
        return traces
    }

    @Test func answersWithTheWatcherEqualTheScanAfterEveryKindOfChange() throws {
        let setup = try Setup()
        defer { setup.stopWatchers() }
        let first = try setup.search(["--index", "해운대", "-l"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("search: watcher answered (everything)"), "\(first.stderr)")
        #expect(setup.watchers().count == 1)
        try setup.settle()
        let vault = setup.vault

        // An edit in place: same size, same modification time.
        try overwriteInPlace(vault, "rooms/부산-여행.md", replacing: "해운대 근처", with: "광안리 근처")
        var traces = try expectSameAsScan(setup, ["광안리 근처", "해운대 근처", "해운대"], "edited in place")
        #expect(traces[0].contains("search: watcher answered (1 changed)"), "\(traces[0])")
        #expect(try setup.search(["광안리 근처", "-l"]).stdout == "rooms/부산-여행.md\n")

        // A new room.
        try vault.write(
            "rooms/새-방.md",
            "---\ntitle: 새 방\n---\n\n## 🧑 user <!-- 2026-11-20T10:00:00+09:00 m-1 -->\n\n새로운방문자\n")
        traces = try expectSameAsScan(setup, ["새로운방문자", "해운대"], "a new room")
        #expect(traces[0].contains("search: watcher answered (1 changed)"), "\(traces[0])")
        #expect(try setup.search(["새로운방문자", "-l"]).stdout == "rooms/새-방.md\n")

        // A removed entry.
        try FileManager.default.removeItem(atPath: vault.path + "/diary/2026/2026-11-06-일기.md")
        try expectSameAsScan(setup, ["해운대 산책", "해운대"], "a removed entry")
        #expect(try setup.search(["해운대 산책"]).status == 1)

        // A renamed file.
        try FileManager.default.moveItem(atPath: vault.path + "/rooms/새-방.md", toPath: vault.path + "/rooms/옛-방.md")
        try expectSameAsScan(setup, ["새로운방문자"], "a renamed file")
        #expect(try setup.search(["새로운방문자", "-l"]).stdout == "rooms/옛-방.md\n")

        // A new diary folder made with files in it: the watcher cannot name them (they may be
        // written before its watch exists), so it says "everything".
        try FileManager.default.createDirectory(
            atPath: vault.path + "/diary/2027/01", withIntermediateDirectories: true)
        try vault.write("diary/2027/01/2027-01-02-새해.md", "---\ntitle: 새해\n---\n\n새해첫날기록\n")
        traces = try expectSameAsScan(setup, ["새해첫날기록", "해운대"], "a new diary folder")
        #expect(traces[0].contains("search: watcher answered (everything)"), "\(traces[0])")
        // ... and then watches it: a file written there afterwards is named.
        try vault.write("diary/2027/01/2027-01-03-둘째.md", "---\ntitle: 둘째\n---\n\n둘째날기록\n")
        traces = try expectSameAsScan(setup, ["둘째날기록"], "a file in the new folder")
        #expect(traces[0].contains("search: watcher answered (1 changed)"), "\(traces[0])")
        #expect(try setup.search(["둘째날기록", "-l"]).stdout == "diary/2027/01/2027-01-03-둘째.md\n")

        // A folder removed.
        try FileManager.default.removeItem(atPath: vault.path + "/diary/2027")
        traces = try expectSameAsScan(setup, ["새해첫날기록", "둘째날기록", "해운대"], "a folder removed")
        #expect(traces[0].contains("search: watcher answered (everything)"), "\(traces[0])")
        #expect(try setup.search(["둘째날기록"]).status == 1)

        // Nothing changed: the list is empty, and still one watcher.
        traces = try expectSameAsScan(setup, ["해운대"], "nothing changed")
        #expect(traces[0].contains("search: watcher answered (0 changed)"), "\(traces[0])")
        #expect(setup.watchers().count == 1)
    }

    @Test func aKilledWatcherLeadsToTheFullCheckAndANewWatcher() throws {
        let setup = try Setup()
        defer { setup.stopWatchers() }
        #expect(try setup.search(["--index", "해운대"]).status == 0)
        try setup.settle()
        let old = setup.watchers()
        #expect(old.count == 1)
        for pid in old { kill(pid, SIGKILL) }
        #expect(try waitUntil(atMost: 0, of: old).isEmpty)
        try overwriteInPlace(setup.vault, "rooms/부산-여행.md", replacing: "해운대 근처", with: "송정역 근처")
        let traces = try expectSameAsScan(setup, ["송정역 근처", "해운대 근처"], "after SIGKILL")
        // Its socket was left behind: found dead, replaced, and every file checked.
        #expect(traces[0].contains("search: starting the watcher"), "\(traces[0])")
        #expect(traces[0].contains("search: watcher answered (everything)"), "\(traces[0])")
        let new = setup.watchers()
        #expect(new.count == 1 && new != old, "\(old) → \(new)")
        #expect(try setup.search(["송정역 근처", "-l"]).stdout == "rooms/부산-여행.md\n")
    }

    @Test func twoSearchesStartingAWatcherAtOnceLeaveOne() throws {
        let setup = try Setup()
        defer { setup.stopWatchers() }
        // The index is built with no watcher, so both searches below find none running.
        let built = try runVault(
            ["search", "--index", "--no-watch", "해운대"], in: setup.vault.path, environment: setup.environment)
        #expect(built.status == 0)
        #expect(setup.watchers().isEmpty)
        // Both started at once, each waited for on its own thread.
        let processes = (0..<2).map { _ in
            vaultProcess(["search", "해운대"], in: setup.vault.path, environment: setup.environment)
        }
        final class Results: @unchecked Sendable {
            let lock = NSLock()
            var all: [RunResult?] = [nil, nil]
        }
        let results = Results()
        DispatchQueue.concurrentPerform(iterations: 2) { k in
            let r = try? run(processes[k])
            results.lock.withLock { results.all[k] = r }
        }
        let scanned = try setup.search(["해운대"], scan: true)
        for r in results.all {
            #expect(r?.stdout == scanned.stdout && r?.status == 0)
        }
        // A second watcher started at the same moment finds the lock held and leaves.
        let started = setup.watchers()
        #expect(started.count >= 1 && started.count <= 2)
        let left = try waitUntil(atMost: 1, of: started)
        #expect(left.count == 1)
        #expect(setup.watchers() == left)
    }

    /// Two Latin letters have no index term (two CJK syllables have: `aShortKoreanWordIsNarrowedByTheIndex`):
    /// the index cannot narrow them, so a search without `--index` scans and leaves the index
    /// (and its watcher) alone; `--index` still refreshes.
    @Test func aPatternTheIndexCannotNarrowIsScannedWithoutTouchingIt() throws {
        let setup = try Setup()
        defer { setup.stopWatchers() }
        let built = try runVault(
            ["search", "--index", "--no-watch", "해운대"], in: setup.vault.path, environment: setup.environment)
        #expect(built.status == 0)
        let traced = setup.environment.merging(["VAULT_TRACE": "1"]) { $1 }
        let plain = try runVault(["search", "ti"], in: setup.vault.path, environment: traced)
        #expect(plain.stdout == (try setup.search(["ti"], scan: true)).stdout && plain.status == 0)
        #expect(!plain.stderr.contains("index refreshed"), "\(plain.stderr)")
        #expect(setup.watchers().isEmpty)
        let asked = try runVault(
            ["search", "--index", "ti"], in: setup.vault.path, environment: traced)
        #expect(asked.stderr.contains("index refreshed"), "\(asked.stderr)")
    }

    /// A two-syllable Korean word is narrowed by the index (#41): a search without `--index`
    /// refreshes it and reads the candidates, and prints what the scan prints.
    @Test func aShortKoreanWordIsNarrowedByTheIndex() throws {
        let setup = try Setup()
        defer { setup.stopWatchers() }
        let built = try runVault(
            ["search", "--index", "--no-watch", "해운대"], in: setup.vault.path, environment: setup.environment)
        #expect(built.status == 0)
        let traced = setup.environment.merging(["VAULT_TRACE": "1"]) { $1 }
        let plain = try runVault(["search", "부산"], in: setup.vault.path, environment: traced)
        #expect(plain.stdout == (try setup.search(["부산"], scan: true)).stdout && plain.status == 0)
        #expect(plain.stderr.contains("index refreshed"), "\(plain.stderr)")
        #expect(!plain.stderr.contains("-1 candidates"), "\(plain.stderr)")
    }

    @Test func tooManyChangedPathsGiveEverythingAndExactAnswers() throws {
        let setup = try Setup(extra: ["VAULT_WATCH_MAX_PATHS": "2"])
        defer { setup.stopWatchers() }
        #expect(try setup.search(["--index", "해운대"]).status == 0)
        try setup.settle()
        try overwriteInPlace(setup.vault, "rooms/부산-여행.md", replacing: "해운대 근처", with: "다대포 근처")
        try setup.vault.write("rooms/하나.md", "---\ntitle: 하나\n---\n\n다대포 하나\n")
        try setup.vault.write("rooms/둘.md", "---\ntitle: 둘\n---\n\n다대포 둘\n")
        let traces = try expectSameAsScan(setup, ["다대포", "해운대"], "three paths, two kept")
        #expect(traces[0].contains("search: watcher answered (everything)"), "\(traces[0])")
        let found = try setup.search(["다대포", "-l"]).stdout
        #expect(found == "rooms/둘.md\nrooms/부산-여행.md\nrooms/하나.md\n", "\(found)")
    }

    @Test func theWatcherLeavesWhenIdleAndNeverWritesInTheVault() throws {
        let setup = try Setup(idleSeconds: 2)
        defer { setup.stopWatchers() }
        let vault = setup.vault.path
        _ = try git(["init", "-q"], in: vault)
        _ = try git(["add", "-A"], in: vault)
        _ = try git(["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "vault"], in: vault)
        // The first vault command after a commit made by plain git records, in `.vault/`, that
        // it checked who wrote it (FORMAT.md); a search without the index does that here, before
        // the watcher's own run is watched.
        #expect(try setup.search(["해운대"]).status == 0)
        let before = setup.vault.files()
        #expect(try setup.search(["--index", "해운대"]).status == 0)
        let started = setup.watchers()
        #expect(started.count == 1)
        // Left alone, it ends by itself.
        #expect(try waitUntil(atMost: 0, of: started).isEmpty)
        #expect(setup.watchers().isEmpty)
        // Nothing but that record, as it was before the watched run (this vault, made by plain
        // git, has no `.gitignore`: `.vault/` shows as untracked).
        let status = try git(["status", "--porcelain", "--ignored"], in: vault)
        #expect(status.split(separator: "\n") == ["?? .vault/"], "\(status)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: vault + "/.vault") == ["authorship-checked"])
        #expect(setup.vault.files() == before)
        // Its socket went with it; the next search starts another.
        let sockets = try FileManager.default.contentsOfDirectory(atPath: setup.cache.path + "/vault/search")
            .filter { $0.hasSuffix(".sock") }
        #expect(sockets.isEmpty, "\(sockets)")
    }

    @Test func theWatcherLeavesWhenTheVaultIsGone() throws {
        let setup = try Setup()
        defer { setup.stopWatchers() }
        #expect(try setup.search(["--index", "해운대"]).status == 0)
        let started = setup.watchers()
        #expect(started.count == 1)
        try FileManager.default.removeItem(atPath: setup.vault.path)
        #expect(try waitUntil(atMost: 0, of: started).isEmpty)
    }

    @Test func theWatcherLeavesWhenItsSocketIsRemoved() throws {
        let setup = try Setup()
        defer { setup.stopWatchers() }
        #expect(try setup.search(["--index", "해운대"]).status == 0)
        let started = setup.watchers()
        #expect(started.count == 1)
        // The cache deleted: the next search would start a watcher with a new lock beside a
        // new index, so this one must not stay on.
        try FileManager.default.removeItem(atPath: setup.cache.path + "/vault")
        // An event wakes it (else it looks once a minute).
        try setup.vault.write("rooms/깨우기.md", "---\ntitle: 깨우기\n---\n")
        #expect(try waitUntil(atMost: 0, of: started).isEmpty)
        let again = try setup.search(["--index", "해운대", "-l"])
        #expect(again.status == 0)
        #expect(setup.watchers().count == 1 && setup.watchers() != started)
    }

    @Test func noWatchStartsNoWatcherAndAnswersTheSame() throws {
        let setup = try Setup()
        defer { setup.stopWatchers() }
        let flagged = try setup.search(["--index", "--no-watch", "해운대", "--json"])
        #expect(flagged.status == 0)
        var env = setup.environment
        env["VAULT_NO_WATCH"] = "1"
        let variable = try runVault(["search", "해운대", "--json"], in: setup.vault.path, environment: env)
        #expect(setup.watchers().isEmpty)
        let scanned = try setup.search(["해운대", "--json"], scan: true)
        #expect(flagged.stdout == scanned.stdout && variable.stdout == scanned.stdout)
        #expect(!flagged.stderr.contains("watcher"))
    }

    /// `vault search` opens the index, asks the watcher and lists the files on another core
    /// while its arguments are parsed (`SearchIndex.preopen`); the search takes them over and
    /// answers as a scan does. `--index` (a build, with its progress) and `--no-index` take no
    /// early steps; `--no-watch` and `--vault DIR` are the search's own watcher and vault.
    @Test func theEarlyStepsAreTakenOverAndAnswerAsAScan() throws {
        let setup = try Setup()
        defer { setup.stopWatchers() }
        let early = "files listed (other core)"
        let built = try setup.search(["--index", "해운대", "-l"])
        #expect(built.status == 0 && !built.stderr.contains(early), "\(built.stderr)")
        let traces = try expectSameAsScan(setup, ["해운대", "부산 여행", "없는말"], "early")
        for trace in traces {
            #expect(trace.contains(early) && trace.contains("search: watcher answered"), "\(trace)")
            // Taken over: the search itself neither asks the watcher nor lists again.
            #expect(trace.components(separatedBy: "search: watcher answered").count == 2, "\(trace)")
        }
        // A change between two searches is seen by the early steps' watcher answer.
        try setup.vault.write(
            "rooms/이른-방.md", "---\ntitle: 이른 방\n---\n\n## 🧑 user <!-- 2026-11-20T10:00:00+09:00 m-1 -->\n\n먼저찾는말\n")
        let changed = try expectSameAsScan(setup, ["먼저찾는말"], "a new room")
        #expect(changed[0].contains(early), "\(changed[0])")
        #expect(try setup.search(["먼저찾는말", "-l"]).stdout == "rooms/이른-방.md\n")
        // From another folder, naming the vault.
        var env = setup.environment
        env["VAULT_TRACE"] = "1"
        let named = try runVault(
            ["search", "--vault", setup.vault.path, "해운대", "--json"], in: setup.cache.path, environment: env)
        let scanned = try setup.search(["해운대", "--json"], scan: true)
        #expect(named.stdout == scanned.stdout && named.stderr.contains(early), "\(named.stderr)")
        // No watcher: the early steps ask none either.
        let unwatched = try setup.search(["--no-watch", "해운대", "--json"])
        #expect(unwatched.stdout == scanned.stdout && unwatched.stderr.contains(early), "\(unwatched.stderr)")
        #expect(!unwatched.stderr.contains("watcher answered"), "\(unwatched.stderr)")
        let plain = try runVault(["search", "--no-index", "해운대", "--json"], in: setup.vault.path, environment: env)
        #expect(plain.stdout == scanned.stdout && !plain.stderr.contains(early), "\(plain.stderr)")
    }
}
