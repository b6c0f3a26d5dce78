import Foundation
import Testing
import VaultCore
import VaultTestSupport

@testable import VaultImport

/// jrnl's plain text as jrnl 4 writes it (`timeformat: "%F %r"`), a hand-written older entry
/// (`%Y-%m-%d %H:%M`, the title and body on one line), and `jrnl --export json` of the same journal.
@Suite struct JrnlReaderTests {
    static let seoul = TimeZone(identifier: "Asia/Seoul")!

    static let plain = """
        [2023-01-15 09:30:00 PM] Busan trip.
        We went to @haeundae with @family. Great day! #travel

        [2023-02-01 08:00] Question? Body here. @work
        # not a tag: a heading

        [2023-02-02 11:59:00 PM] Starred one *

        [2023-02-03 12:05:00 AM] Multi-line body
        second line @Family again

        """

    static let json = """
        {"tags": {"@haeundae": 1, "@family": 2, "#travel": 1, "@work": 1},
         "entries": [
          {"title": "Busan trip.", "body": "We went to @haeundae with @family. Great day! #travel", "date": "2023-01-15", "time": "21:30", "tags": ["@haeundae", "@family", "#travel"], "starred": false},
          {"title": "Question?", "body": "Body here. @work", "date": "2023-02-01", "time": "08:00", "tags": ["@work"], "starred": false},
          {"title": "Starred one", "body": "", "date": "2023-02-02", "time": "23:59", "tags": [], "starred": true},
          {"title": "Multi-line body", "body": "second line @Family again", "date": "2023-02-03", "time": "00:05", "tags": ["@family"], "starred": false}
         ]}
        """

