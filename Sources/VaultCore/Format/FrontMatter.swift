import Yams

// libyaml, as Yams bundles it: its events let the aliases of a block be counted before Yams
// composes (and anyone walks) the nodes they repeat. Yams has no such limit of its own.
internal import CYaml

/// The YAML block at the top of a room or diary file, kept as the person wrote it.
///
/// `FrontMatter` never re-emits YAML. It indexes the top-level keys by byte
/// range so that one key can be changed by rewriting only that key's lines,
/// and it reads values *as written*: `no` stays the string `no`, and
/// `2026-11-21T09:30:00+09:00` stays a string for `Timestamp` to parse.
///
/// Simple front-matter (the kind the tool writes and most people type:
/// `key: scalar`, quoted strings, `|` blocks, flow and block lists of
/// scalars) is read by a small line reader that accepts only a safe subset
/// of YAML. Anything outside that subset is handed to Yams, which then
/// validates the whole block and supplies every value.
public struct FrontMatter: Sendable {
    /// One top-level key and the bytes of its lines.
    public struct Entry: Sendable {
        package let key: String
        /// 1-based line of the key.
        package let line: Int
        /// Bytes of the key's line and its indented continuation lines, line endings included.
        let range: Range<Int>
    }

    /// Byte range of the whole block, delimiter lines included (after a BOM, if any).
    let range: Range<Int>
    /// The block lost its opening `---` line: its keys start the file and a `---` line ends
    /// them (`parseWithoutOpening`). Read, so the file can be shown and listed; reported by
    /// `vault check`, and never rewritten (`FrontMatterEditor` refuses).
    public let lacksOpening: Bool
    /// Start of the closing delimiter line.
    let closingLineStart: Int
    public let entries: [Entry]
    /// Values of the keys, read as written.
    public let values: [String: FrontMatterValue]

    public subscript(key: String) -> FrontMatterValue? { values[key] }

    /// The value of `key` as one string, when it is a scalar.
    public func string(_ key: String) -> String? {
        if case .string(let s)? = values[key] { return s }
        return nil
    }

    /// The value of `key` as a list of strings: a list, or a single scalar as a list of one.
    public func strings(_ key: String) -> [String] {
        switch values[key] {
        case .list(let items)?: return items
        case .string(let s)?: return s.isEmpty ? [] : [s]
        default: return []
        }
    }

    /// The time of `key` (`created`, `updated`) in any form people write
    /// (`Timestamp(frontMatter:)`), kept as written.
    ///
    /// - Returns: nil when the key is missing or has no value (Obsidian writes `created:` for
    ///   a property left empty).
    /// - Throws: the problem, at the key's line, when the value is not a date or a time.
    public func time(_ key: String, path: String) throws(FormatProblem) -> Timestamp? {
        guard let value = values[key] else { return nil }
        if case .string(let s) = value {
            if s.allSatisfy({ $0 == " " || $0 == "\t" }) { return nil }
            if let t = Timestamp(frontMatter: s) { return t }
        }
        let line = entries.first { $0.key == key }?.line ?? 1
        let text: String
        switch value {
        case .string(let s): text = s
        case .list(let items): text = "[" + items.joined(separator: ", ") + "]"
        case .other(let yaml): text = yaml
        }
        throw FormatProblem(path: path, line: line, kind: .invalidDate(key: key, value: text))
    }

    /// Reads the front-matter that starts at `start` (after a BOM), if the file has one.
    ///
    /// - Returns: `nil` when the file does not start with `---`.
    /// - Throws: the problems that make the block unreadable.
    static func parse(
        _ b: UnsafeBufferPointer<UInt8>, from start: Int, path: String, firstLine: Int = 1
    ) throws(FormatProblemList) -> FrontMatter? {
        let firstNL = b.firstNewline(from: start)
        let firstEnd = b.trimmedEnd(start, firstNL ?? b.count)
        guard firstEnd - start == 3, b.hasPrefix("---", at: start, end: firstEnd) else { return nil }
        guard let firstNL else {
            throw FormatProblemList([FormatProblem(path: path, line: firstLine, kind: .unclosedFrontMatter)])
        }
        return try parse(b, from: start, keysFrom: firstNL + 1, path: path, firstLine: firstLine)
    }

