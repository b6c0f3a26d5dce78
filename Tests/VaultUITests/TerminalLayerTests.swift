import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import VaultUI

/// The app's terminal layer on its own: cells and widths, the renderer's bytes, the key decoder,
/// the compose box's layout. (The app on a real terminal is `VaultUIEndToEndTests`.)
@Suite struct CanvasTests {
    @Test func wideCharactersTakeTwoCellsAndAreNeverCutInHalf() {
        var canvas = Canvas(rows: 1, columns: 5)
        let end = canvas.put("부산a", row: 0, column: 0)
        #expect(end == 5)
        #expect(canvas.text(ofRow: 0) == "부산a")
        #expect(canvas[0, 0].width == 2 && canvas[0, 1].width == 0)
        // At the right edge a wide character that does not fit is left out, not split.
        var narrow = Canvas(rows: 1, columns: 3)
        narrow.put("부산", row: 0, column: 0)
        #expect(narrow.text(ofRow: 0) == "부")
        #expect(narrow[0, 2] == .blank)
    }

    @Test func controlCharactersNeverReachTheTerminal() {
        var canvas = Canvas(rows: 1, columns: 20)
        canvas.put("a\u{1B}[2Jb\u{07}\u{9B}c", row: 0, column: 0)
        let text = canvas.text(ofRow: 0)
        #expect(!text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        #expect(text == "a\u{FFFD}[2Jb\u{FFFD}\u{FFFD}c")
    }

    @Test func overwritingHalfOfAWideCharacterBlanksTheOtherHalf() {
        var canvas = Canvas(rows: 1, columns: 4)
        canvas.put("한글", row: 0, column: 0)
        canvas.put("x", row: 0, column: 1)
        #expect(canvas.text(ofRow: 0) == " x글")
        canvas.put("y", row: 0, column: 2)
        #expect(canvas.text(ofRow: 0) == " xy")
    }

    @Test func emojiSequencesAreOneCharacterOfTwoColumns() {
        var canvas = Canvas(rows: 1, columns: 10)
        let end = canvas.put("👨‍👩‍👧🇰🇷", row: 0, column: 0)
        #expect(end == 4)
    }
}

@Suite struct RendererTests {
    func frame(_ lines: [String], columns: Int = 10) -> Canvas {
        var canvas = Canvas(rows: lines.count, columns: columns)
        for (i, line) in lines.enumerated() { canvas.put(line, row: i, column: 0) }
        canvas.cursor = (0, 0)
        return canvas
    }

    @Test func theFirstFrameClearsAndDrawsInsideOneSynchronizedUpdate() {
        var renderer = Renderer(color: true)
        let bytes = String(decoding: renderer.update(to: frame(["hello", "부산"])), as: UTF8.self)
        #expect(bytes.hasPrefix("\u{1B}[?2026h"))
        #expect(bytes.hasSuffix("\u{1B}[?2026l"))
        #expect(bytes.contains("\u{1B}[2J"))
        #expect(bytes.contains("hello") && bytes.contains("부산"))
    }

    @Test func anUnchangedFrameSendsNothingAndAChangeOnlyItsCells() {
        var renderer = Renderer(color: true)
        _ = renderer.update(to: frame(["hello", "world"]))
        #expect(renderer.update(to: frame(["hello", "world"])).isEmpty)
        let bytes = String(decoding: renderer.update(to: frame(["hello", "wOrld"])), as: UTF8.self)
        // One cursor move to row 2, column 2, and the one character.
        #expect(bytes.contains("\u{1B}[2;2HO"))
        #expect(!bytes.contains("hello") && !bytes.contains("rld"))
        #expect(!bytes.contains("\u{1B}[2J"))
    }

    @Test func withoutColorTheAttributesStayAndTheColorsGo() {
        var canvas = Canvas(rows: 1, columns: 10)
        canvas.put("a", row: 0, column: 0, style: CellStyle(bold: true, color: 1))
        var colored = Renderer(color: true)
        var plain = Renderer(color: false)
        let withColor = String(decoding: colored.update(to: canvas), as: UTF8.self)
        let without = String(decoding: plain.update(to: canvas), as: UTF8.self)
        #expect(withColor.contains("\u{1B}[0;1;31m"))
        #expect(without.contains("\u{1B}[0;1m"))
        #expect(!without.contains("31m"))
    }

