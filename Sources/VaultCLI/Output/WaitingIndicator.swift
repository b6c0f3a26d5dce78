import Foundation
import VaultKit

/// "waiting for the server at http://…/v1… 4 s" on standard error, when it is a terminal,
/// while a turn waits for a server that has not sent any text yet.
///
/// It appears after 1.5 s (a prompt reply never shows it), counts the seconds, says what
/// happened when vault waits to ask again (a 429's rate limit, a 5xx's server error: once per
/// try, never redrawn while the text is the same), and is erased (carriage return, erase line)
/// before the reply's first text or any message is written. It gives a person a sign of life
/// from a server that is slow to load a model, and the URL to check when it never answers.
final class WaitingIndicator: @unchecked Sendable {
    static let shared = WaitingIndicator()

    /// How long a wait goes unmentioned.
    static let delay = 1.5

    private let lock = NSLock()
    private var wait: ServerWait?
    private var since = Date()
    private var shown = false
    private var started = false
    /// The line last drawn: drawn again only when it changes.
    private var drawn = ""

    /// Takes the provider's news (`OpenAIProvider.onWait`).
    func report(_ news: ServerWait) {
        lock.withLock {
            switch news {
            case .waiting, .retrying:
                wait = news
                since = Date()
                if !started {
                    started = true
                    Thread { [self] in run() }.start()
                }
                if case .retrying = news { draw() }
            case .replying, .finished:
                wait = nil
                erase()
                drawn = ""
            }
        }
    }

    private func run() {
        while true {
            Thread.sleep(forTimeInterval: 0.25)
            lock.withLock { draw() }
        }
    }

    /// Draws the line for the current wait (called with the lock held).
    private func draw() {
        guard let wait else { return }
        let elapsed = Date().timeIntervalSince(since)
        let text: String
        switch wait {
        case .waiting(let url):
            guard elapsed >= WaitingIndicator.delay else { return }
            text = "waiting for the server at \(url)… \(Int(elapsed)) s (Ctrl-C stops)"
        case .retrying(_, let seconds, let reason, let attempt, let attempts):
            // Said once per try, what happened first: a server error is no rate limit.
            text = WaitingIndicator.retryLine(reason: reason, seconds: seconds, attempt: attempt, attempts: attempts)
        case .replying, .finished:
            return
        }
        guard !shown || text != drawn else { return }
        Terminal.write("\r\u{1B}[K" + Terminal.visible(text, singleLine: true), to: 2)
        shown = true
        drawn = text
    }

    /// `the server failed (500): boom; asking again in 2 s (try 2 of 3; Ctrl-C stops)`: the
    /// failure's first line, cut to fit one terminal line.
    static func retryLine(reason: String, seconds: Double, attempt: Int, attempts: Int) -> String {
        var what = String(reason.prefix { $0 != "\n" })
        if what.count > 100 { what = what.prefix(99) + "…" }
        let wait = seconds < 10 && seconds != seconds.rounded() ? String(format: "%.1f", seconds) : "\(Int(seconds))"
        return "\(what); asking again in \(wait) s (try \(attempt + 1) of \(attempts + 1); Ctrl-C stops)"
    }

    /// Erases the line, if one is shown (called with the lock held).
    private func erase() {
        guard shown else { return }
        Terminal.write("\r\u{1B}[K", to: 2)
        shown = false
    }
}
