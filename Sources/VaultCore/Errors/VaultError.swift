import Foundation

/// A problem found in one file of a vault, with the place it was found.
///
/// Every message names the file and the line, and says what is wrong in
/// words a person at the terminal can act on:
///
///     rooms/busan.md:14: the message header has an invalid timestamp "2026-13-01T09:00:00+09:00"
public struct FormatProblem: Error, Sendable, Hashable, CustomStringConvertible {
    /// How serious a problem is.
    public enum Severity: String, Sendable, Hashable, Codable {
        /// The file cannot be read safely; commands that would write it refuse.
        case error
        /// The file can be read, but something in it is suspicious (`vault check` reports it).
        case warning
    }

    /// What is wrong.
    public enum Kind: Sendable, Hashable {
        /// Bytes that are not UTF-8.
        case invalidUTF8
        /// `---` opens the front-matter, and no `---` or `...` line closes it.
        case unclosedFrontMatter
        /// The file starts with front-matter keys and a `---` line closes them, but the
        /// opening `---` line is missing (`FrontMatter.lacksOpening`).
        case noOpeningFrontMatter
        /// A diary entry with no date: no `created`, and no date in its file name
        /// (`DiaryFile.dateInName`); `diary list` dates it by its history meanwhile.
        case noDate
        /// Two versions of one message, from two machines that edited it differently: the
        /// other version (this line) names the first (`conflict=`), and both are in the room.
        case unsettledConflict(String, other: String, firstLine: Int)
        /// The front-matter is not valid YAML; the text is the YAML parser's.
        case invalidYAML(String)
        /// The front-matter is valid YAML but not a mapping of keys to values.
        case frontMatterNotMapping
        /// The same top-level key twice.
        case duplicateKey(String, firstLine: Int)
        /// A front-matter time (`created`, `updated`) that is not a date or a time in any form
        /// vault reads (`Timestamp(frontMatter:)`).
        case invalidDate(key: String, value: String)
        /// A line that has the shape of a message header, but a part of it is invalid.
        case invalidHeader(String)
        /// The same message id on two headers of one room.
        case duplicateMessageID(String, firstLine: Int)
        /// A prompt marker with more messages after it (a line-based merge of two appends).
        case strayPromptMarker
        /// A value in `vault.yml` that the tool cannot use.
        case invalidSetting(key: String, reason: String)
        /// Conflict markers a line-based `git merge` left (`<<<<<<<` … `=======` … `>>>>>>>`).
        case conflictMarkers
        /// A conflict copy another sync tool (or vault) made of the file named.
        case conflictCopy(of: String)
        /// The repository is in the middle of a `git merge` that was not finished.
        case unfinishedMerge
        /// A symbolic link in `rooms/` or `diary/` (or one of those folders itself): vault never
        /// reads, writes or commits through it. The text is where it points, as written.
        case symbolicLink(to: String, Link)
        /// A FIFO, a device or a socket where a room or an entry would be (what it is): vault
        /// never reads one.
        case notRegularFile(String)
        /// Two files whose names differ only in Unicode normalization (`부산.md` typed on a Mac
        /// and on Linux): they look like one file. The other's path.
        case lookAlikeName(of: String)
        /// A file in `volumes/` whose room (named) is not there, or a file there whose name is
        /// not a volume's (`0001.md`): nothing reads it as part of a room.
        case volumeWithoutRoom(String)
        case notAVolume
        /// A message id a room's volume holds that its file or another of its volumes holds too
        /// (the path named), as a pushed volume can: the room shows both.
        case messageInTwoFiles(String, other: String)
    }

    /// Where a symbolic link leads.
    public enum Link: Sendable, Hashable {
        /// To a file or folder outside the vault.
        case outside
        /// To a file or folder of the vault.
        case inside
        /// Round in a circle: to itself, to a folder above it, or through links that lead back.
        case loop
        /// To nothing.
        case missing
    }

    /// The file's path as the user should see it (relative to the vault when possible).
    public var path: String
    /// 1-based line number.
    public var line: Int
    public var kind: Kind

    public init(path: String, line: Int, kind: Kind) {
        self.path = path
        self.line = line
        self.kind = kind
    }

    public var severity: Severity {
        switch kind {
        case .duplicateMessageID, .strayPromptMarker, .conflictCopy, .lookAlikeName, .noDate, .unsettledConflict,
            .messageInTwoFiles:
            return .warning
        case .symbolicLink(_, let link): return link == .inside || link == .missing ? .warning : .error
        default: return .error
        }
    }

