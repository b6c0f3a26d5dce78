import VaultCore

/// Every reader `vault import` has, by source, and the detection of a source from the files.
public enum ImportReaders {
    /// The reader of `source` (nil: none yet for it).
    public static func reader(for source: ImportSource) -> (any ImportReader)? {
        switch source {
        default: return nil
        }
    }

    /// The source whose reader recognizes `path` by its content (nil: none does).
    public static func detect(_ path: String) -> ImportSource? {
        ImportSource.allCases.first { source in reader(for: source).map { type(of: $0).recognizes(path) } ?? false }
    }

    /// Where a source keeps its files when no PATH is given (Claude Code's `~/.claude/projects`).
    public static func defaultPaths(for source: ImportSource, environment: [String: String]) -> [String] {
        switch source {
        default: return []
        }
    }
}
