import CVaultScan
import Foundation
import Synchronization
import VaultCore

#if canImport(Glibc)
import Glibc
#endif

/// What the scan found in one file.
struct FileScan: Sendable {
    var hits = SearchHits()
    /// Title, tags and day, read in the worker (only for a file with hits).
    var metadata: ItemMetadata?
    /// The file's path (only for a file with hits).
    var path: String?
    /// Why the file could not be searched (not valid UTF-8, unreadable).
    var problem: String?
    /// The hits go on from parts of the same file given before (`Scanner.spillAfter`).
    var continued = false
}

/// Reads files and finds the lines that match, on every core.
///
/// Each file is read in pieces of at most `chunkSize` bytes (whole lines; a line longer than
/// that is read whole), so memory stays bounded by the longest line, not the file. A piece is
/// first surveyed for code points that can make it not NFC (`TextScan.survey`, when the pattern needs it);
/// then the bytes every hit must hold (`LineMatcher.needle`) are looked for (`Finder`) in the
/// piece as it is, case folded (ignoring case) or normalized (when not NFC), and only the lines
/// they fall in are compared exactly (`LineMatcher.matches`).
struct Scanner: Sendable {
    let files: FileList
    let matcher: LineMatcher
    let context: Int
    /// An item's first hit is all that is wanted: no other is built (`SearchQuery.firstHitOnly`
    /// with no filter that could drop that hit).
    var firstHitOnly = false
    /// When a file holds more hits than this, and every file before it has been delivered, its
    /// hits so far are delivered as a part (`FileScan.continued` on the next), so a file with
    /// millions of hits streams out as it is read instead of being held whole. Nil: never.
    var spillAfter: Int?
    /// The files are on a local file system (ext4, xfs, btrfs, tmpfs, f2fs, overlayfs, zfs),
    /// where `read` returns fewer bytes than asked only at the end of a regular file; elsewhere
    /// (NFS, FUSE) a file is read until `read` returns 0.
    var shortReadIsEnd = false
    static let chunkSize = 8 << 20

