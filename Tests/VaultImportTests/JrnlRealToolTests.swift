import Foundation
import Testing
import VaultCore
import VaultImport
import VaultTestSupport

/// Journals the real jrnl (PyPI, `pip install jrnl`; scripts/common.sh installs it) writes and
/// reads (issue #37, item 5): an encrypted journal, named as one, whose export the message
/// names imports whole; a folder journal with files jrnl passes over; Markdown headings that are
/// no tags. Skipped, saying so, when jrnl is not installed and CI is not set.
@Suite struct JrnlRealToolTests {
    static let available: Bool = {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["jrnl", "--version"]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return false }
        p.waitUntilExit()
        return p.terminationStatus == 0
    }()

    /// Whether jrnl can run here (false: skipped, said on standard output).
    func jrnlHere(_ test: String) -> Bool {
        if Self.available { return true }
        #expect(ProcessInfo.processInfo.environment["CI"] != "true", "jrnl is not installed (pip install jrnl)")
        print("JrnlRealToolTests: skipped \(test): jrnl is not installed (pip install jrnl)")
        return false
    }

    /// A jrnl configuration whose one journal is `journal` (a folder journal when it ends in `/`).
    func config(_ journal: String, in dir: TemporaryDirectory, timeformat: String = "%F %r") throws -> String {
        try dir.write("jrnl.yaml", """
            colors: {body: none, date: none, tags: none, title: none}
            default_hour: 9
            default_minute: 0
            editor: ''
            encrypt: false
            highlight: false
            indent_character: '|'
            journals:
              default: \(journal)
            linewrap: 79
            tagsymbols: '#@'
            template: false
            timeformat: '\(timeformat)'
            version: v4.6
            """)
        return dir.path + "/jrnl.yaml"
    }

    /// Runs jrnl with `arguments` and `input` on its standard input, without a terminal (setsid),
    /// so it reads a password from there.
    @discardableResult
    func jrnl(_ arguments: [String], config: String, input: String = "", home: String) throws -> RunResult {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["setsid", "jrnl", "--config-file", config] + arguments
        var env = ProcessInfo.processInfo.environment
        env["HOME"] = home
        env["PYTHON_KEYRING_BACKEND"] = "keyring.backends.null.Keyring"
        p.environment = env
        let r = try run(p, stdin: input)
        #expect(r.status == 0, "jrnl \(arguments): \(r.stderr)")
        return r
    }

    @Test func anEncryptedJournalIsNamedAndTheExportItNamesImportsWhole() throws {
        guard jrnlHere("encrypted") else { return }
        let world = try HostileWorld()
        let journal = world.exports.path + "/journal.txt"
        try world.exports.write("journal.txt", "[2024-05-01 09:30:00 AM] Secret plans.\nJTOK-1 the body\n\n[2024-05-02 10:00:00 AM] Second.\nJTOK-2 more\n")
        let cfg = try config(journal, in: world.exports)
        try jrnl(["--encrypt"], config: cfg, input: "pw\npw\nn\n", home: world.exports.path)
        #expect(try world.exports.read("journal.txt").starts(with: Array("JRNLv3".utf8)))
        #expect(ImportReaders.detect(journal) == .jrnl)
        let says = "is an encrypted jrnl journal (v3); vault reads journals in plain text only: export it with "
            + "`jrnl --format json --file journal.json` (jrnl asks for its password) and import journal.json"
        try world.expectRefused(JrnlReader(timeZone: .gmt), [journal], "EXPORT/journal.txt: " + says)

        // A v2 journal (a Fernet token, as jrnl 2.x to 4.5 wrote) is named the same way.
        let fernet = Process()
        fernet.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        fernet.arguments = ["python3", "-c", "from cryptography.fernet import Fernet; import sys; open(sys.argv[1], 'wb').write(Fernet(Fernet.generate_key()).encrypt(b'[2024-05-01 09:30] x'))", world.exports.path + "/v2.txt"]
        #expect(try run(fernet).status == 0)
        try world.expectRefused(
            JrnlReader(timeZone: .gmt), [world.exports.path + "/v2.txt"],
            "EXPORT/v2.txt: " + says.replacingOccurrences(of: "(v3)", with: "(v2)"))

        // What the message says to do works: jrnl's JSON export imports every entry.
        try jrnl(["--format", "json", "--file", world.exports.path + "/journal.json"], config: cfg, input: "pw\n", home: world.exports.path)
        let report = try world.expectImported(JrnlReader(timeZone: .gmt), [world.exports.path + "/journal.json"])
        #expect(report.entriesNew == 2)
        #expect(try occurrences("JTOK-1", in: world) == 1)
        #expect(try occurrences("JTOK-2", in: world) == 1)
    }

    @Test func aFolderJournalIsItsDayFilesAsJrnlReadsItAndHeadingsAreNoTags() throws {
        guard jrnlHere("folder") else { return }
        let world = try HostileWorld()
        let folder = world.exports.path + "/fj/"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let cfg = try config(folder, in: world.exports)
        try jrnl(["2024-05-01 09:30: First entry. JTOK-F1 with @work"], config: cfg, home: world.exports.path)
        try jrnl(["2024-05-03 18:00: Second entry."], config: cfg, home: world.exports.path)
        // A body with Markdown headings, written into jrnl's own day file.
        try world.exports.write("fj/2024/05/03.txt", try world.exports.readText("fj/2024/05/03.txt") + "## Plan\nJTOK-F2 pack #bags\n")
        // Files jrnl passes over.
        try world.exports.write("fj/should-be-ignored.txt", "[2024-05-09 09:00] not an entry\n")
        try world.exports.write("fj/2024/notes.txt", "shopping list\n")
        let exported = try jrnl(["--format", "json"], config: cfg, home: world.exports.path).stdout
        let json = try #require(try JSONSerialization.jsonObject(with: Data(exported.drop { $0 != "{" }.utf8)) as? [String: Any])
        let theirs = try #require(json["entries"] as? [[String: Any]])
        #expect(theirs.count == 2)

        let path = String(folder.dropLast())
        #expect(ImportReaders.detect(path) == .jrnl)
        let read = entries(try items(JrnlReader(timeZone: .gmt), [path]))
        #expect(read.map(\.title) == theirs.map { $0["title"] as? String ?? "" })
        #expect(read.map(\.tags) == [["work"], ["bags"]], "a heading's ## is no tag")
        let report = try world.expectImported(JrnlReader(timeZone: .gmt), [path])
        #expect(report.entriesNew == 2)
        try expectWhole(["JTOK-F1", "JTOK-F2"], world, JrnlReader(timeZone: .gmt), [path], first: report)
    }

    /// Day One Classic's `Journal.dayone/entries/<UUID>.doentry`, as jrnl writes it (jrnl reads
    /// and writes such folders), with a photo beside it as Day One kept it.
    @Test func aDayOneClassicJournalJrnlWroteIsImported() throws {
        guard jrnlHere("dayone classic") else { return }
        let world = try HostileWorld()
        let journal = world.exports.path + "/Journal.dayone"
        try FileManager.default.createDirectory(atPath: journal + "/entries", withIntermediateDirectories: true)
        let cfg = try config(journal, in: world.exports)
        try jrnl(["2024-05-01 09:30: Classic entry. DTOK-1 with @work"], config: cfg, home: world.exports.path)
        try jrnl(["2024-05-02 21:15: Evening. DTOK-2 by the sea"], config: cfg, home: world.exports.path)
        let files = try FileManager.default.contentsOfDirectory(atPath: journal + "/entries").sorted()
        #expect(files.count == 2 && files.allSatisfy { $0.hasSuffix(".doentry") })
        let uuid = String(try #require(files.first).dropLast(".doentry".count))
        try world.exports.write("Journal.dayone/photos/\(uuid).jpg", [0xFF, 0xD8, 0xFF, 0xD9])
        #expect(ImportReaders.detect(journal) == .dayone)
        let read = entries(try items(DayOneReader(), [journal])).sorted { $0.time < $1.time }
        #expect(read.map(\.title) == ["Classic entry.", "Evening."])
        #expect(read.map(\.tags) == [["work"], []])
        let report = try world.expectImported(DayOneReader(), [journal])
        #expect(report.entriesNew == 2 && report.attachments == 1)
        try expectWhole(["DTOK-1", "DTOK-2"], world, DayOneReader(), [journal], first: report)

        // An entry that is not a property list: named, nothing written.
        try world.exports.write("Journal.dayone/entries/0000BAD.doentry", "<plist><dict><key>UUID")
        try world.expectRefused(
            DayOneReader(), [journal],
            "EXPORT/Journal.dayone/entries/0000BAD.doentry: is not a Day One Classic entry (a property list with a dict)")
    }

    /// A journal jrnl writes with its own `timeformat` (little-endian dates): read with that
    /// format, each entry at the time jrnl's own export gives.
    @Test func aJournalWrittenWithItsOwnTimeformatIsReadWithIt() throws {
        guard jrnlHere("timeformat") else { return }
        let world = try HostileWorld()
        let journal = world.exports.path + "/le.txt"
        let cfg = try config(journal, in: world.exports, timeformat: "%d.%m.%Y %H:%M")
        try jrnl(["2013-06-09 15:39: Little-endian entry. LTOK-1 body"], config: cfg, home: world.exports.path)
        try jrnl(["2013-06-10 08:05: Second. LTOK-2 body"], config: cfg, home: world.exports.path)
        #expect(try world.exports.readText("le.txt").hasPrefix("[09.06.2013 15:39] Little-endian entry."))
        let exported = try jrnl(["--format", "json"], config: cfg, home: world.exports.path).stdout
        let json = try #require(try JSONSerialization.jsonObject(with: Data(exported.drop { $0 != "{" }.utf8)) as? [String: Any])
        let theirs = try #require(json["entries"] as? [[String: Any]]).map { "\($0["date"]!) \($0["time"]!) \($0["title"]!)" }
        let reader = JrnlReader(timeZone: .gmt, dateFormat: "%d.%m.%Y %H:%M")
        let ours = entries(try items(reader, [journal])).map { e in
            "\(e.time.localDate) \(e.time.text.dropFirst(11).prefix(5)) \(e.title)"
        }
        #expect(ours == theirs)
        // Without the format it is refused, saying what to give, and nothing is written.
        try world.expectRefused(
            JrnlReader(timeZone: .gmt), [journal],
            "EXPORT/le.txt, at line 1: is not a jrnl entry (an entry begins with a line like \"[2024-05-01 09:30] Title\"; "
                + "for dates written otherwise, give jrnl's timeformat: --date-format '%d.%m.%Y %H:%M')")
        let report = try world.expectImported(reader, [journal])
        try expectWhole(["LTOK-1", "LTOK-2"], world, reader, [journal], first: report)
    }

    /// `[2019-07 14:23]`, a date without its day: jrnl reads an entry on the month's first, and
    /// so does vault (before, it was folded into the entry above it).
    @Test func aDateWithoutItsDayIsAnEntryAsJrnlReadsIt() throws {
        guard jrnlHere("month only") else { return }
        let world = try HostileWorld()
        let journal = world.exports.path + "/p.txt"
        try world.exports.write("p.txt", "[2019-07-05 10:00] First. MTOK-1 body\n[2019-07 14:23] Partial date.\nMTOK-2 more\n")
        let cfg = try config(journal, in: world.exports, timeformat: "%Y-%m-%d %H:%M")
        let exported = try jrnl(["--format", "json"], config: cfg, home: world.exports.path).stdout
        let json = try #require(try JSONSerialization.jsonObject(with: Data(exported.drop { $0 != "{" }.utf8)) as? [String: Any])
        let theirs = try #require(json["entries"] as? [[String: Any]]).map { "\($0["date"]!) \($0["time"]!) \($0["title"]!)" }.sorted()
        let ours = entries(try items(JrnlReader(timeZone: .gmt), [journal])).map { e in
            "\(e.time.localDate) \(e.time.text.dropFirst(11).prefix(5)) \(e.title)"
        }.sorted()
        #expect(ours == theirs && ours.count == 2, "\(ours) \(theirs)")
        let report = try world.expectImported(JrnlReader(timeZone: .gmt), [journal])
        try expectWhole(["MTOK-1", "MTOK-2"], world, JrnlReader(timeZone: .gmt), [journal], first: report)
    }
}
