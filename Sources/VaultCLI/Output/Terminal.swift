import ArgumentParser
import Foundation
import VaultCore

#if canImport(Glibc)
import Glibc
#endif

/// Writing to the terminal: results to stdout, problems to stderr. No secret (an API key) is
/// ever written to stderr: every message passes through `Secrets.redact`.
enum Terminal {
    static func error(_ text: String) {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let first = lines.isEmpty ? "" : lines.removeFirst()
        var out = "vault: error: \(first)\n"
        for line in lines { out += "  \(line)\n" }
        FileHandle.standardError.write(Data(Secrets.redact(out).utf8))
    }

    static func note(_ text: String) {
        FileHandle.standardError.write(Data(Secrets.redact("vault: \(text)\n").utf8))
    }

    static func warning(_ text: String) {
        FileHandle.standardError.write(Data(Secrets.redact("vault: warning: \(text)\n").utf8))
    }

    /// Writes without a newline and flushes: used for streamed replies.
    static func stream(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    static var stdinIsTerminal: Bool { isatty(0) == 1 }
    static var stdoutIsTerminal: Bool { isatty(1) == 1 }
    static var stderrIsTerminal: Bool { isatty(2) == 1 }

    /// Pretty, sorted JSON with unescaped slashes and Unicode.
    static func json<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(value)
        FileHandle.standardOutput.write(data)
        FileHandle.standardOutput.write(Data("\n".utf8))
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
