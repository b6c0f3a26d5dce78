import Foundation
import VaultCore

/// Reads Day One's JSON export: a folder with `Journal.json` (or `<journal name>.json`, one per
/// journal) and a `photos/` folder, as the export's zip unpacks.
///
/// Each of `entries` becomes a journal entry: `uuid` its id; `creationDate` (UTC) read in its
/// `timeZone` (an IANA name), so an entry written just after midnight abroad stays on that
/// local day; `tags`, `starred`. Its `text` is Markdown with punctuation escaped by a
/// backslash (`\.`, `\!`, `\(`): the backslashes are taken away. The first line of the text is
/// the title (without its `#`s) and the rest the body. Each `![](dayone-moment://ID)` becomes
/// `![](<md5>.<type>)`, naming the attachment read from `photos/<md5>.<type>` for the photo
/// `ID` of the entry's `photos`; every photo the entry lists is attached, referenced or not.
///
/// A missing photo is an `ImportProblem` naming the entry and the file, not a placeholder: the
/// issue's rule is that nothing is lost silently, and `--keep-going` lets the person import the
/// rest. A zip is read in place (`ExportFolder`): its journals and the `photos/` beside them.
///
///     try DayOneReader().read(["~/Downloads/Journal"], since: nil) { item in … }
public struct DayOneReader: ImportReader {
    public var source: ImportSource { .dayone }

    public init() {}

    /// A Day One JSON file (`entries` with `creationDate`), a folder holding one, or a zip that
    /// names a `Journal.json` or a `photos/` folder beside JSON.
    public static func recognizes(_ path: String) -> Bool {
        if ExportFile.isFolder(path) { return !journals(in: path).isEmpty }
        guard let head = ExportFile.head(path) else { return false }
        if head.starts(with: [0x50, 0x4B, 0x03, 0x04]) {
            let names = String(decoding: head, as: UTF8.self)
            return names.contains("Journal.json")
                || (names.contains("photos/") && names.contains(".json") && !names.contains("conversations"))
        }
        return isJournal(head)
    }

    static func isJournal(_ head: [UInt8]) -> Bool {
        let text = String(decoding: head, as: UTF8.self)
        return text.drop { $0.isWhitespace }.hasPrefix("{") && text.contains("\"entries\"")
            && text.contains("\"creationDate\"")
    }

    /// The journals' JSON files of an export's folder.
    static func journals(in folder: String) -> [String] {
        (ExportFile.files(in: folder, endingIn: ".json") ?? []).filter { ExportFile.head($0).map(isJournal) ?? false }
    }

    public func read(_ paths: [String], since: Timestamp?, into sink: ImportSink) throws(VaultError) {
        for path in paths {
            if ExportFile.isFolder(path) {
                let files = Self.journals(in: path)
                if files.isEmpty { throw ExportFile.problem(path, "holds no Day One journal (Journal.json)") }
                for file in files { try sink.part { () throws(VaultError) in try read(file, since: since, into: sink) } }
            } else if path.lowercased().hasSuffix(".zip") || ExportFile.head(path, limit: 4) == [0x50, 0x4B, 0x03, 0x04] {
                // The export's zip, read in place: its journals and their `photos/` beside them.
                let export = try ExportFolder(path)
                let journals = export.files.filter {
                    $0.lowercased().hasSuffix(".json") && Self.isJournal(export.prefix($0, count: 4096))
                }
                if journals.isEmpty { throw ExportFile.problem(path, "holds no Day One journal (Journal.json)") }
                for journal in journals {
                    let folder = (journal as NSString).deletingLastPathComponent
                    let photos = (folder.isEmpty ? "" : folder + "/") + "photos/"
                    try sink.part { () throws(VaultError) in
                        try read(
                            try export.bytes(journal), file: export.displayName(journal), since: since, into: sink,
                            photo: { name in export.contains(photos + name) ? try? export.bytes(photos + name) : nil })
                    }
                }
            } else {
                try read(path, since: since, into: sink)
            }
        }
    }

    /// The entries of a journal file, with the photos in `photos/` beside it.
    private func read(_ file: String, since: Timestamp?, into sink: ImportSink) throws(VaultError) {
        let photos = (file as NSString).deletingLastPathComponent + "/photos"
        try read(
            try ExportFile.bytes(file), file: file, since: since, into: sink,
            photo: { name in FileManager.default.contents(atPath: photos + "/" + name).map { [UInt8]($0) } })
    }

