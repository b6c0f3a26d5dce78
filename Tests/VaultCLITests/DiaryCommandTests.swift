import Foundation
import Testing
import VaultTestSupport

/// The diary commands end to end: `vault write` (`new`, `diary new`), `today`, `edit`, `tag` and
/// `diary list`, run as the built binary on temporary vaults, with fake editors and chosen zones.
///
/// Every test reads the outcome itself: the file's bytes, its front-matter, its heading, the commits
/// (`git log`), `git status`; a failed command must say why and change no file, `.git/` included.
@Suite struct DiaryCommandTests {
    /// `diary/<yyyy>/` of a day.
    private func folder(_ day: DiaryDay) -> String { "diary/" + String(format: "%04d", day.year) }

    /// The one diary file of a vault that has one; fails otherwise.
    private func onlyEntry(
        _ vault: DiaryVault, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> (path: String, day: DiaryDay) {
        let files = vault.diaryFiles()
        try #require(files.count == 1, "expected one diary file, found \(files)", sourceLocation: sourceLocation)
        let name = (files[0] as NSString).lastPathComponent
        let day = try #require(DiaryDay(iso: Substring(name)), "no date in \(files[0])", sourceLocation: sourceLocation)
        return (files[0], day)
    }

    /// The clock times (`hh:mm:ss`) `zone` shows during the window.
    private func clocks(_ window: DiaryWindow, in zone: String) -> Set<String> {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: zone)!
        var out: Set<String> = []
        var t = window.start
        while t <= window.end {
            let c = calendar.dateComponents([.hour, .minute, .second], from: t)
            out.insert(String(format: "%02d:%02d:%02d", c.hour!, c.minute!, c.second!))
            t += 1
        }
        return out
    }

    // MARK: 1. vault write in a fresh vault

    @Test(arguments: ["ko_KR", "ja_JP", "de_DE"])
    func writeWithTitleTagsAndBodyInAFreshVault(locale: String) throws {
        let vault = try DiaryVault.fresh(locale: locale, timeZone: "Asia/Seoul")
        let history = try vault.subjects()
        try #require(history.count == 1, "vault init makes one commit: \(history)")
        let body = "아침에 첫눈이 왔다.\n\n  들여 쓴 줄, 끝에 공백 \n## 제목처럼 보이는 줄\n마지막 줄\n"
        let (r, window) = try DiaryWindow.around {
            try vault.run(["write", "첫눈", "--tag", "겨울", "--tag", "산책", "--body", body], tz: "Asia/Seoul")
        }
        try expectDiarySuccess(r, vault)
        let (path, day) = try onlyEntry(vault)
        #expect(window.days(in: "Asia/Seoul").contains(day), "\(day) is not today in Seoul")
        #expect(path == "\(folder(day))/\(day)-첫눈.md")
        #expect(r.stdout.contains(path), "\(r.stdout)")

        let entry = try vault.entry(path)
        #expect(entry.keys == ["id", "title", "created", "updated", "tags"])
        let id = try #require(entry.value("id"))
        #expect(isDiaryEntryID(id), "id \(id)")
        #expect(entry.value("title") == "첫눈")
        let created = try #require(entry.value("created"))
        #expect(window.contains(created), "created \(created) is not the time of the command")
        #expect(created.hasPrefix("\(day)T") && created.hasSuffix("+09:00"), "created \(created)")
        #expect(entry.value("updated") == created)
        #expect(entry.tags == ["겨울", "산책"])
        let heading = try #require(entry.heading)
        #expect(day.headings(locale).contains(heading), "heading '\(heading)', expected one of \(day.headings(locale))")
        #expect(entry.afterHeading == "\n" + body)
        // The whole file, byte for byte, as FORMAT.md shows an entry.
        let expected =
            "---\nid: \(id)\ntitle: 첫눈\ncreated: \(created)\nupdated: \(created)\ntags: [겨울, 산책]\n---\n\n"
                + "# \(heading)\n\n\(body)"
        #expect(try vault.readText(path) == expected)

        #expect(try vault.subjects() == ["diary: add \(day) 첫눈"] + history)
        #expect(try vault.changedPaths() == ["A \(path)"])
        #expect(try vault.committed(path) == vault.read(path))
    }

    // MARK: 2. --date

    @Test(arguments: [
        // (--date, TZ, created as it must be written)
        ("2026-03-01T23:30", "Asia/Seoul", "2026-03-01T23:30:00+09:00"),
        // Ten past midnight in Seoul is still the 28th of February in UTC: the entry is on the first of March.
        ("2026-03-01T00:10", "Asia/Seoul", "2026-03-01T00:10:00+09:00"),
        // Summer time where the writer is.
        ("2026-07-01T08:05", "Europe/Berlin", "2026-07-01T08:05:00+02:00"),
        ("2026-07-01T21:15", "America/Los_Angeles", "2026-07-01T21:15:00-07:00"),
        // A full RFC 3339 time keeps its own offset.
        ("2026-03-01T23:30:00+01:00", "Asia/Seoul", "2026-03-01T23:30:00+01:00"),
    ])
    func writeAtAGivenTime(date: String, tz: String, created: String) throws {
        let vault = try DiaryVault.fresh(locale: "ko_KR", timeZone: "Asia/Seoul")
        let history = try vault.subjects()
        let r = try vault.run(["write", "기록", "--date", date, "--body", "그날의 기록\n"], tz: tz)
        try expectDiarySuccess(r, vault)
        let day = try #require(DiaryDay(iso: Substring(created)))
        let path = "\(folder(day))/\(day)-기록.md"
        #expect(vault.diaryFiles() == [path])
        let entry = try vault.entry(path)
        #expect(entry.value("created") == created)
        #expect(entry.value("updated") == created)
        #expect(entry.heading.map { day.headings("ko_KR").contains($0) } == true, "heading \(entry.heading ?? "nil")")
        #expect(entry.afterHeading == "\n그날의 기록\n")
        #expect(try vault.subjects() == ["diary: add \(day) 기록"] + history)
    }

