import Foundation
import Testing
import VaultCore
import VaultTestSupport

/// What people do without `vault sync`: `git pull` by hand (with vault's merge driver, and
/// without it), and other sync tools' conflict copies. `vault resolve` repairs the rest.
@Suite struct PlainGitTests {
    let room = "rooms/독서-모임-발제문.md"

    private func gitPull(_ w: SyncWorld, _ machine: String, path: String) throws -> (status: Int32, out: String) {
        try gitPull(in: w.path(machine), path: path)
    }

    private func gitPull(in folder: String, path: String, _ options: [String] = []) throws -> (status: Int32, out: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments =
            ["git", "-c", "user.name=T", "-c", "user.email=t@example.com", "pull", "--no-rebase", "--no-edit"]
            + options + ["origin", "main"]
        p.currentDirectoryURL = URL(fileURLWithPath: folder)
        var env = ProcessInfo.processInfo.environment
        env["PATH"] = path
        env["LC_ALL"] = "C"
        p.environment = env
        let r = try run(p)
        return (r.status, r.stdout + r.stderr)
    }

    @Test func gitPullByHandUsesVaultsMergeDriver() throws {
        let w = try SyncWorld()
        try w.chat("laptop", room, "노트북")
        try w.expectOK(w.vault("laptop", ["sync"]))
        try w.chat("desktop", room, "데스크톱")
        let pulled = try gitPull(w, "desktop", path: SyncWorld.pathWithVault)
        #expect(pulled.status == 0, "\(pulled.out)")
        let text = try w.read("desktop", room)
        #expect(!text.contains("<<<<<<<"))
        #expect(text.contains("노트북") && text.contains("데스크톱"))
        try w.expectHealthy("desktop")
    }

    let entry = "diary/2026/2026-11-21-첫눈.md"
    let bothMade = "rooms/같이-만든-방.md"
    let bothMadeEntry = "diary/2026/2026-11-22-같은-날.md"

    /// Both machines chatted in the room, typed text below its prompt marker and changed one line
    /// of a diary entry; the laptop synced, the desktop committed with plain git (dated 2026-01-01
    /// when `desktopEarlier`).
    private func overlappingEdits(desktopEarlier: Bool) throws -> SyncWorld {
        let w = try SyncWorld()
        let line = "집에 와서 냉동해 둔 단호박 수프를 데워 먹었다."
        for machine in ["laptop", "desktop"] {
            try w.chat(machine, room, "\(machine)의 질문")
            try w.write(machine, room, try w.read(machine, room) + "\(machine)에서 쓰다 만 메모\n")
            try w.write(machine, entry, try w.read(machine, entry).replacingOccurrences(of: line, with: "\(machine): 수프"))
            // A room and an entry both machines made under the same name (git's add/add).
            try w.expectOK(w.vault(machine, ["room", "new", "같이 만든 방"]))
            try w.chat(machine, bothMade, "\(machine)에서 만든 방의 질문")
            try w.write(machine, bothMadeEntry, "---\ntitle: 같은 날\n---\n\n\(machine)에서 쓴 일기\n")
        }
        try w.expectOK(w.vault("laptop", ["sync"]))
        let desktop = w.path("desktop")
        let commit = Process()
        commit.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        _ = try git(["add", "-A"], in: desktop)
        commit.arguments = ["git", "-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-qam", "edits"]
        commit.currentDirectoryURL = URL(fileURLWithPath: desktop)
        var env = ProcessInfo.processInfo.environment
        if desktopEarlier { env["GIT_COMMITTER_DATE"] = "2026-01-01T00:00:00+0000" }
        commit.environment = env
        #expect(try run(commit).status == 0)
        return w
    }

