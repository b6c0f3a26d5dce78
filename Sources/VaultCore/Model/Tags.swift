import Foundation

/// What a tag filter (`--tag`, MCP's `tag`) matches: the tag itself, in any case and Unicode
/// normalization, and the nested tags below it as Obsidian nests them (`부산` matches `부산` and
/// `부산/해운대`, not `부산역`). A leading `#` of the filter is left out.
///
///     Tags.match(["출장", "부산/해운대"], "부산")  // true
package enum Tags {
    package static func match(_ tags: [String], _ filter: String) -> Bool {
        var wanted = Substring(filter)
        while wanted.hasPrefix("#") { wanted = wanted.dropFirst() }
        while wanted.hasSuffix("/") { wanted = wanted.dropLast() }
        let key = fold(String(wanted))
        guard !key.isEmpty else { return false }
        return tags.contains { tag in
            let t = fold(tag)
            return t == key || t.hasPrefix(key + "/")
        }
    }

    private static func fold(_ s: String) -> String {
        s.precomposedStringWithCanonicalMapping.lowercased()
    }
}
