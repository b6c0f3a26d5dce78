import Foundation
import VaultCore

/// Text as search compares it: Unicode NFC, and for a case-insensitive search, case folded
/// (Unicode full case folding: `Straße` and `STRASSE` alike, `ς` as `σ`, `K` (Kelvin) as `k`).
///
/// Both the query and the files go through the same functions, so the scan and the index agree.
package enum SearchText {
    /// `text` in NFC, case folded when `folding`.
    package static func key(_ text: String, folding: Bool) -> String {
        let nfc = nfc(text)
        return folding ? fold(nfc) : nfc
    }

    /// `text` in NFC (`String.nfc`, streamed through once).
    static func nfc(_ text: String) -> String { text.nfc }

    /// Full case folding, code point by code point (context-free, as Unicode's CaseFolding.txt).
    package static func fold(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text.lowercased() }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars { appendFolded(scalar, to: &out) }
        return String(out)
    }

    static func appendFolded(_ scalar: Unicode.Scalar, to out: inout String.UnicodeScalarView) {
        let v = scalar.value
        if v < 0x80 {
            out.append(v >= 0x41 && v <= 0x5A ? Unicode.Scalar(v + 32)! : scalar)
        } else if !SearchTables.cased.contains(v >> 6) {
            out.append(scalar)
        } else if let special = SearchTables.foldExceptions[v] {
            // One scalar at a time: `append(contentsOf:)` of another string's scalars copies
            // the whole text appended to, which made folding a long line quadratic.
            for s in special.unicodeScalars { out.append(s) }
        } else {
            for s in scalar.properties.lowercaseMapping.unicodeScalars { out.append(s) }
        }
    }

    /// Whether `scalar` can make a text not NFC (see `SearchTables.unstable`).
    static func isUnstable(_ v: UInt32) -> Bool {
        if v < 0x300 { return false }
        if v < 0x30000 { return unstableLow[Int(v >> 6)] & (1 << UInt64(v & 63)) != 0 }
        guard let mask = SearchTables.unstable[v >> 6] else { return false }
        return mask & (1 << UInt64(v & 63)) != 0
    }

    /// `SearchTables.unstable` for the first three planes (U+0000–U+2FFFF: every script, the
    /// emoji and the CJK compatibility ideographs) as a flat array of 3,072 masks.
    static let unstableLow: [UInt64] = {
        var table = [UInt64](repeating: 0, count: 3072)
        for (block, mask) in SearchTables.unstable where block < 3072 { table[Int(block)] = mask }
        return table
    }()

    /// Code points above ASCII whose case folding holds an ASCII letter (`ß` → `ss`, `K` → `k`).
    static func foldsToASCII(_ cp: UInt32) -> Bool {
        // A switch, not a `Set`: the survey asks for many code points of every piece.
        switch cp {
        case 0xDF, 0x130, 0x149, 0x17F, 0x1F0, 0x1E96...0x1E9A, 0x1E9E, 0x212A, 0xFB00...0xFB06: return true
        default: return false
        }
    }

    /// Scalars that case folding can produce from another scalar: a needle without any of them
    /// is found the same whether case is ignored or not.
    static let foldImages: Set<UInt32> = {
        var images = Set<UInt32>()
        for block in SearchTables.cased {
            for v in (block << 6)..<((block + 1) << 6) {
                guard let scalar = Unicode.Scalar(v) else { continue }
                var folded = String.UnicodeScalarView()
                appendFolded(scalar, to: &folded)
                if folded.count != 1 || folded.first != scalar { for f in folded { images.insert(f.value) } }
            }
        }
        for v in UInt32(0x41)...0x5A { images.insert(v); images.insert(v + 32) }
        return images
    }()

    /// `SearchTables.cased` for the Basic Multilingual Plane as a flat array of 1,024 flags.
    static let casedBMP: [Bool] = {
        var table = [Bool](repeating: false, count: 1024)
        for block in SearchTables.cased where block < 1024 { table[Int(block)] = true }
        return table
    }()
}