    /// The entries of a journal's bytes (`file` names it in problems), each a part of its own;
    /// `photo` gives a photo's bytes by its file name in `photos/` (nil: not in the export).
    private func read(
        _ bytes: [UInt8], file: String, since: Timestamp?, into sink: ImportSink, photo: (String) -> [UInt8]?
    ) throws(VaultError) {
        _ = try ExportFile.text(bytes, file: file)
        guard let value = ExportFile.json(bytes) else { throw ExportFile.problem(file, "is not valid JSON") }
        guard let object = value as? [String: Any], let list = object["entries"] as? [Any] else {
            throw ExportFile.problem(file, "is not a Day One export: it has no \"entries\" list")
        }
        for (n, item) in list.enumerated() {
            try sink.part { () throws(VaultError) in
                let place = "entries[\(n)]"
                guard let entry = item as? [String: Any] else { throw ExportFile.problem(file, at: place, "is not an object") }
                let read = try self.entry(entry, file: file, place: place, photo: photo)
                if let since, read.time < since { return }
                try sink.emit(.entry(read))
            }
        }
    }

    private func entry(_ entry: [String: Any], file: String, place: String, photo photoBytes: (String) -> [UInt8]?)
        throws(VaultError)
        -> ImportedEntry
    {
        guard let uuid = entry["uuid"] as? String, !uuid.isEmpty else {
            throw ExportFile.problem(file, at: place, "has no uuid")
        }
        guard let created = ExportFile.time(entry["creationDate"]) else {
            throw ExportFile.problem(file, at: place + ".creationDate", "is not a time like \"2024-05-01T09:30:00Z\"")
        }
        var zone = TimeZone.gmt
        if let name = entry["timeZone"] as? String {
            guard let named = TimeZone(identifier: name) else {
                throw ExportFile.problem(file, at: place + ".timeZone", "\"\(name)\" is not a time zone this computer knows")
            }
            zone = named
        }
        var text = Self.unescaped(entry["text"] as? String ?? "")

        // The photos, in the order the entry lists them; references made to name them.
        var attachments: [ImportedAttachment] = []
        var names: [String: String] = [:]
        for (k, item) in (entry["photos"] as? [Any] ?? []).enumerated() {
            let photoPlace = "\(place).photos[\(k)]"
            guard let photo = item as? [String: Any], let identifier = photo["identifier"] as? String,
                let md5 = photo["md5"] as? String
            else { throw ExportFile.problem(file, at: photoPlace, "has no identifier or md5") }
            let name = md5 + "." + (photo["type"] as? String ?? "jpeg")
            guard let data = photoBytes(name) else {
                throw ExportFile.problem(file, at: photoPlace, "the photo photos/\(name) is missing from the export")
            }
            names[identifier] = name
            attachments.append(ImportedAttachment(name: name, bytes: data))
        }
        let scheme = "dayone-moment://"
        var rewritten = ""
        var rest = Substring(text)
        while let start = rest.range(of: "](" + scheme) {
            rewritten += rest[..<start.lowerBound] + "]("
            let after = rest[start.upperBound...]
            let identifier = after.prefix { $0 != ")" && !$0.isWhitespace }
            guard let name = names[String(identifier)] else {
                throw ExportFile.problem(
                    file, at: place + ".text", "refers to the photo \(identifier), which the entry's photos do not list")
            }
            rewritten += name
            rest = after[identifier.endIndex...]
        }
        text = rewritten + rest

        let lines = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
        let title = (lines.first ?? "").drop { $0 == "#" }.trimmingCharacters(in: .whitespaces)
        let body = lines.count > 1 ? String(lines[1]).trimmingCharacters(in: .newlines) : ""
        var tags: [String] = []
        for tag in entry["tags"] as? [String] ?? [] where !tags.contains(tag) { tags.append(tag) }
        return ImportedEntry(
            source: .dayone, sourceID: uuid, title: title, time: Timestamp(date: created.date, timeZone: zone),
            tags: tags, starred: ExportFile.flag(entry["starred"]), body: body, attachments: attachments)
    }

    /// Day One's Markdown with its backslash-escaped punctuation (`\.` `\!` `\(` `\\`) unescaped.
    static func unescaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        var escaping = false
        for c in text {
            if escaping {
                if !(c.isASCII && c.isPunctuation || c.isASCII && c.isSymbol) { out.append("\\") }
                out.append(c)
                escaping = false
            } else if c == "\\" {
                escaping = true
            } else {
                out.append(c)
            }
        }
        if escaping { out.append("\\") }
        return out
    }
}
