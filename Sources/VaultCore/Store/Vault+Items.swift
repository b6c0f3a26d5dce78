import Foundation

/// A room or a diary entry, by its path relative to the vault.
public enum VaultItem: Sendable, Hashable {
    case room(String)
    case diaryEntry(String)

    public var path: String {
        switch self {
        case .room(let p), .diaryEntry(let p): return p
        }
    }
}

extension Vault {
    /// Finds the item a person named: a path (`rooms/부산-여행.md`, as the shell completes it,
    /// from the vault or the current folder), a file name with or without `.md`
    /// (`부산-여행.md`, `2026-11-21-busan`), a room slug or title prefix, or a diary date
    /// (`2026-11-21`). A name that matches several items lists them
    /// (`VaultError.ambiguousItem`); one that matches none names the nearest room or entry
    /// ("did you mean '부산-여행'?").
    ///
    /// Names are compared in Unicode NFC, so a Hangul name typed on macOS (NFD) finds the
    /// file written on Linux (NFC) and the other way round, paths included.
    ///
    /// - Parameter allowingLink: give back an item that is itself a symbolic link (for `vault rm`,
    ///   which removes the link and never what it points to).
    /// - Throws: `VaultError.symbolicLink` when the item named is a symbolic link, or lies in a
    ///   linked folder: no command reads or writes through one.
    public func resolve(_ name: String, workingDirectory: String, allowingLink: Bool = false) throws(VaultError)
        -> VaultItem
    {
        let item = try find(name, workingDirectory: workingDirectory)
        if let link = symbolicLink(on: item.path), !(allowingLink && link.path == item.path) {
            throw VaultError.symbolicLink(path: link.path, target: link.target)
        }
        return item
    }

    private func find(_ name: String, workingDirectory: String) throws(VaultError) -> VaultItem {
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { throw VaultError.input(.emptyName) }
        // 1. A path to a file in the vault (as spelled on disk, whatever the normalization typed).
        for candidate in [Vault.absolute(trimmed, from: workingDirectory), Vault.absolute(trimmed, from: root)]
        where candidate.hasPrefix(root + "/") {
            let typed = String(candidate.dropFirst(root.count + 1))
            guard typed.hasPrefix(VaultPath.rooms + "/") || typed.hasPrefix(VaultPath.diary + "/"),
                let relative = existingSpelling(of: typed), !FileIO.isDirectory(absolute(relative))
                    || FileIO.kind(of: absolute(relative)) == .symbolicLink
            else { continue }
            return relative.hasPrefix(VaultPath.rooms + "/") ? .room(relative) : .diaryEntry(relative)
        }
        let key = trimmed.precomposedStringWithCanonicalMapping
        let lowered = key.lowercased()
        // 2a. A room's slug, without listing every room (the common case on a large vault): in
        // `rooms/`, then in each folder under it (format 2 files rooms by year).
        if !key.contains("/"), !key.hasPrefix(".") {
            let flat = VaultPath.rooms + "/" + key + ".md"
            // In `rooms/` itself, and no folder under it with a room of that name (format 2).
            let named = rooms(named: key)
            if named.isEmpty, FileIO.entryExists(absolute(flat)) { return .room(flat) }
            if named.count == 1 { return .room(named[0]) }
            if named.count > 1 { throw VaultError.ambiguousItem(name, candidates: named) }
        }
        let rooms = roomPaths()
        // 2. A room's slug.
        let slugged = rooms.filter { VaultPath.stem(of: $0).precomposedStringWithCanonicalMapping == key }
        if slugged.count == 1 { return .room(slugged[0]) }
        if slugged.count > 1 { throw VaultError.ambiguousItem(name, candidates: slugged) }
        let entries = diaryPaths()
        // 2b. A file name with its `.md`, as `ls` shows it.
        if !key.contains("/"), key.lowercased().hasSuffix(".md"), key.count > 3 {
            let stem = String(key.dropLast(3))
            let named = (rooms + entries).filter {
                VaultPath.stem(of: $0).precomposedStringWithCanonicalMapping == stem
            }
            if named.count == 1 {
                return named[0].hasPrefix(VaultPath.rooms + "/") ? .room(named[0]) : .diaryEntry(named[0])
            }
            if named.count > 1 { throw VaultError.ambiguousItem(name, candidates: named) }
        }
        // 3. A diary date or file name.
        if let day = LocalDate(iso: key) {
            var hits = entries.filter { DiaryFile.dateInName($0) == day }
            // An entry renamed by hand (`밤 늦게.md`) is found by its own date: `created`, as
            // `diary list` dates it (the listing's cache keeps it).
            if hits.isEmpty { hits = diarySummaries().filter { $0.date == day }.map(\.path) }
            if hits.count == 1 { return .diaryEntry(hits[0]) }
            if hits.count > 1 { throw VaultError.ambiguousItem(name, candidates: hits) }
        }
        if let hit = entries.first(where: { VaultPath.stem(of: $0).precomposedStringWithCanonicalMapping == key }) {
            return .diaryEntry(hit)
        }
        // 4. A room's whole title (as shell completion offers it), even when another room's
        // title starts with it; then a title prefix (rooms first, then diary titles).
        let summaries = roomSummaries()
        let titled = summaries.filter { $0.title.precomposedStringWithCanonicalMapping.lowercased() == lowered }
        if titled.count == 1 { return .room(titled[0].path) }
        let roomHits = summaries.filter {
            $0.title.precomposedStringWithCanonicalMapping.lowercased().hasPrefix(lowered)
                || $0.slug.precomposedStringWithCanonicalMapping.lowercased().hasPrefix(lowered)
        }
        if roomHits.count == 1 { return .room(roomHits[0].path) }
        if roomHits.count > 1 { throw VaultError.ambiguousItem(name, candidates: roomHits.map(\.path)) }
        let entryHits = diarySummaries().filter {
            $0.title.precomposedStringWithCanonicalMapping.lowercased().hasPrefix(lowered)
        }
        if entryHits.count == 1 { return .diaryEntry(entryHits[0].path) }
        if entryHits.count > 1 { throw VaultError.ambiguousItem(name, candidates: entryHits.map(\.path)) }
        let list = "`vault rooms` and `vault diary list` show what there is."
        let nearest = NearestName.nearest(
            to: key,
            among: summaries.map { ($0.slug, [$0.slug, $0.title]) }
                + entries.map { (VaultPath.stem(of: $0), [VaultPath.stem(of: $0)]) })
        throw VaultError.itemNotFound(name, hint: nearest.map { "Did you mean '\($0)'? " + list } ?? list)
    }

