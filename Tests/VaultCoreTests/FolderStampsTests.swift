import Foundation
import Testing
import VaultTestSupport

@testable import VaultCore

/// The folders' stamps that let a sync skip the walk for new files: kept only when old
/// enough to trust, and any new file, removed file, new folder or ignore-file edit shows.
@Suite struct FolderStampsTests {
    /// A vault-like tree whose folders were last changed a minute ago.
    func tree() throws -> TemporaryDirectory {
        let dir = TemporaryDirectory("folder-stamps")
        try dir.write("rooms/a.md", "a\n")
        try dir.write("diary/2026/01.md", "entry\n")
        try dir.write(".gitignore", ".vault/\n")
        try dir.write(".vault/cache", "x\n")
        try age(dir)
        return dir
    }

    func age(_ dir: TemporaryDirectory) throws {
        let past = timeval(tv_sec: time(nil) - 60, tv_usec: 0)
        var times = [past, past]
        for folder in ["", "/rooms", "/diary", "/diary/2026", "/.gitignore"] {
            #expect(utimes(dir.path + folder, &times) == 0)
        }
    }

    let environment = ["HOME": "/nonexistent-home"]

    func kept(_ dir: TemporaryDirectory) throws -> Bool {
        let stamps = try #require(FolderStamps.take(root: dir.path, environment: environment))
        FolderStamps.save(stamps, root: dir.path)
        return FolderStamps.unchanged(root: dir.path)
    }

    @Test func aFolderChangedJustNowIsNotTrusted() throws {
        let dir = TemporaryDirectory("folder-stamps")
        try dir.write("rooms/a.md", "a\n")
        #expect(FolderStamps.take(root: dir.path, environment: environment) == nil)
        #expect(!FolderStamps.unchanged(root: dir.path))
    }

    @Test(arguments: ["new file", "removed file", "new folder", "ignore file edited", "forgotten"])
    func aChangeIsSeen(what: String) throws {
        let dir = try tree()
        #expect(try kept(dir))
        // What vault keeps in .vault/ and the tracked files' contents do not count.
        try dir.write(".vault/cache", "y\n")
        try dir.write("rooms/a.md", "edited in place\n")
        #expect(FolderStamps.unchanged(root: dir.path))
        switch what {
        case "new file": try dir.write("diary/2026/02.md", "new\n")
        case "removed file": #expect(unlink(dir.path + "/rooms/a.md") == 0)
        case "new folder": #expect(mkdir(dir.path + "/rooms/sub", 0o755) == 0)
        case "ignore file edited": try dir.write(".gitignore", ".vault/\n!*.tmp\n")
        default: FolderStamps.forget(root: dir.path)
        }
        #expect(!FolderStamps.unchanged(root: dir.path))
    }
}
