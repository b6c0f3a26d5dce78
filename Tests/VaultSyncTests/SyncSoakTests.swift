import Foundation
import Testing
import VaultCore
import VaultTestSupport

/// Three machines doing random work and syncing at random moments: at the end every machine
/// has the same files, `git fsck` is clean, and every message and entry ever written is there
/// unless it was deleted on purpose.
///
/// The suite runs a short seeded version; `scripts/soak-sync.sh` runs 500 operations and more
/// seeds (`VAULT_SOAK_OPS`, `VAULT_SOAK_SEED`), also with one machine syncing by plain git.
@Suite struct SyncSoakTests {
    /// In the vault's own format, and in format 3 with volumes of a few kilobytes
    /// (`VAULT_TEST_VOLUME_SIZES`, tests only): rooms roll over to volumes every few turns on
    /// each machine, at different points, and the volumes merge.
    @Test(arguments: [false, true]) func randomWorkOnThreeMachinesLosesNothing(volumes: Bool) throws {
        let env = ProcessInfo.processInfo.environment
        let operations = env["VAULT_SOAK_OPS"].flatMap(Int.init) ?? (volumes ? 40 : 60)
        let seed = env["VAULT_SOAK_SEED"].flatMap(UInt64.init) ?? 20261123
        try soak(operations: operations, seed: seed, volumes: volumes)
    }

    /// The same, with the third machine's person syncing by hand with plain git (`git add -A`,
    /// `git commit`, `git pull`, `git push`; `vault sync` only when the pull stops, as
    /// `vault status` advises): nothing lost, nothing doubled.
    @Test(arguments: [false, true]) func plainGitBesideVaultLosesNothingAndDoublesNothing(volumes: Bool) throws {
        let env = ProcessInfo.processInfo.environment
        let operations = env["VAULT_SOAK_OPS"].flatMap(Int.init) ?? 40
        let seed = env["VAULT_SOAK_SEED"].flatMap(UInt64.init) ?? 20261202
        try soak(operations: operations, seed: seed, volumes: volumes, plainGit: true)
    }

    /// `git` as the person types it in the machine's folder, with vault on the PATH (its merge driver).
    private func byHand(_ w: SyncWorld, _ machine: String, _ arguments: [String]) throws -> (status: Int32, out: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["git", "-c", "user.name=Server", "-c", "user.email=server@example.com"] + arguments
        p.currentDirectoryURL = URL(fileURLWithPath: w.path(machine))
        var env = ProcessInfo.processInfo.environment
        env["PATH"] = SyncWorld.pathWithVault
        env["VAULT_MACHINE"] = machine
        env["LC_ALL"] = "C"
        for (k, v) in w.environment { env[k] = v }
        p.environment = env
        let r = try run(p)
        return (r.status, r.stdout + r.stderr)
    }

