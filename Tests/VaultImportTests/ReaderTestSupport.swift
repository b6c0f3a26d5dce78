import VaultCore
import VaultImport

/// The import problem `body` throws: nil when it throws nothing or another error.
func importProblem(_ body: () throws -> Void) -> ImportProblem? {
    do {
        try body()
        return nil
    } catch VaultError.importing(let problem) {
        return problem
    } catch {
        return nil
    }
}

/// Every item `reader` reads from `paths`.
func items(_ reader: some ImportReader, _ paths: [String], since: Timestamp? = nil) throws -> [ImportedItem] {
    var out: [ImportedItem] = []
    try reader.read(paths, since: since) { out.append($0) }
    return out
}

/// The journal entries among `items`.
func entries(_ items: [ImportedItem]) -> [ImportedEntry] {
    items.compactMap { if case .entry(let e) = $0 { e } else { nil } }
}

/// The conversations among `items`.
func conversations(_ items: [ImportedItem]) -> [ImportedConversation] {
    items.compactMap { if case .conversation(let c) = $0 { c } else { nil } }
}
