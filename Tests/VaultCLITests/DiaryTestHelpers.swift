import Foundation
import Testing
import VaultTestSupport

#if canImport(Glibc)
import Glibc
#endif

// Helpers for DiaryCommandTests: a vault under test with its git history, fake editors,
// calendar days computed without the tool's date code, and an independent reader of
// diary entry files (FORMAT.md, "Diary entries").

// MARK: Days

/// A calendar day, computed here without VaultCore.
struct DiaryDay: Hashable, Comparable, CustomStringConvertible, Sendable {
    var year: Int
    var month: Int
    var day: Int

    /// `yyyy-mm-dd`.
    var description: String { String(format: "%04d-%02d-%02d", year, month, day) }

    init(_ year: Int, _ month: Int, _ day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// `2026-11-21` → the day; nil when `text` does not start with one.
    init?(iso text: Substring) {
        let parts = text.prefix(10).split(separator: "-")
        guard text.count >= 10, parts.count == 3, let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2])
        else {
            return nil
        }
        self.init(y, m, d)
    }

    /// The day `date` falls on in `zone`.
    static func of(_ date: Date, in zone: String) -> DiaryDay {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: zone)!
        let c = calendar.dateComponents([.year, .month, .day], from: date)
        return DiaryDay(c.year!, c.month!, c.day!)
    }

    /// Days from 1970-01-01 (Howard Hinnant's days_from_civil).
    var ordinal: Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func fromOrdinal(_ z0: Int) -> DiaryDay {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return DiaryDay(yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    func adding(days n: Int) -> DiaryDay { .fromOrdinal(ordinal + n) }

    /// 0 = Sunday … 6 = Saturday (1970-01-01 was a Thursday).
    var weekday: Int { ((ordinal % 7) + 7 + 4) % 7 }

    static func < (a: DiaryDay, b: DiaryDay) -> Bool { a.ordinal < b.ordinal }

    /// Every heading the locale's full date style may write for this day (FORMAT.md: `2023년 8월 28일 월요일`,
    /// `2023年8月28日 月曜日`, `Montag, 28. August 2023`, `Monday, August 28, 2023`). Japanese is listed with and
    /// without the space before the weekday: CLDR versions differ there (sample-vault has it without).
    func headings(_ locale: String) -> [String] {
        switch locale {
        case "ko_KR":
            let w = ["일", "월", "화", "수", "목", "금", "토"][weekday]
            return ["\(year)년 \(month)월 \(day)일 \(w)요일"]
        case "ja_JP":
            let w = ["日", "月", "火", "水", "木", "金", "土"][weekday]
            return ["\(year)年\(month)月\(day)日\(w)曜日", "\(year)年\(month)月\(day)日 \(w)曜日"]
        case "de_DE":
            let w = ["Sonntag", "Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag", "Samstag"][weekday]
            let m = [
                "Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober",
                "November", "Dezember",
            ][month - 1]
            return ["\(w), \(day). \(m) \(year)"]
        default:
            let w = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"][weekday]
            let m = [
                "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
                "November", "December",
            ][month - 1]
            return ["\(w), \(m) \(day), \(year)"]
        }
    }
}

/// The UTC offset `zone` has at `date`, written as in RFC 3339 (`+09:00`, `-07:00`).
func diaryOffsetText(_ zone: String, at date: Date = Date()) -> String {
    let seconds = TimeZone(identifier: zone)!.secondsFromGMT(for: date)
    let m = abs(seconds) / 60
    return (seconds < 0 ? "-" : "+") + String(format: "%02d:%02d", m / 60, m % 60)
}

/// A time window around a command: what it writes as "now" must fall inside it.
struct DiaryWindow {
    let start: Date
    let end: Date

    /// Runs `body` and remembers when it started and ended (whole seconds, since timestamps have no fraction).
    static func around<T>(_ body: () throws -> T) rethrows -> (T, DiaryWindow) {
        let start = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        let value = try body()
        let end = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.up))
        return (value, DiaryWindow(start: start, end: end))
    }

    /// The days the window touches in `zone` (one, or two when it crossed midnight).
    func days(in zone: String) -> Set<DiaryDay> { [DiaryDay.of(start, in: zone), DiaryDay.of(end, in: zone)] }

    func contains(_ timestamp: String) -> Bool {
        guard let d = rfc3339(timestamp) else { return false }
        return d >= start && d <= end
    }
}

// MARK: Entry files, read by FORMAT.md's rules (independent of VaultCore)

