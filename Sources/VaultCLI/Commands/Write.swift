import ArgumentParser
import Foundation
import VaultCore

#if canImport(Glibc)
import Glibc
#endif

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
        @Option(
            parsing: .unconditional,
            help: "The day or time it is for: 2026-11-21, 2026-11-21T22:30, today, yesterday, -2.") var date: String?
        @Option(name: .customLong("tag"), help: "A tag (repeat for more).") var tags: [String] = []
        @Option(help: "The body, instead of an editor (`-`: read from standard input).") var body: String?
        @Flag(help: "Open the editor even when standard input is not a terminal.") var editor = false

        func execute() throws {
            let vault = try location.openForChange()
            let writing = DiaryWriting(vault: vault)
            // SIGINT, SIGTERM, SIGHUP wait until the entry is saved and committed (`Termination`).
            let result = try Termination.deferring { () throws(VaultError) -> DiaryWriting.Result in
                let entry = try writing.newEntry(title: title, date: date, tags: tags)
                // `--body -`: the text is read from standard input, even from a terminal.
                var text = body == "-" ? nil : body
                if body == "-" || (text == nil && !editor && !Terminal.stdinIsTerminal) {
                    let data = FileHandle.standardInput.readDataToEndOfFile()
                    guard let s = String(data: data, encoding: .utf8) else {
                        throw VaultError.input(.standardInputNotUTF8(what: "text"))
                    }
                    // From a pipe or /dev/null (cron, a script): say where the nothing came from.
                    guard !s.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                        throw VaultError.input(.emptyStandardInput)
                    }
                    text = s
                }
                if let text { return try writing.write(entry, text: text) }
                return try writing.write(entry, editor: .person)
            }
            report(result)
        }
    }

    struct Today: VaultRunnable {
        static let configuration = CommandConfiguration(
            commandName: "today",
            abstract: "Open today's diary entry in your editor, making it if there is none.")

        @OptionGroup var location: VaultLocation

        func execute() throws {
            let vault = try location.openForChange()
            let today = try Termination.deferring { () throws(VaultError) -> DiaryWriting.Today in
                try DiaryWriting(vault: vault).today(editor: .person)
            }
            switch today {
            case .edited(let result): report(result, vault: vault)
            case .written(let result): report(result)
            }
        }
    }

    struct Edit: VaultRunnable {
        static let configuration = CommandConfiguration(
            commandName: "edit",
            abstract: "Edit a diary entry or a room in your editor; the change is committed when the editor exits.")

        @OptionGroup var location: VaultLocation
        @Argument(help: "A diary entry or a room.", completion: .items) var item: String

        func execute() throws {
            let vault = try location.openForChange()
            let path = try vault.resolve(item, workingDirectory: FileManager.default.currentDirectoryPath).path
            // SIGINT, SIGTERM, SIGHUP wait until the edit is saved and committed (`Termination`).
            let result = try Termination.deferring { () throws(VaultError) -> Editing.Result in
                try Editing(vault: vault).edit(path, in: .person)
            }
            report(result, vault: vault)
        }
    }

    struct Tag: VaultRunnable {
        static let configuration = CommandConfiguration(
            commandName: "tag",
            abstract: "Add (+tag or tag) and remove (-tag) tags of a diary entry.")

        @OptionGroup var location: VaultLocation
        @Argument(help: "A diary entry.", completion: .diaryEntries) var item: String
        @Argument(parsing: .allUnrecognized, help: "+tag adds, -tag removes.") var changes: [String] = []

        func execute() throws {
            guard !changes.isEmpty else { throw UsageError.noTagChanges }
            var adding: [String] = []
            var removing: [String] = []
            for change in changes {
                let name = String(change.drop { $0 == "+" || $0 == "-" }).trimmingCharacters(in: .whitespaces)
                guard !name.isEmpty, !name.contains(where: { $0 == "," || $0 == "\n" }) else {
                    throw UsageError.notATagChange(change)
                }
                if change.hasPrefix("-") { removing.append(name) } else { adding.append(name) }
            }
            let vault = try location.openForChange()
            let resolved = try vault.resolve(item, workingDirectory: FileManager.default.currentDirectoryPath)
            let now = DiaryWriting(vault: vault).now
            let (path, tags) = try Tagging(vault: vault, now: now).tag(resolved, adding: adding, removing: removing)
            print(
                tags.isEmpty ? "\(path) has no tags now." : "\(path): " + tags.map { "#" + $0 }.joined(separator: " "))
        }
    }
}

/// Prints what became of a new entry.
func report(_ result: DiaryWriting.Result) {
    switch result.kind {
    case .written:
        for p in result.problems { Terminal.warning("\(p) (your entry is saved and committed; fix it when you can)") }
        print("Wrote \(result.path).")
    case .removedInEditor: print("The entry was removed in the editor, so it was not kept.")
    case .leftEmpty: print("The entry was left empty, so it was not kept.")
    }
}

/// Prints what became of a file opened in the editor.
func report(_ result: Editing.Result, vault: Vault) {
    for p in result.problems { Terminal.warning("\(p) (your edit is saved and committed; fix it when you can)") }
    for note in result.kept { print("\(result.path): \(note).") }
    switch result.kind {
    case .saved: print("Saved \(result.path).")
    case .unchanged: print("No change in \(result.path).")
    case .removed:
        let removed = Editing(vault: vault).removalNote(result.path)
        print(removed.prefix(1).uppercased() + removed.dropFirst() + ".")
    }
}

extension TextEditor {
    /// The person's editor: `$VISUAL`, else `$EDITOR`, else `vi`, run on the file (`Editor.run`).
    static var person: TextEditor {
        TextEditor(name: Editor.command()) { path throws(VaultError) in try Editor.run(path) }
    }
}
