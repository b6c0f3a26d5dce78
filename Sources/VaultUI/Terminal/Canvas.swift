import VaultCore

/// How a cell is drawn: a few attributes and one of the terminal's 16 colors.
///
/// Sixteen colors only (the ones every terminal has, and the ones a person's theme sets); with
/// `NO_COLOR` the renderer drops the color and keeps the attributes (bold, dim, reverse), so
/// the selection and the headings still stand out.
package struct CellStyle: Hashable, Sendable {
    package var bold = false
    package var dim = false
    package var reverse = false
    package var underline = false
    /// 0–15: the terminal's palette (1 red, 2 green, 3 yellow, 4 blue, 5 magenta, 6 cyan; +8
    /// bright); nil: the terminal's own foreground.
    package var color: UInt8?

    package init(bold: Bool = false, dim: Bool = false, reverse: Bool = false, underline: Bool = false, color: UInt8? = nil) {
        self.bold = bold
        self.dim = dim
        self.reverse = reverse
        self.underline = underline
        self.color = color
    }

    package static let plain = CellStyle()
    package static let bold = CellStyle(bold: true)
    package static let dim = CellStyle(dim: true)
    package static let selected = CellStyle(reverse: true)
    package static func colored(_ color: UInt8, bold: Bool = false) -> CellStyle { CellStyle(bold: bold, color: color) }
}

/// One cell of the screen: a character and its style. A character two columns wide takes its
/// cell and the next, which holds `continuation`.
package struct Cell: Equatable, Sendable {
    package var character: Character
    package var style: CellStyle
    /// 1, or 2 for a wide character; 0 for the right half of one.
    package var width: UInt8

    package static let blank = Cell(character: " ", style: .plain, width: 1)
    static let continuation = Cell(character: " ", style: .plain, width: 0)
}

/// A frame being drawn: rows × columns of cells, written by the screens each time something
/// changed (immediate mode), then handed to `Renderer`, which sends only the cells that differ
/// from the frame on the terminal.
///
/// Text is put cell by cell with its display width (`DisplayWidth`: Hangul, kana, CJK and emoji
/// two columns, combining marks none), cut at the right edge between characters, never inside
/// one; a wide character that would straddle the edge is left out. Control characters in text
/// (from files, servers, other people) never reach the terminal: each becomes `�`, so no
/// escape sequence in a message can move the cursor or retitle the window.
package struct Canvas: Sendable {
    package let rows: Int
    package let columns: Int
    package private(set) var cells: [Cell]
    /// Where the terminal's cursor is left (the compose line's caret), nil: hidden.
    package var cursor: (row: Int, column: Int)?

    package init(rows: Int, columns: Int) {
        self.rows = max(rows, 1)
        self.columns = max(columns, 1)
        cells = Array(repeating: .blank, count: self.rows * self.columns)
    }

    package subscript(row: Int, column: Int) -> Cell {
        cells[row * columns + column]
    }

    /// Writes `text` from (`row`, `column`), at most `limit` columns (to the right edge when
    /// nil); returns the column after the last one written.
    @discardableResult
    package mutating func put(_ text: String, row: Int, column: Int, style: CellStyle = .plain, limit: Int? = nil)
        -> Int
    {
        guard row >= 0, row < rows, column < columns else { return column }
        let end = min(columns, limit.map { column + max($0, 0) } ?? columns)
        var x = max(column, 0)
        for character in text {
            let shown = Canvas.safe(character)
            let width = DisplayWidth.of(shown)
            if width == 0 {
                // A mark with nothing before it on this line: nothing to attach it to.
                continue
            }
            if x + width > end { break }
            let base = row * columns + x
            // Overwriting half of a wide character blanks its other half.
            if cells[base].width == 0, x > 0 { cells[base - 1] = .blank }
            let last = base + width - 1
            if cells[last].width == 2, last + 1 < cells.count, x + width < columns { cells[last + 1] = .blank }
            cells[base] = Cell(character: shown, style: style, width: UInt8(width))
            if width == 2 { cells[base + 1] = .continuation }
            x += width
        }
        return x
    }

    /// Fills cells of one row with `style` (a selected row's background, a bar).
    package mutating func fill(row: Int, from column: Int = 0, to end: Int? = nil, style: CellStyle) {
        guard row >= 0, row < rows else { return }
        for x in max(column, 0)..<min(end ?? columns, columns) {
            let i = row * columns + x
            cells[i].style = style
        }
    }

    /// A row's text, trailing spaces dropped (what a test or `capture-pane` compares).
    package func text(ofRow row: Int) -> String {
        var line = ""
        for x in 0..<columns where self[row, x].width != 0 { line.append(self[row, x].character) }
        while line.last == " " { line.removeLast() }
        return line
    }

    /// What the frame shows, row by row.
    package var text: String { (0..<rows).map(text(ofRow:)).joined(separator: "\n") }

    /// `character` as it may be drawn: a control character (C0, DEL, C1) or a tab as `�`
    /// (tabs are expanded by the layout before text gets here).
    static func safe(_ character: Character) -> Character {
        for u in character.unicodeScalars {
            let v = u.value
            if v < 0x20 || (0x7F...0x9F).contains(v) || v == 0x2028 || v == 0x2029 || (0x202A...0x202E).contains(v)
                || (0x2066...0x2069).contains(v)
            {
                return "\u{FFFD}"
            }
        }
        return character
    }
}
