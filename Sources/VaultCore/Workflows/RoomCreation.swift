/// `vault room new`: a new room file, as one change (`room: new 부산 여행`).
public struct RoomCreation {
    public let vault: Vault

    public init(vault: Vault) {
        self.vault = vault
    }

    /// Makes a room titled `title` at a free `rooms/<slug>.md`, with `model` and `system` set
    /// when given.
    ///
    /// - Returns: the new room's path.
    /// - Throws: `VaultError.input(.emptyTitle)` for a blank title: nothing is written.
    public func create(title: String, model: String? = nil, system: String? = nil) throws(VaultError) -> String {
        let title = title.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !title.isEmpty else { throw VaultError.input(.emptyTitle) }
        return try vault.change { change throws(VaultError) -> String in
            let path = vault.newRoomPath(title: title)
            change.include([path])
            var settings: [(String, FrontMatterValue)] = []
            if let model { settings.append(("model", .string(model))) }
            if let system { settings.append(("system", .string(system))) }
            let bytes = RoomFile.newRoom(title: title, created: vault.now(), settings: settings)
            try change.write(bytes, to: path, expecting: .absent)
            try change.commit(message: "room: new \(title)")
            return path
        }
    }
}
