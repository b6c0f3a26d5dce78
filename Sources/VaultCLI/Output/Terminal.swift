import ArgumentParser
import Foundation
import Synchronization
import VaultCore

#if canImport(Glibc)
import Glibc
#endif

/// Writing to the terminal: results to stdout, problems to stderr.
///
/// Every write goes through `write(_:to:)`, never `FileHandle.write`, which ends the process
/// when a write fails: a reader that went away (`vault chat … | head`: EPIPE), a full disk
/// (`> /dev/full`: ENOSPC) or a closed terminal must never cost a room its reply.
enum Terminal {
    /// The error (errno) of the first failed write to standard output, 0 while none.
    static let outputError = Atomic<Int32>(0)

    static func error(_ text: String) {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let first = lines.isEmpty ? "" : lines.removeFirst()
        var out = "vault: error: \(first)\n"
        for line in lines { out += "  \(line)\n" }
        write(out, to: 2)
    }

    static func note(_ text: String) {
        write("vault: \(text)\n", to: 2)
    }

    static func warning(_ text: String) {
        write("vault: warning: \(text)\n", to: 2)
    }

    /// Writes without a newline and flushes: used for streamed replies.
    static func stream(_ text: String) {
        write(text, to: 1)
    }

    /// Writes all of `text` to standard output (1) or standard error (2), going on after short
    /// writes and interruptions. A failure ends nothing: once a write to standard output failed,
    /// nothing more is written there (`outputError` says why); a failed write to standard error
    /// is dropped.
    @discardableResult
    static func write(_ text: String, to fd: Int32) -> Bool {
        write(bytes: Array(text.utf8), to: fd)
    }

    /// Like `write(_:to:)`, for bytes as they are (`vault show --raw`, an export).
    @discardableResult
    static func write(bytes: [UInt8], to fd: Int32) -> Bool {
        if fd == 1 {
            guard outputError.load(ordering: .relaxed) == 0 else { return false }
            // What `print` buffered goes first, in order.
            fflush(nil)
        }
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 {
                if fd == 1 { outputError.store(n < 0 ? errno : EIO, ordering: .relaxed) }
                return false
            }
            done += n
        }
        return true
    }

    /// Why standard output could not be written, for a message; nil when it could.
    static var outputProblem: String? {
        let code = outputError.load(ordering: .relaxed)
        return code == 0 ? nil : String(cString: strerror(code))
    }

    /// Why what the command printed did not all reach standard output (a full disk, an I/O
    /// error), after flushing what `print` buffered; nil when it did, or when the reader went
    /// away (EPIPE: `| head` wanted no more).
    static func unwrittenOutput() -> String? {
        if fflush(nil) != 0, errno != EPIPE, outputError.load(ordering: .relaxed) == 0 {
            outputError.store(errno, ordering: .relaxed)
        }
        let code = outputError.load(ordering: .relaxed)
        return code == 0 || code == EPIPE ? nil : String(cString: strerror(code))
    }

    static var stdinIsTerminal: Bool { isatty(0) == 1 }
    static var stdoutIsTerminal: Bool { isatty(1) == 1 }

    /// Pretty, sorted JSON with unescaped slashes and Unicode.
    static func json<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(value)
        write(String(decoding: data, as: UTF8.self) + "\n", to: 1)
    }

    /// Columns of one scalar on a terminal: Hangul, kana, CJK ideographs and emoji take two.
    static func width(_ u: Unicode.Scalar) -> Int {
        let v = u.value
        if v < 0x300 { return 1 }
        if u.properties.generalCategory == .nonspacingMark || v == 0x200D || (0xFE00...0xFE0F).contains(v) { return 0 }
        let wide =
            (0x1100...0x115F).contains(v) || (0x2E80...0xA4CF).contains(v) || (0xAC00...0xD7A3).contains(v)
            || (0xF900...0xFAFF).contains(v) || (0xFF00...0xFF60).contains(v) || (0xFFE0...0xFFE6).contains(v)
            || (0x1F300...0x1FAFF).contains(v) || (0x20000...0x3FFFD).contains(v)
        return wide ? 2 : 1
    }

    static func width(_ s: String) -> Int { s.unicodeScalars.reduce(0) { $0 + width($1) } }

    /// `s` cut to `columns` (ending in `…`) or padded with spaces to exactly `columns`.
    static func fit(_ s: String, _ columns: Int) -> String {
        let total = width(s)
        if total <= columns { return s + String(repeating: " ", count: columns - total) }
        var out = ""
        var used = 0
        for ch in s {
            let w = ch.unicodeScalars.reduce(0) { $0 + width($1) }
            if used + w > columns - 1 { break }
            out.append(ch)
            used += w
        }
        return out + "…" + String(repeating: " ", count: max(0, columns - used - 1))
    }
}

/// Which locale and zone to show dates in: `--locale`/`--time-zone`, else the vault's.
struct ReadingOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Show dates in this locale (e.g. de_DE, ja_JP); default: the vault's.", valueName: "ID"))
    var locale: String?

    @Option(name: .customLong("time-zone"), help: ArgumentHelp("Show times in this zone (e.g. Europe/Berlin); default: the vault's.", valueName: "ZONE"))
    var timeZone: String?

    func resolve(for vault: Vault) throws(VaultError) -> (locale: String, zone: TimeZone) {
        var locale = vault.config.locale
        if let raw = self.locale {
            guard let id = LocaleSetting.normalize(raw), LocaleSetting.isKnown(id) else {
                throw VaultError.invalidArgument("unknown locale '\(raw)' (try ko_KR, ja_JP, de_DE, en_US)")
            }
            locale = id
        }
        var zone = vault.config.timeZone
        if let raw = timeZone {
            guard let z = TimeZone(identifier: raw) else {
                throw VaultError.invalidArgument("unknown time zone '\(raw)' (write an IANA name like Europe/Berlin)")
            }
            zone = z
        }
        return (locale, zone)
    }
}
