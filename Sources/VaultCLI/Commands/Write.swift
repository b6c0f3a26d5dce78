import ArgumentParser
import Foundation
import VaultCore

#if canImport(Glibc)
import Glibc
#endif

/// How a diary entry is named in commit messages: `2026-11-21 첫눈`.
func entryLabel(_ entry: DiaryFile) -> String {
    let day = entry.day.map { "\($0) " } ?? ""
    return day + entry.title
}

extension VaultCommand {
    struct Write: VaultRunnable {
        static let configuration = CommandConfiguration(
            commandName: "write",
            abstract: "Write a diary entry.",
            discussion: """
                The body comes from --body, else from standard input when it is not a terminal, \
                else from your editor ($VISUAL, then $EDITOR). An entry left empty is not kept.
                """,
            aliases: ["new"])

        @OptionGroup var location: VaultLocation
        @Argument(help: "The entry's title (default: none; the first line of the body names it).") var title: String?
        @Option(parsing: .unconditional, help: "The day or time it is for: 2026-11-21, 2026-11-21T22:30, today, yesterday, -2.") var date: String?
        @Option(name: .customLong("tag"), help: "A tag (repeat for more).") var tags: [String] = []
        @Option(help: "The body, instead of an editor.") var body: String?
        @Flag(help: "Open the editor even when standard input is not a terminal.") var editor = false

        func execute() throws {
            let vault = try location.openForChange()
            // SIGINT, SIGTERM, SIGHUP wait until the entry is saved and committed (`Termination`).
            try Termination.deferring { () throws(VaultError) in
                try DiaryWriting(vault: vault).write(title: title, date: date, tags: tags, body: body, forceEditor: editor)
            }
        }
    }

    struct Today: VaultRunnable {
        static let configuration = CommandConfiguration(
            commandName: "today",
            abstract: "Open today's diary entry in your editor, making it if there is none.")

        @OptionGroup var location: VaultLocation

        func execute() throws {
            let vault = try location.openForChange()
            let writing = DiaryWriting(vault: vault)
            let today = writing.now.localDate
            try Termination.deferring { () throws(VaultError) in
                if let path = vault.entries(on: today).first {
                    try writing.edit(path)
                } else {
                    try writing.write(title: nil, date: nil, tags: [], body: nil, forceEditor: true)
                }
            }
        }
    }

    struct Edit: VaultRunnable {
        static let configuration = CommandConfiguration(
            commandName: "edit",
            abstract: "Edit a diary entry or a room in your editor; the change is committed when the editor exits.")

        @OptionGroup var location: VaultLocation
        @Argument(help: "A diary entry or a room.") var item: String

        func execute() throws {
            let vault = try location.openForChange()
            let path = try vault.resolve(item, workingDirectory: FileManager.default.currentDirectoryPath).path
            // SIGINT, SIGTERM, SIGHUP wait until the edit is saved and committed (`Termination`).
            try Termination.deferring { () throws(VaultError) in try DiaryWriting(vault: vault).edit(path) }
        }
    }

    struct Tag: VaultRunnable {
        static let configuration = CommandConfiguration(
            commandName: "tag",
            abstract: "Add (+tag or tag) and remove (-tag) tags of a diary entry.")

        @OptionGroup var location: VaultLocation
        @Argument(help: "A diary entry.") var item: String
        @Argument(parsing: .allUnrecognized, help: "+tag adds, -tag removes.") var changes: [String] = []

        func execute() throws {
            guard !changes.isEmpty else { throw VaultError.invalidArgument("give tags to change: +tag adds, -tag removes") }
            var adding: [String] = []
            var removing: [String] = []
            for change in changes {
                let name = String(change.drop { $0 == "+" || $0 == "-" }).trimmingCharacters(in: .whitespaces)
                guard !name.isEmpty, !name.contains(where: { $0 == "," || $0 == "\n" }) else {
                    throw VaultError.invalidArgument("'\(change)' is not a tag (write +tag or -tag)")
                }
                if change.hasPrefix("-") { removing.append(name) } else { adding.append(name) }
            }
            let vault = try location.openForChange()
            let resolved = try vault.resolve(item, workingDirectory: FileManager.default.currentDirectoryPath)
            guard case .diaryEntry(let path) = resolved else {
                throw VaultError.invalidArgument("\(resolved.path) is a room; tags belong to diary entries")
            }
            let tags = try vault.changing { () throws(VaultError) -> [String] in
                try vault.history?.prepare([path])
                let (bytes, tags, stamp) = try vault.retagging(path, adding: adding, removing: removing, now: DiaryWriting(vault: vault).now)
                try vault.write(bytes, to: path, expecting: .unchanged(stamp))
                let entry = try DiaryFile(parsing: bytes, path: path)
                let summary = (adding.map { "+" + $0 } + removing.map { "-" + $0 }).joined(separator: " ")
                try vault.history?.commit([path], message: "tag: \(entryLabel(entry)) \(summary)")
                return tags
            }
            print(tags.isEmpty ? "\(path) has no tags now." : "\(path): " + tags.map { "#" + $0 }.joined(separator: " "))
        }
    }
}

