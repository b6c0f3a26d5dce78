import Foundation
import Testing
import VaultCore
import VaultTestSupport

@testable import VaultImport

@Suite struct JSONArrayStreamTests {
    /// A random JSON value as text: strings with escapes, quotes, brackets and non-ASCII inside,
    /// nested objects and arrays, numbers, literals, random whitespace.
    func randomValue(_ random: inout SeededRandom, depth: Int = 0) -> String {
        let space = [" ", "", "\n", "\t", "  ", "\r\n"]
        func ws() -> String { space[Int(random.next() % UInt64(space.count))] }
        let pick = depth > 3 ? random.next() % 4 : random.next() % 6
        switch pick {
        case 0:
            let pieces = ["a", "\\\"", "\\\\", "]", "}", "[", "{", ",", "한국어", "😀", "\\n", "\\u00e9", "\\/", " ", "\\\\\\\""]
            let count = Int(random.next() % 12)
            return "\"" + (0..<count).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined() + "\""
        case 1: return ["0", "-12", "3.25", "1e5", "-0.5E-3", "42"][Int(random.next() % 6)]
        case 2: return ["true", "false", "null"][Int(random.next() % 3)]
        case 3: return "\"\""
        case 4:
            let count = Int(random.next() % 4)
            let members = (0..<count).map { k in
                ws() + "\"k\(k)\"" + ws() + ":" + ws() + randomValue(&random, depth: depth + 1) + ws()
            }
            return "{" + members.joined(separator: ",") + (count == 0 ? ws() : "") + "}"
        default:
            let count = Int(random.next() % 4)
            let items = (0..<count).map { _ in ws() + randomValue(&random, depth: depth + 1) + ws() }
            return "[" + items.joined(separator: ",") + (count == 0 ? ws() : "") + "]"
        }
    }

    func elements(_ text: String, chunk: Int) throws(VaultError) -> [String] {
        let folder = TemporaryDirectory("vault-jsonstream")
        try? folder.write("a.json", text)
        var out: [String] = []
        try JSONArrayStream(path: folder.path + "/a.json", name: "a.json", chunkSize: chunk).forEachElement {
            index, offset, bytes throws(VaultError) in
            #expect(index == out.count)
            _ = try JSONArrayStream.object(bytes, file: "a.json", index: index, offset: offset)
            out.append(String(decoding: bytes, as: UTF8.self))
        }
        return out
    }

    @Test func randomArraysComeBackElementByElementWhateverTheChunkSize() throws {
        var random = SeededRandom(seed: 24)
        for round in 0..<150 {
            let count = Int(random.next() % 8)
            let values = (0..<count).map { _ in randomValue(&random) }
            let text = " \n[" + values.map { " " + $0 + "\n" }.joined(separator: ",") + "]\n"
            // The whole text is JSON, and each element decodes as the same value as in the array.
            let whole = try JSONSerialization.jsonObject(with: Data(text.utf8)) as! [Any]
            for chunk in [1, 2, 3, 7, 64, 1 << 16] {
                let got = try elements(text, chunk: chunk)
                #expect(got == values, "round \(round), chunk \(chunk)")
            }
            #expect(whole.count == values.count)
        }
    }

    @Test func anElementsOffsetIsWhereItBegins() throws {
        let folder = TemporaryDirectory("vault-jsonstream")
        try folder.write("a.json", "[1, {\"a\": [2]} ,\"x\"]")
        var offsets: [Int] = []
        try JSONArrayStream(path: folder.path + "/a.json", chunkSize: 2).forEachElement { _, offset, _ in offsets.append(offset) }
        #expect(offsets == [1, 4, 16])
    }

    func problem(_ text: [UInt8], chunk: Int = 5) -> String? {
        let folder = TemporaryDirectory("vault-jsonstream")
        try? folder.write("c.json", text)
        return importProblem {
            () throws(VaultError) in
            try JSONArrayStream(path: folder.path + "/c.json", name: "c.json", chunkSize: chunk).forEachElement {
                index, offset, bytes throws(VaultError) in
                _ = try JSONArrayStream.object(bytes, file: "c.json", index: index, offset: offset)
            }
        }
    }

