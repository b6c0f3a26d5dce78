import Foundation
import VaultCore

/// Every reader `vault import` has, by source, and the detection of a source from the files.
public enum ImportReaders {
    /// The reader of `source`. jrnl's times, which carry no zone, are
    /// read in `timeZone` (the vault's).
    public static func reader(for source: ImportSource, timeZone: TimeZone = .current) -> (any ImportReader)? {
        switch source {
        case .chatgpt: return ChatGPTReader()
        case .claude: return ClaudeReader()
        case .claudeCode: return ClaudeCodeReader()
        case .llm: return LLMReader()
        case .jrnl: return JrnlReader(timeZone: timeZone)
        case .dayone: return DayOneReader()
        }
    }

    /// The source whose reader recognizes `path` by its content (nil: none does).
    public static func detect(_ path: String) -> ImportSource? {
        ImportSource.allCases.first { source in reader(for: source).map { type(of: $0).recognizes(path) } ?? false }
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
