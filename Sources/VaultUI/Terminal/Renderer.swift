/// Turns frames into the bytes that bring the terminal from the last frame to the next: only
/// the cells that changed, each run of them after one cursor move, styles as SGR sequences,
/// the whole update between the synchronized-update marks (`CSI ? 2026 h` … `CSI ? 2026 l`:
/// a terminal that knows them shows the frame at once, one that does not ignores them), so a
/// reply streaming in place never shows half a frame or flickers.
///
/// The first frame, and the first after `invalidate()` (a resize, the editor handed back),
/// clears the screen and draws every cell.
package struct Renderer {
    /// The frame on the terminal; nil: unknown (draw everything).
    private var shown: Canvas?
    /// Color allowed (`NO_COLOR` unset, a terminal that is not `dumb`).
    package let color: Bool

    package init(color: Bool) { self.color = color }

    /// Forgets what is on the terminal: the next frame is drawn whole.
    package mutating func invalidate() { shown = nil }

    /// The bytes that draw `frame`; empty when nothing changed.
    package mutating func update(to frame: Canvas) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(4096)
        let previous = shown.flatMap { $0.rows == frame.rows && $0.columns == frame.columns ? $0 : nil }
        var current = CellStyle.plain
        var changed = previous == nil
        if previous == nil {
            // Reset attributes, clear, home.
            out += Array("\u{1B}[0m\u{1B}[2J\u{1B}[H".utf8)
        }
        var body: [UInt8] = []
        for row in 0..<frame.rows {
            var x = 0
            // Where the terminal's cursor is after the last write on this row (nil: unknown).
            var at: Int?
            while x < frame.columns {
                let cell = frame[row, x]
                if cell.width == 0 {
                    x += 1
                    continue
                }
                let same = previous.map { old in
                    old[row, x] == cell && (cell.width == 1 || (x + 1 < frame.columns && old[row, x + 1] == frame[row, x + 1]))
                } ?? (cell == .blank)
                if same {
                    x += Int(cell.width)
                    continue
                }
                if at != x {
                    body += Array("\u{1B}[\(row + 1);\(x + 1)H".utf8)
                }
                if cell.style != current {
                    body += sgr(cell.style)
                    current = cell.style
                }
                body += Array(String(cell.character).utf8)
                x += Int(cell.width)
                at = x
            }
        }
        if !body.isEmpty { changed = true }
        if current != .plain { body += Array("\u{1B}[0m".utf8) }
        out += body
        let cursorMoved = previous.map { old in !Renderer.sameCursor(old.cursor, frame.cursor) } ?? true
        if changed || cursorMoved {
            if let (row, column) = frame.cursor {
                out += Array("\u{1B}[\(row + 1);\(column + 1)H\u{1B}[?25h".utf8)
            } else {
                out += Array("\u{1B}[?25l".utf8)
            }
        }
        shown = frame
        guard !out.isEmpty else { return [] }
        return Array("\u{1B}[?2026h".utf8) + out + Array("\u{1B}[?2026l".utf8)
    }

    private static func sameCursor(_ a: (row: Int, column: Int)?, _ b: (row: Int, column: Int)?) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case (let a?, let b?): return a.row == b.row && a.column == b.column
        default: return false
        }
    }

    /// The SGR sequence that sets `style` from nothing.
    private func sgr(_ style: CellStyle) -> [UInt8] {
        var codes = ["0"]
        if style.bold { codes.append("1") }
        if style.dim { codes.append("2") }
        if style.underline { codes.append("4") }
        if style.reverse { codes.append("7") }
        if color, let c = style.color { codes.append(c < 8 ? "\(30 + Int(c))" : "\(90 + Int(c) - 8)") }
        return Array("\u{1B}[\(codes.joined(separator: ";"))m".utf8)
    }
}
