import Foundation
import VaultCore
import VaultGit

/// The diary's one date and tag filter: `vault diary list`, `vault export --diary` and the MCP
/// server's listing choose entries with it.
///
/// An entry with no date of its own is dated by the commit that added it
/// (`Vault.diarySummariesDatedByHistory`); one with no date at all is before every `from` and
/// never after a `to`.
///
///     let query = try DiaryQuery(since: "-7", until: nil, tag: "travel", timeZone: vault.config.timeZone)
///     let week = try query.entries(in: vault)                   // newest first
public struct DiaryQuery: Sendable, Equatable {
    /// The first day, or nil for no lower bound.
    public var from: LocalDate?
    /// The last day, or nil for no upper bound.
    public var to: LocalDate?
    /// Only entries with this tag, when given.
    public var tag: String?

    public init(from: LocalDate? = nil, to: LocalDate? = nil, tag: String? = nil) {
        self.from = from
        self.to = to
        self.tag = tag
    }

    /// The days as a person types them (`2026-11-01`, `yesterday`, `-7`), read in `timeZone`.
    ///
    /// - Throws: `VaultError.input` for a day that cannot be read.
    public init(since: String?, until: String?, tag: String?, timeZone: TimeZone) throws(VaultError) {
        self.init(
            from: try DateArgument.day(given: since, timeZone: timeZone),
            to: try DateArgument.day(given: until, timeZone: timeZone), tag: tag)
    }

    /// Whether the query has any filter at all.
    public var isEmpty: Bool { from == nil && to == nil && tag == nil }

    /// What the filters are, for a message (`tagged 'x'`, `from 2026-11-01`, `until …`).
    public var filters: [String] {
        var filters: [String] = []
        if let tag { filters.append("tagged '\(tag)'") }
        if let from { filters.append("from \(from)") }
        if let to { filters.append("until \(to)") }
        return filters
    }

    private static let undated = LocalDate(year: 0, month: 1, day: 1)

    /// Whether `entry` passes the filter.
    public func matches(_ entry: DiarySummary) -> Bool {
        let day = entry.date ?? DiaryQuery.undated
        if let from, day < from { return false }
        if let to, day > to { return false }
        if let tag, !Tags.match(entry.tags, tag) { return false }
        return true
    }

    /// The matching entries, newest first (the listing's order).
    ///
    /// - Throws: `VaultError.cancelled` when `cancellation` is cancelled before the entries are read.
    ///
    /// `watcher`, when given, says which entries changed since the last listing (`Vault.diaryListing`).
    public func entries(in vault: Vault, watcher: (any WorkTreeWatcher)? = nil, cancellation: Cancellation = .never)
        throws(VaultError) -> [DiarySummary]
    {
        try cancellation.check("listing the diary")
        let all = vault.diarySummariesDatedByHistory(watcher: watcher)
        return isEmpty ? all : all.filter(matches)
    }

    /// The matching entries, oldest first: by day, entries of one day in the reverse of the
    /// listing's order (`vault export --diary`).
    public func entriesOldestFirst(in vault: Vault, cancellation: Cancellation = .never) throws(VaultError)
        -> [DiarySummary]
    {
        try entries(in: vault, cancellation: cancellation).enumerated()
            .sorted { a, b in
                (a.element.date ?? DiaryQuery.undated, b.offset) < (b.element.date ?? DiaryQuery.undated, a.offset)
            }
            .map(\.element)
    }
}
