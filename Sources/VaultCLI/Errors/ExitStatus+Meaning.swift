extension ExitStatus {
    /// What the status means, for a person: README.md's "Exit status" table and the manual's
    /// EXIT STATUS say exactly this (`Reference`, `ReferenceTests`).
    var meaning: String {
        switch self {
        case .success:
            "done"
        case .failure:
            "not done: a malformed file, no item or revision matching a name, a value vault cannot use, git or the"
                + " file system refused or failed; `vault check` found problems; `vault search` found nothing; a reply"
                + " could not be saved"
        case .invalidSearch: "`vault search`: an invalid pattern (empty, or a regular expression that does not compile)"
        case .unreachable: "`vault chat`: the server could not be reached, or timed out"
        case .keyRefused: "`vault chat`: the key was refused, is not set, or may not be sent to that server"
        case .modelNotFound: "`vault chat`: the server does not know the model"
        case .rateLimited: "`vault chat`: rate limited"
        case .serverError: "`vault chat`: server error"
        case .badReply: "`vault chat`: the reply was cut off, passed the reply cap, held no text, or is not the protocol"
        case .rejected: "`vault chat`: the request was rejected"
        case .usage:
            "a usage error: an unknown option or command, a missing argument, options that do not go together, a value"
                + " an option does not take (`--date 2026-02-30`, `--since bad`, `diary calendar 13`, `--locale xx_YY`,"
                + " `--color sometimes`, `search --role robot`)"
        case .internalError: "an internal error (vault broke one of its own rules): please report it"
        case .interrupted: "interrupted (Ctrl-C)"
        }
    }
}
