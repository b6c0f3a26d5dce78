import Foundation
import VaultCore
import VaultKit

/// The tools that change the vault: each one workflow, one change (the vault's lock, hand edits
/// committed first, a crash-safe write, one commit whose message names the client:
/// `ClientNamedHistory`). A read-only server (`--read-only`) lists none of them.
extension VaultTools {
    static let writeDiaryEntry = Tool(
        name: "write_diary_entry", title: "Write a diary entry",
        description: """
            Write a new diary entry (Markdown) and commit it. It is dated now unless `date` says otherwise. \
            Returns its path, which names it for read, edit_entry and set_tags.
            """,
        properties: [
            "text": property("string", "The entry's text (Markdown)."),
            "title": property("string", "Its title (default: the first line)."),
            "date": property("string", "The day or time it is for: 2026-11-21, 2026-11-21T22:30, today, yesterday, -N."),
            "tags": property("array", "Its tags.", extra: ["items": ["type": "string"]]),
        ],
        required: ["text"], writes: true
    ) { args, context throws(ToolFailure) in
        let text = try args.text("text")
        let writing = DiaryWriting(vault: context.vault)
        let (title, date, tags) = (try args.optionalText("title"), try args.optionalText("date"), try args.texts("tags"))
        do throws(VaultError) {
            let entry = try writing.newEntry(title: title, date: date, tags: tags)
            let result = try writing.write(entry, text: text)
            return .toolResult(["path": .string(result.path), "written": true])
        } catch {
            throw ToolFailure(error)
        }
    }

    static let editEntry = Tool(
        name: "edit_entry", title: "Edit a diary entry",
        description: """
            Change a diary entry's text and commit it: `append` or `prepend` text, `replace_section` (the text under \
            a Markdown heading, up to the next heading of the same level), or `find_replace` (every occurrence of \
            `find`, refused unless there are exactly `expected_count`). The front-matter stays as it is. An edit that \
            finds nothing to do changes nothing and says why.
            """,
        properties: [
            "item": property("string", "The diary entry: its date (2026-11-21), file name or title."),
            "operation": property("string", "What to do.", extra: ["enum": ["append", "prepend", "replace_section", "find_replace"]]),
            "text": property("string", "The text to add, the section's new text, or the replacement."),
            "section": property("string", "replace_section: the heading's text (without #)."),
            "find": property("string", "find_replace: the text to find (literally)."),
            "expected_count": property("integer", "find_replace: how many times `find` occurs (default 1).", extra: ["minimum": 1]),
        ],
        required: ["item", "operation", "text"], writes: true
    ) { args, context throws(ToolFailure) in
        let vault = context.vault
        let item = try resolve(try args.text("item"), in: vault)
        guard case .diaryEntry(let path) = item else {
            throw ToolFailure("\(item.path) is a room: edit_entry changes diary entries (append_message adds to a room)")
        }
        let text = try args.text("text")
        let operation: EntryEditing.Operation
        switch try args.text("operation") {
        case "append": operation = .append(text)
        case "prepend": operation = .prepend(text)
        case "replace_section": operation = .replaceSection(heading: try args.text("section"), with: text)
        case "find_replace":
            operation = .findReplace(
                find: try args.text("find"), replacement: text,
                expectedCount: try args.integer("expected_count", default: 1, in: 1...100_000))
        case let other: throw ToolFailure("'operation' must be append, prepend, replace_section or find_replace, not \(other.debugDescription)")
        }
        do throws(VaultError) {
            let result = try EntryEditing(vault: vault, now: DiaryWriting(vault: vault).now).edit(path, operation)
            return .toolResult(["path": .string(result.path), "committed": .bool(result.committed)])
        } catch {
            throw ToolFailure(error)
        }
    }

