import CCrypto
import Foundation
import VaultCore

/// What the Claude Code, llm, jrnl and Day One readers share: reading a file of an export,
/// checking its UTF-8, JSON values without force casts, times, short ids.
enum ExportFile {
    /// The problem `problem` at `place` of `file`, as the error readers throw.
    static func problem(_ file: String, at place: String = "", _ text: String) -> VaultError {
        .importing(ImportProblem(file: file, place: place, problem: text))
    }

    /// The bytes of `path`, a file the person named (`ExportInput.openNamed`: a regular file,
    /// never waited on), at most the cap; a problem naming it when it cannot be read.
    static func bytes(_ path: String, limits: ImportLimits, what: String) throws(VaultError) -> [UInt8] {
        try ExportInput.openNamed(path).bytes(limits, what: what)
    }

    /// The first `limit` bytes of `path` (nil when it is not a regular file or cannot be read):
    /// enough to recognize a format.
    static func head(_ path: String, limit: Int = 65536) -> [UInt8]? {
        (try? ExportInput.openNamed(path))?.prefix(limit)
    }

    /// The offset of the first byte that is not UTF-8 in `bytes`, or nil when all of it is.
    static func firstInvalidUTF8(_ bytes: some Collection<UInt8>) -> Int? {
        VaultImport.firstInvalidUTF8(Array(bytes))
    }

    /// `bytes` as text; a problem at `place` ("line 4") naming the byte when they are not UTF-8.
    static func text(_ bytes: some Collection<UInt8>, file: String, place: String = "") throws(VaultError) -> String {
        if let bad = firstInvalidUTF8(bytes) {
            throw problem(file, at: place, "is not valid UTF-8 (byte \(bad + 1)\(place.isEmpty ? "" : " of the line"))")
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A JSON value of `text`, or nil when it is not JSON.
    static func json(_ bytes: some Collection<UInt8>) -> Any? {
        try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
    }

    /// A JSON boolean (Foundation gives NSNumber on Linux).
    static func flag(_ value: Any?) -> Bool {
        if let b = value as? Bool { return b }
        if let n = value as? NSNumber { return n.boolValue }
        return false
    }

    /// An RFC 3339 / ISO 8601 time (`2025-06-01T10:00:00.123Z`, `…+09:00`) in its own offset,
    /// to the second and spelled the canonical way (`2025-06-01T10:00:00+00:00`), or nil.
    static func time(_ value: Any?) -> Timestamp? {
        guard let text = value as? String, let parsed = Timestamp(rfc3339: text) else { return nil }
        return Timestamp(date: parsed.date, timeZone: parsed.timeZone)
    }

    /// The first line of `text` that has something on it, trimmed, cut to about `limit`
    /// characters at a word: a title.
    static func titleLine(_ text: String, limit: Int = 80) -> String {
        let line = text.split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .first { !$0.isEmpty } ?? ""
        guard line.count > limit else { return line }
        let cut = line.prefix(limit)
        let atWord = cut.lastIndex(of: " ").map { cut[..<$0] } ?? cut
        return atWord.trimmingCharacters(in: .whitespaces) + "…"
    }

    /// The first 16 hex digits of SHA-256 of `text`: a short stable id for sources without one.
    static func shortHash(_ text: String) -> String {
        let bytes = Array(text.utf8)
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        _ = bytes.withUnsafeBufferPointer { SHA256($0.baseAddress, $0.count, &digest) }
        return digest.prefix(8).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    /// `body` in a fenced block whose fence no line of it can close (longer than any run of
    /// backticks inside), with `info` after the opening fence.
    static func fenced(_ body: String, info: String = "") -> String {
        var longest = 0
        var run = 0
        for c in body {
            if c == "`" {
                run += 1
                longest = max(longest, run)
            } else {
                run = 0
            }
        }
        let fence = String(repeating: "`", count: max(3, longest + 1))
        let text = body.hasSuffix("\n") ? String(body.dropLast()) : body
        return "\(fence)\(info)\n\(text)\n\(fence)"
    }

    /// Whether `path` (named by the person) is a folder.
    static func isFolder(_ path: String) -> Bool {
        (try? ExportInput.kind(of: path)) == .folder
    }

    /// A time given as seconds since 1970 (ChatGPT's `create_time`): nil for none (null, zero or
    /// less: the export does not know), a problem at `place` for a number no timestamp can hold
    /// (past the year 9999, not finite), which would otherwise end the import with a trap.
    static func epochTime(_ value: Any?, in zone: TimeZone, problem: (String) -> VaultError) throws(VaultError)
        -> Timestamp?
    {
        guard let number = value as? NSNumber else { return nil }
        let seconds = number.doubleValue
        guard seconds.isFinite, seconds <= lastSecond else {
            throw problem("is \(number), not a time vault can hold (seconds since 1970, up to the year 9999)")
        }
        guard seconds > 0 else { return nil }
        return Timestamp(date: Date(timeIntervalSince1970: seconds), timeZone: zone)
    }

    /// 9999-12-31T23:59:59Z: the last second a timestamp's four-digit year can spell.
    static let lastSecond = 253_402_300_799.0

    /// Whether `time` (within a day of the years 0 to 9999, as RFC 3339 times are) falls in them
    /// in its own offset: its text spells the year with four digits.
    static func spellsFourDigitYear(_ time: Timestamp) -> Bool {
        (0...9999).contains(time.localDate.year)
    }

    /// A block of a type no reader knows, kept as text: a line naming its type, then its JSON in
    /// a fenced block (`Unknown block: voice_note` …), so nothing of it is lost and a later
    /// vault can read it. The reader adds `type` to the message's `unknownBlocks`.
    static func unknownBlock(_ type: String, _ value: Any) -> String {
        "Unknown block: \(type)\n\n" + fenced(prettyJSON(value), info: "json")
    }

    /// Pretty JSON of a value (sorted keys, slashes unescaped), or its description.
    static func prettyJSON(_ value: Any) -> String {
        if value is String || value is NSNumber { return "\(value)" }
        guard JSONSerialization.isValidJSONObject(value),
            let data = try? JSONSerialization.data(
                withJSONObject: value, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        else { return "\(value)" }
        return String(decoding: data, as: UTF8.self)
    }
}
