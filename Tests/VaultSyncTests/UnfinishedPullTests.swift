import Foundation
import Testing
import VaultCore
import VaultTestSupport

/// A `git pull` by hand that git could not finish (modify/delete, rename/rename, rename/delete,
/// markers), and what the person did next: typed into the conflicted file, ran `vault status`,
/// then `vault sync` or `vault resolve`. Nothing they typed is lost, the way out works, and the
/// merge is the one `vault sync` alone makes of the same two commits (the same tree).
@Suite struct UnfinishedPullTests {
    let room = "rooms/독서-모임-발제문.md"

    /// `git pull` as a person runs it, with `vault` on the PATH (its merge driver) or not.
    private func gitPull(_ w: SyncWorld, _ machine: String, vaultOnPath: Bool = true) throws -> (status: Int32, out: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["git", "-c", "user.name=Desk", "-c", "user.email=desk@example.com", "pull", "--no-rebase",
            "--no-edit", "origin", "main"]
        p.currentDirectoryURL = URL(fileURLWithPath: w.path(machine))
        var env = ProcessInfo.processInfo.environment
        env["PATH"] = vaultOnPath ? SyncWorld.pathWithVault : "/usr/bin:/bin"
        env["LC_ALL"] = "C"
        p.environment = env
        let r = try run(p)
        return (r.status, r.stdout + r.stderr)
    }

    private func gitCommitAll(_ w: SyncWorld, _ machine: String, _ message: String) throws {
        _ = try git(["add", "-A"], in: w.path(machine))
        _ = try git(["-c", "user.name=Desk", "-c", "user.email=desk@example.com", "commit", "-qm", message],
            in: w.path(machine))
    }

    /// A message as a person types it in their editor, above the prompt marker, and a question
    /// below it: each with a token found nowhere else.
    private func typeInEditor(_ w: SyncWorld, _ machine: String, _ path: String, token: String) throws {
        var text = try w.read(machine, path)
        let block = "## 🧑 user · 손으로 <!-- 2026-11-30T21:00:00+09:00 m-HANDTYPED\(token.suffix(4)) -->\n\n"
            + "병합 중에 손으로 쓴 말 \(token)\n\n"
        if let marker = text.range(of: "<!-- vault:prompt") {
            text.insert(contentsOf: block, at: marker.lowerBound)
            text += "\n프롬프트 아래에 쓴 질문 \(token)-pending\n"
        } else {
            text += "\n" + block
        }
        try w.write(machine, path, text)
    }

    /// The bare remote and a machine's folder copied as they are, the copy's `origin` the copied
    /// remote: what `vault sync` alone makes of the same commits, without touching the world.
    private func syncAloneOnACopy(_ w: SyncWorld, _ machine: String) throws -> (tree: String, files: [String: [UInt8]]) {
        let copy = w.folder.path + "/\(machine)-alone"
        let remote = w.folder.path + "/remote-alone.git"
        for (from, to) in [(w.path(machine), copy), (w.remote, remote)] {
            let cp = Process()
            cp.executableURL = URL(fileURLWithPath: "/bin/cp")
            cp.arguments = ["-a", from, to]
            #expect(try run(cp).status == 0)
        }
        _ = try git(["remote", "set-url", "origin", remote], in: copy)
        var env = w.environment
        env["VAULT_MACHINE"] = machine
        env["PATH"] = SyncWorld.pathWithVault
        try w.expectOK(runVault(["sync"], in: copy, environment: env))
        return (try git(["rev-parse", "HEAD^{tree}"], in: copy), try SyncWorld.files(at: copy))
    }

