import ArgumentParser
import Foundation
import Synchronization
import VaultCore

#if canImport(Glibc)
import Glibc
#endif

/// `print` for everything the commands show: the text with its control characters made
/// visible (`Terminal.visible`), so a title, a message or a commit summary holding escape
/// sequences cannot move the cursor, clear the screen or retitle the terminal. It shadows the
/// standard library's `print` in this module, so every command's output goes through it.
func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    let text = items.map { "\($0)" }.joined(separator: separator)
    Swift.print(Terminal.visible(text), terminator: terminator)
}

/// Writing to the terminal: results to stdout, problems to stderr. No secret (an API key) is
/// ever written to stderr: every message passes through `Secrets.redact`.
///
/// Everything written here, as everything `print`ed, has its control characters made visible
/// (`visible`): text from files, commit messages and servers is never sent raw to a terminal.
/// Only `--raw` and exports written to a pipe or a file pass bytes through unchanged
/// (`document`); to a terminal they are made visible too.
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
        standardError(out)
    }

    static func note(_ text: String) {
        standardError("vault: \(text)\n")
    }

    static func warning(_ text: String) {
        standardError("vault: warning: \(text)\n")
    }

    /// A library's note (`Note`), as `note` or `warning` prints it.
    @Sendable static func print(_ note: Note) {
        switch note.kind {
        case .note: Terminal.note(note.text)
        case .warning: Terminal.warning(note.text)
        }
    }

    /// Writes `text` (secrets redacted, control characters made visible) to standard error.
    static func standardError(_ text: String) {
        write(visible(Secrets.redact(text)), to: 2)
    }

    /// Writes without a newline and flushes: used for streamed replies. A carriage return at the
    /// end of a piece is kept (the line feed of a CRLF may come with the next piece).
    static func stream(_ text: String) {
        write(visible(text, carriageReturnAtEnd: true), to: 1)
    }

    /// Writes a file's bytes (`show --raw`, an export) to standard output: unchanged to a pipe or
    /// a file, with control characters made visible to a terminal.
    static func document(_ bytes: Data) {
        if stdoutIsTerminal, let text = String(data: bytes, encoding: .utf8) {
            write(visible(text), to: 1)
        } else {
            write(bytes: Array(bytes), to: 1)
        }
    }

    /// Whether `bytes` (UTF-8) hold nothing `visible(_:singleLine: true)` would change: no C0 or
    /// C1 control character, no DEL. Eight bytes at a time: a word with a byte below 0x20, a DEL or a C2 (a C1 control's lead
    /// byte, or `·`, `©`, …) is looked at byte by byte.
    static func isPlainLine(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let n = bytes.count
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        /// The lanes of `x` that are zero (and maybe some above one that is: never none).
        func zeroLanes(_ x: UInt64) -> UInt64 { (x &- ones) & ~x & highs }
        func plain(_ from: Int, _ to: Int) -> Bool {
            var previous: UInt8 = from > 0 ? bytes[from - 1] : 0
            for i in from..<to {
                let byte = bytes[i]
                if byte < 0x20 || byte == 0x7F || (previous == 0xC2 && byte >= 0x80 && byte <= 0x9F) { return false }
                previous = byte
            }
            return true
        }
        var i = 0
        while i + 8 <= n {
            let x = bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            let below = (x &- ones &* 0x20) & ~x & highs
            if below | zeroLanes(x ^ (ones &* 0x7F)) | zeroLanes(x ^ (ones &* 0xC2)) != 0 {
                // The next word's first byte may follow a C2 here.
                if !plain(i, min(i + 9, n)) { return false }
            }
            i += 8
        }
        return plain(i, n)
    }

    /// `text` with every control character except line feeds and tabs (and a carriage return
    /// before a line feed) written as `cat -v` does: ESC as `^[`, BEL as `^G`, DEL as `^?`, and
    /// the C1 controls (U+0080–U+009F, which some terminals obey like ESC sequences) as `M-^[`
    /// and the like. With `singleLine`, line feeds, tabs and carriage returns are shown too
    /// (a title in a column stays on its line).
    ///
    ///     Terminal.visible("\u{1B}]0;pwned\u{7}Trip") == "^[]0;pwned^GTrip"
    static func visible(_ text: String, singleLine: Bool = false, carriageReturnAtEnd: Bool = false) -> String {
        // Nearly all text has none: one pass over its bytes, no copy.
        var copy = text
        let needed = copy.withUTF8 { bytes -> Bool in
            var previous: UInt8 = 0
            for byte in bytes {
                if byte < 0x20 || byte == 0x7F || (previous == 0xC2 && byte >= 0x80 && byte <= 0x9F) {
                    if singleLine || (byte != 0x0A && byte != 0x09 && byte != 0x0D) || byte == 0x0D { return true }
                }
                previous = byte
            }
            return false
        }
        guard needed else { return text }
        let scalars = Array(text.unicodeScalars)
        var out = String.UnicodeScalarView()
        for (i, u) in scalars.enumerated() {
            let v = u.value
            let kept: Bool
            switch v {
            case 0x0A, 0x09: kept = !singleLine
            case 0x0D:
                kept = !singleLine && (i + 1 < scalars.count ? scalars[i + 1] == "\n" : carriageReturnAtEnd)
            default: kept = !(v < 0x20 || v == 0x7F || (0x80...0x9F).contains(v))
            }
            if kept {
                out.append(u)
            } else {
                let low = v & 0x7F
                if v >= 0x80 { out.append(contentsOf: "M-".unicodeScalars) }
                out.append("^")
                out.append(Unicode.Scalar(low == 0x7F ? 0x3F : low + 0x40)!)
            }
        }
        return String(out)

    }

    /// Keeps `value` alive until the process ends: a command's last large values (20,000 rows)
    /// are not freed one by one just before `_exit` takes all the memory back at once.
    /// Called on the command's own thread only.
    /// How much output a listing into a pipe gathers before writing it (`writeChunk`): its memory
    /// does not grow with the vault, and a reader (`head`) has its first rows at once.
    static let pipedChunk = 1 << 20

    /// Writes `out` to standard output and empties it, once it holds `pipedChunk` bytes or more.
    static func writeChunk(_ out: inout [UInt8]) {
        guard out.count >= pipedChunk else { return }
        _ = write(bytes: out, to: 1)
        out.removeAll(keepingCapacity: true)
    }

    static func keepUntilExit(_ value: Any) {
        kept.append(value)
    }

    nonisolated(unsafe) private static var kept: [Any] = []

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
    /// Whether what the command prints goes to a terminal: also while it is held for the pager
    /// (`Pager`), which keeps the terminal as `terminalOutput`.
    static var stdoutIsTerminal: Bool { isatty(terminalOutput.load(ordering: .relaxed)) == 1 }
    /// The descriptor the terminal is on: 1, or a copy of it while `Pager` holds the output.
    static let terminalOutput = Atomic<Int32>(1)
    static var stderrIsTerminal: Bool { isatty(2) == 1 }

    /// Pretty, sorted JSON with unescaped slashes and Unicode. Control characters are escaped
    /// (`\u001b`): JSON's encoder escapes C0 ones, and DEL and the C1 ones (which some terminals
    /// obey like escape sequences) are escaped here too; they occur only inside strings.
    static func json<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(value)
        write(escapingC1(String(decoding: data, as: UTF8.self)) + "\n", to: 1)
    }

    /// JSON text with DEL and the C1 controls escaped (`\u007f`, `\u009b`): JSON's encoder
    /// escapes only C0 ones, and some terminals obey C1 ones like escape sequences. They occur
    /// only inside strings.
    static func escapingC1(_ json: String) -> String {
        guard json.utf8.contains(where: { $0 == 0x7F || $0 == 0xC2 }) else { return json }
        var out: [UInt8] = []
        out.reserveCapacity(json.utf8.count + 8)
        var previous: UInt8 = 0
        for byte in json.utf8 {
            if byte == 0x7F {
                out += Array("\\u007f".utf8)
            } else if previous == 0xC2, (0x80...0x9F).contains(byte) {
                out.removeLast()
                out += Array(String(format: "\\u%04x", Int(byte)).utf8)
            } else {
                out.append(byte)
            }
            previous = byte
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Columns of one scalar on a terminal: Hangul, kana, CJK ideographs and emoji take two
    /// (`DisplayWidth`).
    static func width(_ u: Unicode.Scalar) -> Int { DisplayWidth.of(u) }

    /// Columns of `s` on a terminal, counted per character (`DisplayWidth`).
    static func width(_ s: String) -> Int { DisplayWidth.of(s) }

    /// `s` on one line (control characters, line feeds and tabs made visible) cut to `columns`
    /// (ending in `…`) or padded with spaces to exactly `columns`; never cut inside a character.
    static func fit(_ text: String, _ columns: Int) -> String {
        DisplayWidth.fit(visible(text, singleLine: true), columns)
    }

    /// `text` on one line cut to `columns` when given (ending in `…`), not padded: the last
    /// column of a listing, fitted to the terminal's width.
    static func clip(_ text: String, _ columns: Int?) -> String {
        let s = visible(text, singleLine: true)
        guard let columns else { return s }
        return DisplayWidth.clip(s, max(columns, 1))
    }

    /// The terminal's width in columns: `COLUMNS` when set, else the width of the terminal
    /// standard output is, else nil (into a pipe or a file, lines are not cut).
    static var columns: Int? {
        if let text = ProcessInfo.processInfo.environment["COLUMNS"], let n = Int(text), n > 0 { return n }
        guard stdoutIsTerminal else { return nil }
        var size = winsize()
        let fd = terminalOutput.load(ordering: .relaxed)
        guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }
}

/// Which locale and zone to show dates in: `--locale`/`--time-zone`, else the vault's.
struct ReadingOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Show dates in this locale (e.g. de_DE, ja_JP); default: the vault's.", valueName: "ID"))
    var locale: String?

    @Option(
        name: .customLong("time-zone"),
        help: ArgumentHelp("Show times in this zone (e.g. Europe/Berlin); default: the vault's.", valueName: "ZONE"))
    var timeZone: String?

    /// The locale and zone to show dates in: `--locale`, else the user configuration's `locale`
    /// (`UserConfig`), else the vault's; `--time-zone`, else the vault's.
    func resolve(for vault: Vault) throws -> (locale: String, zone: TimeZone) {
        var locale = vault.config.locale
        if self.locale == nil, let mine = try UserConfig.load(environment: ProcessInfo.processInfo.environment).locale {
            locale = mine
        }
        if let raw = self.locale {
            guard let id = LocaleSetting.normalize(raw), LocaleSetting.isKnown(id) else {
                throw UsageError.unknownLocale(raw)
            }
            locale = id
        }
        var zone = vault.config.timeZone
        if let raw = timeZone {
            guard let z = TimeZone(identifier: raw) else {
                throw UsageError.unknownTimeZone(raw, example: "Europe/Berlin")
            }
            zone = z
        }
        return (locale, zone)
    }
}
