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
        do {
            try Editor.edit(vault.absolute(path))
        } catch {
            // Words the person wrote before the editor failed are kept (and committed); an
            // untouched draft is removed.
            try vault.changing { () throws(VaultError) in
                guard FileIO.exists(vault.absolute(path)) else { return }
                let bytes = try FileIO.read(vault.absolute(path))
                if bytes == draft {
                    try removeIfUnchanged(path, draft)
                } else {
                    try vault.history?.commit([path], message: "diary: add \(path) (the editor failed)")
                    Terminal.warning("the editor failed, but what it had saved is kept in \(path)")
                }
            }
            throw error
        }
        try vault.changing { () throws(VaultError) in
            guard FileIO.exists(vault.absolute(path)) else {
                print("The entry was removed in the editor, so it was not kept.")
                return
            }
            let bytes = try FileIO.read(vault.absolute(path))
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
                try removeIfUnchanged(path, bytes)
                print("The entry was left empty, so it was not kept.")
                return
            }
            try vault.history?.commit([path], message: "diary: add \(entryLabel(entry))")
            print("Wrote \(path).")
        }
    }

    /// Opens `path` in the editor; commits the change (with `updated` set for an entry).
    func edit(_ path: String) throws(VaultError) {
        let original = try vault.changing { () throws(VaultError) -> [UInt8] in
            try vault.history?.prepare([path])
            // Should vault end before it commits the edit, the next command commits it.
            try vault.willChange([path])
            return try FileIO.read(vault.absolute(path))
        }
        do {
            try Editor.edit(vault.absolute(path))
        } catch {
            // A failed editor leaves the file as it was.
            try? vault.changing { () throws(VaultError) in
                if (try? FileIO.read(vault.absolute(path))) != original { try vault.write(original, to: path) }
            }
            throw error
        }
        try vault.changing { () throws(VaultError) in
            var bytes = try FileIO.read(vault.absolute(path))
            guard bytes != original else {
                print("No change in \(path).")
                return
            }
            let message: String
            if path.hasPrefix(VaultPath.diary + "/"), let entry = try? DiaryFile(parsing: bytes, path: path) {
                bytes = try vault.touchingUpdated(bytes, path: path, now: now)
                try vault.write(bytes, to: path)
                message = "diary: edit \(entryLabel(entry))"
            } else {
                message = "edit: \(path)"
            }
            try vault.history?.commit([path], message: message)
            let problems = path.hasPrefix(VaultPath.rooms + "/")
                ? RoomFile.problems(in: bytes, path: path) : DiaryFile.problems(in: bytes, path: path)
            for p in problems { Terminal.warning("\(p) (your edit is saved and committed; fix it when you can)") }
            print("Saved \(path).")
        }
    }

    /// Removes a file the editor did not change (a draft that was never written to).
    private func removeIfUnchanged(_ path: String, _ expected: [UInt8]) throws(VaultError) {
        guard (try? FileIO.read(vault.absolute(path))) == expected else { return }
        unlink(vault.absolute(path))
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
