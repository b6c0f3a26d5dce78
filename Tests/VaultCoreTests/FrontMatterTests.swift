import Testing
import VaultTestSupport
import Yams

@testable import VaultCore

@Suite struct FrontMatterTests {
    func frontMatter(_ yaml: String) throws -> FrontMatter {
        let bytes = Array("---\n\(yaml)---\n".utf8)
        return try bytes.withUnsafeBufferPointer { b in try FrontMatter.parse(b, from: 0, path: "x.md")! }
    }

    @Test func valuesAreReadAsWritten() throws {
        let fm = try frontMatter("""
            # a comment
            title: 'it''s 부산'
            created: 2026-11-21T09:30:00+09:00
            flag: no
            other: off # trailing comment
            quoted: "tab\\tand \\u00e9"
            tags: [여행, 부산]
            list:
              - one
              - "two: 2"
            empty:
            block: |-
              line one

              line three

            """)
        #expect(fm.string("title") == "it's 부산")
        #expect(fm.string("created") == "2026-11-21T09:30:00+09:00")
        #expect(fm.string("flag") == "no")
        #expect(fm.string("other") == "off")
        #expect(fm.string("quoted") == "tab\tand é")
        #expect(fm.strings("tags") == ["여행", "부산"])
        #expect(fm.strings("list") == ["one", "two: 2"])
        #expect(fm.string("empty") == "")
        #expect(fm.string("block") == "line one\n\nline three")
        #expect(
            fm.entries.map(\.key) == ["title", "created", "flag", "other", "quoted", "tags", "list", "empty", "block"])
        #expect(fm.entries.map(\.line) == [3, 4, 5, 6, 7, 8, 9, 12, 13])
    }

    @Test func complexYAMLGoesThroughYams() throws {
        let fm = try frontMatter("""
            title: >
              folded
              text
            nested:
              a: 1
            anchors: &x value
            copy: *x

            """)
        #expect(fm.string("title") == "folded text\n")
        #expect(fm.string("copy") == "value")
        if case .other = fm["nested"] {
        } else {
            Issue.record("nested should be .other, is \(String(describing: fm["nested"]))")
        }
    }

    /// The fast reader and Yams agree on every value the fast reader accepts.
    @Test func fastReaderAgreesWithYams() throws {
        var rng = SeededRandom(seed: 7)
        let atoms = ["부산", "a b", "no", "off", "~", "1.5", "x#y", "it's", "say \"hi\"", "a: b", "- x", "#c", "tab\tx",
            "é", "2026-11-21T09:30:00+09:00", "[a]", "{b}", "*a", "&b", "!t", "%p", "@at", "`bt`", "|", ">", " lead",
            "trail ",
        ]
        var checked = 0
        for _ in 0..<2000 {
            let atom =
                atoms.randomElement(using: &rng)! + (Bool.random(using: &rng) ? atoms.randomElement(using: &rng)! : "")
            let quoted = atom.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            let forms = [
                "k: \(atom)\n",
                "k: \"\(quoted)\"\n",
                "k: '\(atom.replacingOccurrences(of: "'", with: "''"))'\n",
                "k: [\(atom), x]\n",
                "k:\n  - \(atom)\n",
                "k: |\n  \(atom)\n",
            ]
            for form in forms {
                let bytes = Array(form.utf8)
                let lines = bytes.withUnsafeBufferPointer { b -> [Range<Int>] in
                    var out: [Range<Int>] = []
                    var i = 0
                    while let nl = b.firstNewline(from: i) { out.append(i..<nl); i = nl + 1 }
                    return out
                }
                let fast = bytes.withUnsafeBufferPointer { FastYAML.value($0, lines: lines) }
                guard let fast else { continue }
                let yams = try? YAMLReader.values(form)["k"]
                #expect(yams == fast, "form \(form.debugDescription): fast \(fast), Yams \(String(describing: yams))")
                checked += 1
            }
        }
        #expect(checked > 3000)
    }

    /// Any string set through the editor reads back the same, and no other byte moves.
    @Test func editorWritesReadBackExactly() throws {
        var rng = SeededRandom(seed: 11)
        let atoms = [
            "부산", " ", "no", "1", "\n", "\r\n", "\t", ": ", " #", "\"", "'", "\\", "- ", "[", "{", "é", "🤖", "|", ">",
            "~", "\u{7}",
        ]
        let original = Array("---\n# keep me\ntitle: 원래 제목 # comment\nmodel: x\n---\nbody\n".utf8)
        for _ in 0..<1500 {
            var value = ""
            for _ in 0..<Int.random(in: 0...6, using: &rng) { value += atoms.randomElement(using: &rng)! }
            let room = try RoomFile(parsing: original, path: "r.md")
            let out = try room.setting("model", to: .string(value))
            let again = try RoomFile(parsing: out, path: "r.md")
            #expect(again.frontMatter?.string("model") == value, "value \(value.debugDescription)")
            let text = String(decoding: out, as: UTF8.self)
            #expect(text.hasPrefix("---\n# keep me\ntitle: 원래 제목 # comment\nmodel:"))
            #expect(text.hasSuffix("---\nbody\n"))
        }
    }
}
