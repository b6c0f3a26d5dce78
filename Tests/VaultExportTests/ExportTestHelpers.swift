import Foundation
import Testing
import VaultCore
import VaultExport
import VaultTestSupport

/// What Python's `html.parser` makes of a page: an independent reader of the HTML.
struct ParsedHTML: Decodable {
    /// Start tags by name.
    var counts: [String: Int]
    /// `<img>` elements whose `src` is a `data:` URL, and their sources.
    var dataImages: [String]
    /// `<img>` sources that are not data URLs.
    var otherImages: [String]
    /// Elements opened and never closed, and end tags that close the wrong element.
    var unclosed: [String]
    var mismatched: [String]
    /// Attributes named `on…` (event handlers) and `javascript:` targets.
    var eventHandlers: [String]
    var scriptTargets: [String]
    /// The text of the page (entities decoded), and of its `<title>`.
    var text: String
    var title: String
    /// `<meta charset>` values.
    var charsets: [String]
    var doctype: String?

    enum CodingKeys: String, CodingKey {
        case counts, unclosed, mismatched, text, title, charsets, doctype
        case dataImages = "data_images", otherImages = "other_images"
        case eventHandlers = "event_handlers", scriptTargets = "script_targets"
    }

    func count(_ tag: String) -> Int { counts[tag] ?? 0 }

    /// Parses `html` with `python3 -c` (the standard library's `html.parser`).
    static func parse(_ html: String) throws -> ParsedHTML {
        let script = #"""
            import sys, json
            from html.parser import HTMLParser
            VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
                    "wbr"}
            class Reader(HTMLParser):
                def __init__(self):
                    super().__init__(convert_charrefs=True)
                    self.stack, self.counts, self.mismatched = [], {}, []
                    self.data_images, self.other_images = [], []
                    self.handlers, self.scripts, self.text, self.title, self.charsets = [], [], [], [], []
                    self.doctype = None
                def handle_decl(self, decl):
                    self.doctype = decl
                def handle_starttag(self, tag, attrs):
                    self.counts[tag] = self.counts.get(tag, 0) + 1
                    a = dict(attrs)
                    if tag == "img":
                        src = a.get("src") or ""
                        (self.data_images if src.startswith("data:") else self.other_images).append(src)
                    if tag == "meta" and "charset" in a:
                        self.charsets.append(a["charset"])
                    for k, v in attrs:
                        if k.startswith("on"):
                            self.handlers.append(k)
                        if k in ("href", "src", "action") and (v or "").strip().lower().startswith("javascript:"):
                            self.scripts.append(v)
                    if tag not in VOID:
                        self.stack.append((tag, self.getpos()[0]))
                def handle_endtag(self, tag):
                    if tag in VOID:
                        return
                    if self.stack and self.stack[-1][0] == tag:
                        self.stack.pop()
                        return
                    opened = ("<%s>" % self.stack[-1][0]) if self.stack else "nothing"
                    self.mismatched.append("line %d: </%s> closes %s" % (self.getpos()[0], tag, opened))
                    for i in range(len(self.stack) - 1, -1, -1):
                        if self.stack[i][0] == tag:
                            del self.stack[i:]
                            break
                def handle_data(self, data):
                    if self.stack and self.stack[-1][0] == "title":
                        self.title.append(data)
                    elif not (self.stack and self.stack[-1][0] == "style"):
                        self.text.append(data)
            r = Reader()
            r.feed(sys.stdin.read())
            r.close()
            print(json.dumps({
                "counts": r.counts, "data_images": r.data_images, "other_images": r.other_images,
                "unclosed": ["<%s> from line %d" % t for t in r.stack], "mismatched": r.mismatched,
                "event_handlers": r.handlers, "script_targets": r.scripts, "text": "".join(r.text),
                "title": "".join(r.title), "charsets": r.charsets, "doctype": r.doctype}))
            """#
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script]
        let input = Pipe()
        let output = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Write from another thread: a large page must not block on a full pipe.
        let page = Data(html.utf8)
        let writer = input.fileHandleForWriting
        DispatchQueue.global().async {
            writer.write(page)
            try? writer.close()
        }
        nonisolated(unsafe) var errorData = Data()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            errorData = errors.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ExportTestFailure("python3 html.parser failed: \(String(decoding: errorData, as: UTF8.self))")
        }
        return try JSONDecoder().decode(ParsedHTML.self, from: data)
    }
}

struct ExportTestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ text: String) { description = text }
}

/// Items of a copy of `sample-vault/`.
enum Sample {
    /// Every diary entry, oldest first, read from `vault`.
    static func diary(_ vault: Vault) throws -> [ExportItem] {
        try vault.diarySummaries().reversed().map { try ExportItem(.diaryEntry($0.path), in: vault, day: $0.date) }
    }

    static func room(_ path: String, _ vault: Vault) throws -> ExportItem {
        try ExportItem(.room(path), in: vault)
    }

    /// Every room path of the sample vault.
    static func roomPaths(_ vault: Vault) -> [String] { vault.roomPaths() }
}

/// A room file with the given messages, written the way `vault` writes them.
func roomText(title: String, _ messages: [(Role, String)], attributes: [String] = []) -> String {
    var text = "---\ntitle: \(title)\ncreated: 2026-11-21T09:30:00+09:00\n---\n\n"
    for (k, (role, body)) in messages.enumerated() {
        let stamp = String(format: "2026-11-21T09:%02d:00+09:00", 31 + k)
        let extra = role == .assistant && !attributes.isEmpty ? " " + attributes.joined(separator: " ") : ""
        text +=
            "## \(role.icon) \(role.rawValue) · display "
                + "<!-- \(stamp) m-TEST\(String(format: "%04d", k))\(extra) -->\n\n"
        text += BodyEscaping.escape(body) + "\n\n"
    }
    return text + "<!-- vault:prompt · write your next message below this line, then run `vault chat` -->\n"
}

/// A new vault in a temporary folder (ko_KR, Asia/Seoul).
func makeVault() throws -> (TemporaryDirectory, Vault) {
    let dir = TemporaryDirectory("vault-export")
    let vault = try Vault.create(at: dir.path, locale: "ko_KR", timeZone: TimeZone(identifier: "Asia/Seoul")!)
    return (dir, vault)
}

/// Non-overlapping occurrences of `needle` in `haystack`, compared byte for byte.
func occurrences(of needle: String, in haystack: String) -> Int {
    let h = Array(haystack.utf8)
    let n = Array(needle.utf8)
    guard !n.isEmpty, h.count >= n.count else { return 0 }
    var count = 0
    var i = 0
    while i <= h.count - n.count {
        if h[i] == n[0], h[i..<(i + n.count)].elementsEqual(n) {
            count += 1
            i += n.count
        } else {
            i += 1
        }
    }
    return count
}
