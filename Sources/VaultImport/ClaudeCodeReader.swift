import Foundation
import VaultCore

/// Reads Claude Code's session logs: `~/.claude/projects/<folder>/<session>.jsonl`, one JSON
/// object a line, one conversation per session.
///
/// A path may be one `.jsonl` file, a project folder (its `.jsonl` files, and the subagents'
/// logs: `agent-*.jsonl` beside them, `<session>/subagents/*.jsonl` under them) or the
/// projects folder (each project folder in it). Lines are grouped by their `sessionId`, so a
/// subagent's log written to a file of its own joins its session.
///
/// - The transcript is the session's lines in file order (a `parentUuid` that points nowhere
///   changes nothing); an assistant turn written over several lines that share one
///   `message.id` becomes one message for its text, one `.thoughts` message for its
///   `thinking`, and one `.toolCall` message per `tool_use` block (a fenced JSON block);
///   each `tool_result` block of a user line becomes a `.toolResult` message.
/// - Sidechain lines (`isSidechain: true`, a subagent's work) are kept apart: each subagent's
///   run (its `agentId`, else the lines that chain to one root) is a branch forked after the
///   transcript message written just before it, every message of it with kind `.sidechain`.
/// - Ids: the session id for the conversation; a line's `uuid` for its prompt and results, the
///   assistant's `message.id` for its text (`<id>:thinking` for its reasoning) and the
///   `tool_use` block's id for a call (`<id>:result` for what it gave), so reading a grown log
///   again gives the same ids plus new ones.
/// - Lines of other types (`file-history-snapshot`, …) are skipped and counted in `skipped`.
///
///     let reader = ClaudeCodeReader()
///     try reader.read(ClaudeCodeReader.defaultPaths(), since: nil) { item in … }
///     reader.skipped.count   // lines of types it does not import
package struct ClaudeCodeReader: ImportReader {
    package var source: ImportSource { .claudeCode }
    /// The lines of types this reader does not import, by type, counted while reading.
    package let skipped = SkippedLines()

    package init() {}

    /// Where Claude Code keeps its logs: `$CLAUDE_CONFIG_DIR/projects`, else `~/.claude/projects`.
    package static func defaultPaths(environment: [String: String]) -> [String] {
        if let config = environment["CLAUDE_CONFIG_DIR"], !config.isEmpty { return [config + "/projects"] }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return [home + "/.claude/projects"]
    }

    /// A `.jsonl` file with a Claude Code log line (one with a `sessionId`, or a `summary`) among
    /// its first lines, or a folder holding such files (or folders of them). Empty files and
    /// files of other lines only (`file-history-snapshot`, which Claude Code writes first) are
    /// read past, and so are long lines (`looksLikeLog`).
    package static func recognizes(_ path: String) -> Bool {
        guard ExportFile.isFolder(path) else {
            return path.hasSuffix(".jsonl") && (try? ExportInput.openNamed(path)).map(looksLikeLog) ?? false
        }
        guard let root = try? ExportDirectory(path) else { return false }
        func holdsLogs(_ folder: String, first count: Int) -> Bool {
            logNames(root.entries(in: folder)).filter { $0.entry == .file }.prefix(count).contains { log in
                (try? root.open(folder.isEmpty ? log.name : folder + "/" + log.name)).map(looksLikeLog) ?? false
            }
        }
        if !logNames(root.entries()).isEmpty { return holdsLogs("", first: 50) }
        return root.entries().filter { $0.entry == .folder }.prefix(20).contains { holdsLogs($0.name, first: 20) }
    }

    /// Whether one of a log's first 200 lines (in its first 16 MiB) is a Claude Code line: a
    /// JSON object with a `sessionId`, or a `summary`. A line longer than 64 KiB (a pasted file,
    /// an 855 KB first prompt) is judged by its start: an object that names a `sessionId` there.
    static func looksLikeLog(_ file: ExportFileHandle) -> Bool {
        let held = 1 << 16
        var line: [UInt8] = []
        var cut = false
        var lines = 0
        var read = 0
        var found = false
        func judge() {
            defer {
                line.removeAll(keepingCapacity: true)
                cut = false
                lines += 1
            }
            if line.allSatisfy({ $0 == 32 || $0 == 13 || $0 == 9 }) { return }
            if cut {
                let start = String(decoding: line, as: UTF8.self)
                found = start.drop { $0.isWhitespace }.hasPrefix("{") && start.contains("\"sessionId\":")
            } else if let object = ExportFile.json(line) as? [String: Any] {
                found = object["sessionId"] is String || (object["type"] as? String == "summary" && object["summary"] != nil)
            }
        }
        try? file.forEachChunk(1 << 16) { chunk in
            read += chunk.count
            var start = 0
            while start < chunk.count {
                let end = chunk[start...].firstIndex(of: UInt8(ascii: "\n")) ?? chunk.count
                let room = held - line.count
                if room > 0 { line.append(contentsOf: chunk[start..<min(end, start + room)]) }
                if end - start > room { cut = true }
                start = end
                if end < chunk.count {
                    judge()
                    start = end + 1
                    if found || lines >= 200 { return false }
                }
            }
            return read < 16 << 20
        }
        if !found && !line.isEmpty && lines < 200 { judge() }
        return found
    }

    /// The entries that are logs by their names: `*.jsonl`, not hidden.
    private static func logNames(_ entries: [(name: String, entry: ExportDirectory.Entry)])
        -> [(name: String, entry: ExportDirectory.Entry)]
    {
        entries.filter { $0.name.hasSuffix(".jsonl") && !$0.name.hasPrefix(".") }
    }

    /// A log to read: the file the person named, or one inside a folder of logs (opened there
    /// without following a link: `ExportDirectory`).
    private struct LogFile {
        /// How problems name it.
        var name: String
        var open: () throws(VaultError) -> ExportFileHandle
    }

    package func read(_ paths: [String], since: Timestamp?, into sink: ImportSink) throws(VaultError) {
        for path in paths {
            guard try ExportInput.kind(of: path) == .folder else {
                let folder = (path as NSString).deletingLastPathComponent
                let file = LogFile(name: path, open: { () throws(VaultError) in try ExportInput.openNamed(path) })
                try readProject(
                    files: [file], folderName: (folder as NSString).lastPathComponent, named: true, since: since, sink: sink)
                continue
            }
            let root = try ExportDirectory(path)
            let top = root.entries()
            if !Self.logNames(top).isEmpty {
                try readProject(root, "", folderName: (path as NSString).lastPathComponent, since: since, sink: sink)
                continue
            }
            // The projects folder: each folder of logs in it. A link in it is named, not followed.
            let projects = top.filter { $0.entry == .folder && !Self.logNames(root.entries(in: $0.name)).isEmpty }
            for case (_, .refused(let at, let kind)) in top {
                try sink.part { () throws(VaultError) in throw root.refusal(at, kind) }
            }
            guard !projects.isEmpty else {
                throw ExportFile.problem(path, "holds no Claude Code session logs (.jsonl files, or folders of them)")
            }
            for project in projects { try readProject(root, project.name, folderName: project.name, since: since, sink: sink) }
        }
    }

    /// A project folder (`relative` in `root`): its sessions' logs, then its subagents' logs.
    private func readProject(_ root: ExportDirectory, _ relative: String, folderName: String, since: Timestamp?, sink: ImportSink)
        throws(VaultError)
    {
        func logs(in folder: String) -> [String] {
            Self.logNames(root.entries(in: folder)).map { folder.isEmpty ? $0.name : folder + "/" + $0.name }
        }
        let files = logs(in: relative)
        var ordered = files.filter { !($0 as NSString).lastPathComponent.hasPrefix("agent-") }
        // Every `<session>/subagents/` folder, its session's log there or not (a deleted or empty
        // one leaves its subagents), at any depth (`subagents/workflows/<run>/`).
        for folder in root.entries(in: relative) where folder.entry == .folder {
            ordered += Self.subagentLogs(root, (relative.isEmpty ? "" : relative + "/") + folder.name + "/subagents")
        }
        ordered += files.filter { ($0 as NSString).lastPathComponent.hasPrefix("agent-") }
        let opened = ordered.map { file in
            LogFile(name: root.displayName(file), open: { () throws(VaultError) in try root.open(file) })
        }
        try readProject(files: opened, folderName: folderName, since: since, sink: sink)
    }

    /// The logs below `folder` (none when it is not there), sorted, at most 16 folders deep; a
    /// link or a special file there, whatever its name, is listed so that opening it names it
    /// (`root.open` refuses it): nothing below `subagents/` is passed over without a word.
    static func subagentLogs(_ root: ExportDirectory, _ folder: String, depth: Int = 0) -> [String] {
        var out: [String] = []
        for (name, entry) in root.entries(in: folder) where !name.hasPrefix(".") {
            let path = folder + "/" + name
            switch entry {
            case .folder: if depth < 16 { out += subagentLogs(root, path, depth: depth + 1) }
            case .file: if name.hasSuffix(".jsonl") { out.append(path) }
            case .refused: out.append(path)
            case .missing: break
            }
        }
        return out
    }

    /// The sessions of `files`; a file the person `named` must be a log (a file found in a
    /// folder may hold only lines of other types: Claude Code writes such files).
    private func readProject(
        files: [LogFile], folderName: String, named: Bool = false, since: Timestamp?,
        sink: ImportSink
    ) throws(VaultError) {
        var sessions: [String: [LogLine]] = [:]
        var order: [String] = []
        for file in files {
            var read: [LogLine]?
            try sink.part { () throws(VaultError) in
                let lines = try readLines(file, sink: sink)
                if named && !lines.contains(where: { $0.sessionID != nil || $0.type == "summary" }) {
                    throw ExportFile.problem(file.name, "is not a Claude Code session log: no line has a sessionId")
                }
                read = lines
            }
            guard let lines = read else { continue }
            let fileSession = lines.lazy.compactMap(\.sessionID).first
                ?? ((file.name as NSString).lastPathComponent as NSString).deletingPathExtension
            for line in lines {
                let id = line.sessionID ?? fileSession
                if sessions[id] == nil { order.append(id) }
                sessions[id, default: []].append(line)
            }
        }
        // The session that ended first, first: a resumed session repeats lines (same uuid, same
        // time) of the one it resumed, and they are given once, with the session that wrote them.
        let last = { (id: String) in sessions[id]?.last { $0.time != nil }?.time?.secondsSince1970 ?? 0 }
        let oldestFirst = order.enumerated().sorted { a, b in
            (last(a.element), a.offset) < (last(b.element), b.offset)
        }.map(\.element)
        var seen: Set<String> = []
        for id in oldestFirst {
            guard let conversation = conversation(id, sessions[id] ?? [], folderName: folderName, seen: &seen) else {
                continue
            }
            if let since, let last = conversation.messages.last?.time ?? Optional(conversation.created), last < since {
                continue
            }
            try sink.emit(.conversation(conversation))
        }
    }

    /// One line of a log, as far as the conversation needs it.
    private struct LogLine {
        var type: String
        var uuid: String?
        var parentUUID: String?
        var sessionID: String?
        var agentID: String?
        var time: Timestamp?
        var sidechain: Bool
        var meta: Bool
        /// A compaction summary (`isCompactSummary`): what Claude Code wrote of the session so far.
        var compact: Bool
        var cwd: String?
        var object: [String: Any]
    }

    private static let importedTypes: Set<String> = ["user", "assistant", "summary", "system"]

    /// The lines of a log, streamed: each held to the cap, each a part of its own.
    private func readLines(_ file: LogFile, sink: ImportSink) throws(VaultError) -> [LogLine] {
        let handle = try file.open()
        var lines: [LogLine] = []
        var number = 0
        var pending: [UInt8] = []
        func take(_ raw: [UInt8]) throws(VaultError) {
            number += 1
            if raw.allSatisfy({ $0 == 32 || $0 == 13 || $0 == 9 }) { return }
            let place = "line \(number)"
            // Each line a part: a line Claude Code was killed while writing is left out alone.
            try sink.part { () throws(VaultError) in
                if let line = try self.line(raw, file: file.name, place: place, sink: sink) { lines.append(line) }
            }
        }
        func hold(_ piece: UnsafeBufferPointer<UInt8>.SubSequence) throws(VaultError) {
            // Before it is held whole: a line past the cap ends the file's reading.
            guard pending.count + piece.count <= sink.limits.maxItemSize else {
                throw ExportFile.problem(file.name, at: "line \(number + 1)", sink.limits.tooLarge("line of a log"))
            }
            pending.append(contentsOf: piece)
        }
        try handle.forEachChunk { (chunk) throws(VaultError) in
            var start = 0
            while let end = chunk[start...].firstIndex(of: UInt8(ascii: "\n")) {
                try hold(chunk[start..<end])
                try take(pending)
                pending.removeAll(keepingCapacity: true)
                start = end + 1
            }
            try hold(chunk[start...])
            return true
        }
        try take(pending)
        return lines
    }

    /// One line's `LogLine`; nil for a line of a type not imported (counted in `skipped`).
    private func line(_ raw: [UInt8], file: String, place: String, sink: ImportSink) throws(VaultError) -> LogLine? {
        _ = try ExportFile.text(raw, file: file, place: place)
        guard let value = ExportFile.json(raw) else {
            throw ExportFile.problem(file, at: place, "is not valid JSON")
        }
        guard let object = value as? [String: Any] else {
            throw ExportFile.problem(file, at: place, "is not a JSON object")
        }
        let type = object["type"] as? String ?? "(no type)"
        guard Self.importedTypes.contains(type) else {
            skipped.add(type)
            sink.skipped(type)
            return nil
        }
        return LogLine(
            type: type, uuid: object["uuid"] as? String, parentUUID: object["parentUuid"] as? String,
            sessionID: object["sessionId"] as? String, agentID: object["agentId"] as? String,
            time: ExportFile.time(object["timestamp"]), sidechain: ExportFile.flag(object["isSidechain"]),
            meta: ExportFile.flag(object["isMeta"]), compact: ExportFile.flag(object["isCompactSummary"]),
            cwd: object["cwd"] as? String, object: object)
    }

    /// The conversation of one session's lines, leaving out lines whose uuid is in `seen` (and
    /// adding its own there).
    private func conversation(_ sessionID: String, _ lines: [LogLine], folderName: String, seen: inout Set<String>)
        -> ImportedConversation?
    {
        // A uuid twice in one session: a line that gives nothing (no `message`: written
        // broken, or cut) gives way to the one that does, wherever it is.
        let giving = Set(lines.filter(Self.gives).compactMap(\.uuid))
        let unique = lines.filter { line in
            guard let uuid = line.uuid else { return true }
            if !Self.gives(line) && giving.contains(uuid) { return false }
            return seen.insert(uuid).inserted
        }
        var transcript = Transcript()
        for line in unique where !line.sidechain { transcript.add(line) }
        guard !transcript.messages.isEmpty || unique.contains(where: \.sidechain) else { return nil }

        // Each subagent's run: by its agentId, else by the root its parentUuids lead to.
        let side = unique.filter(\.sidechain)
        var parentOf: [String: String] = [:]
        for line in side { if let uuid = line.uuid, let parent = line.parentUUID { parentOf[uuid] = parent } }
        func root(_ line: LogLine) -> String {
            if let agent = line.agentID { return "agent:" + agent }
            var current = line.uuid ?? ""
            var path: [String] = [current]
            var visited: Set<String> = [current]
            while let parent = parentOf[current] {
                guard visited.insert(parent).inserted else {
                    // Parents in a cycle: its lines are one run, known by the least uuid in it.
                    let start = path.firstIndex(of: parent) ?? 0
                    return path[start...].min() ?? parent
                }
                path.append(parent)
                current = parent
            }
            return current
        }
        var runs: [String: Transcript] = [:]
        var runOrder: [String] = []
        for line in side {
            let key = root(line)
            if runs[key] == nil { runOrder.append(key) }
            runs[key, default: Transcript(kind: .sidechain)].add(line)
        }
        let branches = runOrder.compactMap { key -> ImportedBranch? in
            guard let run = runs[key], let first = run.messages.first else { return nil }
            let before = first.time.flatMap { start in transcript.messages.last { ($0.time ?? start) <= start } }
            return ImportedBranch(forkedAfter: before?.sourceID, messages: run.messages)
        }

        // A resumed session's file begins with the summaries of earlier ones: its own is the one
        // whose leaf is among its lines, else the last.
        let own = Set(unique.compactMap(\.uuid))
        let summaries = lines.filter { $0.type == "summary" && $0.object["summary"] is String }
        let summary = (summaries.last { ($0.object["leafUuid"] as? String).map(own.contains) ?? false } ?? summaries.last)
            .flatMap { $0.object["summary"] as? String }
        let prompt = transcript.messages.first { message in
            message.role == .user && message.kind == nil && !message.body.hasPrefix("<")
                && !message.body.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
        }
        var title = ExportFile.titleLine(summary ?? prompt?.body ?? "")
        if title.isEmpty { title = "Claude Code session \(sessionID.prefix(8))" }
        let created = lines.lazy.compactMap(\.time).first ?? Timestamp(date: Date(timeIntervalSince1970: 0), timeZone: .gmt)
        let project = lines.lazy.compactMap(\.cwd).first ?? Self.decodedFolder(folderName)
        return ImportedConversation(
            source: .claudeCode, sourceID: sessionID, title: title, created: created,
            settings: project.map { [("project", .string($0))] } ?? [], messages: transcript.messages,
            branches: branches)
    }

    /// Whether a line gives a message (or a title): one of a type read with its `message`.
    private static func gives(_ line: LogLine) -> Bool {
        line.type == "system" || line.type == "summary" || line.object["message"] is [String: Any]
    }

    /// Claude Code names a project's folder after its path with `/` (and `.`) made `-`:
    /// `-home-me-src-vault` was `/home/me/src/vault` (or `/home/me/src.vault`: the best guess).
    static func decodedFolder(_ name: String) -> String? {
        guard name.hasPrefix("-") else { return nil }
        return name.replacingOccurrences(of: "-", with: "/")
    }

    /// Messages made from log lines, a split assistant turn joined by its `message.id`.
    private struct Transcript {
        var kind: ImportedMessage.Kind?
        var messages: [ImportedMessage] = []
        /// Where the text (`<id>`) and the thoughts (`<id>:thinking`) of each `message.id` went
        /// in `messages`.
        private var joined: [String: Int] = [:]

        init(kind: ImportedMessage.Kind? = nil) { self.kind = kind }

        mutating func add(_ line: LogLine) {
            let message = line.object["message"] as? [String: Any]
            switch line.type {
            case "assistant": addAssistant(line, message ?? [:])
            case "user": addUser(line, message ?? [:])
            case "system":
                let text = line.object["content"] as? String ?? ""
                append(line.uuid ?? "system:\(messages.count)", .system, line.time, nil, text, .hidden)
            default: break  // summary lines give the title
            }
        }

        private mutating func append(
            _ id: String, _ role: Role, _ time: Timestamp?, _ model: String?, _ body: String,
            _ ownKind: ImportedMessage.Kind?, _ attachments: [ImportedAttachment] = []
        ) {
            messages.append(
                ImportedMessage(
                    sourceID: id, role: role, time: time, model: model, body: body, kind: kind ?? ownKind,
                    attachments: attachments))
        }

        private mutating func addAssistant(_ line: LogLine, _ message: [String: Any]) {
            let id = message["id"] as? String ?? line.uuid ?? "assistant:\(messages.count)"
            let model = message["model"] as? String
            let blocks: [[String: Any]]
            if let text = message["content"] as? String {
                blocks = [["type": "text", "text": text]]
            } else {
                blocks = message["content"] as? [[String: Any]] ?? []
            }
            for (n, block) in blocks.enumerated() {
                switch block["type"] as? String {
                case "text":
                    join(block["text"] as? String ?? "", id, line, model, nil)
                case "thinking":
                    join(block["thinking"] as? String ?? "", id + ":thinking", line, model, .thoughts)
                case "redacted_thinking":
                    join("(redacted thinking)", id + ":thinking", line, model, .thoughts)
                case "tool_use":
                    let name = block["name"] as? String ?? "tool"
                    let body = "Tool call: \(name)\n\n" + ExportFile.fenced(ExportFile.prettyJSON(block["input"] ?? [:]), info: "json")
                    append(block["id"] as? String ?? "\(id):tool:\(n)", .assistant, line.time, model, body, .toolCall)
                default:
                    // Block types this reader does not know yet stay readable as their JSON, marked
                    // and counted.
                    let type = block["type"] as? String ?? "(no type)"
                    join(ExportFile.unknownBlock(type, block), id, line, model, nil)
                    if let at = joined[id] { messages[at].unknownBlocks.append(type) }
                }
            }
        }

        /// Appends `text` to the message `id`, or starts it.
        private mutating func join(
            _ text: String, _ id: String, _ line: LogLine, _ model: String?, _ ownKind: ImportedMessage.Kind?
        ) {
            if let at = joined[id] {
                messages[at].body += messages[at].body.isEmpty ? text : "\n\n" + text
                if messages[at].model == nil { messages[at].model = model }
            } else {
                joined[id] = messages.count
                append(id, .assistant, line.time, model, text, ownKind)
            }
        }

        private mutating func addUser(_ line: LogLine, _ message: [String: Any]) {
            let id = line.uuid ?? "user:\(messages.count)"
            let ownKind: ImportedMessage.Kind? = line.compact ? .summary : line.meta ? .hidden : nil
            if let text = message["content"] as? String {
                append(id, .user, line.time, nil, text, ownKind)
                return
            }
            var texts: [String] = []
            var images: [ImportedAttachment] = []
            var results: [ImportedMessage] = []
            var unknown: [String] = []
            for (n, block) in (message["content"] as? [[String: Any]] ?? []).enumerated() {
                switch block["type"] as? String {
                case "text": texts.append(block["text"] as? String ?? "")
                case "image": if let image = Self.image(block, n) { images.append(image) }
                case "tool_result":
                    let (body, attachments) = Self.result(block, n)
                    let resultID = (block["tool_use_id"] as? String).map { $0 + ":result" } ?? "\(id):result:\(n)"
                    results.append(
                        ImportedMessage(
                            sourceID: resultID, role: .user, time: line.time, body: body, kind: kind ?? .toolResult,
                            attachments: attachments))
                default:
                    let type = block["type"] as? String ?? "(no type)"
                    texts.append(ExportFile.unknownBlock(type, block))
                    unknown.append(type)
                }
            }
            if !texts.isEmpty || !images.isEmpty {
                append(id, .user, line.time, nil, texts.joined(separator: "\n\n"), ownKind, images)
                messages[messages.count - 1].unknownBlocks = unknown
            }
            messages += results
        }

        /// A `tool_result` block as a fenced block, its images as attachments.
        static func result(_ block: [String: Any], _ n: Int) -> (String, [ImportedAttachment]) {
            var texts: [String] = []
            var images: [ImportedAttachment] = []
            if let text = block["content"] as? String {
                texts.append(text)
            } else {
                for (k, part) in (block["content"] as? [[String: Any]] ?? []).enumerated() {
                    if part["type"] as? String == "image", let image = image(part, n * 100 + k) {
                        images.append(image)
                    } else if let text = part["text"] as? String {
                        texts.append(text)
                    } else {
                        texts.append(ExportFile.prettyJSON(part))
                    }
                }
            }
            let heading = ExportFile.flag(block["is_error"]) ? "Tool result (error)" : "Tool result"
            return (heading + "\n\n" + ExportFile.fenced(texts.joined(separator: "\n")), images)
        }

        /// An `image` block with base64 data, as an attachment named `image-N.<ext>`.
        static func image(_ block: [String: Any], _ n: Int) -> ImportedAttachment? {
            guard let source = block["source"] as? [String: Any], let data = source["data"] as? String,
                let bytes = Data(base64Encoded: data)
            else { return nil }
            let type = (source["media_type"] as? String ?? "image/png").split(separator: "/").last.map(String.init) ?? "png"
            return ImportedAttachment(name: "image-\(n + 1).\(type == "jpeg" ? "jpg" : type)", bytes: [UInt8](bytes))
        }
    }
}

/// Lines a reader skipped because of their type, counted by type (for the import's report).
package final class SkippedLines: @unchecked Sendable {
    private let lock = NSLock()
    private var counts: [String: Int] = [:]

    package init() {}

    /// How many lines of each type were skipped.
    package var byType: [String: Int] { lock.withLock { counts } }
    /// How many lines were skipped in all.
    package var count: Int { lock.withLock { counts.values.reduce(0, +) } }

    func add(_ type: String) { lock.withLock { counts[type, default: 0] += 1 } }
}
