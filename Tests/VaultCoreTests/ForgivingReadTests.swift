import Testing
import VaultTestSupport

@testable import VaultCore

/// Files a person broke by hand, read as far as they can be (issue 27): a front-matter that
/// lost its opening `---`, a message header with a bad timestamp.
@Suite struct ForgivingReadTests {
    static let entry = "id: d-ABCDEFGHJKMN\ntitle: Day one\ncreated: 2026-11-20T09:00:00+09:00\ntags: [a]\n---\n\n"
        + "# Friday, November 20, 2026\n\nhello\n"

    @Test func anEntryWithoutItsOpeningDashesIsReadAndReported() throws {
        let path = "diary/2026/2026-11-20-day-one.md"
        let entry = try DiaryFile(parsing: Array(Self.entry.utf8), path: path)
        #expect(entry.title == "Day one")
        #expect(entry.tags == ["a"])
        #expect(entry.heading == "Friday, November 20, 2026")
        #expect(entry.body.trimmingCharacters(in: .newlines) == "hello")
        #expect(entry.frontMatter?.lacksOpening == true)
        #expect(
            DiaryFile.problems(in: Array(Self.entry.utf8), path: path)
                == [FormatProblem(path: path, line: 1, kind: .noOpeningFrontMatter)])
        #expect(FormatInvariants.diaryEntry(Array(Self.entry.utf8)).isEmpty)
        // With the opening back, nothing is wrong.
        #expect(DiaryFile.problems(in: Array(("---\n" + Self.entry).utf8), path: path).isEmpty)
    }

    /// Text that merely looks like keys over a `---` rule is body text: without `id` or
    /// `created`, a key line with no closing line, or keys that are not YAML.
    @Test(arguments: [
        "Mood: good\n---\nA walk.\n",
        "id: x\nno closing line\n",
        "Note: a\n\nthen a paragraph\n---\nmore\n",
    ])
    func bodyTextIsNotTakenForFrontMatter(text: String) throws {
        let entry = try DiaryFile(parsing: Array(text.utf8), path: "diary/2026/2026-11-20-x.md")
        #expect(entry.frontMatter == nil)
        #expect(DiaryFile.problems(in: Array(text.utf8), path: "diary/2026/2026-11-20-x.md").isEmpty)
    }

    /// A room without its opening line is read (and takes a message), but its front-matter is
    /// never rewritten.
    @Test func aRoomWithoutItsOpeningDashesIsReadButNotRewritten() throws {
        let bytes = Array("title: Plans\ncreated: 2026-11-20T09:00:00+09:00\n---\n\n<!-- vault:prompt -->\n".utf8)
        let room = try RoomFile(parsing: bytes, path: "rooms/plans.md")
        #expect(room.title == "Plans")
        #expect(room.warnings == [FormatProblem(path: "rooms/plans.md", line: 1, kind: .noOpeningFrontMatter)])
        #expect(FormatInvariants.room(bytes).isEmpty, "\(FormatInvariants.room(bytes))")
        #expect(throws: VaultError.self) {
            _ = try FrontMatterEditor.setting(
                "model", to: .string("m"), in: bytes, frontMatter: room.frontMatter, path: room.path,
                lineEnding: room.lineEnding)
        }
    }

    static let room = """
        ---
        title: r
        ---

        ## 🧑 user · d <!-- 2026-11-20T09:00:00+09:00 m-ABCDEFGHJKMA -->

        one

        ## 🤖 assistant · d <!-- 2026-13-01T09:00:00+09:00 m-ABCDEFGHJKMB -->

        two

        ## 🧑 user · d <!-- 2026-11-21T09:00:00+09:00 m-ABCDEFGHJKMC -->

        three

        """

    @Test func aBadHeaderIsKeptAsTextOfTheMessageAboveIt() throws {
        let bytes = Array(Self.room.utf8)
        #expect(throws: VaultError.self) { _ = try RoomFile(parsing: bytes, path: "rooms/r.md") }
        let room = try RoomFile.readingWhatCan(bytes, path: "rooms/r.md")
        #expect(room.messages.map(\.line) == [5, 13])
        #expect(room.unreadHeaders.map(\.line) == [9])
        let marked = room.body(of: room.messages[0]) { line, problem in "[\(problem.line)] " + line }
        #expect(
            marked == "one\n\n[9] ## 🤖 assistant · d <!-- 2026-13-01T09:00:00+09:00 m-ABCDEFGHJKMB -->\n\ntwo")
        #expect(room.body(of: room.messages[1]) { _, _ in "x" } == "three")
    }
}
