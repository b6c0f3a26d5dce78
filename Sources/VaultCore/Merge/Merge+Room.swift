import Foundation

/// A room file taken apart for a merge: head (front-matter, preamble), messages, tail (the prompt
/// marker and the pending text). Every part is the file's bytes as they are.
struct RoomParts {
    /// One message: its bytes from its header line up to the next header, the prompt marker or the end.
    struct Block {
        /// The id, with `#2`, `#3`, … for a second, third message with the same id (a hand-made copy).
        var key: String
        var id: String
        var timestamp: Timestamp
        /// A user message starts a turn; the replies after it belong to it.
        var startsTurn: Bool
        var bytes: [UInt8]
        /// The bytes without trailing blank lines: what "changed" compares.
        var content: ArraySlice<UInt8>
    }

    var hasByteOrderMark: Bool
    var lineEnding: LineEnding
    var frontMatter: FrontMatterParts
    var preamble: [UInt8]
    var messages: [Block]
    /// The prompt marker line, with its line ending; nil when the file has none.
    var marker: [UInt8]?
    /// What follows the marker line.
    var pending: [UInt8]

    init(_ room: RoomFile) {
        let bytes = room.bytes
        let start = room.hasByteOrderMark ? 3 : 0
        hasByteOrderMark = room.hasByteOrderMark
        lineEnding = room.lineEnding
        frontMatter = FrontMatterParts(room.frontMatter, in: bytes, eol: room.lineEnding)
        let bodyStart = room.frontMatter?.range.upperBound ?? start
        var lineStarts = [0]
        for i in bytes.indices where bytes[i] == 10 { lineStarts.append(i + 1) }
        let headers = room.messages.map { lineStarts[$0.line - 1] }
        let end = room.promptMarkerOffset ?? bytes.count
        preamble = Array(bytes[bodyStart..<(headers.first ?? end)])
        var seen: [String: Int] = [:]
        messages = room.messages.enumerated().map { k, message in
            let range = headers[k]..<(k + 1 < headers.count ? headers[k + 1] : end)
            let copies = seen[message.id, default: 0]
            seen[message.id] = copies + 1
            let block = Array(bytes[range])
            return Block(
                key: copies == 0 ? message.id : "\(message.id)#\(copies + 1)", id: message.id,
                timestamp: message.timestamp, startsTurn: message.role == .user, bytes: block,
                content: RoomParts.withoutTrailingBlankLines(block))
        }
        if let m = room.promptMarkerOffset {
            var next = m
            while next < bytes.count, bytes[next] != 10 { next += 1 }
            next = min(next + 1, bytes.count)
            marker = Array(bytes[m..<next])
            pending = Array(bytes[next...])
        } else {
            marker = nil
            pending = []
        }
    }

    /// The bytes up to the end of the last line that is not blank (its line ending left out).
    static func withoutTrailingBlankLines(_ b: [UInt8]) -> ArraySlice<UInt8> {
        var last = b.count - 1
        while last >= 0, b[last] == 32 || b[last] == 9 || b[last] == 10 || b[last] == 13 { last -= 1 }
        guard last >= 0 else { return [] }
        var end = last + 1
        while end < b.count, b[end] != 10 { end += 1 }
        if end < b.count, end > last + 1, b[end - 1] == 13 { end -= 1 }
        return b[..<end]
    }
}

extension Merge {
    /// Rooms: three-way merge by message id. `base` nil = no common ancestor (a union).
    ///
    /// Messages are matched by id: each side's additions are kept, a deletion is kept unless the other
    /// side edited the message, an edit on one side is kept, and a message edited differently on both
    /// sides is kept twice: the older change with its id, the newer one after it with a new id derived
    /// from the old one and its bytes, marked `conflict=<old id>`. Messages are ordered by a stable
    /// merge of the two sides' sequences (by time where they interleave), so a room where only one side
    /// appended is that side's file. Front-matter merges key by key, the preamble line by line, the
    /// pending text below the prompt marker as a whole. Unchanged bytes are copied as they are.
    ///
    /// The result is the same when the sides are swapped and `newer` flipped.
    ///
    /// - Throws: `VaultError.malformed` when a version does not parse as a room.
    package static func room(base: [UInt8]?, ours: [UInt8], theirs: [UInt8], path: String, newer: Newer)
        throws(VaultError) -> FileMerge
    {
        try room(base: base, ours: ours, theirs: theirs, path: path, newer: newer, shortcuts: true)
    }

