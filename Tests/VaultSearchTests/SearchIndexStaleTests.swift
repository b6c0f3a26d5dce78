import Foundation
import Testing
import VaultCore
import VaultTestSupport

@testable import VaultSearch

#if canImport(Glibc)
import Glibc
#endif

/// The index's terms of contents no file has any more: SQLite 3.40's contentless FTS5 table
/// cannot delete them without the terms, so they stay, matched by no file, counted as stale,
/// until they pass half the live ones and the index is built again. (In the serialized suite,
/// which sets `XDG_CACHE_HOME`.)
extension SearchIndexTests {
    @Test func anEditedFilesOldTextIsNoCandidate() throws {
        try withCacheHome { _ in
            let vault = try SampleVault()
            let index = try SearchIndex(vaultRoot: vault.dir.path, cacheHome: ProcessSettings.ofThisTest.cacheHome)
            index.racyMargin = 0
            _ = try index.refresh(vault.files())
            let oldTerms = try termsOfFile("rooms/berlin.md", vault)
            #expect(try index.candidates(containingAll: [key("straße")]) == ["rooms/berlin.md"])
            let counts = try termCounts(index)
            #expect(counts.stale == 0)
            #expect(counts.live == totalTerms(vault))

            let old = try vault.dir.readText("rooms/berlin.md")
            try waitForTheFileSystemClock(past: [vault.dir.path + "/rooms/berlin.md"], probeIn: vault.dir.path)
            try vault.dir.write("rooms/berlin.md", old.replacingOccurrences(of: "Straße", with: "Gassen!"))
            let refresh = try index.refresh(vault.files())
            #expect(refresh.read == 1 && refresh.indexed == 1)
            // The old text's terms are still in the index, under a text id no file has.
            #expect(!(try rowsMatching(oldTerms, index)).isEmpty)
            #expect(try index.candidates(containingAll: [key("straße")]) == [])
            #expect(try SearchIndex(vaultRoot: vault.dir.path, cacheHome: ProcessSettings.ofThisTest.cacheHome).refreshed(vault).candidates(containingAll: [key("straße")]) == [])
            #expect(try index.candidates(containingAll: [key("gassen!")]) == ["rooms/berlin.md"])
            #expect(try termCounts(index) == (totalTerms(vault), Int64(oldTerms.count)))
            try expectExact(index, vault)
        }
    }

    @Test func aDeletedFileIsNoCandidate() throws {
        try withCacheHome { _ in
            let vault = try SampleVault()
            let index = try SearchIndex(vaultRoot: vault.dir.path, cacheHome: ProcessSettings.ofThisTest.cacheHome)
            index.racyMargin = 0
            _ = try index.refresh(vault.files())
            let terms = try termsOfFile("diary/2024/2024-03-02-jeju.md", vault)
            #expect(unlink(vault.dir.path + "/diary/2024/2024-03-02-jeju.md") == 0)
            #expect(try index.refresh(vault.files()).removed == 1)
            #expect(try index.candidates(containingAll: [key("제주도")]) == [])
            // Answered from the database's rows (no record of this object's refresh) too.
            let other = try SearchIndex(vaultRoot: vault.dir.path, cacheHome: ProcessSettings.ofThisTest.cacheHome)
            _ = try other.refresh(vault.files())
            #expect(try index.candidates(containingAll: [key("제주도")]) == [])
            #expect(try termCounts(index) == (totalTerms(vault), Int64(terms.count)))
            try expectExact(index, vault)
        }
    }

