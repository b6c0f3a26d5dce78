/// `vault room join` and `vault room leave`: a person added to or taken from a room's
/// `members:`, as one change (`room: Trip: Ada Kim joined`).
///
/// Only the `members:` lines of the front-matter change (`FrontMatterEditor`), over the version
/// read. A room someone left keeps every message they wrote; a member is only who the room is
/// shared with now (`RoomKind`, `vault rooms`).
public struct Membership {
    public let vault: Vault

    public init(vault: Vault) {
        self.vault = vault
    }

    /// What a join or a leave did.
    public enum Result: Sendable, Equatable {
        /// The members changed; they are now these.
        case changed([String])
        /// The person was already a member (a join), or was not one (a leave): nothing written.
        case alreadySo
    }

    /// Adds `person` to the members of the room at `path`.
    public func join(_ path: String, as person: Author) throws(VaultError) -> Result {
        try update(path, verb: "joined") { members in
            Workspace.contains(members, person.name) ? nil : members + [person.name]
        }
    }

    /// Takes `person` out of the members of the room at `path` (their messages stay).
    public func leave(_ path: String, as person: Author) throws(VaultError) -> Result {
        try update(path, verb: "left") { members in
            let key = Workspace.key(person.name)
            let left = members.filter { Workspace.key($0) != key }
            return left.count == members.count ? nil : left
        }
    }

    /// Sets the room's members to what `change` makes of them (nil: nothing to do), as one commit
    /// naming the person and `verb`.
    private func update(_ path: String, verb: String, _ changing: ([String]) -> [String]?) throws(VaultError)
        -> Result
    {
        guard VaultPath.kind(of: path) == .room else { throw VaultError.input(.notARoom(path)) }
        return try vault.change([path]) { change throws(VaultError) -> Result in
            // Refused (a file it cannot change), nothing is committed.
            let worked = try change.workedOut(before: path) {
                () throws(VaultError) -> (RoomFile, FileIO.Stamp, [String], [String], [UInt8])? in
                let (file, stamp) = try vault.readRoomStamped(path)
                let before = Workspace.members(of: file.frontMatter)
                guard let after = changing(before) else { return nil }
                // The last member out leaves the key out: the room is nobody's shared room any more.
                return (file, stamp, before, after, try file.setting(Workspace.membersKey, to: after.isEmpty ? nil : .list(after)))
            }
            guard let (file, stamp, before, after, bytes) = worked else { return .alreadySo }
            try change.write(bytes, to: path, expecting: .unchanged(stamp))
            let who = Set(before.map(Workspace.key)).symmetricDifference(after.map(Workspace.key))
            let name = (before + after).first { who.contains(Workspace.key($0)) } ?? ""
            try change.commit(message: "room: \(file.title): \(name) \(verb)")
            return .changed(after)
        }
    }
}
