import CCrypto
import Foundation
import VaultCore

#if canImport(Glibc)
import Glibc
#endif

/// `vault import`: what a reader finds (`ImportReader`), written into the vault as rooms and
/// diary entries, as one change (one commit: `import: chatgpt, 12 rooms new, 3 updated, …`).
///
/// Idempotent: a conversation's room carries `source:` and `source_id:` in its front-matter,
/// and each message an id made from the source's own ids (`ImportIdentity`), so importing the
/// same or a newer export again adds only messages the room does not hold yet, and a room the
/// person has since continued in vault keeps what they wrote. An abandoned branch (an edited
/// question, a regenerated answer) is a room of its own, `fork_of:` its conversation and
/// `forked_after:` the message it left at, so no text appears twice (FORMAT.md, "Imported
/// conversations").
///
/// Nothing is half imported: every file is first written to `.vault/import/` as the reader
/// gives it (memory holds one conversation at a time), and only when the reader is done are
/// they moved into place together (`FileIO.writeAll`) and committed. A part of the export
/// not in its format leaves the vault as it was, unless `keepGoing`: then that part (a
/// conversation, an entry, a file of a split export) is left out, everything else is
/// imported, and the report names each part left out with its file and place.
public struct Importing {
    public let vault: Vault

    /// This machine's caps (the front end's: the user configuration's `limits:`, the vault's git
    /// config), which `vault.yml` may lower, never raise: an import holds no file larger than
    /// `maxFileSize` whole (`ImportLimits`).
    public var machineLimits = IncomingLimits()

    public init(vault: Vault, machineLimits: IncomingLimits = IncomingLimits()) {
        self.vault = vault
        self.machineLimits = machineLimits
    }

    /// What an import did (or, with `dryRun`, would do).
    public struct Report: Sendable, Codable, Equatable {
        package var source: String
        public var roomsNew = 0
        package var roomsUpdated = 0
        package var roomsUnchanged = 0
        /// Branch rooms among the new ones.
        package var branches = 0
        package var messagesAdded = 0
        /// Messages the vault holds whose text in the export is not what the vault has (changed
        /// in the source, or by the person in vault since): the vault's text is kept.
        package var messagesDiffering = 0
        package var entriesNew = 0
        package var entriesUnchanged = 0
        package var attachments = 0
        /// Files the export names but does not hold, by kind (`photo`: 6): each left a
        /// placeholder in its message or entry, whose text is all there.
        package var missingFiles: [String: Int] = [:]
        /// Blocks of types vault does not know, by type (`token_budget`: 2): each kept in its
        /// message as its JSON.
        package var unknownBlocks: [String: Int] = [:]
        /// Items older than `--since`, not imported.
        package var skippedOlder = 0
        /// Lines read and not imported by design, by type (Claude Code's `file-history-snapshot`):
        /// "nothing found" is said only when the export held nothing at all.
        package var skippedLines: [String: Int] = [:]
        /// The parts of the export left out with `keepGoing` (a conversation, an entry, a file
        /// of a split export), each with its file, place and problem; empty: nothing was.
        public var leftOut: [String] = []
        /// What the person should know of how the export was read (a time that was not a
        /// time), each naming its place.
        public var notes: [String] = []
        /// Whether a commit was made (false: nothing new, or a dry run).
        public var committed = false
        package var dryRun = false
        /// The files written (or that would be), in the order the export gave them.
        public var paths: [String] = []

        package init(source: String) { self.source = source }

