import Foundation
import VaultCore

/// The prompts a client can offer its person: ready-made requests that bring a room or the
/// diary into the conversation.
enum VaultPrompts {
    struct Prompt {
        var name: String
        var title: String
        var description: String
        var arguments: [(name: String, description: String, required: Bool)]

        var listing: JSONValue {
            [
                "name": .string(name), "title": .string(title), "description": .string(description),
                "arguments": .array(arguments.map { ["name": .string($0.name), "description": .string($0.description), "required": .bool($0.required)] }),
            ]
        }
    }

    static let all = [
        Prompt(
            name: "summarize_room", title: "Summarize this room",
            description: "Summarize a chat room's conversation: its last messages are included.",
            arguments: [("room", "The room (slug or title).", true)]),
        Prompt(
            name: "continue_diary", title: "Continue yesterday's diary",
            description: "Write today's diary entry, going on from yesterday's (included when there is one).",
            arguments: []),
    ]

    static func get(_ params: JSONValue, vault: Vault) throws(ToolFailure) -> JSONValue {
        let args = Arguments(params["arguments"] ?? .object([:]))
        switch params["name"]?.string {
        case "summarize_room":
            guard case .room(let path) = try VaultTools.resolve(try args.text("room"), in: vault) else {
                throw ToolFailure("'room' names a diary entry, not a room")
            }
            let room = try ItemReading.read(.room(path), in: vault, offset: -100, limit: 100)
            var transcript = ""
            for m in room["messages"]?.array ?? [] {
                transcript += "\n\n### \(m["role"]?.string ?? "") · \(m["time"]?.string ?? "") (\(m["id"]?.string ?? ""))\n\(m["text"]?.string ?? "")"
            }
            let title = room["title"]?.string ?? path
            return [
                "description": .string("Summary of \(title)"),
                "messages": [[
                    "role": "user",
                    "content": ["type": "text", "text": .string("Summarize the conversation in the room \"\(title)\" (\(path)): what was asked, what was decided, what is still open. Cite message ids.\(transcript)")],
                ]],
            ]
        case "continue_diary":
            let zone = DiaryWriting.personsZone(vault: vault)
            let today = Timestamp(date: Date(), timeZone: zone).localDate
            let yesterday = today.adding(days: -1)
            var text = "Help me write today's diary entry (\(today)). "
            if let path = vault.entries(on: yesterday).first,
                let entry = try? ItemReading.read(.diaryEntry(path), in: vault, offset: 0, limit: 1)
            {
                text += "Go on from yesterday's entry (\(path)):\n\n\(entry["text"]?.string ?? "")"
            } else {
                text += "There is no entry for yesterday (\(yesterday))."
            }
            text += "\n\nWhen it is ready, save it with the write_diary_entry tool."
            return ["description": "Continue yesterday's diary", "messages": [["role": "user", "content": ["type": "text", "text": .string(text)]]]]
        case let other:
            throw ToolFailure("no prompt named \((other ?? "").debugDescription)")
        }
    }
}
