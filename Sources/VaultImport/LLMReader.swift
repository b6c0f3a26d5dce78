import Foundation
import VaultCore

/// Reads `llm`'s `logs.db` (SQLite, opened read-only), in both of its schemas.
///
/// - The older tables (llm up to 0.2x; kept by newer versions for what they logged):
///   `conversations` (`id`, `name`, `model`) and `responses` (`prompt`, `system`, `response`,
///   `model`, `options_json`, `datetime_utc`, `conversation_id`). Each response gives a user
///   message (`<response id>:prompt`: its prompt fragments, then the prompt) and an assistant
///   message (`<response id>:response`). Where they exist, `prompt_attachments` become
///   attachments, `tool_results` (the inputs of a response) `.toolResult` messages before its
///   prompt and `tool_calls` `.toolCall` messages after its reply.
/// - The newer message store (llm 0.3x: `threads`, `messages`, `parts`, `turns`): a thread is
///   a conversation (its `name` the title), its messages are the chain from its tip up through
///   `parent_hash`, each message's id is its content hash; `text` parts are the message,
///   `reasoning` parts a `.thoughts` message, `tool_call`/`tool_result` parts fenced
///   `.toolCall`/`.toolResult` messages, `attachment` parts attachments. Times and models come
///   from the turns that wrote the messages. A forked thread (`forked_from`) is a branch of the
///   conversation it forked from, after the last message they share. A thread with the id of an
///   older conversation (llm continued it with `-c`) continues that conversation: its chain's
///   first messages, which repeat the older ones, are not given twice.
///
/// The conversation's first system prompt is the `system` setting (a later, different one is
/// a system message where it changed); the options (`temperature`, …) of its responses are
/// settings (the last value of each), as is the last `model` used.
///
///     try LLMReader().read(["~/.config/io.datasette.llm/logs.db"], since: nil) { item in … }
package struct LLMReader: ImportReader {
    package var source: ImportSource { .llm }

    package init() {}

    /// Where `llm` keeps `logs.db`: `$LLM_USER_PATH`, else `~/.config/io.datasette.llm`.
    package static func defaultPaths(environment: [String: String]) -> [String] {
        if let folder = environment["LLM_USER_PATH"], !folder.isEmpty { return [folder + "/logs.db"] }
        let config = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.config"
        return [config + "/io.datasette.llm/logs.db"]
    }

    /// An SQLite file with llm's tables (`responses` or `turns`, and `_llm_migrations`).
    package static func recognizes(_ path: String) -> Bool {
        guard let head = ExportFile.head(path, limit: 16), head.starts(with: Array("SQLite format 3".utf8)),
            let db = try? LLMLogsDatabase(path: path), let tables = try? db.tables()
        else { return false }
        return tables.contains("_llm_migrations") || (tables.contains("responses") && tables.contains("conversations"))
    }

    package func read(_ paths: [String], since: Timestamp?, into sink: ImportSink) throws(VaultError) {
        for path in paths {
            // A regular file only, never waited on (a FIFO is refused before SQLite opens it);
            // `logs.db` in a folder is not followed if it is a link.
            let inFolder = try ExportInput.kind(of: path) == .folder
            let file = inFolder ? path + "/logs.db" : path
            let opened = inFolder ? try ExportDirectory(path).open("logs.db") : try ExportInput.openNamed(path)
            guard opened.prefix(16).starts(with: Array("SQLite format 3".utf8)) else {
                throw ExportFile.problem(file, "is not an SQLite database (llm's logs.db is one)")
            }
            let db = try LLMLogsDatabase(path: file, followingLinks: !inFolder)
            try Reading(db: db, tables: try db.tables()).read(since: since, sink: sink)
        }
    }

    /// One database being read.
    private struct Reading {
        let db: LLMLogsDatabase
        let tables: Set<String>

        func read(since: Timestamp?, sink: ImportSink) throws(VaultError) {
            let legacy = tables.contains("responses") && tables.contains("conversations")
            let store = ["threads", "messages", "parts", "turns"].allSatisfy(tables.contains)
            guard legacy || store else {
                throw ExportFile.problem(db.path, "has neither llm's responses nor its threads tables: not an llm logs.db")
            }
            var threads: [String: LLMLogsDatabase.Row] = [:]
            var threadOrder: [String] = []
            if store {
                for row in try db.rows("select * from threads order by datetime_utc, id") {
                    guard let id = row["id"]?.text else { continue }
                    threads[id] = row
                    threadOrder.append(id)
                }
            }
            var done: Set<String> = []
            /// One conversation, a part of its own: one that cannot be read is left out with `--keep-going`.
            func give(_ read: () throws(VaultError) -> ImportedConversation?) throws(VaultError) {
                try sink.part { () throws(VaultError) in
                    guard let conversation = try read() else { return }
                    let last = conversation.messages.last?.time ?? conversation.created
                    if let since, last < since { return }
                    try sink.emit(.conversation(conversation))
                }
            }
            if legacy {
                for row in try db.rows("select * from conversations order by id") {
                    guard let id = row["id"]?.text else { continue }
                    done.insert(id)
                    try give { () throws(VaultError) in try legacyConversation(row, continuedBy: threads[id] == nil ? nil : id) }
                }
                // Responses whose conversation row is missing: each is a conversation of its own.
                let orphans = try db.rows(
                    "select distinct coalesce(conversation_id, id) as id from responses"
                        + " where conversation_id is null or conversation_id not in (select id from conversations)")
                for row in orphans {
                    guard let id = row["id"]?.text, !done.contains(id) else { continue }
                    done.insert(id)
                    try give { () throws(VaultError) in
                        try legacyConversation(["id": .text(id)], continuedBy: threads[id] == nil ? nil : id)
                    }
                }
            }
            for id in threadOrder where !done.contains(id) {
                guard let row = threads[id], root(of: id, threads) == id else { continue }
                try give { () throws(VaultError) in
                    try threadConversation(row, threads: threads, threadOrder: threadOrder, after: nil)
                }
            }
        }

        /// The thread `id` forked from, first to last (itself when it did not fork).
        func root(of id: String, _ threads: [String: LLMLogsDatabase.Row]) -> String {
            var current = id
            var steps = 0
            while let parent = threads[current]?["forked_from"]?.text, threads[parent] != nil, steps < threads.count {
                current = parent
                steps += 1
            }
            return current
        }

        // MARK: The older tables

        private func legacyConversation(_ row: LLMLogsDatabase.Row, continuedBy thread: String?) throws(VaultError)
            -> ImportedConversation?
        {
            guard let id = row["id"]?.text else { return nil }
            let responses = try db.rows(
                "select * from responses where coalesce(conversation_id, id) = ? order by datetime_utc, id", [id])
            guard !responses.isEmpty else { return nil }
            var messages: [ImportedMessage] = []
            var settings = Settings()
            var system: String?
            for response in responses {
                guard let rid = response["id"]?.text else { continue }
                let time = Self.time(response["datetime_utc"]?.text)
                let model = response["model"]?.text
                settings.take(options: response["options_json"]?.text, model: model)
                let responseSystem = try fragments("system_fragments", rid) + [response["system"]?.text].compactMap { $0 }
                let systemText = responseSystem.filter { !$0.isEmpty }.joined(separator: "\n")
                if !systemText.isEmpty {
                    if system == nil {
                        system = systemText
                    } else if systemText != system {
                        messages.append(ImportedMessage(sourceID: rid + ":system", role: .system, time: time, body: systemText))
                        system = systemText
                    }
                }
                if tables.contains("tool_results") {
                    for (n, result) in try db.rows("select * from tool_results where response_id = ? order by id", [rid]).enumerated() {
                        let body = Self.toolResult(
                            name: result["name"]?.text, output: result["output"]?.text ?? "",
                            exception: result["exception"]?.text)
                        messages.append(
                            ImportedMessage(sourceID: "\(rid):result:\(n)", role: .user, time: time, body: body, kind: .toolResult))
                    }
                }
                let prompt = (try fragments("prompt_fragments", rid) + [response["prompt"]?.text ?? ""])
                    .filter { !$0.isEmpty }.joined(separator: "\n")
                var attachments: [ImportedAttachment] = []
                var notes: [String] = []
                if tables.contains("prompt_attachments") && tables.contains("attachments") {
                    let rows = try db.rows(
                        "select a.* from prompt_attachments p join attachments a on a.id = p.attachment_id"
                            + " where p.response_id = ? order by p.\"order\"", [rid])
                    for row in rows { attachment(row, into: &attachments, notes: &notes) }
                }
                let promptBody = ([prompt] + notes).filter { !$0.isEmpty }.joined(separator: "\n\n")
                if !promptBody.isEmpty || !attachments.isEmpty {
                    messages.append(
                        ImportedMessage(sourceID: rid + ":prompt", role: .user, time: time, body: promptBody, attachments: attachments))
                }
                let reply = response["response"]?.text ?? ""
                if !reply.isEmpty || !tables.contains("tool_calls") {
                    messages.append(ImportedMessage(sourceID: rid + ":response", role: .assistant, time: time, model: model, body: reply))
                }
                if tables.contains("tool_calls") {
                    for (n, call) in try db.rows("select * from tool_calls where response_id = ? order by id", [rid]).enumerated() {
                        let body = Self.toolCall(name: call["name"]?.text, arguments: call["arguments"]?.text ?? "{}")
                        messages.append(
                            ImportedMessage(
                                sourceID: "\(rid):call:\(n)", role: .assistant, time: time, model: model, body: body, kind: .toolCall))
                    }
                }
            }
            if let model = row["model"]?.text, settings.model == nil { settings.model = model }
            let created = messages.lazy.compactMap(\.time).first ?? Self.time(nil)
            var conversation = ImportedConversation(
                source: .llm, sourceID: id, title: Self.title(row["name"]?.text, messages), created: created,
                settings: settings.list(system: system), messages: messages)
            if let thread, let row = try db.rows("select * from threads where id = ?", [thread]).first {
                // llm went on with this conversation in its newer tables: the chain repeats it first.
                let threads = try db.rows("select * from threads")
                var byID: [String: LLMLogsDatabase.Row] = [:]
                for t in threads { if let tid = t["id"]?.text { byID[tid] = t } }
                let order = threads.compactMap { $0["id"]?.text }
                if let more = try threadConversation(row, threads: byID, threadOrder: order, after: conversation) {
                    conversation = more
                }
            }
            return conversation
        }

        /// The content of the fragments `table` (`prompt_fragments`, `system_fragments`) gives `response`.
        private func fragments(_ table: String, _ response: String) throws(VaultError) -> [String] {
            guard tables.contains(table), tables.contains("fragments") else { return [] }
            return try db.rows(
                "select f.content from \(table) p join fragments f on f.id = p.fragment_id where p.response_id = ? order by p.\"order\"",
                [response]
            ).compactMap { $0["content"]?.text }
        }

        /// An `attachments` row: its bytes stored in the database as an attachment; a URL or a
        /// path as a line naming it. A path is never read: the database may name any file on
        /// this machine (`~/.ssh/id_ed25519`), and what an import reads stays inside the export.
        private func attachment(_ row: LLMLogsDatabase.Row, into attachments: inout [ImportedAttachment], notes: inout [String]) {
            let type = row["type"]?.text ?? ""
            let ext = type.split(separator: "/").last.map { $0 == "jpeg" ? "jpg" : String($0) } ?? "bin"
            let id = row["id"]?.text ?? "attachment"
            if case .bytes(let bytes) = row["content"] ?? .null, !bytes.isEmpty {
                attachments.append(ImportedAttachment(name: "\(id.prefix(16)).\(ext)", bytes: bytes))
            } else if let where_ = row["url"]?.text ?? row["path"]?.text {
                notes.append("Attachment (\(type.isEmpty ? "file" : type)): \(where_)")
            }
        }

        // MARK: The message store

        private func threadConversation(
            _ thread: LLMLogsDatabase.Row, threads: [String: LLMLogsDatabase.Row], threadOrder: [String],
            after older: ImportedConversation?
        ) throws(VaultError) -> ImportedConversation? {
            guard let id = thread["id"]?.text else { return nil }
            let family = threadOrder.filter { $0 != id && root(of: $0, threads) == id }
            // Times, models and options from the turns of the thread and its forks.
            var facts: [String: (time: Timestamp, model: String?)] = [:]
            var settings = Settings()
            let turns = try db.rows(
                "select * from turns where thread_id in (\(([id] + family).map { _ in "?" }.joined(separator: ",")))"
                    + " order by datetime_utc, id", [id] + family)
            for turn in turns {
                let time = Self.time(turn["datetime_utc"]?.text)
                settings.take(options: turn["options_json"]?.text, model: turn["model"]?.text)
                var hash = turn["tip_message_hash"]?.text
                var steps = 0
                while let h = hash, facts[h] == nil, steps < 100_000 {
                    facts[h] = (time, turn["model"]?.text)
                    hash = try db.rows("select parent_hash from messages where hash = ?", [h]).first?["parent_hash"]?.text
                    steps += 1
                }
            }
            var chain = try self.chain(thread["tip_message_hash"]?.text)
            var system: String?
            if let first = chain.first, first.role == "system" {
                system = try parts(of: first, facts: facts).first?.body
                chain.removeFirst()
            }
            var messages = older?.messages ?? []
            if let older {
                // Skip the chain's copy of the older conversation.
                let repeated = older.messages.filter { $0.kind == nil && $0.role != .system }
                var i = 0
                while i < repeated.count, let next = chain.first {
                    if next.role == "system" {
                        // llm repeats the system prompt before each older response it rebuilds.
                        chain.removeFirst()
                        continue
                    }
                    let body = try parts(of: next, facts: facts).first { $0.kind == nil }?.body
                    guard next.role == repeated[i].role.rawValue, body == repeated[i].body else { break }
                    chain.removeFirst()
                    i += 1
                }
            }
            var known = Set(chain.map(\.hash))
            for message in chain { messages += try parts(of: message, facts: facts) }
            var branches: [ImportedBranch] = []
            for fork in family {
                var forkChain = try self.chain(threads[fork]?["tip_message_hash"]?.text)
                var forkedAfter: String?
                while let first = forkChain.first, known.contains(first.hash) || first.role == "system" && forkedAfter == nil {
                    if known.contains(first.hash) { forkedAfter = first.hash }
                    forkChain.removeFirst()
                }
                guard !forkChain.isEmpty else { continue }
                var branch: [ImportedMessage] = []
                for message in forkChain {
                    known.insert(message.hash)
                    branch += try parts(of: message, facts: facts)
                }
                branches.append(ImportedBranch(forkedAfter: forkedAfter, messages: branch))
            }
            if older == nil && messages.isEmpty { return nil }
            let created = older?.created ?? Self.time(thread["datetime_utc"]?.text)
            var list = settings.list(system: older == nil ? system : nil)
            if let older {
                // The older conversation's settings, updated by the newer turns.
                var merged = older.settings
                for (key, value) in list {
                    if let at = merged.firstIndex(where: { $0.0 == key }) { merged[at].1 = value } else { merged.append((key, value)) }
                }
                list = merged
            }
            let title = older?.title ?? Self.title(thread["name"]?.text, messages)
            return ImportedConversation(
                source: .llm, sourceID: id, title: title, created: created, settings: list, messages: messages,
                branches: branches)
        }

        struct ChainMessage {
            var hash: String
            var role: String
        }

        /// The messages from the first to `tip`, following `parent_hash`.
        private func chain(_ tip: String?) throws(VaultError) -> [ChainMessage] {
            var out: [ChainMessage] = []
            var hash = tip
            var seen: Set<String> = []
            while let h = hash, seen.insert(h).inserted {
                guard let row = try db.rows("select hash, parent_hash, role from messages where hash = ?", [h]).first else {
                    throw ExportFile.problem(db.path, at: "messages", "the message \(h) a thread leads to is missing")
                }
                out.append(ChainMessage(hash: h, role: row["role"]?.text ?? "user"))
                hash = row["parent_hash"]?.text
            }
            return out.reversed()
        }

        /// A stored message as the messages it gives: its reasoning, its text (with its
        /// attachments), each tool call and each tool result.
        private func parts(of message: ChainMessage, facts: [String: (time: Timestamp, model: String?)]) throws(VaultError)
            -> [ImportedMessage]
        {
            let fact = facts[message.hash]
            let role: Role = message.role == "assistant" ? .assistant : message.role == "system" ? .system : .user
            let model = role == .assistant ? fact?.model : nil
            var texts: [String] = []
            var thoughts: [String] = []
            var attachments: [ImportedAttachment] = []
            var notes: [String] = []
            var tools: [ImportedMessage] = []
            let rows = try db.rows("select * from parts where message_hash = ? order by position", [message.hash])
            for row in rows {
                let position = row["position"]?.text ?? "0"
                let payload = (row["payload"]?.text).flatMap { ExportFile.json(Array($0.utf8)) as? [String: Any] } ?? [:]
                var text = row["text"]?.text
                if text == nil { text = try resolvedText(payload) }
                switch row["type"]?.text {
                case "text": texts.append(text ?? "")
                case "reasoning":
                    thoughts.append(ExportFile.flag(payload["redacted"]) && (text ?? "").isEmpty ? "(redacted reasoning)" : text ?? "")
                case "tool_call":
                    let arguments = payload["arguments"].map(ExportFile.prettyJSON) ?? "{}"
                    tools.append(
                        ImportedMessage(
                            sourceID: "\(message.hash):call:\(position)", role: .assistant, time: fact?.time, model: model,
                            body: Self.toolCall(name: payload["name"] as? String, arguments: arguments), kind: .toolCall))
                case "tool_result":
                    tools.append(
                        ImportedMessage(
                            sourceID: "\(message.hash):result:\(position)", role: .user, time: fact?.time,
                            body: Self.toolResult(
                                name: payload["name"] as? String, output: payload["output"] as? String ?? "",
                                exception: payload["exception"] as? String),
                            kind: .toolResult))
                case "attachment":
                    let ids = ((payload["attachment"] as? [String: Any])?["id"] as? String).map { [$0] } ?? []
                    for id in ids {
                        if let found = try db.rows("select * from attachments where id = ?", [id]).first {
                            attachment(found, into: &attachments, notes: &notes)
                        }
                    }
                default:
                    texts.append(ExportFile.fenced(ExportFile.prettyJSON(payload), info: "json"))
                }
            }
            var out: [ImportedMessage] = []
            if !thoughts.isEmpty {
                out.append(
                    ImportedMessage(
                        sourceID: message.hash + ":reasoning", role: role, time: fact?.time, model: model,
                        body: thoughts.joined(separator: "\n\n"), kind: .thoughts))
            }
            let body = (texts + notes).joined(separator: "\n\n")
            if !body.isEmpty || !attachments.isEmpty || tools.isEmpty && thoughts.isEmpty {
                out.append(
                    ImportedMessage(
                        sourceID: message.hash, role: role, time: fact?.time, model: model, body: body, attachments: attachments))
            }
            return out + tools
        }

        /// A part's text kept as `text_ref`: literals and fragments.
        private func resolvedText(_ payload: [String: Any]) throws(VaultError) -> String? {
            if let text = payload["text"] as? String { return text }
            guard let pieces = payload["text_ref"] as? [[String: Any]] else { return nil }
            var out = ""
            for piece in pieces {
                if let literal = piece["literal"] as? String {
                    out += literal
                } else if let id = piece["fragment"].map({ "\($0)" }) {
                    out += try db.rows("select content from fragments where id = ?", [id]).first?["content"]?.text ?? ""
                }
            }
            return out
        }

        // MARK: Shared

        /// Options and the model, the last value of each winning.
        struct Settings {
            var options: [(String, String)] = []
            var model: String?

            mutating func take(options json: String?, model: String?) {
                if let model, !model.isEmpty { self.model = model }
                guard let json, let object = ExportFile.json(Array(json.utf8)) as? [String: Any] else { return }
                for key in object.keys.sorted() {
                    guard let value = object[key], !(value is NSNull) else { continue }
                    let text = ExportFile.prettyJSON(value)
                    if let at = options.firstIndex(where: { $0.0 == key }) { options[at].1 = text } else { options.append((key, text)) }
                }
            }

            func list(system: String?) -> [(String, FrontMatterValue)] {
                var out: [(String, FrontMatterValue)] = []
                if let model { out.append(("model", .string(model))) }
                if let system, !system.isEmpty { out.append(("system", .string(system))) }
                for (key, value) in options { out.append((key, .string(value))) }
                return out
            }
        }

        /// llm's times: `2024-05-01T10:00:00.123456` (UTC, written without a zone by older
        /// versions), `…+00:00`, or with a space for the `T`; to the second, in UTC.
        static func time(_ text: String?) -> Timestamp {
            let epoch = Timestamp(date: Date(timeIntervalSince1970: 0), timeZone: .gmt)
            guard var text, text.count >= 19 else { return epoch }
            if text.count > 10 { text = String(text.prefix(10)) + "T" + text.dropFirst(11) }
            let tail = text.dropFirst(19)
            if !tail.contains("+") && !tail.contains("-") && !tail.hasSuffix("Z") { text += "Z" }
            guard let parsed = Timestamp(rfc3339: text) else { return epoch }
            return Timestamp(date: parsed.date, timeZone: .gmt)
        }

        static func title(_ name: String?, _ messages: [ImportedMessage]) -> String {
            if let name, !name.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { return ExportFile.titleLine(name) }
            let prompt = messages.first { $0.role == .user && $0.kind == nil }?.body ?? ""
            let line = ExportFile.titleLine(prompt)
            return line.isEmpty ? "llm conversation" : line
        }

        static func toolCall(name: String?, arguments: String) -> String {
            let pretty = ExportFile.json(Array(arguments.utf8)).map(ExportFile.prettyJSON) ?? arguments
            return "Tool call: \(name ?? "tool")\n\n" + ExportFile.fenced(pretty, info: "json")
        }

        static func toolResult(name: String?, output: String, exception: String?) -> String {
            var heading = "Tool result" + (name.map { ": \($0)" } ?? "")
            if let exception, !exception.isEmpty { heading += " (error: \(exception))" }
            return heading + "\n\n" + ExportFile.fenced(output)
        }
    }
}
