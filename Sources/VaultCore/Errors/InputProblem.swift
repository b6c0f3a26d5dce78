import Foundation

/// A value the library was given and cannot use: a date it cannot read, a name that names
/// nothing it can work on, a setting it cannot write, a remote that does not exist.
///
/// The library does not know whether the value came from the command line, `vault.yml` or
/// another front end; the message says what is wrong with it and what would be right.
/// Nothing is written when one is thrown. What only the command line checks (options that
/// do not go together, an unknown `--format`) is the CLI's `UsageError` instead.
///
///     throw VaultError.input(.unreadableDate("someday"))
///     // cannot read the date 'someday': write 2026-11-21, 2026-11-21T09:30, today, …
public enum InputProblem: Sendable, Hashable, CustomStringConvertible {
    // Names and dates.

    /// An empty name where a room or a diary entry was expected.
    case emptyName
    /// The name resolved to a diary entry (its path) where a room was expected.
    case notARoom(String)
    /// `vault resolve ROOM --keep ID` of a room with no message in two versions.
    case noConflictToSettle(path: String)
    /// `--keep ID` names no version of a message in conflict; the versions there are.
    case notAConflictVersion(String, path: String, versions: [String])
    /// A date that is not `2026-11-21`, `2026-11-21T09:30`, `today`, `yesterday` or `-N`.
    case unreadableDate(String)
    /// A month that is not `2026-11`, `11` (this year) or nothing (this month).
    case unreadableMonth(String)
    /// A revision (`HEAD~2`, a commit id) that names no commit of the vault's history.
    case unknownRevision(String)
    /// A room was named where a diary entry was expected (its path).
    case notADiaryEntry(String)

    // Writing.

    /// A blank room title.
    case emptyTitle
    /// `vault room new --unique`: the title's file name is taken (`taken`); without `--unique`
    /// the room would be made at `free`.
    case roomNameTaken(taken: String, free: String)
    /// A blank diary entry.
    case emptyEntry
    /// `vault write` read the entry's text from standard input (a pipe, a file, `/dev/null`)
    /// and got none.
    case emptyStandardInput
    /// What was piped in (`what`: "text", "message") is not UTF-8.
    case standardInputNotUTF8(what: String)
    /// A tag that is blank or holds a comma.
    case notATag(String)
    /// An edit of an entry's text (`EntryEditing`) that finds nothing to do: the path, and why.
    case editNotApplicable(path: String, why: String)
    /// `vault chat` with no message given, piped or typed below the room's prompt marker.
    case nothingToSend(room: String)
    /// `vault retry` in a room whose last message has its reply.
    case nothingToRetry(room: String)
    /// `vault say` with a blank message and nothing attached.
    case emptyMessage(room: String)
    /// `--reply-to`: the room holds no message with that id.
    case noSuchMessage(id: String, room: String)
    /// `vault say ROOM "@assistant …" --reply-to ID`: a message to the model is not a reply.
    case replyAsksModel
    /// A name (`--with`) that is no one of `people:` in vault.yml (`known`: those listed).
    case unknownPerson(String, known: [String])
    /// A name that starts several people's names.
    case ambiguousPerson(String, matches: [String])

    // Restoring.

    /// The file (a path) did not exist at the revision given.
    case absentAt(path: String, revision: String)
    /// The file exists, and no revision was given to bring back.
    case restoreNeedsRevision(path: String)
    /// The file is already as it was at the revision (its short id).
    case alreadyAsAt(path: String, revision: String)
    /// A deleted room lives on under another name (renamed elsewhere, then removed here):
    /// restoring it would put every message in two rooms.
    case livesOnAs(path: String, other: String)

    // Front-matter.

    /// A front-matter key vault cannot write (empty, or with `:`, `#`, spaces or YAML syntax).
    case invalidKey(String)
    /// The key is in the file's front-matter in a form vault does not rewrite (a block,
    /// a flow mapping): it is left for a person to edit.
    case keyNotRewritable(path: String, key: String)
    /// The value would not read back as given once written; the file is left as it was.
    case valueNotWritable(path: String, key: String)
    /// `vault room set` with a key it does not store (`RoomSetting.all`); `nearest`: the known key
    /// the name is probably a typo of.
    case unknownSetting(String, nearest: String?)
    /// A room setting's value of the wrong type or out of range; `expected` says what to write.
    case invalidSettingValue(key: String, value: String, expected: String)

    // Chat.

    /// The provider a room or `--provider` names has no entry under `providers:` in `vault.yml`.
    case unknownProvider(String)
    /// The provider's `base_url` is missing, or not a plain `http(s)://host/path` URL.
    case unusableBaseURL(provider: String)
    /// Neither `--model`, the room, `vault.yml` nor the user configuration (`userConfig`, its
    /// path) names a model for the provider; `room` as a command names it, when known.
    case noModel(provider: String, room: String?, userConfig: String)

