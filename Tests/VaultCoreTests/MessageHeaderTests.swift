import Testing
import VaultCore

/// `MessageHeader.essentials(line:)` reads what `parse(line:)` reads (role, time, id) from the
/// same lines, and nothing from the lines `parse` refuses.
@Suite struct MessageHeaderTests {
    static let lines = [
        "## 🧑 user · 2026년 11월 21일 토요일 오전 9:31 <!-- 2026-11-21T09:31:07+09:00 m-01JPA3K8Z4QX -->",
        "## assistant · Nov 21 <!-- 2026-11-21T00:31:07Z m-01JPA3K8Z4QY model=gpt-x interrupted=true -->  ",
        "## ⚙️ system · x <!-- 2026-11-21T09:31:07.250+09:00 m-abcd -->",
        "## 🧑 user · <!-- a <!-- 2026-11-21T09:31:07+09:00 m-01JPA3K8Z4QX -->",
        "## 🧑 robot · x <!-- 2026-11-21T09:31:07+09:00 m-01JPA3K8Z4QX -->",
        "## 🧑 user · x <!-- 2026-13-21T09:31:07+09:00 m-01JPA3K8Z4QX -->",
        "## 🧑 user · x <!-- 2026-11-21T09:31:07+09:00 m-! -->",
        "## 🧑 user · x <!-- 2026-11-21T09:31:07+09:00 m-01JPA3K8Z4QX Bad -->",
        "## A heading in a reply",
        "## 🧑 user · x <!--2026-11-21T09:31:07+09:00 m-01JPA3K8Z4QX -->",
        "text <!-- 2026-11-21T09:31:07+09:00 m-01JPA3K8Z4QX -->",
    ]

    @Test(arguments: lines)
    func essentialsAreWhatParseReads(line: String) {
        let bytes = Array(line.utf8)
        let header = bytes.withUnsafeBufferPointer { MessageHeader.parse(line: $0) }
        let essentials = bytes.withUnsafeBufferPointer { MessageHeader.essentials(line: $0) }
        #expect(essentials?.role == header?.role)
        #expect(essentials?.timestamp == header?.timestamp)
        #expect(essentials?.id == header?.id)
    }

    @Test func theLinesHoldBothHeadersAndNot() {
        let parsed = Self.lines.filter { line in Array(line.utf8).withUnsafeBufferPointer { MessageHeader.parse(line: $0) } != nil }
        #expect(parsed.count == 4)
    }
}
