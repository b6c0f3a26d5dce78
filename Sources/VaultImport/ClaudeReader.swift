import Foundation
import VaultCore

/// Reads Claude.ai's data export: the zip, its folder, or its `conversations.json` (with
/// `projects.json` beside it for project names; `users.json` holds nothing a room needs).
///
/// Each conversation (`uuid`, `name`, `created_at`, `chat_messages`) becomes one
/// `ImportedConversation`; `conversations.json` is streamed one conversation at a time.
/// A message's `content` blocks become one or more `ImportedMessage`s, in order: consecutive
/// `text` blocks one message (its id the message's `uuid`), each `thinking` block a `.thoughts`
/// message, each `tool_use` a `.toolCall` and each `tool_result` a `.toolResult` (`Tool call:
/// NAME` or `Tool result: NAME`, as the Claude Code and llm readers write them, then the input or
/// output in a fenced block); the later pieces' ids are the `uuid`
/// followed by `.1`, `.2`, …. Attachments with `extracted_content` become text attachments of the
/// message's first piece. Messages form a tree through `parent_message_uuid` (older exports
/// without it: a chain in the file's order); the transcript is the path to the newest leaf, the
/// other leaves are branches (`MessageTree`). Times keep the offset they are written with
/// (Claude writes UTC, `Z`), to the second.
package struct ClaudeReader: ImportReader {
    package var source: ImportSource { .claude }

    package init() {}

    /// True for a zip or folder holding `conversations.json`, or that file, whose first
    /// conversation has `chat_messages`.
    package static func recognizes(_ path: String) -> Bool {
        let head = peekExport(path, names: { $0 == "conversations.json" })
        return firstElementHasKey(head, "chat_messages")
    }

    package func read(_ paths: [String], since: Timestamp?, into sink: ImportSink) throws(VaultError) {
        for path in paths {
            let export = try ExportFolder(path, limits: sink.limits)
            let file: String
            if export.isSingleFile {
                file = (path as NSString).lastPathComponent
            } else if let found = export.files(named: "conversations.json").first {
                file = found
            } else {
                throw .importing(ImportProblem(file: path, problem: "holds no conversations.json: it is not a Claude export"))
            }
            let projects = try projectNames(export, near: file)
            let name = export.displayName(file)
            try sink.part { () throws(VaultError) in
                try export.forEachElement(file) { index, offset, bytes throws(VaultError) in
                    try sink.part { () throws(VaultError) in
                        let object = try JSONArrayStream.object(bytes, file: name, index: index, offset: offset)
                        let reader = ClaudeConversationReader(file: name, index: index, projects: projects)
                        if let item = try reader.read(object, since: since) { try sink.emit(.conversation(item)) }
                    }
                }
            }
        }
    }

    /// `projects.json`'s project names by uuid (none when there is no such file beside `file`).
    private func projectNames(_ export: ExportFolder, near file: String) throws(VaultError) -> [String: String] {
        let folder = (file as NSString).deletingLastPathComponent
        let wanted = folder.isEmpty ? "projects.json" : folder + "/projects.json"
        guard export.contains(wanted) else { return [:] }
        let bytes = try export.bytes(wanted)
        let name = export.displayName(wanted)
        if let bad = firstInvalidUTF8(bytes) {
            throw .importing(ImportProblem(file: name, place: "byte \(bad)", problem: "is not valid UTF-8"))
        }
        guard let projects = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [[String: Any]] else {
            throw .importing(ImportProblem(file: name, problem: "is not a JSON array of projects"))
        }
        var out: [String: String] = [:]
        for project in projects {
            if let uuid = project["uuid"] as? String, let title = project["name"] as? String { out[uuid] = title }
        }
        return out
    }
}

private struct ClaudeConversationReader {
    let file: String
    let index: Int
    let projects: [String: String]

    func problem(_ place: String, _ text: String) -> VaultError {
        .importing(ImportProblem(file: file, place: "[\(index)]" + place, problem: text))
    }

    /// An ISO 8601 time, to the second, in the offset it is written with.
    static func time(_ value: Any?) -> Timestamp? { ExportFile.time(value) }

