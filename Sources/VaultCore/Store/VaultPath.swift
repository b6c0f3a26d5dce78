import Foundation

/// Names of files and folders in a vault.
public enum VaultPath {
    public static let config = "vault.yml"
    public static let rooms = "rooms"
    public static let diary = "diary"
    public static let attachments = "attachments"
    /// Where a long room's older messages are kept in format 3 (FORMAT.md, "Room volumes").
    public static let volumes = "volumes"
    public static let state = ".vault"

    /// `rooms/부산-여행.md` → `부산-여행`.
    /// Whether `a` comes before `b` by their UTF-8 bytes (code point order): the order of
    /// listings, much faster than `String`'s, which compares canonical forms.
    public static func precedes(_ a: String, _ b: String) -> Bool {
        // In place (a sort of 30,000 paths asks 450,000 times): no copy of either string, and so
        // no reference counting, unless one is not stored as UTF-8.
        let answer = a.utf8.withContiguousStorageIfAvailable { x in
            b.utf8.withContiguousStorageIfAvailable { y in
                let n = min(x.count, y.count)
                let c = n == 0 ? 0 : memcmp(x.baseAddress!, y.baseAddress!, n)
                return c != 0 ? c < 0 : x.count < y.count
            }
        }
        if let answer = answer ?? nil { return answer }
        return a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    /// Whether the file name `name` is a Markdown file a listing reads: `*.md`, not hidden
    /// (on bytes: `String`'s `hasSuffix` compares characters).
    public static func isListedName(_ name: String) -> Bool {
        let u = name.utf8
        return u.count > 3 && u.first != UInt8(ascii: ".") && u.suffix(3).elementsEqual(".md".utf8)
    }

    public static func stem(of path: String) -> String {
        // On UTF-8 bytes (`/` and `.md` are ASCII): a listing asks for every room's.
        let u = path.utf8
        let start = u.lastIndex(of: UInt8(ascii: "/")).map { u.index(after: $0) } ?? u.startIndex
        var end = u.endIndex
        if u.count >= 3, u.suffix(3).elementsEqual(".md".utf8) { end = u.index(end, offsetBy: -3) }
        if end < start { end = start }
        return String(path[start..<end])
    }

    /// The room's name for a command a person copies from a message (`vault retry 부산-여행`):
    /// its file name without `.md`, in single quotes when a shell would split or expand it.
    ///
    ///     VaultPath.commandName(of: "rooms/부산-여행.md") == "부산-여행"
    ///     VaultPath.commandName(of: "rooms/it's mine.md") == "'it'\\''s mine'"
    public static func commandName(of path: String) -> String {
        let name = stem(of: path)
        let plain = !name.isEmpty && !name.hasPrefix("-") && name.unicodeScalars.allSatisfy { c in
            c.value > 0x7F ? !c.properties.isWhitespace : (c.properties.isAlphabetic || c.properties.numericType != nil
                || "-_.,+@%:/=".unicodeScalars.contains(c))
        }
        return plain ? name : "'" + name.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// A file-name slug for a title (FORMAT.md, "Layout"): NFC, letters and digits of any
    /// script, ASCII lower-cased, other runs turned into one `-`, at most 60 characters.
    ///
    /// Made from a whitelist of Unicode scalars, not of characters: a character counts as a
    /// letter or a digit by its first scalar, but only its scalars of a word are kept (letters,
    /// digits, the marks on them, ZWJ and ZWNJ), so no title gives a `/` (U+0D4E, a "Prepend"
    /// letter, makes one character of itself and the `/` after it), a `.`, a control
    /// character, or a name a file system keeps for itself (`con`, `nul`, `com1`… get `-1`).
    ///
    ///     VaultPath.slug("부산 여행!") == "부산-여행"
    ///     VaultPath.slug("\u{0D4E}/\u{0D4E}.") == "\u{0D4E}-\u{0D4E}"
    ///     VaultPath.slug("CON") == "con-1"
    public static func slug(_ title: String) -> String {
        var out = ""
        var pendingDash = false
        for ch in title.precomposedStringWithCanonicalMapping {
            if ch.isLetter || ch.isNumber {
                for scalar in ch.unicodeScalars {
                    guard isWordScalar(scalar) else {
                        pendingDash = true
                        continue
                    }
                    if pendingDash && !out.isEmpty { out.append("-") }
                    pendingDash = false
                    let upper = ch.isASCII && scalar.value >= 0x41 && scalar.value <= 0x5A
                    out.unicodeScalars.append(upper ? Unicode.Scalar(scalar.value + 0x20)! : scalar)
                }
            } else {
                pendingDash = true
            }
            if out.count >= 60 { break }
        }
        if out.isEmpty { return "untitled" }
        return reservedNames.contains(out) ? out + "-1" : out
    }

    /// A scalar a slug keeps: a letter, a digit, a mark (combining, spacing, enclosing), ZWNJ or ZWJ.
    static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        let p = scalar.properties
        switch p.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: return true
        default: return p.isAlphabetic || p.numericType != nil || scalar == "\u{200C}" || scalar == "\u{200D}"
        }
    }

