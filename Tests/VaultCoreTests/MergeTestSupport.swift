import Foundation
import VaultCore

/// Room files for the merge tests, written the way the tool writes them.
enum RoomText {
    /// A time on 2026-11-21, `minute` minutes after 10:00 in Seoul; `utc` writes the same instant in UTC.
    static func time(_ minute: Int, utc: Bool = false) -> String {
        let m = 10 * 60 + minute - (utc ? 9 * 60 : 0)
        return String(format: "2026-11-21T%02d:%02d:00", m / 60, m % 60) + (utc ? "Z" : "+09:00")
    }

    static func header(_ id: String, _ time: String, role: String = "user", attributes: String = "") -> String {
        let icon = role == "user" ? "🧑" : "🤖"
        return "## \(icon) \(role) · 11월 21일 \(time.prefix(16)) <!-- \(time) \(id)\(attributes) -->"
    }

    /// One message as the tool writes it: header, blank line, body, blank line.
    static func message(_ id: String, _ minute: Int, _ body: String, role: String = "user") -> String {
        header(id, time(minute), role: role) + "\n\n" + body + "\n\n"
    }

    /// A room: front-matter (title, created, then `extra` lines), a blank line, `preamble`, the messages,
    /// and the prompt marker with `pending` below it (no marker when `pending` is nil).
    static func room(
        title: String = "부산 여행", extra: String = "", preamble: String = "", _ messages: [String],
        pending: String? = ""
    ) -> String {
        "---\ntitle: \(title)\ncreated: 2026-11-21T09:30:00+09:00\n\(extra)---\n\n" + preamble + messages.joined()
            + (pending.map { RoomFile.promptMarkerLine + "\n" + $0 } ?? "")
    }

    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    static func crlf(_ text: String) -> [UInt8] { Array(text.replacingOccurrences(of: "\n", with: "\r\n").utf8) }
}

extension FileMerge {
    var text: String { String(decoding: bytes, as: UTF8.self) }
}
