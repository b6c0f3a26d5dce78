import Foundation

/// The name nearest to a mistyped one, by edit distance: for "did you mean …?".
package enum NearestName {
    /// The candidate nearest to `name` (compared in NFC, ignoring case), when it is within a third
    /// of the name's length (at least 1, at most 3 edits); nil when none is that near, or when two
    /// are equally near.
    package static func nearest(to name: String, among candidates: [String]) -> String? {
        nearest(to: name, among: candidates.map { ($0, [$0]) })
    }

    /// The item nearest to `name` by any of its names (a room by its slug or its title), as
    /// `nearest(to:among:)` chooses; the item's first name is given back.
    package static func nearest(to name: String, among items: [(name: String, spellings: [String])]) -> String? {
        let nearest = tied(to: name, among: items)
        return nearest.count == 1 ? nearest[0] : nil
    }

    /// Every item equally nearest to `name` within the limit of `nearest(to:among:)`, sorted;
    /// empty when none is near.
    package static func tied(to name: String, among items: [(name: String, spellings: [String])]) -> [String] {
        let typed = Array(name.precomposedStringWithCanonicalMapping.lowercased())
        let limit = min(3, max(1, typed.count / 3))
        var distances: [String: Int] = [:]
        for (item, spellings) in items {
            for spelling in spellings {
                let d = distance(typed, Array(spelling.precomposedStringWithCanonicalMapping.lowercased()))
                distances[item] = min(distances[item] ?? d, d)
            }
        }
        guard let best = distances.values.min(), best <= limit else { return [] }
        return distances.filter { $0.value == best }.map(\.key).sorted()
    }

    /// The Damerau–Levenshtein distance (insertions, deletions, substitutions and swaps of two
    /// neighbours, each one edit).
    package static func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var before = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], before[j - 2] + 1)
                }
            }
            (before, previous, current) = (previous, current, before)
        }
        return previous[b.count]
    }
}
