import Foundation
import Testing
import VaultTestSupport

/// `vault` processes killed (SIGKILL) at random moments of chat turns, room creations, room
/// settings and removals: after each kill the next command runs (no lock refuses it), leaves
/// everything committed (`git status` clean), and every message of a command that finished is
/// in the room and in HEAD. The suite kills 16 processes with one seed; `scripts/kill-loop.sh`
/// kills more (`VAULT_KILLS`, `VAULT_KILL_SEED`) and prints the figures.
@Suite struct KillLoopTests {
    @Test func vaultsKilledAtRandomMomentsLeaveNothingTheNextCommandCannotFinish() throws {
        let env = ProcessInfo.processInfo.environment
        let kills = env["VAULT_KILLS"].flatMap(Int.init) ?? 16
        let seed = env["VAULT_KILL_SEED"].flatMap(UInt64.init) ?? 20_261_123
        var random = SeededRandom(seed: seed)
        let dir = try initVault("vault-kill-loop")
        expectSucceeded(try runVault(["room", "new", "Room A"], in: dir.path))
        // How long a turn takes on this machine: the kills are spread over that much.
        let started = Date()
        expectSucceeded(try runVault(["chat", "room-a", "first"], in: dir.path))
        let turn = Date().timeIntervalSince(started)
        var finished = ["first"]
        var extraRooms: [String] = []
        var (landed, locksLeft, nextFailed, unclean) = (0, 0, 0, 0)
        for k in 0..<kills {
            let roll = Int.random(in: 0..<100, using: &random)
            let arguments: [String]
            var message: String?
            switch roll {
            case 0..<55:
                message = "killed \(k)"
                arguments = ["chat", "room-a", message!]
            case 55..<70:
                arguments = ["room", "new", "Room \(k)"]
                extraRooms.append("room-\(k)")
            case 70..<85 where !extraRooms.isEmpty:
                arguments = ["rm", extraRooms.removeFirst(), "--yes"]
            default:
                arguments = ["room", "set", "room-a", "system", "s\(k)"]
            }
            let process = vaultProcess(arguments, in: dir.path)
            let delay = Double.random(in: 0...1.2, using: &random) * turn
            if try runKilled(process, after: delay) {
                landed += 1
            } else if process.terminationStatus == 0, let message {
                finished.append(message)
            }
            let git = dir.path + "/.git"
            let branch = try gitRun(["symbolic-ref", "HEAD"], in: dir.path).stdout.trimmingCharacters(
                in: .whitespacesAndNewlines)
            if FileManager.default.fileExists(atPath: git + "/index.lock")
                || FileManager.default.fileExists(atPath: git + "/" + branch + ".lock")
            {
                locksLeft += 1
            }
            // The next command runs, and leaves everything committed.
            let next = try runVault(["chat", "room-a", "after \(k)"], in: dir.path)
            if next.status == 0 {
                finished.append("after \(k)")
            } else {
                nextFailed += 1
                Issue.record("after kill \(k) (\(arguments)): \(next.stderr)")
            }
            if try gitRun(["status", "--porcelain"], in: dir.path).stdout != "" { unclean += 1 }
        }
        print(
            "kill loop seed \(seed): \(kills) kills, \(landed) in the middle of a command, "
                + "\(locksLeft) left a git lock, "
                + "\(nextFailed) next commands failed, \(unclean) left files uncommitted"
        )
        #expect(nextFailed == 0)
        #expect(unclean == 0)
        let room = try dir.readText("rooms/room-a.md")
        let committed = String(decoding: try gitBytes("HEAD:rooms/room-a.md", in: dir.path), as: UTF8.self)
        for message in finished {
            #expect(room.contains(message) && committed.contains(message), "\(message) is lost")
        }
        let leftovers = dir.files().filter {
            ($0.hasPrefix(".git/") && $0.hasSuffix(".lock")) || $0.hasPrefix(".git/vault-locks/")
                || $0.hasPrefix(".vault/intents/")
                || $0.contains(".vault-tmp-")
        }
        #expect(leftovers.isEmpty, "\(leftovers)")
        try expectRepositoryClean(dir.path)
    }
}
