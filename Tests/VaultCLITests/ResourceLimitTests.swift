import Foundation
import Testing
import VaultTestSupport

/// `vault` under low limits on open files (`ulimit -n`) and address space (`ulimit -v`): every
/// command works or ends with `vault: error: …` and a status of its own, never with a signal
/// (libdispatch trapped with SIGILL when it could not open its descriptors), a chat message is
/// never half kept, and the repository never names an object that is not there (a commit whose
/// object could not be written moved the branch).
@Suite struct ResourceLimitTests {
    /// Runs the built `vault` with `arguments` in `dir` under `ulimit LIMIT` (both the soft and
    /// the hard limit, as `sh` sets them); a signal shows as 128 + its number.
    func runLimited(_ limit: String, _ arguments: [String], in dir: String) throws -> RunResult {
        let process = vaultProcess([], in: dir)
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "ulimit \(limit); \"$0\" \"$@\"", Project.vaultExecutable] + arguments
        return try run(process)
    }

    /// The commands tried under each limit, the room's path for chat's message.
    func commands(_ tag: String) -> [[String]] {
        [
            ["rooms"], ["show", offlineSampleRoom], ["search", "the"], ["search", "--index", "the"],
            ["chat", offlineSampleRoom, "message under \(tag)", "--provider", "offline"],
        ]
    }

    /// Runs every command under `limit` on `dir`; returns whether each succeeded.
    func expectNoSignal(_ limit: String, on dir: TemporaryDirectory) throws -> [Bool] {
        var succeeded: [Bool] = []
        for arguments in commands(limit) {
            let before = try dir.readText(offlineSampleRoom)
            let r = try runLimited(limit, arguments, in: dir.path)
            let what = "ulimit \(limit); vault \(arguments.joined(separator: " ")): status \(r.status), stderr \(r.stderr)"
            #expect(r.status < 128, "ended by a signal: \(what)")
            #expect(!r.stderr.contains("Fatal error") && !r.stderr.contains("Backtracing"), "crashed: \(what)")
            // The dynamic loader refuses before vault runs when it cannot open a library (127).
            let loaderRefused = r.status == 127 && r.stderr.contains("error while loading shared libraries")
            if r.status != 0 && !loaderRefused {
                #expect(r.stderr.hasPrefix("vault: error: "), "no message: \(what)")
                #expect(r.stderr.split(separator: "\n").count == 1, "more than one line: \(what)")
            }
            if arguments[0] == "chat" && r.status != 0 {
                // The message is in the room (kept as its pending prompt when no turn could run),
                // or the room is as it was and the message says it was not saved.
                let after = try dir.readText(offlineSampleRoom)
                let kept = after.contains(arguments[2])
                let said = loaderRefused || r.stderr.contains("Your message was not saved")
                #expect(kept || (after == before && said), "the message is lost: \(what)")
                if kept && r.stderr.contains("below the prompt marker") {
                    #expect(after.hasPrefix(before), "the room was changed before its end: \(what)")
                    #expect(after.hasSuffix(arguments[2] + "\n"), "\(what)")
                }
            }
            if FileManager.default.fileExists(atPath: dir.path + "/.git") {
                // The branch names a commit that is there.
                #expect((try? git(["cat-file", "-e", "HEAD^{commit}"], in: dir.path)) != nil, "HEAD is broken: \(what)")
            }
            succeeded.append(r.status == 0)
        }
        return succeeded
    }

    /// From 3 open files up to 31: a refusal naming the limit; nothing changed but the chat
    /// message, kept as the room's pending prompt from 5 open files up (the vault's lock and the
    /// room), which a later `vault chat ROOM` sends.
    @Test(arguments: [3, 4, 5, 7, 9, 12, 20, 31])
    func tooFewOpenFilesEndWithAMessage(_ files: Int) throws {
        let dir = try Project.copyOfSampleVault()
        let before = try dir.snapshot()
        let succeeded = try expectNoSignal("-n \(files)", on: dir)
        #expect(!succeeded.contains(true))
        if files > 3 {
            let r = try runLimited("-n \(files)", ["rooms"], in: dir.path)
            #expect(r.stderr.contains("the limit (ulimit -n) is \(files)"), "\(r.stderr)")
        }
        let room = try dir.readText(offlineSampleRoom)
        #expect(room.contains("message under -n \(files)") == (files >= 5))
        var after = try dir.snapshot()
        after[offlineSampleRoom] = before[offlineSampleRoom]
        expectUnchanged(before, after)
        if files >= 5 {
            let sent = try runVault(["chat", offlineSampleRoom, "--provider", "offline"], in: dir.path)
            expectSuccess(sent)
            #expect(sent.stdout.contains("message under -n \(files)"), "\(sent.stdout)")
        }
    }

    /// At 32 open files and more, every command works: the chat turn is saved and committed.
    @Test(arguments: [32, 40, 64])
    func enoughOpenFilesRunEveryCommand(_ files: Int) throws {
        let dir = try Project.copyOfSampleVault()
        let succeeded = try expectNoSignal("-n \(files)", on: dir)
        #expect(succeeded == [true, true, true, true, true], "\(succeeded)")
        #expect(try dir.readText(offlineSampleRoom).contains("message under -n \(files)"))
        let log = try git(["log", "--format=%s", "-1"], in: dir.path)
        #expect(log.hasPrefix("chat: "), "\(log)")
    }

    /// A low address-space limit: refused with a message naming it, or the commands work.
    @Test(arguments: [100_000, 500_000, 2_000_000])
    func lowAddressSpaceEndsWithAMessage(_ kibibytes: Int) throws {
        let dir = try Project.copyOfSampleVault()
        let succeeded = try expectNoSignal("-v \(kibibytes)", on: dir)
        if kibibytes < 1 << 20 {
            #expect(!succeeded.contains(true))
            let r = try runLimited("-v \(kibibytes)", ["rooms"], in: dir.path)
            #expect(r.stderr.contains("the address space limit (ulimit -v) is \(kibibytes) KiB"), "\(r.stderr)")
        } else {
            #expect(succeeded == [true, true, true, true, true], "\(succeeded)")
        }
    }
}