    /// What is wrong, without the place.
    public var message: String {
        switch kind {
        case .invalidUTF8:
            return "the file is not valid UTF-8 (save it as UTF-8 in your editor)"
        case .unclosedFrontMatter:
            return "the front-matter opened here with '---' is never closed (add a line '---' after the last key)"
        case .noOpeningFrontMatter:
            return "front-matter has no opening --- (add a line '---' above this one)"
        case .unsettledConflict(let id, let other, let firstLine):
            return "two versions of message \(id) (line \(firstLine) and this one, \(other)), edited differently on two"
                + " machines: keep one with `vault resolve ROOM --keep ID` (or both with --keep-both)"
        case .noDate:
            return "the entry has no date (diary list dates it by when it was first committed): give it one with"
                + " 'created: 2024-05-01' in its front-matter, or a name that starts with its date (2024-05-01-….md)"
        case .invalidYAML(let detail):
            return "the front-matter is not valid YAML: \(detail)"
        case .frontMatterNotMapping:
            return "the front-matter must be a list of 'key: value' lines"
        case .duplicateKey(let key, let firstLine):
            return "the front-matter key '\(key)' appears twice (first on line \(firstLine)); keep one"
        case .invalidDate(let key, let value):
            return "'\(key)' must be a date or a time, like 2026-11-21, 2026-11-21 09:30 or 2026-11-21T09:30:00+09:00,"
                + " not \"\(value)\""
        case .invalidHeader(let detail):
            return "the message header \(detail)"
        case .duplicateMessageID(let id, let firstLine):
            return "the message id \(id) is used twice (first on line \(firstLine)); give one of them a new id"
        case .messageInTwoFiles(let id, let other):
            return "the message id \(id) is in \(other) too, and the room shows both; keep one (delete the other"
                + " message, or give it a new id)"
        case .strayPromptMarker:
            return "a prompt marker ('<!-- vault:prompt … -->') stands before more messages; delete this line"
        case .invalidSetting(let key, let reason):
            return "'\(key)': \(reason)"
        case .conflictMarkers:
            return
                "git left conflict markers here (a merge made without vault's merge driver);"
                + " run `vault resolve`: it merges both sides and loses nothing"
        case .conflictCopy(let original):
            return
                "a conflict copy of \(original) (both sides changed the same lines, or another sync tool kept both);"
                + " keep what you want of it, then `vault resolve` merges it into \(original) and removes it"
        case .volumeWithoutRoom(let room):
            return "a volume of \(room), which is not there (renamed or removed by hand?):"
                + " no room shows its messages; move the folder to the room's new name, or remove it"
        case .notAVolume:
            return "not a volume (a volume's name is its number: 0001.md): no room shows it; move it out of volumes/"
        case .unfinishedMerge:
            return
                "the repository is in the middle of a git merge;"
                + " run `vault resolve` to finish it (both sides are kept), or `git merge --abort`"
        case .symbolicLink(let target, .outside):
            return "a symbolic link to \(target), outside the vault: vault never reads, writes or commits through it;"
                + " put the file itself here, or remove the link"
        case .symbolicLink(let target, .inside):
            return "a symbolic link to \(target): vault does not read or write through links, so it is not a room or an"
                + " entry; put the file itself here, or remove the link"
        case .symbolicLink(let target, .loop):
            return "a symbolic link that makes a loop (to \(target)): vault does not follow it; remove it"
        case .symbolicLink(let target, .missing):
            return "a symbolic link to \(target), which does not exist; remove it"
        case .notRegularFile(let kind):
            return "not a regular file (\(kind)); vault never reads it. Remove it, or put a file there"
        case .lookAlikeName(let other):
            let (these, those) = (VaultPath.normalization(of: path), VaultPath.normalization(of: other))
            return "\(path) (\(these)) and \(other) (\(those)) look like one name but are two files (its letters are"
                + " composed differently: typed on a Mac and on Linux); copy what you want to keep into one"
                + " and remove the other"
        }
    }

    public var description: String { "\(path):\(line): \(message)" }
}

/// What is wrong at the end of a room that was read from its end only (`vault rooms` reads
/// the last messages of a long room, not the whole file); `vault check` gives the line.
public enum RoomEndProblem: Sendable, Hashable {
    /// Bytes that are not UTF-8 near the end (or in the front-matter).
    case invalidUTF8
    /// Conflict markers a line-based `git merge` left.
    case conflictMarkers
    /// A message header near the end is invalid; the text says how.
    case brokenHeader(String)
}

