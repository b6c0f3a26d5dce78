import Foundation
import Testing
import VaultTestSupport

@testable import VaultCore

/// Many files written as one batch (`FileIO.writeAll`): every file whole, old or new, and no
/// temporary file left behind, whether the batch succeeds or fails.
@Suite struct WriteAllTests {
    func names(_ dir: TemporaryDirectory, _ folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir.path + "/" + folder).sorted()
    }

    @Test func filesInSeveralFoldersAreWrittenReplacedAndRemoved() throws {
        let dir = TemporaryDirectory("write-all")
        try dir.write("rooms/a.md", "old a\n")
        try dir.write("rooms/gone.md", "bye\n")
        try dir.write("diary/2026/01.md", "old entry\n")
        chmod(dir.path + "/rooms/a.md", 0o600)
        let texts = ["new a\n", "new b\n", "new entry\n"]
        let paths = ["rooms/a.md", "rooms/b.md", "diary/2026/01.md"].map { dir.path + "/" + $0 }
        try FileIO.writeAll(paths, removing: [dir.path + "/rooms/gone.md", dir.path + "/rooms/never.md"]) { i in
            Array(texts[i].utf8)
        }
        #expect(try dir.readText("rooms/a.md") == "new a\n")
        #expect(try dir.readText("rooms/b.md") == "new b\n")
        #expect(try dir.readText("diary/2026/01.md") == "new entry\n")
        // The replaced file keeps its mode; no temporary file is left.
        #expect(try FileManager.default.attributesOfItem(atPath: paths[0])[.posixPermissions] as? Int == 0o600)
        #expect(try names(dir, "rooms") == ["a.md", "b.md"])
        #expect(try names(dir, "diary/2026") == ["01.md"])
    }

    /// A file that cannot be written (its folder is missing) and contents that cannot be had
    /// both stop the batch before anything is renamed: every file is still the old one.
    @Test(arguments: ["missing folder", "contents fail"])
    func aFailedWriteReplacesNothing(how: String) throws {
        let dir = TemporaryDirectory("write-all")
        try dir.write("rooms/a.md", "old a\n")
        try dir.write("rooms/b.md", "old b\n")
        var paths = ["rooms/a.md", "rooms/b.md"].map { dir.path + "/" + $0 }
        if how == "missing folder" { paths.append(dir.path + "/nowhere/c.md") }
        #expect(throws: VaultError.self) {
            try FileIO.writeAll(paths, removing: [dir.path + "/rooms/b.md"]) { i throws(VaultError) in
                if how == "contents fail" && i == 1 {
                    throw VaultError.io(path: paths[i], operation: "read", reason: "test")
                }
                return Array("new\n".utf8)
            }
        }
        #expect(try dir.readText("rooms/a.md") == "old a\n")
        #expect(try dir.readText("rooms/b.md") == "old b\n")
        #expect(try names(dir, "rooms") == ["a.md", "b.md"])
    }
}
