/// How far a long piece of work has come, reported by the library through an `onProgress`
/// closure (an export's items, an index build's files, a sync's or a clone's transfer). The
/// library never prints it: the command line draws it on standard error when that is a terminal.
public struct ProgressEvent: Sendable, Equatable {
    /// What is being done, as a verb: `exporting`, `indexing`, `receiving`.
    public var action: String
    /// How many are done.
    public var done: Int
    /// How many there are in all; nil while unknown.
    public var total: Int?
    /// What is counted, plural: `items`, `files`, `objects`.
    public var unit: String

    public init(_ action: String, done: Int, of total: Int?, unit: String) {
        self.action = action
        self.done = done
        self.total = total
        self.unit = unit
    }
}

/// Where a library workflow reports its progress; called on the thread doing the work.
public typealias ProgressHandler = @Sendable (ProgressEvent) -> Void
