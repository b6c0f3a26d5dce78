import Foundation

/// Conflict copies made by other sync tools (Syncthing, Dropbox) and by vault itself.
///
/// A vault kept in a synced folder as well as in git gets the copies those tools make when two
/// machines change a file at once; `vault sync` finds them by name to merge them into the file
/// they belong to.
///
///     ConflictCopy.original(of: "diary/2026/x.sync-conflict-20261123-101500-ABCDEFG.md")  // "diary/2026/x.md"
///     ConflictCopy.name(for: "rooms/x.md", machine: "laptop", time: now, version: "1a2b3c4")
///     // "rooms/x.conflict-laptop-20261123-101500-1a2b3c4.md"
package enum ConflictCopy {
    /// The path of the original a conflict copy belongs to, or nil when `path` is not a conflict copy.
    /// Recognises Syncthing's `NAME.sync-conflict-20261123-101500-ABCDEFG.md`, Dropbox's
    /// `NAME (conflicted copy 2026-11-23).md` and `NAME (Ada's conflicted copy 2026-11-23).md` (any text before
    /// "conflicted copy"), and vault's own `NAME.conflict-<machine>-<yyyymmdd-hhmmss>-<version>.md` (see `name`; copies
    /// made before the version was part of the name end at the time). Folder kept:
    /// `diary/2026/x.sync-conflict-….md` → `diary/2026/x.md`.
    package static func original(of path: String) -> String? {
        // Every name of a copy has "conflict" in it (`.sync-conflict-`, `conflicted copy`,
        // `.conflict-`): a byte search rules out the rest (a listing asks about every file).
        guard path.utf8.count >= 8, mentionsConflict(path) else { return nil }
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        for found in [syncthing(name), dropbox(name), vault(name)] {
            if let original = found { return folder + original }
        }
        return nil
    }

    /// vault's name for a conflict copy of `path`: `rooms/x.md`, machine "laptop", a time, version
    /// `1a2b3c4` → `rooms/x.conflict-laptop-20261123-101500-1a2b3c4.md` (time in UTC, the machine name made
    /// file-name safe: letters, digits, `-`, `_` kept, anything else `-`).
    ///
    /// `version` names the version the copy holds: the short id of the losing commit (`git log` finds it),
    /// else `versionID(of:)` of the copy's bytes. Two different versions never get one name, even from
    /// two clones with the same machine name committing in the same second; hex letters are lower-cased.
    ///
    /// Letters and digits of any script are kept, in Unicode's composed form (NFC), so the name is the
    /// same on macOS and Linux; an empty machine name is written `machine`.
    package static func name(for path: String, machine: String, time: Date, version: String) -> String {
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        var stem = name
        var ext = ""
        if let dot = name.lastIndex(of: "."), dot != name.startIndex {
            stem = String(name[..<dot])
            ext = String(name[dot...])
        }
        var safe = ""
        for scalar in machine.precomposedStringWithCanonicalMapping.unicodeScalars {
            let keep = scalar.properties.isAlphabetic || scalar.properties.numericType == .decimal
                || scalar == "-" || scalar == "_"
            safe.unicodeScalars.append(keep ? scalar : "-")
        }
        if safe.isEmpty { safe = "machine" }
        let t = CivilTime(secondsSince1970: Int64(time.timeIntervalSince1970.rounded(.down)))
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let stamp = "\(t.year)\(two(t.month))\(two(t.day))-\(two(t.hour))\(two(t.minute))\(two(t.second))"
        let hex = version.lowercased().filter { $0.isHexDigit && $0.isASCII }
        return folder + stem + ".conflict-" + safe + "-" + stamp + "-" + (hex.isEmpty ? "0000000" : hex) + ext
    }

    /// A short id of a copy's bytes (the first 7 hex digits of their SHA-256), for a copy that comes
    /// from no commit (markers in a file, a merge run by `git pull`).
    package static func versionID(of bytes: [UInt8]) -> String {
        String(SHA256.hex(bytes).prefix(7))
    }

    private static func mentionsConflict(_ path: String) -> Bool {
        // In place: a listing asks about every file (no copy, no array made per path).
        path.utf8.withContiguousStorageIfAvailable { mentionsConflict($0) } ?? path.contains("conflict")
    }

    /// Whether the bytes of a path hold "conflict", as every conflict copy's name does: the
    /// paths for which `original(of:)` is worth asking.
    static func mentionsConflict(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        let word: StaticString = "conflict"
        return word.withUTF8Buffer { w in
            guard b.count >= w.count else { return false }
            var at = 0
            while at + w.count <= b.count, let c = memchr(b.baseAddress! + at, Int32(w[0]), b.count - w.count + 1 - at) {
                at = b.baseAddress!.distance(to: c.assumingMemoryBound(to: UInt8.self))
                if memcmp(b.baseAddress! + at, w.baseAddress!, w.count) == 0 { return true }
                at += 1
            }
            return false
        }
    }

    /// `NAME.sync-conflict-yyyymmdd-hhmmss-DEVICE[.ext]` → `NAME[.ext]`.
    private static func syncthing(_ name: String) -> String? {
        guard let r = name.range(of: ".sync-conflict-", options: .backwards), r.lowerBound != name.startIndex
        else { return nil }
        let rest = name[r.upperBound...]
        let dot = rest.firstIndex(of: ".") ?? rest.endIndex
        let parts = rest[..<dot].split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, isDigits(parts[0], 8), isDigits(parts[1], 6), !parts[2].isEmpty,
            parts[2].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) })
        else { return nil }
        return String(name[..<r.lowerBound]) + rest[dot...]
    }

    /// `NAME (… conflicted copy yyyy-mm-dd)[.ext]` → `NAME[.ext]`.
    private static func dropbox(_ name: String) -> String? {
        guard let r = name.range(of: "conflicted copy ", options: .backwards),
            let open = name[..<r.lowerBound].range(of: " (", options: .backwards), open.lowerBound != name.startIndex
        else { return nil }
        let rest = name[r.upperBound...]
        guard let close = rest.firstIndex(of: ")") else { return nil }
        let date = rest[..<close].split(separator: "-", omittingEmptySubsequences: false)
        guard date.count == 3, isDigits(date[0], 4), isDigits(date[1], 2), isDigits(date[2], 2) else { return nil }
        let after = rest[rest.index(after: close)...]
        guard after.isEmpty || after.hasPrefix(".") else { return nil }
        return String(name[..<open.lowerBound]) + after
    }

    /// `NAME.conflict-<machine>-yyyymmdd-hhmmss-<version>[.ext]` → `NAME[.ext]`; without `-<version>`
    /// (copies made before it was part of the name) too.
    private static func vault(_ name: String) -> String? {
        var search = name.startIndex..<name.endIndex
        while let r = name.range(of: ".conflict-", options: .backwards, range: search) {
            let rest = name[r.upperBound...]
            let dot = rest.firstIndex(of: ".") ?? rest.endIndex
            var parts = rest[..<dot].split(separator: "-", omittingEmptySubsequences: false)
            if parts.count >= 4, isHex(parts[parts.count - 1]), isDigits(parts[parts.count - 2], 6),
                isDigits(parts[parts.count - 3], 8)
            {
                parts.removeLast()
            }
            if r.lowerBound != name.startIndex, parts.count >= 3, isDigits(parts[parts.count - 2], 8),
                isDigits(parts[parts.count - 1], 6),
                !parts.dropLast(2).joined().isEmpty || parts.count > 3
            {
                return String(name[..<r.lowerBound]) + rest[dot...]
            }
            search = name.startIndex..<r.lowerBound
        }
        return nil
    }

    private static func isHex(_ s: Substring) -> Bool {
        (7...40).contains(s.utf8.count) && s.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }
    }

    private static func isDigits(_ s: Substring, _ count: Int) -> Bool {
        s.utf8.count == count && s.utf8.allSatisfy { $0 >= 48 && $0 <= 57 }
    }
}