    /// Like `resolve`, but only rooms.
    public func resolveRoom(_ name: String, workingDirectory: String) throws(VaultError) -> String {
        let item = try resolve(name, workingDirectory: workingDirectory)
        guard case .room(let path) = item else {
            throw VaultError.input(.notARoom(item.path))
        }
        return path
    }
}

extension Vault {
    /// The names a person types for the vault's items, for shell completion: room slugs
    /// (`rooms`), room titles (`titles`: `부산 여행`), and diary dates (`2026-11-21`, once each)
    /// and file names without `.md` (`diary`); each resolves with `resolve` (a date shared by
    /// several entries lists them). Slugs and entries read folder listings only; titles read
    /// each room's front-matter.
    ///
    /// A title is offered in NFC when it differs from the room's slug, fits on one line
    /// (no control characters), and is no other room's title too (those rooms are named by
    /// their slugs).
    public func typedNames(rooms: Bool, diary: Bool, titles: Bool = false) -> [String] {
        var names: [String] = []
        if rooms { names += roomPaths().map { VaultPath.stem(of: $0) } }
        if titles {
            let summaries = roomSummaries()
            var count: [String: Int] = [:]
            for summary in summaries {
                count[summary.title.precomposedStringWithCanonicalMapping.lowercased(), default: 0] += 1
            }
            let slugs = Set(summaries.map { $0.slug.precomposedStringWithCanonicalMapping })
            names += summaries.map { $0.title.precomposedStringWithCanonicalMapping }.filter { title in
                let trimmed = title.trimmingCharacters(in: .whitespaces)
                return !trimmed.isEmpty && title == trimmed
                    && !title.unicodeScalars.contains { $0.properties.generalCategory == .control }
                    && !slugs.contains(title) && count[title.lowercased()] == 1 && LocalDate(iso: title) == nil
            }.sorted()
        }
        if diary {
            let entries = diaryPaths()
            let days = Set(entries.compactMap { DiaryFile.dateInName($0) }.map(\.description))
            names += days.sorted(by: >) + entries.map { VaultPath.stem(of: $0) }.sorted(by: >)
        }
        return names
    }
}