/// Errors of the vault library: what went wrong, for the person at the terminal.
///
/// One type at the library's boundary (every throwing function says `throws(VaultError)`, and
/// `VaultHistory`, which VaultGit implements, throws it too), whose cases carry each layer's
/// own payload: format problems with file and line (`FormatProblem`), values the library
/// cannot use (`InputProblem`), git's failures (`RepositoryFailure`, raised by VaultGit),
/// the provider's and the editor's (`ProviderFailure`, `EditorFailure`), and broken invariants
/// (`InternalError`). The CLI gives each case its exit status in one place
/// (`VaultCLI/Errors/ExitStatus.swift`; README, "Exit status").
public enum VaultError: Error, Sendable, CustomStringConvertible {
    /// One or more files are malformed; nothing was written.
    case malformed([FormatProblem])
    /// The end of a room, read without the rest, is malformed; nothing was written.
    case malformedEnd(path: String, RoomEndProblem)
    /// No vault was found; the text says where vault looked.
    case notAVault(String)
    /// `vault init` on a folder that already is a vault.
    case alreadyAVault(String)
    /// The named room or diary entry does not exist.
    case itemNotFound(String, hint: String)
    /// A name matches several items.
    case ambiguousItem(String, candidates: [String])
    /// A value the library was given and cannot use; nothing was written.
    case input(InputProblem)
    /// A system call on a file failed.
    case io(path: String, operation: String, reason: String)
    /// Another `vault` process holds the vault's lock for too long.
    case locked(path: String, holder: String)
    /// The vault's git repository refused or failed.
    case repository(RepositoryFailure)
    /// The model's server gave no complete reply (what kind of failure, and its message);
    /// `kept` says whether the part of the reply that arrived was saved.
    case provider(ProviderFailure, kept: Bool)
    /// The editor could not be started, or failed; what it saved is kept.
    case editor(EditorFailure)
    /// The file changed on disk (saved in an editor) while vault was changing it; vault left
    /// the file as the other program wrote it.
    case changedOnDisk(path: String)
    /// The file, or a folder on its way, is a symbolic link (`path`, relative to the vault, to
    /// `target`): vault never writes through one or commits what it points to.
    case symbolicLink(path: String, target: String)
    /// Something from outside (a remote's commit, a cloned tree, a file placed by hand) that
    /// vault will not take; nothing was written.
    case untrusted(UntrustedInput)
    /// An export `vault import` cannot read (`ImportProblem`); nothing was written.
    case importing(ImportProblem)
    /// One of vault's own rules was broken (a bug); vault stopped before changing anything.
    case `internal`(InternalError)
    /// A workflow made commits of its own (`done`: what each did, one line each: a sync's
    /// repairs, its hand edits) and then stopped at `error`; what it committed stays.
    indirect case stoppedAfter(VaultError, done: [String])
    /// A change asked of a vault opened read-only (`VaultSession`, `Vault.readingOnly`);
    /// `operation` names it. Nothing was locked, written or committed.
    case readOnly(root: String, operation: String)
    /// The front end cancelled the workflow (`Cancellation`) during `step`; a change already
    /// begun was finished and committed first, and nothing after it was done.
    case cancelled(during: String)

    public var description: String {
        switch self {
        case .malformed(let problems):
            let errors = problems.filter { $0.severity == .error }
            let shown = errors.isEmpty ? problems : errors
            return shown.map(\.description).joined(separator: "\n") + "\nnothing was written."
        case .malformedEnd(let path, .invalidUTF8):
            return "\(path) is not valid UTF-8; run `vault check`"
        case .malformedEnd(let path, .conflictMarkers):
            return "\(path): git left conflict markers in this room; run `vault resolve`"
        case .malformedEnd(let path, .brokenHeader(let why)):
            return "\(path): a message header near the end \(why); run `vault check`"
        case .notAVault(let detail):
            return detail
        case .alreadyAVault(let path):
            return "\(path) is already a vault (it has vault.yml)"
        case .itemNotFound(let name, let hint):
            return "no room or diary entry matches '\(name)'. \(hint)"
        case .ambiguousItem(let name, let candidates):
            return "'\(name)' matches more than one item: \(candidates.joined(separator: ", ")). Give more of the name"
                + " or a path."
        case .input(let problem):
            return problem.description
        case .io(let path, let operation, let reason):
            return "cannot \(operation) \(path): \(reason)"
        case .locked(let path, let holder):
            return "another vault process (\(holder)) is still working on this vault; waited for its lock \(path)."
                + " Try again when it has finished."
        case .repository(let failure):
            return failure.description
        case .editor(let failure):
            return failure.description
        case .symbolicLink(let path, let target):
            return
                "\(path) is a symbolic link (to \(target)): vault never writes through a link or commits what it points"
                + " to, and changed nothing. Put the file or folder itself there, or remove the link."
        case .changedOnDisk(let path):
            return "\(path) changed on disk while vault was changing it (saved in an editor?): vault left it as it is"
                + " now and wrote nothing. Run the command again."
        case .provider(let failure, let kept):
            let retry = "`vault retry " + (failure.room ?? "ROOM") + "`"
            return failure.message
                + (kept
                    ? " (the part of the reply that arrived is saved, marked interrupted; \(retry) asks again)"
                    : " (your message is saved; \(retry) sends it again)")
        case .untrusted(let problem):
            return problem.description
        case .importing(let problem):
            return problem.description + "; nothing was imported"
        case .internal(let error):
            return error.description
        case .stoppedAfter(let error, let done):
            // Not "nothing was written": something was, and it is kept.
            var text = error.description
            let claims = ["\nnothing was written.", "; vault stopped before changing anything"]
            for claim in claims where text.hasSuffix(claim) {
                text.removeLast(claim.count)
            }
            return text + "\nbefore it stopped, vault committed (and kept): " + done.joined(separator: "; ")
        case .readOnly(let root, let operation):
            return "\(root) is open read-only: vault will not \(operation) (nothing was locked, written or committed)."
                + " Open it for change to do that"
        case .cancelled(let step):
            return "cancelled while \(step); what was committed before stays, nothing after it was done"
        }
    }
}

extension VaultError: LocalizedError {
    public var errorDescription: String? { description }
}
