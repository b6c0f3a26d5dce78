import Foundation
import VaultCore

/// The rooms' one date filter: `vault rooms --since/--until` and a server's room listing choose
/// rooms with it. A room's day is its last activity's, in the vault's time zone; a room with
/// no activity to date is left out once a day is given.
///
///     let week = try RoomQuery(from: today.adding(days: -7)).rooms(in: vault)   // recent first
public struct RoomQuery: Sendable, Equatable {
    /// The first day, or nil for no lower bound.
    public var from: LocalDate?
    /// The last day, or nil for no upper bound.
    public var to: LocalDate?

    public init(from: LocalDate? = nil, to: LocalDate? = nil) {
        self.from = from
        self.to = to
    }

    /// The days as a person types them (`2026-11-01`, `yesterday`, `-7`), read in `timeZone`.
    ///
    /// - Throws: `VaultError.input` for a day that cannot be read.
    public init(since: String?, until: String?, timeZone: TimeZone) throws(VaultError) {
        self.init(
            from: try DateArgument.day(given: since, timeZone: timeZone),
            to: try DateArgument.day(given: until, timeZone: timeZone))
    }

    /// Whether `room`, whose days are in `zone`, passes the filter.
    public func matches(_ room: RoomSummary, zone: TimeZone) -> Bool {
        guard from != nil || to != nil else { return true }
        guard
            let day = room.lastActivity.flatMap(Timestamp.init(rfc3339:))
                .map({ Timestamp(date: $0.date, timeZone: zone).localDate })
        else { return false }
        return (from.map { day >= $0 } ?? true) && (to.map { day <= $0 } ?? true)
    }

    /// The matching rooms, in the listing's order (`Vault.roomSummaries`: most recent first).
    ///
    /// - Throws: `VaultError.cancelled` when `cancellation` is cancelled before the rooms are read.
    ///
    /// `watcher`, when given, says which rooms changed since the last listing (`Vault.roomListing`).
    public func rooms(in vault: Vault, watcher: (any WorkTreeWatcher)? = nil, cancellation: Cancellation = .never)
        throws(VaultError) -> [RoomSummary]
    {
        try cancellation.check("listing the rooms")
        let zone = vault.config.timeZone
        let all = vault.roomSummaries(watcher: watcher)
        // No filter: the list itself (a filter copies every summary's strings).
        return from == nil && to == nil ? all : all.filter { matches($0, zone: zone) }
    }
}
