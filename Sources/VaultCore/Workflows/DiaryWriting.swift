import Foundation

/// Writing a new diary entry (`vault write`, `vault today`): from text as one change, or in
/// the person's editor.
///
/// With the editor, the file is claimed under the vault's lock (a draft with the front-matter),
/// the editor runs without it (another `vault` may work meanwhile), and what it saved is then
/// kept and committed under it, or dropped when left empty. After the editor ran, the file is
/// never written over: it is the person's.
///
/// ```swift
/// let writing = DiaryWriting(vault: vault)
/// let entry = try writing.newEntry(title: "첫눈", date: "2026-11-21", tags: ["겨울"])
/// let result = try writing.write(entry, text: "눈이 왔다.")   // diary/2026/2026-11-21-첫눈.md
/// ```
public struct DiaryWriting {
    public let vault: Vault
    /// Diary times are written in the zone the person is in (`personsZone`: the machine's, `TZ`),
    /// so an entry written late at night abroad belongs to that night there; headings still use
    /// the vault's locale.
    public let zone: TimeZone

    /// - Parameter zone: the zone to write times in; default: `personsZone`.
    public init(vault: Vault, zone: TimeZone? = nil) {
        self.vault = vault
        self.zone = zone ?? DiaryWriting.personsZone(vault: vault)
    }

    /// The zone the person is in: the machine's (`TZ`, else the system's), unless that is UTC
    /// only because nothing set a zone (no `TZ`, and a server's or a container's default of
    /// UTC): then the vault's, the zone its rooms are written in.
    public static func personsZone(
        vault: Vault, environment: [String: String]? = nil, machine: TimeZone = .current
    ) -> TimeZone {
        // The front end's environment (`ProcessSettings`), unless the caller gives one.
        let environment = environment ?? vault.settings.environment
        if let tz = environment["TZ"], !tz.isEmpty { return machine }
        let unset = ["GMT", "UTC", "UCT", "Universal", "Zulu", "Etc/UTC", "Etc/GMT", "Etc/UCT", "Etc/Universal", "Etc/Zulu"]
        return unset.contains(machine.identifier) ? vault.config.timeZone : machine
    }

    /// Now, in the person's zone.
    public var now: Timestamp { Timestamp(date: Date(), timeZone: zone) }

    /// What a new entry is made of before its body: checked, with its time.
    public struct NewEntry: Sendable {
        package var title: String?
        package var created: Timestamp
        package var tags: [String]
    }

    /// What became of a new entry.
    public struct Result: Sendable {
        package enum Kind: Sendable, Equatable {
            /// Written and committed.
            case written
            /// The editor removed the file: no entry.
            case removedInEditor
            /// The editor left the body empty: the draft was removed, no entry.
            case leftEmpty
        }
        package var kind: Kind
        public var path: String
        /// What is wrong with what the editor saved; the entry is saved and committed all the same.
        package var problems: [FormatProblem] = []
    }

    /// Checks the parts of a new entry given on the command line.
    ///
    /// - Parameters:
    ///   - date: the day or time it is for (`2026-11-21`, `2026-11-21T22:30`, `today`, `-2`);
    ///     a day alone takes the time of day now. Nil: now.
    /// - Throws: `VaultError.input` for a date or tag that cannot be one.
    public func newEntry(title: String?, date: String?, tags: [String]) throws(VaultError) -> NewEntry {
        let created: Timestamp
        if let date {
            guard let t = DateArgument.time(date, timeZone: zone) else { throw DateArgument.problem(date) }
            created = date.contains("T") || date.contains(" ") || date.contains("+") ? t : timeOfDayNow(on: t.localDate)
        } else {
            created = now
        }
        for tag in tags where tag.trimmingCharacters(in: .whitespaces).isEmpty || tag.contains(",") {
            throw VaultError.input(.notATag(tag))
        }
        var unique: [String] = []
        for tag in tags where !unique.contains(tag) { unique.append(tag) }
        let title = title?.trimmingCharacters(in: .whitespacesAndNewlines)
        return NewEntry(title: title?.isEmpty == true ? nil : title, created: created, tags: unique)
    }