    @Test func aFileChangedBackAndForthReusesItsTerms() throws {
        try withCacheHome { _ in
            let vault = try SampleVault()
            let index = try SearchIndex(vaultRoot: vault.dir.path, cacheHome: ProcessSettings.ofThisTest.cacheHome)
            index.racyMargin = 0
            _ = try index.refresh(vault.files())
            let first = try vault.dir.readText("rooms/tokyo.md")
            let second = first.replacingOccurrences(of: "東京タワー", with: "スカイツリー")
            let before = try termCounts(index)
            for round in 0..<3 {
                let path = vault.dir.path + "/rooms/tokyo.md"
                try waitForTheFileSystemClock(past: [path], probeIn: vault.dir.path)
                try vault.dir.write("rooms/tokyo.md", second)
                let changed = try index.refresh(vault.files())
                // The second content is indexed once; afterwards its terms are taken again.
                #expect(changed.indexed == (round == 0 ? 1 : 0))
                #expect(try index.candidates(containingAll: [key("東京タワー")]) == [])
                #expect(try index.candidates(containingAll: [key("スカイツリー")]) == ["rooms/tokyo.md"])
                try waitForTheFileSystemClock(past: [path], probeIn: vault.dir.path)
                try vault.dir.write("rooms/tokyo.md", first)
                #expect(try index.refresh(vault.files()).indexed == 0)
                #expect(try index.candidates(containingAll: [key("東京タワー")]) == ["rooms/tokyo.md"])
                #expect(try index.candidates(containingAll: [key("スカイツリー")]) == [])
                // The first content is some file's again: its terms live, the second's stale.
                let counts = try termCounts(index)
                #expect(counts.live == before.live)
                #expect(counts.stale == Int64(FileVersion.terms(of: key(second)).count))
            }
            try expectExact(index, vault)
        }
    }

