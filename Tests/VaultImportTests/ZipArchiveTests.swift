import Foundation
import Testing
import VaultCore
import VaultImport
import VaultTestSupport

@Suite struct ZipArchiveTests {
    let text = Array(String(repeating: "한국어 and some English text, repeated. ", count: 3000).utf8)
    let binary: [UInt8] = {
        var random = SeededRandom(seed: 3)
        return (0..<70_000).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    }()

    @Test(arguments: [(true, false), (false, false), (true, true), (false, true)])
    func membersComeBackAsWritten(deflate: Bool, zip64: Bool) throws {
        let folder = TemporaryDirectory("vault-zip")
        let path = folder.path + "/a.zip"
        try makeZip(path, [("dir/text.txt", text), ("bin.dat", binary), ("empty", [])], deflate: deflate, zip64: zip64)
        let zip = try ZipArchive(path: path, name: "a.zip")
        #expect(zip.members.map(\.name) == ["dir/text.txt", "bin.dat", "empty"])
        #expect(zip.members.map(\.size) == [UInt64(text.count), 70_000, 0])
        #expect(try zip.bytes(of: zip.member(named: "dir/text.txt")!) == text)
        #expect(try zip.bytes(of: zip.member(named: "bin.dat")!) == binary)
        #expect(try zip.bytes(of: zip.member(named: "empty")!) == [])
        #expect(try zip.prefix(of: zip.member(named: "dir/text.txt")!, count: 10) == Array(text.prefix(10)))
        try zip.extract(zip.member(named: "bin.dat")!, to: folder.path + "/out")
        #expect(try folder.read("out") == binary)
        #expect(ZipArchive.looksLikeZip(path))
    }

    @Test func aMemberLargerThanTheLimitIsRefused() throws {
        let folder = TemporaryDirectory("vault-zip")
        try makeZip(folder.path + "/a.zip", [("t.txt", text)])
        let zip = try ZipArchive(path: folder.path + "/a.zip", name: "a.zip")
        #expect(
            importProblem { () throws(VaultError) in _ = try zip.bytes(of: zip.members[0], limit: 1000) }
                == "a.zip, at t.txt: is \(text.count) bytes, more than the 1000 vault reads from one member")
    }

    @Test func badArchivesGiveClearProblems() throws {
        let folder = TemporaryDirectory("vault-zip")
        let path = folder.path + "/a.zip"
        try makeZip(path, [("t.txt", text), ("b.dat", binary)], deflate: false)
        let whole = try folder.read("a.zip")
        func open(_ bytes: [UInt8]) -> String? {
            try? folder.write("b.zip", bytes)
            return importProblem { () throws(VaultError) in
                let zip = try ZipArchive(path: folder.path + "/b.zip", name: "b.zip")
                for member in zip.members { _ = try zip.bytes(of: member) }
            }
        }
        #expect(open(Array(whole.prefix(whole.count / 2))) == "b.zip: is cut short: the zip's end (its central directory) is missing")
        #expect(open(Array("not a zip at all".utf8)) == "b.zip: is not a zip archive")
        // The end record kept, the members' data cut: the directory points past the end.
        let tail = Array(whole.suffix(22))
        #expect(open(Array(whole.prefix(100)) + tail) == "b.zip: is cut short: its central directory lies past the end of the file")
        // One byte of a stored member changed: its CRC no longer matches.
        var damaged = whole
        damaged[40] ^= 0xFF
        #expect(open(damaged) == "b.zip, at t.txt: is damaged: its CRC-32 does not match")
    }

    @Test func aDeflateStreamCutShortIsNamed() throws {
        let folder = TemporaryDirectory("vault-zip")
        try makeZip(folder.path + "/a.zip", [("b.dat", text)], deflate: true)
        var bytes = try folder.read("a.zip")
        // Zero the deflate data after its first bytes: zlib finds it invalid.
        for i in 60..<300 { bytes[i] = 0xFF }
        try folder.write("a.zip", bytes)
        let zip = try ZipArchive(path: folder.path + "/a.zip", name: "a.zip")
        let problem = importProblem { () throws(VaultError) in _ = try zip.bytes(of: zip.members[0]) } ?? ""
        #expect(problem.hasPrefix("a.zip, at b.dat: is not a valid deflate stream"), "\(problem)")
    }

    @Test(arguments: ["../evil.txt", "/etc/passwd", "a/../../b", "C:/x"])
    func namesThatLeaveTheArchiveAreRefused(name: String) throws {
        let folder = TemporaryDirectory("vault-zip")
        try makeZip(folder.path + "/a.zip", [("ok.txt", [1]), (name, [2])])
        #expect(
            importProblem { () throws(VaultError) in _ = try ZipArchive(path: folder.path + "/a.zip", name: "a.zip") }
                == "a.zip, at \(name): is a member name that points outside the archive; vault reads no member of it")
    }
}
