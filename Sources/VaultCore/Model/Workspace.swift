import Foundation

/// A person of a vault several people share: `people:` in `vault.yml` (FORMAT.md, "People and
/// members").
///
///     people:
///       - Ada Kim <ada@example.com>
///       - 박보검
///       - name: Chris
///         email: chris@example.com
public struct Person: Sendable, Hashable, Codable {
    /// The name their messages carry (`author=`) and rooms list them by (`members:`).
    public var name: String
    public var email: String?
    /// `key:` or `keys:`: the SSH public keys their commits are signed with (`ssh-ed25519 AAAA…`,
    /// as in `~/.ssh/id_ed25519.pub`), so a message that claims to be theirs can be checked
    /// against the key that signed the commit bringing it (FORMAT.md, "Signed commits").
    public var keys: [String] = []

    /// A person named `name` (a name `Author` takes, without `<` or `>`), or nil.
    public init?(name: String?, email: String?) {
        guard let name, let parsed = Identity.parse(name), parsed.email == nil else { return nil }
        let email = email?.trimmingCharacters(in: .whitespaces)
        if let email, email.isEmpty || email.contains(" ") || email.contains("<") || email.contains(">") {
            return nil
        }
        self.name = parsed.name
        self.email = email
    }

    /// A person written `Name <email>` or `Name`.
    public init?(text: String) {
        guard let parsed = Identity.parse(text) else { return nil }
        self.name = parsed.name
        self.email = parsed.email
    }

    /// The name as names are compared: NFC, case folded.
    public var key: String { Workspace.key(name) }

    /// The principal their keys have in an allowed-signers file (`ssh-keygen -Y verify -I`,
    /// git's `gpg.ssh.allowedSignersFile`): the name as `author=` writes it, so it holds no space,
    /// comma or pattern character.
    public var principal: String { Author(name: name).map(\.attributeValue) ?? name }

    /// Whether `text` is one SSH public key line: a key type (`ssh-ed25519`, `ssh-rsa`,
    /// `ecdsa-sha2-nistp256`, `sk-…`), its base64, and an optional comment, on one line without
    /// control characters.
    public static func isPublicKey(_ text: String) -> Bool {
        let fields = text.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count >= 2, !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { return false }
        let type = fields[0]
        guard type.hasPrefix("ssh-") || type.hasPrefix("ecdsa-sha2-") || type.hasPrefix("sk-") else { return false }
        return fields[1].count >= 16 && fields[1].allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+/=".contains($0)) }
    }
}

/// What a room is to the people of a vault, by its front-matter's `members:`.
public enum RoomKind: String, Sendable, Codable {
    /// No members: one person's own room, talking to a model (every room before workspaces).
    case own
    /// Two members: a direct conversation.
    case direct
    /// One member, or three and more: a group.
    case group

    public init(members: [String]) {
        switch members.count {
        case 0: self = .own
        case 2: self = .direct
        default: self = .group
        }
    }
}

/// The people of a vault and the members of its rooms: names found, compared and listed.
public enum Workspace {
    /// The front-matter key listing a room's members.
    public static let membersKey = "members"

    /// The allowed-signers file (`ssh-keygen -Y verify -f`, git's `gpg.ssh.allowedSignersFile`)
    /// for `people`: one line per key, `PRINCIPAL namespaces="git" KEY`, the principal the
    /// person's name as `author=` writes it (`Person.principal`). `vault people --allowed-signers`
    /// prints it, so `git log --show-signature` checks commits by the keys vault checks them by.
    ///
    ///     Workspace.allowedSigners(people)
    ///     // Ada%20Kim namespaces="git" ssh-ed25519 AAAAC3Nza… ada@laptop
    public static func allowedSigners(_ people: [Person]) -> String {
        people.flatMap { person in person.keys.map { "\(person.principal) namespaces=\"git\" \($0)\n" } }.joined()
    }

    /// A name as names are compared: spaces around it removed, NFC, case folded.
    public static func key(_ name: String) -> String {
        name.trimmingCharacters(in: .whitespaces).precomposedStringWithCanonicalMapping.lowercased()
    }

    /// The members a room's front-matter lists (`members:`: a list of names, or one name).
    public static func members(of frontMatter: FrontMatter?) -> [String] {
        switch frontMatter?.values[membersKey] {
        case .list(let names)?: return names.compactMap { Author(name: $0)?.name }
        case .string(let name)?: return Author(name: name).map { [$0.name] } ?? []
        default: return []
        }
    }

    /// Whether `members` holds `name` (compared as `key` does).
    public static func contains(_ members: [String], _ name: String) -> Bool {
        let wanted = key(name)
        return members.contains { key($0) == wanted }
    }

    /// The members of a new room `creator` makes with the people `typed` names (`--with`): the
    /// creator first, then each person once, by the name `people:` gives them.
    public static func members(creator: String, with typed: [String], people: [Person]) throws(VaultError)
        -> [String]
    {
        var members = [creator]
        for name in typed {
            let person = try person(name, among: people)
            if !contains(members, person.name) { members.append(person.name) }
        }
        return members
    }

    /// The person of `people` that `typed` names: their name (any case), else their email,
    /// else the one name it starts (`ada` for Ada Kim).
    ///
    /// - Throws: `VaultError.input(.unknownPerson)` with the people listed, or with none when
    ///   `vault.yml` lists nobody; `.ambiguousPerson` when the start fits several.
    public static func person(_ typed: String, among people: [Person]) throws(VaultError) -> Person {
        let wanted = key(typed)
        if let exact = people.first(where: { $0.key == wanted }) { return exact }
        if let byEmail = people.first(where: { $0.email.map(key) == wanted }) { return byEmail }
        let starting = people.filter { $0.key.hasPrefix(wanted) }
        if starting.count == 1, !wanted.isEmpty { return starting[0] }
        if starting.count > 1, !wanted.isEmpty {
            throw VaultError.input(.ambiguousPerson(typed, matches: starting.map(\.name)))
        }
        throw VaultError.input(.unknownPerson(typed, known: people.map(\.name)))
    }
}

/// The rooms of a shared vault as `vault rooms` groups them for one person: the group and direct
/// rooms they are a member of, their own rooms (no members), and shared rooms they have not joined.
package struct RoomSections: Sendable {
    package var groups: [RoomSummary] = []
    package var direct: [RoomSummary] = []
    package var own: [RoomSummary] = []
    package var notJoined: [RoomSummary] = []
    /// Each room's place in the list given.
    package var index: [String: Int] = [:]

    /// `rooms` (in the order shown) sorted out for `me` (a name).
    package init(_ rooms: [RoomSummary], me: String) {
        for (i, room) in rooms.enumerated() {
            index[room.path] = i
            switch room.kind {
            case .own: own.append(room)
            case _ where !Workspace.contains(room.members, me): notJoined.append(room)
            case .direct: direct.append(room)
            case .group: groups.append(room)
            }
        }
    }

    /// The sections with their headings (`ListingWords.sections`, in the vault's language), in
    /// the order shown.
    package func titled(_ words: ListingWords) -> [(String, [RoomSummary])] {
        zip(words.sections, [groups, direct, own, notJoined]).map { ($0, $1) }
    }
}
