import Foundation

/// An edit of a diary entry's text given as an operation, not in an editor (`vault mcp`'s
/// `edit_entry`): append, prepend, replace a section, or find and replace with the number of
/// places expected, as one change (`diary: edit 2026-11-21 첫눈 (append)`).
///
/// The front-matter and the heading stay byte for byte; `updated` is set. The edit is made over
/// the version read, under the vault's lock, hand edits committed first: a save made
/// meanwhile is never overwritten. An edit that finds nothing to do (a section that is not
/// there, a count that differs) changes nothing and says why.
///
/// ```swift
/// let edited = try EntryEditing(vault: vault, now: vault.now()).edit("diary/2026/2026-11-21-첫눈.md", .append("저녁에 또 눈."))
/// ```
public struct EntryEditing {
    public let vault: Vault
    public let now: Timestamp

    public init(vault: Vault, now: Timestamp) {
        self.vault = vault
        self.now = now
    }

    public enum Operation: Sendable, Equatable {
        /// Adds the text at the end of the body, after a blank line.
        case append(String)
        /// Adds the text at the start of the body, before a blank line.
        case prepend(String)
        /// Replaces what is under the Markdown heading whose text is `heading` (any level),
        /// up to the next heading of the same or a higher level; the heading line stays.
        case replaceSection(heading: String, with: String)
        /// Replaces `find` with `replacement` everywhere in the body; refused unless it occurs
        /// exactly `expectedCount` times.
        case findReplace(find: String, replacement: String, expectedCount: Int)

        var name: String {
            switch self {
            case .append: return "append"
            case .prepend: return "prepend"
            case .replaceSection: return "replace section"
            case .findReplace: return "find and replace"
            }
        }
    }

    /// What an edit did.
    public struct Result: Sendable {
        public var path: String
        /// Whether a commit was made.
        public var committed: Bool
    }

    /// Applies `operation` to the entry at `path` and commits it.
    ///
    /// - Throws: `VaultError.input(.editNotApplicable)` for a room, or when the operation finds
    ///   nothing to do; `.input(.emptyEntry)` for blank text to add; nothing is written then.
    public func edit(_ path: String, _ operation: Operation) throws(VaultError) -> Result {
        guard VaultPath.kind(of: path) == .diaryEntry else {
            throw VaultError.input(.editNotApplicable(path: path, why: "it is a room; these edits are for diary entries"))
        }
        return try vault.change([path]) { change throws(VaultError) -> Result in
            try change.commitHandEdits()
            let (bytes, stamp) = try FileIO.readStamped(vault.absolute(path))
            let entry = try DiaryFile(parsing: bytes, path: path)
            let body = try EntryEditing.apply(operation, to: entry.body, path: path)
            var stored = BodyEscaping.escape(body, in: .diary)
            if entry.lineEnding == .crlf { stored = stored.replacingOccurrences(of: "\n", with: "\r\n") }
            var out = Array(bytes[..<entry.bodyOffset]) + Array(stored.utf8)
            out = try vault.touchingUpdated(out, path: path, now: now)
            try change.write(out, to: path, expecting: .unchanged(stamp))
            let made = try change.commit(message: "diary: edit \(DiaryWriting.label(entry)) (\(operation.name))")
            return Result(path: path, committed: made)
        }
    }

    /// The body after `operation` (its line endings `\n`).
    public static func apply(_ operation: Operation, to body: String, path: String) throws(VaultError) -> String {
        let body = body.replacingOccurrences(of: "\r\n", with: "\n")
        func tidy(_ s: String) -> String { s.trimmingCharacters(in: .newlines) }
        func blank(_ s: String) -> Bool { s.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }
        switch operation {
        case .append(let text):
            guard !blank(text) else { throw VaultError.input(.emptyEntry) }
            let kept = body.replacingOccurrences(of: #"\n+$"#, with: "", options: .regularExpression)
            return (kept.isEmpty ? "" : kept + "\n\n") + tidy(text) + "\n"
        case .prepend(let text):
            guard !blank(text) else { throw VaultError.input(.emptyEntry) }
            let leading = body.prefix { $0 == "\n" }
            return String(leading) + tidy(text) + "\n\n" + body.dropFirst(leading.count)
        case .replaceSection(let heading, let text):
            var lines = body.components(separatedBy: "\n")
            func level(_ line: String) -> Int? {
                let hashes = line.prefix { $0 == "#" }.count
                guard (1...6).contains(hashes), line.dropFirst(hashes).first == " " else { return nil }
                return hashes
            }
            let wanted = heading.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "#"))
                .trimmingCharacters(in: .whitespaces)
            let matches = lines.indices.filter { i in
                level(lines[i]) != nil
                    && lines[i].drop(while: { $0 == "#" }).trimmingCharacters(in: .whitespaces) == wanted
            }
            guard matches.count == 1, let at = matches.first, let own = level(lines[at]) else {
                throw VaultError.input(
                    .editNotApplicable(
                        path: path,
                        why: matches.isEmpty
                            ? "it has no heading \(wanted.debugDescription)"
                            : "it has \(matches.count) headings \(wanted.debugDescription)"))
            }
            var end = at + 1
            while end < lines.count, (level(lines[end]).map { $0 > own } ?? true) { end += 1 }
            let replacement = [""] + (tidy(text).isEmpty ? [] : tidy(text).components(separatedBy: "\n")) + [""]
            lines.replaceSubrange((at + 1)..<end, with: end < lines.count ? replacement : replacement.dropLast())
            var out = lines.joined(separator: "\n")
            if !out.hasSuffix("\n") { out += "\n" }
            return out
        case .findReplace(let find, let replacement, let expected):
            guard !find.isEmpty else { throw VaultError.input(.editNotApplicable(path: path, why: "the text to find is empty")) }
            let found = body.components(separatedBy: find).count - 1
            guard found == expected else {
                throw VaultError.input(
                    .editNotApplicable(
                        path: path, why: "\(find.debugDescription) occurs \(found) times, not the \(expected) expected"))
            }
            return body.replacingOccurrences(of: find, with: replacement)
        }
    }
}
