import Foundation

/// What the readers and writers of the file format must hold for any input at all: the
/// properties the fuzzer checks (`Fuzz/`, `scripts/fuzz.sh`) and the test suite runs over a
/// seed corpus. Each returns the properties broken (empty: all hold); none may crash.
///
///     FormatInvariants.room(Array(text.utf8))   // [] for every text, readable or not
package enum FormatInvariants {
    static let fixedTime = Timestamp(rfc3339: "2026-11-21T09:31:07+09:00")!

    /// A room file's reader, on any bytes: a room it reads keeps its bytes exactly, has its
    /// messages in order, takes an appended message and reads it back, and its front-matter
    /// agrees with YAML; a room it refuses is refused with problems that name real lines.
    package static func room(_ bytes: [UInt8]) -> [String] {
        var broken: [String] = []
        let path = "rooms/fuzz.md"
        let problems = RoomFile.problems(in: bytes, path: path)
        broken += linesExist(problems, in: bytes)
        do {
            let room = try RoomFile(parsing: bytes, path: path)
            if room.bytes != bytes { broken.append("a room read does not keep its bytes") }
            // A front-matter without its opening `---` is read on purpose, and reported.
            if problems.contains(where: { $0.severity == .error && $0.kind != .noOpeningFrontMatter }) {
                broken.append("a room read has errors: \(problems)")
            }
            let lines = room.messages.map(\.line)
            if lines != lines.sorted() || Set(lines).count != lines.count || lines.contains(where: { $0 < 1 }) {
                broken.append("messages out of order: lines \(lines)")
            }
            if let fm = room.frontMatter { broken += agreesWithYAML(fm, bytes) }
            broken += takesAMessage(room)
        } catch .malformed(let list) {
            if list.isEmpty { broken.append("a room refused with no problem named") }
            if !problems.contains(where: { $0.severity == .error }) {
                broken.append("refused, yet problems(in:) finds no error")
            }
        } catch {
            broken.append("a room refused with \(error), not a list of problems")
        }
        return broken
    }

    /// A diary entry's reader, on any bytes: an entry it reads keeps its bytes and its
    /// front-matter agrees with YAML; an entry it refuses names real lines.
    package static func diaryEntry(_ bytes: [UInt8]) -> [String] {
        var broken: [String] = []
        let problems = DiaryFile.problems(in: bytes, path: "diary/2026/2026-11-21-fuzz.md")
        broken += linesExist(problems, in: bytes)
        do {
            let entry = try DiaryFile(parsing: bytes, path: "diary/2026/2026-11-21-fuzz.md")
            if entry.bytes != bytes { broken.append("an entry read does not keep its bytes") }
            if let fm = entry.frontMatter { broken += agreesWithYAML(fm, bytes) }
            _ = (entry.title, entry.tags, entry.body, entry.day, entry.firstLine)
        } catch .malformed(let list) {
            if list.isEmpty { broken.append("an entry refused with no problem named") }
        } catch {
            broken.append("an entry refused with \(error), not a list of problems")
        }
        return broken
    }

    /// The room writer's escaping: a new room with this title, a message with this body, and a
    /// setting with this value, in a room with LF or CRLF line ends, read back exactly.
    package static func roomWriter(title: String, body: String, value: String, crlf: Bool) -> [String] {
        var broken: [String] = []
        var bytes = RoomFile.newRoom(title: title, created: fixedTime, settings: [("model", .string(value))])
        if crlf {
            bytes = Array(String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "\n", with: "\r\n").utf8)
        }
        let room: RoomFile
        do {
            room = try RoomFile(parsing: bytes, path: "rooms/fuzz.md")
        } catch {
            return ["a new room with title \(title.debugDescription) does not read: \(error)"]
        }
        // What the writer wrote is YAML, read as YAML reads it (other tools read these files too).
        if let fm = room.frontMatter { broken += agreesWithYAML(fm, bytes) }
        if room.frontMatter?.string("title") != title {
            broken.append(
                "title \(title.debugDescription) reads back as "
                    + String(describing: room.frontMatter?.string("title")).debugDescription
            )
        }
        if room.frontMatter?.string("model") != value {
            broken.append(
                "value \(value.debugDescription) reads back as "
                    + String(describing: room.frontMatter?.string("model")).debugDescription
            )
        }
        let appended = room.appending([MessageDraft(role: .user, body: body, timestamp: fixedTime)]) { _ in "d" }
        do {
            let again = try RoomFile(parsing: appended.bytes, path: "rooms/fuzz.md")
            if again.messages.map(\.body) != [body] {
                broken.append(
                    "body \(body.debugDescription) reads back as \(again.messages.map(\.body).debugDescription)")
            }
            if again.frontMatter?.string("title") != title {
                broken.append("the title changed when a message was appended")
            }
        } catch {
            broken.append("a room with the body \(body.debugDescription) does not read: \(error)")
        }
        do {
            let set = try room.setting("model", to: .string(body))
            let again = try RoomFile(parsing: set, path: "rooms/fuzz.md")
            if again.frontMatter?.string("model") != body {
                broken.append("setting \(body.debugDescription) reads back otherwise")
            }
        } catch VaultError.input {
            // The editor refuses values it cannot write safely: allowed, nothing was written.
        } catch {
            broken.append("setting \(body.debugDescription) failed: \(error)")
        }
        return broken
    }

    /// Problems name lines the file has (1 to its line count, or one past the end).
    static func linesExist(_ problems: [FormatProblem], in bytes: [UInt8]) -> [String] {
        let lines = bytes.reduce(1) { $0 + ($1 == 10 ? 1 : 0) }
        return problems.filter { $0.line < 1 || $0.line > lines + 1 }.map {
            "\($0.description) names line \($0.line) of \(lines)"
        }
    }

    /// The front-matter's values are YAML's: what the fast reader took, Yams reads alike.
    static func agreesWithYAML(_ fm: FrontMatter, _ bytes: [UInt8]) -> [String] {
        let block = Array(bytes[fm.range])
        // The YAML between the delimiter lines (the first ends at the first line feed); from
        // the block's start when the opening line is missing.
        let closing = fm.closingLineStart - fm.range.lowerBound
        let keys: Int
        if fm.lacksOpening {
            keys = 0
        } else {
            guard let newline = block.firstIndex(of: 10), newline < closing else {
                return ["the front-matter's closing line is not after its opening line"]
            }
            keys = newline + 1
        }
        guard keys <= closing, closing <= block.count else {
            return ["the front-matter's closing line is not after its opening line"]
        }
        let inner = String(decoding: block[keys..<closing], as: UTF8.self)
        // The block was read, so if YAML refuses it, the fast reader took what YAML does not.
        guard let yams = try? YAMLReader.values(inner) else {
            return ["the front-matter was read, but YAML refuses it"]
        }
        // Yams drops a byte-order mark at the start of a value (`"\uFEFF…"`: it makes its strings
        // with Foundation, which drops one), where YAML and vault keep it: not a difference.
        func kept(_ value: FrontMatterValue?) -> FrontMatterValue? {
            guard case .string(let text)? = value, text.unicodeScalars.first == "\u{FEFF}" else { return value }
            return .string(String(text.unicodeScalars.dropFirst()))
        }
        let ours = fm.values.mapValues { kept($0)! }
        if yams != ours {
            let keys = Set(yams.keys).union(ours.keys).filter { yams[$0] != ours[$0] }.sorted()
            return keys.map {
                "front-matter key \($0.debugDescription): read \(String(describing: fm.values[$0])), "
                    + "YAML says \(String(describing: yams[$0]))"
            }
        }
        return []
    }

    /// A room takes a message at its end: bytes before the marker stay, and it reads back.
    static func takesAMessage(_ room: RoomFile) -> [String] {
        let body = "fuzz ✓ \u{1F916}"
        let appended = room.appending([MessageDraft(role: .user, body: body, timestamp: fixedTime)]) { _ in "d" }
        if let cut = room.promptMarkerOffset, Array(appended.bytes.prefix(cut)) != Array(room.bytes.prefix(cut)) {
            return ["appending changed bytes before the prompt marker"]
        }
        do {
            let again = try RoomFile(parsing: appended.bytes, path: room.path)
            if again.messages.map(\.body) != room.messages.map(\.body) + [body] {
                return ["an appended message does not read back: \(again.messages.map(\.body).suffix(2))"]
            }
        } catch {
            // A room whose pending text cannot stand before a header is refused by the turn too.
            if room.pendingText == nil { return ["a room with a message appended does not read: \(error)"] }
        }
        return []
    }
}
