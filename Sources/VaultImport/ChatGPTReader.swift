import Foundation
import VaultCore

/// Reads ChatGPT's data export: the zip, its folder, or its `conversations.json`.
///
/// The conversations are in `conversations.json`, or in newer exports split over
/// `conversations-000.json`, `conversations-001.json`, … (read in that order; when split files
/// are there, `conversations.json` is not read). Each file is streamed one conversation at a
/// time (`JSONArrayStream`).
///
/// A conversation's `mapping` is a tree of nodes; the transcript is the path from the root to
/// `current_node`, every other leaf gives an `ImportedBranch` (`MessageTree`). Times are epoch
/// seconds, made into UTC timestamps (the export has no zone). Images (`image_asset_pointer`,
/// `file-service://file-XXXX` or `sediment://file_XXXX`) are the export's file whose name
/// begins with the asset's id.
///
///     try ChatGPTReader().read(["/home/me/Downloads/chatgpt-export.zip"], since: nil) { item in … }
package struct ChatGPTReader: ImportReader {
    /// What to do with an image the export's folder holds as a link or a special file (never
    /// read). An image the export does not hold at all (expired, never downloaded) is always
    /// kept as a placeholder (`ImportedAttachment.missing`), with the message's text.
    package enum MissingImage: Sendable {
        /// Stop: an `ImportProblem` naming the conversation, the node and the file.
        case fail
        /// Keep the message; its body gets a line saying what the file is and that it is not read.
        case note
    }

    package var source: ImportSource { .chatgpt }
    package var missingImage: MissingImage
    /// The largest image read (bytes).
    package var imageLimit: UInt64

    package init(missingImage: MissingImage = .fail, imageLimit: UInt64 = 256 << 20) {
        self.missingImage = missingImage
        self.imageLimit = imageLimit
    }

    /// True for a zip or folder holding `conversations.json`/`conversations-NNN.json`, or such
    /// a file, whose first conversation has a `mapping`.
    package static func recognizes(_ path: String) -> Bool {
        let head = peekExport(path, names: ChatGPTReader.isConversationFile)
        return firstElementHasKey(head, "mapping")
    }

    static func isConversationFile(_ name: String) -> Bool {
        name == "conversations.json" || isSplitFile(name)
    }

    static func isSplitFile(_ name: String) -> Bool {
        guard name.hasPrefix("conversations-"), name.hasSuffix(".json") else { return false }
        let digits = name.dropFirst("conversations-".count).dropLast(".json".count)
        return !digits.isEmpty && digits.allSatisfy(\.isASCII) && digits.allSatisfy(\.isNumber)
    }

    package func read(_ paths: [String], since: Timestamp?, into sink: ImportSink) throws(VaultError) {
        for path in paths {
            let export = try ExportFolder(path, limits: sink.limits)
            let files: [String]
            if export.isSingleFile {
                files = [(path as NSString).lastPathComponent]
            } else {
                let split = export.files.filter { ChatGPTReader.isSplitFile(($0 as NSString).lastPathComponent) }.sorted()
                files = split.isEmpty ? Array(export.files(named: "conversations.json").prefix(1)) : split
            }
            guard !files.isEmpty else {
                throw .importing(
                    ImportProblem(file: path, problem: "holds no conversations.json: it is not a ChatGPT export"))
            }
            let images = LazyImageIndex(export: export)
            for file in files {
                let name = export.displayName(file)
                try sink.part { () throws(VaultError) in
                    try export.forEachElement(file) { index, offset, bytes throws(VaultError) in
                        try sink.part { () throws(VaultError) in
                            let object = try JSONArrayStream.object(bytes, file: name, index: index, offset: offset)
                            var conversation = ConversationReader(
                                file: name, index: index, export: export, images: images, reader: self)
                            if let item = try conversation.read(object, since: since) { try sink.emit(.conversation(item)) }
                        }
                    }
                }
            }
        }
    }
}

/// The image index, made when the first image is looked up (a conversations file's folder is
/// listed only then).
final class LazyImageIndex {
    let export: ExportFolder
    private var made: ImageIndex?
    init(export: ExportFolder) { self.export = export }
    func file(for id: String) -> String? {
        if made == nil { made = ImageIndex(files: export.files) }
        return made!.file(for: id)
    }
}