/// `text` split at every LF byte; a CRLF line keeps its `\r`. (Swift treats `\r\n` as one
/// character, so splitting by characters would not see the LF of a CRLF file.)
func diarySplitLines(_ text: String) -> [String] {
    Array(text.utf8).split(separator: 10, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
}

/// A diary entry file: front-matter lines, the heading and what follows it.
struct DiaryEntryText {
    /// The whole file.
    let text: String
    /// Front-matter lines between the `---` fences (line endings removed).
    let frontMatter: [String]
    /// The `# ` heading without `# ` (nil when there is none).
    let heading: String?
    /// Everything after the heading line (starting with its blank line), byte for byte.
    let afterHeading: String

    init(_ text: String) throws {
        self.text = text
        var lines = diarySplitLines(text)
        guard lines.first?.trimmingCharacters(in: .init(charactersIn: "\r")) == "---" else {
            throw HelperError("no front-matter in:\n\(text)")
        }
        lines.removeFirst()
        var fm: [String] = []
        var consumed = 1
        while let l = lines.first, l.trimmingCharacters(in: .init(charactersIn: "\r")) != "---" {
            fm.append(l.hasSuffix("\r") ? String(l.dropLast()) : l)
            lines.removeFirst()
            consumed += 1
        }
        guard !lines.isEmpty else { throw HelperError("front-matter not closed in:\n\(text)") }
        lines.removeFirst()
        consumed += 1
        frontMatter = fm
        // The heading: the first non-blank line after the front-matter, when it starts with "# ".
        var rest = diarySplitLines(text).dropFirst(consumed)
        while let l = rest.first, l.trimmingCharacters(in: .whitespaces.union(.init(charactersIn: "\r"))).isEmpty {
            rest = rest.dropFirst()
        }
        if let l = rest.first, l.hasPrefix("# ") {
            let h = String(l.dropFirst(2))
            heading = h.hasSuffix("\r") ? String(h.dropLast()) : h
            afterHeading = rest.dropFirst().joined(separator: "\n")
        } else {
            heading = nil
            afterHeading = rest.joined(separator: "\n")
        }
    }

    /// The raw value of a top-level key (`key: value`), nil when the key is absent.
    func value(_ key: String) -> String? {
        for l in frontMatter where l.hasPrefix(key + ":") {
            return String(l.dropFirst(key.count + 1)).trimmingCharacters(in: .whitespaces)
        }
        return nil
    }

    /// Top-level keys in order.
    var keys: [String] {
        frontMatter.compactMap { l in
            guard let f = l.first, f != " ", f != "#", f != "-", let colon = l.firstIndex(of: ":") else { return nil }
            return String(l[..<colon])
        }
    }

    /// `tags`: a flow list `[a, b]`, a block list (`- a` lines) or one string.
    var tags: [String] {
        guard let i = frontMatter.firstIndex(where: { $0.hasPrefix("tags:") }) else { return [] }
        let inline = String(frontMatter[i].dropFirst(5)).trimmingCharacters(in: .whitespaces)
        if inline.hasPrefix("[") && inline.hasSuffix("]") {
            return inline.dropFirst().dropLast().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty }
        }
        if !inline.isEmpty { return [inline] }
        var out: [String] = []
        for l in frontMatter[(i + 1)...] {
            let t = l.trimmingCharacters(in: .whitespaces)
            guard l.hasPrefix(" ") || l.hasPrefix("-"), t.hasPrefix("- ") else { break }
            out.append(String(t.dropFirst(2)).trimmingCharacters(in: .whitespaces))
        }
        return out
    }
}

