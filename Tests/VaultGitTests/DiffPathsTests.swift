import Testing

@testable import VaultGit

/// `DiffPaths`: the quoted paths of a diff's header lines as text.
@Suite struct DiffPathsTests {
    @Test func koreanPathsAreDecodedAndOnlyInHeaderLines() {
        let quoted = #""a/rooms/\353\266\200\354\202\260.md""#
        let diff = """
            diff --git \(quoted) "b/rooms/\\353\\266\\200\\354\\202\\260.md"
            --- \(quoted)
            +++ "b/rooms/\\353\\266\\200\\354\\202\\260.md"
            @@ -1 +1 @@
            -"\\353"
            +x
            """
        let readable = DiffPaths.readable(diff)
        #expect(
            readable == """
                diff --git a/rooms/부산.md b/rooms/부산.md
                --- a/rooms/부산.md
                +++ b/rooms/부산.md
                @@ -1 +1 @@
                -"\\353"
                +x
                """)
    }

    @Test func controlCharactersQuotesAndBrokenUTF8StayQuoted() {
        for line in [
            #"--- "a/rooms/tab\there.md""#, #"--- "a/rooms/q\"uote.md""#, #"--- "a/rooms/\353\266.md""#,
            #"--- "a/rooms/unclosed.md"#, #"--- "a/rooms/\777.md""#,
        ] {
            #expect(DiffPaths.unquotingPaths(in: line) == line, "\(line)")
        }
        #expect(DiffPaths.readable("--- a/plain.md\n") == "--- a/plain.md\n")
    }
}
