import VaultChat
import VaultCore

/// The fuzz targets: each takes any bytes and returns the properties of the code under test
/// that they break (empty: none). A crash is a break too.
///
/// - `room`, `diary`: the front-matter and Markdown readers (`FormatInvariants.room`,
///   `.diaryEntry`) on the bytes of a file;
/// - `writer`: the room writer's escaping (`FormatInvariants.roomWriter`): the bytes are a
///   title, a message body and a setting's value, separated by NUL bytes (invalid UTF-8 is
///   replaced, as text from a terminal or a server would be), the last byte's low bit choosing
///   CRLF line ends;
/// - `event-stream`: the SSE decoder (`EventStreamInvariants`), fed the bytes whole, byte by
///   byte and in pieces cut where the bytes' hash says;
/// - `chatgpt`, `claude`, `claude-code`, `dayone`, `jrnl`, `llm`, `zip`: the import readers on an
///   export made of the bytes (`ImportTargets`, `ImportInvariants`).
public enum FuzzTarget: String, CaseIterable, Sendable {
    case room
    case diary
    case writer
    case eventStream = "event-stream"
    case chatgpt
    case claude
    case claudeCode = "claude-code"
    case dayone
    case jrnl
    case llm
    case zip

    public func run(_ bytes: [UInt8]) -> [String] {
        switch self {
        case .room:
            return FormatInvariants.room(bytes)
        case .diary:
            return FormatInvariants.diaryEntry(bytes)
        case .writer:
            let parts = bytes.split(separator: 0, maxSplits: 2, omittingEmptySubsequences: false).map {
                String(decoding: $0, as: UTF8.self)
            }
            return FormatInvariants.roomWriter(
                title: parts[0], body: parts.count > 1 ? parts[1] : "", value: parts.count > 2 ? parts[2] : "",
                crlf: (bytes.last ?? 0) & 1 == 1)
        case .eventStream:
            var random = FuzzRandom(seed: FuzzRandom.hash(bytes))
            let cuts = (0..<Int(random.next() % 4)).map { _ in
                bytes.isEmpty ? 0 : Int(random.next() % UInt64(bytes.count + 1))
            }
            return EventStreamInvariants.check(bytes, cuts: cuts)
        case .chatgpt, .claude, .claudeCode, .dayone, .jrnl, .llm, .zip:
            return ImportTargets.run(self, bytes)
        }
    }

    /// Whether the target is an import reader's: each input is written to disk as an export and
    /// read twice (a millisecond or more in a debug build), so the test suite runs fewer of them.
    public var readsAnExport: Bool {
        switch self {
        case .room, .diary, .writer, .eventStream: return false
        case .chatgpt, .claude, .claudeCode, .dayone, .jrnl, .llm, .zip: return true
        }
    }

    /// Tokens the mutator inserts: pieces of the syntax each target reads.
    public var dictionary: [[UInt8]] {
        let tokens: [String]
        switch self {
        case .room, .diary, .writer:
            tokens = [
                "---\n", "---\r\n", "...\n", "title: ", "created: ", "tags: ", "model: ", "&a ", "*a", "&b [", "*b, ",
                "[", "]",
                "{", "}", ": ", "- ", "  ", "\t", "\"", "'", "\\", "|\n", "|-\n", ">\n", "#", " # ", "~", "!!str ",
                "? ",
                "## 🧑 user · 어제 <!-- 2026-11-21T09:31:07+09:00 m-AAAAAAAAAAAA -->\n",
                "## 🤖 assistant · x <!-- 2026-11-21T09:32:00+09:00 m-BBBBBBBBBBBB model=m provider=p -->\n",
                "<!-- vault:prompt -->\n", "\\## ", "```\n", "\u{FEFF}", "\r\n", "\n", "\r", "\n\n", "<<<<<<< ours\n",
                "=======\n", ">>>>>>> theirs\n", "2026-13-01T00:00:00Z", "\u{0}", "\u{1B}[2J", "부산", "é",
                "e\u{301}",
            ]
        case .eventStream:
            tokens = [
                "data: ", "data:", "event: ", "id: ", "retry: ", "retry: 1000", ":", ": comment", "\r", "\n", "\r\n",
                "\u{FEFF}", "\u{0}", "[DONE]", "{\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}", "한",
            ]
        case .chatgpt, .claude, .claudeCode, .dayone, .jrnl, .zip:
            // JSON's syntax, numbers no time can hold, names that climb, titles that make paths.
            tokens = [
                "{", "}", "[", "]", ",", ":", "\"", "\\", "null", "true", "0", "-1", "1e19", "9.3e18", "1e300", "-1e300",
                "253402300800", "1700000000.5", "\"../../../../etc/hostname\"", "\"/environ\"", "\"\\u0000\"",
                "\"\\u0D4E/\\u0D4E.\"", "\"CON\"", "\"0000-01-01T00:00:00Z\"", "\"9999-12-31T23:59:59Z\"",
                "\"2024-05-01T09:30:00+09:00\"", "\"mapping\": ", "\"create_time\": ", "\"update_time\": ", "\"parent\": ",
                "\"children\": [", "\"current_node\": ", "\"content\": ", "\"parts\": [", "\"content_type\": \"text\"",
                "{\"content_type\": \"image_asset_pointer\", \"asset_pointer\": \"file-service://file-AbC\"}",
                "\"chat_messages\": [", "\"parent_message_uuid\": ", "\"created_at\": ", "\"sender\": \"human\"",
                "{\"type\": \"user\", \"uuid\": \"u1\", \"sessionId\": \"s1\", \"message\": {\"content\": \"hi\"}}\n",
                "\"isSidechain\": true", "\"parentUuid\": ", "\"entries\": [", "\"creationDate\": ", "\"timeZone\": ",
                "\"photos\": [{\"identifier\": \"P1\", \"md5\": \"4f1e2d3c\", \"type\": \"jpeg\"}]",
                "![](dayone-moment://P1)", "[2024-05-01 09:30] ", "[0000-01-01 00:00] ", "[9999-12-31 23:59 PM] ", " @tag",
                " *", "\n", "\r\n", "\u{FEFF}", "한", "\u{0D4E}", "PK\u{3}\u{4}", "PK\u{1}\u{2}", "PK\u{5}\u{6}",
                "PK\u{6}\u{6}", "PK\u{6}\u{7}", "\u{FF}\u{FF}\u{FF}\u{FF}", "\u{1}\u{0}\u{18}\u{0}",
            ]
        case .llm:
            tokens = [
                "conversations\t", "responses\t", "attachments\t", "prompt_attachments\t", "fragments\t", "tool_calls\t",
                "tool_results\t", "threads\t", "messages\t", "parts\t", "turns\t", "\t", "\n", "~", "#1e300", "#9.3e18",
                "#-1", "#0", "#9223372036854775807", "x:00ff", "c1", "r1", "t1", "m1", "user", "assistant", "system", "text",
                "reasoning", "tool_call", "tool_result", "attachment", "2024-05-01T10:00:00", "0000-01-01 00:00:00",
                "{\"name\": \"x\", \"arguments\": {}}", "{\"text_ref\": [{\"fragment\": 1}]}", "{\"temperature\": 1e300}",
                "/etc/hostname", "../../x", "\u{0D4E}/\u{0D4E}.",
            ]
        }
        return tokens.map { Array($0.utf8) }
    }
}

/// SplitMix64: the fuzzer's seeded randomness (the same inputs on every run of a seed).
public struct FuzzRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// FNV-1a of the bytes.
    public static func hash(_ bytes: [UInt8]) -> UInt64 {
        bytes.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
    }
}
