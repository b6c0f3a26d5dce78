/// The editor a workflow opens a file in, given to it by the front end.
///
/// The workflows that hand a file to a person (`DiaryWriting` with no text, `Editing`) do
/// not know how: the command line runs `$VISUAL` or `$EDITOR` (its `Editor`) and waits for it; a test passes
/// a closure that changes the file itself. The workflow never holds the vault's lock while
/// the editor runs, and never writes over what the editor saved.
///
/// ```swift
/// let editor = TextEditor(name: "test") { path throws(VaultError) in
///     try FileIO.write(Array("---\ntitle: 첫눈\n---\n\n눈이 왔다.\n".utf8), to: path)
///     return .succeeded
/// }
/// ```
public struct TextEditor {
    /// How the editor ended.
    public enum Outcome: Sendable, Equatable {
        case succeeded
        /// It exited with a failure (`:cq` in vim, a crash); the text says how: `exit status 4`,
        /// `killed by signal 9`.
        case failed(String)
    }

    /// How messages name it: `vi`, `code --wait`.
    public var name: String
    /// Opens the file at an absolute path and returns when the person is done with it; throws
    /// only when the editor cannot be started. The file is then as the editor left it.
    public var open: (String) throws(VaultError) -> Outcome

    public init(name: String, open: @escaping (String) throws(VaultError) -> Outcome) {
        self.name = name
        self.open = open
    }
}
