import Foundation
import Testing
import VaultTestSupport

@testable import VaultCore

/// A write that replaces a file only if it is still the version that was read: a save made
/// in an editor between vault's read and its write is never overwritten.
@Suite struct GuardedWriteTests {
    func files(_ dir: TemporaryDirectory) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
    }

    @Test func anUnchangedFileIsReplaced() throws {
        let dir = TemporaryDirectory("guarded")
        try dir.write("room.md", "first\n")
        let (_, stamp) = try FileIO.readStamped(dir.path + "/room.md")
        try FileIO.write(Array("second\n".utf8), to: dir.path + "/room.md", expecting: .unchanged(stamp))
        #expect(try dir.readText("room.md") == "second\n")
        #expect(try files(dir) == ["room.md"])
    }

    /// An editor that saves by writing a new file and renaming it over the old one (vim's
    /// default, VS Code), and one that writes in place with the same length.
    @Test(arguments: ["rename", "in place"])
    func aSaveMadeSinceTheReadWins(how: String) throws {
        let dir = TemporaryDirectory("guarded")
        let path = dir.path + "/room.md"
        try dir.write("room.md", "first\n")
        let (_, stamp) = try FileIO.readStamped(path)
        if how == "rename" {
            try Data("saved!\n".utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } else {
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            try handle.write(contentsOf: Data("FIRST\n".utf8))
            try handle.close()
        }
        let now = try dir.readText("room.md")
        #expect(throws: VaultError.self) {
            try FileIO.write(Array("vault's version\n".utf8), to: path, expecting: .unchanged(stamp))
        }
        do {
            try FileIO.write(Array("vault's version\n".utf8), to: path, expecting: .unchanged(stamp))
        } catch {
            #expect(error.description.contains("changed on disk while vault was changing it"), "\(error)")
            #expect(error.description.contains("wrote nothing"))
        }
        #expect(try dir.readText("room.md") == now, "the save was overwritten")
        #expect(try files(dir) == ["room.md"], "a temporary file was left")
    }

    @Test func aNewFileIsNeverWrittenOverOneThatAppeared() throws {
        let dir = TemporaryDirectory("guarded")
        let path = dir.path + "/new.md"
        try FileIO.write(Array("made\n".utf8), to: path, expecting: .absent)
        #expect(try dir.readText("new.md") == "made\n")
        var caught: VaultError?
        do {
            try FileIO.write(Array("again\n".utf8), to: path, expecting: .absent)
        } catch {
            caught = error
        }
        guard case .changedOnDisk? = caught else {
            Issue.record("expected changedOnDisk, got \(String(describing: caught))")
            return
        }
        #expect(try dir.readText("new.md") == "made\n")
        #expect(try files(dir) == ["new.md"], "a temporary file was left")
    }

    @Test func aTurnStepIsRetriedTwiceAtMost() throws {
        var calls = 0
        let value = try ChatTurn.retryingIfChangedOnDisk { () throws(VaultError) -> Int in
            calls += 1
            if calls < 3 { throw VaultError.changedOnDisk(path: "rooms/r.md") }
            return 42
        }
        #expect(value == 42 && calls == 3)
        calls = 0
        #expect(throws: VaultError.self) {
            try ChatTurn.retryingIfChangedOnDisk { () throws(VaultError) -> Int in
                calls += 1
                throw VaultError.changedOnDisk(path: "rooms/r.md")
            }
        }
        #expect(calls == 3)
        // Other failures are not retried.
        calls = 0
        #expect(throws: VaultError.self) {
            try ChatTurn.retryingIfChangedOnDisk { () throws(VaultError) -> Int in
                calls += 1
                throw VaultError.input(.emptyName)
            }
        }
        #expect(calls == 1)
    }
}