    @Test(arguments: [
        // (--date, TZ, the offset the zone has on that day)
        ("2026-03-01", "Asia/Seoul", "+09:00"),
        ("2026-03-01", "Pacific/Kiritimati", "+14:00"),
        ("2026-03-01", "Pacific/Pago_Pago", "-11:00"),
        ("2026-07-01", "America/Los_Angeles", "-07:00"),
        ("2026-07-01", "Europe/Berlin", "+02:00"),
    ])
    func writeOnAGivenDayTakesTheTimeOfDayNow(date: String, tz: String, offset: String) throws {
        let vault = try DiaryVault.fresh(locale: "ko_KR", timeZone: "Asia/Seoul")
        let history = try vault.subjects()
        // No trailing newline: the tool ends the file with one.
        let (r, window) = try DiaryWindow.around {
            try vault.run(["write", "봄", "--date", date, "--body", "한 줄"], tz: tz)
        }
        try expectDiarySuccess(r, vault)
        let day = try #require(DiaryDay(iso: Substring(date)))
        let path = "\(folder(day))/\(day)-봄.md"
        #expect(vault.diaryFiles() == [path])
        let entry = try vault.entry(path)
        let created = try #require(entry.value("created"))
        #expect(created.hasPrefix("\(date)T") && created.hasSuffix(offset), "created \(created)")
        #expect(rfc3339(created) != nil, "created \(created) is not RFC 3339")
        let clock = String(created.dropFirst(11).prefix(8))
        #expect(clocks(window, in: tz).contains(clock), "created \(created): not the time of day now in \(tz)")
        #expect(entry.heading.map { day.headings("ko_KR").contains($0) } == true, "heading \(entry.heading ?? "nil")")
        #expect(entry.afterHeading == "\n한 줄\n")
        #expect(try vault.subjects() == ["diary: add \(day) 봄"] + history)
    }

    @Test(arguments: [
        // (--date=…, days from today in TZ, TZ)
        ("yesterday", -1, "Asia/Seoul"),
        ("-3", -3, "Asia/Seoul"),
        ("today", 0, "Asia/Seoul"),
        // The writer's zone decides what today is, not the vault's (Asia/Seoul).
        ("yesterday", -1, "Pacific/Pago_Pago"),
        ("-3", -3, "Pacific/Kiritimati"),
        ("today", 0, "Pacific/Pago_Pago"),
    ])
    func writeOnARelativeDay(word: String, days: Int, tz: String) throws {
        let vault = try DiaryVault.fresh(locale: "ko_KR", timeZone: "Asia/Seoul")
        let history = try vault.subjects()
        let (r, window) = try DiaryWindow.around {
            try vault.run(["write", "지난 일", "--date=\(word)", "--body", "기억\n"], tz: tz)
        }
        try expectDiarySuccess(r, vault)
        let (path, day) = try onlyEntry(vault)
        let expectedDays = Set(window.days(in: tz).map { $0.adding(days: days) })
        #expect(expectedDays.contains(day), "entry on \(day), expected one of \(expectedDays)")
        #expect(path == "\(folder(day))/\(day)-지난-일.md")
        let entry = try vault.entry(path)
        let created = try #require(entry.value("created"))
        let noon = try #require(rfc3339("\(day)T12:00:00Z"))
        #expect(created.hasPrefix("\(day)T") && created.hasSuffix(diaryOffsetText(tz, at: noon)), "created \(created)")
        #expect(entry.heading.map { day.headings("ko_KR").contains($0) } == true, "heading \(entry.heading ?? "nil")")
        #expect(try vault.subjects() == ["diary: add \(day) 지난 일"] + history)
    }

    @Test(arguments: ["2026-13-40", "2026-02-30", "2026-03-01T25:00", "어제", "+3", "next week"])
    func writeWithAnUnreadableDateFailsAndChangesNothing(date: String) throws {
        let vault = try DiaryVault.fresh()
        let before = try vault.snapshot()
        let r = try vault.run(["write", "날짜", "--date", date, "--body", "본문"])
        try expectDiaryFailure(r, ["cannot read the date '\(date)'"], vault, unchangedFrom: before)
    }

    // MARK: 3. Standard input, aliases, empty entries

    @Test func bodyFromStandardInputNamesTheEntryByItsFirstLine() throws {
        let vault = try DiaryVault.fresh()
        let history = try vault.subjects()
        let text = "오늘의 생각: 비, 그리고 커피\n\n조용한 하루였다.\n\n\n"
        let (r, window) = try DiaryWindow.around { try vault.run(["write"], stdin: text) }
        try expectDiarySuccess(r, vault)
        let (path, day) = try onlyEntry(vault)
        #expect(window.days(in: "Asia/Seoul").contains(day))
        #expect(path == "\(folder(day))/\(day)-오늘의-생각-비-그리고-커피.md")
        let entry = try vault.entry(path)
        #expect(entry.value("title") == nil, "no title was given: \(entry.frontMatter)")
        #expect(isDiaryEntryID(entry.value("id") ?? ""))
        #expect(entry.value("created").map(window.contains) == true)
        #expect(entry.tags == [])
        #expect(entry.afterHeading == "\n" + text)
        #expect(try vault.subjects() == ["diary: add \(day) 오늘의 생각: 비, 그리고 커피"] + history)
    }

    @Test func newAndDiaryNewAreWriteAndATakenNameGetsANumber() throws {
        let vault = try DiaryVault.fresh()
        let history = try vault.subjects()
        // --body wins over standard input.
        let (first, window) = try DiaryWindow.around {
            try vault.run(["new", "산책!", "--body", "첫 번째\n"], stdin: "무시될 글\n")
        }
        try expectDiarySuccess(first, vault)
        let (path1, day) = try onlyEntry(vault)
        #expect(window.days(in: "Asia/Seoul").contains(day))
        #expect(path1 == "\(folder(day))/\(day)-산책.md")
        let second = try vault.run(["diary", "new", "산책", "--tag", "저녁", "--body", "두 번째\n"])
        try expectDiarySuccess(second, vault)
        let path2 = "\(folder(day))/\(day)-산책-2.md"
        #expect(Set(vault.diaryFiles()) == [path1, path2])
        #expect(try vault.entry(path1).afterHeading == "\n첫 번째\n")
        #expect(try vault.entry(path1).value("title") == "산책!")
        #expect(try vault.entry(path2).afterHeading == "\n두 번째\n")
        #expect(try vault.entry(path2).tags == ["저녁"])
        #expect(try vault.subjects() == ["diary: add \(day) 산책", "diary: add \(day) 산책!"] + history)
        #expect(try vault.changedPaths() == ["A \(path2)"])
    }

