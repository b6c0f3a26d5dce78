import Foundation
import Testing
import VaultTestSupport

/// Commands that use git and end at once (`--help`, a usage error, a room that does not exist)
/// exit cleanly, however early: libgit2 is still loading on the thread started with the process
/// while they exit, and the exit must not run the libraries' clean-up under that thread's feet
/// (it crashed with SIGSEGV in OpenSSL's `pthread_rwlock` about twice in a thousand runs).
///
/// The suite runs `VAULT_EXIT_RUNS` (default 300: a short seeded version) seeded runs, two at a time;
/// `scripts/quick-exit-loop.sh` runs more, and other seeds.
@Suite struct QuickExitTests {
    /// The arguments, and the status each must exit with.
    static let commands: [(arguments: [String], status: Int32)] = [
        (["chat", "--help"], 0),
        (["chat"], 64),
        (["rm", "--bogus"], 64),
        (["log", "--help"], 0),
        (["write", "--no-such-option"], 64),
        (["restore"], 64),
        (["retry", "--help"], 0),
        (["chat", "no-such-room-anywhere", "hello"], 1),
        (["rm", "no-such-room-anywhere", "--yes"], 1),
        (["log", "no-such-room-anywhere"], 1),
    ]

    @Test(.timeLimit(.minutes(5)))
    func quickExitsOfGitCommandsNeverCrash() throws {
        let env = ProcessInfo.processInfo.environment
        let runs = env["VAULT_EXIT_RUNS"].flatMap(Int.init) ?? 300
        let seed = env["VAULT_EXIT_SEED"].flatMap(UInt64.init) ?? 20261124
        let vault = try freshVault()
        var random = SeededRandom(seed: seed)
        let picks = (0..<runs).map { _ in Int.random(in: 0..<QuickExitTests.commands.count, using: &random) }
        let failures = Collected<String>()
        let counted = Collected<Int>()
        let workers = 2
        runSimultaneously(
            (0..<workers).map { worker in
                { @Sendable in
                    for i in stride(from: worker, to: picks.count, by: workers) {
                        let (arguments, expected) = QuickExitTests.commands[picks[i]]
                        let process = vaultProcess(arguments, in: vault.path)
                        do {
                            let result = try run(process)
                            counted.append(1)
                            let command = "run \(i) `vault \(arguments.joined(separator: " "))`"
                            if process.terminationReason != .exit {
                                failures.append("\(command) died of signal \(result.status)")
                            } else if result.status != expected {
                                failures.append("\(command) exited \(result.status), not \(expected): \(result.stderr)")
                            }
                        } catch {
                            failures.append("run \(i): \(error)")
                        }
                    }
                }
            })
        #expect(counted.all.count == runs)
        #expect(failures.all.isEmpty, "\(failures.all.count) of \(runs) runs failed: \(failures.all.prefix(5))")
        print("quick exits: \(runs) runs (seed \(seed)), \(failures.all.count) failed")
    }
}
