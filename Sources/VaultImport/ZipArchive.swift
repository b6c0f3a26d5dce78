import CZlib
import Foundation
import VaultCore

#if canImport(Glibc)
import Glibc
#endif

/// A zip archive opened for reading: its members from the central directory (zip64 too), and
/// each member's bytes, stored or deflated, streamed through zlib.
///
/// Only what exports use: no encryption, no multi-disk archives, methods 0 (stored) and 8
/// (deflate). Opening refuses an archive with a member whose name climbs out of it (`..`) or
/// is absolute, so a member's name can be used as a relative path; only a regular file is
/// opened (a FIFO is never waited on). A member's bytes are checked against its size and CRC-32
/// as they are read, and never exceed `limit`; offsets and sizes past the file's end are "cut
/// short", compared without a sum that could overflow.
///
///     let zip = try ZipArchive(path: "/tmp/export.zip")
///     for member in zip.members where member.name.hasSuffix(".json") { print(member.name, member.size) }
///     let json = try zip.bytes(of: zip.member(named: "conversations.json")!)
///     try zip.extract(zip.member(named: "photos/a.jpeg")!, to: "/tmp/a.jpeg")
///
/// Problems are `VaultError.importing`, naming the archive (and the member): a file cut short,
/// a member that does not match its CRC, a method vault cannot read.
package final class ZipArchive {
    /// One file of the archive (folders are not listed).
    package struct Member: Sendable, Hashable {
        /// Its path in the archive, `/`-separated, never absolute, never with `..`.
        package let name: String
        /// Its size once extracted, as the central directory says.
        package let size: UInt64
        package let compressedSize: UInt64
        /// 0 stored, 8 deflate (anything else cannot be read).
        package let method: UInt16
        package let crc32: UInt32
        let localHeaderOffset: UInt64
        let flags: UInt16
    }

    /// The archive's path.
    package let path: String
    /// The archive as problems name it.
    package let name: String
    /// The files, in the central directory's order.
    package private(set) var members: [Member] = []
    /// The archive, open (its one owner closes it).
    private let file: ExportFileHandle
    private var fd: Int32 { file.fd }
    private let fileSize: UInt64

    /// The default cap on a member's extracted size: 8 GiB.
    package static let defaultLimit: UInt64 = 8 << 30

    /// Opens `path` and reads its central directory.
    ///
    /// - Throws: `VaultError.importing` when it cannot be opened, is not a zip, is cut short,
    ///   or has a member whose name is absolute or contains `..`.
    package init(path: String, name: String? = nil) throws(VaultError) {
        self.path = path
        self.name = name ?? path
        // A regular file only (a FIFO is not waited on: `ExportInput`).
        file = try ExportInput.openNamed(path, name: name ?? path)
        fileSize = UInt64(file.size)
        members = try readCentralDirectory()
    }

    /// Whether the file at `path` begins like a zip archive (`PK\3\4`, or an empty archive's `PK\5\6`).
    package static func looksLikeZip(_ path: String) -> Bool {
        let head = (try? ExportInput.openNamed(path))?.prefix(4) ?? []
        return head == [0x50, 0x4B, 3, 4] || head == [0x50, 0x4B, 5, 6]
    }

    /// The member named `name` exactly, if any.
    package func member(named name: String) -> Member? {
        members.first { $0.name == name }
    }

    /// The member's bytes, at most `limit` of them.
    package func bytes(of member: Member, limit: UInt64 = ZipArchive.defaultLimit) throws(VaultError) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(Int(min(member.size, limit, 1 << 28)))
        try read(member, limit: limit) { chunk in
            out.append(contentsOf: chunk)
            return true
        }
        return out
    }

    /// The member's first `count` bytes (fewer when it is shorter); reads no further.
    package func prefix(of member: Member, count: Int) throws(VaultError) -> [UInt8] {
        var out: [UInt8] = []
        try read(member) { chunk in
            out.append(contentsOf: chunk.prefix(count - out.count))
            return out.count < count
        }
        return out
    }

    /// Writes the member to a new file at `destination` (replacing one there).
    package func extract(_ member: Member, to destination: String, limit: UInt64 = ZipArchive.defaultLimit)
        throws(VaultError)
    {
        let out = open(destination, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard out >= 0 else {
            throw problem(member.name, "cannot be extracted to \(destination) (\(String(cString: strerror(errno))))")
        }
        defer { close(out) }
        var failure: String?
        try read(member, limit: limit) { chunk in
            var done = 0
            while done < chunk.count {
                let n = write(out, chunk.baseAddress! + done, chunk.count - done)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = String(cString: strerror(errno))
                    return false
                }
                done += n
            }
            return true
        }
        if let failure {
            throw problem(member.name, "cannot be extracted to \(destination) (\(failure))")
        }
    }

    /// Streams the member's bytes to `sink`, a chunk at a time; `sink` returns false to stop
    /// early (the rest is then neither read nor checked).
    package func read(
        _ member: Member, limit: UInt64 = ZipArchive.defaultLimit,
        _ sink: (UnsafeBufferPointer<UInt8>) throws(VaultError) -> Bool
    ) throws(VaultError) {
        if member.flags & 1 != 0 { throw problem(member.name, "is encrypted, which vault cannot read") }
        guard member.method == 0 || member.method == 8 else {
            throw problem(member.name, "uses compression method \(member.method), which vault cannot read (only stored and deflate)")
        }
        if member.size > limit {
            throw problem(member.name, "is \(member.size) bytes, more than the \(limit) vault reads from one member")
        }
        // The local header: its name and extra field lengths may differ from the central directory's.
        let local = try bytes(at: member.localHeaderOffset, count: 30, member: member.name)
        guard le32(local, 0) == 0x0403_4B50 else { throw problem(member.name, "has no local header where the directory says") }
        // The header was read, so its offset is inside the file: these sums cannot overflow.
        var dataOffset = member.localHeaderOffset + 30 + UInt64(le16(local, 26)) + UInt64(le16(local, 28))
        guard dataOffset <= fileSize, member.compressedSize <= fileSize - dataOffset else { throw cutShort(member.name) }
        let dataEnd = dataOffset + member.compressedSize

        var crc = crc32(0, nil, 0)
        var produced: UInt64 = 0
        var input = [UInt8](repeating: 0, count: 1 << 16)
        func take(_ chunk: UnsafeBufferPointer<UInt8>) throws(VaultError) -> Bool {
            produced += UInt64(chunk.count)
            if produced > member.size {
                throw problem(member.name, "holds more bytes than its size (\(member.size)) says")
            }
            crc = crc32(crc, chunk.baseAddress, uInt(chunk.count))
            return try sink(chunk)
        }

        if member.method == 0 {
            while dataOffset < dataEnd {
                let n = Int(min(UInt64(input.count), dataEnd - dataOffset))
                try fill(&input, count: n, at: dataOffset, member: member.name)
                dataOffset += UInt64(n)
                let more = try input.withUnsafeBufferPointer { (b) throws(VaultError) in
                    try take(UnsafeBufferPointer(rebasing: b[0..<n]))
                }
                if !more { return }
            }
        } else {
            var stream = z_stream()
            guard inflateInit2_(&stream, -MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
                throw problem(member.name, "cannot be inflated (zlib would not start)")
            }
            defer { inflateEnd(&stream) }
            var output = [UInt8](repeating: 0, count: 1 << 16)
            var inputStart = 0
            var inputEnd = 0
            var finished = false
            while !finished {
                if inputStart == inputEnd {
                    guard dataOffset < dataEnd else {
                        throw problem(member.name, "is cut short: its deflate stream ends early")
                    }
                    let n = Int(min(UInt64(input.count), dataEnd - dataOffset))
                    try fill(&input, count: n, at: dataOffset, member: member.name)
                    dataOffset += UInt64(n)
                    inputStart = 0
                    inputEnd = n
                }
                let (status, made, used) = input.withUnsafeMutableBufferPointer { inBuffer in
                    output.withUnsafeMutableBufferPointer { outBuffer in
                        stream.next_in = inBuffer.baseAddress! + inputStart
                        stream.avail_in = uInt(inputEnd - inputStart)
                        stream.next_out = outBuffer.baseAddress
                        stream.avail_out = uInt(outBuffer.count)
                        let status = inflate(&stream, Z_NO_FLUSH)
                        return (status, outBuffer.count - Int(stream.avail_out), inputEnd - inputStart - Int(stream.avail_in))
                    }
                }
                inputStart += used
                if status == Z_STREAM_END {
                    finished = true
                } else if status != Z_OK && status != Z_BUF_ERROR {
                    throw problem(member.name, "is not a valid deflate stream (zlib: \(zlibMessage(stream, status)))")
                } else if status == Z_BUF_ERROR && made == 0 && used == 0 && inputStart < inputEnd {
                    throw problem(member.name, "is not a valid deflate stream")
                }
                if made > 0 {
                    let more = try output.withUnsafeBufferPointer { (b) throws(VaultError) in
                        try take(UnsafeBufferPointer(rebasing: b[0..<made]))
                    }
                    if !more { return }
                }
            }
        }
        guard produced == member.size else {
            throw problem(member.name, "is cut short: \(produced) of its \(member.size) bytes")
        }
        guard UInt32(crc) == member.crc32 else {
            throw problem(member.name, "is damaged: its CRC-32 does not match")
        }
    }

    // MARK: - The central directory

    private func readCentralDirectory() throws(VaultError) -> [Member] {
        // The end-of-central-directory record: 22 bytes, then a comment of up to 65,535.
        let tailLength = min(fileSize, 22 + 65_535 + 20)
        let tail = try bytes(at: fileSize - tailLength, count: Int(tailLength), member: nil)
        var eocd = -1
        if tail.count >= 22 {
            var i = tail.count - 22
            while i >= 0 {
                if tail[i] == 0x50 && tail[i + 1] == 0x4B && tail[i + 2] == 5 && tail[i + 3] == 6 {
                    eocd = i
                    break
                }
                i -= 1
            }
        }
        guard eocd >= 0 else {
            if fileSize >= 4, Self.looksLikeZip(path) {
                throw whole("is cut short: the zip's end (its central directory) is missing")
            }
            throw whole("is not a zip archive")
        }
        var count = UInt64(le16(tail, eocd + 10))
        var directorySize = UInt64(le32(tail, eocd + 12))
        var directoryOffset = UInt64(le32(tail, eocd + 16))
        if le16(tail, eocd + 4) != 0 || le16(tail, eocd + 6) != 0 {
            throw whole("is split over several disks, which vault cannot read")
        }
        // zip64: the locator sits right before the record, and points at the zip64 record.
        if count == 0xFFFF || directorySize == 0xFFFF_FFFF || directoryOffset == 0xFFFF_FFFF,
            eocd >= 20, le32(tail, eocd - 20) == 0x0706_4B50
        {
            let recordOffset = le64(tail, eocd - 20 + 8)
            let record = try bytes(at: recordOffset, count: 56, member: nil)
            guard le32(record, 0) == 0x0606_4B50 else { throw whole("has a damaged zip64 directory record") }
            count = le64(record, 32)
            directorySize = le64(record, 40)
            directoryOffset = le64(record, 48)
        }
        guard directoryOffset <= fileSize, directorySize <= fileSize - directoryOffset else {
            throw whole("is cut short: its central directory lies past the end of the file")
        }
        guard directorySize < 1 << 31 else { throw whole("has a central directory too large to read") }
        let directory = try bytes(at: directoryOffset, count: Int(directorySize), member: nil)
        var members: [Member] = []
        var at = 0
        for _ in 0..<count {
            guard at + 46 <= directory.count, le32(directory, at) == 0x0201_4B50 else {
                throw whole("has a damaged central directory (entry \(members.count + 1))")
            }
            let flags = le16(directory, at + 8)
            let method = le16(directory, at + 10)
            let crc = le32(directory, at + 16)
            var compressed = UInt64(le32(directory, at + 20))
            var size = UInt64(le32(directory, at + 24))
            let nameLength = Int(le16(directory, at + 28))
            let extraLength = Int(le16(directory, at + 30))
            let commentLength = Int(le16(directory, at + 32))
            var localOffset = UInt64(le32(directory, at + 42))
            let end = at + 46 + nameLength + extraLength + commentLength
            guard end <= directory.count else { throw whole("has a damaged central directory (entry \(members.count + 1))") }
            let nameBytes = Array(directory[(at + 46)..<(at + 46 + nameLength)])
            // zip64 extra field: the 64-bit values, for the fields that were 0xFFFFFFFF, in this order.
            var e = at + 46 + nameLength
            let extraEnd = e + extraLength
            while e + 4 <= extraEnd {
                let id = le16(directory, e)
                let length = Int(le16(directory, e + 2))
                if id == 1 {
                    var v = e + 4
                    if size == 0xFFFF_FFFF, v + 8 <= e + 4 + length { size = le64(directory, v); v += 8 }
                    if compressed == 0xFFFF_FFFF, v + 8 <= e + 4 + length { compressed = le64(directory, v); v += 8 }
                    if localOffset == 0xFFFF_FFFF, v + 8 <= e + 4 + length { localOffset = le64(directory, v); v += 8 }
                }
                e += 4 + length
            }
            at = end
            let name = String(decoding: nameBytes, as: UTF8.self).replacingOccurrences(of: "\\", with: "/")
            if name.hasSuffix("/") { continue }  // a folder
            try checkName(name)
            members.append(
                Member(
                    name: name, size: size, compressedSize: compressed, method: method, crc32: crc,
                    localHeaderOffset: localOffset, flags: flags))
        }
        return members
    }

    private func checkName(_ name: String) throws(VaultError) {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        let absolute = name.hasPrefix("/") || (name.count >= 2 && name.dropFirst().first == ":")
        if absolute || parts.contains("..") || name.contains("\0") {
            throw .importing(
                ImportProblem(
                    file: self.name, place: name,
                    problem: "is a member name that points outside the archive; vault reads no member of it"))
        }
    }

    // MARK: - Bytes

    private func bytes(at offset: UInt64, count: Int, member: String?) throws(VaultError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        try fill(&out, count: count, at: offset, member: member)
        return out
    }

    private func fill(_ buffer: inout [UInt8], count: Int, at offset: UInt64, member: String?) throws(VaultError) {
        // Offsets come from the archive: compared without a sum that could overflow.
        guard offset <= fileSize, UInt64(count) <= fileSize - offset else { throw cutShort(member) }
        var done = 0
        while done < count {
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, count - done, off_t(offset) + off_t(done)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .importing(
                    ImportProblem(file: name, place: member ?? "", problem: "cannot be read (\(String(cString: strerror(errno))))"))
            }
            if n == 0 { throw cutShort(member) }
            done += n
        }
    }

    private func cutShort(_ member: String?) -> VaultError {
        .importing(ImportProblem(file: name, place: member ?? "", problem: "is cut short: the file ends before this member's data"))
    }

    private func problem(_ member: String, _ text: String) -> VaultError {
        .importing(ImportProblem(file: name, place: member, problem: text))
    }

    private func whole(_ text: String) -> VaultError { .importing(ImportProblem(file: name, problem: text)) }

    private func zlibMessage(_ stream: z_stream, _ status: Int32) -> String {
        stream.msg.map { String(cString: $0) } ?? "error \(status)"
    }
}

private func le16(_ b: [UInt8], _ i: Int) -> UInt16 { UInt16(b[i]) | UInt16(b[i + 1]) << 8 }
private func le32(_ b: [UInt8], _ i: Int) -> UInt32 { UInt32(le16(b, i)) | UInt32(le16(b, i + 2)) << 16 }
private func le64(_ b: [UInt8], _ i: Int) -> UInt64 { UInt64(le32(b, i)) | UInt64(le32(b, i + 4)) << 32 }
