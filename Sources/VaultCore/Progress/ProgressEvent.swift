/// How far a long piece of work has come, reported by the library through an `onProgress`
/// closure (an export's items, an index build's files, a sync's or a clone's transfer). The
/// library never prints it: the command line draws it on standard error when that is a terminal.
///
/// A transfer reports each of its steps as its own action, each counting up to its total:
/// `counting` and `compressing` objects (the sending side preparing), `receiving` objects (with
/// the bytes received so far), `resolving` deltas, `sending` objects (a push, with the bytes
/// sent), `checking out` files (a clone). When a transfer's connection is over it reports
/// `ProgressEvent.ended`, so that whatever comes next (a password prompt for the next
/// connection, a message) starts on a clean line:
///
/// ```swift
/// sync.onProgress = { event in
///     if event.isEnd { clearLine() } else { draw("\(event.action) \(event.done)/\(event.total ?? 0)") }
/// }
/// ```
public struct ProgressEvent: Sendable, Equatable {
    /// What is being done, as a verb: `exporting`, `indexing`, `receiving`.
    public var action: String
    /// How many are done.
    public var done: Int
    /// How many there are in all; nil while unknown.
    public var total: Int?
    /// What is counted, plural: `items`, `files`, `objects`.
    public var unit: String
    /// The bytes moved so far, for a transfer that counts them (`receiving`, `sending`); else nil.
    public var bytes: Int?
    /// Whether this is not a step but the end of one piece of work (`ProgressEvent.ended`).
    public var isEnd: Bool

    public init(_ action: String, done: Int, of total: Int?, unit: String, bytes: Int? = nil) {
        self.action = action
        self.done = done
        self.total = total
        self.unit = unit
        self.bytes = bytes
        self.isEnd = false
    }

    /// A transfer's connection is over: what shows its progress is cleared (a next one may follow).
    public static let ended: ProgressEvent = {
        var event = ProgressEvent("", done: 0, of: nil, unit: "")
        event.isEnd = true
        return event
    }()
}

/// Where a library workflow reports its progress; called on the thread doing the work.
public typealias ProgressHandler = @Sendable (ProgressEvent) -> Void
