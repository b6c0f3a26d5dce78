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
/// A photo the export does not hold (never synced), or one the text refers to that the entry's
/// `photos` do not list, is kept as a placeholder (`ImportedAttachment.missing`) where it was:
/// the entry's text is all imported, and the report counts the photos. A photo that is a link
/// or a special file is refused by name, never read. A zip is read in place (`ExportFolder`): its journals and the `photos/` beside them.
///
///     try DayOneReader().read(["~/Downloads/Journal"], since: nil) { item in … }
package struct DayOneReader: ImportReader {
    package var source: ImportSource { .dayone }

    package init() {}

    /// A Day One JSON file (`entries` with `creationDate`), a folder holding one, or a zip that
    /// names a `Journal.json` or a `photos/` folder beside JSON.
    package static func recognizes(_ path: String) -> Bool {
        if ExportFile.isFolder(path) {
            return (try? ExportFolder(path)).map { !journals(in: $0).isEmpty || !classicEntries(in: $0).isEmpty } ?? false
        }
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

    /// The journals' JSON files of an export: in a folder, its own `.json` files (not hidden);
    /// in a zip, those at any depth.
    static func journals(in export: ExportFolder) -> [String] {
        export.files.filter { file in
            // A link or a special file named like a journal is listed, to be refused by name.
            file.lowercased().hasSuffix(".json") && (export.isZip || !file.contains("/") && !file.hasPrefix("."))
                && (export.refusal(file) != nil || isJournal(export.prefix(file, count: 65536)))
        }
    }

    /// A Day One Classic journal's entries (`Journal.dayone/entries/<UUID>.doentry`, plists), as
    /// Day One 1.x kept them and jrnl still writes them: in the folder or one folder down.
    static func classicEntries(in export: ExportFolder) -> [String] {
        guard !export.isSingleFile else { return [] }
        return export.files.filter { file in
            let parts = file.split(separator: "/")
            return file.hasSuffix(".doentry") && parts.count >= 2 && parts.count <= 3 && parts[parts.count - 2] == "entries"
        }
    }

    package func read(_ paths: [String], since: Timestamp?, into sink: ImportSink) throws(VaultError) {
        for path in paths {
            // A folder, a zip (read in place) or one journal: its photos in `photos/` beside it,
            // each opened inside the export without following a link.
            let export = try ExportFolder(path, limits: sink.limits)
            let journals = export.isSingleFile ? [(path as NSString).lastPathComponent] : Self.journals(in: export)
            let classic = Self.classicEntries(in: export)
            if journals.isEmpty && classic.isEmpty {
                throw ExportFile.problem(path, "holds no Day One journal (Journal.json, or a Day One Classic entries/ folder)")
            }
            for file in classic {
                try sink.part { () throws(VaultError) in
                    let read = try classicEntry(export, file)
                    if let since, read.time < since { return }
                    try sink.emit(.entry(read))
                }
            }
            for journal in journals {
                let folder = (journal as NSString).deletingLastPathComponent
                let photos = (folder.isEmpty ? "" : folder + "/") + "photos/"
                let readJournal = { () throws(VaultError) in
                    try read(
                        try export.bytes(journal), file: export.displayName(journal), since: since, into: sink,
                        photo: { name throws(VaultError) in export.contains(photos + name) ? try export.bytes(photos + name) : nil })
                }
                if export.isSingleFile { try readJournal() } else { try sink.part(readJournal) }
            }
        }
    }

    /// The entries of a journal's bytes (`file` names it in problems), each a part of its own;
    /// `photo` gives a photo's bytes by its file name in `photos/` (nil: not in the export).
    private func read(
        _ bytes: [UInt8], file: String, since: Timestamp?, into sink: ImportSink,
        photo: (String) throws(VaultError) -> [UInt8]?
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

    /// Whether `md5` and `type` make a photo's name as Day One writes it (`photos/<md5>.<type>`):
    /// hex digits, and a short type of letters and digits (`jpeg`, `heic`). The export names its
    /// photos, so nothing else (a `/`, a `..`) may reach the file system.
    static func isPhotoName(md5: String, type: String) -> Bool {
        let hex = md5.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) || ($0 >= 65 && $0 <= 70) }
        let alphanumeric = type.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 122) || ($0 >= 65 && $0 <= 90) }
        return (1...128).contains(md5.utf8.count) && hex && (1...10).contains(type.utf8.count) && alphanumeric
    }

    private func entry(
        _ entry: [String: Any], file: String, place: String, photo photoBytes: (String) throws(VaultError) -> [UInt8]?
    )
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
        let scheme = "dayone-moment://"
        for (k, item) in (entry["photos"] as? [Any] ?? []).enumerated() {
            let photoPlace = "\(place).photos[\(k)]"
            guard let photo = item as? [String: Any], let identifier = photo["identifier"] as? String,
                let md5 = photo["md5"] as? String
            else { throw ExportFile.problem(file, at: photoPlace, "has no identifier or md5") }
            let type = photo["type"] as? String ?? "jpeg"
            guard Self.isPhotoName(md5: md5, type: type) else {
                throw ExportFile.problem(
                    file, at: photoPlace,
                    "names the photo \(String(reflecting: md5 + "." + type)), which is not a Day One photo's name"
                        + " (hex digits, a dot and a type like jpeg); vault reads only photos/<md5>.<type> inside the export")
            }
            let name = md5 + "." + type
            let read: [UInt8]?
            do {
                read = try photoBytes(name)
            } catch {
                // A link, a special file, one past the cap: named with the entry that lists it.
                guard case .importing(let why) = error else { throw error }
                let what = why.place.isEmpty ? "\(why.file) \(why.problem)" : why.description
                throw ExportFile.problem(file, at: photoPlace, "the photo photos/\(name) is not read: \(what)")
            }
            names[identifier] = name
            // Not in the export (a photo never synced): a placeholder where it was, the text kept.
            attachments.append(
                read.map { ImportedAttachment(name: name, bytes: $0) }
                    ?? .missing(name: name, kind: "photo", pointer: scheme + identifier))
        }
        var rewritten = ""
        var rest = Substring(text)
        while let start = rest.range(of: "](" + scheme) {
            rewritten += rest[..<start.lowerBound] + "]("
            let after = rest[start.upperBound...]
            let identifier = after.prefix { $0 != ")" && !$0.isWhitespace }
            if let name = names[String(identifier)] {
                rewritten += name
            } else {
                // A photo the entry's `photos` do not list: not in the export either.
                rewritten += scheme + identifier
                if !attachments.contains(where: { $0.name == identifier }) {
                    attachments.append(.missing(name: String(identifier), kind: "photo", pointer: scheme + identifier))
                }
            }
            rest = after[identifier.endIndex...]
        }
        text = rewritten + rest

        let lines = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
        let title = (lines.first ?? "").drop { $0 == "#" }.trimmingCharacters(in: .whitespaces)
        let body = lines.count > 1 ? String(lines[1]).trimmingCharacters(in: .newlines) : ""
        var tags: [String] = []
        for tag in entry["tags"] as? [String] ?? [] where !tags.contains(tag) { tags.append(tag) }
        // A time near the year 0 or 9999 in UTC may be outside them in the entry's zone.
        let time = Timestamp(date: created.date, timeZone: zone)
        guard ExportFile.spellsFourDigitYear(time) else {
            throw ExportFile.problem(
                file, at: place + ".creationDate", "is a time vault cannot hold in its zone (the years 0 to 9999 only)")
        }
        return ImportedEntry(
            source: .dayone, sourceID: uuid, title: title, time: time,
            tags: tags, starred: ExportFile.flag(entry["starred"]), body: body, attachments: attachments)
    }

    /// One `.doentry` plist of Day One Classic: `UUID`, `Creation Date` (UTC) in its `Time Zone`,
    /// `Entry Text` (plain Markdown, nothing escaped), `Tags`, `Starred`; its photo, when there
    /// is one, is `photos/<UUID>.jpg` beside `entries/`.
    private func classicEntry(_ export: ExportFolder, _ file: String) throws(VaultError) -> ImportedEntry {
        let name = export.displayName(file)
        let bytes = try export.bytes(file, limit: UInt64(export.limits.maxItemSize))
        guard let plist = try? PropertyListSerialization.propertyList(from: Data(bytes), format: nil),
            let entry = plist as? [String: Any]
        else { throw ExportFile.problem(name, "is not a Day One Classic entry (a property list with a dict)") }
        guard let uuid = entry["UUID"] as? String, !uuid.isEmpty else { throw ExportFile.problem(name, "has no UUID") }
        guard let created = entry["Creation Date"] as? Date else { throw ExportFile.problem(name, "has no Creation Date") }
        var zone = TimeZone.gmt
        if let zoneName = entry["Time Zone"] as? String {
            guard let named = TimeZone(identifier: zoneName) else {
                throw ExportFile.problem(name, at: "Time Zone", "\"\(zoneName)\" is not a time zone this computer knows")
            }
            zone = named
        }
        let time = Timestamp(date: created, timeZone: zone)
        guard ExportFile.spellsFourDigitYear(time) else {
            throw ExportFile.problem(name, at: "Creation Date", "is a time vault cannot hold in its zone (the years 0 to 9999 only)")
        }
        let text = entry["Entry Text"] as? String ?? ""
        let lines = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
        let title = (lines.first ?? "").drop { $0 == "#" }.trimmingCharacters(in: .whitespaces)
        let body = lines.count > 1 ? String(lines[1]).trimmingCharacters(in: .newlines) : ""
        var tags: [String] = []
        for tag in entry["Tags"] as? [String] ?? [] where !tags.contains(tag) { tags.append(tag) }
        // The photo is named by the entry's UUID (hex), so nothing from the plist reaches a path.
        var attachments: [ImportedAttachment] = []
        let folder = (file as NSString).deletingLastPathComponent
        let photo = ((folder as NSString).deletingLastPathComponent as NSString).appendingPathComponent("photos/\(uuid).jpg")
        if Self.isPhotoName(md5: uuid, type: "jpg"), export.contains(photo) {
            attachments.append(ImportedAttachment(name: uuid + ".jpg", bytes: try export.bytes(photo)))
        }
        return ImportedEntry(
            source: .dayone, sourceID: uuid, title: title, time: time, tags: tags,
            starred: ExportFile.flag(entry["Starred"]), body: body, attachments: attachments)
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