    /// The same diverged history merged by `vault sync` on the desktop and by `git pull` (vault's
    /// driver) on a copy of it: the same files byte for byte (the pending texts in the same order,
    /// the diary entry's conflict copy under the same name, from the losing commit), and after the
    /// pull the copy is staged, so the person's `git commit` leaves nothing untracked. Both ways
    /// round: the desktop's commit later than the laptop's, and earlier.
    @Test(arguments: [false, true]) func gitPullWritesWhatSyncWrites(desktopEarlier: Bool) throws {
        let w = try overlappingEdits(desktopEarlier: desktopEarlier)
        let desktop = w.path("desktop")
        // The copy that pulls: the desktop's folder as it is, hooks and config included.
        let copy = w.folder.path + "/desktop-pull"
        let cp = Process()
        cp.executableURL = URL(fileURLWithPath: "/bin/cp")
        cp.arguments = ["-a", desktop, copy]
        #expect(try run(cp).status == 0)

        // The pull first: the desktop's sync pushes its merge, which the pull would fast-forward to.
        let pulled = try gitPull(in: copy, path: SyncWorld.pathWithVault)
        #expect(pulled.status == 0, "\(pulled.out)")
        try w.expectOK(w.vault("desktop", ["sync"]))
        // The losing side: the earlier commit (ties: the smaller id), whose version is the copy.
        let (ours, theirs) = (
            try git(["log", "-1", "--format=%ct %H", "HEAD^1"], in: desktop),
            try git(["log", "-1", "--format=%ct %H", "HEAD^2"], in: desktop)
        )
        let stamps = [ours, theirs].map {
            $0.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: " ").map(String.init)
        }
        let theirsLater = Int(stamps[1][0])! != Int(stamps[0][0])!
            ? Int(stamps[1][0])! > Int(stamps[0][0])! : stamps[1][1] > stamps[0][1]
        let loser = (theirsLater ? stamps[0][1] : stamps[1][1]).prefix(7)
        if desktopEarlier { #expect(theirsLater, "the desktop's commit is dated earlier") }
        let synced = try w.files("desktop")
        let byGit = try SyncWorld.files(at: copy)
        #expect(synced.keys.sorted() == byGit.keys.sorted())
        for (path, bytes) in synced where byGit[path] != bytes {
            let (a, b) = (String(decoding: bytes, as: UTF8.self), String(decoding: byGit[path] ?? [], as: UTF8.self))
            Issue.record("\(path) differs:\n--- vault sync\n\(a)\n--- git pull\n\(b)")
        }
        #expect(synced.keys.contains { $0.contains(".conflict-") && $0.hasSuffix("-\(loser).md") })
        let status = try git(["status", "--porcelain"], in: copy)
        #expect(status.hasPrefix("A  ") && status.contains(loser), "the copy is staged: \(status)")
        _ = try git(
            ["-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-qm", "the conflict copy"],
            in: copy)
        #expect(try git(["status", "--porcelain"], in: copy) == "")
    }

