import Foundation
import VaultCore

extension Exporter {
    /// The items as JSON, for programs: `{"exported_at": …, "items": [...]}`.
    ///
    /// Bodies are exactly what the files hold (a diary entry's body after its
    /// heading, a message's body unescaped), so nothing is lost. Missing values
    /// are left out rather than written as `null`. Pretty-printed with sorted
    /// keys; Hangul and other non-ASCII text is written as is.
    ///
    ///     {
    ///       "exported_at" : "2026-11-21T10:00:00+09:00",
    ///       "items" : [ { "kind" : "room", "path" : "rooms/부산-여행.md", "messages" : [ … ] } ]
    ///     }
    public func json(_ items: [ExportItem], exportedAt: Date = Date()) throws(VaultError) -> Data {
        let document = JSONDocument(
            exportedAt: Timestamp(date: exportedAt, timeZone: timeZone).text,
            items: items.enumerated().map { k, item in
                defer { reportProgress(k + 1, of: items.count) }
                switch item {
                case .diaryEntry(let entry, let day):
                    return .diaryEntry(
                        JSONDiaryEntry(
                            path: entry.path, id: entry.id, date: (entry.day ?? day)?.description,
                            created: entry.created?.text,
                            title: entry.title, tags: entry.tags, heading: entry.heading, body: entry.body))
                case .room(let room):
                    return .room(
                        JSONRoom(
                            path: room.path, title: room.title, model: room.frontMatter?.string("model"),
                            system: room.frontMatter?.string("system"),
                            messages: room.messages.map { m in
                                JSONMessage(
                                    id: m.id, role: m.role.rawValue, time: m.timestamp.text, body: m.body,
                                    model: m.header.attribute("model"), provider: m.header.attribute("provider"),
                                    status: m.status, author: m.author?.name,
                                    replyTo: m.header.attribute(Posting.replyToKey))
                            }))
                }
            })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            var data = try encoder.encode(document)
            data.append(10)
            return data
        } catch {
            // Every value of the document is a string, a number, a list or a map: encoding cannot fail.
            throw VaultError.internal(InternalError("JSONEncoder failed on the export", context: "\(error)"))
        }
    }
}

struct JSONDocument: Encodable {
    var exportedAt: String
    var items: [JSONItem]

    enum CodingKeys: String, CodingKey {
        case exportedAt = "exported_at", items
    }
}

enum JSONItem: Encodable {
    case diaryEntry(JSONDiaryEntry)
    case room(JSONRoom)

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .diaryEntry(let entry): try entry.encode(to: encoder)
        case .room(let room): try room.encode(to: encoder)
        }
    }
}

struct JSONDiaryEntry: Encodable {
    var kind = "diary"
    var path: String
    var id: String?
    /// `yyyy-mm-dd`.
    var date: String?
    /// RFC 3339, as written in the front-matter.
    var created: String?
    var title: String
    var tags: [String]
    /// The `# ` heading line as written in the file (display text).
    var heading: String?
    var body: String
}

struct JSONRoom: Encodable {
    var kind = "room"
    var path: String
    var title: String
    var model: String?
    var system: String?
    var messages: [JSONMessage]
}

struct JSONMessage: Encodable {
    var id: String
    var role: String
    /// RFC 3339, as written in the header.
    var time: String
    var body: String
    var model: String?
    var provider: String?
    var status: String?
    /// Who wrote it, when its header names someone (`author=`, a shared room).
    var author: String?
    /// The id of the message it answers (`reply-to=`).
    var replyTo: String?

    enum CodingKeys: String, CodingKey {
        case id, role, time, body, model, provider, status, author
        case replyTo = "reply_to"
    }
}