    /// Reads a front-matter that lost its opening `---`: the file starts with a `key: value`
    /// line, and a `---` line closes the block, which holds `id` or `created` (keys vault
    /// writes: a diary entry that starts with "Mood: good" is not taken for front-matter).
    ///
    /// - Returns: nil unless all of that holds and the block reads without a problem.
    static func parseWithoutOpening(_ b: UnsafeBufferPointer<UInt8>, from start: Int, path: String) -> FrontMatter? {
        guard start < b.count else { return nil }
        let firstNL = b.firstNewline(from: start)
        let firstEnd = b.trimmedEnd(start, b.contentEnd(lineStart: start, newline: firstNL))
        guard firstEnd > start, FastYAML.key(b, start, firstEnd) != nil else { return nil }
        guard let fm = try? parse(b, from: start, keysFrom: start, path: path, firstLine: 1),
            fm.values["id"] != nil || fm.values["created"] != nil
        else { return nil }
        return fm
    }

    /// Reads the keys from `keysFrom` (the line after the opening `---`, or `start` when the
    /// opening is missing) to the closing `---` or `...` line.
    private static func parse(
        _ b: UnsafeBufferPointer<UInt8>, from start: Int, keysFrom: Int, path: String, firstLine: Int
    ) throws(FormatProblemList) -> FrontMatter {
        let lacksOpening = keysFrom == start
        var problems: [FormatProblem] = []
        var entries: [Entry] = []
        // The line number of the block's first key.
        let keysLine = lacksOpening ? firstLine : firstLine + 1
        var lineNumber = keysLine
        var i = keysFrom
        var closing: Int?
        var blockEnd = b.count
        var needsYAML = false
        var fastValues: [String: FrontMatterValue] = [:]
        var seen: [String: Int] = [:]
        // The current entry: key, its line, start, end of its last non-blank line
        // (so blank lines after a key are not part of it), and its lines.
        var current: (key: String, line: Int, start: Int, end: Int, lines: [Range<Int>])?

        func finish() {
            guard let c = current else { return }
            entries.append(Entry(key: c.key, line: c.line, range: c.start..<c.end))
            if !needsYAML {
                if let v = FastYAML.value(b, lines: c.lines) { fastValues[c.key] = v } else { needsYAML = true }
            }
            current = nil
        }

        while i < b.count {
            let nl = b.firstNewline(from: i)
            let lineEnd = nl.map { $0 + 1 } ?? b.count
            let contentEnd = b.contentEnd(lineStart: i, newline: nl)
            let trimmed = b.trimmedEnd(i, contentEnd)
            if trimmed - i == 3, b.hasPrefix("---", at: i, end: trimmed) || b.hasPrefix("...", at: i, end: trimmed) {
                closing = i
                blockEnd = lineEnd
                break
            }
            let c = trimmed > i ? b[i] : 0
            if trimmed == i || c == 32 || c == 9 {
                // Blank or indented: belongs to the current key (blank lines only if more follows).
                if var cur = current {
                    if trimmed > i {
                        cur.end = lineEnd
                    }
                    cur.lines.append(i..<contentEnd)
                    current = cur
                } else if trimmed > i {
                    needsYAML = true
                }
            } else if c == UInt8(ascii: "#") {
                finish()
            } else if let key = FastYAML.key(b, i, trimmed) {
                finish()
                if let first = seen[key] {
                    problems.append(
                        FormatProblem(path: path, line: lineNumber, kind: .duplicateKey(key, firstLine: first)))
                } else {
                    seen[key] = lineNumber
                }
                current = (key, lineNumber, i, lineEnd, [i..<contentEnd])
            } else {
                finish()
                needsYAML = true
            }
            lineNumber += 1
            i = lineEnd
        }
        guard let closingStart = closing else {
            throw FormatProblemList([FormatProblem(path: path, line: firstLine, kind: .unclosedFrontMatter)])
        }
        finish()
        if !needsYAML, FastYAML.needsYAML(b, keysFrom..<closingStart) { needsYAML = true }
        var values = fastValues
        if needsYAML {
            let text = b.string(keysFrom..<closingStart)
            do {
                values = try YAMLReader.values(text)
            } catch let failure as YAMLReader.Failure {
                switch failure {
                case .notMapping:
                    problems.append(FormatProblem(path: path, line: firstLine, kind: .frontMatterNotMapping))
                case .syntax(let message, let line):
                    problems.append(FormatProblem(path: path, line: keysLine - 1 + line, kind: .invalidYAML(message)))
                }
            } catch {
                problems.append(FormatProblem(path: path, line: firstLine, kind: .invalidYAML("\(error)")))
            }
        }
        if !problems.isEmpty { throw FormatProblemList(problems) }
        return FrontMatter(
            range: start..<blockEnd, lacksOpening: lacksOpening, closingLineStart: closingStart, entries: entries,
            values: values)
    }
}