    /// `git pull --no-commit`: no `post-merge` runs, so the `pre-commit` hook stages the copy when
    /// the person commits the merge; the merge commit holds it and nothing is left untracked.
    @Test func aPullWithoutCommitGetsItsCopyIntoTheMergeCommit() throws {
        let w = try overlappingEdits(desktopEarlier: false)
        let desktop = w.path("desktop")
        let pulled = try gitPull(in: desktop, path: SyncWorld.pathWithVault, ["--no-commit"])
        #expect(pulled.status == 0, "\(pulled.out)")
        let copy = try #require(try git(["status", "--porcelain", "-uall"], in: desktop)
            .split(separator: "\n").first { $0.contains(".conflict-") })
        #expect(copy.hasPrefix("??"), "untracked until the commit: \(copy)")
        _ = try git(["-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "--no-edit"], in: desktop)
        #expect(try git(["status", "--porcelain", "-uall"], in: desktop) == "")
        let merged = try git(["show", "--name-only", "--format=%P", "HEAD"], in: desktop)
        #expect(merged.split(separator: "\n").first?.split(separator: " ").count == 2, "a merge commit: \(merged)")
        #expect(merged.contains(".conflict-"), "the merge commit holds the copy: \(merged)")
    }

    /// `git pull --no-commit` given up with `git merge --abort`: the copies the driver saved
    /// (a conflict copy and a second room made under one name) are removed by the next vault
    /// command, their text being in the commit they came from, and a later plain `git commit`
    /// stages nothing of that merge.
    @Test func anAbortedPullLeavesNoCopiesBehind() throws {
        let w = try overlappingEdits(desktopEarlier: false)
        let desktop = w.path("desktop")
        let before = try git(["rev-parse", "HEAD"], in: desktop)
        let pulled = try gitPull(in: desktop, path: SyncWorld.pathWithVault, ["--no-commit"])
        #expect(pulled.status == 0, "\(pulled.out)")
        let untracked = try git(["-c", "core.quotePath=false", "status", "--porcelain", "-uall"], in: desktop)
            .split(separator: "\n")
            .filter { $0.hasPrefix("??") }
        #expect(untracked.contains { $0.contains(".conflict-") } && untracked.contains { $0.contains("같이-만든-방-2.md") },
            "\(untracked)")
        _ = try git(["merge", "--abort"], in: desktop)
        // A plain commit of something else: the hook stages none of the aborted merge's copies.
        try w.write("desktop", "attachments/note.txt", "메모\n")
        _ = try git(["add", "attachments/note.txt"], in: desktop)
        _ = try git(["-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-qm", "note"], in: desktop)
        let committed = try git(["show", "--name-only", "--format=", "HEAD"], in: desktop)
        #expect(committed.trimmingCharacters(in: .whitespacesAndNewlines) == "attachments/note.txt", "\(committed)")
        // The next vault command clears them; nothing of the desktop's own is touched.
        let r = try w.vault("desktop", ["status"])
        try w.expectOK(r)
        try w.expectOK(w.vault("desktop", ["tag", entry, "+눈"]))
        let status = try git(["-c", "core.quotePath=false", "status", "--porcelain", "-uall"], in: desktop)
        #expect(status == "", "\(status)")
        #expect(!FileManager.default.fileExists(atPath: desktop + "/.git/vault-merge-copies"))
        #expect(try git(["rev-list", "--count", "\(before.trimmingCharacters(in: .whitespacesAndNewlines))..HEAD"], in: desktop)
            .hasPrefix("2"))
        try w.expectOK(w.vault("desktop", ["sync"]))
        try w.expectHealthy("desktop")
    }

    /// A `post-merge` hook of the person's own stays as it is (sync does not overwrite it), and a
    /// hook vault wrote that was deleted comes back with the next sync.
    @Test func aHookOfThePersonsOwnIsLeftAlone() throws {
        let w = try SyncWorld()
        let hooks = w.path("desktop") + "/.git/hooks"
        let own = "#!/bin/sh\necho mine\n"
        try own.write(toFile: hooks + "/post-merge", atomically: true, encoding: .utf8)
        try FileManager.default.removeItem(atPath: hooks + "/pre-commit")
        try w.expectOK(w.vault("desktop", ["sync"]))
        #expect(try String(contentsOfFile: hooks + "/post-merge", encoding: .utf8) == own)
        let restored = try String(contentsOfFile: hooks + "/pre-commit", encoding: .utf8)
        #expect(restored.contains("# vault: ") && restored.contains("vault-merge-copies"))
        #expect(FileManager.default.isExecutableFile(atPath: hooks + "/pre-commit"))
    }

    /// Two machines chatted in one room; the desktop pulls with plain git.
    private func divergedWorld() throws -> (SyncWorld, want: Set<String>) {
        let w = try SyncWorld()
        try w.chat("laptop", room, "노트북")
        try w.expectOK(w.vault("laptop", ["sync"]))
        try w.chat("desktop", room, "데스크톱")
        return (w, Set(try w.ids("laptop", room)).union(try w.ids("desktop", room)))
    }

    /// `chat` and `write` during an unfinished merge refuse, change nothing, and advise `vault
    /// resolve`: never `git commit`, which would commit git's half-merged files.
    @Test func writingDuringAnUnfinishedMergeAdvisesResolve() throws {
        let (w, _) = try divergedWorld()
        let pulled = try gitPull(w, "desktop", path: "/usr/bin:/bin")
        #expect(pulled.status != 0)
        let files = try w.files("desktop")
        let head = try git(["rev-parse", "HEAD"], in: w.path("desktop"))
        for arguments in [
            ["chat", "rooms/부산-여행.md", "병합 중에 쓴 말", "--provider", "offline"],
            ["write", "병합 중에 쓴 글", "--body", "본문"],
        ] {
            let r = try w.vault("desktop", arguments)
            #expect(r.status != 0, "\(arguments)")
            #expect(r.stderr.contains("`vault resolve` finishes it"), "\(arguments): \(r.stderr)")
            #expect(!r.stderr.contains("git commit"), "\(arguments): \(r.stderr)")
            #expect(try w.files("desktop") == files, "\(arguments) changed a file")
            #expect(try git(["rev-parse", "HEAD"], in: w.path("desktop")) == head)
        }
        // The advice works.
        try w.expectOK(w.vault("desktop", ["resolve"]))
        try w.chat("desktop", "rooms/부산-여행.md", "병합이 끝나고 쓴 말")
    }

    /// Markers in a diary entry with no ancestor: both sides' text is kept in the entry, and
    /// no line of `vault resolve` points to a conflict copy it never made.
    @Test func markersInAnEntryWithNoAncestorAreResolvedWithTruthfulNotes() throws {
        let w = try SyncWorld(clones: [])
        let entry = "diary/2026/2026-11-21-첫눈.md"
        let text = try w.read("laptop", entry)
        try w.write(
            "laptop", entry,
            text.replacingOccurrences(
                of: "아침에 첫눈이 왔다.", with: "<<<<<<< HEAD\n아침에 첫눈이 펑펑 왔다.\n=======\n새벽에 첫눈이 조금 왔다.\n>>>>>>> origin/main\n"))
        let r = try w.vault("laptop", ["resolve"])
        try w.expectOK(r)
        let merged = try w.read("laptop", entry)
        #expect(merged.contains("펑펑 왔다") && merged.contains("새벽에 첫눈이 조금 왔다") && !merged.contains("<<<<<<<"))
        #expect(try w.files("laptop").keys.allSatisfy { ConflictCopy.original(of: $0) == nil })
        #expect(!r.stdout.contains("in the conflict copy"), "\(r.stdout)")
        #expect(r.stdout.contains("the other version's text is added at the end"), "\(r.stdout)")
    }

    @Test func aPullWithTheDriverMissingFromThePathIsFinishedByResolve() throws {
        let (w, want) = try divergedWorld()
        // The driver is configured but `vault` is not on the PATH: git stops, the room unmerged.
        let pulled = try gitPull(w, "desktop", path: "/usr/bin:/bin")
        #expect(pulled.status != 0)
        #expect(FileManager.default.fileExists(atPath: w.path("desktop") + "/.git/MERGE_HEAD"))
        let check = try w.vault("desktop", ["check"])
        #expect(check.status == 1 && check.stdout.contains("in the middle of a git merge"), "\(check.stdout)")
        let status = try w.vault("desktop", ["status"])
        #expect(
            status.stdout.contains("unfinished merge") && status.stdout.contains("conflicted: \(room)"),
            "\(status.stdout)")
        let r = try w.vault("desktop", ["resolve"])
        try w.expectOK(r)
        #expect(Set(try w.ids("desktop", room)) == want)
        #expect(try git(["log", "-1", "--format=%P"], in: w.path("desktop")).split(separator: " ").count == 2)
        try w.expectHealthy("desktop")
        try w.expectOK(w.vault("desktop", ["sync"]))
        try w.expectOK(w.vault("laptop", ["sync"]))
        #expect(try w.files("laptop") == w.files("desktop"))
    }

    @Test func markersFromACloneWithoutTheDriverAreFoundAndResolved() throws {
        let (w, want) = try divergedWorld()
        // A clone made by plain git has no `[merge "vault"]`: git's line merge writes markers.
        _ = try git(["config", "--remove-section", "merge.vault"], in: w.path("desktop"))
        let pulled = try gitPull(w, "desktop", path: SyncWorld.pathWithVault)
        #expect(pulled.status != 0)
        let text = try w.read("desktop", room)
        let markerLine = try #require(
            text.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.hasPrefix("<<<<<<<") })
        let check = try w.vault("desktop", ["check"])
        #expect(check.status == 1)
        #expect(check.stdout.contains("\(room):\(markerLine + 1): git left conflict markers"), "\(check.stdout)")
        let show = try w.vault("desktop", ["show", room])
        try w.expectOK(show)
        #expect(!show.stdout.contains("<<<<<<<") && !show.stdout.contains(">>>>>>>"))
        #expect(show.stderr.contains("conflict markers"))
        let rooms = try w.vault("desktop", ["rooms"])
        let line = rooms.stdout.split(separator: "\n").first { $0.contains("독서-모임-발제문") }
        #expect(line?.contains(ListingWords.of("ko_KR").markers) == true, "\(rooms.stdout)")
        #expect(!rooms.stdout.contains("<<<<<<<") && !rooms.stdout.contains(">>>>>>>"))
        let chat = try w.vault("desktop", ["chat", room, "마커 위에 쓰기", "--provider", "offline"])
        #expect(chat.status == 1, "a room with markers is not written to")
        #expect(try w.read("desktop", room) == text)
        try w.expectOK(w.vault("desktop", ["resolve"]))
        #expect(Set(try w.ids("desktop", room)) == want)
        #expect(!(try w.read("desktop", room).contains("<<<<<<<")))
        try w.expectHealthy("desktop")
    }

    @Test func committedConflictMarkersAreMergedBySync() throws {
        let (w, want) = try divergedWorld()
        _ = try git(["config", "--remove-section", "merge.vault"], in: w.path("desktop"))
        _ = try gitPull(w, "desktop", path: SyncWorld.pathWithVault)
        // The person commits the markers with plain git (what obsidian-git users end up doing).
        _ = try git(
            ["-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "-am", "merge"],
            in: w.path("desktop"))
        #expect(try w.read("desktop", room).contains("<<<<<<<"))
        try w.expectOK(w.vault("desktop", ["sync"]))
        #expect(Set(try w.ids("desktop", room)) == want)
        try w.expectHealthy("desktop")
    }

    @Test func aSyncthingConflictCopyIsFoldedIntoItsOriginal() throws {
        let w = try SyncWorld(clones: [])
        let original = try w.read("laptop", room)
        try w.chat("laptop", room, "여기서 한 대화")
        // Syncthing saved the other device's version (with its own new turn) next to the room.
        let copy = "rooms/독서-모임-발제문.sync-conflict-20261123-101500-ABCDEFG.md"
        let marker = try #require(original.range(of: "<!-- vault:prompt"))
        let other = original.replacingCharacters(in: marker.lowerBound..<marker.lowerBound, with: """
            ## 🧑 user · 다른 기기 <!-- 2026-11-23T10:15:00+09:00 m-OTHERDEVICE01 -->

            다른 기기에서 한 질문


            """)
        try w.write("laptop", copy, other)
        let check = try w.vault("laptop", ["check"])
        #expect(check.stdout.contains(copy), "check lists the copy: \(check.stdout)")
        let r = try w.vault("laptop", ["resolve"])
        try w.expectOK(r)
        #expect(!FileManager.default.fileExists(atPath: w.path("laptop") + "/" + copy))
        let text = try w.read("laptop", room)
        #expect(text.contains("다른 기기에서 한 질문") && text.contains("여기서 한 대화"))
        #expect(try git(["log", "-1", "--format=%s"], in: w.path("laptop")).hasPrefix("resolve: "))
        try w.expectHealthy("laptop")
    }
}
