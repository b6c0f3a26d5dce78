#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension RoomFile {
    /// Rooms up to this size are read whole.
    public static let wholeReadLimit = 512 * 1024

    /// Reads a room's front-matter and its last messages, as many as `enough` asks for,
    /// without the middle of a long file; and the stamp of the version read.
    ///
    /// A chat turn needs the room's settings, the messages its context budget sends, and the
    /// end of the file to append to. On a room of 10,000 messages that is a few hundred
    /// kilobytes of megabytes, so memory and time do not grow with the room's history. Message
    /// boundaries are decided line by line (FORMAT.md), so the end of a file read on its own
    /// parses exactly as it does in the whole file. The window read at the end starts at
    /// 256 KiB and grows (×4) until `enough` is satisfied or it reaches the front-matter.
    /// Only what is read is checked: `vault check` reads every byte.
    ///
    /// The messages' line numbers are exact: the line feeds of the part left out are counted
    /// as it is read in pieces.
    ///
    /// - Parameter enough: whether a room read this way holds enough of the last messages.
    ///   - facts: what is known of a version of the file (its number of lines spares counting them).
    public static func readEnd(
        _ absolutePath: String, path: String, facts: FileFacts? = nil, enough: (RoomFile) -> Bool
    ) throws(VaultError) -> (room: RoomFile, stamp: FileIO.Stamp) {
        var attempt = 1
        while true {
            var (fd, st) = try FileIO.openRegularFile(absolutePath)
            defer { close(fd) }
            FileIO.sharedLock(fd)
            let stamp = FileIO.Stamp(st)
            let lines = facts.flatMap { $0.stamp == stamp ? $0.lines : nil }
            let room = try readEnd(fd, size: Int(st.st_size), path: path, totalLines: lines, enough: enough)
            // Pieces of one version: an editor's save in between means reading again.
            guard fstat(fd, &st) == 0 else {
                throw VaultError.io(path: path, operation: "read", reason: FileIO.errorText())
            }
            if FileIO.Stamp(st) == stamp, FileIO.stamp(of: absolutePath) == stamp { return (room, stamp) }
            if attempt == 3 { throw VaultError.changedOnDisk(path: path) }
            attempt += 1
        }
    }

    private static func readEnd(
        _ fd: Int32, size: Int, path: String, totalLines: Int?, enough: (RoomFile) -> Bool
    ) throws(VaultError) -> RoomFile {
        if size <= wholeReadLimit {
            return try RoomFile(parsing: try FileIO.pread(fd, offset: 0, count: size, path: path), path: path)
        }
        let head = try FileIO.pread(fd, offset: 0, count: min(size, headSize), path: path)
        guard let (frontMatter, start) = try RoomFile.headFrontMatter(head, size: size, path: path) else {
            // A front-matter longer than the head: read it all.
            return try RoomFile(parsing: try FileIO.pread(fd, offset: 0, count: size, path: path), path: path)
        }
        let bodyStart = frontMatter?.range.upperBound ?? start
        let headBytes = Array(head[..<bodyStart])
        var window = 256 * 1024
        while true {
            let from = max(bodyStart, size - window)
            let end = try FileIO.pread(fd, offset: from, count: size - from, path: path)
            if from == bodyStart {
                return try RoomFile(parsing: headBytes + end, path: path)
            }
            if let first = firstHeaderLine(end) {
                let cut = from + first
                var bytes = headBytes
                bytes += end[first...]
                let lines: Int
                if let totalLines {
                    lines = totalLines - RoomFile.lineFeeds(in: bytes)
                } else {
                    lines = try lineFeeds(fd, from: bodyStart, to: cut, path: path)
                }
                let elision = Elision(offset: bodyStart, count: cut - bodyStart, lines: lines)
                let room = try RoomFile(parsing: bytes, path: path, elision: elision)
                if enough(room) { return room }
            }
            window *= 4
        }
    }

    /// Bytes of the head read for the front-matter.
    static let headSize = 64 * 1024

    /// The front-matter in `head`, the first bytes of a file of `size` bytes, and where the
    /// content starts (after a byte-order mark); nil when the front-matter goes on past the head.
    static func headFrontMatter(_ head: [UInt8], size: Int, path: String) throws(VaultError)
        -> (frontMatter: FrontMatter?, start: Int)?
    {
        let start = head.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        let parsed: Result<FrontMatter?, FormatProblemList> = head.withUnsafeBufferPointer { b in
            do throws(FormatProblemList) {
                return .success(
                    try FrontMatter.parse(b, from: start, path: path)
                        ?? FrontMatter.parseWithoutOpening(b, from: start, path: path))
            } catch {
                return .failure(error)
            }
        }
        switch parsed {
        case .success(let frontMatter): return (frontMatter, start)
        case .failure(let problems):
            // A front-matter longer than the head: the caller reads it all. A broken one: say so.
            guard size > head.count, problems.problems.contains(where: { $0.kind == .unclosedFrontMatter }) else {
                throw VaultError.malformed(problems.problems)
            }
            return nil
        }
    }

    /// The offset in `bytes` (a window that may start mid-line) of the first line that is a
    /// message header.
    static func firstHeaderLine(_ bytes: [UInt8]) -> Int? {
        bytes.withUnsafeBufferPointer { b -> Int? in
            guard var i = b.firstNewline(from: 0).map({ $0 + 1 }) else { return nil }
            while i < b.count {
                let nl = b.firstNewline(from: i)
                if b[i] == UInt8(ascii: "#"),
                    case .header = MessageHeader.classify(b, i, b.contentEnd(lineStart: i, newline: nl))
                {
                    return i
                }
                guard let nl else { return nil }
                i = nl + 1
            }
            return nil
        }
    }

    /// The line feeds in `from..<to` of an open file, read in pieces.
    static func lineFeeds(_ fd: Int32, from: Int, to: Int, path: String) throws(VaultError) -> Int {
        var count = 0
        var at = from
        let piece = 256 * 1024
        while at < to {
            let bytes = try FileIO.pread(fd, offset: at, count: min(piece, to - at), path: path)
            if bytes.isEmpty { break }
            count += RoomFile.lineFeeds(in: bytes)
            at += bytes.count
        }
        return count
    }
}
