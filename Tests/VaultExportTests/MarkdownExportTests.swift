import Foundation
import Testing
import VaultCore
import VaultTestSupport

@testable import VaultExport

@Suite("Markdown export")
struct MarkdownExportTests {
    @Test("every message body of every sample room appears exactly once, and no machine text does")
    func roomBodiesOnceNoMachineText() throws {
        let dir = try Project.copyOfSampleVault()
        let vault = try Vault(root: dir.path)
        let exporter = Exporter(vault: vault)
        var checkedBodies = 0
        for path in vault.roomPaths() {
            let room = try vault.readRoom(path)
            let markdown = exporter.markdown([.room(room)])
            #expect(markdown.hasPrefix("# \(room.title)\n"), "\(path)")
            var commentsInBodies = 0
            for message in room.messages where !message.body.isEmpty {
                // As written, but for its headings, which sit below the `###` message header.
                let body = Exporter.demotingHeadings(message.body)
                #expect(occurrences(of: body, in: markdown) == 1, "\(path): body of \(message.id)")
                commentsInBodies += occurrences(of: "<!--", in: message.body)
                checkedBodies += 1
                // The role in the vault's language (`ListingWords`): `🧑 사용자`.
                let heading = "### \(message.role.icon) \(ListingWords.of("ko_KR").role(message.role)) · "
                    + DateText.header(message.timestamp, locale: "ko_KR", timeZone: TimeZone(identifier: "Asia/Seoul")!)
                #expect(markdown.contains(heading), "\(path): heading of \(message.id)")
                // The machine part of the header (id, timestamp) is not in the export.
                if !room.messages.contains(where: { $0.body.contains(message.id) }) {
                    #expect(!markdown.contains(message.id), "\(path): \(message.id)")
                }
            }
            // The only comments are those the bodies hold (the escape room quotes headers in code).
            #expect(occurrences(of: "<!--", in: markdown) == commentsInBodies, "\(path)")
            #expect(!markdown.contains("created: "), "\(path): front-matter leaked")
        }
        #expect(checkedBodies > 20)
        // A room whose bodies hold no comment: none at all in the export.
        let busan = try vault.readRoom("rooms/부산-여행.md")
        let markdown = exporter.markdown([.room(busan)])
        #expect(!markdown.contains("<!--"))
        #expect(!markdown.contains("vault:prompt"))
        #expect(markdown.contains("### 🤖 어시스턴트 · 2026년 10월 28일 수요일 오후 9:12 · gpt-4o-mini\n"))
    }

    @Test("an escaped header line inside a body comes out as the person wrote it (unescaped, demoted)")
    func escapedLinesComeOutUnescaped() throws {
        let typed = "look:\n## 🧑 user · x <!-- 2026-01-01T00:00:00+09:00 m-ABCD1234 -->\ndone"
        let room = try RoomFile(parsing: Array(roomText(title: "t", [(.user, typed)]).utf8), path: "rooms/t.md")
        #expect(String(decoding: room.bytes, as: UTF8.self).contains("\\## 🧑 user · x"))
        let markdown = Exporter(locale: "ko_KR", timeZone: TimeZone(identifier: "Asia/Seoul")!).markdown([.room(room)])
        // A heading in a body sits below the `###` message header: `##` becomes `#####`.
        #expect(markdown.contains("\nlook:\n##### 🧑 user · x <!-- 2026-01-01T00:00:00+09:00 m-ABCD1234 -->\ndone\n"))
        #expect(!markdown.contains("\\## 🧑"))
    }

    @Test("headings inside a body are demoted below the message header; code and quotes are not")
    func headingsAreDemoted() {
        #expect(Exporter.demotingHeadings("# a\n## b\n###### c\n#d\n   ## e") == "#### a\n##### b\n###### c\n#d\n   ##### e")
        #expect(Exporter.demotingHeadings("```\n# code\n```\n~~~\n## also\n~~~") == "```\n# code\n```\n~~~\n## also\n~~~")
        #expect(Exporter.demotingHeadings("    # indented code") == "    # indented code")
        #expect(Exporter.demotingHeadings("Title\n===\n\nSub\n---") == "#### Title\n\n##### Sub")
        #expect(Exporter.demotingHeadings("- item\n---") == "- item\n---")
        #expect(Exporter.demotingHeadings("> # quoted") == "> # quoted")
    }

