import VaultSearch

// The search's types a front end names, through VaultKit (`VaultKit/README.md`, "The public
// surface").

/// What to look for, where, by whom, when (`vault search`'s options, MCP's `search` arguments).
public typealias SearchQuery = SearchNames.Query
/// One hit: its line, column and text (borrowed while the scan renders it).
public typealias SearchHit = SearchNames.Hit
/// An item's hits, packed as the scan found them: each made a `SearchHit` when it is read.
public typealias SearchHits = SearchNames.Hits
/// A room or entry with its hits.
public typealias SearchItem = SearchNames.Item
/// What a search found.
public typealias SearchResults = SearchNames.Results
/// How hits are rendered as the scan finds them, on every core (`Searching.run`'s `configure`).
public typealias SearchPrinter = SearchNames.Printer
/// What tells a long-running front end which files changed (the search index's watcher).
public typealias VaultWatcher = SearchNames.Watcher
