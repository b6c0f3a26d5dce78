/// `vault resolve ROOM --keep ID` and `--keep-both`: a message edited differently on two
/// machines (`MessageConflict`) settled by the person, as one commit.
///
/// Keeping one version removes the other's lines. When the kept one is the later version, it
/// takes back the message's own id (replies and `--reply-to` still find it) and loses its
/// `conflict=`. Keeping both makes the later one a message of its own: only its `conflict=`
/// goes. Nothing else of the file changes, and the person's hand edits are committed first.
package struct ConflictSettling {
    package let vault: Vault

    package init(vault: Vault) {
        self.vault = vault
    }

    package enum Choice: Sendable, Equatable {
        /// Keep this version (either id of a pair) and drop the other.
        case keep(String)
        /// Keep every version, as messages of their own.
        case keepBoth
    }

    /// Settles the conflicts of the room at `path` as `choice` says.
    ///
    /// - Returns: what was done, a line each (`kept m-… (the other version, m-…, removed)`).
    /// - Throws: `.input(.noConflictToSettle)`, `.input(.notAConflictVersion)`; nothing changes.
    package func settle(_ path: String, _ choice: Choice) throws(VaultError) -> [String] {
        try vault.change([path]) { change throws(VaultError) -> [String] in
            let (file, stamp, bytes, done) = try change.workedOut(before: path) {
                () throws(VaultError) -> (RoomFile, FileIO.Stamp, [UInt8], [(message: String, note: String)]) in
                let (file, stamp) = try vault.readRoomStamped(path)
                let (bytes, done) = try settled(file, choice)
                return (file, stamp, bytes, done)
            }
            try change.write(bytes, to: path, expecting: .unchanged(stamp))
            let what = choice == .keepBoth ? "kept both versions" : "kept one version"
            try change.commit(message: "resolve: \(file.title): \(what) of " + done.map(\.message).joined(separator: ", "))
            return done.map(\.note)
        }
    }

    private func settled(_ file: RoomFile, _ choice: Choice) throws(VaultError)
        -> ([UInt8], [(message: String, note: String)])
    {
        let conflicts = file.conflicts
        guard !conflicts.isEmpty else { throw VaultError.input(.noConflictToSettle(path: file.path)) }
        let index = Dictionary(file.messages.enumerated().map { ($1.line, $0) }, uniquingKeysWith: { a, _ in a })
        // Edits from the end of the file back, so earlier byte offsets stay right.
        var edits: [(range: Range<Int>, bytes: [UInt8])] = []
        var done: [(String, String)] = []
        func block(_ m: Message) -> Range<Int> { file.byteRange(ofMessageAt: index[m.line]!) }
        switch choice {
        case .keepBoth:
            for c in conflicts {
                let range = block(c.other)
                edits.append((range, Merge.renamed(Array(file.bytes[range]), to: c.other.id, conflictOf: nil)))
                done.append((c.original.id, "kept both versions of \(c.original.id) (the other is now \(c.other.id))"))
            }
        case .keep(let id):
            guard let c = conflicts.first(where: { $0.original.id == id || $0.other.id == id }) else {
                throw VaultError.input(
                    .notAConflictVersion(id, path: file.path, versions: conflicts.flatMap { [$0.original.id, $0.other.id] }))
            }
            if c.original.id == id {
                edits.append((block(c.other), []))
                done.append((c.original.id, "kept \(id) (its other version, \(c.other.id), removed)"))
            } else {
                let range = block(c.other)
                edits.append((range, Merge.renamed(Array(file.bytes[range]), to: c.original.id, conflictOf: nil)))
                edits.append((block(c.original), []))
                done.append((c.original.id, "kept the other version of \(c.original.id) (the first removed)"))
            }
        }
        var bytes = file.bytes
        for edit in edits.sorted(by: { $0.range.lowerBound > $1.range.lowerBound }) {
            bytes.replaceSubrange(edit.range, with: edit.bytes)
        }
        return (bytes, done)
    }
}
