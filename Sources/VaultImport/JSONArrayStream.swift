import Foundation
import VaultCore

#if canImport(Glibc)
import Glibc
#endif

/// Reads a file whose top level is a JSON array one element at a time, so memory stays bounded
/// by the largest element (one conversation), not by the file (a whole export).
///
/// The file is read in chunks; a small scanner finds where each element ends (it follows
/// strings, their escapes and the nesting of objects and arrays, nothing more), and hands the
/// element's bytes, checked to be UTF-8, to `body`. Decoding an element is the caller's choice:
/// `JSONArrayStream.object(_:)` uses Foundation's `JSONSerialization`.
///
///     let stream = JSONArrayStream(path: "/tmp/export/conversations.json", name: "conversations.json")
///     try stream.forEachElement { index, offset, bytes in
///         let conversation = try JSONArrayStream.object(bytes, file: stream.name, index: index, offset: offset)
///     }
///
/// Errors are `VaultError.importing` naming `name`, the element (`[12]`) and the byte offset:
/// a file that ends inside an element or before the array's `]`, an element that is not UTF-8
/// or not JSON, a file that is not an array, an element past `limits` (checked as its bytes
/// arrive, so an export cannot make one element fill the memory).
package struct JSONArrayStream: Sendable {
    /// The file read.
    package let path: String
    /// The file as problems name it (`conversations.json`, `export.zip:conversations.json`).
    package let name: String
    /// How many bytes are read at a time.
    package let chunkSize: Int
    /// The cap on one element (`ImportLimits.maxItemSize`), checked as its bytes arrive.
    package let limits: ImportLimits

    package init(path: String, name: String? = nil, chunkSize: Int = 1 << 20, limits: ImportLimits = ImportLimits()) {
        self.path = path
        self.name = name ?? path
        self.chunkSize = max(1, chunkSize)
        self.limits = limits
    }

    /// Calls `body` with each element's index, the byte offset it starts at, and its bytes
    /// (valid UTF-8; surrounding whitespace not included), in the file's order.
    ///
    /// `path` is opened as named (a link followed), only if it is a regular file.
    package func forEachElement(
        _ body: (_ index: Int, _ offset: Int, _ bytes: [UInt8]) throws(VaultError) -> Void
    ) throws(VaultError) {
        try forEachElement(in: try ExportInput.openNamed(path, name: name), body)
    }

    /// The same, for a file already open.
    func forEachElement(
        in file: ExportFileHandle, _ body: (_ index: Int, _ offset: Int, _ bytes: [UInt8]) throws(VaultError) -> Void
    ) throws(VaultError) {
        var scanner = Scanner()
        var fileOffset = 0
        try file.forEachChunk(chunkSize) { (chunk) throws(VaultError) in
            try scanner.feed(chunk, at: fileOffset, stream: self, body)
            fileOffset += chunk.count
            return true
        }
        try scanner.finish(at: fileOffset, stream: self)
    }

    /// Calls `body` for each element of `member` of `zip`, inflated as it is read (no copy on
    /// disk); the same elements and problems as `forEachElement(_:)`, offsets counted in the
    /// member's bytes.
    package func forEachElement(
        of member: ZipArchive.Member, in zip: ZipArchive,
        _ body: (_ index: Int, _ offset: Int, _ bytes: [UInt8]) throws(VaultError) -> Void
    ) throws(VaultError) {
        var scanner = Scanner()
        var offset = 0
        try zip.read(member) { (chunk) throws(VaultError) in
            try scanner.feed(chunk, at: offset, stream: self, body)
            offset += chunk.count
            return true
        }
        try scanner.finish(at: offset, stream: self)
    }

    /// Decodes one element with `JSONSerialization` (fragments allowed).
    ///
    /// - Throws: `VaultError.importing` at `[index]`: "is not valid JSON (the element at byte N)".
    package static func object(_ bytes: [UInt8], file: String, index: Int, offset: Int) throws(VaultError) -> Any {
        do {
            return try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
        } catch {
            throw .importing(
                ImportProblem(file: file, place: "[\(index)]", problem: "is not valid JSON (the element at byte \(offset))"))
        }
    }

    func problem(_ place: String, _ text: String) -> VaultError {
        .importing(ImportProblem(file: name, place: place, problem: text))
    }

    /// The state between chunks.
    struct Scanner {
        enum State {
            /// Before the `[`.
            case start
            /// After `[` or after a `,`: an element or (right after `[`) the `]`.
            case beforeElement(first: Bool)
            /// Inside an element.
            case element
            /// After an element: `,` or `]`.
            case afterElement
            /// After the closing `]`: only whitespace.
            case done
        }
        var state = State.start
        var element: [UInt8] = []
        var elementStart = 0
        var index = 0
        var depth = 0
        var inString = false
        var escaped = false
        /// The element is a bare scalar (a number, `true`, …), ended by a delimiter.
        var scalar = false
        var sawNonASCII = false
        /// The file is one object, not an array: it is element [0], and nothing follows it.
        var single = false

        static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 }

        mutating func feed(
            _ bytes: UnsafeBufferPointer<UInt8>, at base: Int, stream: JSONArrayStream,
            _ body: (Int, Int, [UInt8]) throws(VaultError) -> Void
        ) throws(VaultError) {
            var i = 0
            let n = bytes.count
            while i < n {
                switch state {
                case .start:
                    let b = bytes[i]
                    if Scanner.isSpace(b) || (base + i < 3 && Scanner.isBOM(bytes, i, base)) {
                        i += 1
                        continue
                    }
                    if b == UInt8(ascii: "{") {
                        // One conversation as an object (browser exporters, single-conversation
                        // files): read as an array of one, element [0].
                        single = true
                        startElement(at: base + i, scalar: false)
                        continue
                    }
                    guard b == UInt8(ascii: "[") else {
                        throw stream.problem("", "is not a JSON array or object (it begins with \(Scanner.shown(b)))")
                    }
                    state = .beforeElement(first: true)
                    i += 1
                case .beforeElement(let first):
                    let b = bytes[i]
                    if Scanner.isSpace(b) {
                        i += 1
                        continue
                    }
                    if b == UInt8(ascii: "]") && first {
                        state = .done
                        i += 1
                        continue
                    }
                    if b == UInt8(ascii: "]") || b == UInt8(ascii: ",") {
                        throw stream.problem(
                            "byte \(base + i)", "is not valid JSON (\(Scanner.shown(b)) where an element should be)")
                    }
                    startElement(at: base + i, scalar: !(b == UInt8(ascii: "{") || b == UInt8(ascii: "[") || b == UInt8(ascii: "\"")))
                case .element:
                    // The hot loop: runs over every byte of the export.
                    var j = i
                    var ended = false
                    while j < n {
                        let b = bytes[j]
                        if b >= 0x80 { sawNonASCII = true }
                        if inString {
                            if escaped {
                                escaped = false
                            } else if b == UInt8(ascii: "\\") {
                                escaped = true
                            } else if b == UInt8(ascii: "\"") {
                                inString = false
                                if depth == 0 {
                                    j += 1
                                    ended = true
                                    break
                                }
                            }
                        } else if scalar {
                            if Scanner.isSpace(b) || b == UInt8(ascii: ",") || b == UInt8(ascii: "]") {
                                ended = true
                                break
                            }
                        } else if b == UInt8(ascii: "\"") {
                            inString = true
                        } else if b == UInt8(ascii: "{") || b == UInt8(ascii: "[") {
                            depth += 1
                        } else if b == UInt8(ascii: "}") || b == UInt8(ascii: "]") {
                            depth -= 1
                            if depth == 0 {
                                j += 1
                                ended = true
                                break
                            }
                        }
                        j += 1
                    }
                    element.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[i..<j]))
                    i = j
                    // Before it is held whole: a 1 GiB conversation stops at the cap.
                    if element.count > stream.limits.maxItemSize {
                        throw stream.problem("[\(index)]", stream.limits.tooLarge("conversation"))
                    }
                    if ended {
                        try emit(stream: stream, body)
                        state = single ? .done : .afterElement
                    }
                case .afterElement:
                    let b = bytes[i]
                    i += 1
                    if Scanner.isSpace(b) { continue }
                    if b == UInt8(ascii: ",") {
                        state = .beforeElement(first: false)
                    } else if b == UInt8(ascii: "]") {
                        state = .done
                    } else {
                        throw stream.problem(
                            "[\(index - 1)]", "is not valid JSON (\(Scanner.shown(b)) at byte \(base + i - 1) after the element)")
                    }
                case .done:
                    let b = bytes[i]
                    guard Scanner.isSpace(b) else {
                        throw stream.problem(
                            "byte \(base + i)", single ? "has more after the object's closing }" : "has more after the array's closing ]")
                    }
                    i += 1
                }
            }
        }

        mutating func startElement(at offset: Int, scalar: Bool) {
            state = .element
            element.removeAll(keepingCapacity: true)
            elementStart = offset
            depth = 0
            inString = false
            escaped = false
            sawNonASCII = false
            self.scalar = scalar
        }

        mutating func emit(stream: JSONArrayStream, _ body: (Int, Int, [UInt8]) throws(VaultError) -> Void)
            throws(VaultError)
        {
            if sawNonASCII, let bad = firstInvalidUTF8(element) {
                throw stream.problem("[\(index)]", "is not valid UTF-8 (byte \(elementStart + bad))")
            }
            try body(index, elementStart, element)
            index += 1
        }

        mutating func finish(at end: Int, stream: JSONArrayStream) throws(VaultError) {
            switch state {
            case .start:
                throw stream.problem("", "is empty, not a JSON array or object")
            case .element where scalar:
                // A bare scalar the file ends right after: still no `]`.
                throw stream.problem("[\(index)]", "is cut short: the file ends at byte \(end) before the array's ]")
            case .element:
                throw stream.problem("[\(index)]", "is cut short: the file ends at byte \(end) inside this element")
            case .beforeElement, .afterElement:
                throw stream.problem("byte \(end)", "is cut short: the file ends before the array's ]")
            case .done:
                return
            }
        }

        static func isBOM(_ bytes: UnsafeBufferPointer<UInt8>, _ i: Int, _ base: Int) -> Bool {
            let position = base + i
            let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
            return bytes[i] == bom[position]
        }

        static func shown(_ b: UInt8) -> String {
            b >= 0x21 && b < 0x7F ? "\"\(Character(Unicode.Scalar(b)))\"" : "byte 0x" + String(b, radix: 16)
        }
    }
}

/// The offset of the first byte of `bytes` that does not belong to well-formed UTF-8 (no
/// overlong forms, no surrogates, nothing above U+10FFFF), or nil when all of it does
/// (`UTF8Check`, the check every reader of vault's files makes).
func firstInvalidUTF8(_ bytes: [UInt8]) -> Int? {
    bytes.withUnsafeBufferPointer { UTF8Check.firstInvalidByte($0) }
}
