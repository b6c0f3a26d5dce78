/// Something that came from outside, a remote's commit, a cloned tree or a file placed by
/// hand, that vault will not take. Nothing was written when one is thrown.
///
///     UntrustedInput.refusedPath(commit: "3f2a1c9", path: "rooms/../x", problem: .dotDot)
///     // the commit 3f2a1c9 holds rooms/../x, which vault will not write: it has a `.` or `..` …
public enum UntrustedInput: Sendable, Hashable, CustomStringConvertible {
    /// A commit whose tree holds a path vault will not write (`IncomingPath`).
    case refusedPath(commit: String, path: String, problem: IncomingPath.Problem)
    /// A commit whose tree holds a file larger than the cap (`max_file_size`), this machine's
    /// or `vault.yml`'s lower one (`origin`).
    case fileTooLarge(commit: String, path: String, size: Int, limit: Int, origin: IncomingLimits.Origin = .machine)
    /// A commit whose tree holds a file with a line longer than the cap (`max_line_length`).
    case lineTooLong(commit: String, path: String, length: Int, limit: Int, origin: IncomingLimits.Origin = .machine)
    /// What a sync would bring in is more than the cap (`max_sync_size`).
    case syncTooLarge(commit: String, size: Int, limit: Int, origin: IncomingLimits.Origin = .machine)
    /// `.vault` or `.git` is not a real folder of this user (a link, a file, someone else's).
    case stateNotAFolder(path: String, why: String)
    /// A file vault was asked to read is not a regular file (a FIFO, a device, a socket).
    case notRegularFile(path: String, kind: String)

    public var description: String {
        switch self {
        case .refusedPath(let commit, let path, let problem):
            return "the commit \(commit) holds \(path), which vault will not write: \(problem);"
                + " nothing was changed (the machine that made it can remove or rename it)"
        case .fileTooLarge(let commit, let path, let size, let limit, let origin):
            return "the commit \(commit) holds \(path) of \(ByteCount.text(size)), more than the"
                + " \(ByteCount.text(limit)) a file may have; nothing was changed"
                + " (\(IncomingLimits.raising("max_file_size", origin: origin)))"
        case .lineTooLong(let commit, let path, let length, let limit, let origin):
            return "the commit \(commit) holds \(path) with a line of \(ByteCount.text(length)), longer than the"
                + " \(ByteCount.text(limit)) a line may have; nothing was changed"
                + " (\(IncomingLimits.raising("max_line_length", origin: origin)))"
        case .syncTooLarge(let commit, let size, let limit, let origin):
            return "the commit \(commit) would bring in \(ByteCount.text(size)), more than the"
                + " \(ByteCount.text(limit)) a sync may take; nothing was changed"
                + " (\(IncomingLimits.raising("max_sync_size", origin: origin)))"
        case .stateNotAFolder(let path, let why):
            return "\(path) \(why); vault keeps its own state there and never follows a link to it."
                + " Remove it (`rm \(path)`) and run the command again"
        case .notRegularFile(let path, let kind):
            return "\(path): not a regular file (\(kind)); vault reads only regular files"
        }
    }
}
