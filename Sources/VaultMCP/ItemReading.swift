import Foundation
import VaultCore
import VaultSearch

/// A room or diary entry as the `read` tool and `resources/read` give it: read from disk at
/// each call (a hand edit is what the next read returns), a file git left conflict markers in
/// read as this machine's side, with a note, as `vault show` reads it.
enum ItemReading {
    static func bytes(of path: String, in vault: Vault) throws(ToolFailure) -> (bytes: [UInt8], notes: [String]) {
        let bytes: [UInt8]
        do {
            bytes = try FileIO.read(vault.absolute(path))
        } catch {
            throw ToolFailure(error)
        }
        guard let marker = ConflictMarkers.problem(in: bytes, path: path), let sides = ConflictMarkers.split(bytes) else {
            return (bytes, [])
        }
        return (
            sides.ours,
            ["\(path):\(marker.line): git left conflict markers in this file; this is this machine's side only (`vault resolve` merges both)."]
        )
    }

    static func read(_ item: VaultItem, in vault: Vault, offset: Int, limit: Int) throws(ToolFailure) -> JSONValue {
        let (bytes, notes) = try bytes(of: item.path, in: vault)
        switch item {
        case .room(let path):
            let room: RoomFile
            do {
                room = try RoomFile.readingWhatCan(bytes, path: path)
            } catch {
                throw ToolFailure(error)
            }
            let count = room.messages.count
            let start = offset < 0 ? max(0, count + offset) : min(offset, count)
            let end = min(count, start + limit)
            let messages = room.messages[start..<end].map { m -> JSONValue in
                [
                    "id": .string(m.id), "role": .string(m.role.rawValue), "time": .string(m.timestamp.text),
                    "author": .optional(m.author?.name), "status": .optional(m.status),
                    "text": .string(room.body(of: m) { line, problem in "⚠️ line \(problem.line): \(line)" }),
                ]
            }
            return [
                "kind": "room", "path": .string(path), "slug": .string(VaultPath.stem(of: path)),
                "title": .string(room.title), "model": .optional(room.frontMatter?.string("model")),
                "system": .optional(room.frontMatter?.string("system")),
                "message_count": .int(count), "offset": .int(start), "messages": .array(Array(messages)),
                "next_offset": end < count ? .int(end) : .null,
                "pending_prompt": .optional(room.pendingPrompt),
                "notes": .array((notes + room.unreadHeaders.map { "\($0); shown as text, marked ⚠️" }).map(JSONValue.string)),
            ]
        case .diaryEntry(let path):
            let entry: DiaryFile
            do {
                entry = try DiaryFile(parsing: bytes, path: path)
            } catch {
                throw ToolFailure(error)
            }
            return [
                "kind": "diary", "path": .string(path), "id": .optional(entry.id),
                "date": .optional(entry.day?.description), "created": .optional(entry.created?.text),
                "title": .string(entry.title), "tags": .array(entry.tags.map(JSONValue.string)),
                "text": .string(entry.body.trimmingCharacters(in: .newlines)),
                "notes": .array(notes.map(JSONValue.string)),
            ]
        }
    }
}

/// The `search` tool: `vault search`'s query, checked as the command checks it, run over every
/// file as it is on disk now (the scan; an index, when the vault has one, is brought up to date
/// with the files first, so it never answers for a file a hand edit changed).
enum SearchTool {
    static func run(_ args: Arguments, vault: Vault) throws(ToolFailure) -> JSONValue {
        let zone = vault.config.timeZone
        var query = SearchQuery(pattern: try args.text("query"))
        query.isRegex = try args.flag("regex")
        query.tag = try args.optionalText("tag")
        query.since = try args.day("since", zone: zone)
        query.until = try args.day("until", zone: zone)
        if let role = try args.optionalText("role") {
            guard let r = Role(rawValue: role) else { throw ToolFailure("'role' must be user, assistant or system") }
            query.role = r
        }
        if let room = try args.optionalText("room") {
            guard case .room(let path) = try VaultTools.resolve(room, in: vault) else {
                throw ToolFailure("'room': \(room.debugDescription) is a diary entry, not a room")
            }
            query.scope = .item(path)
        } else if let kind = try args.optionalText("kind") {
            switch kind {
            case "rooms": query.scope = .rooms
            case "diary": query.scope = .diary
            default: throw ToolFailure("'kind' must be rooms or diary")
            }
        }
        let limit = try args.integer("limit", default: 50, in: 1...1000)
        let results: SearchResults
        do {
            try query.validate()
            var search = VaultSearch(vault: vault)
            search.listingCache = SearchIndex.listingPath(forVaultAt: vault.root)
            if SearchIndex.exists(forVaultAt: vault.root) {
                let index = try SearchIndex(vaultRoot: vault.root)
                results = try search.run(query, index: index, refreshingAnyway: false).0
            } else {
                results = try search.run(query)
            }
        } catch {
            throw ToolFailure(error)
        }
        var hits: [JSONValue] = []
        var total = 0
        for item in results.items {
            for hit in item.hits {
                total += 1
                guard hits.count < limit else { continue }
                var h: [String: JSONValue] = [
                    "path": .string(item.path), "title": .string(item.title),
                    "kind": .string(item.kind == .room ? "room" : "diary"), "line": .int(hit.line),
                    "text": .string(hit.text), "front_matter": .bool(hit.inFrontMatter),
                ]
                if let m = hit.message {
                    h["message_id"] = .string(m.id)
                    h["role"] = .string(m.role.rawValue)
                    h["time"] = .string(m.timestamp.text)
                }
                if let day = item.day { h["day"] = .string(day.description) }
                hits.append(.object(h))
            }
        }
        return .toolResult([
            "hits": .array(hits), "total_hits": .int(total), "items": .int(results.itemCount),
            "skipped": .array(results.skipped.map { .string("\($0.path): \($0.reason)") }),
        ])
    }
}