    @Test("a diary entry: date heading in the vault's locale, title, tags, the body as written")
    func diaryEntryLayout() throws {
        let dir = try Project.copyOfSampleVault()
        let vault = try Vault(root: dir.path)
        let exporter = Exporter(vault: vault)
        let snow = try ExportItem(.diaryEntry("diary/2026/2026-11-21-첫눈.md"), in: vault)
        let markdown = exporter.markdown([snow])
        #expect(markdown.hasPrefix("# 2026년 11월 21일 토요일\n\n## 첫눈\n\n`#겨울` `#산책`\n\n아침에 첫눈이 왔다."))
        #expect(markdown.hasSuffix("어제 방만 만들어 놓고 한 줄도 못 썼다.\n"))
        #expect(!markdown.contains("d-J0MY8RB8ZFZZ"))
        #expect(!markdown.contains("updated:"))

        // Written with a Japanese heading; exported in the vault's locale.
        let osaka = exporter.markdown([try ExportItem(.diaryEntry("diary/2026/2026-10-03-大阪の朝.md"), in: vault)])
        #expect(osaka.hasPrefix("# 2026년 10월 3일 토요일\n\n## 大阪の朝\n"))
        #expect(!osaka.contains("2026年10月3日"))

        // No front-matter: the day from the file name, no title heading, no tags.
        let review = exporter.markdown([try ExportItem(.diaryEntry("diary/2026/2026-09-30 회고.md"), in: vault)])
        #expect(review.hasPrefix("# 2026년 9월 30일 수요일\n\n3분기 회고\n"))
        #expect(!review.contains("\n## "))
        #expect(!review.contains("`#"))
    }

    @Test("items are separated by a thematic break; a room and a diary entry mix")
    func itemsSeparated() throws {
        let dir = try Project.copyOfSampleVault()
        let vault = try Vault(root: dir.path)
        let exporter = Exporter(vault: vault)
        let entry = try ExportItem(.diaryEntry("diary/2026/2026-11-14-단호박-수프.md"), in: vault)
        let room = try ExportItem(.room("rooms/김치찌개-레시피.md"), in: vault)
        let both = exporter.markdown([entry, room])
        #expect(both == exporter.markdown([entry]) + "\n---\n\n" + exporter.markdown([room]))
    }

    @Test("replies name their model, offline replies say so, failed ones say failed")
    func replyHeadings() throws {
        let zone = TimeZone(identifier: "Asia/Seoul")!
        let exporter = Exporter(locale: "en_US", timeZone: zone)
        func heading(_ attributes: [String]) throws -> String {
            let room = try RoomFile(
                parsing: Array(roomText(title: "r", [(.user, "q"), (.assistant, "a")], attributes: attributes).utf8),
                path: "rooms/r.md")
            let markdown = exporter.markdown([.room(room)])
            return markdown.split(separator: "\n").filter { $0.hasPrefix("### 🤖") }.first.map(String.init) ?? ""
        }
        let when = DateText.header(Timestamp(rfc3339: "2026-11-21T09:32:00+09:00")!, locale: "en_US", timeZone: zone)
        #expect(try heading(["model=gpt-4o", "provider=openai"]) == "### 🤖 assistant · \(when) · gpt-4o")
        #expect(try heading(["model=echo", "provider=offline"]) == "### 🤖 assistant · \(when) · offline, no model")
        #expect(try heading(["model=gpt-4o", "status=failed"]) == "### 🤖 assistant · \(when) · gpt-4o · failed")
        #expect(try heading([]) == "### 🤖 assistant · \(when)")
    }

    @Test("a title with Markdown punctuation stays literal text")
    func titleEscaped() throws {
        let title = "*not bold* [no link](x) <b>no tag</b> #1 | a_b_c"
        let room = try RoomFile(parsing: Array(roomText(title: "'\(title)'", [(.user, "hi")]).utf8), path: "rooms/x.md")
        let exporter = Exporter(locale: "ko_KR", timeZone: TimeZone(identifier: "Asia/Seoul")!)
        let page = try ParsedHTML.parse(exporter.html([.room(room)]).html)
        #expect(page.count("h1") == 1)
        #expect(page.count("em") == 0 && page.count("a") == 0 && page.count("b") == 0)
        #expect(page.text.contains(title))
        #expect(page.title == title)
    }
}
