/// `vault room new`: a new room file, as one change (`room: new 부산 여행`).
package struct RoomCreation {
    package let vault: Vault

    package init(vault: Vault) {
        self.vault = vault
    }

    /// Makes a room titled `title` at a free `rooms/<slug>.md` (format 2: `rooms/<yyyy>/<slug>.md`),
    /// with `model`, `system` and `members` set when given. When that name is taken (a room with
    /// the same title, or one whose title gives the same name, in any room folder), the room is
    /// made as `<slug>-2.md` (`-3`, …), unless `unique`.
    ///
    /// - Returns: the new room's path.
    /// - Throws: `VaultError.input(.emptyTitle)` for a blank title, `.roomNameTaken` when
    ///   `unique` and the name is taken: nothing is written.
    ///   `members` (names, the creator's first): the people the room is shared with
    ///   (`members:`; none: one person's own room).
    package func create(
        title: String, model: String? = nil, system: String? = nil, unique: Bool = false, members: [String] = []
    ) throws(VaultError) -> String {
        let title = title.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !title.isEmpty else { throw VaultError.input(.emptyTitle) }
        return try vault.change { change throws(VaultError) -> String in
            let path = vault.newRoomPath(title: title)
            if unique, let named = RoomCreation.taken(title: title, in: vault, free: path) {
                throw VaultError.input(.roomNameTaken(taken: named, free: path))
            }
            change.include([path])
            var settings: [(String, FrontMatterValue)] = []
            if let model { settings.append(("model", .string(model))) }
            if let system { settings.append(("system", .string(system))) }
            if !members.isEmpty { settings.append((Workspace.membersKey, .list(members))) }
            let bytes = RoomFile.newRoom(title: title, created: vault.now(), settings: settings)
            try change.write(bytes, to: path, expecting: .absent)
            try change.commit(message: "room: new \(title)")
            return path
        }
    }

    /// The room that has the name a room titled `title` would take, when the room made at `free`
    /// could not take it (it got `-2`, …); nil when it did.
    package static func taken(title: String, in vault: Vault, free: String) -> String? {
        let slug = VaultPath.slug(title.trimmingCharacters(in: .whitespacesAndNewlines))
        guard VaultPath.stem(of: free) != slug else { return nil }
        return vault.rooms(named: slug).first ?? "\(VaultPath.rooms)/\(slug).md"
    }
}
