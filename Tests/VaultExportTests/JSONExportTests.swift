import Foundation
import Testing
import VaultCore
import VaultExport
import VaultTestSupport

@Suite("JSON export")
struct JSONExportTests {
    @Test("the whole sample vault round-trips through JSONSerialization with every body byte-identical")
    func sampleRoundTrip() throws {
        let dir = try Project.copyOfSampleVault()
        let vault = try Vault(root: dir.path)
        let diary = try Sample.diary(vault)
        let rooms = try vault.roomPaths().map { try Sample.room($0, vault) }
        let now = Date(timeIntervalSince1970: 1_795_000_000)
        let data = try Exporter(vault: vault).json(diary + rooms, exportedAt: now)
        let text = String(decoding: data, as: UTF8.self)
        // Non-ASCII as is, slashes unescaped, pretty.
        #expect(text.contains("\"title\" : \"부산 여행\""))
        #expect(text.contains("\"path\" : \"rooms/부산-여행.md\""))
        #expect(!text.contains("\\u"))
        #expect(text.hasSuffix("}\n"))

        let parsed = try JSONSerialization.jsonObject(with: data)
        let root = try #require(parsed as? [String: Any])
        #expect(Set(root.keys) == ["exported_at", "items"])
        let exportedAt = try #require(root["exported_at"] as? String)
        let stamp = try #require(Timestamp(rfc3339: exportedAt))
        #expect(stamp.secondsSince1970 == now.timeIntervalSince1970)
        #expect(stamp.utcOffsetSeconds == 9 * 3600)
        let items = try #require(root["items"] as? [[String: Any]])
        #expect(items.count == diary.count + rooms.count)
        #expect(items.compactMap { $0["path"] as? String } == (diary + rooms).map(\.path))

        for (json, item) in zip(items, diary + rooms) {
            switch item {
            case .diaryEntry(let entry, let day):
                #expect(json["kind"] as? String == "diary")
                let body = try #require(json["body"] as? String)
                #expect(Array(body.utf8) == Array(entry.body.utf8), "\(entry.path)")
                // Independently of the parser: the file ends with exactly these bytes.
                let file = try dir.read(entry.path)
                #expect(
                    file.count >= body.utf8.count && Array(file.suffix(body.utf8.count)) == Array(body.utf8),
                    "\(entry.path)")
                #expect(json["date"] as? String == (entry.day ?? day)?.description)
                #expect(json["title"] as? String == entry.title)
                #expect(json["tags"] as? [String] == entry.tags)
                #expect(json["id"] as? String == entry.id)
                #expect(json["created"] as? String == entry.created?.text)
                #expect(json["heading"] as? String == entry.heading)
                // Absent values are left out, not null.
                if entry.id == nil { #expect(json["id"] == nil && !json.keys.contains("id")) }
            case .room(let room):
                #expect(json["kind"] as? String == "room")
                #expect(json["title"] as? String == room.title)
                #expect(json["model"] as? String == room.frontMatter?.string("model"))
                #expect(json["system"] as? String == room.frontMatter?.string("system"))
                let messages = try #require(json["messages"] as? [[String: Any]])
                #expect(messages.count == room.messages.count, "\(room.path)")
                for (m, message) in zip(messages, room.messages) {
                    #expect(m["id"] as? String == message.id)
                    #expect(m["role"] as? String == message.role.rawValue)
                    #expect(m["time"] as? String == message.timestamp.text)
                    #expect(
                        Array(((m["body"] as? String) ?? "").utf8) == Array(message.body.utf8),
                        "\(room.path) \(message.id)")
                    #expect(m["model"] as? String == message.header.attribute("model"))
                    #expect(m["provider"] as? String == message.header.attribute("provider"))
                    if message.role == .user { #expect(!m.keys.contains("model") && !m.keys.contains("status")) }
                }
            }
        }
        // The escape room's bodies are unescaped (one backslash fewer than the file).
        let escape = try vault.readRoom("rooms/vault-헤더-이스케이프.md")
        #expect(escape.messages[2].body.contains("\\## 🧑 user"))
        #expect(!escape.messages[2].body.contains("\\\\## 🧑 user"))
        #expect(text.contains("파일을 열어 보니"))
        // The entry without front-matter has no id, created or tags list of its own.
        let review = try #require(items.first { ($0["path"] as? String) == "diary/2026/2026-09-30 회고.md" })
        #expect(review["id"] == nil && review["created"] == nil)
        #expect(review["date"] as? String == "2026-09-30")
    }
}
