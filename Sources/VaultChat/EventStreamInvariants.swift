/// What the event-stream decoder must hold for any bytes, in any pieces: the property the
/// fuzzer checks (`Fuzz/`, `scripts/fuzz.sh`) and the test suite runs over a seed corpus.
package enum EventStreamInvariants {
    /// The events (and `retry:`) of `bytes` fed whole, byte by byte, and cut at `cuts` are the
    /// same, and no event's type or data holds a line break the stream used to end a line.
    /// Returns the properties broken (empty: all hold).
    package static func check(_ bytes: [UInt8], cuts: [Int]) -> [String] {
        func decode(_ pieces: [ArraySlice<UInt8>]) -> ([ServerSentEvent], Int?, Bool) {
            var decoder = EventStreamDecoder()
            var events: [ServerSentEvent] = []
            for piece in pieces { events += decoder.feed(piece) }
            let dropped = decoder.finish()
            return (events, decoder.retry, dropped)
        }
        let whole = decode([bytes[...]])
        var broken: [String] = []
        let single = decode(bytes.indices.map { bytes[$0...$0] })
        if single.0 != whole.0 || single.1 != whole.1 || single.2 != whole.2 {
            broken.append("byte by byte differs from whole")
        }
        var pieces: [ArraySlice<UInt8>] = []
        var start = 0
        for cut in cuts.map({ min(max($0, 0), bytes.count) }).sorted() where cut >= start {
            pieces.append(bytes[start..<cut])
            start = cut
        }
        pieces.append(bytes[start...])
        let cutUp = decode(pieces)
        if cutUp.0 != whole.0 || cutUp.1 != whole.1 || cutUp.2 != whole.2 {
            broken.append("cut at \(cuts) differs from whole")
        }
        for event in whole.0
        where event.type.unicodeScalars.contains(where: { $0 == "\n" || $0 == "\r" })
            || event.data.unicodeScalars.contains("\r")
        {
            broken.append("an event holds a line break: \(event)")
        }
        return broken
    }
}