    @Test func aResizeDrawsTheWholeFrameAgain() {
        var renderer = Renderer(color: true)
        _ = renderer.update(to: frame(["abc"], columns: 10))
        let bytes = String(decoding: renderer.update(to: frame(["abc"], columns: 6)), as: UTF8.self)
        #expect(bytes.contains("\u{1B}[2J") && bytes.contains("abc"))
    }
}

@Suite struct KeyDecoderTests {
    @Test func textArrowsAndControlKeys() {
        var decoder = KeyDecoder()
        #expect(decoder.feed(Array("안녕".utf8)) == [.text("안녕")])
        #expect(decoder.feed([0x1B, 0x5B, 0x41, 0x1B, 0x4F, 0x42]) == [.up, .down])
        #expect(decoder.feed([0x0D, 0x0A, 0x7F, 0x03, 0x10]) == [.enter, .newline, .backspace, .ctrl("c"), .ctrl("p")])
        #expect(decoder.feed(Array("\u{1B}[5~\u{1B}[6~\u{1B}[3~\u{1B}[Z".utf8)) == [.pageUp, .pageDown, .delete, .backTab])
    }

    @Test func aCharacterCutAcrossTwoReadsIsOneKey() {
        var decoder = KeyDecoder()
        let bytes = Array("한".utf8)
        #expect(decoder.feed(bytes[0..<1]) == [])
        #expect(decoder.feed(bytes[1...]) == [.text("한")])
    }

    @Test func aLoneEscapeWaitsThenIsTheEscKey() {
        var decoder = KeyDecoder()
        #expect(decoder.feed([0x1B]) == [])
        #expect(decoder.isWaiting)
        #expect(decoder.flush() == [.escape])
        #expect(!decoder.isWaiting)
        // Alt-Enter and Shift-Enter (kitty's CSI u) are a new line.
        #expect(decoder.feed([0x1B, 0x0D]) == [.newline])
        #expect(decoder.feed(Array("\u{1B}[13;2u".utf8)) == [.newline])
    }

    @Test func aPasteIsOneKeyWithItsLineBreaksAndEscapesKept() {
        var decoder = KeyDecoder()
        let paste = "\u{1B}[200~line one\r\nline \u{1B}[A two\n\u{1B}[201~"
        let bytes = Array(paste.utf8)
        // In three pieces, the end marker cut in the middle.
        var keys = decoder.feed(bytes[0..<10])
        keys += decoder.feed(bytes[10..<(bytes.count - 3)])
        #expect(keys.isEmpty)
        keys += decoder.feed(bytes[(bytes.count - 3)...])
        #expect(keys == [.paste("line one\nline \u{1B}[A two\n")])
    }
}

@Suite struct ComposeTests {
    @Test func linesWrapByColumnsAndTheCaretFollows() {
        var compose = Compose()
        compose.insert("가나다라")
        let (rows, row, column) = compose.layout(width: 5)
        #expect(rows == ["가나", "다라"])
        #expect(row == 1 && column == 4)
        compose.insert("\n")
        #expect(compose.layout(width: 5).caretRow == 2)
        #expect(compose.text == "가나다라\n")
    }

    @Test func editingKeys() {
        var compose = Compose("hello world")
        compose.deleteWord()
        #expect(compose.text == "hello ")
        compose.insert("there\nsecond")
        let wentUp = compose.up()
        let wentUpAgain = compose.up()
        #expect(wentUp && !wentUpAgain)
        compose.end()
        compose.insert("!")
        #expect(compose.text == "hello there!\nsecond")
        let wentDown = compose.down()
        #expect(wentDown)
        compose.end()
        compose.deleteToLineStart()
        #expect(compose.text == "hello there!\n")
    }