    /// Writes `entry` with the body `text` and commits it (`diary: add 2026-11-21 첫눈`).
    ///
    /// - Throws: `VaultError.input(.emptyEntry)` when `text` is blank: nothing is written.
    public func write(_ entry: NewEntry, text: String) throws(VaultError) -> Result {
        guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw VaultError.input(.emptyEntry)
        }
        let heading = DateText.heading(entry.created.localDate, locale: vault.config.locale)
        let id = Identifier.newEntryID()
        return try vault.change { change throws(VaultError) -> Result in
            let path = vault.newEntryPath(day: entry.created.localDate, title: entry.title ?? firstLine(text))
            let bytes = DiaryFile.newEntry(
                id: id, title: entry.title, created: entry.created, tags: entry.tags, heading: heading, body: text)
            change.include([path])
            try change.write(bytes, to: path, expecting: .absent)
            try change.commit(message: "diary: add \(DiaryWriting.label(try DiaryFile(parsing: bytes, path: path)))")
            return Result(kind: .written, path: path)
        }
    }

    /// Writes `entry` in `editor`: a draft is claimed, the editor runs, and what it saved is
    /// committed (or the draft dropped when left empty or removed).
    ///
    /// - Throws: when the editor failed; what it saved is kept and committed all the same.
    public func write(_ entry: NewEntry, editor: TextEditor) throws(VaultError) -> Result {
        let heading = DateText.heading(entry.created.localDate, locale: vault.config.locale)
        let draft = DiaryFile.newEntry(
            id: Identifier.newEntryID(), title: entry.title, created: entry.created, tags: entry.tags,
            heading: heading, body: "")
        // The draft is the editor's to fill: it is committed with what the editor saves.
        let path = try vault.change(handEdits: .partOfTheChange) { change throws(VaultError) -> String in
            let path = vault.newEntryPath(day: entry.created.localDate, title: entry.title)
            try change.write(draft, to: path, expecting: .absent)
            return path
        }
        let outcome = try editor.open(vault.absolute(path))
        return try vault.change([path], handEdits: .partOfTheChange) { change throws(VaultError) -> Result in
            guard FileIO.exists(vault.absolute(path)) else {
                if case .failed(let how) = outcome {
                    throw VaultError.editor(.removedDraft(editor: editor.name, how: how, path: path))
                }
                return Result(kind: .removedInEditor, path: path)
            }
            let (bytes, stamp) = try FileIO.readStamped(vault.absolute(path))
            if case .failed(let how) = outcome {
                guard bytes != draft else {
                    try removeIfUnchanged(path, stamp)
                    throw VaultError.editor(.leftDraftEmpty(editor: editor.name, how: how))
                }
                let label = (try? DiaryFile(parsing: bytes, path: path)).map(DiaryWriting.label) ?? path
                try change.commit(message: "diary: add \(label) (the editor failed: \(how))")
                throw VaultError.editor(
                    .keptWhatItSaved(
                        editor: editor.name, how: how, path: path, committed: vault.history != nil, showsDiff: false))
            }
            guard let written = try? DiaryFile(parsing: bytes, path: path) else {
                // Broken in the editor: the words are kept and committed; the problems are shown.
                try change.commit(message: "diary: add \(path)")
                return Result(kind: .written, path: path, problems: DiaryFile.problems(in: bytes, path: path))
            }
            if written.body.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                try removeIfUnchanged(path, stamp)
                return Result(kind: .leftEmpty, path: path)
            }
            try change.commit(message: "diary: add \(DiaryWriting.label(written))")
            return Result(kind: .written, path: path)
        }
    }

    /// What `vault today` did: opened today's first entry, or wrote a new one.
    public enum Today {
        case edited(Editing.Result)
        case written(Result)
    }

    /// Opens today's first entry in `editor`, else writes a new one in it.
    public func today(editor: TextEditor) throws(VaultError) -> Today {
        if let path = vault.entries(on: now.localDate).first {
            return .edited(try Editing(vault: vault, zone: zone).edit(path, in: editor))
        }
        return .written(try write(try newEntry(title: nil, date: nil, tags: []), editor: editor))
    }

    /// How a diary entry is named in commit messages: `2026-11-21 첫눈`.
    public static func label(_ entry: DiaryFile) -> String {
        let day = entry.day.map { "\($0) " } ?? ""
        return day + entry.title
    }

    /// " and committed" when the vault keeps history.

    /// Removes a file the editor left as vault wrote it (a draft never written to), if it is
    /// still the version read (`stamp`).
    private func removeIfUnchanged(_ path: String, _ stamp: FileIO.Stamp) throws(VaultError) {
        guard FileIO.stamp(of: vault.absolute(path)) == stamp else { return }
        try FileIO.remove(vault.absolute(path))
    }

    /// The current time of day, on `day`, in the person's zone.
    private func timeOfDayNow(on day: LocalDate) -> Timestamp {
        let current = now
        let clock = current.text.dropFirst(11).prefix(8)
        return DateArgument.time("\(day)T\(clock)", timeZone: zone) ?? current
    }

    private func firstLine(_ text: String) -> String? {
        text.split(separator: "\n").first.map { $0.trimmingCharacters(in: .whitespaces) }
            .flatMap { $0.isEmpty ? nil : String($0.prefix(60)) }
    }
}
