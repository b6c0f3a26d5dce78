import Foundation
import VaultCore

/// What `vault import` reads, one kind per tool people keep conversations and journals in.
public enum ImportSource: String, Sendable, CaseIterable, Codable {
    /// ChatGPT's data export (the zip or its folder: `conversations.json` or `conversations-NNN.json`).
    case chatgpt
    /// Claude.ai's data export (`conversations.json`, `users.json`, `projects.json`).
    case claude
    /// Claude Code's session logs (`~/.claude/projects/<folder>/<session>.jsonl`).
    case claudeCode = "claude-code"
    /// Simon Willison's `llm` (`logs.db`).
    case llm
    /// jrnl (its plain-text journal, or `jrnl --export json`).
    case jrnl
    /// Day One (the JSON export, with its `photos/` folder).
    case dayone
}

/// One thing an export holds: a conversation (a room) or a journal entry (a diary entry).
public enum ImportedItem: Sendable {
    case conversation(ImportedConversation)
    case entry(ImportedEntry)
}

/// A conversation as its source holds it, read into the vault's terms.
///
/// `messages` is the transcript: the branch the person last saw (ChatGPT's `current_node` and
/// its parents; Claude's last leaf). Every other branch (an edited question, a regenerated
/// answer) is in `branches`, never mixed into the transcript.
public struct ImportedConversation: Sendable {
    public var source: ImportSource
    /// The source's own id of the conversation (ChatGPT's `conversation_id`, Claude's `uuid`,
    /// Claude Code's session id, llm's conversation id): what makes a later import find it.
    public var sourceID: String
    /// Empty when the source gives none: `Importing` titles the room by its first user line.
    public var title: String
    /// When it began, in the source's zone when it has one.
    public var created: Timestamp
    /// Front-matter settings the room gets (`model`, `system`, `temperature`, `project`, …).
    public var settings: [(String, FrontMatterValue)]
    /// The transcript, oldest first.
    public var messages: [ImportedMessage]
    /// The abandoned branches.
    public var branches: [ImportedBranch]
    /// What the person should know of how it was read (a time that was not a time, and what
    /// was written instead), each naming its place; the report gives them as warnings.
    public var notes: [String] = []

    public init(
        source: ImportSource, sourceID: String, title: String, created: Timestamp,
        settings: [(String, FrontMatterValue)] = [], messages: [ImportedMessage], branches: [ImportedBranch] = []
    ) {
        self.source = source
        self.sourceID = sourceID
        self.title = title
        self.created = created
        self.settings = settings
        self.messages = messages
        self.branches = branches
    }
}

/// A branch of a conversation that is not its transcript: the messages after the one it
/// forked at (`forkedAfter`, a source message id of the transcript or of another branch; nil:
/// it forked before the first message).
public struct ImportedBranch: Sendable {
    public var forkedAfter: String?
    /// The branch's own messages, oldest first (the first is the edited question or the
    /// regenerated answer).
    public var messages: [ImportedMessage]

    public init(forkedAfter: String?, messages: [ImportedMessage]) {
        self.forkedAfter = forkedAfter
        self.messages = messages
    }
}

/// One message of a conversation.
public struct ImportedMessage: Sendable {
    /// The source's own id of the message (unique in its conversation). Sources without one
    /// (jrnl has none; llm's older tables number responses) use what identifies it stably.
    public var sourceID: String
    public var role: Role
    /// When it was written, in the source's zone when it has one; nil: unknown (the writer
    /// takes the message before's time, else the conversation's).
    public var time: Timestamp?
    /// The model that wrote a reply (ChatGPT's `metadata.model_slug`, Claude Code's `message.model`).
    public var model: String?
    /// The text, exactly as the source holds it (the writer escapes what would read as structure).
    public var body: String
    /// What the message is when it is not plain conversation.
    public var kind: Kind?
    /// Files the message carried (images, pasted files), copied into `attachments/`; one the
    /// export names but does not hold (`ImportedAttachment.missing`) leaves a placeholder.
    public var attachments: [ImportedAttachment]
    /// The types of the blocks of this message that vault does not know, each kept in `body` as
    /// its JSON (`ExportFile.unknownBlock`), so the report can count them.
    public var unknownBlocks: [String] = []

    /// A message that is not plain conversation: kept, and marked, never shown as the conversation.
    public enum Kind: String, Sendable {
        /// A model's reasoning (`thoughts`, `reasoning_recap`, Claude's `thinking`).
        case thoughts
        /// A tool call the model made (`tool_use`), as a fenced block.
        case toolCall = "tool-call"
        /// What a tool gave back (`tool_result`, ChatGPT's `tool` role), as a fenced block.
        case toolResult = "tool-result"
        /// A message the source hid from the conversation (ChatGPT's `is_visually_hidden_from_conversation`).
        case hidden
        /// A subagent's message (Claude Code's sidechain lines).
        case sidechain
        /// A summary the tool wrote of what came before (Claude Code's compaction summary).
        case summary
    }

    public init(
        sourceID: String, role: Role, time: Timestamp?, model: String? = nil, body: String, kind: Kind? = nil,
        attachments: [ImportedAttachment] = []
    ) {
        self.sourceID = sourceID
        self.role = role
        self.time = time
        self.model = model
        self.body = body
        self.kind = kind
        self.attachments = attachments
    }
}

/// A file carried by a message or an entry.
public struct ImportedAttachment: Sendable {
    /// The file's name as the source gives it (`image.png`, `file-AbC123.webp`); the writer
    /// stores it under `attachments/` by its content, whatever the name.
    public var name: String
    /// Its bytes, read from the export (bounded by the largest attachment, not the export).
    public var bytes: [UInt8]
    /// Set when the export names the file but does not hold it (an expired image, a photo never
    /// synced, a file Claude's export lists by name only): nothing is stored, and the message
    /// keeps a placeholder naming it (`placeholder`) where its link would be.
    public var missing: Missing?