    /// `room(…)`; with `shortcuts` false, the full merge runs even when a side equals base (for tests).
    static func room(
        base: [UInt8]?, ours: [UInt8], theirs: [UInt8], path: String, newer: Newer, shortcuts: Bool
    ) throws(VaultError) -> FileMerge {
        let (base, ours, theirs) = inOneLineEnding(base: base, ours: ours, theirs: theirs, newer: newer)
        let o = try RoomFile(parsing: ours, path: path)
        let t = try RoomFile(parsing: theirs, path: path)
        var b: RoomFile?
        if let base { b = try RoomFile(parsing: base, path: path) }
        if shortcuts {
            if ours == theirs || theirs == base { return FileMerge(bytes: ours) }
            if ours == base {
                let known = Set(o.messages.map(\.id))
                let new = Set(t.messages.map(\.id)).subtracting(known).count
                let notes = new == 0 ? [] : [counted(new, "message", "messages") + " from the other side"]
                return FileMerge(bytes: theirs, notes: notes)
            }
        }
        var merge = RoomMerge(base: b.map(RoomParts.init), ours: RoomParts(o), theirs: RoomParts(t), newer: newer)
        let merged = merge.run()
        do {
            _ = try RoomFile(parsing: merged.bytes, path: path)
            return merged
        } catch {
            return FileMerge(
                bytes: ours,
                notes: merged.notes + [keptOurs("the merged room would not read back (\(error))")],
                conflictCopy: theirs)
        }
    }

    /// Whether two rooms added on both sides with no common ancestor are the same room (they share at
    /// least one message id, or the same `created` value and title) — when false, the caller renames
    /// one instead of merging.
    ///
    /// `created` and title decide only while one of the two has no messages yet: two conversations
    /// with no message in common are two rooms (two rooms made under one name in the same second
    /// have the same `created` and title). Files that do not parse are not the same room, unless they
    /// are byte for byte the same file.
    package static func isSameRoom(_ a: [UInt8], _ b: [UInt8], path: String) -> Bool {
        if a == b { return true }
        guard let x = try? RoomFile(parsing: a, path: path), let y = try? RoomFile(parsing: b, path: path) else {
            return false
        }
        let ids = Set(x.messages.map(\.id))
        if y.messages.contains(where: { ids.contains($0.id) }) { return true }
        // Two conversations with no message in common are two rooms, whatever their titles.
        if !x.messages.isEmpty && !y.messages.isEmpty { return false }
        guard let created = x.frontMatter?.string("created"), !created.isEmpty,
            y.frontMatter?.string("created") == created
        else { return false }
        return x.title == y.title
    }
}

/// One room merge, step by step.
struct RoomMerge {
    let base: RoomParts?
    let ours: RoomParts
    let theirs: RoomParts
    let newer: Merge.Newer
    let eol: LineEnding
    var notes: [String] = []

    init(base: RoomParts?, ours: RoomParts, theirs: RoomParts, newer: Merge.Newer) {
        self.base = base
        self.ours = ours
        self.theirs = theirs
        self.newer = newer
        eol = Merge.pick(base?.lineEnding, ours.lineEnding, theirs.lineEnding, newer: newer)!
    }

    mutating func run() -> FileMerge {
        let bom = Merge.pick(base?.hasByteOrderMark, ours.hasByteOrderMark, theirs.hasByteOrderMark, newer: newer)!
        let fm = Merge.frontMatter(
            base: base?.frontMatter ?? .absent(eol), ours: ours.frontMatter, theirs: theirs.frontMatter, newer: newer,
            eol: eol)
        notes += fm.notes
        let preamble = mergedPreamble()
        let blocks = mergedMessages()
        let tail = mergedTail()

        var out: [UInt8] = bom ? [0xEF, 0xBB, 0xBF] : []
        let head = fm.parts.block
        let afterHead = !preamble.isEmpty || !blocks.isEmpty || tail != nil
        out += afterHead ? head.terminated(eol) : head
        out += !blocks.isEmpty || tail != nil ? preamble.terminated(eol) : preamble
        for (k, block) in blocks.enumerated() {
            out += k + 1 < blocks.count || tail != nil ? framed(block) : block
        }
        if let tail { out += tail }
        return FileMerge(bytes: out, notes: notes)
    }

    /// A message's bytes ending in a line ending and a blank line, so the next header starts a new
    /// line after a blank one (the framing the reader removes, so the body stays the same).
    private func framed(_ block: [UInt8]) -> [UInt8] {
        var b = block.terminated(eol)
        let n = b.count
        let blank = (n >= 2 && b[n - 2] == 10) || (n >= 3 && b[n - 2] == 13 && b[n - 3] == 10)
        if !blank { b += eol.bytes }
        return b
    }

    /// The preamble, line by line; where both sides changed the same lines, both versions (the older
    /// change first).
    private mutating func mergedPreamble() -> [UInt8] {
        let merge = LineMerge(base: base?.preamble ?? [], ours: ours.preamble, theirs: theirs.preamble)
        guard merge.hasConflict else { return merge.merged { o, _ in Array(o) } }
        notes.append("the text before the first message was changed on both sides: both versions kept")
        let newer = self.newer
        let eol = self.eol
        return merge.merged { o, t in
            let (first, second) = Merge.ordered(Array(o), Array(t), newer: newer)
            return first.terminated(eol) + second
        }
    }