    @Test func thePlainTextGivesEachEntryWithItsTitleStarAndTags() throws {
        let folder = TemporaryDirectory("jrnl")
        try folder.write("journal.txt", Self.plain)
        let all = entries(try items(JrnlReader(timeZone: Self.seoul), [folder.path + "/journal.txt"]))
        #expect(all.map(\.title) == ["Busan trip.", "Question?", "Starred one", "Multi-line body"])
        #expect(all.map(\.body) == [
            "We went to @haeundae with @family. Great day! #travel",
            "Body here. @work\n# not a tag: a heading",
            "",
            "second line @Family again",
        ])
        #expect(all.map(\.starred) == [false, false, true, false])
        #expect(all.map(\.tags) == [["haeundae", "family", "travel"], ["work"], [], ["Family"]])
        #expect(all.map(\.time.text) == [
            "2023-01-15T21:30:00+09:00", "2023-02-01T08:00:00+09:00", "2023-02-02T23:59:00+09:00",
            "2023-02-03T00:05:00+09:00",
        ])
        #expect(all.map(\.source) == [.jrnl, .jrnl, .jrnl, .jrnl])
        #expect(Set(all.map(\.sourceID)).count == 4)
    }

    @Test func theJSONExportGivesTheSameEntriesAndIds() throws {
        let folder = TemporaryDirectory("jrnl")
        try folder.write("journal.txt", Self.plain)
        try folder.write("export.json", Self.json)
        let reader = JrnlReader(timeZone: Self.seoul)
        let plain = entries(try items(reader, [folder.path + "/journal.txt"]))
        let json = entries(try items(reader, [folder.path + "/export.json"]))
        #expect(json.map(\.sourceID) == plain.map(\.sourceID))
        #expect(json.map(\.title) == plain.map(\.title))
        #expect(json.map(\.body) == [
            "We went to @haeundae with @family. Great day! #travel", "Body here. @work", "",
            "second line @Family again",
        ])
        #expect(json.map(\.starred) == [false, false, true, false])
        #expect(json.map(\.tags) == [["haeundae", "family", "travel"], ["work"], [], ["family"]])
        #expect(json.map(\.time) == plain.map(\.time))
    }

    @Test func theZoneIsTheReaders() throws {
        let folder = TemporaryDirectory("jrnl")
        try folder.write("journal.txt", "[2023-02-03 12:05 AM] Late.\n")
        let utc = entries(try items(JrnlReader(timeZone: .gmt), [folder.path + "/journal.txt"]))
        #expect(utc.map(\.time.text) == ["2023-02-03T00:05:00+00:00"])
        #expect(utc.first?.time.localDate == LocalDate(year: 2023, month: 2, day: 3))
    }

    @Test func sinceSkipsOlderEntries() throws {
        let folder = TemporaryDirectory("jrnl")
        try folder.write("journal.txt", Self.plain)
        let since = try #require(Timestamp(rfc3339: "2023-02-02T00:00:00+09:00"))
        let recent = entries(try items(JrnlReader(timeZone: Self.seoul), [folder.path + "/journal.txt"], since: since))
        #expect(recent.map(\.title) == ["Starred one", "Multi-line body"])
    }

    @Test func aFileNotInTheFormatIsAProblem() throws {
        let folder = TemporaryDirectory("jrnl")
        try folder.write("notes.txt", "Shopping list\n[2023-01-15 09:30] milk\n")
        try folder.write("empty.txt", "\n\n")
        try folder.write("bad.json", "{\"entries\": [{\"title\": \"x\", \"date\": \"2023-13-01\", \"time\": \"09:00\"}]}")
        try folder.write("broken.json", "{\"entries\": [")
        try folder.write("bad-utf8.txt", Array("[2023-01-15 09:30] Fine.\n".utf8) + [0x61, 0xFF, 0x0A])
        let reader = JrnlReader(timeZone: Self.seoul)
        func problem(_ name: String) -> ImportProblem? {
            importProblem { _ = try items(reader, [folder.path + "/" + name]) }
        }
        #expect(problem("notes.txt") == ImportProblem(
            file: folder.path + "/notes.txt", place: "line 1",
            problem: "is not a jrnl entry (an entry begins with a line like \"[2024-05-01 09:30] Title\"; for dates written "
                + "otherwise, give jrnl's timeformat: --date-format '%d.%m.%Y %H:%M')"))
        #expect(problem("empty.txt") == ImportProblem(
            file: folder.path + "/empty.txt",
            problem: "is not a jrnl journal: no line begins with a date like \"[2024-05-01 09:30]\""))
        #expect(problem("bad.json") == ImportProblem(
            file: folder.path + "/bad.json", place: "entries[0].date", problem: "is not a date like \"2024-05-01\""))
        #expect(problem("broken.json") == ImportProblem(file: folder.path + "/broken.json", problem: "is not valid JSON"))
        #expect(problem("bad-utf8.txt") == ImportProblem(
            file: folder.path + "/bad-utf8.txt", place: "line 2", problem: "is not valid UTF-8 (byte 2 of the line)"))
    }

    /// jrnl 1.x wrote its dates without brackets (`2010-06-10 15:00 Title`); the file's first
    /// entry says which way it is written, so a bracketed date in a 1.x body stays body.
    @Test func aJrnl1JournalWithoutBracketsIsRead() throws {
        let folder = TemporaryDirectory("jrnl")
        try folder.write("old.txt", "2010-06-10 15:00 First old entry. With a body @tag\nmore body\n[2024-05-01 09:30] still body\n\n2010-06-11 09:30 Second one\n")
        #expect(JrnlReader.recognizes(folder.path + "/old.txt"))
        let read = entries(try items(JrnlReader(timeZone: Self.seoul), [folder.path + "/old.txt"]))
        #expect(read.map(\.title) == ["First old entry.", "Second one"])
        #expect(read.map(\.time.text) == ["2010-06-10T15:00:00+09:00", "2010-06-11T09:30:00+09:00"])
        #expect(read.first?.body == "With a body @tag\nmore body\n[2024-05-01 09:30] still body")
        #expect(read.first?.tags == ["tag"])
    }

    @Test func aTimeformatReadsTheDatesItWrites() throws {
        let folder = TemporaryDirectory("jrnl")
        try folder.write("j.txt", "[09.06.2013 15:39] Little-endian. Body\n[10.06.2013 03:05 PM] Twelve-hour\n")
        let twentyFour = entries(try items(JrnlReader(timeZone: .gmt, dateFormat: "%d.%m.%Y %H:%M"), [folder.path + "/j.txt"]))
        #expect(twentyFour.map(\.time.text) == ["2013-06-09T15:39:00+00:00"], "the second line is body in that format")
        try folder.write("k.txt", "[10.06.2013 03:05 PM] Twelve-hour\n[Jun 11 2013 07:00] Named month\n")
        #expect(entries(try items(JrnlReader(timeZone: .gmt, dateFormat: "%d.%m.%Y %I:%M %p"), [folder.path + "/k.txt"])).map(\.time.text)
            == ["2013-06-10T15:05:00+00:00"])
        try folder.write("l.txt", "[Jun 11 2013 07:00] Named month\n")
        #expect(entries(try items(JrnlReader(timeZone: .gmt, dateFormat: "%b %d %Y %H:%M"), [folder.path + "/l.txt"]))
            .map(\.time.text) == ["2013-06-11T07:00:00+00:00"])
        // Without the format, the journal's first line is no entry, and the problem says what to give.
        let problem = importProblem { _ = try items(JrnlReader(timeZone: .gmt), [folder.path + "/l.txt"]) }
        #expect(problem?.problem.hasSuffix("give jrnl's timeformat: --date-format '%d.%m.%Y %H:%M')") == true)
    }

    @Test func recognizesJrnlByContent() throws {
        let folder = TemporaryDirectory("jrnl")
        try folder.write("journal.txt", Self.plain)
        try folder.write("export.json", Self.json)
        try folder.write("notes.txt", "Shopping list\n")
        try folder.write("dayone.json", "{\"metadata\": {}, \"entries\": [{\"creationDate\": \"x\", \"starred\": false, \"time\": 1}]}")
        try folder.write("folder/2023/01/15.txt", "[2023-01-15 09:30] Folder journal.\n")
        #expect(JrnlReader.recognizes(folder.path + "/journal.txt"))
        #expect(JrnlReader.recognizes(folder.path + "/export.json"))
        #expect(JrnlReader.recognizes(folder.path + "/folder"))
        #expect(!JrnlReader.recognizes(folder.path + "/notes.txt"))
        #expect(!JrnlReader.recognizes(folder.path + "/dayone.json"))
        let folderEntries = entries(try items(JrnlReader(timeZone: Self.seoul), [folder.path + "/folder"]))
        #expect(folderEntries.map(\.title) == ["Folder journal."])
    }
}