    /// The names Windows keeps for devices, whatever follows a dot (`con.md` cannot be made),
    /// as a slug spells them.
    static let reservedNames: Set<String> = Set(
        ["con", "prn", "aux", "nul"] + ["com", "lpt"].flatMap { name in
            (Array("0123456789") + ["¹", "²", "³"]).map { name + String($0) }
        })
}

extension VaultPath {
    /// `NFC`, `NFD`, or `mixed`: how the letters of `path` are composed.
    public static func normalization(of path: String) -> String {
        let bytes = Array(path.utf8)
        if bytes == Array(path.precomposedStringWithCanonicalMapping.utf8) { return "NFC" }
        if bytes == Array(path.decomposedStringWithCanonicalMapping.utf8) { return "NFD" }
        return "mixed"
    }
}

/// The kinds of files the merge treats differently.
extension VaultPath {
    public enum Kind: Sendable, Equatable { case room, diaryEntry, config, volume, other }

    /// `rooms/…/x.md` → room; `diary/…/x.md` → diary entry; `vault.yml` → config;
    /// `volumes/…/x/0001.md` → a room's volume; anything else → other.
    public static func kind(of path: String) -> Kind {
        if path == config { return .config }
        guard path.hasSuffix(".md") else { return .other }
        if path.hasPrefix(rooms + "/") { return .room }
        if path.hasPrefix(diary + "/") { return .diaryEntry }
        if path.hasPrefix(volumes + "/"), room(ofVolume: path) != nil { return .volume }
        return .other
    }
}

/// A long room's volumes (FORMAT.md, "Room volumes"): the room `rooms/<p>.md` keeps its older
/// messages in `volumes/<p>/0001.md`, `0002.md`, … oldest first.
extension VaultPath {
    /// `rooms/2026/busan.md` → `volumes/2026/busan`: the folder of the room's volumes.
    public static func volumeFolder(ofRoom room: String) -> String {
        var inner = room.dropFirst(rooms.count + 1)
        if inner.hasSuffix(".md") { inner = inner.dropLast(3) }
        return volumes + "/" + inner
    }

    /// `volumes/2026/busan/0001.md` → `rooms/2026/busan.md`; nil for a path that is not a volume
    /// (a volume's name is its number: digits, then `.md`).
    public static func room(ofVolume path: String) -> String? {
        guard path.hasPrefix(volumes + "/"), path.hasSuffix(".md"), let slash = path.lastIndex(of: "/") else { return nil }
        let name = path[path.index(after: slash)...].dropLast(3)
        let folder = path[path.index(path.startIndex, offsetBy: volumes.count + 1)..<slash]
        guard !name.isEmpty, name.allSatisfy({ $0.isASCII && $0.isNumber }), !folder.isEmpty else { return nil }
        return rooms + "/" + folder + ".md"
    }

    /// The name of the `number`th volume (1 is the oldest): `0001.md`.
    public static func volumeName(_ number: Int) -> String {
        let digits = String(number)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits + ".md"
    }
}
