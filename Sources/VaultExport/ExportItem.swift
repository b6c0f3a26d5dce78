import VaultCore

/// A room or a diary entry, read and ready to export.
///
///     let items = try [ExportItem(.room("rooms/부산-여행.md"), in: vault)]
///     let markdown = Exporter(vault: vault).markdown(items)
public enum ExportItem: Sendable {
    /// A diary entry, with its day when the file alone does not tell it (the store can
    /// date an entry by its file's history or time; see `DiarySummary.date`).
    case diaryEntry(DiaryFile, day: LocalDate?)
    case room(RoomFile)

    /// Reads `item` from `vault`.
    ///
    /// - Throws: `VaultError.malformed` when the file does not parse (a room's unreadable message
    ///   headers excepted: see `RoomFile.unreadHeaders`), `.io` when it cannot be read.
    public init(_ item: VaultItem, in vault: Vault, day: LocalDate? = nil) throws(VaultError) {
        switch item {
        // What can be read of a room: a message header with a bad timestamp stays as text,
        // marked (`Exporter.unreadHeaderMark`), and the command warns.
        case .room(let path): self = .room(try vault.readRoomWhatCan(path))
        case .diaryEntry(let path):
            let entry = try vault.readDiaryEntry(path)
            self = .diaryEntry(entry, day: entry.day ?? day)
        }
    }

    /// The file's path, relative to the vault.
    public var path: String {
        switch self {
        case .diaryEntry(let entry, _): return entry.path
        case .room(let room): return room.path
        }
    }

    /// The room's title, or the entry's (front-matter `title`, else its first line).
    public var title: String {
        switch self {
        case .diaryEntry(let entry, _): return entry.title
        case .room(let room): return room.title
        }
    }
}
