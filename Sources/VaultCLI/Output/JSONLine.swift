import ArgumentParser
import Foundation
import Synchronization
import VaultCore
import VaultKit

/// JSON text for `--json` lines, as bytes.
enum JSONLine {
    /// `text` as a JSON string: `"` and `\\` escaped, control characters as `\n`, `\t`, … or
    /// `\u00XX`, and DEL and the C1 controls (U+0080–U+009F) as `\u007f`, `\u0080`, …, which a
    /// terminal showing the output would otherwise obey. `/` is left as it is.
    static func appendString(_ text: String, to out: inout [UInt8]) {
        out.append(0x22)
        var text = text
        text.withUTF8 { bytes in
            var plainFrom = 0
            var i = 0
            func flush(_ upTo: Int) {
                if upTo > plainFrom { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[plainFrom..<upTo])) }
            }
            while i < bytes.count {
                let b = bytes[i]
                var escape: [UInt8]?
                var width = 1
                switch b {
                case 0x22: escape = Array(#"\""#.utf8)
                case 0x5C: escape = Array(#"\\"#.utf8)
                case 0x0A: escape = Array(#"\n"#.utf8)
                case 0x0D: escape = Array(#"\r"#.utf8)
                case 0x09: escape = Array(#"\t"#.utf8)
                case 0x08: escape = Array(#"\b"#.utf8)
                case 0x0C: escape = Array(#"\f"#.utf8)
                case 0x00..<0x20, 0x7F: escape = unicodeEscape(UInt32(b))
                case 0xC2 where i + 1 < bytes.count && (0x80...0x9F).contains(bytes[i + 1]):
                    escape = unicodeEscape(UInt32(bytes[i + 1]))
                    width = 2
                default: break
                }
                if let escape {
                    flush(i)
                    out += escape
                    i += width
                    plainFrom = i
                } else {
                    i += 1
                }
            }
            flush(bytes.count)
        }
        out.append(0x22)
    }

    static func unicodeEscape(_ value: UInt32) -> [UInt8] {
        let hex = Array("0123456789abcdef".utf8)
        return Array(#"\u00"#.utf8) + [hex[Int(value >> 4)], hex[Int(value & 15)]]
    }
}