    /// Each token in exactly one person's message (the offline provider's replies quote the
    /// question) of all the machine's rooms and volumes, and no message id twice in a room.
    private func expectOnce(_ w: SyncWorld, _ machine: String, _ tokens: [String], anyRole: Bool = false,
        sourceLocation: SourceLocation = #_sourceLocation) throws {
        var bodies: [String] = []
        var idsByRoom: [String: [String]] = [:]
        for (path, bytes) in try w.files(machine)
        where (path.hasPrefix("rooms/") || path.hasPrefix("volumes/")) && path.hasSuffix(".md") {
            let room = try RoomFile(parsing: bytes, path: path)
            bodies += room.messages.filter { anyRole || $0.role == .user }.map(\.body)
            idsByRoom[VaultPath.room(ofVolume: path) ?? path, default: []] += room.messages.map(\.id)
        }
        for token in tokens {
            #expect(bodies.filter { $0.contains(token) }.count == 1, "\(token) on \(machine)", sourceLocation: sourceLocation)
        }
        for (room, ids) in idsByRoom {
            #expect(ids.count == Set(ids).count, "\(room) on \(machine) has a message twice", sourceLocation: sourceLocation)
        }
    }

    /// A room removed on the laptop; on the desktop a chat turn in it, `git pull` (modify/delete),
    /// and a message typed into the conflicted file: `vault sync` (or `vault resolve`) keeps the
    /// room and what was typed, commits it as the person's edit after the merge, and sends it.
    @Test(arguments: ["sync", "resolve"]) func textTypedDuringAnUnfinishedPullIsKept(command: String) throws {
        let w = try SyncWorld()
        try w.expectOK(w.vault("laptop", ["rm", room, "--yes"]))
        try w.expectOK(w.vault("laptop", ["sync"]))
        try w.chat("desktop", room, "지우기 전에 한 질문")
        let pulled = try gitPull(w, "desktop")
        #expect(pulled.status != 0 && pulled.out.contains("CONFLICT (modify/delete)"), "\(pulled.out)")
        try typeInEditor(w, "desktop", room, token: "TYPED-\(command)")
        let status = try w.vault("desktop", ["status"])
        #expect(status.stdout.contains("unfinished merge") && status.stdout.contains("vault resolve"), "\(status.stdout)")
        let r = try w.vault("desktop", [command])
        try w.expectOK(r)
        let text = try w.read("desktop", room)
        #expect(text.contains("병합 중에 손으로 쓴 말 TYPED-\(command)"), "\(text)")
        #expect(text.contains("TYPED-\(command)-pending"), "\(text)")
        #expect(text.contains("지우기 전에 한 질문"))
        // Committed: the merge with both parents, then the person's edit of its own.
        let log = try git(["log", "-2", "--format=%P|%s"], in: w.path("desktop")).split(separator: "\n")
        #expect(log.count == 2 && log[0].contains("|edit: "), "the person's edit is a commit of its own: \(log)")
        #expect(log[1].split(separator: "|")[0].split(separator: " ").count == 2, "the merge has two parents: \(log)")
        #expect(try git(["grep", "-c", "TYPED-\(command)", "HEAD", "--", room], in: w.path("desktop")).contains(":2"))
        try w.expectHealthy("desktop")
        if command == "resolve" { try w.expectOK(w.vault("desktop", ["sync"])) }
        try w.expectOK(w.vault("laptop", ["sync"]))
        #expect(try w.read("laptop", room).contains("병합 중에 손으로 쓴 말 TYPED-\(command)"))
        try expectOnce(w, "laptop", ["병합 중에 손으로 쓴 말 TYPED-\(command)", "지우기 전에 한 질문"])
        #expect(try w.read("laptop", room).contains("TYPED-\(command)-pending"), "the question below the marker travels")
    }

    /// Git's markers (no merge driver in a plain-git clone) with a message typed between them,
    /// inside one side's part: kept, and every message of both sides once.
    @Test func textTypedBetweenMarkersIsKept() throws {
        let w = try SyncWorld()
        try w.chat("laptop", room, "노트북의 질문")
        try w.expectOK(w.vault("laptop", ["sync"]))
        try w.chat("desktop", room, "데스크톱의 질문")
        _ = try git(["config", "--remove-section", "merge.vault"], in: w.path("desktop"))
        let pulled = try gitPull(w, "desktop")
        #expect(pulled.status != 0, "\(pulled.out)")
        var text = try w.read("desktop", room)
        let separator = try #require(text.range(of: "\n=======\n"))
        text.insert(contentsOf: "\n마커 사이에 쓴 말 BETWEEN-MARKERS\n", at: separator.lowerBound)
        try w.write("desktop", room, text)
        try w.expectOK(w.vault("desktop", ["sync"]))
        let merged = try w.read("desktop", room)
        #expect(!merged.contains("<<<<<<<") && merged.contains("BETWEEN-MARKERS"), "\(merged)")
        try expectOnce(w, "desktop", ["노트북의 질문", "데스크톱의 질문"])
        try expectOnce(w, "desktop", ["BETWEEN-MARKERS"], anyRole: true)
        try w.expectHealthy("desktop")
    }

