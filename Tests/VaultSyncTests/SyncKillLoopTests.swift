import Foundation
import Testing
import VaultTestSupport

/// `vault sync` killed (SIGKILL) at random moments, on two machines that both keep chatting:
/// after each kill a plain `vault sync` on the killed machine, then on the other, must succeed
/// with no manual step (no `vault unlock`, no `git` command), and in the end every message of a
/// chat turn that finished is on both machines and on the remote, with `git status` clean.
/// The suite kills 4 syncs with one seed; `scripts/kill-loop-sync.sh` kills more
/// (`VAULT_SYNC_KILLS`, `VAULT_KILL_SEED`) and prints the figures.
@Suite struct SyncKillLoopTests {
    let room = "rooms/독서-모임-발제문.md"

    @Test func syncsKilledAtRandomMomentsLoseNothingAndNeedNoManualStep() throws {
        let env = ProcessInfo.processInfo.environment
        let kills = env["VAULT_SYNC_KILLS"].flatMap(Int.init) ?? 4
        let seed = env["VAULT_KILL_SEED"].flatMap(UInt64.init) ?? 20_261_126
        var random = SeededRandom(seed: seed)
        let w = try SyncWorld()
        let machines = ["laptop", "desktop"]
        var sent: [String] = []
        // How long a sync with something to merge takes here: the kills are spread over that much.
        try w.chat("laptop", room, "시작")
        sent.append("시작")
        let started = Date()
        try w.expectOK(w.vault("laptop", ["sync"]))
        let syncTime = Date().timeIntervalSince(started)
        var (landed, manualSteps) = (0, 0)
        for k in 0..<kills {
            for m in machines {
                let text = "\(m) \(k)"
                try w.chat(m, room, text)
                sent.append(text)
            }
            let victim = machines[Int.random(in: 0..<2, using: &random)]
            let process = vaultProcess(
                ["sync"], in: w.path(victim),
                environment: ["VAULT_MACHINE": victim, "PATH": SyncWorld.pathWithVault, "VAULT_LOCK_TIMEOUT": "60"])
            let delay = Double.random(in: 0...1.3, using: &random) * syncTime
            if try runKilled(process, after: delay) { landed += 1 }
            // A git child the kill left running finishes on its own; the next sync waits for nothing else.
            for m in [victim] + machines.filter({ $0 != victim }) {
                let next = try w.vault(m, ["sync"])
                if next.status != 0 {
                    manualSteps += 1
                    Issue.record("after kill \(k) of \(victim)'s sync, \(m)'s sync: \(next.stderr)")
                }
            }
        }
        for m in machines + ["laptop"] { try w.expectOK(w.vault(m, ["sync"])) }
        var lost = 0
        for m in machines {
            let text = try w.read(m, room)
            lost += sent.filter { !text.contains($0) }.count
            #expect(try git(["status", "--porcelain"], in: w.path(m)) == "", "\(m) not clean")
        }
        let remote = try git(["show", "main:" + room], in: w.remote)
        lost += sent.filter { !remote.contains($0) }.count
        print(
            "sync kill loop seed \(seed): \(kills) kills, \(landed) in the middle of a sync,"
                + " \(lost) messages lost, \(manualSteps) syncs needed a manual step")
        #expect(lost == 0)
        #expect(manualSteps == 0)
        for m in machines { try w.expectHealthy(m) }
    }
}
