import Foundation

extension Vault {
    /// A free `diary/<yyyy>/<yyyy-mm-dd>[-<slug>].md` path for a new entry.
    public func newEntryPath(day: LocalDate, title: String?) -> String {
        let year = String(format: "%04d", day.year)
        let stem = title.map { VaultPath.slug($0) }.flatMap { $0 == "untitled" ? nil : $0 }.map { "\(day)-\($0)" } ?? "\(day)"
        return freePath(folder: VaultPath.diary + "/" + year, stem: stem)
    }

    /// Diary entries whose day is `day`, oldest first.
    public func entries(on day: LocalDate) -> [String] {
        diarySummaries().filter { $0.date == day }.reversed().map(\.path)
    }

    /// The bytes of a diary entry with its tags changed (`+tag` adds, `-tag` removes) and
    /// `updated` set; only those two keys' lines change.
    public func retagging(_ path: String, adding: [String], removing: [String], now: Timestamp) throws(VaultError)
        -> (bytes: [UInt8], tags: [String], stamp: FileIO.Stamp)
    {
        let (bytes, stamp) = try FileIO.readStamped(absolute(path))
        let entry = try DiaryFile(parsing: bytes, path: path)
        var tags = entry.tags.filter { !removing.contains($0) }
        for tag in adding where !tags.contains(tag) { tags.append(tag) }
        var out = try FrontMatterEditor.setting(
            "tags", to: .list(tags), in: bytes, frontMatter: entry.frontMatter, path: path, lineEnding: entry.lineEnding)
        out = try touchingUpdated(out, path: path, now: now)
        return (out, tags, stamp)
    }

    /// The entry's bytes with `updated` set to `now` (when it has front-matter).
    public func touchingUpdated(_ bytes: [UInt8], path: String, now: Timestamp) throws(VaultError) -> [UInt8] {
        let entry = try DiaryFile(parsing: bytes, path: path)
        guard entry.frontMatter != nil else { return bytes }
        return try FrontMatterEditor.setting(
            "updated", to: .string(now.text), in: bytes, frontMatter: entry.frontMatter, path: path, lineEnding: entry.lineEnding)
    }
}
