import Testing
import VaultTestSupport

@testable import VaultCore

@Suite struct RoomFileTests {
    static let room = """
        ---
        title: 부산 여행 # comment kept
        created: 2026-11-21T09:30:00+09:00
        model: gpt-4o-mini
        enabled: no
        system: |
          You are a travel planner.
          Answer in Korean.
        ---
        메모: 여행 계획

        ## 🧑 user · 2026년 11월 21일 토요일 오전 9:31 <!-- 2026-11-21T09:31:07+09:00 m-01JPA3K8Z4QX -->

        부산 2박 3일 일정 짜줘
        ## user
        ## 🤖 assistant

        ## 🤖 assistant · 2026년 11월 21일 토요일 오전 9:31 · gpt-4o-mini \
        <!-- 2026-11-21T09:31:09+09:00 m-01JPA3K9B2MD model=gpt-4o-mini provider=openai -->

        ## 첫째 날
        ```markdown
        \\## 🧑 user · 가짜 <!-- 2026-11-21T09:31:07+09:00 m-FAKEFAKEFAKE -->
        ```

        <!-- vault:prompt · write your next message below this line, then run `vault chat` -->

        """

    @Test func readsMessagesStrictly() throws {
        let r = try RoomFile(parsing: Array(Self.room.utf8), path: "rooms/busan.md")
        #expect(r.title == "부산 여행")
        #expect(r.messages.count == 2)
        #expect(r.messages[0].role == .user)
        #expect(r.messages[0].body == "부산 2박 3일 일정 짜줘\n## user\n## 🤖 assistant")
        #expect(r.messages[0].timestamp.utcOffsetSeconds == 9 * 3600)
        #expect(r.messages[0].line == 12)
        #expect(r.messages[1].header.attribute("model") == "gpt-4o-mini")
        #expect(r.messages[1].body.contains("\n## 🧑 user · 가짜 <!-- 2026-11-21T09:31:07+09:00 m-FAKEFAKEFAKE -->\n"))
        #expect(r.messages[1].header.display == "2026년 11월 21일 토요일 오전 9:31 · gpt-4o-mini")
        #expect(r.preamble == "메모: 여행 계획\n\n")
        #expect(r.pendingPrompt == nil)
        #expect(r.frontMatter?.string("enabled") == "no")
        #expect(r.frontMatter?.string("created") == "2026-11-21T09:30:00+09:00")
        #expect(r.frontMatter?.string("system") == "You are a travel planner.\nAnswer in Korean.\n")
    }

    @Test func keepsBOMAndCRLFAndAppendsInTheFileStyle() throws {
        let crlf = "\u{FEFF}" + Self.room.replacingOccurrences(of: "\n", with: "\r\n") + "  trailing   \r\n"
        let bytes = Array(crlf.utf8)
        let r = try RoomFile(parsing: bytes, path: "rooms/busan.md")
        #expect(r.hasByteOrderMark)
        #expect(r.lineEnding == .crlf)
        #expect(r.bytes == bytes)
        #expect(r.messages[0].body == "부산 2박 3일 일정 짜줘\r\n## user\r\n## 🤖 assistant")
        #expect(r.pendingPrompt == "trailing")
        let t = Timestamp(rfc3339: "2026-11-21T10:00:00+09:00")!
        let out = r.appending([MessageDraft(role: .user, body: "a\nb", timestamp: t)], consumingPendingPrompt: true) {
            _ in "x"
        }
        let text = String(decoding: out.bytes, as: UTF8.self)
        #expect(text.hasSuffix("-->\r\n\r\na\nb\r\n\r\n" + RoomFile.promptMarkerLine + "\r\n"))
        #expect(Array(out.bytes[..<r.promptMarkerOffset!]) == Array(bytes[..<r.promptMarkerOffset!]))
    }

    @Test func headerNeedNotFollowABlankLine() throws {
        // What a line-based merge can produce.
        let text = """
            ## 🧑 user · a <!-- 2026-11-21T09:31:07+09:00 m-AAAA1111 -->
            first
            ## 🧑 user · b <!-- 2026-11-21T09:32:07+09:00 m-BBBB2222 -->
            second
            """
        let r = try RoomFile(parsing: Array(text.utf8), path: "r.md")
        #expect(r.messages.map(\.body) == ["first", "second"])
        #expect(r.frontMatter == nil)
        #expect(r.title == "r")
    }

    @Test func strayMarkerAndDuplicateIDsAreWarningsAndNoWordIsLost() throws {
        let text = """
            ## 🧑 user · a <!-- 2026-11-21T09:31:07+09:00 m-AAAA1111 -->

            first

            <!-- vault:prompt -->
            typed words
            ## 🤖 assistant · b <!-- 2026-11-21T09:32:07+09:00 m-AAAA1111 -->

            second

            """
        let r = try RoomFile(parsing: Array(text.utf8), path: "rooms/r.md")
        #expect(r.messages.count == 2)
        #expect(r.messages[0].body.contains("typed words"))
        #expect(r.warnings.map(\.line) == [5, 7])
        #expect(r.warnings.map(\.severity) == [.warning, .warning])
    }

    @Test func changingOneKeyRewritesOnlyItsLines() throws {
        let bytes = Array(Self.room.utf8)
        let r = try RoomFile(parsing: bytes, path: "rooms/busan.md")
        let changed = String(decoding: try r.setting("model", to: .string("llama3.1:8b")), as: UTF8.self)
        #expect(changed == Self.room.replacingOccurrences(of: "model: gpt-4o-mini\n", with: "model: \"llama3.1:8b\"\n")
            || changed == Self.room.replacingOccurrences(of: "model: gpt-4o-mini\n", with: "model: llama3.1:8b\n"))
        let system = String(decoding: try r.setting("system", to: .string("한 줄")), as: UTF8.self)
        #expect(
            system
                == Self.room.replacingOccurrences(
                    of: "system: |\n  You are a travel planner.\n  Answer in Korean.\n", with: "system: 한 줄\n"))
        let added = String(decoding: try r.setting("temperature", to: .string("0.2")), as: UTF8.self)
        #expect(
            added
                == Self.room.replacingOccurrences(
                    of: "  Answer in Korean.\n---\n", with: "  Answer in Korean.\ntemperature: \"0.2\"\n---\n"))
        let removed = String(decoding: try r.setting("enabled", to: nil), as: UTF8.self)
        #expect(removed == Self.room.replacingOccurrences(of: "enabled: no\n", with: ""))
    }

    @Test func settingAValueWithoutFrontMatterCreatesOne() throws {
        let r = try RoomFile(parsing: Array("hello\n".utf8), path: "rooms/x.md")
        let out = String(decoding: try r.setting("title", to: .string("새 방: 제목")), as: UTF8.self)
        #expect(out == "---\ntitle: \"새 방: 제목\"\n---\nhello\n")
        #expect(try RoomFile(parsing: Array(out.utf8), path: "x").title == "새 방: 제목")
    }
}
