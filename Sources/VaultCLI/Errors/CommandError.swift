import Foundation

/// How a command ends without success when neither the library nor the command line is at
/// fault: a search with no hit, problems `vault check` has already listed, an export that
/// would overwrite or land in the vault, standard output that could not be written.
///
/// The CLI's own, beside `UsageError` (a wrong command line) and the library's `VaultError`;
/// `ExitStatus.of` gives each its status.
///
///     throw CommandError.outputExists("notes.html")
///     // vault: error: notes.html already exists; pass --force to replace it
enum CommandError: Error, CustomStringConvertible {
    /// `vault search` found nothing (grep's status 1); nothing is printed.
    case noMatch
    /// `vault search` was given a pattern, role, day or option it cannot use (grep's status 2).
    case invalidSearch(any Error)
    /// The command has printed the problems it found (`vault check`, the locks `vault unlock`
    /// kept); nothing more is printed.
    case problemsReported
    /// Standard output could not be written (a closed pipe, a full disk).
    case outputUnwritable(String)
    /// `vault export --diary` chose no entry: the filters, as words ("tagged 'x'", "from 2026-11-01").
    case noDiaryEntries([String])
    /// The export's file would be inside a `.git` folder.
    case outputInGitFolder(String)
    /// The export's file would be a Markdown file in `rooms/` or `diary/` (`area`), part of the vault.
    case outputInVault(String, area: String)
    /// The export's file exists and `--force` was not given.
    case outputExists(String)
    /// `vault ui` without a terminal on standard input and output.
    case needsTerminal

    /// What to print after `vault: error:`; nil when the command has said all there is to say.
    var message: String? {
        switch self {
        case .noMatch, .problemsReported: return nil
        default: return description
        }
    }

    var description: String {
        switch self {
        case .noMatch:
            return "nothing found"
        case .invalidSearch(let error):
            return "\(error)"
        case .problemsReported:
            return "problems were found"
        case .outputUnwritable(let problem):
            return "cannot write to standard output: \(problem) (the vault itself is not affected)"
        case .noDiaryEntries(let filters):
            return (["no diary entries"] + filters).joined(separator: " ") + "; nothing was exported"
        case .outputInGitFolder(let path):
            return "will not write \(path): it is inside a .git folder; choose a file outside it"
        case .outputInVault(let path, let area):
            return "will not write \(path): a Markdown file in \(area)/ would become part of the vault; choose a file"
                + " outside it"
        case .outputExists(let path):
            return "\(path) already exists; pass --force to replace it"
        case .needsTerminal:
            return "vault ui needs a terminal for its input and output; into a pipe, `vault rooms` and `vault show` print the same"
        }
    }
}
