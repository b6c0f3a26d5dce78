/// How many columns text takes on a terminal, and text cut or padded to a number of columns.
///
/// Hangul, kana, CJK ideographs and emoji take two columns; combining marks, variation
/// selectors and the joiners inside an emoji sequence take none. Widths are counted per
/// character (grapheme cluster), so a family emoji (`👨‍👩‍👧`), a flag (`🇰🇷`) or a Hangul
/// syllable written as decomposed jamo (as macOS saves it) is two columns, and text is only
/// ever cut between characters, never inside one.
///
///     DisplayWidth.of("부산 trip") == 9
///     DisplayWidth.clip("부산 여행 일정", 8) == "부산 여…"   // 2 + 2 + 1 + 2 columns, then "…"
package enum DisplayWidth {
    /// Columns of one scalar on its own.
    package static func of(_ u: Unicode.Scalar) -> Int {
        let v = u.value
        if v < 0x300 { return 1 }
        if isZeroWidth(u) { return 0 }
        let wide =
            (0x1100...0x115F).contains(v) || (0x2E80...0xA4CF).contains(v) || (0xAC00...0xD7A3).contains(v)
            || (0xF900...0xFAFF).contains(v) || (0xFF00...0xFF60).contains(v) || (0xFFE0...0xFFE6).contains(v)
            || (0x1F300...0x1FAFF).contains(v) || (0x20000...0x3FFFD).contains(v)
        return wide ? 2 : 1
    }

    /// Columns of one character: its first scalar's width, or two for an emoji sequence
    /// (a variation selector 16, a zero-width joiner, a skin tone or a flag's pair).
    package static func of(_ c: Character) -> Int {
        let scalars = c.unicodeScalars
        guard let first = scalars.first else { return 0 }
        if scalars.count == 1 { return of(first) }
        for u in scalars {
            let v = u.value
            if v == 0xFE0F || v == 0x200D || (0x1F3FB...0x1F3FF).contains(v) || (0x1F1E6...0x1F1FF).contains(v) {
                return 2
            }
        }
        // A base and its marks (decomposed `é`, Hangul jamo): the base's width, at least one.
        return max(of(first), 1)
    }

    /// Columns of `text` on one line.
    package static func of(_ text: String) -> Int {
        // Most text is ASCII: one column per byte.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text.utf8.count }
        return text.reduce(0) { $0 + of($1) }
    }

    /// `text` cut to at most `columns` columns, ending in `…` when something was cut; whole
    /// characters only. Not padded.
    package static func clip(_ text: String, _ columns: Int) -> String {
        guard of(text) > columns else { return text }
        guard columns > 0 else { return "" }
        var out = ""
        var used = 0
        for c in text {
            let w = of(c)
            if used + w > columns - 1 { break }
            out.append(c)
            used += w
        }
        return out + "…"
    }

    /// `text` cut to `columns` (ending in `…`) or padded with spaces to exactly `columns`.
    package static func fit(_ text: String, _ columns: Int) -> String {
        let cut = clip(text, columns)
        return cut + String(repeating: " ", count: max(0, columns - of(cut)))
    }

    /// `text` centred in `columns` (spaces on the left; the extra one, if any, on the right).
    package static func centre(_ text: String, _ columns: Int) -> String {
        let cut = clip(text, columns)
        let left = (columns - of(cut)) / 2
        return String(repeating: " ", count: left) + cut
    }

    private static func isZeroWidth(_ u: Unicode.Scalar) -> Bool {
        let v = u.value
        if v == 0x200B || v == 0x200C || v == 0x200D || v == 0x2060 || (0xFE00...0xFE0F).contains(v) { return true }
        // Hangul medial vowels and final consonants join the initial before them.
        if (0x1160...0x11FF).contains(v) || (0xD7B0...0xD7FF).contains(v) { return true }
        switch u.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return true
        default: return false
        }
    }
}
