/// What becomes of a path both sides made with different contents (git's add/add: no common
/// ancestor), the rule `vault sync` (`TreeMerge`) and `vault merge-driver` (a `git pull`) share,
/// so both give the same files.
package enum AddedTwice: Sendable, Equatable {
    /// Two different rooms made under one name (`Merge.isSameRoom` says no): both stay. The
    /// earlier one keeps the name; the later one (`later`: which side made it) moves to
    /// `newPath`, the first free `NAME-2.md`, `NAME-3.md`, ….
    case apart(later: Merge.Newer, newPath: String)
    /// One file made on both sides (the same room, an entry, any other file): merged as
    /// `Merge.committed` merges with no ancestor.
    case merged(FileMerge)
}

extension Merge {
    /// The rule for a path both sides made (`AddedTwice`). `isTaken` says whether a name is in
    /// use already (in either side's tree, the merge's result, or the work tree).
    ///
    ///     switch try Merge.addedTwice(path: "rooms/busan.md", ours: o, theirs: t, newer: .theirs, isTaken: taken) {
    ///     case .apart(let later, let newPath): … // keep one, write the later one at newPath
    ///     case .merged(let merged): …            // merged.bytes, merged.conflictCopy
    ///     }
    package static func addedTwice(
        path: String, ours: [UInt8], theirs: [UInt8], newer: Newer, isTaken: (String) -> Bool
    ) throws(VaultError) -> AddedTwice {
        if VaultPath.kind(of: path) == .room, !isSameRoom(ours, theirs, path: path) {
            return .apart(later: newer, newPath: freeName(for: path, isTaken: isTaken))
        }
        return .merged(try committed(path: path, base: nil, ours: ours, theirs: theirs, newer: newer))
    }

    /// The report's line for `.apart`.
    package static func keptApart(_ path: String, newPath: String) -> String {
        "\(path): two different rooms were made under this name; the later one is now \(newPath)"
    }

    /// The first of `NAME-2.md`, `NAME-3.md`, … that `isTaken` does not claim.
    static func freeName(for path: String, isTaken: (String) -> Bool) -> String {
        let stem = path.hasSuffix(".md") ? String(path.dropLast(3)) : path
        var n = 2
        while isTaken("\(stem)-\(n).md") { n += 1 }
        return "\(stem)-\(n).md"
    }
}
