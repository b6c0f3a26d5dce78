/// Room files that several test targets feed to vault.
public enum Fixtures {
    /// A room titled `title` whose one message git left with conflict markers in it (line 9 is
    /// `<<<<<<< HEAD`): this machine's side says "ours line", the other's "theirs line".
    public static func roomWithConflictMarkers(title: String) -> String {
        """
        ---
        title: \(title)
        created: 2026-09-08T22:40:12+09:00
        ---

        ## 🧑 user · 2026-09-08 22:41 <!-- 2026-09-08T22:41:30+09:00 m-57YHMDWECGV6 -->

        hello
        <<<<<<< HEAD
        ours line
        =======
        theirs line
        >>>>>>> origin/main

        """
    }
}