    @Test func staleTermsPastHalfTheLiveOnesRebuildTheIndex() throws {
        try withCacheHome { _ in
            let vault = try SampleVault(extraFiles: 40)
            let index = try SearchIndex(vaultRoot: vault.dir.path, cacheHome: ProcessSettings.ofThisTest.cacheHome)
            index.racyMargin = 0
            index.rebuildAfterStaleTerms = 0
            _ = try index.refresh(vault.files())
            let goneTerms = try termsOfFile("diary/2023/2023-01-0.md", vault)
            // A few deleted: stale terms fewer than half the live ones, kept.
            for k in 0..<5 { #expect(unlink(vault.dir.path + "/diary/2023/2023-01-\(k).md") == 0) }
            let kept = try index.refresh(vault.files())
            #expect(kept.removed == 5 && kept.read == 0)
            #expect(!(try rowsMatching(goneTerms, index)).isEmpty)
            #expect(try termCounts(index).stale > 0)
            // More deleted: stale terms more than half the live ones (and fewer than them); the
            // index is emptied and every file read again.
            let deleted = 5..<20
            var stale = try termCounts(index).stale
            for k in deleted {
                stale += Int64(try termsOfFile("diary/2023/2023-01-\(k).md", vault).count)
                #expect(unlink(vault.dir.path + "/diary/2023/2023-01-\(k).md") == 0)
            }
            let live = totalTerms(vault)
            #expect(stale * 2 > live && stale < live)
            let rebuilt = try index.refresh(vault.files())
            #expect(rebuilt.removed == deleted.count)
            #expect(rebuilt.read == vault.files().count)
            #expect(rebuilt.indexed == vault.files().count)
            #expect(try rowsMatching(goneTerms, index).isEmpty)
            #expect(try termCounts(index) == (totalTerms(vault), 0))
            try expectExact(index, vault)
            #expect(try index.refresh(vault.files()).read == 0)
            // Another index of the same vault finds it whole.
            let other = try SearchIndex(vaultRoot: vault.dir.path, cacheHome: ProcessSettings.ofThisTest.cacheHome)
            #expect(try other.refresh(vault.files()).read == 0)
            try expectExact(other, vault)
        }
    }

    @Test func theDefaultRebuildWaitsForAMillionStaleTerms() throws {
        try withCacheHome { _ in
            let vault = try SampleVault(extraFiles: 40)
            let index = try SearchIndex(vaultRoot: vault.dir.path, cacheHome: ProcessSettings.ofThisTest.cacheHome)
            index.racyMargin = 0
            _ = try index.refresh(vault.files())
            for k in 0..<40 { #expect(unlink(vault.dir.path + "/diary/2023/2023-01-\(k).md") == 0) }
            let refresh = try index.refresh(vault.files())
            #expect(refresh.read == 0)  // stale terms outnumber live ones, but they are few
            let counts = try termCounts(index)
            #expect(counts.stale > counts.live)
            try expectExact(index, vault)
        }
    }
}

extension SearchIndexTests {
    @Test func aBulkRefreshMergesOnceAndLeavesFTS5sMergingOn() throws {
        try withCacheHome { _ in
            let vault = try SampleVault(extraFiles: 60)
            let index = try SearchIndex(vaultRoot: vault.dir.path, cacheHome: ProcessSettings.ofThisTest.cacheHome)
            index.racyMargin = 0
            index.optimizeAfter = 20
            #expect(try index.refresh(vault.files()).indexed == vault.files().count)
            #expect(try mergeSettings(index) == [4, 16])
            try expectExact(index, vault)
            // A bulk refresh that was interrupted leaves merging off: the next refresh that
            // writes sets it back.
            do {
                let db = try SearchIndex.openDatabase(index.path)
                try db.execute(
                    "INSERT INTO texts(texts, rank) VALUES ('automerge', 0); INSERT INTO texts(texts, rank) VALUES ('crisismerge', 64)")
            }
            #expect(try mergeSettings(index) == [0, 64])
            try waitForTheFileSystemClock(past: [vault.dir.path + "/rooms/busan.md"], probeIn: vault.dir.path)
            try vault.dir.write("rooms/busan.md", "부산 여행은 다음에.\n")
            #expect(try index.refresh(vault.files()).read == 1)
            #expect(try mergeSettings(index) == [4, 16])
            try expectExact(index, vault)
        }
    }
}

/// FTS5's `automerge` and `crisismerge` of the index's `texts`.
private func mergeSettings(_ index: SearchIndex) throws -> [Int64] {
    let db = try SearchIndex.openDatabase(index.path)
    return [
        try db.integer("SELECT v FROM texts_config WHERE k = 'automerge'") ?? -1,
        try db.integer("SELECT v FROM texts_config WHERE k = 'crisismerge'") ?? -1,
    ]
}

extension SearchIndex {
    /// This index after a refresh of `vault`'s files.
    fileprivate func refreshed(_ vault: SampleVault) throws -> SearchIndex {
        racyMargin = 0
        _ = try refresh(vault.files())
        return self
    }
}

/// The index terms of a file of `vault` as it is now.
private func termsOfFile(_ path: String, _ vault: SampleVault) throws -> [String] {
    let text = try vault.dir.readText(path)
    return FileVersion.indexTerms(of: text).text.split(separator: " ").map(String.init)
}

/// The distinct terms of every file of `vault`, summed over its distinct contents.
private func totalTerms(_ vault: SampleVault) -> Int64 {
    var contents = Set<String>()
    for file in vault.files() {
        if let bytes = try? vault.dir.read(file), let text = String(validating: bytes, as: UTF8.self) {
            contents.insert(text)
        }
    }
    return contents.reduce(0) { $0 + Int64(FileVersion.indexTerms(of: $1).count) }
}

/// The index's rows (text ids) whose terms hold all of `terms`, read from its database.
private func rowsMatching(_ terms: [String], _ index: SearchIndex) throws -> [Int64] {
    let db = try SearchIndex.openDatabase(index.path)
    let rows = try db.prepare("SELECT rowid FROM texts WHERE texts MATCH ?1")
    rows.bind(terms.prefix(20).joined(separator: " AND "), at: 1)
    var found: [Int64] = []
    while try rows.step() { found.append(rows.int64(0)) }
    return found
}

/// The live and stale terms the index's `meta` counts.
private func termCounts(_ index: SearchIndex) throws -> (live: Int64, stale: Int64) {
    let db = try SearchIndex.openDatabase(index.path)
    return (
        try db.integer("SELECT value FROM meta WHERE key = 'live_terms'") ?? -1,
        try db.integer("SELECT value FROM meta WHERE key = 'stale_terms'") ?? -1
    )
}
