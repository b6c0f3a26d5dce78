import Foundation

/// `vault edit` (and `vault today` on a day with an entry): a room or diary entry opened in
/// the person's editor, and what it saved committed.
///
/// Hand edits made before are committed first, as their own commit; the file is then noted
/// as changing (a process killed while the editor runs leaves it for the next command to
/// commit), and the editor runs without the vault's lock. After it ran the file is never
/// written over: what it saved is kept (and committed) even when it failed, and so is anything
/// else that changed the file meanwhile (a chat turn that landed in the room, a save after a
/// GUI editor returned). An entry edited gets `updated` set.
public struct Editing {
    public let vault: Vault
    /// The zone `updated` is written in (the person's).
    public let zone: TimeZone

    public init(vault: Vault, zone: TimeZone = .current) {
        self.vault = vault
        self.zone = zone
    }

    /// What became of the file.
    public struct Result: Sendable {
        public enum Kind: Sendable, Equatable {
            /// Changed and committed.
            case saved
            /// Saved as it was (or as the last commit has it): nothing committed.
            case unchanged
            /// Removed in the editor; the removal is kept (and committed).
            case removed
        }
        public var kind: Kind
        public var path: String
        /// What is wrong with what the editor saved; the edit is saved and committed all the same.
        public var problems: [FormatProblem] = []
    }

    /// Opens `path` in `editor` and commits what it saved (`edit: …`, `diary: edit …`).
    ///
    /// - Throws: when the editor failed (what it saved is kept and committed, and the error
    ///   says so), or cannot be started.
    public func edit(_ path: String, in editor: TextEditor) throws(VaultError) -> Result {
        let original = try vault.change([path]) { change throws(VaultError) -> [UInt8] in
            try change.commitHandEdits()
            // Should vault end before it commits the edit, the next command commits it.
            change.willChange([path])
            return try FileIO.read(vault.absolute(path))
        }
        let outcome = try editor.open(vault.absolute(path))
        // What the editor saved is the change.
        return try vault.change([path], handEdits: .partOfTheChange) { change throws(VaultError) -> Result in
            guard FileIO.entryExists(vault.absolute(path)) else {
                let how: String
                if case .failed(let text) = outcome { how = text } else { how = "" }
                try change.commit(message: "edit: \(path) (removed in the editor)")
                guard how.isEmpty else {
                    throw VaultError.editor(
                        .removedFile(editor: editor.name, how: how, path: path, committed: vault.history != nil))
                }
                return Result(kind: .removed, path: path)
            }
            if case .failed(let how) = outcome {
                // Kept as it is: no `updated`, no write. Committed if anything changed.
                let bytes = try FileIO.read(vault.absolute(path))
                let committed = try change.commit(message: "edit: \(path) (the editor failed: \(how))")
                if vault.history == nil ? bytes != original : committed {
                    throw VaultError.editor(
                        .keptWhatItSaved(
                            editor: editor.name, how: how, path: path, committed: vault.history != nil,
                            showsDiff: true))
                }
                throw VaultError.editor(.savedNothing(editor: editor.name, how: how, path: path))
            }
            var bytes = try FileIO.read(vault.absolute(path))
            guard bytes != original else { return Result(kind: .unchanged, path: path) }
            let message: String
            if path.hasPrefix(VaultPath.diary + "/"), let entry = try? DiaryFile(parsing: bytes, path: path) {
                bytes = try settingUpdated(path, in: change)
                message = "diary: edit \(DiaryWriting.label(entry))"
            } else {
                message = "edit: \(path)"
            }
            let committed = try change.commit(message: message)
            let problems = path.hasPrefix(VaultPath.rooms + "/")
                ? RoomFile.problems(in: bytes, path: path) : DiaryFile.problems(in: bytes, path: path)
            let unchanged = vault.history != nil && !committed
            return Result(kind: unchanged ? .unchanged : .saved, path: path, problems: problems)
        }
    }

    /// `rooms/x.md was removed in the editor; the removal is kept and committed (…)`.
    public func removalNote(_ path: String) -> String {
        EditorFailure.removal(of: path, committed: vault.history != nil)
    }


    /// Sets `updated` of the entry at `path` over the version on disk, never over a newer save
    /// (a GUI editor may still be saving): read again and done again if the file changed.
    private func settingUpdated(_ path: String, in change: Change) throws(VaultError) -> [UInt8] {
        let now = Timestamp(date: Date(), timeZone: zone)
        var attempt = 1
        while true {
            let (bytes, stamp) = try FileIO.readStamped(vault.absolute(path))
            let touched = try vault.touchingUpdated(bytes, path: path, now: now)
            do {
                try change.write(touched, to: path, expecting: .unchanged(stamp))
                return touched
            } catch .changedOnDisk where attempt < 3 {
                attempt += 1
            }
        }
    }
}
