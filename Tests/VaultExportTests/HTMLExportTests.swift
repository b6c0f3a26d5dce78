import Foundation
import Testing
import VaultCore
import VaultExport
import VaultTestSupport

@Suite("HTML export")
struct HTMLExportTests {
    let seoul = TimeZone(identifier: "Asia/Seoul")!

    @Test("the sample diary and a room make one well-formed page with every heading and title")
    func samplePageWellFormed() throws {
        let dir = try Project.copyOfSampleVault()
        let vault = try Vault(root: dir.path)
        let diary = try Sample.diary(vault)
        let room = try Sample.room("rooms/sf-trip-packing-list.md", vault)
        let export = Exporter(vault: vault).html(diary + [room])
        #expect(export.warnings.isEmpty)
        let page = try ParsedHTML.parse(export.html)
        #expect(page.unclosed.isEmpty, "\(page.unclosed)")
        #expect(page.mismatched.isEmpty, "\(page.mismatched)")
        #expect(page.doctype?.lowercased() == "doctype html")
        #expect(page.charsets == ["utf-8"])
        #expect(page.count("style") == 1)
        #expect(page.count("script") == 0)
        #expect(!page.title.isEmpty)
        // One <h1> per item, one <h3> per message (the room's bodies use ## only), its one table.
        #expect(diary.count == 10)
        #expect(page.count("h1") == 11)
        guard case .room(let file) = room else { return }
        #expect(file.messages.count == 4)
        #expect(page.count("h3") == 4)
        #expect(page.count("table") == 1)
        for item in diary {
            guard case .diaryEntry(let entry, let day) = item else { continue }
            #expect(page.text.contains(DateText.heading((entry.day ?? day)!, locale: "ko_KR")), "\(entry.path)")
            #expect(page.text.contains(entry.title), "\(entry.path)")
        }
        #expect(page.text.contains("SF trip packing list"))
        #expect(page.text.contains("Light jacket or fleece"))
        // No machine headers: the page holds no message id of the room.
        for m in file.messages { #expect(!export.html.contains(m.id)) }
        // Speakers can be told apart.
        #expect(occurrences(of: "<section class=\"message user\">", in: export.html) == 2)
        #expect(occurrences(of: "<section class=\"message assistant\">", in: export.html) == 2)
        #expect(export.html.contains("prefers-color-scheme: dark"))
        #expect(export.html.contains("Apple SD Gothic Neo"))
    }

    @Test("GitHub Markdown in a message: a table, strikethrough, a task list, an autolink")
    func gfmExtensions() throws {
        let body = """
            | 도시 | 일수 |
            | --- | ---: |
            | 부산 | 3 |
            | 오사카 | 4 |

            ~~취소~~ 확정

            - [x] 표 만들기
            - [ ] 짐 싸기

            자세한 건 www.example.com 에서.
            """
        let room = try RoomFile(parsing: Array(roomText(title: "표", [(.assistant, body)]).utf8), path: "rooms/t.md")
        let page = try ParsedHTML.parse(Exporter(locale: "ko_KR", timeZone: seoul).html([.room(room)]).html)
        #expect(page.count("table") == 1)
        #expect(page.count("th") == 2)
        #expect(page.count("td") == 4)
        #expect(page.count("del") == 1)
        #expect(page.count("input") == 2)
        #expect(page.count("a") == 1)
        #expect(page.unclosed.isEmpty && page.mismatched.isEmpty)
    }

    @Test("an imported room's reasoning and tool calls are folded (<details>), the conversation is not")
    func importedToolCallsAreFolded() throws {
        var text = roomText(title: "도구", [(.user, "파일을 읽어 줘"), (.assistant, "```\nRead plan.py\n```"), (.assistant, "다 읽었어요.")])
        text = text.replacingOccurrences(of: "m-TEST0001 -->", with: "m-TEST0001 kind=tool-call -->")
        let room = try RoomFile(parsing: Array(text.utf8), path: "rooms/t.md")
        let html = Exporter(locale: "ko_KR", timeZone: seoul).html([.room(room)]).html
        let page = try ParsedHTML.parse(html)
        #expect(page.count("details") == 1 && page.count("summary") == 1)
        #expect(page.count("section") == 2, "the question and the answer stay open")
        #expect(html.contains("<details class=\"message assistant tool-call\">\n<summary>🤖 어시스턴트 · "), "\(html)")
        #expect(html.contains("Read plan.py"))
        #expect(page.unclosed.isEmpty && page.mismatched.isEmpty)
        let markdown = Exporter(locale: "ko_KR", timeZone: seoul).markdown([.room(room)])
        #expect(markdown.contains(" · tool-call\n"), "\(markdown)")
    }

    @Test("HTML and script written in a body or a title never become live elements")
    func rawHTMLIsNotLive() throws {
        let body = """
            <script>alert(1)</script>

            hi <script>alert(2)</script> there <img src=x onerror=alert(3)>

            [click](javascript:alert(4)) and <a href="javascript:alert(5)">this</a>

            <div onclick="alert(8)">block</div>

            ```html
            <script>alert(6)</script>
            ```
            """
        let title = "<script>alert(7)</script> 방"
        let room = try RoomFile(
            parsing: Array(roomText(title: "'\(title)'", [(.user, body)]).utf8), path: "rooms/x.md")
        let html = Exporter(locale: "ko_KR", timeZone: seoul).html([.room(room)]).html
        let page = try ParsedHTML.parse(html)
        #expect(page.count("script") == 0)
        #expect(page.count("div") == 0)
        #expect(page.eventHandlers.isEmpty, "\(page.eventHandlers)")
        #expect(page.scriptTargets.isEmpty, "\(page.scriptTargets)")
        #expect(page.otherImages.isEmpty && page.dataImages.isEmpty)
        // Code shows the text; titles are text.
        #expect(page.text.contains("<script>alert(6)</script>"))
        #expect(page.text.contains(title))
        #expect(page.title == title)
        #expect(page.unclosed.isEmpty && page.mismatched.isEmpty)
    }

    @Test("images in attachments/ are embedded as data URLs; a missing one is a warning and stays a link")
    func attachmentsEmbedded() throws {
        let (dir, vault) = try makeVault()
        // A 1×1 PNG.
        let png = Data(
            base64Encoded:
                "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")!
        try dir.write("attachments/ab12.png", Array(png))
        try dir.write("attachments/notes.txt", "text")
        try FileManager.default.createSymbolicLink(
            atPath: dir.path + "/attachments/link.png", withDestinationPath: dir.path + "/vault.yml")
        let body = """
            ![dot](../attachments/ab12.png) ![again](<attachments/ab12.png>)

            ![gone](../attachments/missing.png) ![web](https://example.com/x.png)

            ![config](../attachments/../vault.yml) ![link](../attachments/link.png) ![text](../attachments/notes.txt)
            """
        try dir.write("rooms/pic.md", roomText(title: "pic", [(.user, body)]))
        try dir.write(
            "diary/2026/2026-11-21-pic.md",
            "---\ntitle: pic\ncreated: 2026-11-21T09:30:00+09:00\n---\n\n# x\n\n![dot](../../attachments/ab12.png)\n")
        let items = [
            try ExportItem(.room("rooms/pic.md"), in: vault),
            try ExportItem(.diaryEntry("diary/2026/2026-11-21-pic.md"), in: vault),
        ]
        let export = Exporter(vault: vault).html(items)
        let page = try ParsedHTML.parse(export.html)
        let expected = "data:image/png;base64," + png.base64EncodedString()
        #expect(page.dataImages == [expected, expected, expected])
        #expect(
            Set(page.otherImages)
                == [
                    "../attachments/missing.png", "https://example.com/x.png", "../attachments/../vault.yml",
                    "../attachments/link.png", "../attachments/notes.txt",
                ])
        #expect(export.warnings.count == 3)
        #expect(
            export.warnings.contains { $0.path == "rooms/pic.md" && $0.message.contains("attachments/missing.png") })
        #expect(export.warnings.contains { $0.message.contains("notes.txt") })
        #expect(export.warnings.contains { $0.message.contains("attachments/link.png is a symbolic link") })
        #expect(!export.html.contains("vault-attachment-"))
    }

    @Test("only regular files inside attachments/, reached through no link, whose bytes are the image they claim")
    func attachmentsFromOutsideAreNeverEmbedded() throws {
        let (dir, vault) = try makeVault()
        let outside = TemporaryDirectory("vault-export-outside")
        let png = Data(
            base64Encoded:
                "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")!
        try outside.write("secret.png", Array(png))
        try outside.write("notes.txt", "SECRET-NOTES")
        // `attachments` itself a link out of the vault (as a clone could once deliver it).
        try? FileManager.default.removeItem(atPath: dir.path + "/attachments")
        try FileManager.default.createSymbolicLink(atPath: dir.path + "/attachments", withDestinationPath: outside.path)
        try dir.write(
            "rooms/pic.md",
            roomText(
                title: "pic",
                [(.user, "![a](../attachments/secret.png) ![k](attachments/notes.txt%00.png) ![t](attachments/notes.txt)")]))
        let linked = Exporter(vault: vault).html([try ExportItem(.room("rooms/pic.md"), in: vault)])
        #expect(try ParsedHTML.parse(linked.html).dataImages.isEmpty)
        #expect(!linked.html.contains(png.base64EncodedString()) && !linked.html.contains("U0VDUkVU"))
        // A real folder again: a text file named .png is not embedded either.
        try FileManager.default.removeItem(atPath: dir.path + "/attachments")
        try dir.write("attachments/fake.png", "SECRET-NOTES")
        try dir.write("rooms/pic.md", roomText(title: "pic", [(.user, "![f](../attachments/fake.png)")]))
        let fake = Exporter(vault: vault).html([try ExportItem(.room("rooms/pic.md"), in: vault)])
        #expect(try ParsedHTML.parse(fake.html).dataImages.isEmpty)
        #expect(fake.warnings.contains { $0.message.contains("not the .png image its name says") })
    }
}
