import ArgumentParser
import Foundation
import VaultCore
import VaultKit

#if canImport(Glibc)
import Glibc
#endif

extension VaultCommand {
    struct Watch: VaultRunnable {
        static let configuration = CommandConfiguration(
            commandName: "watch",
            abstract: "Sync every few seconds and show the messages others write as they arrive (a room, or all).",
            discussion: """
                Each sync also sends what you wrote meanwhile (`vault say` in another terminal). The \
                messages shown are marked read. While the remote cannot be reached the wait doubles, up \
                to --max-interval, and comes back to --interval once a sync works. Ctrl-C stops it (a \
                sync in progress is finished first).
                """)

        @OptionGroup var location: VaultLocation
        @OptionGroup var reading: ReadingOptions
        @Argument(help: "The room to watch (default: every room).", completion: .rooms) var room: String?
        @Option(help: ArgumentHelp("Seconds between syncs.", valueName: "SECONDS")) var interval: Double = 5
        @Option(
            name: .customLong("max-interval"),
            help: ArgumentHelp("The longest wait while syncs fail (offline).", valueName: "SECONDS"))
        var maxInterval: Double = 60
        @Option(help: "The remote (default: as `vault sync` chooses).") var remote: String?

        func execute() throws {
            let session = try location.session(.change)
            let vault = session.vault
            let (locale, zone) = try reading.resolve(for: vault)
            let path = try room.map { name throws(VaultError) in
                try vault.resolveRoom(name, workingDirectory: FileManager.default.currentDirectoryPath)
            }
            let live = try session.liveSync(remote: remote, interval: interval, maxInterval: maxInterval)
            Terminal.note(
                "watching \(path ?? "every room"): a sync every \(Watch.seconds(live.interval)) s; Ctrl-C stops")
            // The wait last said while syncs fail (nil: they work): each longer wait is said once,
            // and each new reason (a remote that pushes one bad commit after another).
            var saidDelay: Double?
            var saidFailure: String?
            while !Termination.requested {
                let step = live.step(room: path)
                if let failure = step.failure {
                    // No remote, or one that is not named: nothing a wait would change.
                    if case .input = failure { throw failure }
                    if saidDelay != step.delay || saidFailure != failure.description {
                        Terminal.note("sync failed (\(failure.description)); trying again in \(Watch.seconds(step.delay)) s")
                        saidDelay = step.delay
                        saidFailure = failure.description
                    }
                } else {
                    if saidDelay != nil { Terminal.note("synced again") }
                    saidDelay = nil
                    saidFailure = nil
                }
                for arrival in step.arrivals {
                    show(
                        arrival, all: path == nil, locale: locale, zone: zone,
                        unverified: UnverifiedMarks.of(arrival.path, root: vault.root))
                    live.shown(arrival)
                }
                Watch.wait(step.delay)
            }
        }

        private func show(
            _ arrival: LiveSync.Arrival, all: Bool, locale: String, zone: TimeZone, unverified: [String: String]
        ) {
            for message in arrival.messages {
                // A message whose author the commit that brought it does not bear out.
                if let why = unverified[message.id] {
                    Terminal.line("⚠️ unverified author: " + Terminal.visible(why, singleLine: true))
                }
                let time = DateText.string(for: message.timestamp.date, style: .time, locale: locale, timeZone: zone)
                var label = [Posting.writer(of: message), time]
                if all { label.insert(arrival.title, at: 0) }
                Terminal.line(label.map { Terminal.visible($0, singleLine: true) }.joined(separator: " · "))
                // Written at once (not buffered as `print` is): the one watching sees it now.
                Terminal.write(Terminal.visible(message.body) + "\n\n", to: 1)
            }
        }

        /// What each live sync is given, as `vault sync` is: the search's watcher, which says what
        /// changed so that no sync stamps every file (none with VAULT_NO_WATCH=1).
        /// `5`, `0.5`.
        static func seconds(_ s: Double) -> String {
            s == s.rounded() ? String(Int(s)) : String(s)
        }

        /// Waits `seconds`, or until a termination signal is recorded.
        static func wait(_ seconds: Double) {
            let end = Date().addingTimeInterval(seconds)
            while !Termination.requested, Date() < end {
                usleep(UInt32(min(0.1, max(0, end.timeIntervalSinceNow)) * 1_000_000))
            }
        }
    }
}
