import CCrypto
import CVaultScan

#if canImport(Glibc)
import Glibc
#endif

/// One listed file as the index reads it: the stamp of the version read, its git blob id, and
/// its search text.
///
/// The blob id is git's (SHA-1 of `blob <size>\0` and the bytes), so one content has one id
/// wherever it lives: a renamed file, a file touched, or a sync that rewrote it unchanged finds
/// its text already indexed.
struct FileVersion {
    /// The stamp of the version read (`unsettled` when it cannot be trusted to change with the
    /// next write), `FileStamp.unreadable` when the file could not be read.
    var stamp: FileStamp
    /// The git blob id (20 bytes), nil when the file could not be read.
    var blob: [UInt8]?
    /// Whether the bytes are UTF-8.
    var isValidUTF8 = false
    /// The index terms of the text (`indexTerms(of:)`), when computed (valid UTF-8, and the
    /// blob was not known to be indexed already).
    var terms: Terms?
    /// The bytes, kept only when the text was not computed and is valid UTF-8 (the blob, known
    /// when the file was read, may be gone by the time it is stored).
    var bytes: [UInt8]?

    /// Reads `path` (relative to the folder open as `folder`) without following a symbolic link.
    ///
    /// The stamp is taken with `fstat` on the open file before reading and compared after: a
    /// file written while it was read, or within `racyMargin` nanoseconds before, is recorded
    /// `unsettled`, so the next refresh reads it again. The text is computed only when the blob
    /// is not in `knownBlobs` (an indexed text is never computed twice).
    static func read(
        _ path: String, in folder: Int32, racyMargin: Int64, knownBlobs: Set<[UInt8]>
    ) -> FileVersion {
        let fd = path.withCString { openat(folder, $0, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) }
        guard fd >= 0 else { return FileVersion(stamp: .unreadable) }
        defer { close(fd) }
        var before = stat()
        guard fstat(fd, &before) == 0 else { return FileVersion(stamp: .unreadable) }
        var stamp = FileStamp(before)
        guard stamp != .unreadable, let bytes = readAll(fd, expected: Int(before.st_size)) else {
            return FileVersion(stamp: .unreadable)
        }
        var after = stat()
        if fstat(fd, &after) != 0 || FileStamp(after) != stamp || Int64(bytes.count) != stamp.size
            || stamp.isRecent(now: realTimeNanoseconds(), margin: racyMargin)
        {
            stamp = stamp.unsettled
        }
        var version = FileVersion(stamp: stamp, blob: blobID(of: bytes))
        guard let text = String(validating: bytes, as: UTF8.self) else { return version }
        version.isValidUTF8 = true
        if let blob = version.blob, knownBlobs.contains(blob) {
            version.bytes = bytes
        } else {
            version.terms = indexTerms(of: text)
        }
        return version
    }

    /// A text's index terms: those of its search key (`SearchText.key(text, folding: true)`,
    /// `terms(of:)`) and its case-kept ones (`caseTerms(of:)` of its NFC).
    static func indexTerms(of text: String) -> Terms {
        let written = nfc(text)
        let folded = terms(of: SearchText.fold(written))
        let cased = caseTerms(of: written)
        guard folded.count >= 0, cased.count >= 0 else { return Terms(text: "", count: -1) }
        return Terms(text: folded.text + cased.text, count: folded.count + cased.count)
    }

    /// `SearchText.key(text, folding: true)`, without the NFC normalization when no scalar of
    /// `text` can make a text not NFC (`nfc(_:)`).
    static func searchKey(_ text: String) -> String { SearchText.fold(nfc(text)) }

    /// `text` in NFC: itself when no scalar of it can make a text not NFC
    /// (`SearchText.isUnstable`), as normalizing it would take about half the time of the key on
    /// a vault's files.
    static func nfc(_ text: String) -> String {
        text.unicodeScalars.contains { SearchText.isUnstable($0.value) } ? SearchText.nfc(text) : text
    }

