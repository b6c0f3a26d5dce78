extension Merge {
    /// What a person changed in `edited` (a file as they left it while git's merge was
    /// unfinished), put onto `merged` (vault's merge of the same two commits): only what none of
    /// the `known` versions holds (git's stages, the two sides, their ancestor) is the person's.
    ///
    /// A room is compared message by message: a message whose id none of them has was typed, a
    /// message whose text none of them has was edited, and the front-matter, the text before the
    /// first message and the text below the prompt marker count when the person's differ from
    /// every known one. Everything else `edited` holds is only what git left in the file, and
    /// `merged` decides it: a message one side deleted stays deleted, a message only `merged`
    /// has stays. Any other file is merged by lines over the known version closest to `edited`.
    ///
    ///     // edited: the side git left in the work tree, with a message typed below it
    ///     let kept = try Merge.handEdits(edited, onto: merged, known: [base, ours, theirs], path: room)
    ///     // kept.bytes: merged, with the typed message in its place
    ///
    /// With `onlyMessages`, a room's messages alone count (what a merge dropped, given back).
    package static func handEdits(
        _ edited: [UInt8], onto merged: [UInt8], known: [[UInt8]], path: String, onlyMessages: Bool = false
    ) throws(VaultError) -> FileMerge {
        switch VaultPath.kind(of: path) {
        case .room, .volume:
            return try roomHandEdits(edited, onto: merged, known: known, path: path, onlyMessages: onlyMessages)
        case .diaryEntry, .config, .other:
            let base = closest(to: edited, among: known + [merged])
            return try file(path: path, base: base, ours: merged, theirs: edited, newer: .theirs)
        }
    }

    private static func roomHandEdits(
        _ edited: [UInt8], onto merged: [UInt8], known: [[UInt8]], path: String, onlyMessages: Bool
    ) throws(VaultError) -> FileMerge {
        let (_, m, w) = inOneLineEnding(base: nil, ours: merged, theirs: edited, newer: .theirs)
        let mergedParts = RoomParts(try RoomFile(parsing: m, path: path))
        let editedParts = RoomParts(try RoomFile(parsing: w, path: path))
        let knownParts = known.compactMap { bytes in
            (try? RoomFile(parsing: LineEnding.of(bytes) == editedParts.lineEnding ? bytes
                : editedParts.lineEnding.converting(bytes), path: path)).map(RoomParts.init)
        } + [mergedParts]
        // Every known version of each message, and of the parts around the messages.
        var versions: [String: Set<ArraySlice<UInt8>>] = [:]
        var someVersion: [String: RoomParts.Block] = [:]
        for parts in knownParts {
            for block in parts.messages {
                versions[block.key, default: []].insert(block.content)
                if someVersion[block.key] == nil { someVersion[block.key] = block }
            }
        }
        for block in mergedParts.messages { someVersion[block.key] = block }
        func isKnown<T: Equatable>(_ part: (RoomParts) -> T) -> Bool {
            knownParts.contains { part($0) == part(editedParts) }
        }
        // The version the person started from: theirs with only what is known, so that the room
        // merge finds their own changes and nothing git left.
        var start = editedParts
        start.messages = editedParts.messages.compactMap { block in
            if versions[block.key]?.contains(block.content) == true { return block }
            return someVersion[block.key]  // edited: a known version; typed: not in the start
        }
        if onlyMessages {
            // The parts around the messages are the merge's: nobody's change there counts.
            start.frontMatter = mergedParts.frontMatter
            start.preamble = mergedParts.preamble
            start.marker = mergedParts.marker
            start.pending = mergedParts.pending
        } else {
            if !isKnown({ $0.frontMatter.block }) { start.frontMatter = mergedParts.frontMatter }
            if !isKnown({ $0.preamble }) { start.preamble = mergedParts.preamble }
            if !isKnown({ $0.marker }) || !isKnown({ $0.pending }) {
                start.marker = mergedParts.marker
                start.pending = mergedParts.pending
            }
        }
        var edited = editedParts
        if onlyMessages {
            edited = start
            edited.messages = editedParts.messages
        }
        var merge = RoomMerge(base: start, ours: mergedParts, theirs: edited, newer: .theirs)
        let result = merge.run()
        _ = try RoomFile(parsing: result.bytes, path: path)
        return result
    }

    /// The version among `candidates` that shares the most lines with `bytes`, counting against
    /// it the lines `bytes` does not have.
    private static func closest(to bytes: [UInt8], among candidates: [[UInt8]]) -> [UInt8]? {
        func lines(_ b: [UInt8]) -> [ArraySlice<UInt8>: Int] {
            var out: [ArraySlice<UInt8>: Int] = [:]
            for line in b.split(separator: 10, omittingEmptySubsequences: false) { out[line, default: 0] += 1 }
            return out
        }
        let target = lines(bytes)
        var best: (score: Int, bytes: [UInt8])?
        for candidate in candidates {
            var score = 0
            for (line, n) in lines(candidate) {
                let there = target[line, default: 0]
                score += min(n, there) - max(0, n - there)
            }
            if best == nil || score > best!.score { best = (score, candidate) }
        }
        return best?.bytes
    }
}

extension Merge {
    /// The messages of a room or volume as the merge compares them: each id (the first of a
    /// hand-made copy) with its bytes, trailing blank lines left out.
    ///
    ///     Merge.messageContents(of: bytes, path: "volumes/busan/0001.md").map(\.id)  // ["m-…", …]
    package static func messageContents(of bytes: [UInt8], path: String) throws(VaultError)
        -> [(id: String, content: ArraySlice<UInt8>)]
    {
        RoomParts(try RoomFile(parsing: bytes, path: path)).messages.filter { $0.key == $0.id }.map { ($0.id, $0.content) }
    }

    /// `bytes` (a room or a volume) without the messages whose ids are `ids`, every other byte
    /// as it was.
    package static func removingMessages(_ ids: Set<String>, from bytes: [UInt8], path: String) throws(VaultError)
        -> [UInt8]
    {
        let parts = RoomParts(try RoomFile(parsing: bytes, path: path))
        var without = parts
        without.messages.removeAll { ids.contains($0.id) }
        var merge = RoomMerge(base: parts, ours: parts, theirs: without, newer: .theirs)
        return merge.run().bytes
    }
}
