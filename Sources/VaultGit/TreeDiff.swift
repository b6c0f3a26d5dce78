import CGit2
import VaultCore

extension GitHistory {
    /// The difference from tree `old` (nil: the empty tree) to `new`, path by path, as
    /// `git diff-tree` finds it, with renames found as `git diff -M` does when `findingRenames`;
    /// the caller frees it (`git_diff_free`). The one place vault sets up a tree-to-tree diff:
    /// libgit2 skips folders whose ids are equal, so a change to one room of 50,000 files reads
    /// a few trees.
    func treeDiff(
        from old: OpaquePointer?, to new: OpaquePointer?, findingRenames: Bool = false,
        _ doing: String = "compare two versions of the vault"
    ) throws(VaultError) -> OpaquePointer {
        var options = git_diff_options()
        git_diff_options_init(&options, UInt32(GIT_DIFF_OPTIONS_VERSION))
        var diff: OpaquePointer?
        try GitFailure.check(git_diff_tree_to_tree(&diff, repo, old, new, &options), doing)
        guard findingRenames else { return diff! }
        var find = git_diff_find_options()
        git_diff_find_options_init(&find, UInt32(GIT_DIFF_FIND_OPTIONS_VERSION))
        find.flags = GIT_DIFF_FIND_RENAMES.rawValue
        let found = git_diff_find_similar(diff, &find)
        if found != 0 { git_diff_free(diff) }
        try GitFailure.check(found, "find renamed files")
        return diff!
    }

    /// Each change a diff holds, in its order.
    static func deltas(of diff: OpaquePointer) -> [git_diff_delta] {
        (0..<git_diff_num_deltas(diff)).compactMap { git_diff_get_delta(diff, $0)?.pointee }
    }
}