    // Search.

    /// An empty search pattern.
    case emptyPattern
    /// A regular expression with a syntax error, where it is: `position` (1-based, in
    /// characters) and `column` (in columns on the terminal, for the caret).
    case invalidRegex(pattern: String, position: Int, column: Int, reason: String)
    /// A regular expression that ICU rejected without saying where.
    case rejectedRegex(String)
    /// The search index's folder is inside the vault (a cache must not be synced with it).
    case indexInsideVault(index: String, vault: String)

    // Remotes and sync.

    /// `vault sync NAME` names no remote; `known` are those there are.
    case unknownRemote(String, known: [String])
    /// `vault remote remove NAME` names no remote.
    case noRemoteToRemove(String)
    /// `vault sync` with no remote set up.
    case noRemote
    /// `vault sync` with several remotes and none named.
    case severalRemotes([String])
    /// A remote name with characters other than letters, digits, `-` and `_`.
    case invalidRemoteName(String)
    /// `vault remote add NAME` where NAME is taken.
    case remoteExists(String)
    /// `vault sync --undo` with no sync to undo (none was made, or it was undone already).
    case noSyncToUndo
    /// `vault sync --undo` after commits were made on top of the sync (its short id):
    /// undoing it would drop them.
    case commitsAfterSync(String)
    /// `vault sync REMOTE` where the remote's branch is not this vault's: `why` says how (its
    /// history has no commit in common with ours, it has no `vault.yml`). Refused before
    /// anything is merged or sent, unless `--allow-unrelated`.
    case remoteNotThisVault(remote: String, branch: String, why: String)
    /// `vault clone URL DIR` where DIR exists and is not an empty folder.
    case cloneTargetNotEmpty(String)
    /// The folder a clone would be made in is not a folder.
    case notAFolder(String)