/// A front-matter value as the person wrote it.
public enum FrontMatterValue: Sendable, Hashable {
    case string(String)
    case list([String])
    /// A mapping or anything else that is not a scalar or a list of scalars, as YAML text.
    case other(String)
}

/// A list of problems, thrown by the parsers.
package struct FormatProblemList: Error, Sendable {
    package var problems: [FormatProblem]
    package init(_ problems: [FormatProblem]) { self.problems = problems }
}

/// Values through Yams, for front-matter outside the fast subset.
enum YAMLReader {
    enum Failure: Error {
        case notMapping
        case syntax(String, line: Int)
    }

    static func values(_ text: String) throws -> [String: FrontMatterValue] {
        var out: [String: FrontMatterValue] = [:]
        for (key, v) in try pairs(text) { out[key] = value(v) }
        return out
    }

    /// The top-level mapping's keys and value nodes, in order.
    ///
    /// Composed with Yams' basic resolver: values are read as the person wrote them
    /// (`no` stays "no", a timestamp stays text), and the default resolver's regular
    /// expressions are never compiled.
    static func pairs(_ text: String) throws -> [(key: String, value: Node)] {
        do {
            return try composedPairs(text)
        } catch Failure.syntax(let message, let line) {
            throw Failure.syntax(message, line: lineFeedLine(ofYAMLLine: line, in: text))
        }
    }

    /// The line, counting line feeds only (as editors and vault count them), on which YAML's
    /// line `yamlLine` starts; YAML counts a carriage return alone, NEL, LS and PS as line
    /// breaks too (a file with lone carriage returns had its YAML errors reported on lines it
    /// does not have: found by fuzzing). Both 1-based, within `text`.
    static func lineFeedLine(ofYAMLLine yamlLine: Int, in text: String) -> Int {
        let b = Array(text.utf8)
        var (yaml, feeds, i) = (1, 1, 0)
        while yaml < yamlLine, i < b.count {
            let next = i + 1 < b.count ? b[i + 1] : 0
            let third = i + 2 < b.count ? b[i + 2] : 0
            if b[i] == 0x0A {
                (yaml, feeds, i) = (yaml + 1, feeds + 1, i + 1)
            } else if b[i] == 0x0D {
                (yaml, feeds, i) = next == 0x0A ? (yaml + 1, feeds + 1, i + 2) : (yaml + 1, feeds, i + 1)
            } else if b[i] == 0xC2 && next == 0x85 {
                (yaml, i) = (yaml + 1, i + 2)
            } else if b[i] == 0xE2 && next == 0x80 && (third == 0xA8 || third == 0xA9) {
                (yaml, i) = (yaml + 1, i + 3)
            } else {
                i += 1
            }
        }
        return feeds
    }

    static func composedPairs(_ text: String) throws -> [(key: String, value: Node)] {
        // Without a `*` there is no alias to expand (the usual case: no second pass).
        if text.utf8.contains(UInt8(ascii: "*")) { try checkAliases(text) }
        let node: Node?
        do {
            node = try Yams.compose(yaml: text, .basic)
        } catch let error as YamlError {
            throw describe(error)
        }
        guard let node else { return [] }
        guard let mapping = node.mapping else { throw Failure.notMapping }
        return mapping.compactMap { k, v in k.scalar.map { ($0.string, v) } }
    }

