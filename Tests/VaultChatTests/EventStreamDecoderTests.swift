import Testing
import VaultTestSupport

@testable import VaultChat

/// The event-stream decoder against the WHATWG parsing rules, fed in pieces of every size.
@Suite struct EventStreamDecoderTests {
    /// Feeds `bytes` split at random places; returns the events.
    func decode(_ bytes: [UInt8], _ rng: inout SeededRandom) -> [ServerSentEvent] {
        var decoder = EventStreamDecoder()
        var events: [ServerSentEvent] = []
        var i = 0
        while i < bytes.count {
            let n = Int.random(in: 1...max(1, min(9, bytes.count - i)), using: &rng)
            events += decoder.feed(bytes[i..<(i + n)])
            i += n
        }
        decoder.finish()
        return events
    }

    @Test func lineEndingsCommentsAndMultiLineData() {
        let stream =
            "\u{FEFF}: a comment\r\ndata: one\r\n\r\ndata: two\rdata:  three\r\revent: ping\ndata\n\n"
                + "id: 7\ndata: {\"a\":1}\n\n: keep-alive\n\ndata: dropped at the end"
        var rng = SeededRandom(seed: 5)
        for _ in 0..<200 {
            let events = decode(Array(stream.utf8), &rng)
            #expect(events.map(\.data) == ["one", "two\n three", "", "{\"a\":1}"])
            #expect(events.map(\.type) == ["message", "message", "ping", "message"])
            #expect(events.last?.lastEventID == "7")
        }
    }

    @Test func aCharacterSplitBetweenReadsIsNeverCorrupted() {
        let text = "data: 부산 여행 🤖 é\n\n"
        let bytes = Array(text.utf8)
        for cut in 1..<bytes.count {
            var decoder = EventStreamDecoder()
            let events = decoder.feed(bytes[..<cut]) + decoder.feed(bytes[cut...])
            #expect(events.map(\.data) == ["부산 여행 🤖 é"], "cut at \(cut)")
        }
    }

    @Test func aCarriageReturnAtTheEndOfAPieceAndItsLineFeedInTheNext() {
        var decoder = EventStreamDecoder()
        var events = decoder.feed(Array("data: a\r".utf8))
        events += decoder.feed(Array("\ndata: b\r".utf8))
        events += decoder.feed(Array("\n\r\n".utf8))
        #expect(events.map(\.data) == ["a\nb"])
    }

    @Test func anUnfinishedEventIsReportedAtTheEnd() {
        var decoder = EventStreamDecoder()
        _ = decoder.feed(Array("data: part".utf8))
        let dropped = decoder.finish()
        #expect(dropped)
        var clean = EventStreamDecoder()
        _ = clean.feed(Array("data: all\n\n".utf8))
        let cleanDropped = clean.finish()
        #expect(!cleanDropped)
    }

    @Test func retryIsReadOnlyWhenItIsDigits() {
        var decoder = EventStreamDecoder()
        _ = decoder.feed(Array("retry: 1500\nretry: soon\n\n".utf8))
        #expect(decoder.retry == 1500)
    }
}
