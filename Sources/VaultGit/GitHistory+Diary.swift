import VaultCore

extension Vault {
    /// Every diary entry, newest first, as `diarySummaries()` lists them, except that an entry
    /// with no date of its own (no front-matter, none in its name: dated by the file's
    /// modification time) is dated by the commit that added it when the vault has its own
    /// history (`dateSource` "history"): a copy or a checkout changes a file's time, not its
    /// first commit.
    public func diarySummariesDatedByHistory(watcher: (any WorkTreeWatcher)? = nil) -> [DiarySummary] {
        datedByHistory(diarySummaries(watcher: watcher))
    }

    /// `all` (a diary listing's summaries, newest first) with the entries dated by their file's
    /// time dated by their first commit instead, and in order again.
    public func datedByHistory(_ all: [DiarySummary]) -> [DiarySummary] {
        var all = all
        guard all.contains(where: { $0.dateSource == "modified" }), (try? GitHistory.locate(root)) == .own,
            let history = try? GitHistory(vault: root, config: config, settings: settings)
        else { return all }
        for k in all.indices where all[k].dateSource == "modified" {
            if let first = try? history.firstCommitTime(of: all[k].path) {
                all[k].date = first.localDate
                all[k].dateSource = "history"
            }
        }
        let none = LocalDate(year: 0, month: 1, day: 1)
        return all.enumerated().sorted {
            let (a, b) = ($0.element.date ?? none, $1.element.date ?? none)
            return a != b ? a > b : $0.offset < $1.offset
        }.map(\.element)
    }
}