    /// The most values YAML aliases may repeat in one block (front-matter or `vault.yml`).
    ///
    /// An alias (`*name`) stands for the whole node anchored as `&name`, so a few hundred bytes
    /// of nested aliases ("billion laughs") stand for billions of values: composing, comparing
    /// or printing them took minutes and gigabytes. A few aliases that repeat a list or two are
    /// ordinary YAML and stay well below this.
    static let aliasExpansionLimit = 1_000

    /// Counts, from libyaml's events and before any node is built, how many values the aliases
    /// of `text` repeat, and stops at the alias that passes `aliasExpansionLimit`.
    ///
    /// - Throws: `Failure.syntax` naming that alias and its line (1-based within `text`).
    ///   Syntax errors are left to Yams, which describes them better.
    static func checkAliases(_ text: String) throws(Failure) {
        var bytes = Array(text.utf8)
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else { return }
        defer { yaml_parser_delete(&parser) }
        let limit = aliasExpansionLimit
        // Values of each anchored node, aliases expanded (capped past the limit: no overflow).
        var anchored: [String: Int] = [:]
        // The collections open around the current event: their anchor and values so far.
        var open: [(anchor: String?, values: Int)] = []
        var repeated = 0
        func anchorName(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
            pointer.map { String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self)) }
        }
        func add(_ values: Int, anchor: String?) {
            let capped = min(values, limit + 1)
            if let anchor { anchored[anchor] = capped }
            if !open.isEmpty { open[open.count - 1].values = min(open[open.count - 1].values + capped, limit + 1) }
        }
        let problem: Failure? = bytes.withUnsafeMutableBufferPointer { buffer -> Failure? in
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
            while true {
                var event = yaml_event_t()
                guard yaml_parser_parse(&parser, &event) == 1 else { return nil }
                defer { yaml_event_delete(&event) }
                switch event.type {
                case YAML_STREAM_END_EVENT:
                    return nil
                case YAML_SCALAR_EVENT:
                    add(1, anchor: anchorName(event.data.scalar.anchor))
                case YAML_SEQUENCE_START_EVENT:
                    open.append((anchorName(event.data.sequence_start.anchor), 1))
                case YAML_MAPPING_START_EVENT:
                    open.append((anchorName(event.data.mapping_start.anchor), 1))
                case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                    if let done = open.popLast() { add(done.values, anchor: done.anchor) }
                case YAML_ALIAS_EVENT:
                    let name = anchorName(event.data.alias.anchor) ?? ""
                    let values = anchored[name] ?? 1  // an undefined alias is Yams' to report
                    repeated += values
                    if repeated > limit {
                        return .syntax(
                            "the alias *\(name) makes the aliases here repeat more than \(limit) values "
                                + "(an \"alias bomb\"?); vault expands at most \(limit). Write the values out "
                                + "instead of repeating them with aliases",
                            line: Int(event.start_mark.line) + 1)
                    }
                    add(values, anchor: nil)
                default:
                    break
                }
            }
        }
        if let problem { throw problem }
    }

    static func value(_ node: Node) -> FrontMatterValue {
        switch node {
        case .scalar(let s):
            return .string(s.string)
        case .sequence(let seq):
            var items: [String] = []
            for item in seq {
                guard let s = item.scalar?.string else { return .other((try? Yams.serialize(node: node)) ?? "") }
                items.append(s)
            }
            return .list(items)
        default:
            return .other((try? Yams.serialize(node: node)) ?? "")
        }
    }

    static func describe(_ error: YamlError) -> Failure {
        switch error {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
            .composer(let context, let problem, let mark, _):
            let what = [context?.text, problem].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " ")
            // "while parsing a flow sequence … did not find expected ',' or ']'" is found where
            // the next token starts, often the line after the mistake: the line the context
            // (the sequence, the quoted text) starts on is where the person looks.
            return .syntax(what, line: min(context?.mark.line ?? mark.line, mark.line))
        default:
            return .syntax("\(error)", line: 1)
        }
    }
}
