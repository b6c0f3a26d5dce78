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
///
/// A hand edit removes only what the person saw. A chat turn or a sync that changed the file
/// while the editor had it open committed its version; an editor that then saves its older
/// buffer would take that change away. So when the last commit of the file is no longer the
/// one it had when the editor opened, what the editor saved is merged three ways, as a sync
/// merges: the base is what the editor was given, ours what it saved, theirs the version
/// committed meanwhile (`Merge.room` by message id for a room, `Merge.diaryEntry` for an
/// entry). A message that arrived is kept; the person's edits and removals of messages they
/// saw are kept too, and the `edit:` commit holds only those.
public struct Editing {
    public let vault: Vault
    /// The zone `updated` is written in (the person's).
    public let zone: TimeZone

    public init(vault: Vault, zone: TimeZone? = nil) {
        self.vault = vault
        self.zone = zone ?? DiaryWriting.personsZone(vault: vault)
    }

    /// What became of the file.
    public struct Result: Sendable {
        package enum Kind: Sendable, Equatable {
            /// Changed and committed.
            case saved
            /// Saved as it was (or as the last commit has it): nothing committed.
            case unchanged
            /// Removed in the editor; the removal is kept (and committed).
            case removed
        }
        package var kind: Kind
        package var path: String
        /// What is wrong with what the editor saved; the edit is saved and committed all the same.
        package var problems: [FormatProblem] = []
        /// What changed in the file while the editor had it open (a chat turn, a sync) and was
        /// kept though the editor saved an older version: `kept 1 message that arrived while
        /// you were editing`. Empty when nothing changed meanwhile.
        package var kept: [String] = []
    }

    /// Opens `path` in `editor` and commits what it saved (`edit: …`, `diary: edit …`).
    ///
    /// - Throws: when the editor failed (what it saved is kept and committed, and the error
    ///   says so), or cannot be started.
    public func edit(_ path: String, in editor: TextEditor) throws(VaultError) -> Result {
        let (original, committedBefore) = try vault.change([path]) {
            change throws(VaultError) -> ([UInt8], [UInt8]?) in
            try change.commitHandEdits()
            // Should vault end before it commits the edit, the next command commits it.
            change.willChange([path])
            return (try FileIO.read(vault.absolute(path)), try change.committedVersion(of: path))
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
            let kept = try keepingWhatChangedMeanwhile(
                path, given: original, committedBefore: committedBefore, in: change)
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
            guard bytes != original, bytes != kept?.theirs else {
                return Result(kind: .unchanged, path: path, kept: kept?.notes ?? [])
            }
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
            return Result(
                kind: unchanged ? .unchanged : .saved, path: path, problems: problems, kept: kept?.notes ?? [])
        }
    }

    /// `rooms/x.md was removed in the editor; the removal is kept and committed (…)`.
    public func removalNote(_ path: String) -> String {
        EditorFailure.removal(of: path, committed: vault.history != nil)
    }


    /// What a chat turn or a sync committed of the file while the editor had it open, kept.
    private struct KeptMeanwhile {
        /// The version committed meanwhile.
        var theirs: [UInt8]
        var notes: [String]
    }

    /// Merges what the editor saved with the version committed while it was open, and writes
    /// the result over the editor's save (only while the file is still that save): nil when
    /// the committed version did not change meanwhile, or the editor saved on top of it.
    private func keepingWhatChangedMeanwhile(
        _ path: String, given: [UInt8], committedBefore: [UInt8]?, in change: Change
    ) throws(VaultError) -> KeptMeanwhile? {
        guard let theirs = try change.committedVersion(of: path), theirs != committedBefore, theirs != given
        else { return nil }
        let (saved, stamp) = try FileIO.readStamped(vault.absolute(path))
        guard saved != theirs else { return nil }
        let merged = Editing.merged(path, given: given, saved: saved, theirs: theirs)
        if merged.bytes != saved {
            try change.write(merged.bytes, to: path, expecting: .unchanged(stamp))
        }
        let notes = Editing.keptNotes(path, merged, given: given, saved: saved, theirs: theirs)
        return KeptMeanwhile(theirs: theirs, notes: notes)
    }

    /// The three-way merge of a stale save by the file's kind (`Merge.file`: a room by message
    /// id, an entry by front-matter key and line), and by line when a version does not parse.
    public static func merged(_ path: String, given: [UInt8], saved: [UInt8], theirs: [UInt8]) -> FileMerge {
        (try? Merge.file(path: path, base: given, ours: saved, theirs: theirs, newer: .ours))
            ?? Merge.text(base: given, ours: saved, theirs: theirs)
    }

    /// What the person is told: how many messages that arrived were kept, or that the other
    /// changes were, and where they could not be (lines both changed).
    static func keptNotes(
        _ path: String, _ merged: FileMerge, given: [UInt8], saved: [UInt8], theirs: [UInt8]
    ) -> [String] {
        // No conflict copy is written: the other version stays in the commit before the edit.
        guard merged.conflictCopy == nil else {
            return [
                "it changed while you were editing, where you changed it: your version is kept, the other"
                    + " is in the commit before your edit (vault log \(path))"
            ]
        }
        var notes = merged.notes.filter { !$0.hasSuffix("from the other side") }
        func ids(_ bytes: [UInt8]) -> Set<String> {
            Set(((try? RoomFile(parsing: bytes, path: path))?.messages ?? []).map(\.id))
        }
        let arrived = VaultPath.kind(of: path) == .room
            ? ids(theirs).subtracting(ids(given)).intersection(ids(merged.bytes)).count : 0
        if arrived > 0 {
            notes.insert(
                "kept \(Merge.counted(arrived, "message", "messages")) that arrived while you were editing", at: 0)
        } else if merged.bytes != saved {
            notes.insert("kept the changes made to it while you were editing", at: 0)
        }
        return notes
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