    /// One room renamed differently on both machines (`mv` and `git mv`), and a `git pull` that
    /// stops on rename/rename: `vault status` names the way out, `vault resolve` takes it, and
    /// the result is the tree `vault sync` alone makes of the same commits: one room, every
    /// message once.
    @Test(arguments: [false, true]) func renameRenameAfterAPullIsFinished(withAnEdit: Bool) throws {
        let w = try SyncWorld()
        let messages = try w.ids("laptop", room)
        let laptopName = "rooms/발제문-노트북.md"
        let desktopName = "rooms/발제문-데스크톱.md"
        try FileManager.default.moveItem(atPath: w.path("laptop") + "/" + room, toPath: w.path("laptop") + "/" + laptopName)
        try w.expectOK(w.vault("laptop", ["sync"]))
        _ = try git(["mv", room, desktopName], in: w.path("desktop"))
        try gitCommitAll(w, "desktop", "rename by hand")
        if withAnEdit { try w.chat("desktop", desktopName, "이름을 바꾼 뒤의 질문") }
        let alone = try syncAloneOnACopy(w, "desktop")
        let pulled = try gitPull(w, "desktop")
        #expect(pulled.status != 0 && pulled.out.contains("CONFLICT (rename/"), "\(pulled.out)")
        let status = try w.vault("desktop", ["status"])
        #expect(status.stdout.contains("vault resolve"), "\(status.stdout)")
        try w.expectOK(w.vault("desktop", ["resolve"]))
        #expect(try git(["rev-parse", "HEAD^{tree}"], in: w.path("desktop")) == alone.tree)
        #expect(try w.files("desktop") == alone.files)
        let rooms = try w.files("desktop").keys.filter { $0.hasPrefix("rooms/발제문-") }
        #expect(rooms.count == 1, "one room: \(rooms)")
        let kept = try #require(rooms.first)
        let ids = try w.ids("desktop", kept)
        #expect(Set(messages).isSubset(of: Set(ids)) && ids.count == Set(ids).count, "every message once")
        #expect(!FileManager.default.fileExists(atPath: w.path("desktop") + "/" + room))
        try w.expectHealthy("desktop")
        try w.expectOK(w.vault("desktop", ["sync"]))
        try w.expectOK(w.vault("laptop", ["sync"]))
        #expect(try w.files("laptop") == w.files("desktop"))
    }

    /// The same renames finished by `vault sync` instead (what `vault status` also offers).
    @Test func renameRenameAfterAPullIsFinishedBySync() throws {
        let w = try SyncWorld()
        try FileManager.default.moveItem(
            atPath: w.path("laptop") + "/" + room, toPath: w.path("laptop") + "/rooms/발제문-노트북.md")
        try w.expectOK(w.vault("laptop", ["sync"]))
        _ = try git(["mv", room, "rooms/발제문-데스크톱.md"], in: w.path("desktop"))
        try gitCommitAll(w, "desktop", "rename by hand")
        try w.chat("desktop", "rooms/발제문-데스크톱.md", "이름을 바꾼 뒤의 질문")
        let alone = try syncAloneOnACopy(w, "desktop")
        #expect(try gitPull(w, "desktop").status != 0)
        try w.expectOK(w.vault("desktop", ["sync"]))
        #expect(try w.files("desktop") == alone.files)
        #expect(try w.files("desktop").keys.filter { $0.hasPrefix("rooms/발제문-") }.count == 1)
        try w.expectHealthy("desktop")
    }

