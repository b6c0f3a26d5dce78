import Foundation
import Testing
import VaultTestSupport

/// Several `vault` processes on one vault at the same time.
@Suite struct ConcurrencyTests {
    private struct Run: Sendable {
        var worker: String
        var turn: Int
        var result: RunResult?
        var failure: String?
    }

    /// Two workers, each sending `turns` messages one after the other to `room`, both started at once.
    private func chatFromTwoProcesses(vault: TemporaryDirectory, room: String, turns: Int) -> [Run] {
        let runs = Collected<Run>()
        let jobs: [@Sendable () -> Void] = ["A", "B"].map { worker in
            { @Sendable in
                for turn in 1...turns {
                    do {
                        let r = try runVault(
                            ["chat", room, "message \(worker)\(turn) from worker \(worker)"], in: vault.path)
                        runs.append(Run(worker: worker, turn: turn, result: r))
                    } catch {
                        runs.append(Run(worker: worker, turn: turn, failure: "\(error)"))
                    }
                }
            }
        }
        runSimultaneously(jobs)
        return runs.all
    }

    private func expectAllTurnsKept(
        vault: TemporaryDirectory, path: String, oldMessages: Int, prefix: [UInt8], runs: [Run], turns: Int,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(runs.count == 2 * turns, sourceLocation: sourceLocation)
        for run in runs {
            #expect(
                run.failure == nil, "\(run.worker)\(run.turn): \(run.failure ?? "")", sourceLocation: sourceLocation)
            #expect(
                run.result?.status == 0, "\(run.worker)\(run.turn): \(run.result?.stderr ?? "")",
                sourceLocation: sourceLocation)
        }
        let bytes = try vault.read(path)
        #expect(bytes.hasPrefix(prefix), "bytes before the old marker changed", sourceLocation: sourceLocation)
        #expect(bytes.hasSuffix(utf8(promptMarker + "\n")), sourceLocation: sourceLocation)
        let room = parseRoom(String(decoding: bytes, as: UTF8.self))
        let added = Array(room.messages.dropFirst(oldMessages))
        #expect(
            added.count == 4 * turns, "expected \(4 * turns) new messages, found \(added.count)",
            sourceLocation: sourceLocation)
        let sent = ["A", "B"].flatMap { w in (1...turns).map { "message \(w)\($0) from worker \(w)" } }
        let users = added.filter { $0.header.role == "user" }
        let replies = added.filter { $0.header.role == "assistant" }
        // Every message exactly once, as a user message.
        #expect(users.map(\.body).sorted() == sent.sorted(), sourceLocation: sourceLocation)
        #expect(replies.count == 2 * turns, sourceLocation: sourceLocation)
        // Each worker's messages in the order it sent them.
        for w in ["A", "B"] {
            let mine = users.map(\.body).filter { $0.hasSuffix("from worker \(w)") }
            #expect(mine == (1...turns).map { "message \(w)\($0) from worker \(w)" }, sourceLocation: sourceLocation)
        }
        // Each user message has exactly one reply that quotes it, after it.
        for (i, m) in added.enumerated() where m.header.role == "user" {
            let quoting = added.indices.filter {
                added[$0].header.role == "assistant" && added[$0].body.contains("\n> \(m.body)\n")
            }
            #expect(quoting.count == 1, "\(m.body) has \(quoting.count) replies", sourceLocation: sourceLocation)
            if let q = quoting.first {
                #expect(q > i, "the reply to \(m.body) comes before it", sourceLocation: sourceLocation)
            }
        }
        for r in replies { #expect(r.header.attributes["provider"] == "offline", sourceLocation: sourceLocation) }
        let ids = room.messages.map(\.header.id)
        #expect(Set(ids).count == ids.count, "message ids are not unique", sourceLocation: sourceLocation)
        try expectCheckClean(vault.path, sourceLocation: sourceLocation)
        #expect(
            leftoverTemporaryFiles(vault.path).isEmpty, "\(leftoverTemporaryFiles(vault.path))",
            sourceLocation: sourceLocation)
    }

    @Test(.timeLimit(.minutes(2)))
    func twoChatsAtOnceOnTheSameSampleRoomKeepEveryMessage() throws {
        let vault = try Project.copyOfSampleVault()
        let old = try vault.read(offlineSampleRoom)
        let prefix = Array(old[..<(try #require(old.lastPromptMarkerOffset()))])
        let oldCount = parseRoom(String(decoding: old, as: UTF8.self)).messages.count
        let runs = chatFromTwoProcesses(vault: vault, room: "독서-모임-발제문", turns: 5)
        try expectAllTurnsKept(
            vault: vault, path: offlineSampleRoom, oldMessages: oldCount, prefix: prefix, runs: runs, turns: 5)
    }

    @Test(.timeLimit(.minutes(2)))
    func twoChatsAtOnceOnARoomWithHistory() throws {
        let vault = try freshVault()
        expectSuccess(try runVault(["room", "new", "Race"], in: vault.path))
        expectSuccess(try runVault(["chat", "race", "first, alone"], in: vault.path))
        let old = try vault.read("rooms/race.md")
        let prefix = Array(old[..<(try #require(old.lastPromptMarkerOffset()))])
        let runs = chatFromTwoProcesses(vault: vault, room: "rooms/race.md", turns: 5)
        try expectAllTurnsKept(
            vault: vault, path: "rooms/race.md", oldMessages: 2, prefix: prefix, runs: runs, turns: 5)
    }

    @Test(.timeLimit(.minutes(2)))
    func twoNewRoomsWithOneTitleAtOnceGetTwoFiles() throws {
        let vault = try freshVault()
        let results = Collected<RunResult>()
        runSimultaneously(
            (0..<4).map { _ in
                { @Sendable in
                    if let r = try? runVault(["room", "new", "Same title"], in: vault.path) { results.append(r) }
                }
            })
        #expect(results.all.count == 4)
        for r in results.all { expectSuccess(r) }
        let rooms = vault.files().filter { $0.hasPrefix("rooms/") }
        #expect(
            rooms == ["rooms/same-title-2.md", "rooms/same-title-3.md", "rooms/same-title-4.md", "rooms/same-title.md"])
        let made = Set(
            results.all.compactMap { r in r.stdout.split(separator: " ").dropFirst().first.map(String.init) })
        #expect(
            made == [
                "rooms/same-title.md.", "rooms/same-title-2.md", "rooms/same-title-3.md", "rooms/same-title-4.md",
            ])
        // The three that did not get the title's name say so.
        let renamed = results.all.filter { $0.stdout.contains("(rooms/same-title.md has that title's name already;") }
        #expect(renamed.count == 3, "\(results.all.map(\.stdout))")
        try expectCheckClean(vault.path)
        #expect(leftoverTemporaryFiles(vault.path).isEmpty)
    }

    @Test(.timeLimit(.minutes(2)))
    func readersDuringWritesSeeWholeFiles() throws {
        let vault = try freshVault()
        expectSuccess(try runVault(["room", "new", "Busy"], in: vault.path))
        let readFailures = Collected<String>()
        let writes = Collected<RunResult>()
        runSimultaneously([
            { @Sendable in
                for i in 1...6 {
                    if let r = try? runVault(["chat", "busy", "write \(i)"], in: vault.path) { writes.append(r) }
                }
            },
            { @Sendable in
                for _ in 1...12 {
                    guard let r = try? runVault(["check"], in: vault.path) else { continue }
                    if r.status != 0 { readFailures.append(r.stdout + r.stderr) }
                    guard let raw = try? runVault(["show", "--raw", "busy"], in: vault.path) else { continue }
                    if !raw.stdout.hasSuffix(promptMarker + "\n") {
                        readFailures.append("partial file: \(raw.stdout.suffix(200))")
                    }
                }
            },
        ])
        #expect(readFailures.all.isEmpty, "\(readFailures.all)")
        #expect(writes.all.count == 6)
        for w in writes.all { expectSuccess(w) }
        #expect(parseRoom(try vault.readText("rooms/busy.md")).messages.count == 12)
        #expect(leftoverTemporaryFiles(vault.path).isEmpty)
    }
}