    @Test func wrapBreaksAtSpacesAndCutsWhatHasNone() {
        #expect(Wrap.lines("one two three", width: 8) == ["one two", "three"])
        #expect(Wrap.lines("abcdefghij", width: 4) == ["abcd", "efgh", "ij"])
        #expect(Wrap.lines("부산 여행 계획", width: 6) == ["부산", "여행", "계획"])
    }
}

@Suite struct TranscriptLayoutTests {
    @Test func aReplyOfMegabytesIsLaidOutFromItsLastPartWithALineSayingWhatIsAbove() {
        let line = "부산 여행 계획을 세워 볼게요 the stream keeps going 🌊\n"
        let text = String(repeating: line, count: 40_000)  // about 2.6 MB
        let lines = TranscriptLayout.body(text, width: 80, id: "m-1")
        let first = lines.first?.spans.map(\.text).joined() ?? ""
        #expect(first.contains("above (Ctrl-E opens the room in your editor)"))
        // Its end is there, whole lines only, and no more than the last 256 KiB.
        #expect(lines.last?.spans.map(\.text).joined() == "  부산 여행 계획을 세워 볼게요 the stream keeps going 🌊")
        #expect(lines.count - 1 <= TranscriptLayout.longestShown / line.utf8.count + 1)
        #expect(lines.dropFirst().allSatisfy { $0.spans.map(\.text).joined().hasPrefix("  부산") })
        // One line of megabytes: cut at a character's start.
        let one = TranscriptLayout.body(String(repeating: "강", count: 200_000), width: 80, id: "m-2")
        #expect(one.count > 1 && one.dropFirst().allSatisfy { !$0.spans.map(\.text).joined().contains("\u{FFFD}") })
    }
}

/// The main loop's mailbox: what background threads post, in order, with a reply streamed
/// faster than the screen is drawn handed over whole each pass.
@Suite struct MailboxTests {
    @Test func piecesOfAReplyArriveJoinedAndInOrderWithWhatCameBetween() throws {
        let mailbox = try #require(Mailbox())
        for n in 1...10_000 { mailbox.post(.replyText("줄 \(n)\n")) }
        mailbox.post(.replyDone(path: "rooms/a.md", error: nil, truncated: false))
        mailbox.post(.replyText("after"))
        let events = Array(mailbox.take(atMost: 256))
        #expect(events.count == 3)
        guard events.count == 3, case .replyText(let text) = events[0], case .replyDone(let path, _, _) = events[1],
            case .replyText(let after) = events[2]
        else {
            Issue.record("not one reply piece, the turn's end and one piece: \(events)")
            return
        }
        #expect(text == (1...10_000).map { "줄 \($0)\n" }.joined())
        #expect(path == "rooms/a.md")
        #expect(after == "after")
        #expect(!mailbox.hasMore)
    }
}

extension MailboxTests {
    /// The loop as `VaultApp.loop` runs it: it takes while the pipe is readable or a slice is
    /// left. Events posted while the pipe is full (its bytes not written) and a backlog is being
    /// handed out are still handed out: none waits in the queue with nothing to wake the loop.
    @Test func eventsPostedWhileThePipeIsFullAreNeverStranded() throws {
        let mailbox = try #require(Mailbox())
        for _ in 0..<300 { mailbox.post(.replyWait(.replying)) }
        var received = mailbox.take(atMost: 256).count
        #expect(mailbox.hasMore)
        // More than the pipe holds (64 KiB on Linux): the last posts write no byte.
        let more = 70_000
        for _ in 0..<more { mailbox.post(.replyWait(.finished)) }
        mailbox.post(.replyDone(path: "rooms/a.md", error: nil, truncated: false))
        var done = false
        while true {
            var fd = pollfd(fd: mailbox.readable, events: Int16(POLLIN), revents: 0)
            guard poll(&fd, 1, 0) > 0 || mailbox.hasMore else { break }
            for event in mailbox.take(atMost: 256) {
                received += 1
                if case .replyDone = event { done = true }
            }
        }
        #expect(received == 300 + more + 1)
        #expect(done)
    }
}
