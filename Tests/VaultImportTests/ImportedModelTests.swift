import Testing
import VaultCore
import VaultImport

@Suite struct ImportedModelTests {
    @Test func everySourceHasItsCommandLineName() {
        #expect(ImportSource.allCases.map(\.rawValue) == ["chatgpt", "claude", "claude-code", "llm", "jrnl", "dayone"])
        #expect(ImportSource(rawValue: "claude-code") == .claudeCode)
    }

    @Test func aProblemNamesTheFileAndThePlace() {
        let problem = ImportProblem(file: "conversations.json", place: "[12].mapping.a1b2", problem: "has no author")
        #expect(problem.description == "conversations.json, at [12].mapping.a1b2: has no author")
        #expect(VaultError.importing(problem).description.hasSuffix("; nothing was imported"))
    }
}