/// `d-` and 12 Crockford base-32 characters.
func isDiaryEntryID(_ s: String) -> Bool {
    let alphabet = Set("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
    return s.hasPrefix("d-") && s.count == 14 && s.dropFirst(2).allSatisfy { alphabet.contains($0) }
}

/// The file's lines with every line of the given top-level keys (the key's line and the lines
/// indented below it) removed: what must stay byte for byte when only those keys change.
/// Lines keep their endings (`\r` stays on CRLF lines).
func diaryLinesOutside(keys: Set<String>, in bytes: [UInt8]) -> [String] {
    let lines = diarySplitLines(String(decoding: bytes, as: UTF8.self))
    var out: [String] = []
    var inFrontMatter = false
    var fences = 0
    var skipping = false
    for (i, l) in lines.enumerated() {
        let bare = l.hasSuffix("\r") ? String(l.dropLast()) : l
        if fences < 2 && bare == "---" && (i == 0 || inFrontMatter) {
            fences += 1
            inFrontMatter = fences == 1
            skipping = false
            out.append(l)
            continue
        }
        if inFrontMatter {
            if skipping && (l.hasPrefix(" ") || l.hasPrefix("\t")) { continue }
            skipping = false
            if let colon = bare.firstIndex(of: ":"), keys.contains(String(bare[..<colon])) {
                skipping = true
                continue
            }
        }
        out.append(l)
    }
    return out
}

// MARK: Fake editors

/// Shell scripts that stand in for a person's editor. Each one logs the file it was given
/// (one line per run) to `<name>.log`, so a test can tell whether and on what it ran.
final class DiaryEditors: @unchecked Sendable {
    let dir = TemporaryDirectory("diary-editors")

    enum Action {
        /// Appends the text to the file.
        case append(String)
        /// Replaces the whole file with the text.
        case replace(String)
        /// Leaves the file as it is.
        case nothing
        /// Empties the file.
        case empty
        /// Appends the text, then exits with the status.
        case appendThenFail(String, Int32)
        /// Exits with the status without touching the file.
        case fail(Int32)
        /// Runs a shell line (with `$1` the file) before appending the text.
        case runThenAppend(String, String)
        /// Runs shell lines (with `$1` the file) and nothing else.
        case script(String)
    }

    /// Writes the script `name.sh` and returns its path, the command to put in `$EDITOR`.
    func make(_ name: String, _ action: Action) throws -> String {
        let log = dir.path + "/\(name).log"
        let textFile = dir.path + "/\(name).txt"
        var body = "#!/bin/sh\nprintf '%s\\n' \"$1\" >> '\(log)'\n"
        switch action {
        case .append(let t):
            try dir.write("\(name).txt", t)
            body += "cat '\(textFile)' >> \"$1\" || exit 99\n"
        case .replace(let t):
            try dir.write("\(name).txt", t)
            body += "cat '\(textFile)' > \"$1\" || exit 99\n"
        case .nothing:
            body += "exit 0\n"
        case .empty:
            body += ": > \"$1\"\n"
        case .appendThenFail(let t, let code):
            try dir.write("\(name).txt", t)
            body += "cat '\(textFile)' >> \"$1\"\nexit \(code)\n"
        case .fail(let code):
            body += "exit \(code)\n"
        case .runThenAppend(let line, let t):
            try dir.write("\(name).txt", t)
            body += line + "\ncat '\(textFile)' >> \"$1\" || exit 99\n"
        case .script(let lines):
            body += lines + "\n"
        }
        try dir.write("\(name).sh", body)
        chmod(dir.path + "/\(name).sh", 0o755)
        return dir.path + "/\(name).sh"
    }

    /// The files the editor `name` was run on, in order (empty when it never ran).
    func runs(_ name: String) -> [String] {
        guard let text = try? dir.readText("\(name).log") else { return [] }
        return text.split(separator: "\n").map(String.init)
    }
}

// MARK: A vault under test

/// A vault in a temporary folder, with its git repository, run with a chosen zone and editor.
struct DiaryVault {
    let dir: TemporaryDirectory
    var path: String { dir.path }

    /// `vault init DIR --locale L --time-zone Z` in a new temporary folder (DIR is a new subfolder).
    static func fresh(locale: String = "ko_KR", timeZone: String = "Asia/Seoul") throws -> DiaryVault {
        let parent = TemporaryDirectory("vault-diary")
        let r = try runVault(["init", "v", "--locale", locale, "--time-zone", timeZone], in: parent.path)
        guard r.status == 0 else { throw HelperError("vault init failed: \(r.stderr)") }
        return DiaryVault(dir: parent, sub: "v")
    }

    /// A copy of sample-vault (no repository until one is made).
    static func sample() throws -> DiaryVault { DiaryVault(dir: try Project.copyOfSampleVault(), sub: nil) }

    private let sub: String?
    private init(dir: TemporaryDirectory, sub: String?) {
        self.dir = dir
        self.sub = sub
    }

    /// The vault's root folder.
    var root: String { sub.map { dir.path + "/" + $0 } ?? dir.path }

    /// Runs `vault` in the vault with `TZ` and the editors given. `EDITOR` defaults to `false`, so a
    /// command that opens an editor when it should not fails visibly; `VISUAL` defaults to empty.
    @discardableResult
    func run(
        _ arguments: [String], tz: String = "Asia/Seoul", editor: String = "false", visual: String = "",
        stdin: String? = nil, extra: [String: String] = [:]
    ) throws -> RunResult {
        var env = ["TZ": tz, "EDITOR": editor, "VISUAL": visual]
        for (k, v) in extra { env[k] = v }
        return try runVault(arguments, in: root, environment: env, stdin: stdin)
    }

    func read(_ relative: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: root + "/" + relative)))
    }
    func readText(_ relative: String) throws -> String { String(decoding: try read(relative), as: UTF8.self) }
    func write(_ relative: String, _ text: String) throws { try write(relative, Array(text.utf8)) }
    func write(_ relative: String, _ bytes: [UInt8]) throws {
        let full = root + "/" + relative
        try FileManager.default.createDirectory(
            atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: full))
    }
    func entry(_ relative: String) throws -> DiaryEntryText { try DiaryEntryText(try readText(relative)) }

    /// Every file below the vault, `.git/` included, `.vault/` (local lock state, never committed) left out.
    func snapshot() throws -> [String: [UInt8]] {
        var out: [String: [UInt8]] = [:]
        let e = FileManager.default.enumerator(atPath: root)
        while let p = e?.nextObject() as? String {
            if p == ".vault" || p.hasPrefix(".vault/") { continue }
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: root + "/" + p, isDirectory: &isDir), !isDir.boolValue {
                out[p] = Array(try Data(contentsOf: URL(fileURLWithPath: root + "/" + p)))
            }
        }
        return out
    }

    /// The diary's `.md` files (relative paths), sorted.
    func diaryFiles() -> [String] {
        var out: [String] = []
        let e = FileManager.default.enumerator(atPath: root + "/diary")
        while let p = e?.nextObject() as? String {
            if p.hasSuffix(".md") { out.append("diary/" + p) }
        }
        return out.sorted()
    }

    // MARK: git, through the command line

    /// Runs `git` in the vault; throws when it fails.
    @discardableResult
    func git(_ arguments: [String], environment: [String: String] = [:]) throws -> String {
        let r = try diaryGitRun(arguments, in: root, environment: environment)
        guard r.status == 0 else {
            throw HelperError("git \(arguments.joined(separator: " ")) exited \(r.status): \(r.stderr)")
        }
        return r.stdout
    }

    /// Commit subjects, newest first (`git log --format=%s`); empty when there is no commit.
    func subjects() throws -> [String] {
        let r = try diaryGitRun(["log", "--format=%s"], in: root)
        guard r.status == 0 else { return [] }
        return r.stdout.split(separator: "\n").map(String.init)
    }

    /// `git status --porcelain --untracked-files=all`.
    func status() throws -> String { try git(["status", "--porcelain", "--untracked-files=all"]) }

    /// What a commit changed: `A diary/…`, `M rooms/…`.
    func changedPaths(_ revision: String = "HEAD") throws -> [String] {
        try git(["show", "--format=", "--name-status", "--no-renames", revision]).split(separator: "\n")
            .map { $0.replacingOccurrences(of: "\t", with: " ") }
    }

    /// The bytes of `path` in `revision`.
    func committed(_ path: String, at revision: String = "HEAD") throws -> [UInt8] {
        Array(try git(["cat-file", "blob", "\(revision):\(path)"]).utf8)
    }
}