    func read(_ object: Any, since: Timestamp?) throws(VaultError) -> ImportedConversation? {
        guard let conversation = object as? [String: Any] else { throw problem("", "is not a conversation (an object)") }
        guard let chat = conversation["chat_messages"] as? [Any] else {
            throw problem("", "has no chat_messages: this is not a Claude conversation vault knows")
        }
        guard let id = conversation["uuid"] as? String, !id.isEmpty else { throw problem("", "has no uuid") }
        let updated = Self.time(conversation["updated_at"]) ?? Self.time(conversation["created_at"])
        if let since, let updated, updated < since { return nil }

        var tree = MessageTree()
        var newest: (String, Double)?
        var previous: String?
        for (k, value) in chat.enumerated() {
            let place = ".chat_messages[\(k)]"
            guard let message = value as? [String: Any] else { throw problem(place, "is not a message") }
            guard let uuid = message["uuid"] as? String, !uuid.isEmpty else { throw problem(place, "has no uuid") }
            let parent: String?
            if message.keys.contains("parent_message_uuid") {
                parent = message["parent_message_uuid"] as? String
            } else {
                parent = previous
            }
            let pieces = try self.pieces(of: message, uuid: uuid, place: place)
            tree.add(uuid, parent: parent, messages: pieces)
            let seconds = Self.time(message["created_at"])?.secondsSince1970 ?? 0
            if seconds >= (newest?.1 ?? -.infinity) { newest = (uuid, seconds) }
            previous = uuid
        }
        // The transcript ends at the newest leaf.
        let leaves = tree.leaves()
        var active: String?
        var best = -Double.infinity
        for (k, value) in chat.enumerated() {
            guard let message = value as? [String: Any], let uuid = message["uuid"] as? String,
                leaves.contains(uuid)
            else { continue }
            let seconds = Self.time(message["created_at"])?.secondsSince1970 ?? Double(k) * 1e-9
            if seconds >= best {
                best = seconds
                active = uuid
            }
        }
        var transcript: [ImportedMessage] = []
        var branches: [ImportedBranch] = []
        if let active = active ?? newest?.0 {
            do {
                (transcript, branches) = try tree.split(activeLeaf: active)
            } catch {
                throw problem(".chat_messages(\(error.node))", error.text)
            }
        }
        var settings: [(String, FrontMatterValue)] = []
        let projectID = (conversation["project_uuid"] as? String) ?? ((conversation["project"] as? [String: Any])?["uuid"] as? String)
        let projectName = projectID.flatMap { projects[$0] } ?? ((conversation["project"] as? [String: Any])?["name"] as? String)
        if let projectName, !projectName.isEmpty { settings.append(("project", .string(projectName))) }
        if let model = conversation["model"] as? String, !model.isEmpty { settings.append(("model", .string(model))) }
        if let summary = conversation["summary"] as? String, !summary.isEmpty { settings.append(("summary", .string(summary))) }
        let created = Self.time(conversation["created_at"]) ?? transcript.lazy.compactMap(\.time).first
            ?? Timestamp(date: Date(timeIntervalSince1970: 0), timeZone: TimeZone(secondsFromGMT: 0)!)
        let title = (conversation["name"] as? String) ?? ""  // none: `Importing` titles it
        return ImportedConversation(
            source: .claude, sourceID: id, title: title, created: created, settings: settings, messages: transcript,
            branches: branches)
    }

