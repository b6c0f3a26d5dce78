/// An export `vault import` cannot read: the file, the place in it (a JSON path, a line, a zip
/// member) and what is wrong. Nothing was written when one is thrown (without `--keep-going`).
///
///     ImportProblem(file: "conversations.json", place: "[12].mapping.a1b2.message", problem: "has no author")
///     // conversations.json, at [12].mapping.a1b2.message: has no author
public struct ImportProblem: Sendable, Hashable, CustomStringConvertible {
    /// The file as the person named it (or the zip and its member: `export.zip:conversations.json`).
    public var file: String
    /// Where in the file: a JSON path (`[12].mapping.a1b2`), `line 40`, a byte offset; "" for the whole file.
    public var place: String
    /// What is wrong, for the person (`is not valid JSON: a string is not closed`).
    public var problem: String

    public init(file: String, place: String = "", problem: String) {
        self.file = file
        self.place = place
        self.problem = problem
    }

    public var description: String {
        place.isEmpty ? "\(file): \(problem)" : "\(file), at \(place): \(problem)"
    }
}