        /// `12 rooms new (3 branches), 2 updated (+40 messages), 30 unchanged; 5 entries new`.
        public var summary: String {
            var parts: [String] = []
            if roomsNew + roomsUpdated + roomsUnchanged > 0 {
                var rooms = "\(Merge.counted(roomsNew, "room", "rooms")) new"
                if branches > 0 { rooms += " (\(Merge.counted(branches, "branch", "branches")))" }
                rooms += ", \(roomsUpdated) updated, \(roomsUnchanged) unchanged"
                rooms += "; \(Merge.counted(messagesAdded, "message", "messages")) added"
                parts.append(rooms)
            }
            if entriesNew + entriesUnchanged > 0 {
                parts.append("\(Merge.counted(entriesNew, "entry", "entries")) new, \(entriesUnchanged) unchanged")
            }
            if messagesDiffering > 0 {
                let verb = messagesDiffering == 1 ? "differs" : "differ"
                parts.append("\(Merge.counted(messagesDiffering, "message", "messages")) \(verb) from the export (the vault's text kept)")
            }
            if attachments > 0 { parts.append(Merge.counted(attachments, "attachment", "attachments")) }
            for (kind, n) in missingFiles.sorted(by: { $0.key < $1.key }) {
                parts.append("\(Merge.counted(n, kind, kind + "s")) \(n == 1 ? "was" : "were") not in the export (a placeholder kept)")
            }
            if !unknownBlocks.isEmpty {
                let n = unknownBlocks.values.reduce(0, +)
                let types = unknownBlocks.keys.sorted().joined(separator: ", ")
                parts.append("\(Merge.counted(n, "block", "blocks")) of a type vault does not know kept as JSON (\(types))")
            }
            if skippedOlder > 0 { parts.append("\(skippedOlder) older than --since left out") }
            if !skippedLines.isEmpty {
                let n = skippedLines.values.reduce(0, +)
                let types = skippedLines.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
                parts.append("\(Merge.counted(n, "line", "lines")) of types vault does not import (\(types))")
            }
            return parts.isEmpty ? "nothing found" : parts.joined(separator: "; ")
        }
    }

    /// Imports what `reader` finds in `paths`.
    ///
    /// - Parameters:
    ///   - since: items whose last message (or entry) is older are left out.
    ///   - dryRun: reads everything and reports, writes nothing.
    ///   - keepGoing: leave out the parts not in the format and import the rest (else nothing).
    ///   - progress: how many items were read, now and then (`importing`, `items`).
    public func run(
        _ reader: some ImportReader, paths: [String], since: Timestamp? = nil, dryRun: Bool = false,
        keepGoing: Bool = false, progress: ProgressHandler? = nil
    ) throws(VaultError) -> Report {
        var report = Report(source: reader.source.rawValue)
        report.dryRun = dryRun
        // Before the lock: a FIFO (or a device, a socket) given as the export is refused at
        // once, never waited on while the vault is locked.
        for path in paths { _ = try ExportInput.kind(of: path) }
        let limits = ImportLimits(machineLimits.lowered(by: vault.config.limits))
        return try vault.change { change throws(VaultError) -> Report in
            // The person's hand edits of the rooms this import appends to are committed first,
            // as `edit:`, in `ImportPlan.commit`, once those rooms are known.
            var plan = try ImportPlan(vault: vault, source: reader.source, dryRun: dryRun)
            defer { plan.discard() }
            var read = 0
            var leftOut: [String] = []
            var skippedLines: [String: Int] = [:]
            try withoutActuallyEscaping({ (item: ImportedItem) throws(VaultError) in
                read += 1
                if read % 100 == 0 { progress?(ProgressEvent("importing", done: read, of: nil, unit: "items")) }
                try plan.take(item, since: since, report: &report)
            }) { take throws(VaultError) in
                let sink = ImportSink(
                    emit: take, leftOut: keepGoing ? { leftOut.append($0.description) } : nil, limits: limits,
                    skipped: { skippedLines[$0, default: 0] += 1 })
                try reader.read(paths, since: since, into: sink)
            }
            report.leftOut = leftOut
            report.skippedLines = skippedLines
            progress?(ProgressEvent("importing", done: read, of: nil, unit: "items"))
            report.paths = plan.staged.map(\.path)
            guard !dryRun, !plan.staged.isEmpty else { return report }
            try plan.commit(in: change, message: "import: \(reader.source.rawValue), " + report.summary)
            report.committed = true
            return report
        }
    }
}

