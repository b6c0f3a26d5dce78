#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Replacing the end of a file in place, crash-safely: how a chat turn appends to a room.
///
/// A turn replaces only the end of a room (the prompt marker and what is below it) with the
/// new messages and a new marker. Rewriting the whole file for that (temporary file, flush,
/// rename) costs time and memory in proportion to the room: megabytes for a long one. Here
/// only the new end is written, into the file itself, under a redo journal:
///
/// 1. the journal `.vault/journal` gets the file's identity, the offset, the old end and the
///    new end, with a checksum, and is flushed to disk;
/// 2. the new end is written at the offset, the file cut to its new length and flushed;
/// 3. the journal is marked done.
///
/// A crash between 1 and 3 leaves a file whose end is the old one, the new one, or a mix of
/// the two (with zeros where blocks were never written). The next `vault` command finds the
/// journal and writes the new end again, so the turn's text is whole; a file that someone
/// changed in between in another way is left alone and the text goes to `.vault/recovered/`.
/// Bytes before the offset are never written. While the end is written the file is held
/// with an exclusive `flock`; vault's readers take a shared one (`FileIO.read`), so they
/// never see half of it. (Editors take no locks; they see the file before or after.)
public enum TailWrite {
    /// Replaces the bytes of `path` from `offset` to its end with `bytes`, if the file is still
    /// the version `expected`; `mark` is a piece of `bytes` found nowhere else (a new message's
    /// header line), used after a crash to tell whether the write was made.
    ///
    /// - Returns: the file's stamp after the write.
    /// - Throws: `VaultError.changedOnDisk` (nothing written) when the file changed since it was read.
    public static func replace(
        _ path: String, relative: String, from offset: Int, with bytes: [UInt8], mark: [UInt8],
        expecting expected: FileIO.Stamp,
        journal: String
    ) throws(VaultError) -> FileIO.Stamp {
        try replace(
            path, relative: relative, from: offset, with: [.bytes(bytes)], mark: mark, expecting: expected,
            journal: journal)
    }

    /// A piece of a file's new end: bytes, or a range of another open file (a long reply,
    /// `ReplySpool`), which is copied a mebibyte at a time and never held whole.
    public enum Part {
        case bytes([UInt8])
        case file(FileText)

        var count: Int {
            switch self {
            case .bytes(let b): return b.count
            case .file(let text): return text.range.count
            }
        }
    }

