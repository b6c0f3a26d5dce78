import CGit2
import CGit2Loader
import Foundation
import CGitShims
import VaultCore

/// libgit2 failures, read with `git_error_last` right after the failing call and
/// turned into a `RepositoryFailure` a person can act on (libgit2's message and error class,
/// and what vault was doing).
enum GitFailure {
    /// Throws when `code` is negative; `doing` says what was being done ("write the index").
    @inline(__always)
    static func check(_ code: Int32, _ doing: @autoclosure () -> String) throws(VaultError) {
        guard code < 0 else { return }
        throw error(code, doing())
    }

    static func error(_ code: Int32, _ doing: String) -> VaultError {
        let last = git_error_last()
        let detail = last.map { String(cString: $0.pointee.message) } ?? "error \(code)"
        if code == GIT_ELOCKED.rawValue { return .repository(.libgit2Locked(doing: doing, message: detail)) }
        return .repository(.libgit2(doing: doing, message: detail, errorClass: last.map { $0.pointee.klass } ?? 0))
    }
}

/// Loads and starts libgit2 once per process, with the options vault relies on.
///
/// libgit2 is not linked: `CGit2Loader` loads it (and the ~16 libraries it needs) with
/// `dlopen`, so a command that never touches git does not pay ~3 ms for them at start-up,
/// and one that does loads them on another core while its arguments are parsed (`warmUp`).
enum LibGit2 {
    /// nil once libgit2 is loaded and started; otherwise why it could not be loaded.
    /// Whether libgit2 loads (and is started). Loads it now if it is not yet.
    static var loads: Bool { problem == nil }

    private static let problem: String? = {
        if let problem = cvault_git2_load() { return String(cString: problem) }
        Trace.mark("libgit2: loaded")
        // Without parsing the system's TLS certificates (~4 ms; vault makes no HTTPS
        // connections through libgit2): see CGitShims.
        cvault_git_init()
        // Check every object the tool creates (trees pointing at missing blobs, bad names).
        _ = cvault_git_set_strict_object_creation(1)
        _ = cvault_git_set_fsync_gitdir(1)
        // Keep parsed trees up to 4 MB in libgit2's cache (its default is 4 KB): a merge looks up
        // hundreds of paths in the 20,000-entry `rooms` tree, which would be parsed again each time.
        _ = cvault_git_set_cache_object_limit(Int32(GIT_OBJECT_TREE.rawValue), 4 << 20)
        // Like git, do not re-hash every object read (fsck checks them): reading the tree of a
        // 20,000-room folder would otherwise hash 1.2 MB with SHA-1DC on every commit.
        _ = cvault_git_set_strict_hash_verification(0)
        Trace.mark("libgit2: started")
        return nil
    }()

    /// Waits until libgit2 is loaded and started (loading it now if `warmUp` did not).
    ///
    /// - Throws: when libgit2 cannot be loaded (not installed, or another version): the
    ///   error names the library and the Debian package that has it.
    static func ready() throws(VaultError) {
        if let problem { throw VaultError.repository(.libgit2Unavailable(problem)) }
    }

    /// Loads and starts libgit2 on another core now (~2.5 ms for its libraries, ~0.5 ms for
    /// its own start-up). Whoever needs libgit2 later waits only for what is left.
    static func warmUp() {
        // The thread that began loading libgit2 with the process starts it too, else a new one.
        let start: @convention(c) (UnsafeMutableRawPointer?) -> Void = { _ in _ = LibGit2.problem }
        if cvault_git2_hand_over(start, nil) == 0 {
            cvault_git2_load_in_background { _ = LibGit2.problem }
        }
    }
}
