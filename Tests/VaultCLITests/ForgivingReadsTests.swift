import Foundation
import Testing
import VaultTestSupport

/// Issue 27: a broken file is reported and still readable, one error format (usage errors
/// too), one exit table, hints that work as printed, restore over a hand edit, check of named
/// files. Each through the built `vault`: the exact message, the status, and no file changed
/// where nothing should.
@Suite struct ForgivingReadsTests {
    /// Runs `arguments`, and checks the status, that standard error is exactly `stderr`, and that
    /// no file (the repository's included) changed.
    func expectExactly(
        _ arguments: [String], in vault: TemporaryDirectory, status: Int32, stderr: String, stdin: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let before = try vault.snapshot()
        let r = try runVault(arguments, in: vault.path, stdin: stdin)
        #expect(r.status == status, "\(arguments): status \(r.status); \(r.stderr)", sourceLocation: sourceLocation)
        #expect(r.stderr == stderr, "\(arguments)", sourceLocation: sourceLocation)
        expectUnchanged(before, try vault.snapshot(), sourceLocation: sourceLocation)
    }

    // MARK: 1. Front-matter without its opening ---

    /// An entry whose first line `---` was deleted: `check` names it at line 1, `show` shows it,
    /// `diary list` lists it under its title; `tag` refuses to rewrite it.
    @Test func anEntryThatLostItsOpeningDashesIsReportedShownAndListed() throws {
        let vault = try freshVault()
        expectSuccess(try runVault(["write", "Day one", "--date", "2026-11-20", "--body", "hello body"], in: vault.path))
        let path = "diary/2026/2026-11-20-day-one.md"
        let text = try vault.readText(path)
        try #require(text.hasPrefix("---\n"))
        try vault.write(path, String(text.dropFirst(4)))
        _ = try git(["commit", "-qam", "lost the dashes"], in: vault.path)
        let before = try vault.snapshot()

        let check = try runVault(["check"], in: vault.path)
        #expect(check.status == 1)
        #expect(
            check.stdout == "\(path):1: front-matter has no opening --- (add a line '---' above this one)\n"
                + "1 file checked, 1 problem.\n", "\(check.stdout)")
        #expect(check.stderr.isEmpty)

        let show = try runVault(["show", "2026-11-20"], in: vault.path)
        expectSuccess(show)
        #expect(show.stdout == "# Friday, November 20, 2026\n\(path) · Day one\n\nhello body\n", "\(show.stdout)")
        #expect(show.stderr.isEmpty, "\(show.stderr)")

        let list = try runVault(["diary", "list"], in: vault.path)
        expectSuccess(list)
        #expect(list.stdout.contains("Day one"), "\(list.stdout)")
        #expect(!list.stdout.contains("id: d-"), "\(list.stdout)")

