import Foundation
import Synchronization
import VaultCore

/// Progress of long work on standard error, only when standard error is a terminal: one line
/// (`exporting 1,204/5,000 items`, `receiving 450/1,000 objects, 1.2 MiB, 3.4 MiB/s`) rewritten
/// in place with a carriage return, at most ten times a second, first drawn once the work has
/// taken `delay` (0.7 s: a quick command shows none), and cleared by `finish()` or by a
/// transfer's `ProgressEvent.ended` (before the next connection's password prompt, if any).
/// Not on a terminal, it draws nothing at all, and the library is given no handler: git and
/// libgit2 are then not even asked for their progress.
///
/// `VAULT_PROGRESS_DELAY` (seconds) sets the delay: the tests set 0.
final class ProgressLine: Sendable {
    private struct State {
        var lastDrawn: ContinuousClock.Instant?
        var action = ""
        var width = 0
        /// When the current action first counted bytes, and how many: the rate is measured from there.
        var bytesSince: (instant: ContinuousClock.Instant, bytes: Int)?
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

    /// Draws `event` when it is time to; clears the line for `ProgressEvent.ended`.
    func report(_ event: ProgressEvent) {
        guard enabled else { return }
        if event.isEnd { return finish() }
        let now = ContinuousClock.now
        guard now - started >= delay else { return }
        state.withLock { s in
            if event.action != s.action { s.bytesSince = nil }
            if let bytes = event.bytes, s.bytesSince == nil { s.bytesSince = (now, bytes) }
            // The first of each kind of work is drawn at once (`reading`, then `exporting`).
            if let last = s.lastDrawn, now - last < interval, event.action == s.action { return }
            s.lastDrawn = now
            s.action = event.action
            var rate: Int?
            if let bytes = event.bytes, let since = s.bytesSince, now - since.instant >= .seconds(1) {
                rate = Int(Double(bytes - since.bytes) / ((now - since.instant) / .seconds(1)))
            }
            let text = ProgressLine.text(event, bytesPerSecond: rate)
            let width = Terminal.width(text)
            // Spaces over what a longer line before left.
            let padding = String(repeating: " ", count: max(0, s.width - width))
            s.width = width
            Terminal.write("\r" + text + padding + "\r", to: 2)
        }
    }

    /// Clears the line, if one was drawn. Call before anything else is written to standard error.
    func finish() {
        guard enabled else { return }
        state.withLock { s in
            // What comes after (the next transfer) is drawn at once.
            s.action = ""
            s.bytesSince = nil
            guard s.width > 0 else { return }
            Terminal.write("\r" + String(repeating: " ", count: s.width) + "\r", to: 2)
            s.width = 0
        }
    }

    /// `exporting 1,204/5,000 items`; `receiving 12 objects` while the total is unknown;
    /// `receiving 450/1,000 objects, 1.2 MiB, 3.4 MiB/s` for a transfer that counts its bytes.
    static func text(_ event: ProgressEvent, bytesPerSecond: Int? = nil) -> String {
        let done = grouped(event.done)
        let count = event.total.map { "\(done)/\(grouped($0))" } ?? done
        var text = "\(event.action) \(count) \(event.unit)"
        if let bytes = event.bytes {
            text += ", " + size(bytes)
            if let rate = bytesPerSecond, rate > 0 { text += ", " + size(rate) + "/s" }
        }
        return Terminal.visible(text, singleLine: true)
    }

    /// `812 bytes`, `411.6 KiB`, `1.2 MiB`, `3.0 GiB`: binary units, as git counts them.
    static func size(_ bytes: Int) -> String {
        guard bytes >= 1024 else { return bytes == 1 ? "1 byte" : "\(bytes) bytes" }
        var value = Double(bytes) / 1024
        for unit in ["KiB", "MiB", "GiB"] {
            if value < 1024 || unit == "GiB" { return String(format: "%.1f", value) + " " + unit }
            value /= 1024
        }
        return "\(bytes) bytes"
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
