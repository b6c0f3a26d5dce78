import Foundation
import Testing
import VaultCore
import VaultTestSupport

/// `vault rooms` and `vault diary list` keep what they read outside the vault
/// (`ListingCache`) and read again only files whose stamp changed: what a listing shows is
/// always what the files say, however they were changed.
@Suite struct ListingCacheTests {
    func rooms(_ dir: TemporaryDirectory, _ env: [String: String]) throws -> String {
        let r = try runVault(["rooms", "--format", "%(path) %(title)"], in: dir.path, environment: env)
        expectSuccess(r)
        return r.stdout
    }

    @Test func everyChangeToAFileShowsInTheNextListing() throws {
        let dir = try freshVault()
        let cache = TemporaryDirectory("listing-cache")
        let env = ["XDG_CACHE_HOME": cache.path]
        for title in ["Alpha", "Beta"] {
            expectSuccess(try runVault(["room", "new", title], in: dir.path, environment: env))
        }
        #expect(try rooms(dir, env).contains("rooms/alpha.md Alpha"))
        let folder = cache.path + "/vault/listing"
        let kept = try FileManager.default.contentsOfDirectory(atPath: folder)
        #expect(kept.contains { $0.hasSuffix(".rooms") }, "\(kept)")
        // The files are older than the racy window, so the next listing trusts the stamps.
        try waitUntilSettled([dir.path], window: ListingCacheWindow.listing)
        _ = try rooms(dir, env)

        // An edit in place that keeps the size, made at once: the times change, so it is read.
        let alpha = dir.path + "/rooms/alpha.md"
        let text = try String(contentsOfFile: alpha, encoding: .utf8)
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: alpha))
        try handle.write(contentsOf: Data(text.replacingOccurrences(of: "title: Alpha", with: "title: Omega").utf8))
        try handle.close()
        #expect(try rooms(dir, env).contains("rooms/alpha.md Omega"))

        // A room removed, one added by hand, a save by rename: all seen.
        try FileManager.default.removeItem(atPath: dir.path + "/rooms/beta.md")
        try Data("---\ntitle: Gamma\ncreated: 2026-11-20T10:00:00+09:00\n---\n".utf8)
            .write(to: URL(fileURLWithPath: dir.path + "/rooms/gamma.md"))
        try Data(text.replacingOccurrences(of: "title: Alpha", with: "title: Delta").utf8)
            .write(to: URL(fileURLWithPath: alpha + ".new"))
        _ = rename(alpha + ".new", alpha)
        let listed = try rooms(dir, env)
        #expect(listed.contains("rooms/alpha.md Delta") && listed.contains("rooms/gamma.md Gamma"), "\(listed)")
        #expect(!listed.contains("beta"), "\(listed)")

        // A damaged cache is read as none: the same listing.
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
            try Data("vault-listing 1 \n1\t2\tbroken".utf8).write(to: URL(fileURLWithPath: folder + "/" + name))
        }
        #expect(try rooms(dir, env) == listed)
    }

    @Test func theDiaryListSeesAnEntryEditedInPlace() throws {
        let dir = try freshVault()
        let cache = TemporaryDirectory("listing-cache")
        let env = ["XDG_CACHE_HOME": cache.path]
        expectSuccess(try runVault(["write", "첫 일기", "--body", "처음 쓴 줄", "--date", "2026-11-01"], in: dir.path, environment: env))
        func list() throws -> String {
            let r = try runVault(["diary", "list", "--format", "%(title)|%(preview)"], in: dir.path, environment: env)
            expectSuccess(r)
            return r.stdout
        }
        #expect(try list().contains("첫 일기|처음 쓴 줄"))
        try waitUntilSettled([dir.path], window: ListingCacheWindow.listing)
        _ = try list()
        let path = try #require(FileManager.default.enumerator(atPath: dir.path + "/diary")?.allObjects
            .compactMap { $0 as? String }.first { $0.hasSuffix(".md") })
        let full = dir.path + "/diary/" + path
        let text = try String(contentsOfFile: full, encoding: .utf8)
        try Data(text.replacingOccurrences(of: "처음 쓴 줄", with: "고쳐 쓴 줄").utf8).write(to: URL(fileURLWithPath: full))
        #expect(try list().contains("첫 일기|고쳐 쓴 줄"))
    }

    /// A listing after a listing reads no file whose stamp is unchanged (its trace counts the files
    /// read), and reads again exactly the one that changed: the cache is used, not only written.
    @Test func aListingAfterAListingReadsOnlyWhatChanged() throws {
        let dir = try freshVault()
        let cache = TemporaryDirectory("listing-cache")
        var env = ["XDG_CACHE_HOME": cache.path]
        for title in ["Alpha", "Beta", "Gamma"] {
            expectSuccess(try runVault(["room", "new", title], in: dir.path, environment: env))
            expectSuccess(try runVault(["write", title, "--body", "\(title) 일기", "--date", "2026-11-0\(title.count)"], in: dir.path, environment: env))
        }
        env["VAULT_TRACE"] = "1"
        func reads(_ args: [String]) throws -> String {
            let r = try runVault(args, in: dir.path, environment: env)
            expectSuccess(r)
            return r.stderr.split(separator: "\n").last { $0.contains("listing: stamped and summarized") }.map(String.init) ?? r.stderr
        }
        for args in [["rooms"], ["diary", "list"]] {
            _ = try reads(args)
        }
        // Older than the racy window (2 s, counted in whole seconds): the next listings trust the kept stamps.
        try waitUntilSettled([dir.path], window: ListingCacheWindow.listing)
        for args in [["rooms"], ["diary", "list"]] {
            _ = try reads(args)  // reads again what was unsettled, and keeps it settled
            #expect(try reads(args).hasSuffix("(0 read)"), "\(args)")
        }
        let entry = try #require(FileManager.default.enumerator(atPath: dir.path + "/diary")?.allObjects
            .compactMap { $0 as? String }.first { $0.hasSuffix(".md") })
        try dir.write("diary/" + entry, try dir.readText("diary/" + entry) + "\n한 줄 더\n")
        try dir.write("rooms/beta.md", try dir.readText("rooms/beta.md").replacingOccurrences(of: "title: Beta", with: "title: Bravo"))
        for args in [["rooms"], ["diary", "list"]] {
            #expect(try reads(args).hasSuffix("(1 read)"), "\(args)")
            // Unsettled yet: read again, and the cache written after it is whole.
            #expect(try reads(args).hasSuffix("(1 read)"), "\(args)")
        }
        try waitUntilSettled([dir.path], window: ListingCacheWindow.listing)
        for args in [["rooms"], ["diary", "list"]] {
            #expect(try reads(args).hasSuffix("(1 read)"), "\(args)")  // settled now, and kept so
            #expect(try reads(args).hasSuffix("(0 read)"), "\(args)")
        }
    }

    /// Into a pipe, a file that did not change is printed from its kept line's bytes
    /// (`RoomRow.writePiped`, `DiaryRow.writePiped`), any other one from its summary: both must
    /// print what the general path (`--format` with the piped template) prints, for rooms and
    /// entries with backslashes, control characters, authors, interruptions, problems, pending
    /// prompts, conflict copies and tags, read now or kept, whole or with `-n`.
    @Test func aKeptLineIsPrintedAsItsSummaryIs() throws {
        let dir = try freshVault(locale: "ko_KR", timeZone: "Asia/Seoul")
        let cache = TemporaryDirectory("listing-cache")
        let env = ["XDG_CACHE_HOME": cache.path]
        func room(_ title: String, _ attributes: String, _ text: String, below: String = "") -> String {
            "---\ntitle: \(title)\ncreated: 2026-11-01T10:00:00+09:00\n---\n\n"
                + "## 🤖 assistant · 11월 21일 <!-- 2026-11-21T09:31:07+09:00 m-01JPA3K8Z4Q\(title.utf8.count % 10) \(attributes) -->\n\n"
                + "\(text)\n\n\(promptMarker)\n\(below)"
        }
        try dir.write("rooms/plain.md", room("부산 여행", "", "해운대 근처 숙소 추천해줘"))
        try dir.write("rooms/backslash.md", room("'C:\\Users\\나'", "", "경로는 C:\\temp\\a.md 예요"))
        try dir.write("rooms/tab.md", room("Tab", "", "a\tb"))
        try dir.write("rooms/c1.md", room("C1", "", "next line \u{85} here"))
        try dir.write("rooms/author.md", room("Author", "author=ada", "10시!"))
        try dir.write("rooms/interrupted.md", room("Cut", "model=m status=interrupted", "바다가"))
        try dir.write("rooms/pending.md", room("Pending", "", "답", below: "보낼 말\n"))
        try dir.write("rooms/markers.md", room("Markers", "", "<<<<<<< HEAD\na\n=======\nb\n>>>>>>> other"))
        try dir.write("rooms/plain.sync-conflict-20261121-093000-ABCDEFG.md", room("부산 여행", "", "사본"))
        // More than a megabyte of rows: written in pieces (`Terminal.pipedChunk`), none lost or doubled.
        for k in 0..<90 {
            try dir.write("rooms/long-\(k).md", room("Long \(k)", "", String(repeating: "긴 줄 \(k) ", count: 1_600)))
        }
        try dir.write(
            "diary/2026/2026-11-21-첫눈.md",
            "---\ntitle: 첫눈\ncreated: 2026-11-21T08:00:00+09:00\ntags: [겨울, 산책]\n---\n\n눈이 왔다\n")
        try dir.write(
            "diary/2026/2026-11-20-back.md",
            "---\ntitle: 'a\\b'\ncreated: 2026-11-20T08:00:00+09:00\n---\n\nC:\\x 그리고 \u{1B}[31m\n")
        try dir.write("diary/2026/2026-11-19-broken.md", "---\ntitle: [unclosed\n---\n\n깨진 일기\n")
        try dir.write(
            "diary/2026/2026-11-21-첫눈.sync-conflict-20261121-093000-ABCDEFG.md",
            "---\ntitle: 첫눈\ncreated: 2026-11-21T08:00:00+09:00\n---\n\n사본\n")
        func same(_ args: [String], _ piped: String) throws -> String {
            let fast = try runVault(args, in: dir.path, environment: env)
            let general = try runVault(args + ["--format", piped], in: dir.path, environment: env)
            expectSuccess(fast)
            #expect(fast.stdout == general.stdout, "\(args)")
            return fast.stdout
        }
        let rooms = "%(path)%09%(last_activity)%09%(title)%09%(preview)"
        let diary = "%(path)%09%(date)%09%(title)%09%(tags)%09%(preview)"
        let first = (try same(["rooms"], rooms), try same(["diary", "list"], diary))
        #expect(first.0.contains("rooms/backslash.md\t2026-11-21T09:31:07+09:00\tC:\\Users\\나\t경로는 C:\\temp\\a.md 예요"), "\(first.0)")
        #expect(first.1.contains("diary/2026/2026-11-21-첫눈.md\t2026-11-21\t첫눈\t#겨울 #산책\t눈이 왔다"), "\(first.1)")
        #expect(first.0.utf8.count > 1 << 20 && first.0.split(separator: "\n").count == 99)
        // Settled: kept lines from now on (the first listing after the window reads the unsettled again).
        try waitUntilSettled([dir.path], window: ListingCacheWindow.listing)
        for _ in 0..<2 {
            #expect(try same(["rooms"], rooms) == first.0)
            #expect(try same(["diary", "list"], diary) == first.1)
            _ = try same(["rooms", "-n", "3"], rooms)
            _ = try same(["diary", "list", "-n", "2"], diary)
        }
        // An entry with no date of its own: dated by its file's time, or the history's (the general path).
        try dir.write("diary/no-date.md", "---\ntitle: 날짜 없음\n---\n\n언제였지\n")
        #expect(try same(["diary", "list"], diary).contains("diary/no-date.md"))
    }

    /// Runs the listing `args` with the watcher (`env`), and checks that it prints what one without
    /// it prints, with a cache of its own (`unwatchedCache`: the watched listings' cache is then
    /// only ever written by them; brought up to date by the files' stamps), and what one with no
    /// cache at all (every file read) prints. Returns the watched run and the one without it.
    func listedAlike(
        _ args: [String], _ dir: TemporaryDirectory, _ env: [String: String], unwatchedCache: TemporaryDirectory,
        step: String
    ) throws -> (watched: RunResult, unwatched: RunResult) {
        let watched = try runVault(args, in: dir.path, environment: env)
        var plain = env
        plain["VAULT_NO_WATCH"] = "1"
        plain["XDG_CACHE_HOME"] = unwatchedCache.path
        let full = try runVault(args, in: dir.path, environment: plain)
        let none = TemporaryDirectory("listing-cache-none")
        plain["XDG_CACHE_HOME"] = none.path
        let read = try runVault(args, in: dir.path, environment: plain)
        expectSuccess(watched)
        #expect(watched.stdout == full.stdout, "\(step): \(args)\n\(watched.stdout)\n\(full.stdout)")
        #expect(read.stdout == full.stdout, "\(step): \(args)\n\(read.stdout)\n\(full.stdout)")
        expectSuccess(full)
        return (watched, full)
    }

    /// With the search watcher (`WorkTreeWatcher`), a listing stamps only the files it names as
    /// changed since the last listing (its trace says how many) and lists no folder; without it,
    /// a listing finds them by every file's stamp (`StampedChanges`). After every kind of change
    /// both must print what a listing with no cache prints, and their traces say which files
    /// each found changed.
    @Test func aWatchedListingSeesWhatAFullOneSees() throws {
        let dir = try freshVault()
        let cache = TemporaryDirectory("listing-cache")
        let unwatchedCache = TemporaryDirectory("listing-cache-unwatched")
        let env = ["XDG_CACHE_HOME": cache.path, "VAULT_TRACE": "1", "VAULT_WATCH_IDLE": "60"]
        for title in ["Alpha", "Beta", "Gamma", "Delta"] {
            expectSuccess(try runVault(["room", "new", title], in: dir.path, environment: env))
            expectSuccess(try runVault(["write", title, "--body", "\(title) 일기", "--date", "2026-11-0\(title.count)"], in: dir.path, environment: env))
        }
        var traces: [String] = []
        var unwatchedTraces: [String] = []
        func same(_ step: String) throws {
            for args in [["rooms"], ["diary", "list"]] {
                let (watched, unwatched) = try listedAlike(args, dir, env, unwatchedCache: unwatchedCache, step: step)
                // A full listing's trace says how many it listed; one made from the cache, how many it kept.
                func kept(_ r: RunResult) -> [String] {
                    r.stderr.split(separator: "\n").filter { $0.contains(" listed") || $0.contains(" kept, ") }.map { step + ": " + $0 }
                }
                traces += kept(watched)
                unwatchedTraces += kept(unwatched)
            }
        }
        try same("first")
        try waitUntilSettled([dir.path], window: ListingCacheWindow.watcher)
        try same("settled")
        try same("again")
        #expect(traces.contains { $0.hasPrefix("again") && $0.contains("rooms: 4 kept, 0 read (watcher: 0 changed)") }, "\(traces)")
        #expect(traces.contains { $0.hasPrefix("again") && $0.contains("diary: 4 kept, 0 read (watcher: 0 changed)") }, "\(traces)")
        #expect(unwatchedTraces.contains { $0.hasPrefix("again") && $0.contains("rooms: 4 kept, 0 read (stamps: 0 changed)") }, "\(unwatchedTraces)")
        #expect(unwatchedTraces.contains { $0.hasPrefix("again") && $0.contains("diary: 4 kept, 0 read (stamps: 0 changed)") }, "\(unwatchedTraces)")

        // An edit in place of the same size, at once; an entry appended to; a room added by hand,
        // one removed, one renamed; files the listings leave out (hidden, a link, a hidden folder).
        let alpha = try dir.readText("rooms/alpha.md")
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: dir.path + "/rooms/alpha.md"))
        try handle.write(contentsOf: Data(alpha.replacingOccurrences(of: "title: Alpha", with: "title: Omega").utf8))
        try handle.close()
        let entry = try #require(FileManager.default.enumerator(atPath: dir.path + "/diary")?.allObjects
            .compactMap { $0 as? String }.first { $0.hasSuffix(".md") })
        try dir.write("diary/" + entry, try dir.readText("diary/" + entry) + "\n덧붙인 줄\n")
        try dir.write("rooms/hand.md", "---\ntitle: By hand\ncreated: 2026-11-20T10:00:00+09:00\n---\n")
        try FileManager.default.removeItem(atPath: dir.path + "/rooms/beta.md")
        try FileManager.default.moveItem(atPath: dir.path + "/rooms/gamma.md", toPath: dir.path + "/rooms/gamma-2.md")
        try dir.write("rooms/.hidden.md", "---\ntitle: Hidden\n---\n")
        try FileManager.default.createSymbolicLink(atPath: dir.path + "/rooms/link.md", withDestinationPath: dir.path + "/rooms/delta.md")
        try dir.write("rooms/.deeper/x.md", "---\ntitle: Deeper\n---\n")
        try same("changed")
        // Unsettled still: read again, from the cache the last listing wrote.
        try same("changed, again")
        #expect(traces.contains { $0.hasPrefix("changed") && $0.contains("rooms: 1 kept, 3 read (watcher: 6 changed)") }, "\(traces)")
        // By stamps: alpha changed, beta and gamma gone, hand and gamma-2 new (the link, the hidden
        // file and the one in a hidden folder are not listed); the appended entry changed.
        #expect(unwatchedTraces.contains { $0.hasPrefix("changed: ") && $0.contains("rooms: 1 kept, 3 read (stamps: 5 changed)") }, "\(unwatchedTraces)")
        #expect(unwatchedTraces.contains { $0.hasPrefix("changed: ") && $0.contains("diary: 3 kept, 1 read (stamps: 1 changed)") }, "\(unwatchedTraces)")
        // A new folder under diary/: the watcher cannot name its files, and says so; every file's
        // stamp then finds the new one. The appended entry is read again too if it is not settled
        // yet: whether it is depends on how long the steps since the append took (more than the
        // window on a loaded machine), so either count is right, and nothing else is.
        try dir.write("diary/2027/2027-01-01-new.md", "---\ntitle: 새해\ncreated: 2027-01-01T09:00:00+09:00\n---\n\n새해\n")
        try same("new folder")
        #expect(traces.contains {
            $0.hasPrefix("new folder")
                && ($0.contains("diary: 3 kept, 2 read (stamps: 2 changed)") || $0.contains("diary: 4 kept, 1 read (stamps: 1 changed)"))
        }, "\(traces)")
        try waitUntilSettled([dir.path], window: ListingCacheWindow.watcher)
        try same("settled again")
        try same("last")
        #expect(traces.contains { $0.hasPrefix("last") && $0.contains("diary: 5 kept, 0 read (watcher: 0 changed)") }, "\(traces)")
        // Conflict copies (marked with their original when it is here), among kept lines and files read now.
        waitForTheNextSecond(after: Date())  // the copies made in a later second than the files before them
        try dir.write(
            "rooms/delta.sync-conflict-20261121-093000-ABCDEFG.md", try dir.readText("rooms/delta.md"))
        try dir.write("diary/" + (entry as NSString).deletingPathExtension + " (conflicted copy 2026-11-21).md", "---\ntitle: 사본\n---\n\n사본\n")
        try same("copies")
        try waitUntilSettled([dir.path], window: ListingCacheWindow.watcher)
        try same("copies settled")
        try same("copies kept")
        #expect(traces.contains { $0.hasPrefix("copies kept") && $0.contains("rooms: 5 kept, 0 read") }, "\(traces)")
        // Messages marked unread by a sync, in a room whose line is kept: the row is made from its
        // summary, with the count.
        let before = try runVault(["rooms"], in: dir.path, environment: env).stdout
        UnreadMarks.add([(path: "rooms/delta.md", ids: ["m-AAAAAAAA0001", "m-AAAAAAAA0002"])], root: try Vault(root: dir.path).root)
        try same("unread")
        let marked = try runVault(["rooms"], in: dir.path, environment: env).stdout
        #expect(marked != before && marked.split(separator: "\n").count == before.split(separator: "\n").count, "\(marked)")
        #expect(traces.contains { $0.hasPrefix("unread") && $0.contains("rooms: 5 kept, 0 read") }, "\(traces)")
        // A cache changed in place, its lines whole (a title's letter): its checksum differs, so the
        // listing reads every file again and shows what they say.
        for (kind, title) in [("rooms", "Delta"), ("diary", "Gamma")] {
            let folder = cache.path + "/vault/listing"
            let file = try #require(try FileManager.default.contentsOfDirectory(atPath: folder).first { $0.hasSuffix("." + kind) })
            let text = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
            #expect(text.contains("\t+" + title + "\t"), "\(kind)")
            let changed = text.replacingOccurrences(of: "\t+" + title + "\t", with: "\t+" + title.dropLast() + "o\t")
            try changed.write(toFile: folder + "/" + file, atomically: true, encoding: .utf8)
        }
        try same("damaged in place")
        #expect(traces.contains { $0.hasPrefix("damaged in place") && $0.contains("rooms: 5 listed") }, "\(traces)")
        #expect(traces.contains { $0.hasPrefix("damaged in place") && $0.contains("diary: 6 listed") }, "\(traces)")
        // A damaged line in a cache: the listing reads every file again, as without one.
        for kind in ["rooms", "diary"] {
            let folder = cache.path + "/vault/listing"
            let file = try #require(try FileManager.default.contentsOfDirectory(atPath: folder).first { $0.hasSuffix("." + kind) })
            var lines = try String(contentsOfFile: folder + "/" + file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            lines[3] = "12x" + lines[3].dropFirst(3)
            try lines.joined(separator: "\n").write(toFile: folder + "/" + file, atomically: true, encoding: .utf8)
        }
        try same("damaged")
        #expect(traces.contains { $0.hasPrefix("damaged") && $0.contains("rooms: 5 listed") }, "\(traces)")
        #expect(traces.contains { $0.hasPrefix("damaged") && $0.contains("diary: 6 listed") }, "\(traces)")
        // Only the damaged cache made a listing the watcher answered for list every file, and only
        // the first one (no cache yet) made one without it do so.
        #expect(traces.filter { $0.contains("(watcher: not used)") }.allSatisfy { $0.hasPrefix("damaged") }, "\(traces)")
        #expect(unwatchedTraces.filter { $0.contains(" listed") }.allSatisfy { $0.hasPrefix("first") }, "\(unwatchedTraces)")
    }

    /// Rooms in folders (format 2: `rooms/<yyyy>/`): a room edited in its folder, one made in
    /// a new folder, one moved from one folder to another, and one made in `rooms/` itself (as
    /// an older clone does) are listed with the watcher, without it, and with no cache alike.
    @Test func roomsInFoldersAreListedAlikeEveryWay() throws {
        let dir = try freshVault()
        let cache = TemporaryDirectory("listing-cache")
        let unwatchedCache = TemporaryDirectory("listing-cache-unwatched")
        let env = ["XDG_CACHE_HOME": cache.path, "VAULT_TRACE": "1", "VAULT_WATCH_IDLE": "60"]
        try dir.write("vault.yml", try dir.readText("vault.yml").replacingOccurrences(of: "format: 1\n", with: "format: 2\n"))
        for title in ["Alpha", "Beta", "Gamma"] {
            expectSuccess(try runVault(["room", "new", title], in: dir.path, environment: env))
        }
        let year = try #require(try FileManager.default.contentsOfDirectory(atPath: dir.path + "/rooms").first)
        #expect(FileManager.default.fileExists(atPath: dir.path + "/rooms/\(year)/alpha.md"))
        var traces: [String] = []
        func same(_ step: String) throws {
            let (watched, unwatched) = try listedAlike(["rooms"], dir, env, unwatchedCache: unwatchedCache, step: step)
            traces += (watched.stderr + unwatched.stderr).split(separator: "\n").filter { $0.contains(" kept, ") }.map { step + ": " + $0 }
        }
        try same("first")
        try waitUntilSettled([dir.path], window: ListingCacheWindow.watcher)
        try same("settled")
        try same("again")
        #expect(traces.filter { $0.hasPrefix("again") && $0.contains("rooms: 3 kept, 0 read") }.count == 2, "\(traces)")
        let alpha = "rooms/\(year)/alpha.md"
        try dir.write(alpha, try dir.readText(alpha).replacingOccurrences(of: "title: Alpha", with: "title: Omega"))
        try same("edited in its folder")
        try dir.write("rooms/2019/old.md", "---\ntitle: Old\ncreated: 2019-02-02T10:00:00+09:00\n---\n")
        try same("a new folder")
        try FileManager.default.createDirectory(atPath: dir.path + "/rooms/2020", withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: dir.path + "/rooms/\(year)/beta.md", toPath: dir.path + "/rooms/2020/beta.md")
        try same("moved between folders")
        try dir.write("rooms/flat.md", "---\ntitle: Flat\ncreated: 2026-01-02T10:00:00+09:00\n---\n")
        try same("made in rooms/")
        try waitUntilSettled([dir.path], window: ListingCacheWindow.watcher)
        try same("settled again")
        let listed = try runVault(["rooms", "--format", "%(path)"], in: dir.path, environment: env).stdout
        #expect(Set(listed.split(separator: "\n").map(String.init)) == ["rooms/\(year)/alpha.md", "rooms/2020/beta.md", "rooms/\(year)/gamma.md", "rooms/2019/old.md", "rooms/flat.md"], "\(listed)")
    }

    /// A file name with a backslash or a tab is kept escaped in the cache: a listing the watcher
    /// answered for still knows the file by its name (one row for it after it changed, with its
    /// name as it is), as a full listing does.
    @Test func aNameWithABackslashOrATabIsKeptByItsName() throws {
        let dir = try freshVault()
        let cache = TemporaryDirectory("listing-cache")
        let unwatchedCache = TemporaryDirectory("listing-cache-unwatched")
        let env = ["XDG_CACHE_HOME": cache.path, "VAULT_TRACE": "1", "VAULT_WATCH_IDLE": "60"]
        let names = ["rooms/back\\slash.md", "rooms/tab\tname.md"]
        for (i, name) in names.enumerated() {
            try dir.write(name, "---\ntitle: 이름 \(i)\ncreated: 2026-11-2\(i)T10:00:00+09:00\n---\n")
        }
        try dir.write("diary/2026/a\\b.md", "---\ntitle: 일기\ncreated: 2026-11-20T10:00:00+09:00\n---\n\n첫 줄\n")
        func same(_ step: String) throws -> (rooms: String, traces: [String]) {
            var out = ""
            var traces: [String] = []
            for args in [["rooms", "--format", "%(path)|%(title)"], ["diary", "list", "--format", "%(path)|%(preview)"]] {
                let watched = try listedAlike(args, dir, env, unwatchedCache: unwatchedCache, step: step).watched
                if args[0] == "rooms" { out = watched.stdout }
                traces += watched.stderr.split(separator: "\n").filter { $0.contains(" kept, ") }.map(String.init)
            }
            return (out, traces)
        }
        _ = try same("first")
        try waitUntilSettled([dir.path], window: ListingCacheWindow.watcher)
        _ = try same("settled")
        #expect(try same("kept").traces.count == 2)
        try dir.write(names[0], "---\ntitle: 고친 이름\ncreated: 2026-11-20T10:00:00+09:00\n---\n")
        try dir.write("diary/2026/a\\b.md", "---\ntitle: 일기\ncreated: 2026-11-20T10:00:00+09:00\n---\n\n고친 줄\n")
        let changed = try same("changed")
        #expect(changed.rooms.components(separatedBy: "slash.md").count == 2, "\(changed.rooms)")
        #expect(changed.rooms.contains("고친 이름") && changed.traces.contains { $0.contains("rooms: 1 kept, 1 read (watcher: 1 changed)") }, "\(changed)")
        #expect(changed.traces.contains { $0.contains("diary: 0 kept, 1 read (watcher: 1 changed)") }, "\(changed)")
    }

    /// The short seeded run of `scripts/listing-soak.py` (which runs for as long as asked): a vault
    /// changed at random (edits in place, appends, saves by rename, files added, removed and renamed,
    /// conflict copies, odd names, damaged cache lines, pauses around the racy window), and after
    /// each change both listings, made with the watcher and the cache, print what they print when
    /// every file is read.
    @Test func aVaultChangedAtRandomListsAsItsFilesSay() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", Project.root + "/scripts/listing-soak.py", Project.vaultExecutable, "--seconds", "15", "--seed", "1",
            "--files", "30",
        ]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(message)")
        #expect(printed.contains("every listing as read from the files"), "\(printed)\n\(message)")
    }

    /// `vault check` reads again every file whose stamp changed: a clean room broken in place
    /// (same size, at once) is reported by the next check.
    @Test func checkSeesAFileBrokenInPlace() throws {
        let dir = try freshVault()
        let cache = TemporaryDirectory("listing-cache")
        let env = ["XDG_CACHE_HOME": cache.path]
        expectSuccess(try runVault(["room", "new", "Alpha"], in: dir.path, environment: env))
        expectSuccess(try runVault(["check"], in: dir.path, environment: env))
        try waitUntilSettled([dir.path], window: ListingCacheWindow.listing)
        let clean = try runVault(["check"], in: dir.path, environment: env)
        expectSuccess(clean)
        #expect(try FileManager.default.contentsOfDirectory(atPath: cache.path + "/vault/listing").contains { $0.hasSuffix(".check") })
        let alpha = dir.path + "/rooms/alpha.md"
        let text = try String(contentsOfFile: alpha, encoding: .utf8)
        let broken = text.replacingOccurrences(of: "created: ", with: "created! ")
        #expect(broken.utf8.count == text.utf8.count && broken != text)
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: alpha))
        try handle.write(contentsOf: Data(broken.utf8))
        try handle.close()
        let found = try runVault(["check"], in: dir.path, environment: env)
        #expect(found.status != 0, "\(found.stdout)")
        #expect(found.stdout.contains("rooms/alpha.md:"), "\(found.stdout)")
    }

    /// `vault check FILE…` reads only the files named. A few are read without the check cache
    /// (loading it costs more); many (`ListingCache.worthLoading`, a shell's `rooms/*.md`) use it
    /// and keep what it knows of the other files: either way the whole check after it reads no
    /// file again (its trace counts the files read).
    @Test func checkOfNamedFilesKeepsTheRestOfTheCache() throws {
        let dir = try freshVault()
        let cache = TemporaryDirectory("listing-cache")
        let env = ["XDG_CACHE_HOME": cache.path]
        let traced = env.merging(["VAULT_TRACE": "1"]) { $1 }
        for title in ["Alpha", "Beta", "Gamma"] {
            expectSuccess(try runVault(["room", "new", title], in: dir.path, environment: env))
        }
        try dir.write("rooms/alpha.sync-conflict-20261121-093000-ABCDEFG.md", try dir.readText("rooms/alpha.md"))
        let bulk = (0..<ListingCache.worthLoading).map { String(format: "rooms/bulk-%04d.md", $0) }
        for (n, path) in bulk.enumerated() {
            try dir.write(
                path,
                "---\ntitle: Bulk \(n)\ncreated: 2026-11-01T10:00:00+09:00\n---\n\n"
                    + "## 🧑 user · 09:31 <!-- 2026-11-21T09:31:07+09:00 m-01JPA3K8\(String(format: "%04d", n)) -->\n\n"
                    + "Question \(n)\n\n\(promptMarker)\n")
        }
        // Past the racy margin (whole seconds: a file's second < now's second - 2), so the whole
        // check's entries are trusted.
        try waitUntilSettled([dir.path], window: ListingCacheWindow.listing)
        let whole = try runVault(["check"], in: dir.path, environment: env)
        #expect(whole.stdout.hasSuffix("\(bulk.count + 4) files checked, 1 problem.\n"), "\(whole.stdout)")
        // A few named: no cache read or written.
        let named = try runVault(["check", "rooms/beta.md"], in: dir.path, environment: env)
        expectSuccess(named)
        #expect(named.stdout == "1 file checked, no problems.\n", "\(named.stdout)")
        let copy = try runVault(
            ["check", "rooms/alpha.sync-conflict-20261121-093000-ABCDEFG.md"], in: dir.path, environment: env)
        #expect(copy.status == 1, "\(copy.stdout)")
        #expect(copy.stdout.contains("rooms/alpha.sync-conflict-20261121-093000-ABCDEFG.md:1:"), "\(copy.stdout)")
        // Many named, one of them changed: that one read, the cache kept for the rest.
        try dir.write(bulk[0], try dir.readText(bulk[0]).replacingOccurrences(of: "Bulk 0", with: "Bulk zero"))
        try waitUntilSettled([dir.path], window: ListingCacheWindow.listing)
        let many = try runVault(["check"] + bulk, in: dir.path, environment: traced)
        #expect(many.stdout == "\(bulk.count) files checked, no problems.\n", "\(many.stdout)")
        #expect(many.stderr.contains("listing: stamped and summarized (1 read)"), "\(many.stderr)")
        let again = try runVault(["check"], in: dir.path, environment: traced)
        #expect(again.stdout == whole.stdout)
        #expect(again.stderr.contains("listing: stamped and summarized (0 read)"), "\(again.stderr)")
    }
}

/// The racy windows a listing's stamps must be older than to be trusted: `ListingCache.racyWindow`
/// (the cache's stamps) and `FolderStamps.racyWindow` (the watcher's, which is also the work tree
/// watcher's), in whole seconds.
enum ListingCacheWindow {
    static let listing = 2
    static let watcher = 3
}
