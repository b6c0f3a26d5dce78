import Foundation
import Testing
import VaultCore
import VaultTestSupport

/// What people do without `vault sync`: `git pull` by hand (with vault's merge driver, and
/// without it), and other sync tools' conflict copies. `vault resolve` repairs the rest.
@Suite struct PlainGitTests {
    let room = "rooms/독서-모임-발제문.md"

    private func gitPull(_ w: SyncWorld, _ machine: String, path: String) throws -> (status: Int32, out: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = [
            "git", "-c", "user.name=T", "-c", "user.email=t@example.com", "pull", "--no-rebase", "--no-edit", "origin",
            "main",
        ]
        p.currentDirectoryURL = URL(fileURLWithPath: w.path(machine))
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
        #expect(line?.contains("git left conflict markers: run `vault resolve`") == true, "\(rooms.stdout)")
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
