import ArgumentParser
import Foundation
import VaultCore

/// The statuses `vault` exits with, and the one place every error is given its own.
///
/// README.md's "Exit status" table lists the same statuses (a test compares them). A signal
/// held off during a change ends the process with 128 + its number (`Termination`), which is
/// not an error and not listed here; Ctrl-C during a reply is `interrupted`, 130, either way.
///
///     let status = ExitStatus.of(error)   // VaultError.input(…) → .failure, 1
enum ExitStatus: Int32, CaseIterable {
    /// The command did what was asked.
    case success = 0
    /// The command could not be done: a malformed file, nothing matching a name, a value the
    /// library cannot use, git or the file system refusing or failing, `vault check` finding
    /// problems, `vault search` finding nothing, the reply not saved.
    case failure = 1
    /// `vault search`: an invalid pattern (grep's 2): empty, or a regular expression that does
    /// not compile.
    case invalidSearch = 2
    /// The model's server could not be reached, or timed out.
    case unreachable = 3
    /// The API key was refused, is not set, or may not be sent to that server.
    case keyRefused = 4
    /// The server does not know the model.
    case modelNotFound = 5
    /// The server kept saying "too many requests".
    case rateLimited = 6
    /// The server kept failing (5xx).
    case serverError = 7
    /// The reply was cut off, passed the reply cap, held no text, or is not the protocol.
    case badReply = 8
    /// The server rejected the request.
    case rejected = 9
    /// The command line is wrong (ArgumentParser's checks and `UsageError`): `EX_USAGE`.
    case usage = 64
    /// One of vault's own rules broke (`InternalError`): a bug to report. `EX_SOFTWARE`.
    case internalError = 70
    /// Interrupted (Ctrl-C) while the server replied; what arrived is saved.
    case interrupted = 130

    /// The status for `error`, whatever threw it.
    static func of(_ error: any Error) -> ExitStatus {
        switch error {
        case let error as VaultError: return of(error)
        case is UsageError: return .usage
        case let error as CommandError: return of(error)
        default:
            // ArgumentParser's own: --help and --version (0), a wrong command line (64).
            let code = VaultCommand.exitCode(for: error).rawValue
            return ExitStatus(rawValue: code) ?? .failure
        }
    }

    static func of(_ error: VaultError) -> ExitStatus {
        switch error {
        case .malformed, .malformedEnd: return .failure
        case .notAVault, .alreadyAVault: return .failure
        case .itemNotFound, .ambiguousItem: return .failure
        // A day or a month given to an option (`--since`, `--date`, `diary calendar MONTH`)
        // that names none: a value the option does not take, as `--color sometimes` is.
        case .input(.unreadableDate), .input(.unreadableMonth): return .usage
        case .input: return .failure
        case .io, .locked, .changedOnDisk, .symbolicLink, .editor, .untrusted, .importing: return .failure
        case .repository: return .failure
        case .provider(let failure, _): return of(failure.kind)
        case .internal: return .internalError
        case .stoppedAfter(let error, _): return of(error)
        case .readOnly: return .failure
        case .cancelled: return .interrupted
        }
    }

    static func of(_ kind: ProviderFailure.Kind) -> ExitStatus {
        switch kind {
        case .unreachable, .timeout: return .unreachable
        case .unauthorized, .noKey, .keyNotApproved: return .keyRefused
        case .notFound: return .modelNotFound
        case .rateLimited: return .rateLimited
        case .serverError: return .serverError
        case .cutOff, .malformed, .tooLong, .empty: return .badReply
        case .rejected: return .rejected
        case .interrupted: return .interrupted
        case .unsaved: return .failure
        }
    }

    static func of(_ error: CommandError) -> ExitStatus {
        switch error {
        case .noMatch, .problemsReported, .outputUnwritable: return .failure
        case .invalidSearch(let inner):
            // grep's 2 is for the pattern; an option's value is a usage error as everywhere,
            // and a room that is not there is "not done" as everywhere.
            switch inner {
            case let error as VaultError:
                switch error {
                case .input(.emptyPattern), .input(.invalidRegex), .input(.rejectedRegex): return .invalidSearch
                default: return of(error)
                }
            default: return of(inner)
            }
        case .noDiaryEntries, .outputInGitFolder, .outputInVault, .outputExists, .needsTerminal: return .failure
        }
    }
}
