/// `vault tag`: tags of a diary entry added and removed, as one change (`tag: 2026-11-21 첫눈 +a -b`).
///
/// Only the `tags` and `updated` lines of the entry change, and only over the version read:
/// a save made in an editor meanwhile is never overwritten.
public struct Tagging {
    public let vault: Vault
    /// When `updated` is set (the person's zone).
    public let now: Timestamp

    public init(vault: Vault, now: Timestamp) {
        self.vault = vault
        self.now = now
    }

    /// Adds `adding` and removes `removing` from the tags of `item`.
    ///
    /// - Returns: the entry's path and its tags now.
    /// - Throws: `VaultError.input(.notADiaryEntry)` when `item` is a room; a format error when the
    ///   entry cannot be read. Nothing is written then.
    public func tag(_ item: VaultItem, adding: [String], removing: [String]) throws(VaultError)
        -> (path: String, tags: [String])
    {
        guard case .diaryEntry(let path) = item else {
            throw VaultError.input(.notADiaryEntry(item.path))
        }
        return try vault.change([path]) { change throws(VaultError) -> (path: String, tags: [String]) in
            // An entry that cannot be tagged (its front-matter does not read) commits nothing.
            let (bytes, tags, stamp) = try change.workedOut(before: path) { () throws(VaultError) in
                try vault.retagging(path, adding: adding, removing: removing, now: now)
            }
            try change.write(bytes, to: path, expecting: .unchanged(stamp))
            let entry = try DiaryFile(parsing: bytes, path: path)
            let summary = (adding.map { "+" + $0 } + removing.map { "-" + $0 }).joined(separator: " ")
            try change.commit(message: "tag: \(DiaryWriting.label(entry)) \(summary)")
            return (path, tags)
        }
    }
}
