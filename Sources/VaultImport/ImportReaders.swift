import Foundation
import VaultCore

/// Every reader `vault import` has, by source, and the detection of a source from the files.
public enum ImportReaders {
    /// The reader of `source`. jrnl's times, which carry no zone, are
    /// read in `timeZone` (the vault's), its date lines written with `jrnlDateFormat` (jrnl's
    /// `timeformat`; nil: jrnl's default).
    public static func reader(
        for source: ImportSource, timeZone: TimeZone = .current, jrnlDateFormat: String? = nil
    ) -> (any ImportReader)? {
        switch source {
        case .chatgpt: return ChatGPTReader()
        case .claude: return ClaudeReader()
        case .claudeCode: return ClaudeCodeReader()
        case .llm: return LLMReader()
        case .jrnl: return JrnlReader(timeZone: timeZone, dateFormat: jrnlDateFormat)
        case .dayone: return DayOneReader()
        }
    }

    /// The source whose reader recognizes `path` by its content (nil: none does).
    public static func detect(_ path: String) -> ImportSource? {
        ImportSource.allCases.first { source in reader(for: source).map { type(of: $0).recognizes(path) } ?? false }
    }

    /// jrnl's `timeformat` in its configuration (`$XDG_CONFIG_HOME/jrnl/jrnl.yaml`, else
    /// `~/.config/jrnl/jrnl.yaml`), as the front end reads it for `vault import jrnl`; nil when
    /// there is none. Only that one line is read.
    public static func jrnlTimeFormat(environment: [String: String]) -> String? {
        let config = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ((environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()) + "/.config")
        guard let file = try? ExportInput.openNamed(config + "/jrnl/jrnl.yaml") else { return nil }
        let text = String(decoding: file.prefix(1 << 16), as: UTF8.self)
        for line in text.split(separator: "\n") where line.hasPrefix("timeformat:") {
            var value = line.dropFirst("timeformat:".count).trimmingCharacters(in: .whitespaces)
            if value.count >= 2, let q = value.first, q == "'" || q == "\"", value.last == q {
                value = String(value.dropFirst().dropLast())
            }
            return value.isEmpty ? nil : value
        }
        return nil
    }

    /// Where a source keeps its files when no PATH is given (Claude Code's `~/.claude/projects`,
    /// llm's `logs.db`).
    public static func defaultPaths(for source: ImportSource, environment: [String: String]) -> [String] {
        switch source {
        case .claudeCode: return ClaudeCodeReader.defaultPaths(environment: environment)
        case .llm: return LLMReader.defaultPaths(environment: environment)
        default: return []
        }
    }
}