/// The export's file names by asset id, for `image_asset_pointer`s.
struct ImageIndex {
    /// Each file's name without its folders, and its path in the export.
    let names: [(base: String, file: String)]
    /// Files by the id their name begins with (`file-AbC` of `file-AbC-photo.png`,
    /// `file_00ab` of `file_00ab-1f2e.png`, else the name without its extension).
    let byID: [String: String]

    init(files: [String]) {
        names = files.map { (($0 as NSString).lastPathComponent, $0) }
        var byID: [String: String] = [:]
        for (base, file) in names {
            let utf8 = Array(base.utf8)
            let dash = UInt8(ascii: "-")
            // Skip the `file-`/`file_` of the id itself, then the id ends at a dash or a dot.
            var i = base.hasPrefix("file-") || base.hasPrefix("file_") ? 5 : 0
            while i < utf8.count, utf8[i] != dash, utf8[i] != UInt8(ascii: ".") { i += 1 }
            let id = String(decoding: utf8[0..<i], as: UTF8.self)
            if byID[id] == nil { byID[id] = file }
        }
        self.byID = byID
    }

    /// The file whose name (without its folders) begins with `id`, or else contains it.
    func file(for id: String) -> String? {
        guard !id.isEmpty else { return nil }
        if let file = byID[id] { return file }
        if let found = names.first(where: { $0.base.hasPrefix(id) }) { return found.file }
        return names.first { $0.base.contains(id) }?.file
    }
}

/// One conversation of the export, read into an `ImportedConversation`.
private struct ConversationReader {
    let file: String
    let index: Int
    let export: ExportFolder
    let images: LazyImageIndex
    let reader: ChatGPTReader
    static let utc = TimeZone(secondsFromGMT: 0)!

    func problem(_ place: String, _ text: String) -> VaultError {
        .importing(ImportProblem(file: file, place: "[\(index)]" + place, problem: text))
    }

    /// Epoch seconds at `place` as a UTC timestamp (nil: none); a problem when out of range.
    func time(_ value: Any?, at place: String) throws(VaultError) -> Timestamp? {
        try ExportFile.epochTime(value, in: ConversationReader.utc) { problem(place, $0) }
    }

    mutating func read(_ object: Any, since: Timestamp?) throws(VaultError) -> ImportedConversation? {
        guard let conversation = object as? [String: Any] else {
            throw problem("", "is not a conversation (an object with a mapping)")
        }
        guard let mapping = conversation["mapping"] as? [String: Any] else {
            throw problem("", "has no mapping: this is not a ChatGPT conversation vault knows")
        }
        let givenID = [conversation["conversation_id"], conversation["id"]].lazy.compactMap { $0 as? String }
            .first { !$0.isEmpty }
        var notes: [String] = []
        let created = try time(conversation["create_time"], at: ".create_time")
        if let text = conversation["create_time"] as? String {
            // Not seconds since 1970 (a tool that rewrote the export): said, not passed over.
            notes.append("\(file), at [\(index)].create_time: is \(String(reflecting: text)), not a time; the first message's time is the room's")
        }
        let updated = try time(conversation["update_time"], at: ".update_time") ?? created
        if let since, let updated, updated < since { return nil }

        var tree = MessageTree()
        var latest: (String, Double)?
        for nodeID in mapping.keys.sorted() {
            let value = mapping[nodeID]!
            guard let node = value as? [String: Any] else { throw problem(".mapping.\(nodeID)", "is not a node") }
            let parent = node["parent"] as? String
            let children = node["children"] as? [String]
            var messages: [ImportedMessage] = []
            if let message = node["message"] as? [String: Any] {
                if let made = try self.message(message, place: ".mapping.\(nodeID).message", nodeID: nodeID) {
                    messages.append(made)
                }
                if let t = (message["create_time"] as? NSNumber)?.doubleValue, t > (latest?.1 ?? -1) { latest = (nodeID, t) }
            }
            tree.add(nodeID, parent: parent, children: children, messages: messages)
        }
        // The active leaf: `current_node`; without one, the newest message's node.
        var active = conversation["current_node"] as? String
        if let current = active, tree.nodes[current] == nil {
            throw problem(".current_node", "names the node \"\(current)\", which is not in the mapping")
        }
        if active == nil { active = latest?.0 ?? tree.leaves().last }
        var transcript: [ImportedMessage] = []
        var branches: [ImportedBranch] = []
        if let active {
            do {
                (transcript, branches) = try tree.split(activeLeaf: active)
            } catch {
                throw problem(".mapping.\(error.node)", error.text)
            }
        }
        var start = created ?? transcript.lazy.compactMap(\.time).first
        if start == nil {
            notes.append("\(file), at [\(index)]: has no time at all; the room is dated 1970-01-01")
            start = Timestamp(date: Date(timeIntervalSince1970: 0), timeZone: ConversationReader.utc)
        }
        var settings: [(String, FrontMatterValue)] = []
        if let model = conversation["default_model_slug"] as? String, !model.isEmpty { settings.append(("model", .string(model))) }
        if let gizmo = conversation["gizmo_id"] as? String, !gizmo.isEmpty { settings.append(("gizmo", .string(gizmo))) }
        let title = (conversation["title"] as? String) ?? ""  // none: `Importing` titles it
        // Without an id (tools that rewrite exports leave it out): one made from what does not
        // change as the conversation grows, its start and its first message, so a later import
        // finds the room again.
        let id = givenID ?? ConversationReader.madeID(created: conversation["create_time"], first: transcript.first, mapping: mapping)
        var made = ImportedConversation(
            source: .chatgpt, sourceID: id, title: title, created: start!, settings: settings,
            messages: transcript, branches: branches)
        made.notes = notes
        return made
    }

