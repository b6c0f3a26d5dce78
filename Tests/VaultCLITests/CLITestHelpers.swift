import Foundation
import Testing
import VaultTestSupport

// Small helpers shared by the end-to-end tests of the `vault` command.
//
// The room reader below is deliberately independent of VaultCore: the tests check the
// files the way a person (or another program) would read them, following FORMAT.md.

/// The marker line the tool leaves at the end of every room it writes.
let promptMarker = "<!-- vault:prompt · write your next message below this line, then run `vault chat` -->"

/// The sample vault's only room that uses the built-in offline provider (no provider named).
let offlineSampleRoom = "rooms/독서-모임-발제문.md"

// MARK: Outcomes

/// A user-facing failure: non-zero exit, stderr starting with `vault: error:`, holding every fragment.
func expectUserError(
    _ result: RunResult, _ fragments: [String], sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(
        result.status != 0, "expected a failure, got status 0; stdout: \(result.stdout)", sourceLocation: sourceLocation
    )
    #expect(
        result.stderr.hasPrefix("vault: error: "), "stderr does not start with 'vault: error: ': \(result.stderr)",
        sourceLocation: sourceLocation)
    for fragment in fragments {
        #expect(
            result.stderr.contains(fragment), "stderr lacks \"\(fragment)\": \(result.stderr)",
            sourceLocation: sourceLocation)
    }
    #expect(!result.stderr.contains("Fatal error"), "crashed: \(result.stderr)", sourceLocation: sourceLocation)
}

/// Two snapshots are equal; names the paths that differ.
func expectUnchanged(
    _ before: [String: [UInt8]], _ after: [String: [UInt8]], sourceLocation: SourceLocation = #_sourceLocation
) {
    let added = Set(after.keys).subtracting(before.keys).sorted()
    let removed = Set(before.keys).subtracting(after.keys).sorted()
    let changed = before.keys.filter { after[$0] != nil && after[$0] != before[$0] }.sorted()
    #expect(added.isEmpty, "files were added: \(added)", sourceLocation: sourceLocation)
    #expect(removed.isEmpty, "files were removed: \(removed)", sourceLocation: sourceLocation)
    #expect(changed.isEmpty, "files were changed: \(changed)", sourceLocation: sourceLocation)
}

/// Succeeded: status 0; shows stderr when not.
func expectSuccess(_ result: RunResult, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(result.status == 0, "status \(result.status); stderr: \(result.stderr)", sourceLocation: sourceLocation)
}

/// `vault check` on the vault at `dir` reports no problem.
func expectCheckClean(_ dir: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let check = try runVault(["check"], in: dir)
    #expect(check.status == 0, "vault check failed: \(check.stderr)", sourceLocation: sourceLocation)
    #expect(check.stdout.contains("no problems"), "vault check said: \(check.stdout)", sourceLocation: sourceLocation)
    #expect(check.stderr.isEmpty, "vault check wrote to stderr: \(check.stderr)", sourceLocation: sourceLocation)
}

/// Every file (hidden ones included) below `dir` whose name holds `.vault-tmp-`.
func leftoverTemporaryFiles(_ dir: String) -> [String] {
    var out: [String] = []
    let e = FileManager.default.enumerator(atPath: dir)
    while let p = e?.nextObject() as? String {
        if p.contains(".vault-tmp-") { out.append(p) }
    }
    return out
}

// MARK: Vaults

/// A new vault made by `vault init` (in a temporary folder that is the vault).
func freshVault(locale: String = "en_US", timeZone: String = "Asia/Tokyo") throws -> TemporaryDirectory {
    let dir = TemporaryDirectory("vault-e2e")
    let r = try runVault(["init", ".", "--locale", locale, "--time-zone", timeZone], in: dir.path)
    guard r.status == 0 else { throw HelperError("vault init failed: \(r.stderr)") }
    return dir
}

/// Every file of the vault at `root` but those in `.git/` and `.vault/`, path → bytes.
func vaultFiles(_ root: String) throws -> [String: [UInt8]] {
    var out: [String: [UInt8]] = [:]
    let e = FileManager.default.enumerator(atPath: root)
    while let p = e?.nextObject() as? String {
        if p.hasPrefix(".git") || p.hasPrefix(".vault") { continue }
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: root + "/" + p, isDirectory: &isDir), !isDir.boolValue {
            out[p] = Array(try Data(contentsOf: URL(fileURLWithPath: root + "/" + p)))
        }
    }
    return out
}

struct HelperError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

// MARK: Bytes

extension Array where Element == UInt8 {
    func hasPrefix(_ prefix: [UInt8]) -> Bool { count >= prefix.count && Array(self[..<prefix.count]) == prefix }
    func hasSuffix(_ suffix: [UInt8]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }

    /// Offset of the start of the last line that is a prompt marker (FORMAT.md), or nil.
    func lastPromptMarkerOffset() -> Int? {
        var starts = [0]
        for (i, b) in enumerated() where b == 10 && i + 1 < count { starts.append(i + 1) }
        for s in starts.reversed() {
            var e = s
            while e < count, self[e] != 10 { e += 1 }
            let line = String(decoding: self[s..<e], as: UTF8.self)
            if isPromptMarker(line) { return s }
        }
        return nil
    }
}

func utf8(_ s: String) -> [UInt8] { Array(s.utf8) }

// MARK: Reading rooms (independent of VaultCore)

