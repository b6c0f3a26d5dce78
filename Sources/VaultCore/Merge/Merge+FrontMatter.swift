/// A front-matter block (or `vault.yml`'s mapping) taken apart for a key-by-key merge: its
/// delimiter lines, and its lines as tokens, each key with the lines below it as one token.
struct FrontMatterParts {
    /// A key with its lines, or any other line (a comment, a blank line) on its own.
    enum Token: Hashable {
        case key(String)
        case line([UInt8])
    }

    var present: Bool
    /// The opening `---` line and the closing line, line endings included.
    var opening: [UInt8]
    var closing: [UInt8]
    var tokens: [Token]
    /// The lines of each key, line endings included.
    var entries: [String: [UInt8]]
    /// The values, as written.
    var values: [String: FrontMatterValue]

    /// No front-matter.
    static func absent(_ eol: LineEnding) -> FrontMatterParts {
        let fence = Array("---".utf8) + eol.bytes
        return FrontMatterParts(present: false, opening: fence, closing: fence, tokens: [], entries: [:], values: [:])
    }

    /// The parts of `frontMatter`, read from `bytes`.
    init(_ frontMatter: FrontMatter?, in bytes: [UInt8], eol: LineEnding) {
        guard let fm = frontMatter else {
            self = .absent(eol)
            return
        }
        let block = fm.range
        var openingEnd = block.lowerBound
        while openingEnd < block.upperBound, bytes[openingEnd] != 10 { openingEnd += 1 }
        openingEnd = min(openingEnd + 1, block.upperBound)
        var starts: [Int: FrontMatter.Entry] = [:]
        for entry in fm.entries { starts[entry.range.lowerBound] = entry }
        var tokens: [Token] = []
        var entries: [String: [UInt8]] = [:]
        var i = openingEnd
        while i < fm.closingLineStart {
            if let entry = starts[i], entry.range.upperBound <= fm.closingLineStart {
                tokens.append(.key(entry.key))
                entries[entry.key] = Array(bytes[entry.range])
                i = entry.range.upperBound
            } else {
                var end = i
                while end < fm.closingLineStart, bytes[end] != 10 { end += 1 }
                end = min(end + 1, fm.closingLineStart)
                tokens.append(.line(Array(bytes[i..<end])))
                i = end
            }
        }
        self.init(
            present: true, opening: Array(bytes[block.lowerBound..<openingEnd]),
            closing: Array(bytes[fm.closingLineStart..<block.upperBound]), tokens: tokens, entries: entries,
            values: fm.values)
    }

    init(
        present: Bool, opening: [UInt8], closing: [UInt8], tokens: [Token], entries: [String: [UInt8]],
        values: [String: FrontMatterValue]
    ) {
        self.present = present
        self.opening = opening
        self.closing = closing
        self.tokens = tokens
        self.entries = entries
        self.values = values
    }

    /// The lines between the delimiters.
    var inner: [UInt8] {
        var out: [UInt8] = []
        for token in tokens {
            switch token {
            case .key(let key): out += entries[key] ?? []
            case .line(let bytes): out += bytes
            }
        }
        return out
    }

    /// The whole block, or nothing when there is none.
    var block: [UInt8] { present ? opening + inner + closing : [] }
}

extension Merge {
    /// Keys whose later value (an RFC 3339 time) wins when both sides changed them, rather than the newer side's.
    static let diaryLaterTimeKeys: Set<String> = ["updated"]