    @Test func badFilesNameTheElementAndTheByte() {
        #expect(problem(Array("[{\"a\": 1}, {\"b\": \"open".utf8)) == "c.json, at [1]: is cut short: the file ends at byte 22 inside this element")
        #expect(problem(Array("[{\"a\": 1},".utf8)) == "c.json, at byte 10: is cut short: the file ends before the array's ]")
        #expect(problem(Array("[{\"a\": 1}".utf8)) == "c.json, at byte 9: is cut short: the file ends before the array's ]")
        #expect(problem(Array("[1, 2".utf8)) == "c.json, at [1]: is cut short: the file ends at byte 5 before the array's ]")
        #expect(problem([]) == "c.json: is empty, not a JSON array or object")
        #expect(problem(Array("x[]".utf8)) == "c.json: is not a JSON array or object (it begins with \"x\")")
        #expect(problem(Array("{\"a\": 1} {}".utf8)) == "c.json, at byte 9: has more after the object's closing }")
        #expect(problem(Array("{\"a\": [1,".utf8)) == "c.json, at [0]: is cut short: the file ends at byte 9 inside this element")
        #expect(problem(Array("[{\"a\": 1}, {\"b\": tru}]".utf8)) == "c.json, at [1]: is not valid JSON (the element at byte 11)")
        #expect(problem(Array("[{\"a\" 1}]".utf8)) == "c.json, at [0]: is not valid JSON (the element at byte 1)")
        #expect(problem(Array("[1 2]".utf8)) == "c.json, at [0]: is not valid JSON (\"2\" at byte 3 after the element)")
        #expect(problem(Array("[1,,2]".utf8)) == "c.json, at byte 3: is not valid JSON (\",\" where an element should be)")
        #expect(problem(Array("[1] x".utf8)) == "c.json, at byte 4: has more after the array's closing ]")
        // Invalid UTF-8: a lone continuation byte, an overlong form, a surrogate, a cut sequence.
        #expect(problem(Array("[\"ok\", \"a".utf8) + [0x80] + Array("\"]".utf8)) == "c.json, at [1]: is not valid UTF-8 (byte 9)")
        #expect(problem(Array("[\"".utf8) + [0xC0, 0xAF] + Array("\"]".utf8)) == "c.json, at [0]: is not valid UTF-8 (byte 2)")
        #expect(problem(Array("[\"".utf8) + [0xED, 0xA0, 0x80] + Array("\"]".utf8)) == "c.json, at [0]: is not valid UTF-8 (byte 2)")
        #expect(problem(Array("[\"é".utf8) + [0xE2, 0x82] + Array("\"]".utf8)) == "c.json, at [0]: is not valid UTF-8 (byte 4)")
    }

    @Test func validInputsReadWhole() throws {
        #expect(try elements("[]", chunk: 1) == [])
        #expect(try elements("\u{FEFF}[ ]", chunk: 1) == [])
        #expect(try elements("[\"a]b\\\"c\" , [[]],{}]", chunk: 3) == ["\"a]b\\\"c\"", "[[]]", "{}"])
        // One object (a single conversation, as browser exporters write it): element [0].
        #expect(try elements("\u{FEFF} {\"a\": [1, \"}\"]}\n", chunk: 2) == ["{\"a\": [1, \"}\"]}"])
    }

    @Test func theUTF8CheckAgreesWithTheStandardLibrary() {
        var random = SeededRandom(seed: 8)
        for _ in 0..<3000 {
            let count = Int(random.next() % 6)
            let bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            let valid = String(validating: bytes, as: UTF8.self) != nil
            #expect((firstInvalidUTF8(bytes) == nil) == valid, "\(bytes)")
        }
    }
}
