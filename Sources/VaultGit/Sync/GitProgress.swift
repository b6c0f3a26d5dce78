import VaultCore

/// git's progress, read from its standard error as it streams (`git fetch --progress`), turned
/// into `ProgressEvent`s; everything else git said is kept as text for the error messages.
///
/// With `--progress` git writes each step as a line it rewrites with carriage returns, and the
/// remote's steps come prefixed with `remote: ` and padded with spaces:
///
/// ```
/// remote: Compressing objects:  50% (1/2)        \r
/// Receiving objects:  45% (450/1000), 1.20 MiB | 3.40 MiB/s\r
/// Receiving objects: 100% (1000/1000), 2.61 MiB | 3.40 MiB/s, done.\n
/// Resolving deltas: 100% (12/12), done.\n
/// ```
///
/// Each record (up to a `\r` or `\n`) whose title is a step vault knows becomes an event
/// (`Receiving objects` → `receiving`, counting `objects`, with the bytes); any other record
/// (`From …`, `fatal: …`, ssh's host key warning) goes to `messages`, a line each, for
/// `GitTransport.reason`. git's English is read: vault runs git with `LC_ALL=C`.
struct GitProgressReader {
    /// Where the events go.
    let report: ProgressHandler
    /// What git said that is not progress, a line per record.
    private(set) var messages: [UInt8] = []
    /// The start of a record whose end has not come yet.
    private var pending: [UInt8] = []

    init(report: @escaping ProgressHandler) {
        self.report = report
    }

    /// Takes the next bytes git wrote, in whatever pieces the pipe gave them.
    mutating func read(_ chunk: [UInt8]) {
        var start = 0
        for (k, byte) in chunk.enumerated() where byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\n") {
            pending += chunk[start..<k]
            take(pending)
            pending.removeAll(keepingCapacity: true)
            start = k + 1
        }
        pending += chunk[start...]
    }

    /// The end of git's output: a last record without a line end is taken too.
    mutating func finish() {
        if !pending.isEmpty { take(pending) }
        pending = []
    }

    private mutating func take(_ record: [UInt8]) {
        let text = String(decoding: record, as: UTF8.self)
        if let event = GitProgressReader.event(in: text) {
            report(event)
        } else if !text.allSatisfy(\.isWhitespace) {
            messages += record
            messages.append(UInt8(ascii: "\n"))
        }
    }

    /// git's titles of the steps vault shows, with the action and unit each is shown as.
    /// `Unpacking objects` is a fetch of fewer than 100 objects (`fetch.unpackLimit`).
    static let steps: [String: (action: String, unit: String)] = [
        "Counting objects": ("counting", "objects"),
        "Compressing objects": ("compressing", "objects"),
        "Receiving objects": ("receiving", "objects"),
        "Unpacking objects": ("receiving", "objects"),
        "Resolving deltas": ("resolving", "deltas"),
        "Writing objects": ("sending", "objects"),
        "Updating files": ("checking out", "files"),
        "Checking out files": ("checking out", "files"),
    ]

    /// The event one record of git's progress stands for, or nil when it is not one:
    /// `Receiving objects:  45% (450/1000), 1.20 MiB | 3.40 MiB/s` → receiving 450 of 1000
    /// objects, 1,258,291 bytes; `Counting objects: 12` (no total yet) → counting 12 objects.
    static func event(in record: String) -> ProgressEvent? {
        var line = Substring(record.trimmingCharacters(in: .whitespaces))
        if line.hasPrefix("remote:") { line = line.dropFirst("remote:".count).drop(while: { $0 == " " }) }
        guard let colon = line.range(of: ": "), let step = steps[String(line[..<colon.lowerBound])] else {
            return nil
        }
        var rest = line[colon.upperBound...].drop(while: { $0 == " " })
        if rest.hasSuffix(", done.") { rest = rest.dropLast(", done.".count) }
        let done: Int
        var total: Int?
        var bytes: Int?
        if let percent = rest.firstIndex(of: "%") {
            // `45% (450/1000)`, then perhaps `, 1.20 MiB | 3.40 MiB/s`
            guard let open = rest[percent...].firstIndex(of: "("), let close = rest[open...].firstIndex(of: ")")
            else { return nil }
            let counts = rest[rest.index(after: open)..<close].split(separator: "/")
            guard counts.count == 2, let d = Int(counts[0]), let t = Int(counts[1]) else { return nil }
            done = d
            total = t
            let after = rest[rest.index(after: close)...]
            if after.hasPrefix(", "), let bar = after.range(of: " | ") {
                bytes = byteCount(after[after.index(after.startIndex, offsetBy: 2)..<bar.lowerBound])
            }
        } else {
            // No total known: `Counting objects: 12`.
            guard let n = Int(rest.prefix(while: \.isNumber)) else { return nil }
            done = n
        }
        return ProgressEvent(step.action, done: done, of: total, unit: step.unit, bytes: bytes)
    }

    /// git's rendering of a size (`strbuf_humanise_bytes`: `512 bytes`, `1 byte`, `411.62 KiB`,
    /// `1.20 MiB`, `3.00 GiB`) as a number of bytes, as near as its two decimals tell.
    static func byteCount(_ text: Substring) -> Int? {
        let parts = text.split(separator: " ")
        guard parts.count == 2, let number = Double(parts[0]), number >= 0 else { return nil }
        let scale: Double
        switch parts[1] {
        case "byte", "bytes": scale = 1
        case "KiB": scale = 1024
        case "MiB": scale = 1024 * 1024
        case "GiB": scale = 1024 * 1024 * 1024
        default: return nil
        }
        let bytes = (number * scale).rounded()
        return bytes < Double(Int.max) ? Int(bytes) : nil
    }
}
