import Foundation
import Testing
import VaultTestSupport

@testable import VaultCore

@Suite struct ConflictMarkerTests {
    func b(_ s: String) -> [UInt8] { Array(s.utf8) }
    func s(_ bytes: [UInt8]?) -> String? { bytes.map { String(decoding: $0, as: UTF8.self) } }

    static let twoWay = """
        common
        <<<<<<< HEAD
        ours 1
        =======
        theirs 1
        >>>>>>> origin/main
        middle
        <<<<<<< HEAD
        ours 2
        =======
        >>>>>>> origin/main
        end

        """

    static let diff3 = """
        common
        <<<<<<< ours
        ours
        ||||||| base
        base
        =======
        theirs
        >>>>>>> theirs
        end

        """

    @Test func linesOfCompleteBlocks() {
        #expect(ConflictMarkers.lines(in: b(Self.twoWay)) == [2, 4, 6, 8, 10, 11])
        #expect(ConflictMarkers.lines(in: b(Self.diff3)) == [2, 4, 6, 8])
        #expect(ConflictMarkers.lines(in: b(Self.diff3.replacingOccurrences(of: "\n", with: "\r\n"))) == [2, 4, 6, 8])
        #expect(ConflictMarkers.lines(in: b("<<<<<<<\na\n=======\nb\n>>>>>>>")) == [1, 3, 5])
    }

    @Test func markerLikeLinesOutsideACompleteBlockAreText() {
        // A Markdown setext heading, an unfinished block, markers out of order, eight characters.
        #expect(ConflictMarkers.lines(in: b("Title\n=======\n\ntext\n")).isEmpty)
        #expect(ConflictMarkers.lines(in: b("<<<<<<< HEAD\nours\n=======\ntheirs\n")).isEmpty)
        #expect(ConflictMarkers.lines(in: b(">>>>>>> x\n=======\n<<<<<<< y\n")).isEmpty)
        #expect(ConflictMarkers.lines(in: b("<<<<<<<< x\na\n========\nb\n>>>>>>>> y\n")).isEmpty)
        #expect(ConflictMarkers.lines(in: b("<<<<<<<x\na\n=======\nb\n>>>>>>> y\n")).isEmpty)
        #expect(ConflictMarkers.lines(in: []).isEmpty)
        #expect(ConflictMarkers.split(b("no markers\n")) == nil)
        // A stray start before a complete block: only the complete block counts.
        #expect(ConflictMarkers.lines(in: b("<<<<<<< a\nx\n<<<<<<< b\ny\n=======\nz\n>>>>>>> c\n")) == [3, 5, 7])
        // A setext underline inside theirs' part is text of theirs.
        let setext = "<<<<<<< a\nx\n=======\nTitle\n=======\n>>>>>>> b\n"
        #expect(ConflictMarkers.lines(in: b(setext)) == [1, 3, 6])
        #expect(s(ConflictMarkers.split(b(setext))?.theirs) == "Title\n=======\n")
    }

    @Test func splitGivesEachSide() throws {
        let parts = try #require(ConflictMarkers.split(b(Self.twoWay)))
        #expect(s(parts.ours) == "common\nours 1\nmiddle\nours 2\nend\n")
        #expect(s(parts.theirs) == "common\ntheirs 1\nmiddle\nend\n")
        #expect(parts.base == nil)
        let three = try #require(ConflictMarkers.split(b(Self.diff3)))
        #expect(s(three.ours) == "common\nours\nend\n")
        #expect(s(three.base) == "common\nbase\nend\n")
        #expect(s(three.theirs) == "common\ntheirs\nend\n")
        // One block without a base section: no base version.
        let mixed = Self.diff3 + "<<<<<<< a\nx\n=======\ny\n>>>>>>> b\n"
        let m = try #require(ConflictMarkers.split(b(mixed)))
        #expect(m.base == nil)
        #expect(s(m.ours) == "common\nours\nend\nx\n")
    }

    @Test func aRoomSplitFromMarkersMergesBackToEveryMessage() throws {
        typealias R = RoomText
        let m1 = R.message("m-01JPA3K8Z4QX", 1, "질문")
        let a1 = R.message("m-AAAA0001", 2, "ours 1")
        let a2 = R.message("m-AAAA0002", 4, "ours 2", role: "assistant")
        let b1 = R.message("m-BBBB0001", 3, "theirs 1")
        // What `git merge` makes of two appends to one room without vault's driver.
        let marked = R.room([m1]).replacingOccurrences(
            of: RoomFile.promptMarkerLine,
            with: "<<<<<<< HEAD\n" + a1 + a2 + "=======\n" + b1 + ">>>>>>> origin/main\n" + RoomFile.promptMarkerLine)
        #expect(ConflictMarkers.lines(in: b(marked)).count == 3)
        let parts = try #require(ConflictMarkers.split(b(marked)))
        #expect(s(parts.ours) == R.room([m1, a1, a2]))
        let merged = try Merge.room(
            base: parts.base, ours: parts.ours, theirs: parts.theirs, path: "rooms/x.md", newer: .theirs)
        // Turns stay whole: ours' question and reply, then theirs' later question.
        #expect(merged.text == R.room([m1, a1, a2, b1]))
        #expect(ConflictMarkers.lines(in: merged.bytes).isEmpty)
    }