    /// A diary entry renamed differently on both machines (`mv`, `git mv`) and edited on one, and
    /// a `git pull` that stops on rename/rename: `vault sync` finishes it with the tree `vault sync`
    /// alone makes of the same commits, one entry with the edit, `git status` clean.
    @Test func anEntryRenamedOnBothSidesAfterAPullIsFinishedAsSyncAloneWould() throws {
        let w = try SyncWorld()
        let entry = "diary/2026/2026-08-15-광복절-자전거.md"
        try FileManager.default.moveItem(
            atPath: w.path("laptop") + "/" + entry, toPath: w.path("laptop") + "/diary/2026/2026-08-15-자전거-노트북.md")
        try w.expectOK(w.vault("laptop", ["sync"]))
        let theirs = "diary/2026/2026-08-15-자전거-데스크톱.md"
        _ = try git(["mv", entry, theirs], in: w.path("desktop"))
        try w.write("desktop", theirs, try w.read("desktop", theirs) + "\n데스크톱에서 덧붙인 줄 ENTRY-EDIT\n")
        try gitCommitAll(w, "desktop", "rename and edit by hand")
        let alone = try syncAloneOnACopy(w, "desktop")
        let pulled = try gitPull(w, "desktop")
        #expect(pulled.status != 0 && pulled.out.contains("CONFLICT (rename/rename)"), "\(pulled.out)")
        try w.expectOK(w.vault("desktop", ["sync"]))
        #expect(try w.files("desktop") == alone.files)
        let entries = try w.files("desktop").filter { $0.key.hasPrefix("diary/2026/2026-08-15-") }
        #expect(entries.count == 1, "\(entries.keys.sorted())")
        #expect(entries.values.contains { String(decoding: $0, as: UTF8.self).contains("ENTRY-EDIT") })
        #expect(try git(["status", "--porcelain"], in: w.path("desktop")) == "")
        try w.expectHealthy("desktop")
    }

    /// A diary entry deleted by hand on one machine and edited on the other, and a `git pull`
    /// that stops on modify/delete: `vault sync` finishes it as sync alone does (an edit beats a
    /// deletion), the edit kept, `git status` clean.
    @Test func anEntryEditedHereAndDeletedThereAfterAPullKeepsTheEdit() throws {
        let w = try SyncWorld()
        let entry = "diary/2026/2026-08-15-광복절-자전거.md"
        try FileManager.default.removeItem(atPath: w.path("laptop") + "/" + entry)
        try w.expectOK(w.vault("laptop", ["sync"]))
        try w.write("desktop", entry, try w.read("desktop", entry) + "\n지우기 전에 덧붙인 줄 KEPT-EDIT\n")
        try gitCommitAll(w, "desktop", "edit by hand")
        let alone = try syncAloneOnACopy(w, "desktop")
        let pulled = try gitPull(w, "desktop")
        #expect(pulled.status != 0 && pulled.out.contains("CONFLICT (modify/delete)"), "\(pulled.out)")
        try w.expectOK(w.vault("desktop", ["sync"]))
        #expect(try w.files("desktop") == alone.files)
        #expect(try w.read("desktop", entry).contains("KEPT-EDIT"))
        #expect(try git(["status", "--porcelain"], in: w.path("desktop")) == "")
        try w.expectHealthy("desktop")
    }