    /// Scans files `which` (positions in `files`; nil: all of them) on every core, and gives
    /// each file's scan to `finish` on the thread that scanned it, with that thread's own `Local`
    /// (made once per thread by `makeLocal`). What `finish` returns is handed to `deliver` in the
    /// order of `which`, as soon as every file before it is done (one call at a time, on one of
    /// the workers): a result is kept only until the files before it are scanned, so the
    /// memory a search holds is what is in flight, not everything it found.
    func scan<Local, Result>(
        _ which: [Int]?, makeLocal: @Sendable () -> Local,
        finish: @Sendable (inout Local, Int, inout FileScan) -> Result,
        deliver: @Sendable (Result) -> Void
    ) {
        let count = which?.count ?? files.count
        let results = UnsafeMutableBufferPointer<Result?>.allocate(capacity: count)
        results.initialize(repeating: nil)
        defer {
            results.deinitialize()
            results.deallocate()
        }
        let next = Atomic<Int>(0)
        // The first result not yet delivered, and whether a worker is delivering: results are
        // stored and taken under the lock, and delivered outside it by one worker at a time
        // (the other goes on scanning instead of waiting for the lock while output is written).
        let frontier = Mutex<(done: Int, delivering: Bool)>((0, false))
        let workers = max(1, min(ProcessInfo.processInfo.activeProcessorCount, count / 8 + 1))
        let shared = SendableBuffer(results)
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            var buffers = Buffers()
            var local = makeLocal()
            while true {
                // A few files at a time: less contention on the counter.
                let first = next.add(4, ordering: .relaxed).oldValue
                guard first < count else { break }
                for i in first..<min(first + 4, count) {
                    let k = which?[i] ?? i
                    // A part of file `i` goes out now only if it is next and no one is delivering.
                    let spill = { (part: FileScan) -> Bool in
                        var part = part
                        let next = frontier.withLock { state in
                            guard state.done == i, !state.delivering else { return false }
                            state.delivering = true
                            return true
                        }
                        guard next else { return false }
                        deliver(finish(&local, k, &part))
                        frontier.withLock { $0.delivering = false }
                        return true
                    }
                    var scanned = scanFile(k, &buffers, spill: spill)
                    let result = finish(&local, k, &scanned)
                    // Hits that `finish` emptied (printed) keep their room for the next file.
                    if scanned.hits.isEmpty { buffers.hits = scanned.hits }
                    var delivers = frontier.withLock { state in
                        shared.buffer[i] = result
                        if state.delivering { return false }
                        state.delivering = true
                        return true
                    }
                    var ready: [Result] = []
                    while delivers {
                        for r in ready { deliver(r) }
                        ready.removeAll(keepingCapacity: true)
                        delivers = frontier.withLock { state in
                            while state.done < count, let r = shared.buffer[state.done].take() {
                                ready.append(r)
                                state.done += 1
                            }
                            if ready.isEmpty { state.delivering = false }
                            return !ready.isEmpty
                        }
                    }
                }
            }
        }
    }

    /// Per-worker buffers, reused from file to file.
    struct Buffers {
        var bytes = [UInt8]()
        var folded = [UInt8]()
        /// The last file's hits, emptied, whose arrays the next file's fill (no allocation per file).
        var hits = SearchHits()
    }

    /// Scans file `k`; `spill` is offered its hits so far as a part whenever they pass
    /// `spillAfter`, and returns whether it took them.
    func scanFile(_ k: Int, _ buffers: inout Buffers, spill: (FileScan) -> Bool = { _ in false }) -> FileScan {
        let fd = files.open(k)
        guard fd >= 0 else { return FileScan(problem: String(cString: strerror(errno))) }
        defer { close(fd) }
        var state = FileState()
        swap(&state.hits, &buffers.hits)
        state.hits.removeAll()
        var carry = 0  // bytes of an unfinished line kept at the start of the buffer
        var offsetOfBuffer = 0
        // One buffer per worker, of a piece's size: no `fstat` per file.
        // Not zeroed: a page is touched only when a read fills it (most files are a few kB).
        if buffers.bytes.count < Scanner.chunkSize {
            buffers.bytes = [UInt8](unsafeUninitializedCapacity: Scanner.chunkSize) { _, count in
                count = Scanner.chunkSize
            }
        }
        while true {
            if buffers.bytes.count - carry < Scanner.chunkSize / 4 && carry >= Scanner.chunkSize / 2 {
                // A line longer than a piece: the buffer grows to hold it.
                buffers.bytes += [UInt8](repeating: 0, count: buffers.bytes.count)
            }
            let capacity = buffers.bytes.count - carry
            let got = buffers.bytes.withUnsafeMutableBytes { b -> Int in
                var total = 0
                while total < capacity {
                    let n = read(fd, b.baseAddress! + carry + total, capacity - total)
                    if n < 0 && errno == EINTR { continue }
                    if n <= 0 { return n < 0 && total == 0 ? -1 : total }
                    total += n
                    // On a local file system a regular file's read comes back short only at
                    // its end: no second `read` to be told so (one system call per file less).
                    if total < capacity && shortReadIsEnd { return total }
                }
                return total
            }
            if got < 0 { return FileScan(problem: String(cString: strerror(errno))) }
            let end = carry + got
            let atEnd = got < capacity
            // Whole lines only, unless this is the end of the file. The carried bytes hold no
            // line feed (they are what followed the last one): only the new bytes are looked at.
            let usable: Int = buffers.bytes.withUnsafeBufferPointer { b in
                if atEnd { return end }
                let back = vs_last_byte(b.baseAddress! + carry, 0x0A, got)
                return back < got ? carry + back + 1 : 0
            }
            if usable == 0 {
                // No line ends in the buffer: the line goes on, and the buffer grows to hold it
                // (doubling, so a line of any length is read in a time linear in its length).
                carry = end
                continue
            }
            let last = atEnd
            if let problem = scanPiece(
                k, &buffers, count: usable, offset: offsetOfBuffer, last: last, state: &state)
            {
                return FileScan(problem: problem)
            }
            if last { break }
            if let spillAfter, state.hits.count > spillAfter {
                let path = files.path(k)
                if state.metadata == nil {
                    state.metadata = ItemMetadata(
                        path: path, kind: FileList.kind(of: path), frontMatter: state.frontMatter)
                }
                let part = FileScan(hits: state.hits, metadata: state.metadata, path: path, continued: state.spilled)
                if spill(part) {
                    state.hits = SearchHits()
                    state.headerIndex = -1
                    state.spilled = true
                }
            }
            // The unfinished line moves to the front.
            let rest = end - usable
            buffers.bytes.withUnsafeMutableBytes { b in
                if rest > 0 { memmove(b.baseAddress!, b.baseAddress! + usable, rest) }
            }
            offsetOfBuffer += usable
            carry = rest
        }
        guard !state.hits.isEmpty else {
            swap(&state.hits, &buffers.hits)
            return FileScan()
        }
        let relative = files.path(k)
        let metadata =
            state.metadata
            ?? ItemMetadata(path: relative, kind: FileList.kind(of: relative), frontMatter: state.frontMatter)
        return FileScan(hits: state.hits, metadata: metadata, path: relative, continued: state.spilled)
    }

    /// What the scan of a file knows between its pieces.
    struct FileState {
        var hits = SearchHits()
        /// Line feeds before the current piece.
        var lineBase = 0
        /// The last line of the front-matter (1-based; 0: none, or not decided yet).
        var frontMatterEnd = 0
        /// The front-matter's bytes in the first piece (and its line feed).
        var frontMatterBytes = 0
        /// A copy of them, for a file of several pieces with no hit in the first.
        var frontMatter: [UInt8]?
        /// The item's metadata, read at the end of the first piece when it has a hit.
        var metadata: ItemMetadata?
        /// Hits were delivered as a part already.
        var spilled = false
        var firstPiece = true
        var header: SearchMessage?
        /// `header`'s place in `hits.messages`; -1: not there yet.
        var headerIndex = -1
        /// Where in the current piece headers have been looked for up to.
        var headerScanned = 0
    }

    /// Scans the whole lines `buffers.bytes[0..<count]` of file `index`; returns a problem that stops the file.
    func scanPiece(
        _ index: Int, _ buffers: inout Buffers, count n: Int, offset: Int, last: Bool, state: inout FileState
    ) -> String? {
        // Taken out of `buffers` (not copied: it is written below).
        var folded: [UInt8] = []
        swap(&folded, &buffers.folded)
        defer { swap(&folded, &buffers.folded) }
        return buffers.bytes.withUnsafeBufferPointer { whole -> String? in
            let p = whole.baseAddress!
            // Whether the piece may hold text that is not NFC, or that folds to ASCII: the whole
            // survey only when the pattern needs it (`LineMatcher.nfcRisk`).
            let survey: (unstable: Bool, foldsToASCII: Bool)
            switch matcher.nfcRisk {
            case .none: survey = (false, false)
            case .hangulJamo: survey = (TextScan.containsConjoiningJamo(p, n), false)
            case .any: survey = TextScan.survey(p, n)
            }
            if state.firstPiece {
                state.firstPiece = false
                findFrontMatter(p, n, &state)
            }
            state.headerScanned = 0
            // Lines that may match, by their start offsets in the piece.
            var candidates: [Int] = []
            let needle = matcher.needle
            if needle.isEmpty {
                var i = 0
                while i < n {
                    candidates.append(i)
                    i = TextScan.lineEnd(p, from: i, n) + 1
                }
            } else if !survey.unstable && matcher.mode == .bytes {
                matcher.finder.lines(in: p, n) { start in
                    candidates.append(start)
                    return true
                }
            } else if !survey.unstable && matcher.mode == .ascii && !survey.foldsToASCII, let ascii = matcher.asciiFinder {
                ascii.lines(in: p, n) { start in
                    candidates.append(start)
                    return true
                }
            } else {
                // Normalized or folded text has other offsets but the same line feeds: hits are
                // found there by line number, then located in the piece.
                var keyed: [UInt8]
                if !survey.unstable {
                    TextScan.fold(p, n, into: &folded)
                    keyed = folded
                } else {
                    let text = String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
                    keyed = Array(SearchText.key(text, folding: matcher.folding).utf8)
                }
                var lines: [Int] = []
                keyed.withUnsafeBufferPointer { k in
                    var counted = 0
                    var line = 0
                    matcher.finder.lines(in: k.baseAddress!, k.count) { start in
                        line += TextScan.lineFeeds(k.baseAddress!, from: counted, to: start)
                        counted = start
                        lines.append(line)
                        return true
                    }
                }
                var line = 0
                var start = 0
                for wanted in lines {
                    while line < wanted {
                        start = TextScan.lineEnd(p, from: start, n) + 1
                        line += 1
                    }
                    candidates.append(start)
                }
            }
            var counted = 0
            var lineNumber = state.lineBase + 1
            for start in candidates {
                lineNumber += TextScan.lineFeeds(p, from: counted, to: start)
                counted = start
                let end = TextScan.lineEnd(p, from: start, n)
                var e = end
                if e > start && p[e - 1] == 0x0D { e -= 1 }
                // A line that may match must be valid UTF-8, or the file is not searched: checked
                // before its bytes are kept (most candidates are hits), or alone after `-l`'s first hit.
                let bytes = UnsafeBufferPointer(start: p + start, count: e - start)
                func invalid() -> String {
                    let at = TextScan.firstInvalidUTF8(p + start, e - start) ?? 0
                    return "not valid UTF-8 (byte \(offset + start + at + 1)); `vault check` shows where"
                }
                if firstHitOnly && !state.hits.isEmpty {
                    if !TextScan.isValidUTF8(p + start, e - start) { return invalid() }
                    continue
                }
                guard TextScan.isValidUTF8(p + start, e - start) else { return invalid() }
                // The line itself decides whether it can be matched on its bytes.
                let line = TextScan.survey(p + start, e - start)
                let firstSpan = state.hits.spans.count
                matcher.appendMatches(
                    in: bytes, plain: !line.unstable && !line.foldsToASCII, nfc: !line.unstable, to: &state.hits.spans)
                guard state.hits.spans.count > firstSpan else { continue }
                let inFrontMatter = lineNumber <= state.frontMatterEnd
                // The headers up to and with this line (a hit in a header is in its own message).
                var message = -1
                if !inFrontMatter {
                    advanceHeaders(p, upTo: end, &state)
                    if let header = state.header {
                        if state.headerIndex < 0 {
                            state.headerIndex = state.hits.messages.count
                            state.hits.messages.append(header)
                        }
                        message = state.headerIndex
                    }
                }
                let textStart = state.hits.bytes.count
                state.hits.bytes.append(contentsOf: bytes)
                var record = SearchHits.Record(
                    line: lineNumber, column: state.hits.spans[firstSpan].lowerBound + 1,
                    text: textStart..<state.hits.bytes.count, matches: firstSpan..<state.hits.spans.count,
                    message: message, inFrontMatter: inFrontMatter, before: 0..<0, after: 0..<0)
                if context > 0 { addContext(&record, &state.hits, p, start, end, n) }
                state.hits.records.append(record)
            }
            // The front-matter is read where it is while the first piece is in the buffer: at
            // once if there are hits; else kept (a copy) only for a file of several pieces.
            if offset == 0 && state.frontMatterBytes > 0 && state.metadata == nil && state.frontMatter == nil {
                let front = UnsafeBufferPointer(start: p, count: state.frontMatterBytes)
                if !state.hits.isEmpty {
                    let path = files.path(index)
                    state.metadata = ItemMetadata(path: path, kind: FileList.kind(of: path), frontMatter: front)
                } else if !last {
                    state.frontMatter = Array(front)
                }
            }
            // Headers in the rest of the piece: a later piece's hits belong to them.
            if !last { advanceHeaders(p, upTo: n, &state) }
            if !last { state.lineBase += TextScan.lineFeeds(p, from: 0, to: n) }
            return nil
        }
    }

    /// Notes the front-matter: the file starts with a `---` line (after a byte-order mark) and
    /// it ends at the next `---` or `...` line.
    func findFrontMatter(_ p: UnsafePointer<UInt8>, _ n: Int, _ state: inout FileState) {
        var i = 0
        if n >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF { i = 3 }
        func isFence(_ s: Int, _ e: Int, _ dots: Bool) -> Bool {
            var e = e
            if e > s && p[e - 1] == 0x0D { e -= 1 }
            while e > s && (p[e - 1] == 0x20 || p[e - 1] == 0x09) { e -= 1 }
            guard e - s == 3 else { return false }
            let c: UInt8 = p[s]
            return (c == 0x2D || (dots && c == 0x2E)) && p[s + 1] == c && p[s + 2] == c
        }
        let firstEnd = TextScan.lineEnd(p, from: i, n)
        guard isFence(i, firstEnd, false) else { return }
        var line = 1
        var start = firstEnd + 1
        while start < n {
            let end = TextScan.lineEnd(p, from: start, n)
            line += 1
            if isFence(start, end, true) {
                state.frontMatterEnd = line
                state.frontMatterBytes = min(end + 1, n)
                return
            }
            start = end + 1
        }
    }

    /// The message that the text up to `limit` belongs to: the last header line (a line that
    /// starts `## ` and parses as one) that starts after where it last looked, found by going
    /// back line by line from `limit`. Only the bytes between a hit and its own message's header
    /// are read, not everything before it (a `## ` heading in a reply is no header: it goes on).
    func advanceHeaders(_ p: UnsafePointer<UInt8>, upTo limit: Int, _ state: inout FileState) {
        guard state.headerScanned < limit else { return }
        let floor = state.headerScanned
        state.headerScanned = limit
        // Line starts `s` with floor <= s and s + 3 <= limit, latest first: after a line feed at
        // floor - 1 or later, and the piece's start.
        let lowest = max(floor - 1, 0)
        var j = limit
        while true {
            let s: Int
            if j > lowest, case let back = vs_last_byte(p + lowest, 0x0A, j - lowest), back < j - lowest {
                let at = lowest + back
                s = at + 1
                j = at
            } else if floor == 0 && j > 0 {
                s = 0
                j = 0
            } else {
                return
            }
            guard s + 3 <= limit, p[s] == 0x23, p[s + 1] == 0x23, p[s + 2] == 0x20 else { continue }
            var e = TextScan.lineEnd(p, from: s, limit)
            if e > s && p[e - 1] == 0x0D { e -= 1 }
            let line = UnsafeBufferPointer(start: p + s, count: e - s)
            if let (role, timestamp, id) = MessageHeader.essentials(line: line) {
                // The author and the kind are read only from a header that has one (shared rooms,
                // imported conversations).
                let parsed = Scanner.holdsAuthorOrKind(line) ? MessageHeader.parse(line: line) : nil
                state.header = SearchMessage(
                    role: role, timestamp: timestamp, id: id, author: parsed?.author, kind: parsed?.attribute("kind"))
                state.headerIndex = -1
                return
            }
        }
    }

    /// Whether a header line holds ` author=` or ` kind=`: each `=` (found by `memchr`; a
    /// header has two or three) is looked behind.
    static func holdsAuthorOrKind(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = line.baseAddress else { return false }
        var i = 0
        while i < line.count, let hit = memchr(base + i, 0x3D, line.count - i) {
            let at = UnsafeRawPointer(hit) - UnsafeRawPointer(base)
            func after(_ key: StaticString) -> Bool {
                let k = key.utf8CodeUnitCount
                guard at >= k else { return false }
                return memcmp(base + at - k, key.utf8Start, k) == 0
            }
            if after(" author") || after(" kind") { return true }
            i = at + 1
        }
        return false
    }

    /// The `context` lines before and after the hit's line, within the piece, into `hits`.
    func addContext(
        _ record: inout SearchHits.Record, _ hits: inout SearchHits, _ p: UnsafePointer<UInt8>, _ start: Int,
        _ end: Int, _ n: Int
    ) {
        func keep(_ s: Int, _ e: Int) -> Range<Int> {
            var e = e
            if e > s && p[e - 1] == 0x0D { e -= 1 }
            let at = hits.bytes.count
            hits.bytes.append(contentsOf: UnsafeBufferPointer(start: p + s, count: e - s))
            return at..<hits.bytes.count
        }
        var s = start
        var before: [Range<Int>] = []
        while before.count < context && s > 0 {
            let prevEnd = s - 1
            let prevStart = TextScan.lineStart(p, before: prevEnd)
            before.insert(keep(prevStart, prevEnd), at: 0)
            s = prevStart
        }
        var after: [Range<Int>] = []
        var e = end
        while after.count < context && e + 1 < n {
            let nextEnd = TextScan.lineEnd(p, from: e + 1, n)
            after.append(keep(e + 1, nextEnd))
            e = nextEnd
        }
        let first = hits.spans.count
        hits.spans += before
        record.before = first..<hits.spans.count
        hits.spans += after
        record.after = (first + before.count)..<hits.spans.count
    }
}

/// A buffer written by several workers, each to its own elements.
struct SendableBuffer<T>: @unchecked Sendable {
    let buffer: UnsafeMutableBufferPointer<T>
    init(_ buffer: UnsafeMutableBufferPointer<T>) { self.buffer = buffer }
}