/// The identity of commits the tests make with the git command line.
let diaryGitIdentity = [
    "GIT_AUTHOR_NAME": "Hand Writer", "GIT_AUTHOR_EMAIL": "hand@example.com",
    "GIT_COMMITTER_NAME": "Hand Writer", "GIT_COMMITTER_EMAIL": "hand@example.com",
]

/// Runs `git` in `directory` (system config ignored, paths unquoted, no editor), never throwing on its status.
func diaryGitRun(_ arguments: [String], in directory: String, environment: [String: String] = [:]) throws -> RunResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["git", "-c", "core.quotePath=false"] + arguments
    process.currentDirectoryURL = URL(fileURLWithPath: directory)
    var env = ProcessInfo.processInfo.environment
    env["GIT_CONFIG_NOSYSTEM"] = "1"
    env["LC_ALL"] = "C"
    env["GIT_EDITOR"] = "true"
    for (k, v) in diaryGitIdentity { env[k] = v }
    for (k, v) in environment { env[k] = v }
    process.environment = env
    return try run(process)
}

// MARK: Expectations

/// A successful command that left the repository clean (`git status --porcelain` prints nothing).
func expectDiarySuccess(_ r: RunResult, _ vault: DiaryVault, sourceLocation: SourceLocation = #_sourceLocation) throws {
    #expect(
        r.status == 0, "status \(r.status); stdout: \(r.stdout) stderr: \(r.stderr)", sourceLocation: sourceLocation)
    let status = try vault.status()
    #expect(status == "", "git status is not clean:\n\(status)", sourceLocation: sourceLocation)
}

/// A failure with a clear message (`vault: error: …` holding every fragment) that changed nothing,
/// `.git/` included.
func expectDiaryFailure(
    _ r: RunResult, _ fragments: [String], _ vault: DiaryVault, unchangedFrom before: [String: [UInt8]],
    sourceLocation: SourceLocation = #_sourceLocation
) throws {
    expectUserError(r, fragments, sourceLocation: sourceLocation)
    expectUnchanged(before, try vault.snapshot(), sourceLocation: sourceLocation)
}

/// Decodes `vault diary list --json`.
func diaryListJSON(_ r: RunResult, sourceLocation: SourceLocation = #_sourceLocation) throws -> [[String: Any]] {
    #expect(r.status == 0, "diary list failed: \(r.stderr)", sourceLocation: sourceLocation)
    return try #require(
        try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]], "not a JSON list: \(r.stdout)",
        sourceLocation: sourceLocation)
}