    @Test(arguments: [
        (["write", "--body", ""], nil as String?),
        (["write", "제목", "--body", " \n\t \n"], nil),
        (["write"], ""),
        (["new", "제목"], "\n  \n\t\n"),
        (["diary", "new"], "   "),
    ])
    func anEmptyEntryFailsAndChangesNothing(arguments: [String], stdin: String?) throws {
        let vault = try DiaryVault.fresh()
        let before = try vault.snapshot()
        let r = try vault.run(arguments, stdin: stdin)
        // Nothing on standard input is named as such, with the ways to give the text.
        let said = stdin == nil ? ["the entry is empty"] : ["standard input held no text", "--body", "--editor"]
        try expectDiaryFailure(r, said, vault, unchangedFrom: before)
        #expect(vault.diaryFiles() == [])
    }

    @Test(arguments: ["a,b", " ", ""])
    func aBadTagFailsAndChangesNothing(tag: String) throws {
        let vault = try DiaryVault.fresh()
        let before = try vault.snapshot()
        let r = try vault.run(["write", "제목", "--tag", tag, "--body", "본문"])
        try expectDiaryFailure(r, ["'\(tag)' is not a tag"], vault, unchangedFrom: before)
    }

    /// Tags are a set: `vault tag +a` never adds a tag twice, and neither should `--tag a --tag a`.
    @Test func aTagGivenTwiceIsWrittenOnce() throws {
        let vault = try DiaryVault.fresh()
        let r = try vault.run(["write", "중복", "--tag", "a", "--tag", "겨울", "--tag", "a", "--body", "본문\n"])
        try expectDiarySuccess(r, vault)
        let (path, _) = try onlyEntry(vault)
        let entry = try vault.entry(path)
        #expect(entry.tags == ["a", "겨울"], "\(entry.frontMatter)")
    }

    // MARK: 4. Editors

    @Test func writeWithTheEditorKeepsWhatWasWritten() throws {
        let vault = try DiaryVault.fresh()
        let history = try vault.subjects()
        let editors = DiaryEditors()
        let text = "에디터로 쓴 첫 줄\n\n둘째 문단.\n"
        let editor = try editors.make("writer", .append(text))
        // Standard input is not read when --editor is given.
        let (r, window) = try DiaryWindow.around {
            try vault.run(["write", "편집기", "--editor", "--tag", "메모"], editor: editor, stdin: "읽히면 안 되는 글\n")
        }
        try expectDiarySuccess(r, vault)
        let (path, day) = try onlyEntry(vault)
        #expect(window.days(in: "Asia/Seoul").contains(day))
        #expect(path == "\(folder(day))/\(day)-편집기.md")
        let runs = editors.runs("writer")
        #expect(runs.count == 1 && runs.first?.hasSuffix("/" + path) == true, "the editor ran on \(runs)")
        let entry = try vault.entry(path)
        #expect(entry.value("title") == "편집기")
        #expect(entry.tags == ["메모"])
        let created = try #require(entry.value("created"))
        #expect(window.contains(created) && created.hasSuffix("+09:00"), "created \(created)")
        #expect(entry.value("updated").map(window.contains) == true)
        #expect(entry.heading.map { day.headings("ko_KR").contains($0) } == true)
        #expect(entry.afterHeading == "\n" + text)
        #expect(!(try vault.readText(path)).contains("읽히면 안 되는 글"))
        #expect(try vault.subjects() == ["diary: add \(day) 편집기"] + history)
        #expect(try vault.changedPaths() == ["A \(path)"])
    }

    @Test(
        arguments: [["write", "--editor"], ["write", "제목", "--editor"], ["today"]],
        ["nothing", "whitespace", "emptied"])
    func anEntryLeftEmptyInTheEditorIsNotKept(arguments: [String], editing: String) throws {
        let vault = try DiaryVault.fresh()
        let before = try vault.snapshot()
        let editors = DiaryEditors()
        let action: DiaryEditors.Action =
            switch editing {
            case "nothing": .nothing
            case "whitespace": .append("\n  \n\t\n")
            default: .empty
            }
        let editor = try editors.make("leaver", action)
        let r = try vault.run(arguments, editor: editor)
        #expect(r.status == 0, "stderr: \(r.stderr)")
        #expect(r.stdout.contains("not kept"), "stdout: \(r.stdout) stderr: \(r.stderr)")
        #expect(editors.runs("leaver").count == 1, "the editor did not run")
        #expect(vault.diaryFiles() == [])
        expectUnchanged(before, try vault.snapshot())
        #expect(try vault.status() == "")
    }

    @Test(arguments: [["write", "--editor"], ["write", "제목", "--editor"], ["today"]])
    func aFailingEditorKeepsNoEntryAndChangesNothing(arguments: [String]) throws {
        let vault = try DiaryVault.fresh()
        let before = try vault.snapshot()
        let editors = DiaryEditors()
        let editor = try editors.make("broken", .fail(3))
        let r = try vault.run(arguments, editor: editor)
        try expectDiaryFailure(r, ["editor", "3"], vault, unchangedFrom: before)
        #expect(editors.runs("broken").count == 1, "the editor did not run")
        #expect(vault.diaryFiles() == [])
    }