    static let setTags = Tool(
        name: "set_tags", title: "Tag a diary entry",
        description: "Add and remove tags of a diary entry, as one commit. Returns its tags now.",
        properties: [
            "item": property("string", "The diary entry: its date (2026-11-21), file name or title."),
            "add": property("array", "Tags to add.", extra: ["items": ["type": "string"]]),
            "remove": property("array", "Tags to remove.", extra: ["items": ["type": "string"]]),
        ],
        required: ["item"], writes: true
    ) { args, context throws(ToolFailure) in
        let vault = context.vault
        let item = try resolve(try args.text("item"), in: vault)
        let add = try args.texts("add")
        let remove = try args.texts("remove")
        guard !add.isEmpty || !remove.isEmpty else { throw ToolFailure("give tags to add or to remove") }
        for tag in add where tag.trimmingCharacters(in: .whitespaces).isEmpty || tag.contains(",") {
            throw ToolFailure(VaultError.input(.notATag(tag)))
        }
        do throws(VaultError) {
            let (path, tags) = try Tagging(vault: vault, now: DiaryWriting(vault: vault).now).tag(item, adding: add, removing: remove)
            return .toolResult(["path": .string(path), "tags": .array(tags.map(JSONValue.string))])
        } catch {
            throw ToolFailure(error)
        }
    }

    static let chat = Tool(
        name: "chat", title: "Chat in a room",
        description: """
            Send a message to a room's model (its provider and model from the room's settings or vault.yml) and save \
            the reply in the room, both committed. The reply streams as progress notifications when you give a \
            progress token; cancelling the request stops the reply, and what arrived is kept, marked interrupted.
            """,
        properties: [
            "room": property("string", "The room (slug, title or rooms/….md)."),
            "message": property("string", "What to say."),
            "model": property("string", "Use this model for this turn."),
        ],
        required: ["room", "message"], writes: true, longRunning: true
    ) { args, context throws(ToolFailure) in
        let vault = context.vault
        guard case .room(let path) = try resolve(try args.text("room"), in: vault) else {
            throw ToolFailure("chat talks in rooms, not diary entries")
        }
        let message = try args.text("message")
        let model = try args.optionalText("model")
        do throws(VaultError) {
            let read = try ChatTurn.read(path, in: vault)
            // The client's cancellation stops the reply as Ctrl-C does on a terminal.
            let turn = try vault.chatTurn(path, read, provider: nil, model: model, cancellation: context.cancellation)
            var pieces = 0
            var reply = ""
            let outcome = try turn.run(message: message) { text in
                pieces += 1
                reply += text
                context.progress(pieces, text)
            }
            return .toolResult([
                "path": .string(outcome.path), "message_id": .optional(outcome.prompt?.id),
                "reply_id": .string(outcome.reply.header.id), "reply": .string(reply),
                "interrupted": .bool(outcome.reply.header.attribute("status") == "interrupted"),
            ], text: reply)
        } catch {
            throw ToolFailure(error)
        }
    }
}

extension VaultTools {
    static let appendMessageTools = [appendMessage]

    /// `vault say` for an AI app: its message in a room, with no model asked, signed with the
    /// name the client gave (`initialize`'s `clientInfo.name`) as its author.
    static let appendMessage = Tool(
        name: "append_message", title: "Add a message to a room",
        description: """
            Add a message to a room without asking a model (as `vault say` does), committed; its author is you \
            (this app's name). `reply_to` (a message id, m-…) answers that message: a quote of it starts yours. \
            Returns the new message's id.
            """,
        properties: [
            "room": property("string", "The room (slug, title or rooms/….md)."),
            "text": property("string", "The message (Markdown)."),
            "reply_to": property("string", "The id of the message this one answers."),
        ],
        required: ["room", "text"], writes: true
    ) { args, context throws(ToolFailure) in
        let vault = context.vault
        guard case .room(let path) = try resolve(try args.text("room"), in: vault) else {
            throw ToolFailure("append_message adds to rooms; edit_entry changes diary entries")
        }
        let text = try args.text("text")
        let replyTo = try args.optionalText("reply_to")
        let author = context.client.flatMap(Author.init(name:)) ?? Author(name: "MCP client")!
        do throws(VaultError) {
            let posted = try Posting(vault: vault).post(text, to: path, as: author, replyingTo: replyTo)
            return .toolResult([
                "path": .string(posted.path), "message_id": .string(posted.message.id),
                "time": .string(posted.message.timestamp.text), "author": .string(author.name),
                "committed": .bool(posted.committed),
            ])
        } catch {
            throw ToolFailure(error)
        }
    }
}
