import Foundation
import Testing
import VaultTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The same Korean title typed on macOS (decomposed, NFD) and on Linux (composed, NFC) names one
/// file: vault finds a file whatever the normalization of the name typed, never makes a second
/// file whose name only differs in normalization, and `vault check` reports such pairs that
/// already exist (made by hand, or synced from another machine).
///
/// Files are made and listed with POSIX calls, so their names keep the exact bytes given.
@Suite struct UnicodeNameTests {
    static let composed = "부산-여행"
    static let decomposed = composed.decomposedStringWithCanonicalMapping

    /// The names in a folder, as the bytes on disk.
    private func names(_ dir: String) -> [[UInt8]] {
        guard let d = opendir(dir) else { return [] }
        defer { closedir(d) }
        var out: [[UInt8]] = []
        while let e = readdir(d) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { raw in
                Array(raw.prefix { $0 != 0 })
            }
            if name != Array(".".utf8) && name != Array("..".utf8) { out.append(name) }
        }
        return out.sorted { $0.lexicographicallyPrecedes($1) }
    }

    /// Writes `bytes` at `path` (its name's bytes exactly as given).
    private func writeRaw(_ path: String, _ text: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        try #require(fd >= 0, "open \(path): \(String(cString: strerror(errno)))")
        defer { close(fd) }
        let bytes = Array(text.utf8)
        #expect(bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } == bytes.count)
    }

    private func room(_ title: String) -> String { "---\ntitle: \(title)\ncreated: 2026-01-01T09:00:00+09:00\n---\n\n" }

    @Test func argumentsReachVaultWithTheirBytes() throws {
        // The premise of the tests below: Foundation passes the decomposed spelling unchanged.
        #expect(Array(Self.decomposed.utf8) != Array(Self.composed.utf8))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/printf")
        process.arguments = ["%s", Self.decomposed]
        let r = try run(process)
        #expect(Array(r.stdout.utf8) == Array(Self.decomposed.utf8))
    }

    @Test(arguments: ["nfd file", "nfc file"])
    func aNewRoomNeverGetsALookAlikeName(existing: String) throws {
        let vault = try DiaryVault.fresh()
        let name = existing == "nfd file" ? Self.decomposed : Self.composed
        try writeRaw(vault.root + "/rooms/\(name).md", room("부산 여행"))
        // Typed either way.
        for title in ["부산 여행", "부산 여행".decomposedStringWithCanonicalMapping] {
            let r = try vault.run(["room", "new", title])
            expectSuccess(r)
        }
        let found = names(vault.root + "/rooms").map { String(decoding: $0, as: UTF8.self) }
        #expect(found.count == 3, "\(found)")
        let normalized = found.map { $0.precomposedStringWithCanonicalMapping }
        #expect(Set(normalized.map { Array($0.utf8) }).count == 3, "look-alike names: \(found.map { Array($0.utf8) })")
        #expect(normalized.contains("부산-여행-2.md") && normalized.contains("부산-여행-3.md"), "\(normalized)")
        try expectCheckClean(vault.root)
    }

    @Test func aNewEntryNeverGetsALookAlikeName() throws {
        let vault = try DiaryVault.fresh()
        let folder = vault.root + "/diary/2026"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let stem = "2026-03-01-첫눈".decomposedStringWithCanonicalMapping
        try writeRaw(folder + "/\(stem).md", "---\ncreated: 2026-03-01T09:00:00+09:00\n---\n\n맥에서 쓴 글.\n")
        try vault.git(["add", "-A"])
        try vault.git(["commit", "-q", "-m", "an entry from a Mac"])
        try expectDiarySuccess(try vault.run(["write", "첫눈", "--date", "2026-03-01", "--body", "리눅스에서 쓴 글.\n"]), vault)
        let found = names(folder).map { String(decoding: $0, as: UTF8.self).precomposedStringWithCanonicalMapping }
        let expected = [Array("2026-03-01-첫눈.md".utf8), Array("2026-03-01-첫눈-2.md".utf8)]
        #expect(Set(found.map { Array($0.utf8) }) == Set(expected), "\(found)")
    }

    /// A path typed in the other normalization names the file that exists; `chat` appends to it
    /// and makes no second file.
    @Test(arguments: ["nfd file", "nfc file"])
    func aPathTypedInEitherNormalizationFindsTheFile(existing: String) throws {
        let vault = try DiaryVault.fresh()
        let onDisk = existing == "nfd file" ? Self.decomposed : Self.composed
        let typed = existing == "nfd file" ? Self.composed : Self.decomposed
        try writeRaw(vault.root + "/rooms/\(onDisk).md", room("부산 여행"))
        try vault.git(["add", "-A"])
        try vault.git(["commit", "-q", "-m", "a room from another machine"])
        for arguments in [["show", "rooms/\(typed).md"], ["show", typed]] {
            let r = try vault.run(arguments)
            expectSuccess(r)
        }
        try expectDiarySuccess(try vault.run(["chat", "rooms/\(typed).md", "안녕"]), vault)
        try expectDiarySuccess(try vault.run(["chat", typed, "또 안녕"]), vault)
        #expect(names(vault.root + "/rooms") == [Array("\(onDisk).md".utf8)])
        let text = try vault.readText("rooms/\(onDisk).md")
        #expect(parseRoom(text).messages.count == 4, "\(text)")
    }

    /// A deleted room made on a Mac, brought back by a path typed on Linux: the file comes back
    /// under its own name, not a look-alike.
    @Test func restoreOfADeletedFileTypedInTheOtherNormalization() throws {
        let vault = try DiaryVault.fresh()
        try writeRaw(vault.root + "/rooms/\(Self.decomposed).md", room("부산 여행"))
        try vault.git(["add", "-A"])
        try vault.git(["commit", "-q", "-m", "a room from a Mac"])
        try expectDiarySuccess(try vault.run(["rm", "rooms/\(Self.composed).md", "--yes"]), vault)
        #expect(names(vault.root + "/rooms") == [])
        try expectDiarySuccess(try vault.run(["restore", "rooms/\(Self.composed).md"]), vault)
        #expect(names(vault.root + "/rooms") == [Array("\(Self.decomposed).md".utf8)])
        try expectDiarySuccess(try vault.run(["log", "rooms/\(Self.composed).md"]), vault)
    }

    /// Whether `text`'s UTF-8 holds `part`'s, byte for byte (Swift's `contains` compares
    /// characters, and takes a decomposed `제주` for a composed one).
    private func holdsBytes(_ text: String, _ part: String) -> Bool {
        let a = Array(text.utf8), b = Array(part.utf8)
        guard !b.isEmpty, a.count >= b.count else { return b.isEmpty }
        return (0...(a.count - b.count)).contains { a[$0..<($0 + b.count)].elementsEqual(b) }
    }

    /// A title, tag and text written on a Mac (decomposed Hangul in the front-matter and the body)
    /// are printed composed by `rooms` (aligned, piped, `--json`) and `diary list`, read now and from
    /// the listing cache, so `vault rooms | grep 제주` finds the room; the files keep their bytes.
    @Test func decomposedTitlesArePrintedComposed() throws {
        let vault = try DiaryVault.fresh()
        let nfd = { (s: String) in s.decomposedStringWithCanonicalMapping }
        try vault.write(
            "rooms/jeju.md",
            "---\ntitle: \(nfd("제주 여행"))\ncreated: 2026-03-01T09:00:00+09:00\n---\n\n"
                + "## 🧑 user · x <!-- 2026-03-01T09:00:00+09:00 m-AAAAAAAAAAAA -->\n\n\(nfd("한라산 등반"))\n\n" + promptMarker + "\n")
        try vault.write(
            "diary/2026/2026-03-01-jeju.md",
            "---\ntitle: \(nfd("제주 첫날"))\ncreated: 2026-03-01T21:00:00+09:00\ntags: [\(nfd("여행"))]\n---\n\n\(nfd("바다를 봤다"))\n")
        try vault.git(["add", "-A"])
        try vault.git(["commit", "-q", "-m", "files from a Mac"])
        let before = try vault.snapshot()
        #expect(!holdsBytes(try vault.readText("rooms/jeju.md"), "제주"), "the premise: the file holds decomposed Hangul")
        // Conjoining jamo (U+1100–U+11FF, `E1 84`–`E1 87`): what decomposed Hangul is made of.
        let jamo = { (text: String) in
            let b = Array(text.utf8)
            return b.indices.dropLast().contains { b[$0] == 0xE1 && (0x84...0x87).contains(b[$0 + 1]) }
        }
        // Twice: read now, then from the listing cache.
        for pass in 1...2 {
            for (arguments, wanted) in [
                (["rooms"], ["제주 여행", "한라산 등반"]), (["rooms", "--json"], ["제주 여행", "한라산 등반"]),
                (["diary", "list"], ["제주 첫날", "#여행", "바다를 봤다"]), (["diary", "list", "--json"], ["제주 첫날", "여행"]),
            ] {
                for columns in [nil, "100"] {
                    let r = try vault.run(arguments, extra: columns.map { ["COLUMNS": $0] } ?? [:])
                    expectSuccess(r)
                    for word in wanted {
                        #expect(holdsBytes(r.stdout, word), "pass \(pass), \(arguments), COLUMNS \(columns ?? "-"): no composed \(word) in \(r.stdout)")
                    }
                    #expect(!jamo(r.stdout), "pass \(pass), \(arguments), COLUMNS \(columns ?? "-"): decomposed: \(r.stdout)")
                }
            }
        }
        expectUnchanged(before, try vault.snapshot())
    }

    @Test func checkReportsLookAlikePairs() throws {
        let vault = try DiaryVault.fresh()
        try writeRaw(vault.root + "/rooms/\(Self.composed).md", room("리눅스"))
        try writeRaw(vault.root + "/rooms/\(Self.decomposed).md", room("맥"))
        let folder = vault.root + "/diary/2026"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try writeRaw(folder + "/2026-03-01-첫눈.md", "리눅스\n")
        try writeRaw(folder + "/" + "2026-03-01-첫눈".decomposedStringWithCanonicalMapping + ".md", "맥\n")
        try writeRaw(vault.root + "/rooms/plain.md", room("ascii"))
        let before = try vault.snapshot()
        let r = try vault.run(["check"])
        #expect(r.status == 1)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        let rooms = lines.filter { $0.contains("rooms/") && $0.contains("look") }
        let entries = lines.filter { $0.contains("diary/2026/") && $0.contains("look") }
        #expect(rooms.count == 1, "\(r.stdout)")
        #expect(entries.count == 1, "\(r.stdout)")
        #expect(!r.stdout.contains("plain.md"), "\(r.stdout)")
        // The line names both files, each with its normalization.
        if let line = rooms.first {
            #expect(line.contains("NFC") && line.contains("NFD"), "\(line)")
        }
        expectUnchanged(before, try vault.snapshot())
    }
}