    /// What a person wrote in the editor is never dropped or left behind uncommitted, even when it
    /// breaks the front-matter: `vault edit` saves and commits such an edit with a warning, and a new
    /// entry must not fare worse (README: `git status` stays clean after every command).
    @Test func aNewEntryWhoseFrontMatterTheEditorBrokeIsStillKeptAndCommitted() throws {
        let vault = try DiaryVault.fresh()
        let history = try vault.subjects()
        let editors = DiaryEditors()
        let written = "---\ntitle: [닫지 않은 목록\n---\n\n# 제목\n\n공들여 쓴 글.\n"
        let editor = try editors.make("breaker", .replace(written))
        let r = try vault.run(["write", "깨진 머리말", "--editor"], editor: editor)
        let files = vault.diaryFiles()
        try #require(files.count == 1, "the words are gone: \(files); stderr: \(r.stderr)")
        #expect(try vault.readText(files[0]) == written)
        let status = try vault.status()
        #expect(status == "", "left uncommitted:\n\(status)stdout: \(r.stdout) stderr: \(r.stderr)")
        let subjects = try vault.subjects()
        #expect(subjects.count == history.count + 1, "\(subjects)")
        #expect(!r.stderr.contains("nothing was written"), "the file was written, yet: \(r.stderr)")
    }

    @Test func anEditThatBreaksTheFrontMatterIsSavedAndCommittedWithAWarning() throws {
        let vault = try DiaryVault.fresh()
        try expectDiarySuccess(try vault.run(["write", "깨질 글", "--date", "2026-03-01", "--body", "본문\n"]), vault)
        let path = "diary/2026/2026-03-01-깨질-글.md"
        let history = try vault.subjects()
        let written = "---\ntitle: [닫지 않은 목록\n---\n\n본문\n"
        let editors = DiaryEditors()
        let r = try vault.run(["edit", path], editor: try editors.make("breaker", .replace(written)))
        try expectDiarySuccess(r, vault)
        #expect(try vault.readText(path) == written)
        #expect(r.stderr.contains(path), "no warning about \(path): \(r.stderr)")
        #expect(try vault.subjects() == ["edit: \(path)"] + history)
    }

    @Test func todayMakesTheEntryThenEditsTheSameOne() throws {
        let vault = try DiaryVault.fresh()
        let history = try vault.subjects()
        let editors = DiaryEditors()
        let first = try editors.make("first", .append("오늘 처음 쓴 글\n\n아침.\n"))
        let (r1, window) = try DiaryWindow.around { try vault.run(["today"], editor: first) }
        try expectDiarySuccess(r1, vault)
        let (path, day) = try onlyEntry(vault)
        #expect(window.days(in: "Asia/Seoul").contains(day))
        #expect(path == "\(folder(day))/\(day).md", "an entry without a title is named by its day")
        let entry1 = try vault.entry(path)
        let created = try #require(entry1.value("created"))
        #expect(window.contains(created) && created.hasSuffix("+09:00"))
        #expect(entry1.afterHeading == "\n오늘 처음 쓴 글\n\n아침.\n")
        #expect(try vault.subjects() == ["diary: add \(day) 오늘 처음 쓴 글"] + history)
        let bytes1 = try vault.read(path)

        // Timestamps have whole seconds: the next edit is made in a later second than `created`.
        waitForTheNextSecond(after: try #require(rfc3339(created), "created \(created)"))
        let second = try editors.make("second", .append("저녁에 덧붙임.\n"))
        let (r2, window2) = try DiaryWindow.around { try vault.run(["today"], editor: second) }
        if !window2.days(in: "Asia/Seoul").contains(day) { return }  // midnight passed between the runs
        try expectDiarySuccess(r2, vault)
        #expect(vault.diaryFiles() == [path], "a second entry was made")
        #expect(editors.runs("second") == editors.runs("first"), "the editor ran on another file")
        let entry2 = try vault.entry(path)
        #expect(entry2.value("created") == created)
        let updated = try #require(entry2.value("updated"))
        #expect(updated != created && window2.contains(updated), "updated \(updated)")
        #expect(entry2.afterHeading == "\n오늘 처음 쓴 글\n\n아침.\n저녁에 덧붙임.\n")
        // Nothing else moved: the lines outside `updated` are the old ones plus the new text.
        #expect(diaryLinesOutside(keys: ["updated"], in: try vault.read(path)).joined(separator: "\n")
            == diaryLinesOutside(keys: ["updated"], in: bytes1 + Array("저녁에 덧붙임.\n".utf8)).joined(separator: "\n"))
        #expect(try vault.subjects() == ["diary: edit \(day) 오늘 처음 쓴 글", "diary: add \(day) 오늘 처음 쓴 글"] + history)
        #expect(try vault.changedPaths() == ["M \(path)"])
    }

    /// `vault today` takes today where the writer is: an entry made today in Kiritimati (UTC+14) is
    /// never today in Pago Pago (UTC−11), 25 hours behind.
    @Test func todayIsTodayInTheWritersZone() throws {
        let vault = try DiaryVault.fresh()
        let editors = DiaryEditors()
        let (r1, w1) = try DiaryWindow.around {
            try vault.run(["today"], tz: "Pacific/Kiritimati", editor: try editors.make("east", .append("동쪽 끝\n")))
        }
        try expectDiarySuccess(r1, vault)
        let (r2, w2) = try DiaryWindow.around {
            try vault.run(["today"], tz: "Pacific/Pago_Pago", editor: try editors.make("west", .append("서쪽 끝\n")))
        }
        try expectDiarySuccess(r2, vault)
        let files = vault.diaryFiles()
        try #require(files.count == 2, "expected two entries: \(files)")
        let east = try #require(files.first { (try? vault.readText($0).contains("동쪽 끝")) == true })
        let west = try #require(files.first { (try? vault.readText($0).contains("서쪽 끝")) == true })
        #expect(east != west)
        let eastDay = try #require(DiaryDay(iso: Substring((east as NSString).lastPathComponent)))
        let westDay = try #require(DiaryDay(iso: Substring((west as NSString).lastPathComponent)))
        #expect(w1.days(in: "Pacific/Kiritimati").contains(eastDay))
        #expect(w2.days(in: "Pacific/Pago_Pago").contains(westDay))
        #expect(try vault.entry(east).value("created")?.hasSuffix("+14:00") == true)
        #expect(try vault.entry(west).value("created")?.hasSuffix("-11:00") == true)
        #expect(Array(try vault.subjects().prefix(2)) == ["diary: add \(westDay) 서쪽 끝", "diary: add \(eastDay) 동쪽 끝"])
    }