    /// Front-matter merged key by key.
    ///
    /// A key changed (added, removed) on one side only takes that side's lines; changed on both to
    /// the same value, the newer side's lines; to different values, the newer side's (the later
    /// time for `laterTime` keys), with a note naming the value that lost. Lists are merged as sets:
    /// the items of both, less those one side removed. The order of keys and the lines that are not
    /// keys (comments, blank lines) are merged as a sequence (diff3 on tokens), so ours' order and
    /// comments stay, and where both sides inserted at the same place the older change's tokens come
    /// first: the result does not depend on which side is ours.
    static func frontMatter(
        base: FrontMatterParts, ours: FrontMatterParts, theirs: FrontMatterParts, newer: Newer, eol: LineEnding,
        laterTime: Set<String> = []
    ) -> (parts: FrontMatterParts, notes: [String]) {
        let (b, o, t) = Diff3.intern(base.tokens, ours.tokens, theirs.tokens)
        var order: [FrontMatterParts.Token] = []
        for r in Diff3.regions(base: b, ours: o, theirs: t) {
            switch r.kind {
            case .unchanged: order += base.tokens[r.base]
            case .ours, .same: order += ours.tokens[r.ours]
            case .theirs: order += theirs.tokens[r.theirs]
            case .conflict:
                let (first, second) = ordered(ours.tokens[r.ours], theirs.tokens[r.theirs], newer: newer)
                order += first
                order += second.filter { !first.contains($0) }
            }
        }

        var notes: [String] = []
        var resolved: [String: (bytes: [UInt8], from: FrontMatterParts)] = [:]
        let keys = Set(base.entries.keys).union(ours.entries.keys).union(theirs.entries.keys).sorted()
        for key in keys {
            let outcome = resolve(
                key, base: base, ours: ours, theirs: theirs, newer: newer, eol: eol, laterTime: laterTime.contains(key))
            if let note = outcome.note { notes.append(note) }
            if let bytes = outcome.bytes { resolved[key] = (bytes, outcome.from) }
        }

        var tokens: [FrontMatterParts.Token] = []
        var emitted = Set<String>()
        for token in order {
            if case .key(let key) = token {
                guard resolved[key] != nil, !emitted.contains(key) else { continue }
                emitted.insert(key)
            }
            tokens.append(token)
        }
        // A key one side removed and the other changed, kept: after the key before it on its side.
        for key in keys where resolved[key] != nil && !emitted.contains(key) {
            let source = resolved[key]!.from.tokens
            var at = 0
            if let own = source.firstIndex(of: .key(key)) {
                for previous in source[..<own].reversed() {
                    if case .key = previous, let found = tokens.firstIndex(of: previous) {
                        at = found + 1
                        break
                    }
                }
            }
            tokens.insert(.key(key), at: at)
            emitted.insert(key)
        }

        var entries: [String: [UInt8]] = [:]
        var values: [String: FrontMatterValue] = [:]
        for (key, r) in resolved {
            entries[key] = r.bytes
            values[key] = r.from.values[key]
        }
        let present = pick(base.present, ours.present, theirs.present, newer: newer) || !tokens.isEmpty
        let parts = FrontMatterParts(
            present: present, opening: pick(base.opening, ours.opening, theirs.opening, newer: newer),
            closing: pick(base.closing, ours.closing, theirs.closing, newer: newer), tokens: tokens, entries: entries,
            values: values)
        return (parts, notes)
    }

    /// One key's merged lines (nil: the key is removed), the parts they come from, and a note.
    private static func resolve(
        _ key: String, base: FrontMatterParts, ours: FrontMatterParts, theirs: FrontMatterParts, newer: Newer,
        eol: LineEnding, laterTime: Bool
    ) -> (bytes: [UInt8]?, from: FrontMatterParts, note: String?) {
        let b = base.entries[key]
        let o = ours.entries[key]
        let t = theirs.entries[key]
        if o == b { return (t, theirs, nil) }
        if t == b || o == t { return (o, ours, nil) }
        let ov = o == nil ? nil : ours.values[key]
        let tv = t == nil ? nil : theirs.values[key]
        let (winner, loser) = newer == .ours ? ((o, ours, ov), (t, theirs, tv)) : ((t, theirs, tv), (o, ours, ov))
        if ov == tv { return (winner.0, winner.1, nil) }
        if o != nil, t != nil, let merged = unionOfLists(base.values[key], ov, tv, newer: newer) {
            if ov == .list(merged) { return (o, ours, nil) }
            if tv == .list(merged) { return (t, theirs, nil) }
            let lines = FrontMatterEditor.render(key: key, value: .list(merged))
            let bytes = Array(lines.map { $0 + eol.rawValue }.joined().utf8)
            let note = "\(key): both sides changed it; kept the items of both: \(shown(.list(merged)))"
            var from = winner.1
            from.values[key] = .list(merged)
            return (bytes, from, note)
        }
        if laterTime, case .string(let os)? = ov, case .string(let ts)? = tv,
            let ot = Timestamp(frontMatter: os), let tt = Timestamp(frontMatter: ts),
            ot.secondsSince1970 != tt.secondsSince1970
        {
            return ot > tt ? (o, ours, nil) : (t, theirs, nil)
        }
        let note =
            "\(key): both sides changed it; kept \(shown(winner.2)) (the later change), dropped \(shown(loser.2))"
        return (winner.0, winner.1, note)
    }

    /// Two changed lists merged as sets: the older side's items, then the newer side's new ones,
    /// without the items of base that either side removed. nil when the values are not lists.
    static func unionOfLists(
        _ base: FrontMatterValue?, _ ours: FrontMatterValue?, _ theirs: FrontMatterValue?, newer: Newer
    ) -> [String]? {
        func items(_ v: FrontMatterValue?) -> [String]? {
            switch v {
            case .list(let items)?: return items
            case .string(let s)?: return s.isEmpty ? [] : [s]
            default: return nil
            }
        }
        func isList(_ v: FrontMatterValue?) -> Bool {
            if case .list? = v { return true }
            return false
        }
        // A list on one side and a single value on the other still merge as lists.
        guard isList(ours) || isList(theirs), let o = items(ours), let t = items(theirs) else { return nil }
        return union(items(base) ?? [], o, t, newer: newer)
    }

    private static func union(_ base: [String], _ ours: [String], _ theirs: [String], newer: Newer) -> [String] {
        let removed = Set(base.filter { !ours.contains($0) || !theirs.contains($0) })
        let (first, second) = ordered(ours, theirs, newer: newer)
        var merged: [String] = []
        var seen = Set<String>()
        for item in first + second where !removed.contains(item) && seen.insert(item).inserted {
            merged.append(item)
        }
        return merged
    }
}
