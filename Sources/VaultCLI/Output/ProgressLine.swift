import Foundation
import Synchronization
import VaultCore

/// Progress of long work on standard error, only when standard error is a terminal: one line
/// (`exporting 1,204/5,000 items`) rewritten in place with a carriage return, at most ten times
/// a second, first drawn once the work has taken `delay` (0.7 s: a quick command shows none),
/// and cleared by `finish()`. Not on a terminal, it draws nothing at all.
///
/// `VAULT_PROGRESS_DELAY` (seconds) sets the delay: the tests set 0.
final class ProgressLine: Sendable {
    private struct State {
        var lastDrawn: ContinuousClock.Instant?
        var action = ""
        var width = 0
    }

    let enabled: Bool
    private let started = ContinuousClock.now
    private let delay: Duration
    private let interval = Duration.milliseconds(100)
    private let state = Mutex(State())

    init(
        enabled: Bool = Terminal.stderrIsTerminal,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.enabled = enabled
        let seconds = environment["VAULT_PROGRESS_DELAY"].flatMap(Double.init).map { max(0, $0) } ?? 0.7
        delay = .milliseconds(Int(seconds * 1000))
    }

    /// The closure to hand a library workflow; nil when nothing is drawn.
    var handler: ProgressHandler? {
        guard enabled else { return nil }
        return { [self] event in report(event) }
    }

    /// Draws `event` when it is time to.
    func report(_ event: ProgressEvent) {
        guard enabled else { return }
        let now = ContinuousClock.now
        guard now - started >= delay else { return }
        state.withLock { s in
            // The first of each kind of work is drawn at once (`reading`, then `exporting`).
            if let last = s.lastDrawn, now - last < interval, event.action == s.action { return }
            s.lastDrawn = now
            s.action = event.action
            let text = ProgressLine.text(event)
            let width = Terminal.width(text)
            // Spaces over what a longer line before left.
            let padding = String(repeating: " ", count: max(0, s.width - width))
            s.width = width
            Terminal.write("\r" + text + padding + "\r", to: 2)
        }
    }

    /// Writes a line of its own from a child process (git's progress) as it is, when enabled.
    func passThrough(_ bytes: [UInt8]) {
        guard enabled else { return }
        state.withLock { s in
            s.width = 0
            Terminal.write(bytes: bytes, to: 2)
        }
    }

    /// Clears the line, if one was drawn. Call before anything else is written to standard error.
    func finish() {
        guard enabled else { return }
        state.withLock { s in
            guard s.width > 0 else { return }
            Terminal.write("\r" + String(repeating: " ", count: s.width) + "\r", to: 2)
            s.width = 0
        }
    }

    /// `exporting 1,204/5,000 items`; `receiving 12 objects` while the total is unknown.
    static func text(_ event: ProgressEvent) -> String {
        let done = grouped(event.done)
        let count = event.total.map { "\(done)/\(grouped($0))" } ?? done
        return Terminal.visible("\(event.action) \(count) \(event.unit)", singleLine: true)
    }

    /// `12345` as `12,345`.
    static func grouped(_ n: Int) -> String {
        let digits = Array(String(n.magnitude))
        var out = ""
        for (k, d) in digits.enumerated() {
            if k > 0, (digits.count - k) % 3 == 0 { out.append(",") }
            out.append(d)
        }
        return n < 0 ? "-" + out : out
    }
}