    // MARK: conflict copies

    @Test func originalsOfConflictCopies() {
        #expect(ConflictCopy.original(of: "diary/2026/x.sync-conflict-20261123-101500-ABCDEFG.md") == "diary/2026/x.md")
        #expect(ConflictCopy.original(of: "rooms/부산-여행.sync-conflict-20261123-101500-7QXK2LM.md") == "rooms/부산-여행.md")
        #expect(ConflictCopy.original(of: "notes (conflicted copy 2026-11-23).md") == "notes.md")
        #expect(ConflictCopy.original(of: "rooms/busan (Ada's conflicted copy 2026-11-23).md") == "rooms/busan.md")
        #expect(
            ConflictCopy.original(of: "vault (Ada Kim's MacBook Pro's conflicted copy 2026-11-23).yml") == "vault.yml")
        #expect(ConflictCopy.original(of: "rooms/x.conflict-laptop-20261123-101500.md") == "rooms/x.md")
        #expect(ConflictCopy.original(of: "rooms/x.conflict-my-old-pc-20261123-101500.md") == "rooms/x.md")
        #expect(ConflictCopy.original(of: "rooms/x.y.conflict-laptop-20261123-101500.md") == "rooms/x.y.md")
        #expect(ConflictCopy.original(of: ".gitignore.conflict-laptop-20261123-101500") == ".gitignore")
        #expect(ConflictCopy.original(of: "notes.md") == nil)
        #expect(ConflictCopy.original(of: "a (copy).md") == nil)
        #expect(ConflictCopy.original(of: "rooms/conflict-resolution.md") == nil)
        #expect(ConflictCopy.original(of: "x.sync-conflict-2026-101500-ABC.md") == nil)
        #expect(ConflictCopy.original(of: "x (conflicted copy soon).md") == nil)
        #expect(ConflictCopy.original(of: "x.conflict-laptop-20261123.md") == nil)
        #expect(ConflictCopy.original(of: ".sync-conflict-20261123-101500-ABCDEFG.md") == nil)
    }

    @Test func vaultsNameForAConflictCopy() {
        let time = Date(timeIntervalSince1970: 1_795_428_900)  // 2026-11-23T10:15:00Z
        #expect(
            ConflictCopy.name(for: "rooms/x.md", machine: "laptop", time: time, version: "1A2B3C4")
                == "rooms/x.conflict-laptop-20261123-101500-1a2b3c4.md")
        #expect(
            ConflictCopy.name(for: "x.md", machine: "Ada's Mac.local", time: time, version: "abcdef0")
                == "x.conflict-Ada-s-Mac-local-20261123-101500-abcdef0.md")
        #expect(
            ConflictCopy.name(for: "vault.yml", machine: "노트북_2", time: time, version: "0123456")
                == "vault.conflict-노트북_2-20261123-101500-0123456.yml")
        #expect(
            ConflictCopy.name(for: "diary/2026/note", machine: "", time: time, version: "fedcba9")
                == "diary/2026/note.conflict-machine-20261123-101500-fedcba9")
        // Same machine, same second: two versions, two names.
        #expect(
            ConflictCopy.name(for: "x.md", machine: "m", time: time, version: ConflictCopy.versionID(of: [1]))
                != ConflictCopy.name(for: "x.md", machine: "m", time: time, version: ConflictCopy.versionID(of: [2])))
        // Copies named before the version was part of the name are still copies.
        #expect(ConflictCopy.original(of: "rooms/x.conflict-laptop-20261123-101500.md") == "rooms/x.md")
        // Every name it makes is recognised as a copy of its original.
        for path in ["rooms/x.md", "diary/2026/2026-11-23-첫눈.md", "vault.yml", ".gitignore", "a/b.c.d"] {
            for machine in ["laptop", "my-old-pc", "Ada's Mac", "노트북", "", "a/b", "pc-20261123-101500"] {
                let name = ConflictCopy.name(for: path, machine: machine, time: time, version: "9f8e7d6")
                let folder = path.contains("/") ? String(path[...path.lastIndex(of: "/")!]) : ""
                #expect(name.hasPrefix(folder) && !name.dropFirst(folder.count).contains("/"))
                #expect(ConflictCopy.original(of: name) == path, "\(name)")
            }
        }
    }
}