    /// The message of a node, or nil when it holds nothing (an empty system message).
    func message(_ message: [String: Any], place: String, nodeID: String) throws(VaultError) -> ImportedMessage? {
        let id = (message["id"] as? String) ?? nodeID
        guard let author = message["author"] as? [String: Any], let roleName = author["role"] as? String else {
            throw problem(place, "has no author")
        }
        var kind: ImportedMessage.Kind?
        let role: Role
        switch roleName {
        case "user": role = .user
        case "assistant": role = .assistant
        case "system": role = .system
        case "tool":
            role = .assistant
            kind = .toolResult
        default: throw problem(place + ".author.role", "is \"\(roleName)\", a role vault does not know")
        }
        guard let content = message["content"] as? [String: Any], let type = content["content_type"] as? String else {
            throw problem(place, "has no content")
        }
        let metadata = message["metadata"] as? [String: Any] ?? [:]
        var body: String
        var attachments: [ImportedAttachment] = []
        var unknown: [String] = []
        switch type {
        case "text":
            body = ConversationReader.strings(content["parts"]).joined(separator: "\n\n")
        case "multimodal_text":
            var texts: [String] = []
            for (k, part) in ((content["parts"] as? [Any]) ?? []).enumerated() {
                if let text = part as? String {
                    if !text.isEmpty { texts.append(text) }
                } else if let part = part as? [String: Any] {
                    let partType = part["content_type"] as? String
                    if partType == "image_asset_pointer" {
                        let pointer = part["asset_pointer"] as? String ?? ""
                        let asset = pointer.components(separatedBy: "://").last ?? pointer
                        let found = images.file(for: asset)
                        // A link or a special file in the export's folder is never read: with
                        // `.note` it is missing, with a note saying why.
                        let refused = found.flatMap(export.refusal)
                        if let found, refused == nil {
                            attachments.append(
                                ImportedAttachment(
                                    name: (found as NSString).lastPathComponent,
                                    bytes: try export.bytes(found, limit: reader.imageLimit)))
                        } else if let found, let refused {
                            let file = export.displayName(found)
                            if reader.missingImage == .fail {
                                throw problem(
                                    place + ".content.parts[\(k)]",
                                    "the image \(pointer) is \(file), \(refused): vault reads no link or special file in an export")
                            }
                            texts.append("[image \(asset) is not in the export: \(found) is \(refused), which vault does not read]")
                        } else {
                            // Not in the export (an expired or never downloaded image): a placeholder.
                            attachments.append(.missing(name: asset, kind: "image", pointer: pointer))
                        }
                    } else if let text = part["text"] as? String {
                        if !text.isEmpty { texts.append(text) }
                    }
                }
            }
            body = texts.joined(separator: "\n\n")
        case "code":
            let language = (content["language"] as? String).flatMap { $0 == "unknown" ? nil : $0 } ?? ""
            body = ExportFile.fenced(content["text"] as? String ?? "", info: language)
        case "execution_output":
            let tool = (author["name"] as? String).map { ": " + $0 } ?? ""
            body = "Tool result\(tool)\n\n" + ExportFile.fenced(content["text"] as? String ?? "")
            kind = .toolResult
        case "tether_quote":
            var lines: [String] = []
            let title = content["title"] as? String ?? ""
            let url = content["url"] as? String ?? ""
            if !title.isEmpty || !url.isEmpty { lines.append(url.isEmpty ? title : "[\(title.isEmpty ? url : title)](\(url))") }
            let quoted = (content["text"] as? String ?? "").split(separator: "\n", omittingEmptySubsequences: false)
                .map { "> " + $0 }.joined(separator: "\n")
            lines.append(quoted)
            body = lines.joined(separator: "\n\n")
        case "tether_browsing_display":
            body = [content["result"] as? String, content["summary"] as? String].compactMap { $0 }.filter { !$0.isEmpty }
                .joined(separator: "\n\n")
        case "thoughts":
            let thoughts = (content["thoughts"] as? [[String: Any]]) ?? []
            body = thoughts.map { thought in
                let summary = thought["summary"] as? String ?? ""
                let text = thought["content"] as? String ?? ""
                return summary.isEmpty ? text : "**\(summary)**\n\n\(text)"
            }.filter { !$0.isEmpty }.joined(separator: "\n\n")
            // Some exports (and tools that rewrite them) give the thoughts as `parts`.
            let parts = ConversationReader.strings(content["parts"])
            if !parts.isEmpty { body = ([body] + parts).filter { !$0.isEmpty }.joined(separator: "\n\n") }
            kind = .thoughts
        case "reasoning_recap":
            body = content["content"] as? String ?? ""
            kind = .thoughts
        case "system_error":
            body = [content["name"] as? String, content["text"] as? String].compactMap { $0 }.joined(separator: ": ")
            kind = .toolResult
        case "user_editable_context":
            // The profile and instructions ChatGPT gives the model, never shown in the chat.
            body = [content["user_profile"] as? String, content["user_instructions"] as? String].compactMap { $0 }
                .filter { !$0.isEmpty }.joined(separator: "\n\n")
            kind = .hidden
        default:
            // A type never seen: its text when it has one, else it cannot be read.
            if let text = content["text"] as? String {
                body = text
            } else if let parts = content["parts"] as? [Any] {
                body = ConversationReader.strings(parts).joined(separator: "\n\n")
            } else {
                // Kept as its JSON, marked and counted: a newer export is never refused for it.
                body = ExportFile.unknownBlock(type, content)
                unknown.append(type)
            }
        }
        if body.isEmpty && attachments.isEmpty { return nil }
        // Anything the model sends to a tool (`python`, `browser.search`, `dalle.text2im`, `bio`)
        // rather than to the person is a tool call, whatever its content type.
        if let recipient = message["recipient"] as? String, recipient != "all", kind == nil, role == .assistant {
            kind = .toolCall
            body = "Tool call: \(recipient)\n\n" + body
        }
        if (metadata["is_visually_hidden_from_conversation"] as? Bool) == true { kind = .hidden }
        let model = (metadata["model_slug"] as? String).flatMap { $0.isEmpty ? nil : $0 }
        var made = ImportedMessage(
            sourceID: id, role: role, time: try time(message["create_time"], at: place + ".create_time"),
            model: role == .assistant ? model : nil, body: body, kind: kind, attachments: attachments)
        made.unknownBlocks = unknown
        return made
    }

    /// `chatgpt-` and 16 hex digits of SHA-256 of the conversation's `create_time` and its first
    /// message's id and text (no message: its nodes' ids).
    static func madeID(created: Any?, first: ImportedMessage?, mapping: [String: Any]) -> String {
        let start = (created as? NSNumber).map { "\($0)" } ?? ""
        let what = first.map { $0.sourceID + "\u{0}" + $0.body } ?? mapping.keys.sorted().joined(separator: ",")
        return "chatgpt-" + ExportFile.shortHash(start + "\u{0}" + what)
    }

    static func strings(_ parts: Any?) -> [String] {
        ((parts as? [Any]) ?? []).compactMap { $0 as? String }.filter { !$0.isEmpty }
    }
}