    public var description: String {
        switch self {
        case .emptyName:
            return "name a room or a diary entry"
        case .notARoom(let path):
            return "\(path) is a diary entry, not a room"
        case .noConflictToSettle(let path):
            return "\(path) has no message in two versions: there is nothing to settle"
        case .notAConflictVersion(let id, let path, let versions):
            return "'\(id)' is no version of a message in conflict in \(path); the versions are "
                + versions.joined(separator: ", ") + " (`vault show` marks them)"
        case .unreadableDate(let text):
            return "cannot read the date '\(text)': write 2026-11-21, 2026-11-21T09:30, today, yesterday or -3"
                + " (three days ago)"
        case .unreadableMonth(let text):
            return "cannot read the month '\(text)': write 2026-11, 11 (this year) or nothing (this month)"
        case .unknownRevision(let revision):
            return "no revision '\(revision)' in the history (`vault log` lists them)"
        case .notADiaryEntry(let path):
            return "\(path) is a room; tags belong to diary entries"
        case .emptyTitle:
            return "give the room a title"
        case .roomNameTaken(let taken, let free):
            return "\(taken) already has that title's name: give another title, or leave out --unique to make \(free)"
        case .emptyEntry:
            return "the entry is empty: nothing was written"
        case .emptyStandardInput:
            return "standard input held no text for the entry: nothing was written. Pipe the text in, give it with"
                + " --body TEXT, or add --editor to write it in your editor"
        case .standardInputNotUTF8(let what):
            return "the \(what) on standard input is not UTF-8"
        case .notATag(let tag):
            return "'\(tag)' is not a tag"
        case .editNotApplicable(let path, let why):
            return "\(path) was not changed: \(why)"
        case .nothingToSend(let room):
            return "nothing to send: give a message (`vault chat \(VaultPath.commandName(of: room)) \"…\"`), pipe one"
                + " in, or type it below the prompt marker at the end of \(room)"
        case .nothingToRetry(let room):
            return "nothing to retry in \(room): its last message has a reply. Send a new one with"
                + " `vault chat \(VaultPath.commandName(of: room)) \"…\"`."
        case .emptyMessage(let room):
            return "the message is empty: nothing was written to \(room)"
        case .noSuchMessage(let id, let room):
            return "\(room) holds no message '\(id)' to reply to (`vault show \(VaultPath.commandName(of: room)) --raw`"
                + " shows the ids)"
        case .replyAsksModel:
            return "a message to the model (@assistant …) cannot be a reply (--reply-to): leave out one of them"
        case .unknownPerson(let name, let known):
            if known.isEmpty {
                return "'\(name)' is not one of the vault's people: vault.yml lists none. Add them under `people:`"
                    + " (`- Ada Kim <ada@example.com>`, one a line), and sync"
            }
            return "'\(name)' is not one of the vault's people (\(known.joined(separator: ", "))): add them under"
                + " `people:` in vault.yml"
        case .ambiguousPerson(let name, let matches):
            return "'\(name)' could be \(matches.joined(separator: " or ")): write more of the name"
        case .absentAt(let path, let revision):
            return "\(path) did not exist at \(revision) (`vault log \(path)` shows its history)"
        case .restoreNeedsRevision(let path):
            return "\(path) exists; say which version to bring back with --at REV (`vault log \(path)` lists them)"
        case .alreadyAsAt(let path, let revision):
            return "\(path) is already as it was at \(revision); nothing to restore"
        case .livesOnAs(let path, let other):
            return "\(path) lives on as \(other) (renamed elsewhere, with the same messages): `vault show"
                + " \(VaultPath.commandName(of: other))` shows it; to bring \(path) back all the same, as a second"
                + " room with every message of it twice, run `vault restore \(VaultPath.commandName(of: path))"
                + " --anyway`"
        case .invalidKey(let key):
            return "'\(key)' cannot be a front-matter key"
        case .keyNotRewritable(let path, let key):
            return "\(path): the key '\(key)' is written in a form the tool does not change; edit it by hand"
        case .valueNotWritable(let path, let key):
            return "\(path): the value for '\(key)' cannot be written safely; edit it by hand"
        case .unknownSetting(let key, let nearest):
            let guess = nearest.map { " Did you mean '\($0)'?" } ?? ""
            return "'\(key)' is not a room setting.\(guess) The settings are "
                + RoomSetting.all.map(\.key).joined(separator: ", ") + "."
        case .invalidSettingValue(let key, let value, let expected):
            return "'\(value)' is not a value for \(key): \(expected)"
        case .unknownProvider(let name):
            return "the provider '\(name)' is not configured: add it under `providers:` in vault.yml (base_url, model,"
                + " api_key_env), or use --provider offline"
        case .unusableBaseURL(let name):
            return "the provider '\(name)' has no usable base_url in vault.yml (write one like https://host/v1, without"
                + " a user name, password, query or fragment)"
        case .noModel(let name, let room, let userConfig):
            return "no model for provider '\(name)': name one for this room with `vault room set \(room ?? "ROOM") model"
                + " MODEL` (/model MODEL at the chat prompt), or for every room with `model: MODEL` in \(userConfig)"
                + " (or in vault.yml); --model MODEL names one for one turn"
        case .emptyPattern:
            return "give a pattern to search for"
        case .invalidRegex(let pattern, let position, let column, let reason):
            return "invalid regular expression at position \(position): \(reason)\n"
                + "  \(pattern)\n  \(String(repeating: " ", count: column))^"
        case .rejectedRegex(let pattern):
            return "invalid regular expression: \(pattern)"
                + " (ICU's syntax: https://unicode-org.github.io/icu/userguide/strings/regexp.html)"
        case .indexInsideVault(let index, let vault):
            return "the search index \(index) would be inside the vault (\(vault)); the index is a cache and"
                + " lives outside it: unset the index path, or set XDG_CACHE_HOME to a folder outside the vault"
        case .unknownRemote(let name, let known):
            let others = known.isEmpty ? "" : " (there is: \(known.joined(separator: ", ")))"
            return "there is no remote named '\(name)'\(others). Add one with `vault remote add \(name) URL`."
        case .noRemoteToRemove(let name):
            return "there is no remote named '\(name)'"
        case .noRemote:
            return "the vault has no remote to sync with. Add one: `vault remote add origin URL` (a bare repository"
                + " on a server, a USB disk, GitHub, Gitea)."
        case .severalRemotes(let names):
            return "the vault has several remotes (\(names.joined(separator: ", "))): name one, `vault sync NAME`."
        case .invalidRemoteName(let name):
            return "'\(name)' cannot name a remote (use letters, digits, - and _)"
        case .remoteExists(let name):
            return "there is already a remote named '\(name)' (`vault remote remove \(name)` first)"
        case .noSyncToUndo:
            return "there is no sync to undo (none was made, or it was undone already)."
        case .commitsAfterSync(let sync):
            return "commits were made after the last sync (HEAD is no longer the sync's \(sync)); undoing it would"
                + " drop them. Bring single items back with `vault restore ITEM --at REV` instead."
        case .remoteNotThisVault(let remote, let branch, let why):
            return "\(remote)/\(branch) is not this vault: \(why). Nothing was merged or sent. Check the remote's"
                + " URL (`vault remote`); to merge it into the vault all the same, run"
                + " `vault sync \(remote) --allow-unrelated`."
        case .cloneTargetNotEmpty(let root):
            return "\(root) already exists and is not an empty folder; name another folder."
        case .notAFolder(let path):
            return "\(path) is not a folder"
        }
    }
}
