import Foundation
import Testing
import VaultCore
import VaultTestSupport

/// Issue #22: git's conflict markers typed into a message, markers committed by plain git and
/// pushed, and conflict copies from clones that share a machine name: nothing breaks a room,
/// and no version's text is lost.
@Suite struct MarkerFramingTests {
    let room = "rooms/독서-모임-발제문.md"
    let entry = "diary/2026/2026-11-14-단호박-수프.md"
    static let pasted = "이 충돌 좀 봐줘:\n<<<<<<< HEAD\n내 쪽\n||||||| base\n원래\n=======\n저쪽\n>>>>>>> main\n끝"

    private func plainGit(_ w: SyncWorld, _ machine: String, _ arguments: [String], date: String? = nil) throws
        -> RunResult
    {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["git", "-c", "user.name=T", "-c", "user.email=t@example.com"] + arguments
        p.currentDirectoryURL = URL(fileURLWithPath: w.path(machine))
        var env = ProcessInfo.processInfo.environment
        env["PATH"] = SyncWorld.pathWithVault
        env["LC_ALL"] = "C"
        if let date {
            env["GIT_AUTHOR_DATE"] = date
            env["GIT_COMMITTER_DATE"] = date
        }
        p.environment = env
        return try run(p)
    }

    @Test func aPastedConflictInAMessageLeavesTheRoomWhole() throws {
        let w = try SyncWorld("laptop", clones: [])
        try w.chat("laptop", room, Self.pasted)
        let text = try w.read("laptop", room)
        #expect(text.contains("\n\\<<<<<<< HEAD\n") && text.contains("\n\\=======\n"), "escaped in the file")
        try w.expectHealthy("laptop")
        let check = try w.vault("laptop", ["check"])
        #expect(check.status == 0 && !check.stdout.contains("conflict markers"), "\(check.stdout)")
        // show gives the message back as typed, whole.
        let show = try w.vault("laptop", ["show", room])
        try w.expectOK(show)
        #expect(show.stdout.contains("<<<<<<< HEAD\n내 쪽\n||||||| base\n원래\n=======\n저쪽\n>>>>>>> main"), "\(show.stdout)")
        #expect(!show.stdout.contains("\\<<<<<<<"))
        // The next turn is taken, and resolve finds nothing to do and changes nothing.
        try w.chat("laptop", room, "다음 질문")
        let before = try w.files("laptop")
        let head = try git(["rev-parse", "HEAD"], in: w.path("laptop"))
        let resolve = try w.vault("laptop", ["resolve"])
        try w.expectOK(resolve)
        #expect(resolve.stdout.contains("Nothing to resolve"), "\(resolve.stdout)")
        #expect(try w.files("laptop") == before)
        #expect(try git(["rev-parse", "HEAD"], in: w.path("laptop")) == head)
        let bodies = try RoomFile(parsing: Array(w.read("laptop", room).utf8), path: room).messages.map(\.body)
        #expect(bodies.contains(Self.pasted))
    }

    /// Two machines chatted in one room; the desktop, a plain-git clone without vault's driver,
    /// pulls, commits git's markers and pushes them.
    private func pushedMarkers(clones: [String] = ["desktop"]) throws -> (SyncWorld, want: Set<String>) {
        let w = try SyncWorld("laptop", clones: clones)
        try w.chat("laptop", room, "노트북")
        try w.expectOK(w.vault("laptop", ["sync"]))
        try w.chat("desktop", room, "데스크톱")
        let want = Set(try w.ids("laptop", room)).union(try w.ids("desktop", room))
        _ = try git(["config", "--remove-section", "merge.vault"], in: w.path("desktop"))
        _ = try plainGit(w, "desktop", ["pull", "--no-rebase", "--no-edit", "origin", "main"])
        #expect(try w.read("desktop", room).contains("<<<<<<<"))
        #expect(try plainGit(w, "desktop", ["commit", "-q", "-am", "merge"]).status == 0)
        let push = try plainGit(w, "desktop", ["push", "-q", "origin", "main"])
        #expect(push.status == 0, "\(push.stderr)")
        return (w, want)
    }

