import Synchronization

/// Something a workflow wants the person (or the client) to know: what it did, or a warning.
///
/// The library never prints: a workflow returns its notes in its result, or hands them, as they
/// happen, to the vault's `NoteSink` (a repository made, a crash-interrupted append finished,
/// a room renamed while a reply came). The command line prints them on standard error
/// (`vault: …`, `vault: warning: …`); an MCP server returns them with the tool's answer.
///
///     let notes = NoteList()
///     let vault = session.vault.reporting(to: notes.sink)
///     …
///     for note in notes.taken() { print(note) }   // "warning: …"
public struct Note: Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// What was done (a repository made, a turn waited for).
        case note
        /// Something the person should look at (a file shown from one side of a conflict).
        case warning
    }

    public var kind: Kind
    /// One line, without `vault: ` or `warning: `.
    public var text: String

    public init(_ kind: Kind, _ text: String) {
        self.kind = kind
        self.text = text
    }

    public static func note(_ text: String) -> Note { Note(.note, text) }
    public static func warning(_ text: String) -> Note { Note(.warning, text) }

    /// A note given as text as the git layer writes them: "warning: …" is a warning.
    public init(reported text: String) {
        if text.hasPrefix("warning: ") {
            self.init(.warning, String(text.dropFirst("warning: ".count)))
        } else {
            self.init(.note, text)
        }
    }

    /// `warning: text`, or the text.
    public var description: String { kind == .warning ? "warning: " + text : text }
}

/// Where notes go as they happen: the CLI's prints, an MCP request's `NoteList`.
public typealias NoteSink = @Sendable (Note) -> Void

/// Notes gathered while workflows run, to hand back with their results (thread-safe: one per
/// request, or one per session).
public final class NoteList: Sendable {
    private let notes = Mutex<[Note]>([])

    public init() {}

    /// Adds `note`; hand this to `Vault.reporting(to:)` or a session.
    public var sink: NoteSink { { [self] note in self.add(note) } }

    public func add(_ note: Note) { notes.withLock { $0.append(note) } }

    /// Every note so far, in order.
    public var all: [Note] { notes.withLock { $0 } }

    /// Every note so far, the list emptied.
    public func taken() -> [Note] {
        notes.withLock { list in
            defer { list.removeAll() }
            return list
        }
    }
}