    /// A rename on one machine (`git mv`) and a removal on the other (`vault rm`): the pull
    /// stops on rename/delete; `vault sync` finishes it as sync alone does: a rename is no edit,
    /// so the removal wins (`vault restore` brings the room back), and no copy of it is left.
    @Test func renameDeleteAfterAPullKeepsOneRoom() throws {
        let w = try SyncWorld()
        let messages = try w.ids("laptop", room)
        let renamed = "rooms/발제문-새-이름.md"
        _ = try git(["mv", room, renamed], in: w.path("laptop"))
        try gitCommitAll(w, "laptop", "rename")
        try w.expectOK(w.vault("laptop", ["sync"]))
        try w.expectOK(w.vault("desktop", ["rm", room, "--yes"]))
        let alone = try syncAloneOnACopy(w, "desktop")
        let pulled = try gitPull(w, "desktop")
        #expect(pulled.status != 0 && pulled.out.contains("CONFLICT (rename/delete)"), "\(pulled.out)")
        try w.expectOK(w.vault("desktop", ["sync"]))
        #expect(try w.files("desktop") == alone.files)
        for path in [room, renamed] {
            #expect(!FileManager.default.fileExists(atPath: w.path("desktop") + "/" + path), "\(path) is gone")
        }
        let restored = try w.vault("desktop", ["restore", room])
        try w.expectOK(restored)
        #expect(try w.ids("desktop", room) == messages)
        try expectOnce(w, "desktop", [])
        try w.expectHealthy("desktop")
    }

    /// A room and a diary entry made under one name on both machines, pulled by a clone
    /// without vault's merge driver: git stops on add/add with markers in both; `vault sync`
    /// makes the tree it makes alone of the same commits (two rooms kept apart, the entry merged or its
    /// other version a conflict copy), every message once.
    @Test func addAddWithoutTheDriverIsFinishedAsSyncAloneWould() throws {
        let w = try SyncWorld()
        let entry = "diary/2026/2026-11-22-같은-날.md"
        for machine in ["laptop", "desktop"] {
            try w.expectOK(w.vault(machine, ["room", "new", "같이 만든 방"]))
            try w.chat(machine, "rooms/같이-만든-방.md", "\(machine)에서 만든 방의 질문")
            try w.write(machine, entry, "---\ntitle: 같은 날\n---\n\n\(machine)에서 쓴 일기\n")
        }
        try w.expectOK(w.vault("laptop", ["sync"]))
        _ = try git(["config", "--remove-section", "merge.vault"], in: w.path("desktop"))
        try gitCommitAll(w, "desktop", "made by hand")
        let alone = try syncAloneOnACopy(w, "desktop")
        let pulled = try gitPull(w, "desktop")
        #expect(pulled.status != 0 && pulled.out.contains("CONFLICT (add/add)"), "\(pulled.out)")
        // `vault resolve` would also fold the entry's conflict copy in (its own job); `vault sync`
        // finishes the merge and stops there, as sync alone does.
        try w.expectOK(w.vault("desktop", ["sync"]))
        #expect(try git(["rev-parse", "HEAD^{tree}"], in: w.path("desktop")) == alone.tree)
        #expect(try w.files("desktop") == alone.files)
        try expectOnce(w, "desktop", ["laptop에서 만든 방의 질문", "desktop에서 만든 방의 질문"])
        let texts = try w.files("desktop").filter { $0.key.hasPrefix("diary/") }.values.map { String(decoding: $0, as: UTF8.self) }
        for machine in ["laptop", "desktop"] {
            #expect(texts.contains { $0.contains("\(machine)에서 쓴 일기") }, "\(machine)'s entry text kept")
        }
        try w.expectHealthy("desktop")
    }

