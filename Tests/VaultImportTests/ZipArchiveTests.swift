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

    /// A zip of one stored member `a.txt` whose central directory gives its size, compressed size
    /// and local header's offset in a zip64 extra field (any 64-bit values).
    static func craftedZip(size: UInt64, compressed: UInt64, offset: UInt64) -> [UInt8] {
        func le(_ value: UInt64, _ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        let name = Array("a.txt".utf8)
        let local = le(0x0403_4B50, 4) + le(20, 2) + le(0, 2) + le(0, 2) + le(0, 4) + le(0, 4) + le(2, 4) + le(2, 4)
            + le(UInt64(name.count), 2) + le(0, 2) + name + Array("hi".utf8)
        let extra = le(1, 2) + le(24, 2) + le(size, 8) + le(compressed, 8) + le(offset, 8)
        let central = le(0x0201_4B50, 4) + le(20, 2) + le(20, 2) + le(0, 2) + le(0, 2) + le(0, 4) + le(0, 4)
            + le(0xFFFF_FFFF, 4) + le(0xFFFF_FFFF, 4) + le(UInt64(name.count), 2) + le(UInt64(extra.count), 2) + le(0, 2)
            + le(0, 2) + le(0, 2) + le(0, 4) + le(0xFFFF_FFFF, 4) + name + extra
        let end = le(0x0605_4B50, 4) + le(0, 2) + le(0, 2) + le(1, 2) + le(1, 2) + le(UInt64(central.count), 4)
            + le(UInt64(local.count), 4) + le(0, 2)
        return local + central + end
    }

    /// Sizes and offsets are the archive's own: ones near 2^64 once overflowed a sum and trapped.
    @Test(arguments: [
        (UInt64(2), UInt64(2), UInt64.max - 15, "is cut short: the file ends before this member's data"),
        (2, UInt64.max - 15, 0, "is cut short: the file ends before this member's data"),
        (UInt64.max, 2, 0, "is \(UInt64.max) bytes, more than the \(ZipArchive.defaultLimit) vault reads from one member"),
    ])
    func sizesAndOffsetsPastTheEndAreProblemsNotATrap(size: UInt64, compressed: UInt64, offset: UInt64, problem: String) throws {
        let folder = TemporaryDirectory("vault-zip")
        try folder.write("a.zip", Self.craftedZip(size: size, compressed: compressed, offset: offset))
        let zip = try ZipArchive(path: folder.path + "/a.zip", name: "a.zip")
        #expect(zip.members.map(\.name) == ["a.txt"])
        #expect(importProblem { () throws(VaultError) in _ = try zip.bytes(of: zip.members[0]) } == "a.zip, at a.txt: \(problem)")
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