    func soak(operations: Int, seed: UInt64, volumes: Bool, plainGit: Bool = false) throws {
        var random = SeededRandom(seed: seed)
        let machines = ["laptop", "desktop", "server"]
        let w = try SyncWorld(machines[0], clones: Array(machines.dropFirst()))
        if volumes {
            w.environment = ["VAULT_TEST_VOLUME_SIZES": "2048,512,1024"]
            try w.expectOK(w.vault(machines[0], ["migrate"]))
            for m in machines { try w.expectOK(w.vault(m, ["sync"])) }
        }
        var seenMessages = Set<String>()
        var seenEntries = Set<String>()
        var deletedEntries = Set<String>()
        var log: [String] = []
        var falselyNew = 0

        func record(_ m: String) throws {
            for (path, bytes) in try w.files(m) {
                switch VaultPath.kind(of: path) {
                case .room, .volume:
                    if let room = try? RoomFile(parsing: bytes, path: path) {
                        seenMessages.formUnion(room.messages.map(\.id))
                    }
                case .diaryEntry:
                    if let id = (try? DiaryFile(parsing: bytes, path: path))?.id { seenEntries.insert(id) }
                default: break
                }
            }
        }
        for m in machines { try record(m) }

        for step in 0..<operations {
            let m = machines[Int.random(in: 0..<machines.count, using: &random)]
            let files = try w.files(m)
            let rooms = files.keys.filter { VaultPath.kind(of: $0) == .room }.sorted()
            let entries = files.keys.filter { VaultPath.kind(of: $0) == .diaryEntry && !$0.contains(".conflict-") }
                .sorted()
            let roll = Int.random(in: 0..<100, using: &random)
            let word = "w\(step)-\(m)"
            switch roll {
            case 0..<30 where !rooms.isEmpty:
                let room = rooms[Int.random(in: 0..<rooms.count, using: &random)]
                log.append("\(step) \(m) chat \(room)")
                try w.chat(m, room, "질문 \(word)")
            case 30..<45 where !rooms.isEmpty:
                // A hand edit of an old message's text, as in an editor.
                let room = rooms[Int.random(in: 0..<rooms.count, using: &random)]
                var text = try w.read(m, room)
                let lines = text.components(separatedBy: "\n")
                let candidates = lines.indices.filter { i in
                    let l = lines[i]
                    return !l.isEmpty && !l.hasPrefix("##") && !l.hasPrefix("<!--") && !l.hasPrefix("---")
                        && !l.contains(":")
                        && !l.hasPrefix("\\")
                }
                guard !candidates.isEmpty else { continue }
                var edited = lines
                let i = candidates[Int.random(in: 0..<candidates.count, using: &random)]
                edited[i] += " (고침 \(word))"
                text = edited.joined(separator: "\n")
                log.append("\(step) \(m) edit \(room):\(i + 1)")
                try w.write(m, room, text)
            case 45..<60:
                let day = 1 + Int.random(in: 0..<28, using: &random)
                log.append("\(step) \(m) write diary 2026-10-\(day)")
                try w.expectOK(
                    w.vault(
                        m,
                        [
                            "write", "일기 \(word)", "--date", String(format: "2026-10-%02d", day), "--body",
                            "오늘의 일기 \(word)",
                        ]))
            case 60..<70 where !entries.isEmpty:
                let entry = entries[Int.random(in: 0..<entries.count, using: &random)]
                log.append("\(step) \(m) edit \(entry)")
                try w.write(m, entry, try w.read(m, entry) + "\n덧붙임 \(word)\n")
            case 70..<74 where !entries.isEmpty:
                let entry = entries[Int.random(in: 0..<entries.count, using: &random)]
                if let id = (try? DiaryFile(parsing: files[entry]!, path: entry))?.id { deletedEntries.insert(id) }
                log.append("\(step) \(m) rm \(entry)")
                try w.expectOK(w.vault(m, ["rm", entry, "--yes"]))
            case 74..<78 where !rooms.isEmpty:
                let room = rooms[Int.random(in: 0..<rooms.count, using: &random)]
                let to = "rooms/renamed-\(step).md"
                log.append("\(step) \(m) mv \(room) \(to)")
                try FileManager.default.moveItem(atPath: w.path(m) + "/" + room, toPath: w.path(m) + "/" + to)
                // Its volumes too, as `vault check` asks of a person who renames a room.
                let folder = w.path(m) + "/" + VaultPath.volumeFolder(ofRoom: room)
                if FileManager.default.fileExists(atPath: folder) {
                    try FileManager.default.moveItem(atPath: folder, toPath: w.path(m) + "/" + VaultPath.volumeFolder(ofRoom: to))
                }
            case 78..<100 where plainGit && m == "server":
                // Synced by hand: commit everything, pull (vault's driver merges), push.
                log.append("\(step) \(m) git commit -a, git pull, git push")
                _ = try byHand(w, m, ["add", "-A"])
                _ = try byHand(w, m, ["commit", "-qm", "by hand \(step)"])
                let pulled = try byHand(w, m, ["pull", "-q", "--no-rebase", "--no-edit", "origin", "main"])
                if pulled.status != 0 {
                    // Stopped (a rename on both sides, a removal against an edit): the way out vault names.
                    log.append("\(step) \(m) pull stopped: vault sync")
                    let r = try w.vault(m, ["sync"])
                    if r.status != 0 {
                        Issue.record("sync after a stopped pull at step \(step): \(r.stderr)\n\(pulled.out)\n\(log.suffix(15).joined(separator: "\n"))")
                        return
                    }
                } else {
                    _ = try byHand(w, m, ["push", "-q", "origin", "main"])
                }
            default:
                log.append("\(step) \(m) sync")
                // What this machine has before: the report may call none of it new.
                var had = Set<String>()
                for (path, bytes) in files where [.room, .volume].contains(VaultPath.kind(of: path)) {
                    had.formUnion((try? RoomFile(parsing: bytes, path: path))?.messages.map(\.id) ?? [])
                }
                let r = try w.vault(m, ["sync", "--json"])
                if r.status == 0, let report = try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any] {
                    let reported = ((report["rooms"] as? [[String: Any]]) ?? []).flatMap { ($0["newMessageIDs"] as? [String]) ?? [] }
                    let known = reported.filter(had.contains)
                    #expect(known.isEmpty, "step \(step) on \(m): \(known.count) messages reported new that it had (seed \(seed))")
                    falselyNew += known.count
                }
                if r.status != 0 {
                    if let keep = ProcessInfo.processInfo.environment["VAULT_SOAK_KEEP"] {
                        _ = try? FileManager.default.removeItem(atPath: keep)
                        try? FileManager.default.copyItem(atPath: w.folder.path, toPath: keep)
                    }
                    Issue.record(
                        "sync failed at step \(step) on \(m): \(r.stderr)\n\(log.suffix(ProcessInfo.processInfo.environment["VAULT_SOAK_LOG"].flatMap(Int.init) ?? 15).joined(separator: "\n"))")
                    return
                }
            }
            try record(m)
        }
        // Everyone syncs until nothing moves: two rounds reach a fixed point.
        for _ in 0..<2 {
            for m in machines {
                let r = try w.vault(m, ["sync"])
                if r.status != 0 {
                    Issue.record("final sync on \(m): \(r.stderr)\n\(log.suffix(15).joined(separator: "\n"))")
                    return
                }
            }
        }
        let final = try w.files("laptop")
        for m in machines.dropFirst() {
            let other = try w.files(m)
            let onlyOnOne = Set(other.keys).symmetricDifference(final.keys).sorted()
            let different = final.keys.filter { other[$0] != final[$0] }.sorted()
            #expect(other == final, "\(m) differs from laptop in \(onlyOnOne) / \(different)")
        }
        var messages = Set<String>()
        var entries = Set<String>()
        for (path, bytes) in final {
            switch VaultPath.kind(of: path) {
            case .room, .volume: messages.formUnion(try RoomFile(parsing: bytes, path: path).messages.map(\.id))
            case .diaryEntry: if let id = try DiaryFile(parsing: bytes, path: path).id { entries.insert(id) }
            default: break
            }
        }
        // No message twice in a room (its file and its volumes together).
        var placed: [String: [String]] = [:]
        for (path, bytes) in final where [.room, .volume].contains(VaultPath.kind(of: path)) {
            placed[VaultPath.room(ofVolume: path) ?? path, default: []] +=
                try RoomFile(parsing: bytes, path: path).messages.map(\.id)
        }
        for (room, ids) in placed.sorted(by: { $0.key < $1.key }) {
            #expect(ids.count == Set(ids).count, "\(room): \(ids.count - Set(ids).count) messages twice (seed \(seed))")
        }
        let lostMessages = seenMessages.subtracting(messages)
        #expect(lostMessages.isEmpty, "lost messages: \(lostMessages.sorted().prefix(10)) (seed \(seed))")
        let lostEntries = seenEntries.subtracting(deletedEntries).subtracting(entries)
        #expect(lostEntries.isEmpty, "lost entries: \(lostEntries.sorted()) (seed \(seed))")
        // A room renamed by hand on one machine while another rolled it over leaves the volumes
        // rolled meanwhile under the old name: nothing is lost (their messages are counted above),
        // and `vault check` says where to move them (FORMAT.md, *Room volumes*).
        let orphaned = try w.vault("laptop", ["check"]).stdout.split(separator: "\n").filter {
            $0.contains(", which is not there (renamed or removed by hand?)")
        }.count
        if volumes, let keep = ProcessInfo.processInfo.environment["VAULT_SOAK_KEEP"] {
            _ = try? FileManager.default.removeItem(atPath: keep)
            try? FileManager.default.copyItem(atPath: w.folder.path, toPath: keep)
        }
        for m in machines { try w.expectHealthy(m, tolerating: volumes ? ", which is not there (renamed or removed by hand?)" : nil) }
        // What the run went through, for the soak script's log.
        let merges = try git(["rev-list", "--merges", "--count", "HEAD"], in: w.path("laptop"))
        let copies = final.keys.filter { $0.contains(".conflict-") }.count
        let volumeFiles = final.keys.filter { VaultPath.kind(of: $0) == .volume }.count
        let versions = final.values.reduce(0) {
            $0 + String(decoding: $1, as: UTF8.self).components(separatedBy: " conflict=m-").count - 1
        }
        print(
            "soak seed \(seed): \(operations) operations, "
                + "\(merges.trimmingCharacters(in: .whitespacesAndNewlines)) merge commits, "
                + "\(messages.count) messages, \(entries.count) entries, \(copies) conflict copies, "
                + "\(versions) conflicting message versions, \(volumeFiles) volumes (\(orphaned) under a room's old name), "
                + "\(falselyNew) messages reported new that the machine had; nothing lost"
        )
    }
}