    /// `git pull` without vault on the PATH: git stops, leaving the desktop's version of the
    /// room with no markers; the person commits it with `git commit -a`, dropping the laptop's
    /// message, and pushes with plain git (or runs `vault sync`). The laptop's next sync finds the
    /// merge that dropped its message and gives it back; the report says so and counts only
    /// the desktop's message as new.
    @Test(arguments: [false, true]) func aMergeThatDroppedAMessageIsRepaired(desktopSyncs: Bool) throws {
        let w = try SyncWorld()
        try w.chat("laptop", room, "노트북에서 한 질문 LAPTOP-ONLY")
        try w.expectOK(w.vault("laptop", ["sync"]))
        try w.chat("desktop", room, "데스크톱에서 한 질문 DESKTOP-ONLY")
        let pulled = try gitPull(w, "desktop", vaultOnPath: false)
        #expect(pulled.status != 0, "\(pulled.out)")
        #expect(!(try w.read("desktop", room)).contains("LAPTOP-ONLY"), "git left the desktop's version")
        _ = try git(["-c", "user.name=Desk", "-c", "user.email=desk@example.com", "commit", "-qa", "--no-edit"],
            in: w.path("desktop"))
        if desktopSyncs {
            let r = try w.vault("desktop", ["sync"])
            try w.expectOK(r)
            #expect(r.stdout.contains("dropped are back"), "\(r.stdout)")
            try expectOnce(w, "desktop", ["LAPTOP-ONLY", "DESKTOP-ONLY"])
        } else {
            _ = try git(["push", "-q", "origin", "main"], in: w.path("desktop"))
        }
        let r = try w.vault("laptop", ["sync"])
        try w.expectOK(r)
        try expectOnce(w, "laptop", ["LAPTOP-ONLY", "DESKTOP-ONLY"])
        if !desktopSyncs {
            #expect(r.stdout.contains("dropped are back"), "the report says what came back: \(r.stdout)")
            #expect(try git(["log", "-1", "--format=%s"], in: w.path("laptop")).hasPrefix("sync: restore"))
        }
        try w.expectHealthy("laptop")
        // The repair travels: the desktop gets the message back too, once.
        try w.expectOK(w.vault("desktop", ["sync"]))
        try expectOnce(w, "desktop", ["LAPTOP-ONLY", "DESKTOP-ONLY"])
        #expect(try w.files("laptop") == w.files("desktop"))
    }

    /// Format 3 with volumes of a few kilobytes: both machines talk in one room offline and each
    /// rolls it over at its own points, writing the same volume numbers with other messages in
    /// them; a `git pull` without vault on the PATH (no merge driver) stops with the volumes
    /// conflicted (add/add, modify/modify). `vault status` names the way out; `vault resolve` or
    /// `vault sync` finishes it: every message once, `git status` clean, the tree `vault sync`
    /// alone makes of the same commits.
    @Test(arguments: ["sync", "resolve"]) func aVolumeConflictedByAPullIsFinishedAsSyncAloneWould(command: String) throws {
        let w = try SyncWorld()
        w.environment = ["VAULT_TEST_VOLUME_SIZES": "2048,512,1024"]
        try w.expectOK(w.vault("laptop", ["migrate"]))
        try w.expectOK(w.vault("laptop", ["sync"]))
        try w.expectOK(w.vault("desktop", ["sync"]))
        let name = "김치찌개-레시피"
        let room = try #require(try w.files("desktop").keys.first { $0.hasPrefix("rooms/") && $0.hasSuffix("/\(name).md") })
        let folder = VaultPath.volumeFolder(ofRoom: room)
        var tokens: [String] = []
        for (machine, turns) in [("laptop", 6), ("desktop", 5)] {
            for k in 1...turns {
                tokens.append("\(machine)-VOLUME-TURN-\(k)")
                try w.chat(machine, name, "\(machine)에서 한 질문 \(machine)-VOLUME-TURN-\(k)")
            }
        }
        try w.expectOK(w.vault("laptop", ["sync"]))
        let alone = try syncAloneOnACopy(w, "desktop")
        let pulled = try gitPull(w, "desktop", vaultOnPath: false)
        #expect(pulled.status != 0, "\(pulled.out)")
        let unmerged = try git(["-c", "core.quotePath=false", "diff", "--name-only", "--diff-filter=U"], in: w.path("desktop"))
            .split(separator: "\n").map(String.init)
        #expect(unmerged.contains { $0.hasPrefix(folder + "/") }, "a volume left conflicted: \(unmerged) \(pulled.out)")
        let status = try w.vault("desktop", ["status"])
        #expect(status.stdout.contains("unfinished merge") && status.stdout.contains("vault resolve"), "\(status.stdout)")
        try w.expectOK(w.vault("desktop", [command]))
        #expect(try git(["rev-parse", "HEAD^{tree}"], in: w.path("desktop")) == alone.tree)
        #expect(try w.files("desktop") == alone.files)
        try expectOnce(w, "desktop", tokens)
        try w.expectHealthy("desktop")
        try w.expectOK(w.vault("desktop", ["sync"]))
        try w.expectOK(w.vault("laptop", ["sync"]))
        #expect(try w.files("laptop") == (try w.files("desktop")))
        try expectOnce(w, "laptop", tokens)
        try w.expectHealthy("laptop")
    }