    @Test func markersPushedByPlainGitAreMergedFromTheMergesParentsOnAFastForward() throws {
        let (w, want) = try pushedMarkers()
        // The laptop has nothing new: the sync is a fast-forward, and the markers must not come in.
        let sync = try w.vault("laptop", ["sync"])
        try w.expectOK(sync)
        #expect(sync.stdout.contains("conflict markers that came in by a commit merged away"), "\(sync.stdout)")
        #expect(!(try w.read("laptop", room).contains("<<<<<<<")))
        #expect(Set(try w.ids("laptop", room)) == want)
        try w.expectHealthy("laptop")
        // The repair is pushed: the desktop gets it too.
        try w.expectOK(w.vault("desktop", ["sync"]))
        #expect(try w.files("desktop") == w.files("laptop"))
        try w.expectHealthy("desktop")
    }

    @Test func twoClonesThatResolvedCommittedMarkersApartSyncAgain() throws {
        let (w, want) = try pushedMarkers(clones: ["desktop", "tablet"])
        // What vault did before: both fast-forwarded to the markers (here with plain git).
        for machine in ["laptop", "tablet"] {
            #expect(try plainGit(w, machine, ["pull", "-q", "--ff-only", "origin", "main"]).status == 0)
            let check = try w.vault(machine, ["check"])
            #expect(check.stdout.contains("run `vault resolve`") && !check.stdout.contains("vault sync"), "\(check.stdout)")
            // What check says to run does something.
            let resolve = try w.vault(machine, ["resolve"])
            try w.expectOK(resolve)
            #expect(resolve.stdout.contains("merged away (from the two parents of"), "\(resolve.stdout)")
            #expect(Set(try w.ids(machine, room)) == want)
        }
        try w.chat("tablet", room, "태블릿")
        for machine in ["laptop", "tablet", "desktop", "laptop"] { try w.expectOK(w.vault(machine, ["sync"])) }
        #expect(try w.files("laptop") == w.files("tablet"))
        #expect(try w.files("laptop") == w.files("desktop"))
        #expect(Set(try w.ids("laptop", room)).isSuperset(of: want))
        for machine in ["laptop", "tablet", "desktop"] { try w.expectHealthy(machine) }
    }

    @Test func threeClonesWithOneMachineNameLoseNoDiaryVersion() throws {
        let w = try SyncWorld("a", clones: ["b", "c"])
        let same = ["VAULT_MACHINE": "shared"]
        // Each clone appends its own line to one entry, committed in the same second by "shared".
        for machine in ["a", "b", "c"] {
            try w.write(machine, entry, try w.read(machine, entry) + "\n\(machine)에서 쓴 줄\n")
            let commit = try plainGit(
                w, machine, ["commit", "-q", "-am", "edit\n\nVault-Machine: shared"],
                date: "2026-11-21T09:30:00+09:00")
            #expect(commit.status == 0, "\(commit.stderr)")
        }
        for machine in ["a", "b", "c", "a", "b"] {
            try w.expectOK(w.vault(machine, ["sync"], environment: same))
        }
        for machine in ["a", "b", "c"] {
            let diary = try w.files(machine).filter { $0.key.hasPrefix("diary/2026/2026-11-14-단호박-수프") }
            let text = diary.values.map { String(decoding: $0, as: UTF8.self) }.joined(separator: "\n")
            for writer in ["a", "b", "c"] {
                #expect(text.contains("\(writer)에서 쓴 줄"), "\(machine) lost \(writer)'s version: \(diary.keys.sorted())")
            }
            try w.expectHealthy(machine)
        }
        #expect(try w.files("a") == w.files("b") && w.files("b") == w.files("c"))
    }
}