/// The files an import will write, staged in `.vault/import/staged` until the reader is done:
/// one file, each new file's bytes appended to it (3,693 small files made and removed twice
/// cost more than their bytes), whose name is removed as soon as it is open.
struct ImportPlan {
    let vault: Vault
    let source: ImportSource
    let dryRun: Bool
    let folder: String
    /// Rooms already imported from this source: `source_id` → path.
    var known: [String: String]
    /// Paths taken by this import (new files), so two conversations with one title get two.
    var taken: Set<String> = []
    /// The names (stems, NFC) of every room in the vault and made by this import, once read.
    var roomNames: Set<String>?
    /// Attachments stored by this import (paths), so one file is staged once.
    var storedAttachments: Set<String> = []
    struct Staged {
        var path: String
        /// Where its bytes are in the staging file.
        var offset: Int
        var count: Int
        /// The stamp of the file it replaces (nil: a new file).
        var replacing: FileIO.Stamp?
    }
    private(set) var staged: [Staged] = []
    /// The staging file (-1: none, a dry run) and its length so far.
    private var stagingFile: Int32 = -1
    private var stagedBytes = 0
    var stagingPath: String { folder + "/staged" }

    init(vault: Vault, source: ImportSource, dryRun: Bool) throws(VaultError) {
        self.vault = vault
        self.source = source
        self.dryRun = dryRun
        folder = vault.root + "/" + VaultPath.state + "/import"
        known = ImportPlan.importedRooms(in: vault, source: source)
        if !dryRun {
            discard()
            try FileIO.makeDirectory(folder)
            stagingFile = open(stagingPath, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            guard stagingFile >= 0 else {
                throw VaultError.io(path: stagingPath, operation: "create", reason: String(cString: strerror(errno)))
            }
            // Held open, its name removed: what is staged never has to reach the disk (pages of
            // a file with no name are dropped, not written back), and a crash leaves nothing.
            unlink(stagingPath)
        }
    }

    /// Removes what was staged (after the move, or when the import failed).
    func discard() {
        if stagingFile >= 0 { close(stagingFile) }
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for name in entries { unlink(folder + "/" + name) }
        rmdir(folder)
    }

    mutating func stage(_ bytes: [UInt8], at path: String, replacing: FileIO.Stamp?) throws(VaultError) {
        if !dryRun {
            var done = 0
            while done < bytes.count {
                let n = bytes.withUnsafeBytes { pwrite(stagingFile, $0.baseAddress! + done, $0.count - done, off_t(stagedBytes + done)) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else {
                    throw VaultError.io(path: stagingPath, operation: "write", reason: String(cString: strerror(errno)))
                }
                done += n
            }
        }
        staged.append(Staged(path: path, offset: stagedBytes, count: bytes.count, replacing: replacing))
        stagedBytes += bytes.count
    }

    /// A free path for a new room made at `created`, in its folder (`Vault.roomFolder`): a name no
    /// room under `rooms/` has (read once), nor one this import made (as `Vault.newRoomPath`).
    mutating func freeRoomPath(stem: String, created: Timestamp) -> String {
        if roomNames == nil {
            roomNames = Set(vault.roomPaths(sorted: false).map { VaultPath.stem(of: $0).precomposedStringWithCanonicalMapping })
        }
        let folder = vault.roomFolder(created: created)
        var name = stem
        var n = 2
        while roomNames!.contains(name.precomposedStringWithCanonicalMapping)
            || FileIO.entryExists(vault.absolute("\(folder)/\(name).md"))
        {
            name = "\(stem)-\(n)"
            n += 1
        }
        roomNames!.insert(name.precomposedStringWithCanonicalMapping)
        taken.insert("\(folder)/\(name).md")
        return "\(folder)/\(name).md"
    }

    /// A free path for a new file: not on disk, not taken by this import.
    mutating func freePath(folder: String, stem: String) -> String {
        var candidate = "\(folder)/\(stem).md"
        var n = 2
        while taken.contains(candidate) || FileIO.entryExists(vault.absolute(candidate)) {
            candidate = "\(folder)/\(stem)-\(n).md"
            n += 1
        }
        taken.insert(candidate)
        return candidate
    }

    mutating func take(_ item: ImportedItem, since: Timestamp?, report: inout Importing.Report) throws(VaultError) {
        switch item {
        case .conversation(let conversation):
            let last = conversation.messages.compactMap(\.time).last ?? conversation.created
            if let since, last.date < since.date {
                report.skippedOlder += 1
                return
            }
            report.notes += conversation.notes
            for message in conversation.messages + conversation.branches.flatMap(\.messages) {
                ImportPlan.count(message.attachments, message.unknownBlocks, in: &report)
            }
            try take(conversation, report: &report)
        case .entry(let entry):
            if let since, entry.time.date < since.date {
                report.skippedOlder += 1
                return
            }
            ImportPlan.count(entry.attachments, [], in: &report)
            try take(entry, report: &report)
        }
    }

    /// What the export names and does not hold, and what vault does not know, counted for every
    /// item read (imported now or before): the report says what the export is missing.
    static func count(_ attachments: [ImportedAttachment], _ unknown: [String], in report: inout Importing.Report) {
        for missing in attachments.compactMap(\.missing) { report.missingFiles[missing.kind, default: 0] += 1 }
        for type in unknown { report.unknownBlocks[type, default: 0] += 1 }
    }

    // MARK: Conversations

    mutating func take(_ c: ImportedConversation, report: inout Importing.Report) throws(VaultError) {
        let c = inVaultZone(c)
        // A conversation the source gave no title is titled by its first line of the person's
        // (else `Untitled`); the words are the vault's language (`ListingWords`).
        let words = ListingWords.of(vault.config.locale)
        let asked = c.messages.first { $0.role == .user && $0.kind == nil }.map { ExportFile.titleLine($0.body) } ?? ""
        let title = !c.title.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? c.title : !asked.isEmpty ? asked : words.untitled
        // Branches without their transcript (a Claude Code session whose own log is gone, its
        // subagents' logs left): only the branch rooms, known by the ids they would have beside
        // it, so the transcript found later joins them instead of writing them twice.
        if !c.messages.isEmpty || c.branches.isEmpty {
            try takeRoom(
                sourceID: c.sourceID, title: title, created: c.created, settings: c.settings, messages: c.messages,
                conversation: c, branch: nil, report: &report)
        }
        for (n, branch) in c.branches.enumerated() where !branch.messages.isEmpty {
            try takeRoom(
                sourceID: c.sourceID + "/" + branch.messages[0].sourceID, title: "\(title) · \(words.branch(n + 2))",
                created: branch.messages[0].time ?? c.created, settings: c.settings, messages: branch.messages,
                conversation: c, branch: branch, report: &report)
        }
    }

    private mutating func takeRoom(
        sourceID: String, title: String, created: Timestamp, settings: [(String, FrontMatterValue)],
        messages: [ImportedMessage], conversation c: ImportedConversation, branch: ImportedBranch?,
        report: inout Importing.Report
    ) throws(VaultError) {
        var drafts: [MessageDraft] = []
        var time = created
        for message in messages {
            time = message.time ?? time
            drafts.append(try draft(message, at: time, conversation: c.sourceID, report: &report))
        }
        if let path = known[sourceID] {
            let (bytes, stamp) = try FileIO.readStamped(vault.absolute(path))
            let room = try RoomFile(parsing: bytes, path: path)
            var have: [String: Message] = [:]
            for message in room.messages { have[message.id] = message }
            let new = drafts.filter { have[$0.id ?? ""] == nil }
            // A message both hold with another text: changed in the source or by the person in
            // vault; which one cannot be told, so the vault's text stays and the report counts it.
            report.messagesDiffering += drafts.count { draft in
                guard let held = have[draft.id ?? ""] else { return false }
                return held.body != draft.body
            }
            guard !new.isEmpty else {
                report.roomsUnchanged += 1
                return
            }
            let updated = room.appending(new, display: vault.headerDisplay).bytes
            try stage(updated, at: path, replacing: stamp)
            report.roomsUpdated += 1
            report.messagesAdded += new.count
            return
        }
        let path = freeRoomPath(stem: VaultPath.slug(title.isEmpty ? "untitled" : title), created: created)
        var front: [(String, FrontMatterValue)] = [
            ("source", .string(source.rawValue)), ("source_id", .string(sourceID)),
        ]
        if let branch {
            front.append(("fork_of", .string(c.sourceID)))
            if let after = branch.forkedAfter {
                front.append(("forked_after", .string(ImportIdentity.messageID(source, c.sourceID, after))))
            }
        }
        front += settings
        let empty = RoomFile.newRoom(title: title, created: created, settings: front)
        let room = try RoomFile(parsing: empty, path: path)
        let bytes = room.appending(drafts, display: vault.headerDisplay).bytes
        try stage(bytes, at: path, replacing: nil)
        known[sourceID] = path
        report.roomsNew += 1
        if branch != nil { report.branches += 1 }
        report.messagesAdded += drafts.count
    }

    private mutating func draft(
        _ m: ImportedMessage, at time: Timestamp, conversation: String, report: inout Importing.Report
    ) throws(VaultError) -> MessageDraft {
        var attributes: [MessageHeader.Attribute] = []
        if let model = m.model.map(ImportPlan.attributeValue), !model.isEmpty {
            attributes.append(.init("model", model))
        }
        if let kind = m.kind { attributes.append(.init("kind", kind.rawValue)) }
        var body = m.body
        for attachment in m.attachments {
            var link: String
            if let placeholder = attachment.placeholder {
                link = placeholder
            } else {
                link = try store(attachment, report: &report).markdown(from: "..")
            }
            body += (body.isEmpty || body.hasSuffix("\n") ? "" : "\n\n") + link
        }
        return MessageDraft(
            role: m.role, body: body, timestamp: time, attributes: attributes,
            displaySuffix: [m.model, m.kind.map { "(\($0.rawValue))" }].compactMap { $0 }.joined(separator: " "),
            id: ImportIdentity.messageID(source, conversation, m.sourceID))
    }

    /// A conversation's times in the vault's zone where the source gave UTC (ChatGPT's and
    /// llm's epoch seconds, Claude's and Claude Code's `Z`): the room reads in the person's zone;
    /// a time with another offset keeps it. The instant never changes.
    func inVaultZone(_ c: ImportedConversation) -> ImportedConversation {
        let zone = vault.config.timeZone
        func local(_ t: Timestamp) -> Timestamp { t.utcOffsetSeconds == 0 ? Timestamp(date: t.date, timeZone: zone) : t }
        func local(_ m: ImportedMessage) -> ImportedMessage {
            var m = m
            m.time = m.time.map(local)
            return m
        }
        var c = c
        c.created = local(c.created)
        c.messages = c.messages.map(local)
        for k in c.branches.indices { c.branches[k].messages = c.branches[k].messages.map(local) }
        return c
    }

    /// A header attribute's value: no spaces, no `-->` (FORMAT.md, "Message headers").
    static func attributeValue(_ text: String) -> String {
        String(text.map { $0 == " " || $0 == "\t" || $0 == "\n" ? "_" : $0 }).replacingOccurrences(of: "-->", with: "--")
    }

    /// A stored attachment: its path in the vault and the name a link gives it.
    struct StoredAttachment {
        var path: String
        var name: String

        /// The Markdown that links it from a file whose folder reaches the vault's root by `up`.
        func markdown(from up: String) -> String { Attachments.link(to: path, named: name, from: up) }
    }

    /// Stores an attachment by its content, where `vault chat` stores one (`Attachments.address`).
    private mutating func store(_ a: ImportedAttachment, report: inout Importing.Report) throws(VaultError)
        -> StoredAttachment
    {
        let path = Attachments.address(of: a.bytes, named: a.name)
        if !storedAttachments.contains(path), !FileIO.exists(vault.absolute(path)) {
            try stage(a.bytes, at: path, replacing: nil)
            storedAttachments.insert(path)
            report.attachments += 1
        }
        return StoredAttachment(path: path, name: a.name)
    }

    // MARK: Entries

    mutating func take(_ e: ImportedEntry, report: inout Importing.Report) throws(VaultError) {
        let id = ImportIdentity.entryID(source, e.sourceID)
        if let existing = known["entry:" + id] ?? findEntry(id: id, on: e.time) {
            known["entry:" + id] = existing
            report.entriesUnchanged += 1
            return
        }
        var body = e.body
        for attachment in e.attachments {
            if let placeholder = attachment.placeholder {
                // Not in the export: the placeholder stands where the source referred to it.
                let references = ["![](dayone-moment://\(attachment.name))", "![](\(attachment.name))"]
                if let reference = references.first(where: body.contains) {
                    body = body.replacingOccurrences(of: reference, with: placeholder)
                } else {
                    body += (body.isEmpty || body.hasSuffix("\n") ? "" : "\n\n") + placeholder
                }
                continue
            }
            // An entry is two folders down; a reference the source left in the text (Day One's
            // `![](dayone-moment://ID)`, the attachment named by its ID) becomes the link.
            let stored = try store(attachment, report: &report)
            let target = "../../" + stored.path
            // Either form a reader leaves: the source's own reference, or the attachment's name.
            let references = ["](dayone-moment://\(attachment.name))", "](\(attachment.name))"]
            if let reference = references.first(where: body.contains) {
                body = body.replacingOccurrences(of: reference, with: "](\(target))")
            } else {
                body += (body.isEmpty || body.hasSuffix("\n") ? "" : "\n\n") + stored.markdown(from: "../..")
            }
        }
        let day = e.time.localDate
        let year = String(format: "%04d", day.year)
        let slug = VaultPath.slug(e.title)
        let stem = e.title.isEmpty || slug == "untitled" ? "\(day)" : "\(day)-\(slug)"
        let path = freePath(folder: VaultPath.diary + "/" + year, stem: stem)
        var bytes = DiaryFile.newEntry(
            id: id, title: e.title, created: e.time, tags: e.tags, heading: e.title.isEmpty ? "\(day)" : e.title,
            body: body)
        var extra = "source: \(source.rawValue)\n"
        if e.starred { extra += "starred: true\n" }
        bytes = ImportPlan.inserting(extra, beforeClosingFrontMatterOf: bytes)
        try stage(bytes, at: path, replacing: nil)
        known["entry:" + id] = path
        report.entriesNew += 1
    }

    /// An entry of this id already in the vault (imported before), looked for on its day's
    /// folder: entries keep their day.
    func findEntry(id: String, on time: Timestamp) -> String? {
        let year = String(format: "%04d", time.localDate.year)
        let folder = VaultPath.diary + "/" + year
        for entry in FileIO.list(vault.absolute(folder)) where entry.kind == .file && entry.name.hasSuffix(".md") {
            let path = folder + "/" + entry.name
            if let head = ImportPlan.head(vault.absolute(path)), head.contains("\nid: \(id)\n") { return path }
        }
        return nil
    }

    static func inserting(_ lines: String, beforeClosingFrontMatterOf bytes: [UInt8]) -> [UInt8] {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let close = text.range(of: "\n---\n", range: text.index(text.startIndex, offsetBy: 4)..<text.endIndex)
        else { return bytes }
        return Array((text[..<close.lowerBound] + "\n" + lines.dropLast() + text[close.lowerBound...]).utf8)
    }

    // MARK: What is there already

    /// The first 8 KiB of a file, as text.
    static func head(_ path: String) -> String? {
        guard let read = try? FileIO.read(path, offset: 0, count: 8192), !read.bytes.isEmpty else { return nil }
        return String(decoding: read.bytes, as: UTF8.self)
    }

    /// Rooms imported from `source` before: their `source_id` → path, from each room's
    /// front-matter (its first lines only).
    static func importedRooms(in vault: Vault, source: ImportSource) -> [String: String] {
        var out: [String: String] = [:]
        for path in vault.roomPaths(sorted: false) {
            guard let head = head(vault.absolute(path)), head.hasPrefix("---"),
                let end = head.range(of: "\n---", range: head.index(head.startIndex, offsetBy: 3)..<head.endIndex)
            else { continue }
            var from: String?
            var id: String?
            for line in head[..<end.lowerBound].split(separator: "\n") {
                if line.hasPrefix("source: ") { from = scalar(line.dropFirst(8)) }
                if line.hasPrefix("source_id: ") { id = scalar(line.dropFirst(11)) }
            }
            if from == source.rawValue, let id, out[id] == nil { out[id] = path }
        }
        return out
    }

    /// A plain or double-quoted YAML scalar's text.
    static func scalar(_ raw: Substring) -> String {
        let text = raw.trimmingCharacters(in: .whitespaces)
        guard text.hasPrefix("\""), let data = text.data(using: .utf8),
            let decoded = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) as? String
        else { return text }
        return decoded
    }

    // MARK: Commit

    /// Moves every staged file into place (each only while the file it replaces is still the
    /// version read) and commits them as the change's one commit.
    func commit(in change: Change, message: String) throws(VaultError) {
        let paths = staged.map(\.path)
        change.include(paths)
        // What the person changed by hand in a room this import appends to is their commit
        // (`edit: …`), before the import's own: the import's commit holds only what it wrote.
        try change.commitHandEdits()
        change.willChange(paths)
        for path in Set(paths.map { FileIO.parent(of: vault.absolute($0)) }) { try FileIO.makeDirectory(path) }
        try FileIO.writeAll(paths.map(vault.absolute)) { i throws(VaultError) in
            let s = staged[i]
            let now = FileIO.stamp(of: vault.absolute(s.path))
            if let replacing = s.replacing {
                guard now == replacing else { throw VaultError.changedOnDisk(path: s.path) }
            } else if now != nil, !s.path.hasPrefix(VaultPath.attachments + "/") {
                throw VaultError.changedOnDisk(path: s.path)
            }
            return try FileIO.pread(stagingFile, offset: s.offset, count: s.count, path: stagingPath)
        }
        try change.commit(message: message)
    }
}

/// Ids of imported messages and entries, made from the source's own ids so that two imports
/// of one export (on one machine or two) write the same ids: `m-` (or `d-`) and 12 Crockford
/// base-32 characters of the SHA-1 of `source`, the conversation's id and the message's id.
package enum ImportIdentity {
    package static func messageID(_ source: ImportSource, _ conversation: String, _ message: String) -> String {
        Identifier.messageID(bits: bits(source.rawValue + "\u{0}" + conversation + "\u{0}" + message))
    }

    package static func entryID(_ source: ImportSource, _ entry: String) -> String {
        Identifier.entryID(bits: bits(source.rawValue + "\u{0}" + entry))
    }

    /// The first 64 bits of the SHA-1 of `text`, big-endian.
    static func bits(_ text: String) -> UInt64 {
        sha1(Array(text.utf8)).prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
    }

    static func sha1(_ bytes: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 20)
        bytes.withUnsafeBufferPointer { b in _ = SHA1(b.baseAddress, b.count, &out) }
        return out
    }
}
