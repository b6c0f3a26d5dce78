import Foundation

/// The person's editor (`$VISUAL`, `$EDITOR`) could not be started, or failed (`:cq`, a crash)
/// while a diary entry or a room was open in it.
///
/// What the editor saved is never lost: it is kept (and committed when the vault keeps
/// history) before this is thrown, and the message says what became of it.
///
///     throw VaultError.editor(.savedNothing(editor: "vim", how: "exit status 1", path: "diary/2026/x.md"))
///     // the editor 'vim' failed (exit status 1) and saved nothing: diary/2026/x.md is unchanged, …
public enum EditorFailure: Sendable, Hashable, CustomStringConvertible {
    /// The editor's command could not be run.
    case notStarted(command: String, reason: String)
    /// Writing a new entry, the editor failed and removed the draft: no entry was made.
    case removedDraft(editor: String, how: String, path: String)
    /// Writing a new entry, the editor failed and left the draft empty: no entry was made.
    case leftDraftEmpty(editor: String, how: String)
    /// The editor failed after saving something; it is kept (`committed`: and committed).
    /// `showsDiff`: the file existed before, so `vault diff` shows the change.
    case keptWhatItSaved(editor: String, how: String, path: String, committed: Bool, showsDiff: Bool)
    /// Editing a file, the editor failed and removed it; the removal is kept (`committed`: and
    /// committed), and `vault restore` brings the file back.
    case removedFile(editor: String, how: String, path: String, committed: Bool)
    /// Editing a file, the editor failed and saved nothing: the file is as it was.
    case savedNothing(editor: String, how: String, path: String)

    public var description: String {
        switch self {
        case .notStarted(let command, let reason):
            return "cannot start the editor '\(command)': \(reason)"
        case .removedDraft(let editor, let how, let path):
            return "the editor '\(editor)' failed (\(how)) and removed \(path): no entry was made"
        case .leftDraftEmpty(let editor, let how):
            return "the editor '\(editor)' failed (\(how)) and saved nothing: no entry was made"
        case .keptWhatItSaved(let editor, let how, let path, let committed, let showsDiff):
            return "the editor '\(editor)' failed (\(how)); what it saved in \(path) is kept"
                + (committed ? " and committed" : "") + (showsDiff ? " (`vault diff \(path) HEAD~1` shows the change)" : "")
        case .removedFile(let editor, let how, let path, let committed):
            return "the editor '\(editor)' failed (\(how)), and "
                + EditorFailure.removal(of: path, committed: committed)
        case .savedNothing(let editor, let how, let path):
            return "the editor '\(editor)' failed (\(how)) and saved nothing: \(path) is unchanged, nothing was committed"
        }
    }

    /// What became of a file removed in the editor: "… was removed in the editor; the removal is kept …".
    public static func removal(of path: String, committed: Bool) -> String {
        "\(path) was removed in the editor; the removal is kept\(committed ? " and committed" : "")"
            + " (`vault restore \(path)` brings it back)"
    }
}