    /// A search key's index terms (`vs_index_terms`), each followed by a space, as FTS5's
    /// `ascii` tokenizer reads them: a word of six characters `[0-9a-v]` per distinct run of
    /// three consecutive Unicode scalars (a 30-bit hash of the three), and for CJK text (Hangul,
    /// kana, Han) `w` and six per distinct pair of CJK scalars side by side and `x` and five per
    /// distinct CJK scalar, so a one- or two-character CJK needle is looked up too. A text that
    /// contains a needle has every term of the needle; a text that has them all may not contain
    /// it (the scan decides), so the index's answer is a superset.
    struct Terms {
        /// The words, each followed by a space.
        var text: String
        /// How many words (distinct terms).
        var count: Int
    }

    /// The terms of `key` (already `SearchText.key`-ed): a text's, or a needle's
    /// (`ofQuery`: its trigrams when it has three scalars or more, else its CJK pair or
    /// scalars; none for one or two scalars that are not CJK).
    static func terms(of key: String, ofQuery: Bool = false) -> Terms {
        words(of: key) { vs_index_terms($0, $1, ofQuery ? 1 : 0, &$2) }
    }

    /// The case-kept terms of `text` (NFC, not case folded; `vs_case_terms`): `y` and six letters
    /// per distinct run of three Unicode scalars that holds a capital A–Z, a text's and a
    /// needle's alike. A search that keeps case (`Swift`, by smart case) looks these up too, so
    /// the files with only `swift` are not read.
    static func caseTerms(of text: String) -> Terms {
        words(of: text) { vs_case_terms($0, $1, &$2) }
    }

    /// The words a C term maker (`vs_index_terms`, `vs_case_terms`) makes of `text`'s UTF-8.
    private static func words(
        of text: String, _ make: (UnsafePointer<UInt8>?, Int, inout vs_terms) -> Int32
    ) -> Terms {
        var text = text
        return text.withUTF8 { utf8 -> Terms in
            var out = vs_terms()
            guard make(utf8.baseAddress, utf8.count, &out) == 0, let words = out.text else {
                // Out of memory: no terms, so the text is never a candidate of a needle with some;
                // the caller records such a file as not indexed (always a candidate).
                return Terms(text: "", count: -1)
            }
            defer { vs_terms_free(&out) }
            let text = String(decoding: UnsafeRawBufferPointer(start: words, count: out.length), as: UTF8.self)
            return Terms(text: text, count: out.count)
        }
    }

    /// The index terms, computing them from the kept bytes when they were not computed on
    /// reading.
    mutating func indexTerms() -> Terms? {
        guard isValidUTF8 else { return nil }
        if terms == nil, let bytes {
            terms = Self.indexTerms(of: String(decoding: bytes, as: UTF8.self))
        }
        return terms
    }

    /// Every byte of the open file `fd` (which may have grown or shrunk since `fstat` said
    /// `expected`); nil when a read fails.
    static func readAll(_ fd: Int32, expected: Int) -> [UInt8]? {
        // One byte more than expected, so a single read can see the end of an unchanged file.
        var bytes = [UInt8](repeating: 0, count: max(expected, 0) + 1)
        var count = 0
        while true {
            if count == bytes.count { bytes.append(contentsOf: repeatElement(0, count: max(4_096, count))) }
            let n = bytes.withUnsafeMutableBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return -1 }
                return Glibc.read(fd, base + count, buffer.count - count)
            }
            if n < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if n == 0 {
                bytes.removeSubrange(count...)
                return bytes
            }
            count += n
        }
    }

    /// Git's blob id of `bytes`: SHA-1 of `blob <count>\0` followed by the bytes.
    static func blobID(of bytes: [UInt8]) -> [UInt8] {
        sha1(Array("blob \(bytes.count)\0".utf8), bytes)
    }

    /// The SHA-1 digest (20 bytes) of `pieces`, one after the other.
    static func sha1(_ pieces: [UInt8]...) -> [UInt8] {
        var context = SHA_CTX()
        var digest = [UInt8](repeating: 0, count: Int(SHA_DIGEST_LENGTH))
        SHA1_Init(&context)
        for piece in pieces { piece.withUnsafeBytes { _ = SHA1_Update(&context, $0.baseAddress, $0.count) } }
        SHA1_Final(&digest, &context)
        return digest
    }

    /// The wall clock in nanoseconds, the clock file times are taken from.
    static func realTimeNanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }
}
