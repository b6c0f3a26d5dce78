import Testing

@testable import VaultCore

/// What fuzzing found (`Fuzz/regressions/`, `scripts/fuzz.sh`), each kept as a test of its own.
@Suite struct FuzzRegressionTests {
    func frontMatter(_ yaml: String) throws(VaultError) -> RoomFile {
        try RoomFile(parsing: Array("---\n\(yaml)---\n".utf8), path: "rooms/x.md")
    }

    /// A diary entry whose first line is "# " (an empty heading) crashed every command that
    /// read it (a range ending before it started).
    @Test func anEmptyHeadingReads() throws {
        let entry = try DiaryFile(parsing: Array("# \n\n본문.\n".utf8), path: "diary/2026/2026-11-21-x.md")
        #expect(entry.heading == "")
        #expect(entry.body == "\n본문.\n")
        // Read without an error; its only warning is that it has no date (neither `created` nor
        // a date in its name).
        #expect(DiaryFile.problems(in: Array("#   \r\n".utf8), path: "diary/x.md").map(\.kind) == [.noDate])
        #expect(DiaryFile.problems(in: Array("#   \r\n".utf8), path: "diary/2026-11-21.md").isEmpty)
    }

    /// The fast front-matter reader took lone carriage returns, NEL and LS as text and a
    /// byte-order mark as part of a key, where YAML reads line breaks and drops the mark; and it
    /// took control characters YAML refuses. Such blocks are now read by Yams: as YAML reads them,
    /// or refused with their line.
    @Test func whatYAMLReadsOtherwiseIsReadAsYAMLReadsIt() throws {
        #expect(try frontMatter("\rtitle: t\n").frontMatter?.string("title") == "t")
        #expect(try frontMatter("\u{FEFF}title: t\n").frontMatter?.string("title") == "t")
        #expect(try frontMatter("title: a\r  b\n").frontMatter?.string("title") == "a b")
        for yaml in ["title: a\u{2028}  b\n", "title: a\u{85}b\n", "k: v\u{2029}\n"] {
            // Read as YAML reads it, or refused as YAML refuses it.
            #expect(
                (try? frontMatter(yaml))?.frontMatter?.values == (try? YAMLReader.values(yaml)),
                "\(yaml.debugDescription)")
        }
        for refused in ["title: t\nc\u{7}eated: x\n", "title: \"a\u{1B}[2J\"\n", "title: a\u{9B}b\n"] {
            let problems = RoomFile.problems(in: Array("---\n\(refused)---\n".utf8), path: "rooms/x.md")
            #expect(
                problems.count == 1 && problems[0].message.contains("not valid YAML"),
                "\(refused.debugDescription): \(problems)")
            #expect(problems.first?.line ?? 0 >= 2, "\(problems)")
        }
    }

    /// A line of tabs (indentation YAML refuses) was skipped as blank by the fast reader; YAML
    /// refuses the block, and so does vault now, naming the line.
    @Test func aTabIndentedLineIsLeftToYAML() {
        let tabbed = [
            "tile :\n\t\n#A #\n", "id: d-1\n\n\t\t\ntitle: t\n", "key:\n\t- item\n", "t: S\r\n\t\r\n", "0:\n - \t\n",
        ]
        for yaml in tabbed + ["a:\n - x\n - \t \n"] {
            let problems = RoomFile.problems(in: Array("---\n\(yaml)---\n".utf8), path: "rooms/x.md")
            #expect((try? YAMLReader.values(yaml)) == nil, "YAML reads \(yaml.debugDescription)")
            #expect(
                problems.count == 1 && problems[0].message.contains("not valid YAML"),
                "\(yaml.debugDescription): \(problems)")
        }
        // A tab after the indentation is text, as in YAML.
        #expect(FormatInvariants.room(Array("---\ntitle: a\tb\n---\n".utf8)).isEmpty)
    }

    /// `"\u+00e9"` is not an escape YAML knows (four hex digits, no sign), nor is a key of more
    /// than 1,024 characters; the fast reader took both.
    @Test func escapesAndKeysYAMLRefusesAreRefused() throws {
        let long = String(repeating: "{", count: 1100)
        for yaml in ["title: \"\\u+00e9\"\n", "\(long)x: 1\n"] {
            #expect((try? YAMLReader.values(yaml)) == nil, "YAML reads \(yaml.debugDescription)")
            let problems = RoomFile.problems(in: Array("---\n\(yaml)---\n".utf8), path: "rooms/x.md")
            #expect(problems.count == 1 && problems[0].message.contains("not valid YAML"), "\(problems)")
        }
        #expect(try frontMatter("title: \"\\u00e9\"\n").frontMatter?.string("title") == "é")
    }

    /// A title starting with a space and a combining mark (one character to Swift) was written
    /// as a `|` block whose first line starts with a space, which YAML reads as indentation.
    @Test func aLeadingSpaceIsKeptUnderACombiningMark() throws {
        let title = " \u{31F}x\nsecond line"
        let room = try RoomFile(
            parsing: RoomFile.newRoom(title: title, created: FormatInvariants.fixedTime), path: "r.md")
        #expect(room.frontMatter?.string("title") == title)
        #expect(FormatInvariants.roomWriter(title: title, body: "b", value: "v", crlf: false).isEmpty)
    }

    /// A message whose body is a lone carriage return ending an LF file: the parser took "\r\n"
    /// after a header as framing in an LF file too, so once a message was appended after it the
    /// body read as empty. Only the file's own line ending is framing (FORMAT.md).
    @Test func aCarriageReturnAfterAHeaderIsText() throws {
        let header = "## 🧑 user · d <!-- 2026-11-21T09:31:07+09:00 m-AAAAAAAAAAAA -->"
        for (eol, body) in [("\n", "\r"), ("\n", "x\r"), ("\r\n", "x\r")] {
            let text = "---\(eol)title: t\(eol)---\(eol)\(eol)\(header)\(eol)\(eol)\(body)"
            let room = try RoomFile(parsing: Array(text.utf8), path: "r.md")
            #expect(room.messages.map(\.body) == [body], "\(text.debugDescription)")
            #expect(FormatInvariants.room(room.bytes).isEmpty, "\(FormatInvariants.room(room.bytes))")
            let draft = MessageDraft(role: .user, body: "next", timestamp: FormatInvariants.fixedTime)
            let appended = room.appendingRoom([draft]) { _ in "d" }
            let again = try RoomFile(parsing: appended.room.bytes, path: "r.md")
            #expect(again.messages.map(\.body) == [body, "next"], "\(text.debugDescription)")
            #expect(appended.room.messages.map(\.body) == again.messages.map(\.body))
        }
    }

    /// A key with nothing after it but an indented comment is an empty value, as YAML reads it;
    /// the fast reader took it for an empty list.
    @Test func aKeyFollowedByACommentIsEmpty() throws {
        let room = try frontMatter("id:\n  # a comment\ntitle: t\n")
        #expect(room.frontMatter?.string("id") == "")
        #expect(room.frontMatter?.string("title") == "t")
    }

    /// YAML's errors are reported on the file's lines (counted by line feeds), though YAML counts
    /// each lone carriage return as a line of its own: a file of 12 lines had an error on line 108.
    @Test func yamlErrorsNameTheFilesLine() {
        let text = "---\ntitle: S" + String(repeating: "\r", count: 100) + "x\nmodel: [a\n---\n"
        let problems = RoomFile.problems(in: Array(text.utf8), path: "rooms/x.md")
        #expect(problems.count == 1)
        #expect((2...4).contains(problems.first?.line ?? 0), "\(problems)")
        #expect(YAMLReader.lineFeedLine(ofYAMLLine: 3, in: "a\r\nb\rc\nd") == 2)
        #expect(YAMLReader.lineFeedLine(ofYAMLLine: 4, in: "a\u{85}b\u{2029}c\nd") == 2)
    }

    /// The room writer wrote C1 controls, NEL, LS, PS and U+FFFF raw: YAML refuses a file with
    /// them, or reads another title. They are written escaped and read back exactly.
    @Test(arguments: [
        "a\u{9B}31m", "\u{FFFF}x", "line\u{2028}sep", "a\u{85}b", "p\u{2029}q", "-Nc\u{5}--\n\u{2028}newline\ntitle: ",
    ])
    func theWriterEscapesWhatYAMLDoesNotTakeRaw(title: String) throws {
        let bytes = RoomFile.newRoom(title: title, created: Timestamp(rfc3339: "2026-11-21T09:00:00+09:00")!)
        let room = try RoomFile(parsing: bytes, path: "rooms/x.md")
        #expect(room.frontMatter?.string("title") == title)
        let text = String(decoding: bytes, as: UTF8.self)
        let inner = String(text.dropFirst(4).split(separator: "---")[0])
        #expect(try YAMLReader.values(inner)["title"] == .string(title), "\(text.debugDescription)")
    }
}