/// Writing and editing entries: the file is claimed under the vault's lock, the editor runs
/// without it (another `vault` may work meanwhile), and the result is committed under it.
struct DiaryWriting {
    let vault: Vault
    /// Diary times are written in the zone the person is in (the machine's, `TZ`), so an entry
    /// written late at night abroad belongs to that night there; headings still use the vault's locale.
    let zone = TimeZone.current

    var now: Timestamp { Timestamp(date: Date(), timeZone: zone) }

    func write(title: String?, date: String?, tags: [String], body: String?, forceEditor: Bool) throws(VaultError) {
        let created: Timestamp
        if let date {
            guard let t = DateArgument.time(date, timeZone: zone) else { throw DateArgument.problem(date) }
            created = date.contains("T") || date.contains(" ") || date.contains("+") ? t : timeOfDayNow(on: t.localDate)
        } else {
            created = now
        }
        for tag in tags where tag.trimmingCharacters(in: .whitespaces).isEmpty || tag.contains(",") {
            throw VaultError.invalidArgument("'\(tag)' is not a tag")
        }
        var unique: [String] = []
        for tag in tags where !unique.contains(tag) { unique.append(tag) }
        let tags = unique
        let title = title?.trimmingCharacters(in: .whitespacesAndNewlines).nilIfEmpty
        var text = body
        if text == nil && !forceEditor && !Terminal.stdinIsTerminal {
            let data = FileHandle.standardInput.readDataToEndOfFile()
            guard let s = String(data: data, encoding: .utf8) else {
                throw VaultError.invalidArgument("the text on standard input is not UTF-8")
            }
            text = s
        }
        let heading = DateText.heading(created.localDate, locale: vault.config.locale)
        let id = Identifier.newEntryID()
        if let text {
            guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                throw VaultError.invalidArgument("the entry is empty: nothing was written")
            }
            let path = try vault.changing { () throws(VaultError) -> String in
                let path = vault.newEntryPath(day: created.localDate, title: title ?? firstLine(text))
                let bytes = DiaryFile.newEntry(id: id, title: title, created: created, tags: tags, heading: heading, body: text)
                try vault.history?.prepare([path])
                try vault.write(bytes, to: path, expecting: .absent)
                try vault.history?.commit([path], message: "diary: add \(entryLabel(try DiaryFile(parsing: bytes, path: path)))")
                return path
            }
            print("Wrote \(path).")
            return
        }
        // The editor: claim the file, edit it without the lock, then keep and commit it, or drop it.
        let draft = DiaryFile.newEntry(id: id, title: title, created: created, tags: tags, heading: heading, body: "")
        let path = try vault.changing { () throws(VaultError) -> String in
            let path = vault.newEntryPath(day: created.localDate, title: title)
            try vault.write(draft, to: path, expecting: .absent)
            return path
        }
        let outcome = try Editor.run(vault.absolute(path))
        // From here on the file is the editor's: it is kept, committed or (left untouched) removed,
        // never written over.
        try vault.changing { () throws(VaultError) in
            guard FileIO.exists(vault.absolute(path)) else {
                if case .failed(let how) = outcome {
                    throw VaultError.invalidArgument(
                        "the editor '\(Editor.command())' failed (\(how)) and removed \(path): no entry was made")
                }
                print("The entry was removed in the editor, so it was not kept.")
                return
            }
            let (bytes, stamp) = try FileIO.readStamped(vault.absolute(path))
            if case .failed(let how) = outcome {
                guard bytes != draft else {
                    try removeIfUnchanged(path, stamp)
                    throw VaultError.invalidArgument(
                        "the editor '\(Editor.command())' failed (\(how)) and saved nothing: no entry was made")
                }
                let label = (try? DiaryFile(parsing: bytes, path: path)).map(entryLabel) ?? path
                try vault.history?.commit([path], message: "diary: add \(label) (the editor failed: \(how))")
                let editor = "the editor '\(Editor.command())' failed (\(how))"
                throw VaultError.invalidArgument("\(editor); what it saved in \(path) is kept\(committedNote)")
            }
            guard let entry = try? DiaryFile(parsing: bytes, path: path) else {
                // Broken in the editor: the words are kept and committed; the problems are shown.
                try vault.history?.commit([path], message: "diary: add \(path)")
                for p in DiaryFile.problems(in: bytes, path: path) {
                    Terminal.warning("\(p) (your entry is saved and committed; fix it when you can)")
                }
                print("Wrote \(path).")
                return
            }
            if entry.body.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                try removeIfUnchanged(path, stamp)
                print("The entry was left empty, so it was not kept.")
                return
            }
            try vault.history?.commit([path], message: "diary: add \(entryLabel(entry))")
            print("Wrote \(path).")
        }
    }

    /// " and committed" when the vault keeps history.
    private var committedNote: String { vault.history == nil ? "" : " and committed" }

    /// Opens `path` in the editor; commits the change (with `updated` set for an entry).
    ///
    /// After the editor ran, the file is never written over: what it saved is kept (and
    /// committed) even when it failed, and so is anything else that changed the file meanwhile
    /// (a chat turn that landed in the room, a save after a GUI editor returned).
    func edit(_ path: String) throws(VaultError) {
        let original = try vault.changing { () throws(VaultError) -> [UInt8] in
            try vault.history?.prepare([path])
            // Should vault end before it commits the edit, the next command commits it.
            vault.willChange([path])
            return try FileIO.read(vault.absolute(path))
        }
        let outcome = try Editor.run(vault.absolute(path))
        try vault.changing { () throws(VaultError) in
            guard FileIO.entryExists(vault.absolute(path)) else {
                // Removed in the editor: that is kept too, and committed.
                let how: String
                if case .failed(let text) = outcome { how = text } else { how = "" }
                try vault.history?.commit([path], message: "edit: \(path) (removed in the editor)")
                let removed =
                    "\(path) was removed in the editor; the removal is kept\(committedNote)"
                    + " (`vault restore \(path)` brings it back)"
                guard how.isEmpty else {
                    throw VaultError.invalidArgument("the editor '\(Editor.command())' failed (\(how)), and \(removed)")
                }
                print(removed.prefix(1).uppercased() + removed.dropFirst() + ".")
                return
            }
            if case .failed(let how) = outcome {
                // Kept as it is: no `updated`, no write. Committed if anything changed.
                let bytes = try FileIO.read(vault.absolute(path))
                let committed = try vault.history?.commit([path], message: "edit: \(path) (the editor failed: \(how))")
                let editor = "the editor '\(Editor.command())' failed (\(how))"
                if committed ?? (bytes != original) {
                    throw VaultError.invalidArgument(
                        "\(editor); what it saved in \(path) is kept\(committedNote)"
                            + " (`vault diff \(path) HEAD~1` shows the change)")
                }
                throw VaultError.invalidArgument(
                    "\(editor) and saved nothing: \(path) is unchanged, nothing was committed")
            }
            var bytes = try FileIO.read(vault.absolute(path))
            guard bytes != original else {
                print("No change in \(path).")
                return
            }
            let message: String
            if path.hasPrefix(VaultPath.diary + "/"), let entry = try? DiaryFile(parsing: bytes, path: path) {
                bytes = try settingUpdated(path)
                message = "diary: edit \(entryLabel(entry))"
            } else {
                message = "edit: \(path)"
            }
            let committed = try vault.history?.commit([path], message: message)
            let problems = path.hasPrefix(VaultPath.rooms + "/")
                ? RoomFile.problems(in: bytes, path: path) : DiaryFile.problems(in: bytes, path: path)
            for p in problems { Terminal.warning("\(p) (your edit is saved and committed; fix it when you can)") }
            print(committed == false ? "No change in \(path)." : "Saved \(path).")
        }
    }

    /// Sets `updated` of the entry at `path` over the version on disk, never over a newer save
    /// (a GUI editor may still be saving): read again and done again if the file changed.
    private func settingUpdated(_ path: String) throws(VaultError) -> [UInt8] {
        var attempt = 1
        while true {
            let (bytes, stamp) = try FileIO.readStamped(vault.absolute(path))
            let touched = try vault.touchingUpdated(bytes, path: path, now: now)
            do {
                try vault.write(touched, to: path, expecting: .unchanged(stamp))
                return touched
            } catch .changedOnDisk where attempt < 3 {
                attempt += 1
            }
        }
    }

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
        text.split(separator: "\n").first.map { $0.trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : String($0.prefix(60)) }
    }
}

extension String {
    var nilIfEmpty: String? { isEmpty ? nil : self }
}
