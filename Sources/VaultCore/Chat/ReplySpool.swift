#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A reply as it arrives, written to a file instead of being held in memory, already in the
/// form it takes in the room.
///
/// A model's reply can be megabytes long, or never end. Each piece goes to an unnamed file in
/// `.vault/` as it arrives, its lines escaped as FORMAT.md says ("Escaping"), so a turn holds
/// no more of the reply than a buffer and the line being written (a line is kept whole in
/// memory only while it may be a header look-alike: it starts with `#`, `<`, `|`, `=` or `>`). When the reply
/// is over, the room's new end is written from this file (`RoomFile.appendingAtEnd(_:body:display:)`
/// and `TailWrite`); the file has no name, and is gone when the spool is.
///
/// Blank lines before and after the text are not part of the reply (as `ChatTurn.tidy` does
/// for a message): `body` leaves them out.
///
///     let spool = try ReplySpool(folder: vault.root + "/.vault")
///     let ending = try provider.reply(to: request) { spool.append($0); print($0) }
///     spool.finish()
///     if let body = spool.body { … room.appendingAtEnd(draft, body: body, display: …) … }
package final class ReplySpool {
    /// The open, unnamed file.
    let descriptor: Int32
    /// Bytes not yet written to the file.
    private var buffer: [UInt8] = []
    /// Bytes in the file and in `buffer` (not those `held`): the offset of the next byte.
    private var offset = 0
    /// The current line, while it may be structural (it starts with `#`, `<`, `|`, `=` or `>` after any `\`).
    private var held: [UInt8] = []
    private var line = Line()
    /// The first and the last line with something other than white space.
    private var firstText: (offset: Int, index: Int)?
    private var lastText: (end: Int, index: Int)?
    /// The bytes of text received (before escaping).
    package private(set) var receivedBytes = 0
    /// Why the reply could not be written to the file, when it could not (the disk is full).
    package private(set) var problem: String?

    /// What is known of the line being received.
    private struct Line {
        /// Its offset in the file.
        var start = 0
        /// Its number (0 for the first line).
        var index = 0
        /// No byte of it yet.
        var isEmpty = true
        /// Only white space so far.
        var isBlank = true
        /// Being held in `held` (undecided, or possibly structural).
        var isHeld = true
        /// Its first byte other than a backslash has come.
        var isDecided = false
    }

    /// Opens an unnamed file in `folder` (made if missing).
    package init(folder: String) throws(VaultError) {
        try FileIO.makeDirectory(folder)
        var made: Int32 = -1
        var name = ""
        for attempt in 0..<100 {
            name = folder + "/.reply-\(getpid())-\(attempt).vault-tmp"
            made = open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if made >= 0 || errno != EEXIST { break }
        }
        guard made >= 0 else {
            throw VaultError.io(path: folder, operation: "make a file for the reply in", reason: FileIO.errorText())
        }
        unlink(name)  // the file lives as long as it is open, and no crash can leave it behind
        descriptor = made
        buffer.reserveCapacity(ReplySpool.bufferSize)
    }

    deinit { close(descriptor) }

    static let bufferSize = 64 * 1024

    /// The reply's text as stored: where it is in the file (blank lines around it left out),
    /// and the line feeds inside that range; nil when the reply has no text or could not be
    /// written.
    package var body: FileText? {
        guard problem == nil, let first = firstText, let last = lastText, last.end > first.offset else { return nil }
        return FileText(descriptor: descriptor, range: first.offset..<last.end, lineFeeds: last.index - first.index)
    }

    /// Takes the next piece of the reply.
    package func append(_ piece: String) {
        guard problem == nil else { return }
        var text = piece
        text.withUTF8 { take($0) }
        receivedBytes += piece.utf8.count
        if buffer.count >= ReplySpool.bufferSize { flush() }
    }

    /// The end of the reply: its last line (without a line feed) is written, and the file flushed
    /// to the operating system.
    package func finish() {
        guard problem == nil else { return }
        if !line.isEmpty { endLine(atLineFeed: false) }
        flush()
    }

    // MARK: Lines

    private func take(_ b: UnsafeBufferPointer<UInt8>) {
        let n = b.count
        var i = 0
        while i < n {
            if b[i] == 10 {
                endLine(atLineFeed: true)
                i += 1
                continue
            }
            line.isEmpty = false
            if !line.isBlank && (line.isDecided || !line.isHeld) {
                // Nothing left to learn about this line: up to the next line feed in one go.
                let end =
                    memchr(b.baseAddress! + i, 10, n - i).map {
                        b.baseAddress!.distance(to: $0.assumingMemoryBound(to: UInt8.self))
                    } ?? n
                let run = UnsafeBufferPointer(rebasing: b[i..<end])
                if line.isHeld { held.append(contentsOf: run) } else { emit(run) }
                i = end
                continue
            }
            // One character (the piece is valid UTF-8, so a character is never cut).
            let c = b[i]
            let length = min(c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2, n - i)
            let character = UnsafeBufferPointer(rebasing: b[i..<(i + length)])
            if line.isBlank && !ReplySpool.isWhiteSpace(character) { line.isBlank = false }
            if line.isHeld {
                held.append(contentsOf: character)
                // Decided at the first byte that is not a backslash: `#` or `<` may start a header
                // look-alike or the prompt marker, and `<`, `|`, `=`, `>` a conflict marker, which
                // need the whole line; anything else is text.
                if !line.isDecided && c != UInt8(ascii: "\\") {
                    line.isDecided = true
                    if !ReplySpool.mayStartStructure(c) { release() }
                }
            } else {
                emit(character)
            }
            i += length
        }
    }

    /// Whether a line whose first byte (after backslashes) is `c` may read as structure in a room.
    static func mayStartStructure(_ c: UInt8) -> Bool {
        c == UInt8(ascii: "#") || c == UInt8(ascii: "<") || c == UInt8(ascii: "|") || c == UInt8(ascii: "=")
            || c == UInt8(ascii: ">")
    }

    /// Whether one UTF-8 character is white space (as `Character.isWhitespace`).
    static func isWhiteSpace(_ character: UnsafeBufferPointer<UInt8>) -> Bool {
        let c = character[0]
        if c < 0x80 { return c == 32 || (9...13).contains(c) }
        return String(decoding: character, as: UTF8.self).unicodeScalars.first?.properties.isWhitespace ?? false
    }

    private func emit(_ bytes: UnsafeBufferPointer<UInt8>) {
        buffer.append(contentsOf: bytes)
        offset += bytes.count
    }

    private func emit(_ byte: UInt8) {
        buffer.append(byte)
        offset += 1
    }

    /// Moves the held bytes of a line that is plain text to the buffer.
    private func release() {
        buffer += held
        offset += held.count
        held.removeAll(keepingCapacity: true)
        line.isHeld = false
    }

    /// Ends the current line: a held line is written (escaped when it would read as structure),
    /// then the line feed.
    private func endLine(atLineFeed: Bool) {
        if line.isHeld && !held.isEmpty {
            let structural = held.withUnsafeBufferPointer { BodyEscaping.isStructural($0, 0, $0.count) }
            if structural { emit(UInt8(ascii: "\\")) }
            release()
        }
        if !line.isEmpty && !line.isBlank {
            if firstText == nil { firstText = (line.start, line.index) }
            lastText = (offset, line.index)
        }
        if atLineFeed { emit(10) }
        line = Line(start: offset, index: line.index + 1)
        if buffer.count >= ReplySpool.bufferSize { flush() }
    }

    /// Writes the buffer to the file.
    private func flush() {
        guard !buffer.isEmpty, problem == nil else { return }
        let start = offset - buffer.count
        var failure: Int32?
        buffer.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count {
                let n = pwrite(descriptor, raw.baseAddress! + done, raw.count - done, off_t(start + done))
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                done += n
            }
        }
        if let failure { problem = "cannot write the reply to a file in .vault/: \(FileIO.errorText(failure))" }
        buffer.removeAll(keepingCapacity: true)
    }
}

/// Text kept in an open file, already escaped for a room (FORMAT.md, "Escaping"): a reply too
/// long to hold in memory (`ReplySpool`).
public struct FileText {
    /// The open file.
    public let descriptor: Int32
    /// Where the text is in it.
    public let range: Range<Int>
    /// The line feeds in the text.
    public let lineFeeds: Int
}
