/// The people of a shared vault as `vault people` lists them: each with the last message they wrote.
public struct PersonSummary: Sendable, Codable {
    public var name: String
    public var email: String?
    /// Whether this is the person using this machine (`Identity`).
    public var isMe: Bool
    /// The last message they wrote (`author=` naming them), in any room; nil when none.
    public var last: LastMessage?

    public struct LastMessage: Sendable, Codable {
        package var path: String
        package var title: String
        package var id: String
        /// As written in its header (RFC 3339).
        package var time: String
        /// Its first line (a reply's quote left out), shortened.
        package var preview: String
    }

    enum CodingKeys: String, CodingKey {
        case name, email, isMe = "me", last
    }
}

extension Vault {
    /// The people of `vault.yml`'s `people:`, in the order written, each with the last message
    /// they wrote in any room; `me` marks this machine's person.
    ///
    /// Reads each room from its end back until every person's last message there is found (a
    /// room where someone never wrote is read whole). A room that cannot be read is passed over
    /// (`vault check` says why).
    public func people(me: Identity) -> [PersonSummary] {
        let people = config.people
        var last: [String: (message: Message, path: String, title: String)] = [:]
        let wanted = Set(people.map(\.key))
        for path in roomPaths() {
            guard
                let room = try? RoomFile.readEnd(absolute(path), path: path, enough: { room in
                    let found = Set(room.messages.compactMap { $0.author.map { Workspace.key($0.name) } })
                    return wanted.isSubset(of: found)
                }).room
            else { continue }
            for message in room.messages {
                guard let author = message.author else { continue }
                let key = Workspace.key(author.name)
                guard wanted.contains(key) else { continue }
                if let known = last[key], known.message.timestamp.date > message.timestamp.date { continue }
                last[key] = (message, path, room.title)
            }
        }
        let myKey = Workspace.key(me.name)
        return people.map { person in
            let found = last[person.key].map { found in
                PersonSummary.LastMessage(
                    path: found.path, title: found.title, id: found.message.id, time: found.message.timestamp.text,
                    preview: Preview.firstLine(
                        of: found.message.body, quoted: found.message.header.attribute(Posting.replyToKey) != nil))
            }
            return PersonSummary(name: person.name, email: person.email, isMe: person.key == myKey, last: found)
        }
    }
}