        let tag = try runVault(["tag", "2026-11-20", "+x"], in: vault.path)
        #expect(tag.status == 1)
        #expect(
            tag.stderr == "vault: error: \(path):1: front-matter has no opening --- (add a line '---' above this one)\n"
                + "  nothing was written.\n", "\(tag.stderr)")
        expectUnchanged(before, try vault.snapshot())
    }

    /// A room likewise: reported, shown with its title, listed; and a diary entry that merely
    /// starts with `Mood: good` above a `---` rule is no front-matter at all.
    @Test func aRoomThatLostItsOpeningDashesIsReportedAndShown() throws {
        let vault = try freshVault()
        expectSuccess(try runVault(["room", "new", "Plans"], in: vault.path))
        let text = try vault.readText("rooms/plans.md")
        try vault.write("rooms/plans.md", String(text.dropFirst(4)))
        try vault.write("diary/2026/2026-11-21-mood.md", "Mood: good\n---\nA walk.\n")
        _ = try git(["add", "-A"], in: vault.path)
        _ = try git(["commit", "-qm", "by hand"], in: vault.path)
        let before = try vault.snapshot()
        let check = try runVault(["check"], in: vault.path)
        #expect(check.status == 1)
        #expect(
            check.stdout == "rooms/plans.md:1: front-matter has no opening --- (add a line '---' above this one)\n"
                + "2 files checked, 1 problem.\n", "\(check.stdout)")
        let show = try runVault(["show", "plans"], in: vault.path)
        expectSuccess(show)
        #expect(show.stdout.hasPrefix("# Plans\nrooms/plans.md\n"), "\(show.stdout)")
        let rooms = try runVault(["rooms"], in: vault.path)
        expectSuccess(rooms)
        #expect(rooms.stdout.contains("Plans"), "\(rooms.stdout)")
        expectUnchanged(before, try vault.snapshot())
    }

    // MARK: 2. One bad timestamp

    static let brokenRoom = """
        ---
        title: broken
        ---

        ## 🧑 user · d <!-- 2026-11-20T09:00:00+09:00 m-ABCDEFGHJKMA -->

        hi

        ## 🤖 assistant · d <!-- 2026-02-30T09:00:00+09:00 m-ABCDEFGHJKMN -->

        hello there

        \(promptMarker)

        """

    static let brokenWarning =
        "rooms/broken.md:9: the message header has an invalid timestamp \"2026-02-30T09:00:00+09:00\" (write RFC 3339"
        + " with an offset, like 2026-11-21T09:31:07+09:00)"

    /// `show` and `export` show what they can: the line with the bad timestamp is text, marked,
    /// with a warning on standard error, and status 0. `chat`, which would write, still refuses.
    @Test func aBadTimestampIsShownAsMarkedTextWithAWarning() throws {
        let vault = try freshVault()
        try vault.write("rooms/broken.md", Self.brokenRoom)
        _ = try git(["add", "-A"], in: vault.path)
        _ = try git(["commit", "-qm", "by hand"], in: vault.path)
        let before = try vault.snapshot()

        let show = try runVault(["show", "broken"], in: vault.path)
        #expect(show.status == 0, "\(show.stderr)")
        #expect(
            show.stderr == "vault: warning: \(Self.brokenWarning); shown as text, marked ⚠️ (the rest of the room is"
                + " read as usual)\n", "\(show.stderr)")
        #expect(
            show.stdout.hasSuffix(
                "hi\n\n⚠️ line 9: ## 🤖 assistant · d <!-- 2026-02-30T09:00:00+09:00 m-ABCDEFGHJKMN -->\n\nhello there\n"),
            "\(show.stdout)")

        let export = try runVault(["export", "broken"], in: vault.path)
        #expect(export.status == 0, "\(export.stderr)")
        #expect(
            export.stderr == "vault: warning: \(Self.brokenWarning); exported as text, marked ⚠️ (the rest of the room"
                + " is read as usual)\n", "\(export.stderr)")
        #expect(
            export.stdout.contains(
                "hi\n\n> ⚠️ line 9: the message header has an invalid timestamp \"2026-02-30T09:00:00+09:00\" (write"
                    + " RFC 3339 with an offset, like 2026-11-21T09:31:07+09:00); kept as text: \\#\\# 🤖 assistant ·"
                    + " d \\<\\!-- 2026-02-30T09:00:00+09:00 m-ABCDEFGHJKMN --\\>\n\nhello there\n"),
            "\(export.stdout)")

        let chat = try runVault(["chat", "broken", "more"], in: vault.path)
        #expect(chat.status == 1)
        #expect(chat.stderr == "vault: error: \(Self.brokenWarning)\n  nothing was written.\n", "\(chat.stderr)")
        expectUnchanged(before, try vault.snapshot())
    }

    // MARK: 3. One error format

    @Test func usageErrorsAreOneLineAndOneHint() throws {
        let vault = try freshVault()
        let chatUsage =
            "usage: vault chat [--vault <DIR>] <room> [<message>] [--provider <provider>] [--model <model>]"
            + " [--attach <attach> ...]"
        try expectExactly(
            ["chat"], in: vault, status: 64,
            stderr: "vault: error: missing <room> (the room: a path, its slug, or the start of its title)\n"
                + "  \(chatUsage)\n")
        try expectExactly(
            ["shwo", "x"], in: vault, status: 64,
            stderr: "vault: error: 'shwo' is not a command of `vault`\n  did you mean `vault show`?\n")
        try expectExactly(
            ["room", "list"], in: vault, status: 64,
            stderr: "vault: error: 'list' is not a command of `vault room`\n  `vault rooms` lists the rooms\n")
        try expectExactly(
            ["rooms", "--bogus"], in: vault, status: 64,
            stderr: "vault: error: unknown option '--bogus'\n  `vault rooms --help` says what it takes\n")
        try expectExactly(
            ["zzzzzz"], in: vault, status: 64,
            stderr: "vault: error: 'zzzzzz' is not a command of `vault`\n  `vault --help` lists its commands\n")
        // Every hint printed works as printed.
        expectSuccess(try runVault(["rooms"], in: vault.path))
        expectSuccess(try runVault(["rooms", "--help"], in: vault.path))
        expectSuccess(try runVault(["--help"], in: vault.path))
    }

    /// The commands of the command table (docs/commands.md, which README.md points to), as typed
    /// (`["room", "set"]`): the words after `vault` up to the first placeholder or option.
    static func readmeCommands() throws -> [[String]] {
        let readme = try String(contentsOfFile: Project.root + "/docs/commands.md", encoding: .utf8)
        var commands: [[String]] = []
        for line in readme.split(separator: "\n") where line.hasPrefix("| `vault ") {
            let usage = line.dropFirst(3).prefix { $0 != "`" }
            let words = usage.split(separator: " ").dropFirst().prefix { word in
                word.allSatisfy { $0.isLowercase || $0 == "-" } && word.first?.isLetter == true
            }
            if !words.isEmpty, !commands.contains(words.map(String.init)) { commands.append(words.map(String.init)) }
        }
        return commands
    }

    /// Every command of the README's table answers a wrong command line in the one format:
    /// status 64, `vault: error: …` and one hint line, nothing changed; the `--help` a hint
    /// names works.
    @Test func everyCommandOfTheReadmeGivesUsageErrorsInOneFormat() throws {
        let vault = try freshVault()
        let commands = try Self.readmeCommands()
        #expect(commands.count >= 25, "\(commands)")
        let before = try vault.snapshot()
        for command in commands {
            let r = try runVault(command + ["--bogus"], in: vault.path, stdin: "")
            #expect(r.status == 64, "\(command): \(r.status) \(r.stderr)")
            let lines = r.stderr.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.count == 3 && lines[2].isEmpty, "\(command): \(r.stderr)")
            #expect(lines.first?.hasPrefix("vault: error: ") == true, "\(command): \(r.stderr)")
            #expect(lines.dropFirst().first?.hasPrefix("  ") == true, "\(command): \(r.stderr)")
            #expect(!r.stderr.contains("Error:") && !r.stderr.contains("See '"), "\(command): \(r.stderr)")
            if let help = r.stderr.firstMatch(of: /`(vault [^`]* --help)`/)?.output.1 {
                let words = help.split(separator: " ").dropFirst().map(String.init)
                expectSuccess(try runVault(words, in: vault.path))
            }
        }
        expectUnchanged(before, try vault.snapshot())
    }

    /// A command that only reads does not say "nothing was written." after a malformed file;
    /// one that would write does.
    @Test func readingCommandsDoNotSayNothingWasWritten() throws {
        let vault = try freshVault()
        try vault.write("rooms/twice.md", "---\ntitle: a\ntitle: b\n---\n\n\(promptMarker)\n")
        let problem = "rooms/twice.md:3: the front-matter key 'title' appears twice (first on line 2); keep one"
        try expectExactly(["show", "twice"], in: vault, status: 1, stderr: "vault: error: \(problem)\n")
        try expectExactly(["export", "twice"], in: vault, status: 1, stderr: "vault: error: \(problem)\n")
        try expectExactly(
            ["room", "set", "twice", "model", "m"], in: vault, status: 1,
            stderr: "vault: error: \(problem)\n  nothing was written.\n")
    }

    // MARK: 4. Exit statuses

    /// README's row for 64: "a value an option does not take", whichever command it is given to.
    @Test func aValueAnOptionDoesNotTakeIs64InEveryCommand() throws {
        let vault = try freshVault()
        expectSuccess(try runVault(["room", "new", "Plans"], in: vault.path))
        let unreadableDay = { (text: String) in
            "vault: error: cannot read the date '\(text)': write 2026-11-21, 2026-11-21T09:30, today, yesterday or -3"
                + " (three days ago)\n"
        }
        try expectExactly(["write", "t", "--date", "2026-02-30", "--body", "x"], in: vault, status: 64,
            stderr: unreadableDay("2026-02-30"))
        try expectExactly(["diary", "list", "--since", "bad"], in: vault, status: 64, stderr: unreadableDay("bad"))
        try expectExactly(
            ["export", "--diary", "--since", "bad"], in: vault, status: 64, stderr: unreadableDay("bad"))
        try expectExactly(
            ["diary", "calendar", "13"], in: vault, status: 64,
            stderr: "vault: error: cannot read the month '13': write 2026-11, 11 (this year) or nothing (this month)\n")
        try expectExactly(
            ["search", "x", "--since", "bad"], in: vault, status: 64,
            stderr: "vault: error: --since 'bad' is not a day: write 2026-11-21, 2026-11-21T22:30, today, yesterday"
                + " or -N\n")
        try expectExactly(["search", "x", "--role", "robot"], in: vault, status: 64,
            stderr: "vault: error: unknown role 'robot': use user, assistant or system\n")
        try expectExactly(["search", "x", "--color", "sometimes"], in: vault, status: 64,
            stderr: "vault: error: --color takes auto, always or never, not 'sometimes'\n")
        for command in [["rooms"], ["show", "plans"], ["diary", "list"], ["log"]] {
            try expectExactly(command + ["--locale", "xx_YY"], in: vault, status: 64,
                stderr: "vault: error: unknown locale 'xx_YY' (try ko_KR, ja_JP, de_DE, en_US)\n")
            try expectExactly(command + ["--color", "sometimes"], in: vault, status: 64,
                stderr: "vault: error: --color takes auto, always or never, not 'sometimes'\n")
        }
        // grep's 2 stays for the pattern; a room that is not there is "not done", 1.
        let pattern = try runVault(["search", "--regex", "("], in: vault.path)
        #expect(pattern.status == 2, "\(pattern.stderr)")
        try expectExactly(["search", "x", "--room", "nowhere"], in: vault, status: 1,
            stderr: "vault: error: no room or diary entry matches 'nowhere'. `vault rooms` and `vault diary list` show"
                + " what there is.\n")
    }

    // MARK: 6. Hints that work as printed

    /// `vault retry` with nothing to retry names the room in the command it suggests, which works.
    @Test func theNothingToRetryHintNamesTheRoom() throws {
        let vault = try freshVault()
        expectSuccess(try runVault(["room", "new", "Plans"], in: vault.path))
        try expectExactly(
            ["retry", "plans"], in: vault, status: 1,
            stderr: "vault: error: nothing to retry in rooms/plans.md: its last message has a reply. Send a new one"
                + " with `vault chat plans \"…\"`.\n")
        expectSuccess(try runVault(["chat", "plans", "…"], in: vault.path))
    }

    // MARK: 9. restore over a hand edit; check of named files

    @Test func restoreBringsBackTheLastCommitAndKeepsTheHandEdit() throws {
        let vault = try freshVault()
        expectSuccess(try runVault(["room", "new", "Plans"], in: vault.path))
        let committed = try vault.readText("rooms/plans.md")
        let edited = committed + "a line typed by hand\n"
        try vault.write("rooms/plans.md", edited)
        let r = try runVault(["restore", "plans"], in: vault.path)
        expectSuccess(r)
        let head = String(try git(["rev-parse", "--short=7", "HEAD~2"], in: vault.path).prefix(7))
        let edit = String(try git(["rev-parse", "--short=7", "HEAD~1"], in: vault.path).prefix(7))
        #expect(
            r.stdout == "Restored rooms/plans.md as of \(head).\nYour hand edit is kept in commit \(edit):"
                + " `vault restore plans --at \(edit)` brings it back.\n", "\(r.stdout)")
        #expect(try vault.readText("rooms/plans.md") == committed)
        let subjects = try git(["log", "--format=%s", "-2"], in: vault.path)
        #expect(subjects == "restore: rooms/plans.md (as of \(head))\nedit: rooms/plans.md\n", "\(subjects)")
        #expect(try git(["status", "--porcelain"], in: vault.path).isEmpty)
        // The hint works as printed.
        expectSuccess(try runVault(["restore", "plans", "--at", edit], in: vault.path))
        #expect(try vault.readText("rooms/plans.md") == edited)
        // Without a hand edit there is nothing to bring back: refused, nothing changed.
        try expectExactly(
            ["restore", "plans"], in: vault, status: 1,
            stderr: "vault: error: rooms/plans.md exists; say which version to bring back with --at REV (`vault log"
                + " rooms/plans.md` lists them)\n")
    }

    @Test func checkOfNamedFilesChecksOnlyThem() throws {
        let vault = try freshVault()
        expectSuccess(try runVault(["room", "new", "Plans"], in: vault.path))
        try vault.write("rooms/twice.md", "---\ntitle: a\ntitle: b\n---\n\n\(promptMarker)\n")
        let before = try vault.snapshot()
        let good = try runVault(["check", "rooms/plans.md"], in: vault.path)
        #expect(good.status == 0)
        #expect(good.stdout == "1 file checked, no problems.\n", "\(good.stdout)")
        let bad = try runVault(["check", "plans", "rooms/twice.md"], in: vault.path)
        #expect(bad.status == 1)
        #expect(
            bad.stdout == "rooms/twice.md:3: the front-matter key 'title' appears twice (first on line 2); keep one\n"
                + "2 files checked, 1 problem.\n", "\(bad.stdout)")
        // A folder is still the vault's folder, checked whole.
        let whole = try runVault(["check", vault.path], in: "/")
        #expect(whole.status == 1 && whole.stdout.hasSuffix("2 files checked, 1 problem.\n"), "\(whole.stdout)")
        expectUnchanged(before, try vault.snapshot())
    }

    // MARK: 13. Small ones

    @Test func anEmptyStandardInputNamesStandardInputAndTheEditor() throws {
        let vault = try freshVault()
        try expectExactly(
            ["write", "Nothing"], in: vault, status: 1,
            stderr: "vault: error: standard input held no text for the entry: nothing was written. Pipe the text in,"
                + " give it with --body TEXT, or add --editor to write it in your editor\n", stdin: "")
    }

    @Test func aYAMLMistakeIsReportedOnItsLine() throws {
        let vault = try freshVault()
        try vault.write("diary/2026/2026-11-20-y.md", "---\ntitle: [a\nid: x\n---\nbody\n")
        let check = try runVault(["check"], in: vault.path)
        #expect(check.status == 1)
        #expect(
            check.stdout.hasPrefix(
                "diary/2026/2026-11-20-y.md:2: the front-matter is not valid YAML: while parsing a flow sequence did"
                    + " not find expected ',' or ']'\n"), "\(check.stdout)")
    }

    /// A reply's `## heading` (and a setext one) is exported below its `### message header`, in
    /// the Markdown and the HTML; code blocks are left as they are.
    @Test func headingsInsideMessagesAreDemotedInExports() throws {
        let vault = try freshVault()
        try vault.write(
            "rooms/notes.md",
            """
            ---
            title: notes
            ---

            ## 🤖 assistant · d <!-- 2026-11-20T09:00:00+09:00 m-ABCDEFGHJKMA -->

            # Big
            ## Plan

            Title
            -----

            ```
            # not a heading
            ```

            \(promptMarker)

            """)
        let md = try runVault(["export", "notes"], in: vault.path)
        expectSuccess(md)
        #expect(
            md.stdout.hasSuffix("#### Big\n##### Plan\n\n##### Title\n\n```\n# not a heading\n```\n"), "\(md.stdout)")
        let html = try runVault(["export", "notes", "--format", "html"], in: vault.path)
        expectSuccess(html)
        let headings = html.stdout.matches(of: /<h([1-6])>/).map { String($0.output.1) }
        #expect(headings == ["1", "3", "4", "5", "5"], "\(headings)")
    }
}