    @Test func editingAnEntryCommitsWithUpdatedSetInTheWritersZone() throws {
        let vault = try DiaryVault.fresh()
        try expectDiarySuccess(
            try vault.run(["write", "고칠 글", "--date", "2026-03-01T09:00", "--body", "처음 문장.\n"]), vault)
        let path = "diary/2026/2026-03-01-고칠-글.md"
        let before = try vault.read(path)
        let history = try vault.subjects()
        let editors = DiaryEditors()
        let editor = try editors.make("fix", .append("고친 문장.\n"))
        let (r, window) = try DiaryWindow.around {
            try vault.run(["edit", "2026-03-01"], tz: "Europe/Berlin", editor: editor)
        }
        try expectDiarySuccess(r, vault)
        #expect(
            editors.runs("fix").count == 1 && editors.runs("fix").first?.hasSuffix("/" + path) == true,
            "\(editors.runs("fix"))")
        let entry = try vault.entry(path)
        #expect(entry.value("created") == "2026-03-01T09:00:00+09:00")
        let updated = try #require(entry.value("updated"))
        #expect(window.contains(updated) && updated.hasSuffix(diaryOffsetText("Europe/Berlin")), "updated \(updated)")
        #expect(entry.afterHeading == "\n처음 문장.\n고친 문장.\n")
        #expect(diaryLinesOutside(keys: ["updated"], in: try vault.read(path))
            == diaryLinesOutside(keys: ["updated"], in: before + Array("고친 문장.\n".utf8)))
        #expect(try vault.subjects() == ["diary: edit 2026-03-01 고칠 글"] + history)
        #expect(try vault.changedPaths() == ["M \(path)"])
    }

    @Test(arguments: ["nothing", "same bytes"])
    func editingWithoutAChangeMakesNoCommit(editing: String) throws {
        let vault = try DiaryVault.fresh()
        try expectDiarySuccess(try vault.run(["write", "그대로", "--date", "2026-03-01", "--body", "손대지 않는다.\n"]), vault)
        let path = "diary/2026/2026-03-01-그대로.md"
        let before = try vault.snapshot()
        let editors = DiaryEditors()
        let editor = try editors.make("idle", editing == "nothing" ? .nothing : .replace(try vault.readText(path)))
        let r = try vault.run(["edit", path], editor: editor)
        // Snapshot first: `git status` itself refreshes the index's file times after a rewrite.
        expectUnchanged(before, try vault.snapshot())
        try expectDiarySuccess(r, vault)
        #expect(editors.runs("idle").count == 1, "the editor did not run")
        #expect(r.stdout.contains("No change"), "\(r.stdout)")
    }

    @Test func editingARoomCommitsItAsAnEdit() throws {
        let vault = try DiaryVault.fresh()
        try expectDiarySuccess(try vault.run(["room", "new", "부산 여행"]), vault)
        let path = "rooms/부산-여행.md"
        let before = try vault.read(path)
        let history = try vault.subjects()
        let editors = DiaryEditors()
        let editor = try editors.make("room", .append("해운대 근처 숙소도 알려줘\n"))
        let r = try vault.run(["edit", "부산"], editor: editor)
        try expectDiarySuccess(r, vault)
        #expect(editors.runs("room").first?.hasSuffix("/" + path) == true, "\(editors.runs("room"))")
        // A room has no `updated`: the file is exactly what the editor left.
        #expect(try vault.read(path) == before + Array("해운대 근처 숙소도 알려줘\n".utf8))
        #expect(try vault.subjects() == ["edit: \(path)"] + history)
        #expect(try vault.changedPaths() == ["M \(path)"])
    }

    @Test func visualWinsOverEditorAndAnEmptyVisualIsSkipped() throws {
        let vault = try DiaryVault.fresh()
        try expectDiarySuccess(try vault.run(["write", "누가 열까", "--date", "2026-03-01", "--body", "처음.\n"]), vault)
        let path = "diary/2026/2026-03-01-누가-열까.md"
        let editors = DiaryEditors()
        let visual = try editors.make("visual", .append("VISUAL이 썼다.\n"))
        let editor = try editors.make("editor", .append("EDITOR가 썼다.\n"))
        try expectDiarySuccess(try vault.run(["edit", path], editor: editor, visual: visual), vault)
        #expect(editors.runs("visual").count == 1)
        #expect(editors.runs("editor").isEmpty, "EDITOR ran although VISUAL was set")
        #expect(try vault.entry(path).afterHeading == "\n처음.\nVISUAL이 썼다.\n")
        // VISUAL set but empty: EDITOR.
        try expectDiarySuccess(try vault.run(["edit", path], editor: editor, visual: ""), vault)
        #expect(editors.runs("editor").count == 1)
        #expect(try vault.entry(path).afterHeading == "\n처음.\nVISUAL이 썼다.\nEDITOR가 썼다.\n")
        #expect(
            Array(try vault.subjects().prefix(2)) == ["diary: edit 2026-03-01 누가 열까", "diary: edit 2026-03-01 누가 열까"])
    }

    /// The editor runs without the vault's lock: another `vault` command can change the vault meanwhile,
    /// and both changes end up committed.
    @Test func anotherCommandCanRunWhileTheEditorIsOpen() throws {
        let vault = try DiaryVault.fresh()
        let history = try vault.subjects()
        let editors = DiaryEditors()
        let inner =
            "'\(Project.vaultExecutable)' write --vault '\(vault.root)' '편집 중 다른 글' --body '다른 글' "
                + "</dev/null >/dev/null 2>'\(editors.dir.path)/inner.err'; "
                + "echo \"inner $?\" >> '\(editors.dir.path)/inner.status'"
        let editor = try editors.make("busy", .runThenAppend(inner, "천천히 쓴 글\n"))
        let (r, window) = try DiaryWindow.around {
            try vault.run(["write", "느린 글", "--editor"], editor: editor, extra: ["VAULT_LOCK_TIMEOUT": "5"])
        }
        try expectDiarySuccess(r, vault)
        let status = (try? editors.dir.readText("inner.status")) ?? "never ran"
        #expect(
            status == "inner 0\n",
            "the command run from the editor: \(status) \((try? editors.dir.readText("inner.err")) ?? "")")
        let day = try #require(window.days(in: "Asia/Seoul").sorted().last)
        let files = vault.diaryFiles()
        #expect(files.count == 2, "\(files)")
        #expect(try vault.subjects() == ["diary: add \(day) 느린 글", "diary: add \(day) 편집 중 다른 글"] + history)
    }

    // MARK: 5. Hand edits are committed first

    @Test(arguments: ["edit", "tag"])
    func aHandEditIsCommittedBeforeTheToolsChange(command: String) throws {
        let vault = try DiaryVault.fresh()
        try expectDiarySuccess(
            try vault.run(["write", "손글씨", "--date", "2026-03-01T10:00", "--tag", "일기", "--body", "도구가 쓴 줄.\n"]), vault)
        let path = "diary/2026/2026-03-01-손글씨.md"
        let history = try vault.subjects()
        let handEdited = try vault.read(path) + Array("손으로 덧붙인 줄.\n".utf8)
        try vault.write(path, handEdited)
        let editors = DiaryEditors()
        let r =
            command == "edit"
            ? try vault.run(["edit", path], editor: try editors.make("after", .append("에디터로 쓴 줄.\n")))
            : try vault.run(["tag", path, "+손"])
        try expectDiarySuccess(r, vault)
        let toolCommit = command == "edit" ? "diary: edit 2026-03-01 손글씨" : "tag: 2026-03-01 손글씨 +손"
        #expect(try vault.subjects() == [toolCommit, "edit: \(path)"] + history)
        // The person's words are committed exactly as they were, on their own.
        #expect(try vault.committed(path, at: "HEAD~1") == handEdited)
        #expect(try vault.changedPaths("HEAD~1") == ["M \(path)"])
        #expect(try vault.committed(path, at: "HEAD") == vault.read(path))
        let entry = try vault.entry(path)
        if command == "edit" {
            #expect(entry.afterHeading == "\n도구가 쓴 줄.\n손으로 덧붙인 줄.\n에디터로 쓴 줄.\n")
        } else {
            #expect(entry.afterHeading == "\n도구가 쓴 줄.\n손으로 덧붙인 줄.\n")
            #expect(entry.tags == ["일기", "손"])
        }
    }

    // MARK: 6. vault tag

    @Test func tagAddsAndRemovesAndChangesOnlyTagsAndUpdated() throws {
        let vault = try DiaryVault.fresh()
        try expectDiarySuccess(
            try vault.run([
                "write", "첫눈", "--date", "2026-11-21T09:30", "--tag", "겨울", "--tag", "산책", "--body", "눈이 왔다.\n",
            ]), vault)
        let path = "diary/2026/2026-11-21-첫눈.md"
        let before = try vault.read(path)
        let history = try vault.subjects()
        let (r, window) = try DiaryWindow.around { try vault.run(["tag", path, "+여행", "-겨울", "산책길"]) }
        try expectDiarySuccess(r, vault)
        let after = try vault.read(path)
        let entry = try DiaryEntryText(String(decoding: after, as: UTF8.self))
        #expect(entry.tags == ["산책", "여행", "산책길"])
        #expect(entry.value("tags") == "[산책, 여행, 산책길]")
        let updated = try #require(entry.value("updated"))
        #expect(window.contains(updated) && updated.hasSuffix("+09:00"), "updated \(updated)")
        #expect(entry.value("created") == "2026-11-21T09:30:00+09:00")
        // Every other line byte for byte, in place.
        let oldLines = diarySplitLines(String(decoding: before, as: UTF8.self))
        let newLines = diarySplitLines(String(decoding: after, as: UTF8.self))
        try #require(oldLines.count == newLines.count, "line count changed:\n\(String(decoding: after, as: UTF8.self))")
        for (old, new) in zip(oldLines, newLines) where !old.hasPrefix("tags:") && !old.hasPrefix("updated:") {
            #expect(old == new)
        }
        #expect(r.stdout.contains("#산책 #여행 #산책길"), "\(r.stdout)")
        let subjects = try vault.subjects()
        #expect(Array(subjects.dropFirst()) == history)
        let message = try #require(subjects.first)
        let label = "tag: 2026-11-21 첫눈 "
        #expect(message.hasPrefix(label), "\(message)")
        #expect(
            Set(message.dropFirst(label.count).split(separator: " ").map(String.init)) == ["+여행", "-겨울", "+산책길"],
            "\(message)")
        #expect(try vault.changedPaths() == ["M \(path)"])

        // A tag it already has is not added twice; removing every tag leaves an empty list.
        try expectDiarySuccess(try vault.run(["tag", path, "+여행"]), vault)
        #expect(try vault.entry(path).tags == ["산책", "여행", "산책길"])
        let none = try vault.run(["tag", path, "-산책", "-여행", "-산책길"])
        try expectDiarySuccess(none, vault)
        #expect(try vault.entry(path).tags == [])
        #expect(none.stdout.contains("no tags"), "\(none.stdout)")
        #expect(try vault.entry(path).afterHeading == "\n눈이 왔다.\n")
    }

    /// Hand-written front-matter: a block list, a comment and unknown keys, CRLF line endings.
    @Test(arguments: [
        ("diary/2026/2026-08-28-swift-동시성-공부.md", "2026-08-28 Swift 동시성 공부", ["swift", "공부"]),
        ("diary/2026/2026-11-07-부산-둘째-날.md", "2026-11-07 부산 둘째 날", ["여행", "부산"]),
        ("diary/2026/2026-10-22-10월-야근-주간.md", "2026-10-22 10월 야근 주간", ["회사", "릴리스"]),
    ])
    func tagRewritesOnlyItsKeysInAHandWrittenEntry(path: String, label: String, tags: [String]) throws {
        let vault = try DiaryVault.sample()
        try #require(try vault.run(["init", "."]).status == 0)
        let history = try vault.subjects()
        let before = try vault.read(path)
        #expect(try vault.entry(path).tags == tags)
        let r = try vault.run(["tag", path, "+테스트"], tz: "Asia/Seoul")
        try expectDiarySuccess(r, vault)
        let after = try vault.read(path)
        #expect(try vault.entry(path).tags == tags + ["테스트"])
        #expect(
            diaryLinesOutside(keys: ["tags", "updated"], in: after)
                == diaryLinesOutside(keys: ["tags", "updated"], in: before))
        let crlf = before.starts(with: Array("---\r\n".utf8))
        let text = String(decoding: after, as: UTF8.self)
        for line in diarySplitLines(text).dropLast() {
            #expect(line.hasSuffix("\r") == crlf, "line ending changed: \(line.debugDescription)")
        }
        #expect(try vault.subjects() == ["tag: \(label) +테스트"] + history)
    }

    @Test func tagFailsClearlyAndChangesNothing() throws {
        let vault = try DiaryVault.fresh()
        try expectDiarySuccess(
            try vault.run(["write", "태그", "--date", "2026-03-01", "--tag", "a", "--body", "본문\n"]), vault)
        try expectDiarySuccess(try vault.run(["room", "new", "부산 여행"]), vault)
        let entry = "diary/2026/2026-03-01-태그.md"
        let cases: [([String], [String])] = [
            (["tag", "rooms/부산-여행.md", "+x"], ["rooms/부산-여행.md", "is a room"]),
            (["tag", "부산", "+x"], ["is a room"]),
            (["tag", entry], ["give tags to change"]),
            (["tag", entry, "+"], ["'+' is not a tag"]),
            (["tag", entry, "+a,b"], ["'+a,b' is not a tag"]),
            (["tag", "없는-글", "+x"], ["없는-글"]),
        ]
        for (arguments, fragments) in cases {
            let before = try vault.snapshot()
            let r = try vault.run(arguments)
            try expectDiaryFailure(r, fragments, vault, unchangedFrom: before)
        }
    }

    @Test func editOfAnUnknownItemFailsAndChangesNothing() throws {
        let vault = try DiaryVault.fresh()
        let before = try vault.snapshot()
        let editors = DiaryEditors()
        let r = try vault.run(["edit", "없는-글"], editor: try editors.make("never", .append("x\n")))
        try expectDiaryFailure(r, ["없는-글"], vault, unchangedFrom: before)
        #expect(editors.runs("never").isEmpty)
    }

    // MARK: 7. Hand-made entries and vault diary list

    /// The day of every diary file read the way FORMAT.md says: `created` in its own offset, else the
    /// first `yyyy-mm-dd` of the file name.
    private func expectedDays(_ vault: DiaryVault) throws -> [(path: String, day: String, source: String)] {
        var out: [(path: String, day: String, source: String)] = []
        for path in vault.diaryFiles() {
            let text = try vault.readText(path)
            if let entry = try? DiaryEntryText(text), let created = entry.value("created") {
                out.append((path, String(created.prefix(10)), "created"))
            } else if let r = path.range(of: #"\d{4}-\d{2}-\d{2}"#, options: .regularExpression) {
                out.append((path, String(path[r]), "file name"))
            }
        }
        return out.sorted { $0.day > $1.day }
    }

    @Test func diaryListReadsHandMadeEntriesAndDatesUndatedOnesFromHistory() throws {
        let vault = try DiaryVault.sample()
        // The sample as it comes: ten entries, newest first, each with its date.
        let plain = try diaryListJSON(try vault.run(["diary", "list", "--json"]))
        let expected = try expectedDays(vault)
        try #require(expected.count == 10, "\(expected)")
        #expect(plain.map { $0["path"] as? String ?? "?" } == expected.map { $0.path })
        #expect(plain.map { $0["date"] as? String ?? "?" } == expected.map { $0.day })
        #expect(plain.map { $0["date_source"] as? String ?? "?" } == expected.map { $0.source })
        let titles = Dictionary(
            uniqueKeysWithValues: plain.map { ($0["path"] as? String ?? "?", $0["title"] as? String ?? "?") })
        #expect(titles["diary/2026/2026-09-30 회고.md"] == "3분기 회고")
        #expect(titles["diary/2026/2026-10-22-10월-야근-주간.md"] == "10월 야근 주간")
        #expect(titles["diary/2026/2026-10-03-大阪の朝.md"] == "大阪の朝")
        #expect(titles["diary/2026/2026-09-12-late-night-in-san-francisco.md"] == "Late night in San Francisco")

        // Its own repository, then two entries with no date anywhere, committed by hand at known times.
        try #require(try vault.run(["init", "."]).status == 0)
        let memo = "diary/misc/그냥 메모.md"
        let night = "diary/misc/밤의 메모.md"
        try vault.write(memo, "그냥 적어 둔 메모\n\n날짜는 어디에도 없다.\n")
        try vault.write(night, "밤의 메모\n\n자정을 조금 넘겨서.\n")
        try vault.git(["add", "--", memo])
        try vault.git(
            ["commit", "-q", "-m", "memo by hand"],
            environment: [
                "GIT_AUTHOR_DATE": "2025-05-05T10:00:00+09:00", "GIT_COMMITTER_DATE": "2025-05-05T10:00:00+09:00",
            ])
        // 01:30 in Seoul is still the day before in UTC: the day is the commit's own.
        try vault.git(["add", "--", night])
        try vault.git(
            ["commit", "-q", "-m", "night memo by hand"],
            environment: [
                "GIT_AUTHOR_DATE": "2025-06-01T01:30:00+09:00", "GIT_COMMITTER_DATE": "2025-06-01T01:30:00+09:00",
            ])
        // Their files' times say something else, so only history can give those days.
        let old = Date(timeIntervalSince1970: 1_580_644_800)  // 2020-02-02T12:00:00Z
        for p in [memo, night] {
            try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: vault.root + "/" + p)
        }
        #expect(try vault.status() == "")

        let before = try vault.snapshot()
        let all = try diaryListJSON(try vault.run(["diary", "list", "--json"]))
        #expect(all.map { $0["path"] as? String ?? "?" } == expected.map { $0.path } + [night, memo])
        #expect(all.map { $0["date"] as? String ?? "?" } == expected.map { $0.day } + ["2025-06-01", "2025-05-05"])
        #expect(all.suffix(2).map { $0["date_source"] as? String ?? "?" } == ["history", "history"])
        #expect(all.suffix(2).map { $0["title"] as? String ?? "?" } == ["밤의 메모", "그냥 적어 둔 메모"])

        func paths(_ arguments: [String]) throws -> [String] {
            try diaryListJSON(try vault.run(["diary", "list", "--json"] + arguments)).map {
                $0["path"] as? String ?? "?"
            }
        }
        #expect(
            try paths(["--since", "2026-10-01", "--until", "2026-11-15"]) == [
                "diary/2026/2026-11-14-단호박-수프.md", "diary/2026/2026-11-07-부산-둘째-날.md",
                "diary/2026/2026-10-22-10월-야근-주간.md", "diary/2026/2026-10-03-大阪の朝.md",
            ])
        #expect(try paths(["--tag", "여행"]) == ["diary/2026/2026-11-07-부산-둘째-날.md", "diary/2026/2026-10-03-大阪の朝.md"])
        #expect(try paths(["--until", "2025-12-31"]) == [night, memo])
        #expect(try paths(["--since", "2025-05-05", "--until", "2025-05-05"]) == [memo])
        #expect(try paths(["--since", "2026-09-30", "--until", "2026-09-30"]) == ["diary/2026/2026-09-30 회고.md"])
        #expect(try paths(["--tag", "여행", "--since", "2026-11-01"]) == ["diary/2026/2026-11-07-부산-둘째-날.md"])
        #expect(try paths(["--tag", "없는태그"]) == [])
        // Days ago, written with a space like any other value (not taken for an option).
        #expect(try paths(["--since", "-36500"]) == expected.map { $0.path } + [night, memo])
        #expect(try paths(["--until", "-36500"]) == [])
        #expect(try paths(["--since=-36500", "--until", "2025-05-05"]) == [memo])
        // Listing reads and never writes.
        expectUnchanged(before, try vault.snapshot())

        let bad = try vault.run(["diary", "list", "--since", "2026-13-01"])
        try expectDiaryFailure(bad, ["cannot read the date '2026-13-01'"], vault, unchangedFrom: before)
    }

    @Test func anUncommittedUndatedEntryIsDatedByItsFileTime() throws {
        let vault = try DiaryVault.fresh()
        let loose = "diary/loose/아무 이름.md"
        try vault.write(loose, "이름만 있는 글\n")
        let when = Date(timeIntervalSince1970: 1_706_875_200)  // 2024-02-02T12:00:00Z, 21:00 in Seoul
        try FileManager.default.setAttributes([.modificationDate: when], ofItemAtPath: vault.root + "/" + loose)
        let list = try diaryListJSON(try vault.run(["diary", "list", "--json"]))
        try #require(list.count == 1)
        #expect(list[0]["date"] as? String == "2024-02-02")
        #expect(list[0]["date_source"] as? String == "modified")
    }

    // MARK: 8. Travel

    @Test func anEntryWrittenAbroadStaysOnItsNight() throws {
        let vault = try DiaryVault.fresh(locale: "ko_KR", timeZone: "Asia/Seoul")
        let history = try vault.subjects()
        let body = "컨퍼런스가 끝났다. 안개가 빨리 밀려왔다.\n"
        let r = try vault.run(
            ["write", "Late night", "--body", body, "--date", "2026-09-12T23:40"], tz: "America/Los_Angeles")
        try expectDiarySuccess(r, vault)
        let path = "diary/2026/2026-09-12-late-night.md"
        #expect(vault.diaryFiles() == [path])
        let entry = try vault.entry(path)
        #expect(entry.value("created") == "2026-09-12T23:40:00-07:00")
        #expect(entry.value("updated") == "2026-09-12T23:40:00-07:00")
        #expect(entry.heading == "2026년 9월 12일 토요일")
        #expect(entry.afterHeading == "\n" + body)
        #expect(try vault.subjects() == ["diary: add 2026-09-12 Late night"] + history)

        // Read back in Seoul (where it is already the 13th): still the 12th.
        for tz in ["Asia/Seoul", "America/Los_Angeles", "UTC"] {
            let list = try diaryListJSON(try vault.run(["diary", "list", "--json"], tz: tz))
            try #require(list.count == 1)
            #expect(list[0]["date"] as? String == "2026-09-12", "TZ=\(tz): \(list[0])")
            #expect(list[0]["created"] as? String == "2026-09-12T23:40:00-07:00")
        }
        do {
            let tz = "Asia/Seoul"
            let on12 = try diaryListJSON(
                try vault.run(["diary", "list", "--json", "--since", "2026-09-12", "--until", "2026-09-12"], tz: tz))
            #expect(on12.map { $0["path"] as? String } == [path])
            let from13 = try diaryListJSON(try vault.run(["diary", "list", "--json", "--since", "2026-09-13"], tz: tz))
            #expect(from13.isEmpty, "\(from13)")
            let text = try vault.run(["diary", "list"], tz: tz, extra: ["COLUMNS": "120"])
            #expect(text.stdout.contains("2026년 9월 12일") && text.stdout.contains("Late night"), "\(text.stdout)")
            let piped = try vault.run(["diary", "list"], tz: tz)
            #expect(piped.stdout.hasPrefix("\(path)\t2026-09-12\tLate night\t\t"), "\(piped.stdout)")
        }
        #expect(try vault.status() == "")
    }
}