    /// What is known of a file the export does not hold.
    public struct Missing: Sendable, Equatable {
        /// What it is, in a word the report counts by (`image`, `photo`, `file`).
        package var kind: String
        /// The export's own reference to it (`file-service://file-AbC`, `dayone-moment://ID`),
        /// or "" when it gives none.
        package var pointer: String

        package init(kind: String, pointer: String) {
            self.kind = kind
            self.pointer = pointer
        }
    }

    public init(name: String, bytes: [UInt8]) {
        self.name = name
        self.bytes = bytes
    }

    /// A file the export names but does not hold.
    public static func missing(name: String, kind: String, pointer: String) -> ImportedAttachment {
        var attachment = ImportedAttachment(name: name, bytes: [])
        attachment.missing = Missing(kind: kind, pointer: pointer)
        return attachment
    }

    /// The line a missing file leaves in its message: `[photo 4f1e.jpeg is not in the export:
    /// dayone-moment://P1]` (nil for a file that is there).
    public var placeholder: String? {
        guard let missing else { return nil }
        let pointer = missing.pointer.isEmpty || missing.pointer == name ? "" : ": " + missing.pointer
        return "[\(missing.kind) \(name) is not in the export\(pointer)]"
    }
}

/// A journal entry as its source holds it.
public struct ImportedEntry: Sendable {
    public var source: ImportSource
    /// The source's own id (Day One's `uuid`); for jrnl, which has none, the entry's time and
    /// title.
    public var sourceID: String
    public var title: String
    /// When it was written, in its own zone (Day One's `timeZone`): the entry's day is this
    /// time's local day.
    public var time: Timestamp
    public var tags: [String]
    public var starred: Bool
    /// The text, exactly as written (Day One's backslash-escaped punctuation already unescaped).
    public var body: String
    public var attachments: [ImportedAttachment]

    public init(
        source: ImportSource, sourceID: String, title: String, time: Timestamp, tags: [String] = [],
        starred: Bool = false, body: String, attachments: [ImportedAttachment] = []
    ) {
        self.source = source
        self.sourceID = sourceID
        self.title = title
        self.time = time
        self.tags = tags
        self.starred = starred
        self.body = body
        self.attachments = attachments
    }
}

/// A reader of one source: finds what `paths` hold and gives it item by item, so memory stays
/// bounded by the largest conversation, not by the export.
public protocol ImportReader {
    var source: ImportSource { get }
    /// Whether `path` looks like this source (checked by content, not only by name).
    static func recognizes(_ path: String) -> Bool
    /// Reads every item of `paths`, in the export's order, giving each to `sink`. Items older
    /// than `since` (their last message, or the entry's time) may be skipped. Each part that
    /// can fail on its own (a conversation, an entry, a session log, one file of a split
    /// export) is read inside `sink.part`, so `--keep-going` leaves out only that part.
    ///
    /// - Throws: `VaultError.importing` naming the file and the place, for anything not in the
    ///   format (bad JSON or UTF-8, a truncated zip, a schema never seen, a missing image).
    func read(_ paths: [String], since: Timestamp?, into sink: ImportSink) throws(VaultError)
}

extension ImportReader {
    /// Reads every item of `paths` into `emit`, stopping at the first part not in the format.
    public func read(_ paths: [String], since: Timestamp?, emit: (ImportedItem) throws(VaultError) -> Void)
        throws(VaultError)
    {
        try withoutActuallyEscaping(emit) { emit throws(VaultError) in
            try read(paths, since: since, into: ImportSink(emit: emit))
        }
    }
}

/// Where a reader puts what it read, and what decides whether a part it cannot read stops
/// the import (the default) or is left out and reported (`--keep-going`).
public struct ImportSink {
    private let emitItem: (ImportedItem) throws(VaultError) -> Void
    private let leftOut: ((ImportProblem) -> Void)?
    private let skippedLine: ((String) -> Void)?
    /// The cap on what a reader holds whole (a conversation, a line, a file read whole).
    public let limits: ImportLimits

    /// - Parameters:
    ///   - emit: takes each item read.
    ///   - leftOut: nil: a part not in the format stops the import; else it is told the problem
    ///     and reading goes on with the next part.
    ///   - limits: the cap readers hold what they read to (`Importing` gives the vault's).
    ///   - skipped: told the type of each line a reader read and does not import by design (a
    ///     Claude Code `file-history-snapshot`), so the report says what was there.
    public init(
        emit: @escaping (ImportedItem) throws(VaultError) -> Void, leftOut: ((ImportProblem) -> Void)? = nil,
        limits: ImportLimits = ImportLimits(), skipped: ((String) -> Void)? = nil
    ) {
        self.emitItem = emit
        self.leftOut = leftOut
        self.limits = limits
        self.skippedLine = skipped
    }

    /// Tells the report that a line of `type` was read and is not imported (its type is not
    /// a conversation's).
    public func skipped(_ type: String) { skippedLine?(type) }

    public func emit(_ item: ImportedItem) throws(VaultError) { try emitItem(item) }

    /// Reads one part of an export. A part not in the format (`VaultError.importing`) stops
    /// the import, or, when the sink leaves such parts out, is reported and skipped; any
    /// other failure (the vault's disk) always stops it. Parts nest: a file of conversations
    /// is a part, and so is each conversation in it.
    public func part(_ read: () throws(VaultError) -> Void) throws(VaultError) {
        do throws(VaultError) {
            try read()
        } catch {
            guard let leftOut, case .importing(let problem) = error else { throw error }
            leftOut(problem)
        }
    }
}