    /// A message's content blocks as messages (see `ClaudeReader`).
    func pieces(of message: [String: Any], uuid: String, place: String) throws(VaultError) -> [ImportedMessage] {
        let sender = message["sender"] as? String ?? ""
        let role: Role
        switch sender {
        case "human": role = .user
        case "assistant": role = .assistant
        default: throw problem(place + ".sender", "is \"\(sender)\", a sender vault does not know (human or assistant)")
        }
        let time = Self.time(message["created_at"])
        var pieces: [(body: String, kind: ImportedMessage.Kind?, time: Timestamp?, unknown: [String])] = []
        var text: [String] = []
        var textTime: Timestamp?
        var unknown: [String] = []
        func flushText() {
            let joined = text.joined(separator: "\n\n")
            if !joined.isEmpty { pieces.append((joined, nil, textTime ?? time, unknown)) }
            text = []
            textTime = nil
            unknown = []
        }
        let blocks = message["content"] as? [Any]
        if let blocks, !blocks.isEmpty {
            for (k, value) in blocks.enumerated() {
                guard let block = value as? [String: Any], let type = block["type"] as? String else {
                    throw problem(place + ".content[\(k)]", "is not a content block (an object with a type)")
                }
                let blockTime = Self.time(block["start_timestamp"])
                switch type {
                case "text":
                    if textTime == nil { textTime = blockTime }
                    text.append(block["text"] as? String ?? "")
                case "thinking":
                    flushText()
                    pieces.append((block["thinking"] as? String ?? "", .thoughts, blockTime ?? time, []))
                case "tool_use":
                    flushText()
                    let name = block["name"] as? String ?? "tool"
                    let input = ExportFile.prettyJSON(block["input"] ?? [String: Any]())
                    pieces.append(("Tool call: \(name)\n\n" + ExportFile.fenced(input, info: "json"), .toolCall, blockTime ?? time, []))
                case "tool_result":
                    flushText()
                    let name = block["name"] as? String ?? "tool"
                    let output = Self.resultText(block["content"])
                    let error = (block["is_error"] as? Bool) == true ? " (error)" : ""
                    pieces.append(
                        ("Tool result: \(name)\(error)\n\n" + ExportFile.fenced(output), .toolResult, blockTime ?? time, []))
                default:
                    // A type newer than this reader (`token_budget`, `voice_note`): its text when
                    // it has one, else the block as JSON, marked and counted; never a refusal.
                    if textTime == nil { textTime = blockTime }
                    if let blockText = block["text"] as? String {
                        text.append(blockText)
                    } else {
                        text.append(ExportFile.unknownBlock(type, block))
                        unknown.append(type)
                    }
                }
            }
            flushText()
        } else if let plain = message["text"] as? String, !plain.isEmpty {
            pieces.append((plain, nil, time, []))
        }
        var attachments: [ImportedAttachment] = []
        for value in (message["attachments"] as? [Any]) ?? [] {
            guard let attachment = value as? [String: Any] else { continue }
            let name = (attachment["file_name"] as? String).flatMap { $0.isEmpty ? nil : $0 } ?? "attachment"
            if let content = attachment["extracted_content"] as? String {
                attachments.append(ImportedAttachment(name: Self.extractedName(name), bytes: Array(content.utf8)))
            } else {
                attachments.append(.missing(name: name, kind: "file", pointer: ""))
            }
        }
        // `files` (and `files_v2`): the export names them and holds none of their bytes; the
        // message keeps each name ("this whiteboard" still says which).
        for key in ["files", "files_v2"] {
            for value in (message[key] as? [Any]) ?? [] {
                guard let file = value as? [String: Any], let name = file["file_name"] as? String, !name.isEmpty,
                    !attachments.contains(where: { $0.name == name })
                else { continue }
                attachments.append(.missing(name: name, kind: "file", pointer: (file["file_uuid"] as? String) ?? ""))
            }
        }
        if pieces.isEmpty && !attachments.isEmpty { pieces.append(("", nil, time, [])) }
        return pieces.enumerated().map { k, piece in
            var made = ImportedMessage(
                sourceID: k == 0 ? uuid : "\(uuid).\(k)", role: piece.kind == .toolResult ? .assistant : role,
                time: piece.time, body: piece.body, kind: piece.kind, attachments: k == 0 ? attachments : [])
            made.unknownBlocks = piece.unknown
            return made
        }
    }

    /// The name of an attachment's extracted text: the text is plain, so a `.txt` follows a name
    /// whose extension is a binary document's (`report.pdf` → `report.pdf.txt`); a text file's
    /// name (`notes.txt`, `main.py`) stays.
    static func extractedName(_ name: String) -> String {
        binaryDocuments.contains((name as NSString).pathExtension.lowercased()) ? name + ".txt" : name
    }

    static let binaryDocuments: Set<String> = [
        "pdf", "doc", "docx", "ppt", "pptx", "xls", "xlsx", "odt", "ods", "odp", "rtf", "epub", "pages", "key",
        "numbers", "png", "jpg", "jpeg", "gif", "webp", "heic", "zip",
    ]

    /// A tool result's text: a string, or its blocks' text (a search result's title and URL first).
    static func resultText(_ content: Any?) -> String {
        if let text = content as? String { return text }
        guard let blocks = content as? [Any] else { return content.map { ExportFile.prettyJSON($0) } ?? "" }
        return blocks.map { value -> String in
            guard let block = value as? [String: Any] else { return ExportFile.prettyJSON(value) }
            var lines: [String] = []
            if let title = block["title"] as? String, !title.isEmpty { lines.append(title) }
            if let url = block["url"] as? String, !url.isEmpty { lines.append(url) }
            if let text = block["text"] as? String { lines.append(text) }
            return lines.isEmpty ? ExportFile.prettyJSON(block) : lines.joined(separator: "\n")
        }.joined(separator: "\n\n")
    }
}
