import Foundation
import Testing
import VaultCore
import VaultTestSupport

@testable import VaultImport

/// Day One's JSON export as its documentation describes it: `Journal.json` with `metadata` and
/// `entries` (`uuid`, `creationDate` in UTC, `timeZone`, `text` with escaped punctuation,
/// `tags`, `starred`, `photos`), and `photos/<md5>.<type>` beside it.
@Suite struct DayOneReaderTests {
    static let photoBytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3, 0xFF, 0xD9]

    /// Text as Day One writes it in JSON: `\\.` in the JSON is `\.` in the text.
    static let journal = #"""
        {"metadata": {"version": "1.0"},
         "entries": [
          {"uuid": "8A1C0D5E2F0B4C6A9E3D7B1F2A4C6E80", "creationDate": "2023-01-15T15:30:00Z", "timeZone": "Asia/Seoul",
           "text": "# Busan at night\n\nArrived at 12:30\\. Wow\\! \\(finally\\) \\- C:\\\\trip \\*not bold\\*\n\n![](dayone-moment://P1)\n\nEnd\\.",
           "tags": ["travel", "busan", "travel"], "starred": true,
           "photos": [{"identifier": "P1", "md5": "4f1e2d3c", "type": "jpeg", "width": 10, "height": 10}]},
          {"uuid": "1B2C3D4E5F60718293A4B5C6D7E8F901", "creationDate": "2023-01-16T07:40:00Z", "timeZone": "America/Los_Angeles",
           "text": "Late walk\nStill the 15th here\\.", "starred": false}
         ]}
        """#

    func export(_ json: String = Self.journal, photos: Bool = true) throws -> TemporaryDirectory {
        let folder = TemporaryDirectory("dayone")
        try folder.write("Journal.json", json)
        if photos { try folder.write("photos/4f1e2d3c.jpeg", Self.photoBytes) }
        return folder
    }

    @Test func entriesKeepTheirLocalDayTextTagsAndPhotos() throws {
        let folder = try export()
        let all = entries(try items(DayOneReader(), [folder.path]))
        #expect(all.count == 2)
        let seoul = try #require(all.first)
        #expect(seoul.sourceID == "8A1C0D5E2F0B4C6A9E3D7B1F2A4C6E80")
        #expect(seoul.source == .dayone)
        // 15:30 UTC is 00:30 the next day in Seoul: the entry is on the 16th.
        #expect(seoul.time.text == "2023-01-16T00:30:00+09:00")
        #expect(seoul.time.localDate == LocalDate(year: 2023, month: 1, day: 16))
        #expect(seoul.title == "Busan at night")
        #expect(seoul.body == #"Arrived at 12:30. Wow! (finally) - C:\trip *not bold*"# + "\n\n![](4f1e2d3c.jpeg)\n\nEnd.")
        #expect(seoul.tags == ["travel", "busan"])
        #expect(seoul.starred)
        #expect(seoul.attachments.map(\.name) == ["4f1e2d3c.jpeg"])
        #expect(seoul.attachments.first?.bytes == Self.photoBytes)
        let losAngeles = all[1]
        // 07:40 UTC on the 16th is 23:40 on the 15th in Los Angeles.
        #expect(losAngeles.time.text == "2023-01-15T23:40:00-08:00")
        #expect(losAngeles.time.localDate == LocalDate(year: 2023, month: 1, day: 15))
        #expect(losAngeles.title == "Late walk")
        #expect(losAngeles.body == "Still the 15th here.")
        #expect(!losAngeles.starred)
        #expect(losAngeles.tags.isEmpty)
        #expect(losAngeles.attachments.isEmpty)
    }

    @Test func theJournalFileItselfCanBeNamed() throws {
        let folder = try export()
        let all = entries(try items(DayOneReader(), [folder.path + "/Journal.json"]))
        #expect(all.map(\.sourceID) == ["8A1C0D5E2F0B4C6A9E3D7B1F2A4C6E80", "1B2C3D4E5F60718293A4B5C6D7E8F901"])
    }

    @Test func aMissingPhotoIsAPlaceholderTheEntrysTextAllThere() throws {
        let folder = try export(photos: false)
        let seoul = try #require(entries(try items(DayOneReader(), [folder.path])).first)
        #expect(seoul.body.hasSuffix("\n\n![](4f1e2d3c.jpeg)\n\nEnd."))
        #expect(seoul.attachments.map(\.missing) == [.init(kind: "photo", pointer: "dayone-moment://P1")])
        #expect(seoul.attachments.first?.placeholder == "[photo 4f1e2d3c.jpeg is not in the export: dayone-moment://P1]")
    }

    @Test func aReferenceToAPhotoTheEntryDoesNotListIsAMissingPhoto() throws {
        let folder = try export(Self.journal.replacingOccurrences(of: "dayone-moment://P1", with: "dayone-moment://P9"))
        let seoul = try #require(entries(try items(DayOneReader(), [folder.path])).first)
        #expect(seoul.body.contains("![](dayone-moment://P9)"))
        // The listed photo is attached; the one only referred to is missing.
        #expect(seoul.attachments.map(\.name) == ["4f1e2d3c.jpeg", "P9"])
        #expect(seoul.attachments.map(\.missing) == [nil, .init(kind: "photo", pointer: "dayone-moment://P9")])
    }

    /// The export's zip itself, read in place (made by Python's zipfile, as Day One's is a plain zip).
    @Test func theZipIsReadAsItsFolderWouldBe() throws {
        let folder = try export()
        let zip = folder.path + "/Export.zip"
        let make = Process()
        make.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        make.arguments = ["python3", "-c", """
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
                z.write(sys.argv[2] + "/Journal.json", "Journal.json")
                z.write(sys.argv[2] + "/photos/4f1e2d3c.jpeg", "photos/4f1e2d3c.jpeg")
            """, zip, folder.path]
        try make.run()
        make.waitUntilExit()
        #expect(make.terminationStatus == 0)
        #expect(DayOneReader.recognizes(zip))
        let fromZip = entries(try items(DayOneReader(), [zip]))
        let fromFolder = entries(try items(DayOneReader(), [folder.path]))
        #expect(fromZip.map(\.sourceID) == fromFolder.map(\.sourceID))
        #expect(fromZip.map(\.body) == fromFolder.map(\.body))
        #expect(fromZip.first?.attachments.first?.bytes == Self.photoBytes)
    }

    @Test func badInputIsAProblem() throws {
        let folder = TemporaryDirectory("dayone")
        try folder.write("export.zip", [0x50, 0x4B, 0x03, 0x04] + Array("Journal.json".utf8))
        try folder.write("broken/Journal.json", "{\"entries\": [{\"uuid\": \"x\", \"creationDate\"")
        try folder.write("zone/Journal.json", #"{"entries": [{"uuid": "x", "creationDate": "2023-01-15T15:30:00Z", "timeZone": "Mars/Olympus"}]}"#)
        try folder.write("date/Journal.json", #"{"entries": [{"uuid": "x", "creationDate": "yesterday"}]}"#)
        try folder.write("utf8/Journal.json", Array(#"{"entries": [{"uuid": ""#.utf8) + [0xC0, 0xAF] + Array(#""}], "creationDate": 1}"#.utf8))
        try folder.write("empty/notes.json", "{}")
        func problem(_ path: String) -> ImportProblem? {
            importProblem { _ = try items(DayOneReader(), [folder.path + "/" + path]) }
        }
        #expect(problem("export.zip")?.file == folder.path + "/export.zip", "a zip cut short: \(String(describing: problem("export.zip")))")
        #expect(problem("broken") == ImportProblem(file: folder.path + "/broken/Journal.json", problem: "is not valid JSON"))
        #expect(problem("zone") == ImportProblem(
            file: folder.path + "/zone/Journal.json", place: "entries[0].timeZone",
            problem: "\"Mars/Olympus\" is not a time zone this computer knows"))
        #expect(problem("date") == ImportProblem(
            file: folder.path + "/date/Journal.json", place: "entries[0].creationDate",
            problem: "is not a time like \"2024-05-01T09:30:00Z\""))
        #expect(problem("utf8") == ImportProblem(
            file: folder.path + "/utf8/Journal.json", problem: "is not valid UTF-8 (byte 24)"))
        #expect(problem("empty") == ImportProblem(file: folder.path + "/empty", problem: "holds no Day One journal (Journal.json, or a Day One Classic entries/ folder)"))
    }

    @Test func recognizesDayOneByContent() throws {
        let folder = try export()
        try folder.write("other/conversations.json", "[{\"mapping\": {}}]")
        try folder.write("jrnl.json", #"{"tags": {}, "entries": [{"date": "2023-01-01", "time": "09:00", "starred": false}]}"#)
        #expect(DayOneReader.recognizes(folder.path))
        #expect(DayOneReader.recognizes(folder.path + "/Journal.json"))
        #expect(!DayOneReader.recognizes(folder.path + "/other"))
        #expect(!DayOneReader.recognizes(folder.path + "/jrnl.json"))
        #expect(!JrnlReader.recognizes(folder.path + "/Journal.json"))
    }

    @Test func unescapingKeepsBackslashesBeforeOtherCharacters() {
        #expect(DayOneReader.unescaped(#"a\.b\\c\nd\é\"#) == #"a.b\c\nd\é\"#)
    }
}