    /// The merged messages, in order.
    private mutating func mergedMessages() -> [[UInt8]] {
        var baseBlocks: [String: RoomParts.Block] = [:]
        for m in base?.messages ?? [] { baseBlocks[m.key] = m }
        var oursBlocks: [String: RoomParts.Block] = [:]
        for m in ours.messages { oursBlocks[m.key] = m }
        var theirsBlocks: [String: RoomParts.Block] = [:]
        for m in theirs.messages { theirsBlocks[m.key] = m }

        var taken = Set(ours.messages.map(\.id)).union(theirs.messages.map(\.id))
        for m in base?.messages ?? [] { taken.insert(m.id) }
        var chosen: [String: RoomParts.Block] = [:]
        var copies: [String: [UInt8]] = [:]
        var fromTheirs = 0
        var deletedThere = 0
        let keys = Set(oursBlocks.keys).union(theirsBlocks.keys).sorted()
        for key in keys {
            let b = baseBlocks[key]
            switch (oursBlocks[key], theirsBlocks[key]) {
            case (let o?, nil):
                if let b, b.content == o.content {
                    deletedThere += 1
                } else {
                    chosen[key] = o
                    if b != nil {
                        notes.append("\(o.id): deleted on the other side, edited on this one: kept the edit")
                    }
                }
            case (nil, let t?):
                if let b, b.content == t.content { break }
                chosen[key] = t
                if b == nil {
                    fromTheirs += 1
                } else {
                    notes.append("\(t.id): deleted on this side, edited on the other: kept the edit")
                }
            case (let o?, let t?):
                if o.content == t.content {
                    chosen[key] = Merge.pick(b?.bytes, o.bytes, t.bytes, newer: newer) == o.bytes ? o : t
                } else if let b, b.content == o.content {
                    chosen[key] = t
                } else if let b, b.content == t.content {
                    chosen[key] = o
                } else {
                    let (first, second) = Merge.ordered(o, t, newer: newer)
                    chosen[key] = first
                    let id = Merge.derivedID(from: second.id, content: second.content, taken: taken)
                    taken.insert(id)
                    copies[key] = Merge.renamed(second.bytes, to: id, conflictOf: second.id)
                    let side = newer == .ours ? "this side's" : "the other side's"
                    notes.append(
                        "\(o.id): edited on both sides: both versions kept, \(side) (the later change) as \(id)")
                }
            case (nil, nil):
                break
            }
        }
        if fromTheirs > 0 {
            notes.insert(Merge.counted(fromTheirs, "message", "messages") + " from the other side", at: 0)
        }
        if deletedThere > 0 {
            notes.append(Merge.counted(deletedThere, "message", "messages") + " deleted on the other side")
        }

        // Turns are ordered by time, not single messages: a question and the replies after it stay
        // together, so two machines' turns in the same minute never interleave question and answer.
        let oursKeys = ours.messages.map(\.key).filter { chosen[$0] != nil }
        let theirsKeys = theirs.messages.map(\.key).filter { chosen[$0] != nil }
        var turn: [String: TurnKey] = [:]
        for keys in [oursKeys, theirsKeys] {
            var current: TurnKey?
            for key in keys {
                let block = chosen[key]!
                let own = TurnKey(start: block.timestamp.secondsSince1970, id: key)
                if block.startsTurn || current == nil { current = own }
                let start = current!
                // A message both sides have may open a turn on one side only: the earlier turn wins, on every machine.
                turn[key] = turn[key].map { min($0, start) } ?? start
            }
        }
        let order = Merge.interleave(oursKeys, theirsKeys) { x, y in
            let (a, b) = (turn[x]!, turn[y]!)
            if a != b { return a < b }
            let (tx, ty) = (chosen[x]!.timestamp.secondsSince1970, chosen[y]!.timestamp.secondsSince1970)
            return tx != ty ? tx < ty : x < y
        }
        var out: [[UInt8]] = []
        out.reserveCapacity(order.count + copies.count)
        for key in order {
            out.append(chosen[key]!.bytes)
            if let copy = copies[key] { out.append(copy) }
        }
        return out
    }

