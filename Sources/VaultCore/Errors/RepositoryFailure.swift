import Foundation

/// Why the vault's git repository refused or failed a change, a read or a sync.
///
/// VaultGit raises these (VaultCore only declares them, because `VaultHistory`, the protocol
/// VaultGit implements, throws them). A libgit2 failure carries libgit2's own message and
/// error class, read with `git_error_last` right after the failing call; every other case
/// says what state of the repository stopped vault and what to do about it. Unless a case
/// says otherwise, the user's files are as they were.
///
///     throw VaultError.repository(.detachedHead(root: "/home/me/notes"))
///     // HEAD is detached in /home/me/notes: vault commits on a branch. Run `git -C …` first.
public enum RepositoryFailure: Sendable, Hashable, CustomStringConvertible {
    /// A libgit2 call failed while vault was `doing` something ("write the index"): libgit2's
    /// message, and its error class (`git_error_t`, 0 when libgit2 set none).
    case libgit2(doing: String, message: String, errorClass: Int32)
    /// libgit2 found the repository locked (`GIT_ELOCKED`) while vault was `doing` something.
    case libgit2Locked(doing: String, message: String)
    /// libgit2 could not be loaded (not installed, or another version); the loader's message
    /// names the library and the Debian package that has it.
    case libgit2Unavailable(String)
    /// A lock file of git's (`.git/index.lock`) exists; `outcome` says what became of the change.
    case lockFileExists(path: String, outcome: String)
    /// A lock file could not be created.
    case cannotLock(path: String, reason: String)
    /// A file in the repository (a ref, a lock's content, an object) could not be written.
    case cannotWrite(path: String, reason: String)
    /// A program (git, ssh) could not be started.
    case cannotRun(program: String, reason: String)
    /// Commits are to be signed (git config `gpg.format ssh`, `commit.gpgsign`) and
    /// `ssh-keygen -Y sign` failed with the key `key` (`user.signingkey`): nothing was committed.
    case cannotSign(key: String, reason: String)
    /// HEAD is not on a branch; vault commits on a branch.
    case detachedHead(root: String)
    /// The repository is in the middle of a merge, rebase, cherry-pick…: `operation` names it
    /// and how to finish it.
    case operationInProgress(root: String, operation: String)
    /// The branch moved while vault was committing (another git program committed);
    /// `outcome` says what became of the change.
    case branchMoved(branch: String, outcome: String)
    /// The vault is inside another project's git repository (`outer`), which vault never commits to.
    case foreignRepository(vault: String, outer: String)
    /// The vault has no git repository of its own.
    case noRepository(vault: String)
    /// The repository has no commit yet (sync needs one).
    case noCommits
    /// The repository holds something git itself would reject (`git fsck` finds it).
    case damaged(String)
    /// `vault sync` needs the `git` command for a remote on the network (at `url`, when known),
    /// and it is not installed.
    case gitCommandMissing(url: String?)
    /// Reaching a remote failed while vault was `doing` something ("fetch from origin"):
    /// `reason` in plain words. `merged`: the fetch and merge were done and committed, only
    /// sending failed.
    case remote(doing: String, reason: String, merged: Bool)
    /// The remote refused the push for a reason other than a race (a protected branch, a hook).
    case pushRefused(remote: String, reason: String)
    /// The remote kept refusing the push as moved meanwhile (another machine syncing) after
    /// `attempts` rounds of fetch, merge and push.
    case pushKeptRefused(remote: String, reason: String, attempts: Int)

    public var description: String {
        switch self {
        case .libgit2(let doing, let message, _):
            return "cannot \(doing): \(message)"
        case .libgit2Locked(let doing, let message):
            return "cannot \(doing): the git repository is locked (\(message)). If no other git program is running,"
                + " the lock is left over from a crash: run `vault unlock`."
        case .libgit2Unavailable(let problem):
            return problem
        case .lockFileExists(let path, let outcome):
            return "the repository is locked (\(path) exists): another git program may be working on it. If none is, "
                + "the lock is left over from a crash: run `vault unlock` to remove it. \(outcome)"
        case .cannotLock(let path, let reason):
            return "cannot lock \(path): \(reason)"
        case .cannotWrite(let path, let reason):
            return "cannot write \(path): \(reason)"
        case .cannotRun(let program, let reason):
            return "cannot run \(program): \(reason)"
        case .cannotSign(let key, let reason):
            return "cannot sign the commit with \(key) (git config user.signingkey): \(reason). Nothing was committed:"
                + " give a key ssh-keygen can use (its private half beside it or in ssh-agent), or turn signing off"
                + " with `git config commit.gpgsign false`."
        case .detachedHead(let root):
            return "HEAD is detached in \(root): vault commits on a branch. Run `git -C \(root) switch main` (or your"
                + " branch) first. Your files are unchanged."
        case .operationInProgress(let root, let operation):
            return "the repository in \(root) is in the middle of \(operation); vault does not commit over it."
                + " Your files are unchanged."
        case .branchMoved(let branch, let outcome):
            return "\(branch) moved while vault was working (another git program is working on the repository);"
                + " \(outcome)"
        case .foreignRepository(let vault, let outer):
            return "the vault \(vault) is inside the git repository \(outer), which is not the vault's own: vault never"
                + " commits there. Run `vault init \(vault)` to give the vault its own repository, or copy the vault"
                + " elsewhere."
        case .noRepository(let vault):
            return "the vault \(vault) has no git repository: run `vault init \(vault)` to create one."
        case .noCommits:
            return "the vault has no commit yet; make one change first (for example `vault room new`)."
        case .damaged(let detail):
            return "the repository \(detail); run `git fsck`"
        case .gitCommandMissing(let url?):
            return "\(url) is reached over the network, which needs the `git` command (ssh config, known_hosts and"
                + " credential helpers work through it): install it with `apt-get install git`. Nothing was changed."
        case .gitCommandMissing(nil):
            return "vault sync needs the `git` command for the network (install it: `apt-get install git`);"
                + " nothing was changed."
        case .remote(let doing, let reason, let merged):
            return "cannot \(doing): \(reason). "
                + (merged
                    ? "Your vault has everything merged and committed; `vault sync` sends it when the remote can be"
                        + " reached."
                    : "Nothing in the vault was changed.")
        case .pushRefused(let remote, let reason):
            return "\(remote) refused the push (\(reason)). Your vault has everything merged and committed;"
                + " nothing was lost."
        case .pushKeptRefused(let remote, let reason, let attempts):
            return "\(remote) kept refusing the push (\(reason)) after \(attempts) tries: another machine is syncing"
                + " at the same moment. Your vault has everything merged and committed; run `vault sync` again in a"
                + " moment."
        }
    }
}