/// A line without trailing spaces, tabs and `\r`.
func trimmedLineEnd(_ line: Substring) -> Substring {
    var l = line
    while let c = l.last, c == " " || c == "\t" || c == "\r" { l = l.dropLast() }
    return l
}

func isPromptMarker(_ line: String) -> Bool {
    let l = trimmedLineEnd(Substring(line))
    return l.hasPrefix("<!-- vault:prompt") && l.hasSuffix("-->")
}

struct ParsedHeader: Equatable {
    var role: String
    var timestamp: String
    var id: String
    var attributes: [String: String]
}

/// The machine part of a header line, or nil when the line is not a header (FORMAT.md, "Strict matching").
func parseHeader(_ raw: Substring) -> ParsedHeader? {
    let line = trimmedLineEnd(raw)
    guard line.hasPrefix("## "), line.hasSuffix(" -->"), let open = line.range(of: " <!-- ", options: .backwards),
        let dot = line.range(of: " · ")
    else { return nil }
    let words = line[line.index(line.startIndex, offsetBy: 3)..<dot.lowerBound].split(separator: " ")
    guard (1...2).contains(words.count), let role = words.last else { return nil }
    let comment = line[open.upperBound..<line.index(line.endIndex, offsetBy: -4)].split(separator: " ")
    guard comment.count >= 2, comment[0].contains("T"), comment[1].hasPrefix("m-") else { return nil }
    var attributes: [String: String] = [:]
    for a in comment.dropFirst(2) {
        guard let eq = a.firstIndex(of: "=") else { continue }
        attributes[String(a[..<eq])] = String(a[a.index(after: eq)...])
    }
    return ParsedHeader(
        role: String(role), timestamp: String(comment[0]), id: String(comment[1]), attributes: attributes)
}

/// A header candidate or the prompt marker, after removing all leading backslashes.
func isStructuralLine(_ line: Substring) -> Bool {
    var l = line
    while l.first == "\\" { l = l.dropFirst() }
    return parseHeader(l) != nil || isPromptMarker(String(l))
}

struct ParsedMessage {
    var header: ParsedHeader
    /// 1-based line of the header.
    var line: Int
    /// The body as the person wrote it (framing removed, escaping undone).
    var body: String
}

struct ParsedRoom {
    var messages: [ParsedMessage]
    /// 1-based line of the prompt marker that ends the conversation.
    var markerLine: Int?
    /// Text below that marker.
    var pending: String?
}

/// Reads an LF room file by FORMAT.md's rules.
func parseRoom(_ text: String) -> ParsedRoom {
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    if lines.last == "" { lines.removeLast() }
    var headerIndexes: [(Int, ParsedHeader)] = []
    var markers: [Int] = []
    for (i, l) in lines.enumerated() {
        if let h = parseHeader(l) {
            headerIndexes.append((i, h))
        } else if isPromptMarker(String(l)) {
            markers.append(i)
        }
    }
    let lastMarker = markers.last.flatMap { m in (headerIndexes.last.map { $0.0 < m } ?? true) ? m : nil }
    var messages: [ParsedMessage] = []
    for (k, (index, header)) in headerIndexes.enumerated() {
        let end = k + 1 < headerIndexes.count ? headerIndexes[k + 1].0 : (lastMarker ?? lines.count)
        var content = lines[(index + 1)..<end].map { $0 + "\n" }.joined()
        if content.hasPrefix("\n") { content.removeFirst() }
        for _ in 0..<2 where content.hasSuffix("\n") { content.removeLast() }
        let body = content.split(separator: "\n", omittingEmptySubsequences: false).map { l -> Substring in
            l.first == "\\" && isStructuralLine(l) ? l.dropFirst() : l
        }.joined(separator: "\n")
        messages.append(ParsedMessage(header: header, line: index + 1, body: body))
    }
    let pending = lastMarker.map { lines[($0 + 1)...].map { $0 + "\n" }.joined() }
    return ParsedRoom(messages: messages, markerLine: lastMarker.map { $0 + 1 }, pending: pending)
}

// MARK: Time

/// Parses RFC 3339 with an offset (fractions allowed), or nil.
func rfc3339(_ s: String) -> Date? {
    let f = ISO8601DateFormatter()
    f.formatOptions = [.withInternetDateTime]
    if let d = f.date(from: s) { return d }
    f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    return f.date(from: s)
}

/// True when `s` is RFC 3339 and ends in exactly `offset` (e.g. `+09:00`).
func isTimestamp(_ s: String, offset: String) -> Bool { rfc3339(s) != nil && s.hasSuffix(offset) }

// MARK: Running several processes at once

/// Runs every job on its own thread, all released at the same moment; waits for all.
func runSimultaneously(_ jobs: [@Sendable () -> Void]) {
    let ready = DispatchGroup()
    let done = DispatchGroup()
    let go = DispatchSemaphore(value: 0)
    for job in jobs {
        ready.enter()
        done.enter()
        let t = Thread {
            ready.leave()
            go.wait()
            job()
            done.leave()
        }
        t.start()
    }
    ready.wait()
    for _ in jobs { go.signal() }
    done.wait()
}

/// A lock-protected list, for results gathered from several threads.
final class Collected<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [T] = []
    func append(_ item: T) { lock.lock(); items.append(item); lock.unlock() }
    var all: [T] { lock.lock(); defer { lock.unlock() }; return items }
}