    /// The prompt marker and the pending text; nil when neither side has a marker.
    private mutating func mergedTail() -> [UInt8]? {
        let marker: [UInt8]
        switch (ours.marker, theirs.marker) {
        case (nil, nil): return nil
        case (let o?, nil): marker = o
        case (nil, let t?): marker = t
        case (let o?, let t?): marker = Merge.pick(base?.marker, o, t, newer: newer)!
        }
        let b = base?.pending ?? []
        var pending: [UInt8]
        if ours.pending == theirs.pending || theirs.pending == b {
            pending = ours.pending
        } else if ours.pending == b {
            pending = theirs.pending
        } else {
            let (first, second) = Merge.ordered(ours.pending, theirs.pending, newer: newer)
            let isBlank = { (x: [UInt8]) in x.allSatisfy { $0 == 32 || $0 == 9 || $0 == 10 || $0 == 13 } }
            if isBlank(first) {
                pending = second
            } else if isBlank(second) {
                pending = first
            } else {
                var kept = first
                while let last = kept.last, last == 10 || last == 13 { kept.removeLast() }
                pending = kept + eol.bytes + eol.bytes + second
                notes.append("the text below the prompt marker was changed on both sides: both kept")
            }
        }
        return (pending.isEmpty ? marker : marker.terminated(eol)) + pending
    }
}

extension Merge {
    /// A stable merge of two sequences of distinct keys that may share keys: each sequence's own
    /// order is kept; where one side's new key meets the other's, `precedes` decides; a key both
    /// have comes once. Swapping the sequences gives the same result.
    static func interleave(_ a: [String], _ b: [String], precedes: (String, String) -> Bool) -> [String] {
        let inA = Set(a)
        let inB = Set(b)
        var done = Set<String>()
        var out: [String] = []
        out.reserveCapacity(max(a.count, b.count))
        var i = 0
        var j = 0
        while true {
            while i < a.count, done.contains(a[i]) { i += 1 }
            while j < b.count, done.contains(b[j]) { j += 1 }
            let next: String
            if i == a.count {
                guard j < b.count else { break }
                next = b[j]
            } else if j == b.count {
                next = a[i]
            } else if a[i] == b[j] {
                next = a[i]
            } else {
                let x = a[i]
                let y = b[j]
                let xShared = inB.contains(x)
                let yShared = inA.contains(y)
                if xShared != yShared {
                    // The side-only key comes before the shared one, as on its side.
                    next = xShared ? y : x
                } else {
                    next = precedes(x, y) ? x : y
                }
            }
            done.insert(next)
            out.append(next)
        }
        return out
    }

    /// An id for the second version of a message edited on both sides: the original id's characters
    /// (at most 36) and 4 base-32 characters of a hash of the version's bytes, not in `taken`.
    static func derivedID(from id: String, content: ArraySlice<UInt8>, taken: Set<String>) -> String {
        let stem = "m-" + String(id.dropFirst(2).prefix(36))
        var hash = fnv1a(content)
        while true {
            var suffix = ""
            var h = hash
            for _ in 0..<4 {
                suffix.unicodeScalars.append(Unicode.Scalar(Identifier.alphabet[Int(h & 31)]))
                h >>= 5
            }
            let candidate = stem + suffix
            if !taken.contains(candidate) { return candidate }
            hash = fnv1a(ArraySlice(withUnsafeBytes(of: hash.littleEndian, Array.init)) + content)
        }
    }

    /// FNV-1a, 64 bits: a stable hash (Swift's `Hasher` is seeded per process).
    static func fnv1a(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes {
            h ^= UInt64(byte)
            h = h &* 0x100_0000_01B3
        }
        return h
    }

    /// A message's bytes with the header's id replaced by `id` and a `conflict=<original>` attribute
    /// added (or its value replaced; nil: removed, the message settled); the rest of the header
    /// line and the body as they were.
    static func renamed(_ block: [UInt8], to id: String, conflictOf original: String?) -> [UInt8] {
        var lineEnd = 0
        while lineEnd < block.count, block[lineEnd] != 10 { lineEnd += 1 }
        var contentEnd = lineEnd
        while contentEnd > 0, block[contentEnd - 1] == 32 || block[contentEnd - 1] == 9 || block[contentEnd - 1] == 13 {
            contentEnd -= 1
        }
        let line = String(decoding: block[..<contentEnd], as: UTF8.self)
        guard line.hasSuffix(" -->"), let open = line.range(of: " <!-- ", options: .backwards) else { return block }
        let inner = line[open.upperBound..<line.index(line.endIndex, offsetBy: -4)]
        var words = inner.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        guard words.count >= 2 else { return block }
        words[1] = id
        words.removeAll { $0.hasPrefix("conflict=") }
        if let original { words.append("conflict=" + original) }
        let header = String(line[..<open.upperBound]) + words.joined(separator: " ") + " -->"
        return Array(header.utf8) + Array(block[contentEnd...])
    }
}

/// Where a message's turn starts: its question's time, then its id (ties).
struct TurnKey: Comparable {
    var start: Double
    var id: String

    static func < (a: TurnKey, b: TurnKey) -> Bool { a.start != b.start ? a.start < b.start : a.id < b.id }
}
