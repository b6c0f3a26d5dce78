/// The search's types under names another module can re-offer them by: `VaultSearch` is both
/// this module's name and its engine's, so `VaultSearch.SearchQuery` means the engine's member
/// there (VaultKit names them through this).
public enum SearchNames {
    public typealias Engine = VaultSearch
    public typealias Query = SearchQuery
    public typealias Hit = SearchHit
    public typealias Hits = SearchHits
    public typealias Item = SearchItem
    public typealias Results = SearchResults
    public typealias Printer = SearchPrinter
    public typealias Watcher = VaultWatcher
}