    /// Like `replace(_:relative:from:with:mark:expecting:journal:)`, with the new end given in
    /// parts: memory does not grow with a part read from a file.
    public static func replace(
        _ path: String, relative: String, from offset: Int, with parts: [Part], mark: [UInt8],
        expecting expected: FileIO.Stamp, journal: String
    ) throws(VaultError) -> FileIO.Stamp {
        // Never through a symbolic link (one put in place since the room was read).
        let fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else {
            if errno == ENOENT { throw VaultError.changedOnDisk(path: path) }
            if errno == ELOOP {
                let target = FileIO.linkText(path).map { String(decoding: $0, as: UTF8.self) } ?? "?"
                throw VaultError.symbolicLink(path: relative, target: target)
            }
            throw VaultError.io(path: path, operation: "write", reason: FileIO.errorText())
        }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 && errno == EINTR {}
        defer { flock(fd, LOCK_UN) }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            throw VaultError.io(path: path, operation: "write", reason: FileIO.errorText())
        }
        guard FileIO.Stamp(st) == expected, offset <= Int(st.st_size) else {
            throw VaultError.changedOnDisk(path: path)
        }
        let old = try FileIO.pread(fd, offset: offset, count: Int(st.st_size) - offset, path: path)
        try Journal.write(
            path: relative, device: UInt64(st.st_dev), inode: UInt64(st.st_ino), offset: offset, old: old, new: parts,
            mark: mark, to: journal)
        let total = parts.reduce(0) { $0 + $1.count }
        if CrashPoint.isChosen("tail-write") {
            // For the tests of crash recovery: die with half the new end written, as a crash would.
            var at = offset
            try? each(parts, upTo: total / 2, path: path) { (chunk) throws(VaultError) in
                _ = Glibc.pwrite(fd, chunk.baseAddress, chunk.count, off_t(at))
                at += chunk.count
            }
            ProcessHooks.exit(137)
        }
        var at = offset
        try each(parts, upTo: total, path: path) { (chunk) throws(VaultError) in
            var done = 0
            while done < chunk.count {
                let n = Glibc.pwrite(fd, chunk.baseAddress! + done, chunk.count - done, off_t(at + done))
                if n < 0 {
                    if errno == EINTR { continue }
                    // The journal stays: the next command finishes the write (or keeps its text).
                    throw VaultError.io(path: path, operation: "write", reason: FileIO.errorText())
                }
                done += n
            }
            at += chunk.count
        }
        var failure: Int32?
        if offset + total < Int(st.st_size), ftruncate(fd, off_t(offset + total)) != 0 { failure = errno }
        if failure == nil, fdatasync(fd) != 0 { failure = errno }
        if let failure {
            // The journal stays: the next command finishes the write (or keeps its text).
            throw VaultError.io(path: path, operation: "write", reason: FileIO.errorText(failure))
        }
        Journal.markDone(journal)
        guard fstat(fd, &st) == 0 else {
            throw VaultError.io(path: path, operation: "write", reason: FileIO.errorText())
        }
        return FileIO.Stamp(st)
    }

    /// Calls `body` with the first `count` bytes of `bytes`.
    private static func hand(
        _ bytes: [UInt8], count: Int, to body: (UnsafeRawBufferPointer) throws(VaultError) -> Void
    ) throws(VaultError) {
        let result = bytes.withUnsafeBytes { raw -> Result<Void, VaultError> in
            do throws(VaultError) {
                try body(UnsafeRawBufferPointer(rebasing: raw[0..<count]))
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
    }

    /// Hands the first `limit` bytes of `parts` to `body`, a piece at a time (at most a
    /// mebibyte of a file part at once).
    static func each(
        _ parts: [Part], upTo limit: Int, path: String, _ body: (UnsafeRawBufferPointer) throws(VaultError) -> Void
    ) throws(VaultError) {
        var left = limit
        for part in parts where left > 0 {
            switch part {
            case .bytes(let bytes):
                let n = min(bytes.count, left)
                try hand(bytes, count: n, to: body)
                left -= n
            case .file(let text):
                var at = text.range.lowerBound
                let end = text.range.lowerBound + min(text.range.count, left)
                var chunk = [UInt8](repeating: 0, count: min(1 << 20, max(end - at, 1)))
                while at < end {
                    let want = min(chunk.count, end - at)
                    let n = chunk.withUnsafeMutableBytes {
                        Glibc.pread(text.descriptor, $0.baseAddress, want, off_t(at))
                    }
                    if n < 0 && errno == EINTR { continue }
                    guard n > 0 else {
                        let reason = n < 0 ? FileIO.errorText() : "its text ended early"
                        throw VaultError.io(path: path, operation: "copy the reply into", reason: reason)
                    }
                    try hand(chunk, count: n, to: body)
                    at += n
                }
                left -= end - text.range.lowerBound
            }
        }
    }

    /// Finishes a write a crash interrupted, if the journal at `journal` holds one.
    ///
    /// - Returns: a note for the person when the write could not be finished and its text
    ///   was saved elsewhere; nil otherwise.
    public static func recover(journal: String, root: String) -> String? {
        guard let record = Journal.read(journal) else { return nil }
        defer { Journal.markDone(journal) }
        let path = root + "/" + record.path
        switch finish(record, at: path) {
        case .done:
            return nil
        case .keptAside:
            let folder = root + "/" + VaultPath.state + "/recovered"
            let name = FileIO.uniqueName(base: record.path.split(separator: "/").last.map(String.init) ?? "text")
            do {
                try FileIO.makeDirectory(folder)
                try FileIO.write(record.new, to: folder + "/" + name)
            } catch {
                return
                    "a write to \(record.path) was interrupted by a crash and could not be finished,"
                    + " and its text could not be saved either: \(error)"
            }
            return
                "a write to \(record.path) was interrupted by a crash, and the file has changed since:"
                + " the text being written is in \(VaultPath.state)/recovered/\(name)"
        }
    }

    enum Outcome { case done, keptAside }

    static func finish(_ record: Record, at path: String) -> Outcome {
        let fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return .keptAside }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 && errno == EINTR {}
        defer { flock(fd, LOCK_UN) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return .keptAside }
        let size = Int(st.st_size)
        if UInt64(st.st_dev) == record.device, UInt64(st.st_ino) == record.inode, size >= record.offset,
            let end = try? FileIO.pread(fd, offset: record.offset, count: size - record.offset, path: path)
        {
            if end == record.new { return .done }
            if isInterrupted(end, old: record.old, new: record.new) {
                let written = record.new.withUnsafeBytes {
                    Glibc.pwrite(fd, $0.baseAddress, $0.count, off_t(record.offset))
                }
                if written == record.new.count, ftruncate(fd, off_t(record.offset + record.new.count)) == 0,
                    fdatasync(fd) == 0
                {
                    return .done
                }
                return .keptAside
            }
        }
        // Changed since in some other way: done if the new text is in it (written, then edited).
        if let whole = try? FileIO.pread(fd, offset: 0, count: size, path: path), contains(whole, record.mark) {
            return .done
        }
        return .keptAside
    }

    /// Whether `end` is what an interrupted write leaves: each byte the old one, the new one,
    /// or zero (a block allocated but never written).
    static func isInterrupted(_ end: [UInt8], old: [UInt8], new: [UInt8]) -> Bool {
        guard end.count <= max(old.count, new.count) else { return false }
        for (i, b) in end.enumerated() {
            if b == 0 || (i < new.count && b == new[i]) || (i < old.count && b == old[i]) { continue }
            return false
        }
        return true
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty else { return true }
        return haystack.withUnsafeBytes { h in
            needle.withUnsafeBytes { n in
                var at = 0
                while h.count - at >= n.count,
                    let hit = memchr(h.baseAddress! + at, Int32(n[0]), h.count - at - n.count + 1)
                {
                    let i = h.baseAddress!.distance(to: UnsafeRawPointer(hit))
                    if memcmp(h.baseAddress! + i, n.baseAddress!, n.count) == 0 { return true }
                    at = i + 1
                }
                return false
            }
        }
    }

    /// One write in the journal.
    struct Record: Equatable {
        var path: String
        var device: UInt64
        var inode: UInt64
        var offset: Int
        var old: [UInt8]
        var new: [UInt8]
        var mark: [UInt8]
    }

    /// `.vault/journal`: one record, or nothing.
    ///
    ///     vault-journal 1 <bytes after this line> <FNV-1a 64 of them, 16 hex digits>
    ///     path rooms/x.md
    ///     device 2049
    ///     inode 1234
    ///     offset 5179000
    ///     old 91
    ///     new 2050
    ///     mark 120
    ///
    ///     <old bytes><new bytes><mark bytes>
    ///
    /// Marked done by overwriting its first byte (`X`) and cutting the file back to `keptBytes`,
    /// which need no flush: a record found again after a crash describes a write that is whole,
    /// and finishing it changes nothing.
    enum Journal {
        static func encode(_ r: Record) -> [UInt8] {
            var rest = Array(
                ("path \(r.path)\ndevice \(r.device)\ninode \(r.inode)\noffset \(r.offset)"
                    + "\nold \(r.old.count)\nnew \(r.new.count)\nmark \(r.mark.count)\n\n").utf8)
            rest += r.old
            rest += r.new
            rest += r.mark
            return Array("vault-journal 1 \(rest.count) \(hex16(fnv1a(rest)))\n".utf8) + rest
        }

        /// A checksum as 16 hex digits (a fixed width, so it can be written after the bytes it sums).
        static func hex16(_ value: UInt64) -> String {
            let digits = String(value, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }

        static func decode(_ bytes: [UInt8]) -> Record? {
            guard let nl = bytes.firstIndex(of: 10) else { return nil }
            let first = String(decoding: bytes[..<nl], as: UTF8.self).split(separator: " ")
            guard first.count == 4, first[0] == "vault-journal", first[1] == "1", let length = Int(first[2]),
                let check = UInt64(first[3], radix: 16), bytes.count - nl - 1 >= length
            else { return nil }
            let rest = Array(bytes[(nl + 1)..<(nl + 1 + length)])
            guard fnv1a(rest) == check, let blank = TailWrite.blankLine(in: rest) else { return nil }
            var fields: [Substring: Substring] = [:]
            for line in String(decoding: rest[..<blank], as: UTF8.self).split(separator: "\n") {
                guard let space = line.firstIndex(of: " ") else { return nil }
                fields[line[..<space]] = line[line.index(after: space)...]
            }
            guard let path = fields["path"].map(String.init), let device = fields["device"].flatMap({ UInt64($0) }),
                let inode = fields["inode"].flatMap({ UInt64($0) }), let offset = fields["offset"].flatMap({ Int($0) }),
                let oldCount = fields["old"].flatMap({ Int($0) }), let newCount = fields["new"].flatMap({ Int($0) }),
                let markCount = fields["mark"].flatMap({ Int($0) }),
                blank + 2 + oldCount + newCount + markCount == rest.count
            else { return nil }
            var at = blank + 2
            let old = Array(rest[at..<(at + oldCount)])
            at += oldCount
            let new = Array(rest[at..<(at + newCount)])
            at += newCount
            return Record(
                path: path, device: device, inode: inode, offset: offset, old: old, new: new, mark: Array(rest[at...]))
        }

        static func write(_ record: Record, to path: String) throws(VaultError) {
            try write(
                path: record.path, device: record.device, inode: record.inode, offset: record.offset, old: record.old,
                new: [.bytes(record.new)], mark: record.mark, to: path)
        }

        /// Writes a record whose new end is given in parts, as `encode` would lay it out, a piece
        /// at a time: the checksum is written (as 16 hex digits) once every byte has been.
        static func write(
            path relative: String, device: UInt64, inode: UInt64, offset: Int, old: [UInt8], new: [Part], mark: [UInt8],
            to path: String
        ) throws(VaultError) {
            let created = !FileIO.exists(path)
            if created { try FileIO.makeDirectory(FileIO.parent(of: path)) }
            let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard fd >= 0 else {
                throw VaultError.io(path: path, operation: "write the journal", reason: FileIO.errorText())
            }
            defer { close(fd) }
            let newCount = new.reduce(0) { $0 + $1.count }
            let fields = Array(
                ("path \(relative)\ndevice \(device)\ninode \(inode)\noffset \(offset)\n"
                    + "old \(old.count)\nnew \(newCount)\nmark \(mark.count)\n\n").utf8)
            let lead = Array("vault-journal 1 \(fields.count + old.count + newCount + mark.count) ".utf8)
            var at = lead.count + 17  // the checksum's 16 digits and a line feed
            var hash = fnv1aStart
            let failed = { () -> VaultError in
                VaultError.io(path: path, operation: "write the journal", reason: FileIO.errorText())
            }
            let append = { (chunk: UnsafeRawBufferPointer) throws(VaultError) -> Void in
                fnv1a(chunk, into: &hash)
                let written = chunk.isEmpty ? 0 : Glibc.pwrite(fd, chunk.baseAddress, chunk.count, off_t(at))
                guard written == chunk.count else { throw failed() }
                at += chunk.count
            }
            try each([.bytes(fields), .bytes(old)] + new + [.bytes(mark)], upTo: .max, path: path, append)
            let first = lead + Array((hex16(hash) + "\n").utf8)
            let written = first.withUnsafeBytes { Glibc.pwrite(fd, $0.baseAddress, $0.count, 0) }
            guard written == first.count else { throw failed() }
            // A longer record written before leaves nothing behind.
            guard ftruncate(fd, off_t(at)) == 0, fdatasync(fd) == 0 else { throw failed() }
            if created { FileIO.syncDirectory(FileIO.parent(of: path)) }
        }

        static func read(_ path: String) -> Record? {
            guard let bytes = try? FileIO.read(path), bytes.first == UInt8(ascii: "v") else { return nil }
            return decode(bytes)
        }

        /// Whether a record waits in the journal (one small read; no journal is the usual case).
        static func isPending(_ path: String) -> Bool {
            let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
            guard fd >= 0 else { return false }
            defer { close(fd) }
            var first: UInt8 = 0
            return Glibc.read(fd, &first, 1) == 1 && first == UInt8(ascii: "v")
        }

        /// What of the journal's file a done write leaves: a turn's record (a few kilobytes)
        /// is written over the blocks of the last one, with no change of the file's size to
        /// flush; past this, the file is cut back.
        static let keptBytes = 64 << 10

        /// Marks the record done, and cuts the file back to `keptBytes`: the record protects
        /// nothing once its write is on disk (`replace` flushed it, `recover` finished it), so a
        /// write of megabytes does not leave a journal of megabytes behind. Neither needs a
        /// flush: after a crash the journal holds the record again, or what is left of it, and
        /// finishing a whole write again changes nothing.
        static func markDone(_ path: String) {
            let fd = open(path, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { return }
            var done = UInt8(ascii: "X")
            _ = Glibc.pwrite(fd, &done, 1, 0)
            // The record of a long reply does not keep taking room once it is done.
            var st = stat()
            if fstat(fd, &st) == 0, Int(st.st_size) > keptBytes { _ = ftruncate(fd, off_t(keptBytes)) }
            close(fd)
        }
    }

    /// The index of the `\n` that starts the first blank line (`\n\n`).
    static func blankLine(in bytes: [UInt8]) -> Int? {
        var i = 0
        while i + 1 < bytes.count {
            if bytes[i] == 10 && bytes[i + 1] == 10 { return i }
            i += 1
        }
        return nil
    }

    static func fnv1a(_ bytes: [UInt8]) -> UInt64 {
        var h = fnv1aStart
        bytes.withUnsafeBytes { fnv1a($0, into: &h) }
        return h
    }

    static let fnv1aStart: UInt64 = 0xcbf2_9ce4_8422_2325

    /// FNV-1a 64 of `bytes` added to the hash `h` of the bytes before them.
    static func fnv1a(_ bytes: UnsafeRawBufferPointer, into h: inout UInt64) {
        var x = h
        for b in bytes {
            x ^= UInt64(b)
            x = x &* 0x100_0000_01b3
        }
        h = x
    }
}
