import VaultCore

/// The compose box: multi-line text being typed, with its caret.
///
/// Enter sends (the app's doing); Alt-Enter, Shift-Enter (where the terminal tells it) or
/// Ctrl-J insert a line break; a paste is inserted whole, its line breaks kept. Lines wrap at
/// the box's width, by display columns (Hangul and emoji two).
package struct Compose: Sendable, Equatable {
    package private(set) var characters: [Character] = []
    /// The caret: the index of the character it stands before.
    package private(set) var caret = 0

    package init(_ text: String = "") {
        characters = Array(text)
        caret = characters.count
    }

    package var text: String { String(characters) }
    package var isEmpty: Bool { characters.allSatisfy { $0.isWhitespace } }

    package mutating func insert(_ text: String) {
        // Tabs as spaces (a message's text is shown with them so); CR from a terminal as LF.
        let clean = text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
            .replacingOccurrences(of: "\t", with: "    ")
        let new = Array(clean)
        characters.insert(contentsOf: new, at: caret)
        caret += new.count
    }

    package mutating func backspace() {
        guard caret > 0 else { return }
        characters.remove(at: caret - 1)
        caret -= 1
    }

    package mutating func deleteForward() {
        guard caret < characters.count else { return }
        characters.remove(at: caret)
    }

    /// Ctrl-W: the word before the caret.
    package mutating func deleteWord() {
        var start = caret
        while start > 0, characters[start - 1].isWhitespace { start -= 1 }
        while start > 0, !characters[start - 1].isWhitespace { start -= 1 }
        characters.removeSubrange(start..<caret)
        caret = start
    }

    /// Ctrl-U: the line before the caret.
    package mutating func deleteToLineStart() {
        let start = lineStart(caret)
        characters.removeSubrange(start..<caret)
        caret = start
    }

    package mutating func left() { caret = max(0, caret - 1) }
    package mutating func right() { caret = min(characters.count, caret + 1) }
    package mutating func home() { caret = lineStart(caret) }
    package mutating func end() {
        var i = caret
        while i < characters.count, characters[i] != "\n" { i += 1 }
        caret = i
    }

    /// Up a line in the text (false at the first line: the key is the transcript's).
    package mutating func up() -> Bool {
        let start = lineStart(caret)
        guard start > 0 else { return false }
        let column = caret - start
        let previous = lineStart(start - 1)
        caret = min(previous + column, start - 1)
        return true
    }

    package mutating func down() -> Bool {
        var i = caret
        while i < characters.count, characters[i] != "\n" { i += 1 }
        guard i < characters.count else { return false }
        let column = caret - lineStart(caret)
        let next = i + 1
        var lineEnd = next
        while lineEnd < characters.count, characters[lineEnd] != "\n" { lineEnd += 1 }
        caret = min(next + column, lineEnd)
        return true
    }

    package mutating func clear() {
        characters = []
        caret = 0
    }

    private func lineStart(_ index: Int) -> Int {
        var i = index
        while i > 0, characters[i - 1] != "\n" { i -= 1 }
        return i
    }

    /// The text wrapped to `width` columns: the rows' text, and the caret's row and column.
    package func layout(width: Int) -> (rows: [String], caretRow: Int, caretColumn: Int) {
        let width = max(width, 2)
        var rows: [String] = [""]
        var used = 0
        var caretAt = (0, 0)
        for (i, c) in characters.enumerated() {
            if i == caret { caretAt = (rows.count - 1, used) }
            if c == "\n" {
                rows.append("")
                used = 0
                continue
            }
            let w = max(DisplayWidth.of(c), 1)
            if used + w > width {
                rows.append("")
                used = 0
                if i == caret { caretAt = (rows.count - 1, 0) }
            }
            rows[rows.count - 1].append(c)
            used += w
        }
        if caret == characters.count {
            if used >= width {
                rows.append("")
                used = 0
            }
            caretAt = (rows.count - 1, used)
        }
        return (rows, caretAt.0, caretAt.1)
    }
}