    /// A message deleted by hand in an ordinary commit (`git commit -a`, no merge) is a deletion
    /// the person asked for: it stays deleted through syncs both ways, even where a merge plain
    /// git made later has that message on one parent; the message that merge dropped (the
    /// laptop's turn, lost by `git pull` without vault and `git commit -a`) comes back.
    @Test func aMessageDeletedByHandStaysDeletedWhileOneAMergeDroppedComesBack() throws {
        let w = try SyncWorld()
        try w.chat("laptop", room, "지울 질문 DELETED-BY-HAND")
        try w.expectOK(w.vault("laptop", ["sync"]))
        try w.expectOK(w.vault("desktop", ["sync"]))
        // The desktop deletes the question's message (its header and body) in an editor and commits it.
        let text = try w.read("desktop", room)
        let parsed = try RoomFile(parsing: Array(text.utf8), path: room)
        let doomed = try #require(parsed.messages.first { $0.body.contains("DELETED-BY-HAND") && $0.role == .user })
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let start = try #require(lines.firstIndex { $0.hasPrefix("## ") && $0.contains(doomed.id) })
        let end = lines[(start + 1)...].firstIndex { $0.hasPrefix("## ") } ?? lines.endIndex
        try w.write("desktop", room, (lines[..<start] + lines[end...]).joined(separator: "\n"))
        #expect(!(try w.ids("desktop", room)).contains(doomed.id))
        _ = try git(["-c", "user.name=Desk", "-c", "user.email=desk@example.com", "commit", "-qam", "deleted by hand"],
            in: w.path("desktop"))
        // Meanwhile the laptop talks and syncs; the desktop talks, pulls with plain git (no
        // driver: its own version of the room kept), commits the merge and pushes it.
        try w.chat("laptop", room, "노트북에서 한 질문 LAPTOP-ONLY")
        try w.expectOK(w.vault("laptop", ["sync"]))
        try w.chat("desktop", room, "데스크톱에서 한 질문 DESKTOP-ONLY")
        let pulled = try gitPull(w, "desktop", vaultOnPath: false)
        #expect(pulled.status != 0, "\(pulled.out)")
        #expect(!(try w.read("desktop", room)).contains("LAPTOP-ONLY"), "git left the desktop's version")
        _ = try git(["-c", "user.name=Desk", "-c", "user.email=desk@example.com", "commit", "-qa", "--no-edit"],
            in: w.path("desktop"))
        _ = try git(["push", "-q", "origin", "main"], in: w.path("desktop"))
        // Syncs both ways, twice, and a turn on each side between them.
        let r = try w.vault("laptop", ["sync"])
        try w.expectOK(r)
        #expect(r.stdout.contains("dropped are back"), "\(r.stdout)")
        try w.expectOK(w.vault("desktop", ["sync"]))
        try w.chat("desktop", room, "다음 질문 DESKTOP-LATER")
        try w.chat("laptop", room, "다음 질문 LAPTOP-LATER")
        for machine in ["desktop", "laptop", "desktop"] { try w.expectOK(w.vault(machine, ["sync"])) }
        for machine in ["laptop", "desktop"] {
            try expectOnce(w, machine, ["LAPTOP-ONLY", "DESKTOP-ONLY", "DESKTOP-LATER", "LAPTOP-LATER"])
            #expect(!(try w.ids(machine, room)).contains(doomed.id), "the deleted message came back on \(machine)")
            #expect(!(try w.files(machine).values.contains { String(decoding: $0, as: UTF8.self).contains("\n지울 질문 DELETED-BY-HAND") }),
                "the deleted text is in no file on \(machine) (the reply's quote of it aside)")
            try w.expectHealthy(machine)
        }
        #expect(try w.files("laptop") == (try w.files("desktop")))
    }
}
