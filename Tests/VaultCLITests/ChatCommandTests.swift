import Foundation
import Testing
import VaultTestSupport

/// `vault chat` and `vault room new`, end to end, with the built-in offline provider.
@Suite struct ChatCommandTests {
    /// The display date the tool writes in headers (FORMAT.md: the locale's full date and short time).
    private func display(_ timestamp: String, locale: String, zone: String) throws -> String {
        let date = try #require(rfc3339(timestamp), "bad timestamp \(timestamp)")
        let f = DateFormatter()
        f.locale = Locale(identifier: locale)
        f.timeZone = TimeZone(identifier: zone)
        f.dateStyle = .full
        f.timeStyle = .short
        return f.string(from: date)
    }

    private func isToolMessageID(_ id: String) -> Bool {
        let crockford = Set("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
        return id.hasPrefix("m-") && id.count == 14 && id.dropFirst(2).allSatisfy { crockford.contains($0) }
    }

    /// Checks one turn appended to a room: old bytes kept up to the marker, a user message with
    /// `message` and an offline assistant reply added, the marker last. Returns the new messages.
    @discardableResult
    private func expectTurnAppended(
        old: [UInt8], new: [UInt8], message: String, result: RunResult, path: String, locale: String = "ko_KR",
        zone: String = "Asia/Seoul", offset: String = "+09:00", keptBelowMarker: String = "",
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [ParsedMessage] {
        let cut = try #require(
            old.lastPromptMarkerOffset(), "the old file has no marker", sourceLocation: sourceLocation)
        #expect(
            new.hasPrefix(Array(old[..<cut])), "bytes before the old marker changed", sourceLocation: sourceLocation)
        #expect(
            new.hasSuffix(utf8(promptMarker + "\n" + keptBelowMarker)), "the file does not end with the marker",
            sourceLocation: sourceLocation)
        let oldRoom = parseRoom(String(decoding: old, as: UTF8.self))
        let room = parseRoom(String(decoding: new, as: UTF8.self))
        try #require(room.messages.count == oldRoom.messages.count + 2, sourceLocation: sourceLocation)
        let user = room.messages[room.messages.count - 2]
        let reply = room.messages[room.messages.count - 1]
        #expect(user.header.role == "user", sourceLocation: sourceLocation)
        #expect(user.body == message, sourceLocation: sourceLocation)
        #expect(user.header.attributes.isEmpty, sourceLocation: sourceLocation)
        #expect(reply.header.role == "assistant", sourceLocation: sourceLocation)
        #expect(reply.header.attributes["provider"] == "offline", sourceLocation: sourceLocation)
        #expect(reply.header.attributes["model"] != nil, sourceLocation: sourceLocation)
        #expect(reply.body.hasPrefix("(offline)"), sourceLocation: sourceLocation)
        let firstLine = message.split(separator: "\n", omittingEmptySubsequences: false)[0]
        #expect(
            reply.body.contains("\n> \(firstLine)\n"), "the offline reply does not quote the message",
            sourceLocation: sourceLocation)
        for m in [user, reply] {
            #expect(
                isTimestamp(m.header.timestamp, offset: offset), "\(m.header.timestamp)", sourceLocation: sourceLocation
            )
            #expect(isToolMessageID(m.header.id), "\(m.header.id)", sourceLocation: sourceLocation)
            #expect(!oldRoom.messages.contains { $0.header.id == m.header.id }, sourceLocation: sourceLocation)
            if let t = rfc3339(m.header.timestamp) {
                #expect(
                    abs(t.timeIntervalSinceNow) < 600, "timestamp is not now: \(m.header.timestamp)",
                    sourceLocation: sourceLocation)
            }
        }
        #expect(user.header.id != reply.header.id, sourceLocation: sourceLocation)
        if let a = rfc3339(user.header.timestamp), let b = rfc3339(reply.header.timestamp) {
            #expect(a <= b, sourceLocation: sourceLocation)
        }
        // The header lines themselves: the display part in the vault's locale and zone.
        let lines = String(decoding: new, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let userLine = String(lines[user.line - 1])
        let expectedUser =
            "## 🧑 user · \(try display(user.header.timestamp, locale: locale, zone: zone)) "
                + "<!-- \(user.header.timestamp) \(user.header.id) -->"
        #expect(userLine == expectedUser, sourceLocation: sourceLocation)
        let replyLine = String(lines[reply.line - 1])
        #expect(
            replyLine.hasPrefix("## 🤖 assistant · \(try display(reply.header.timestamp, locale: locale, zone: zone))"),
            "\(replyLine)", sourceLocation: sourceLocation)
        // The reply is streamed to stdout; where it was saved goes to stderr.
        #expect(result.stdout.trimmingCharacters(in: .newlines) == reply.body, sourceLocation: sourceLocation)
        #expect(
            result.stderr.contains("(saved to \(path), line \(reply.line))"), "\(result.stderr)",
            sourceLocation: sourceLocation)
        return [user, reply]
    }

    /// Every file but `path` is as it was.
    private func expectOnlyChanged(
        _ path: String, _ before: [String: [UInt8]], _ after: [String: [UInt8]],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        // The vault's git repository (.git/) records the change: VaultGitTests check it.
        let b = before.filter { $0.key != path && !$0.key.hasPrefix(".git/") }
        let a = after.filter { $0.key != path && !$0.key.hasPrefix(".git/") }
        expectUnchanged(b, a, sourceLocation: sourceLocation)
    }

    // MARK: Appending

    @Test func chatAppendsATurnToASampleRoom() throws {
        let vault = try Project.copyOfSampleVault()
        let before = try vault.snapshot()
        let old = try vault.read(offlineSampleRoom)
        let message = "발제문 초안을 같이 써 줘.\n두 번째 줄, 끝에 공백  "
        let r = try runVault(["chat", "독서-모임-발제문", message], in: vault.path)
        expectSuccess(r)
        let new = try vault.read(offlineSampleRoom)
        try expectTurnAppended(old: old, new: new, message: message, result: r, path: offlineSampleRoom)
        #expect(parseRoom(String(decoding: new, as: UTF8.self)).messages.last?.header.attributes["model"] == "echo")
        expectOnlyChanged(offlineSampleRoom, before, try vault.snapshot())
        try expectCheckClean(vault.path)
        #expect(leftoverTemporaryFiles(vault.path).isEmpty)
    }

    @Test func roomNewThenSeveralTurnsInAFreshVault() throws {
        let vault = try freshVault(locale: "en_US", timeZone: "Asia/Tokyo")
        let made = try runVault(
            ["room", "new", "Weekend Plans", "--model", "echo-2", "--system", "Be brief."], in: vault.path)
        expectSuccess(made)
        #expect(made.stdout.contains("Made rooms/weekend-plans.md"))
        let path = "rooms/weekend-plans.md"
        let created = try vault.readText(path)
        let lines = created.split(separator: "\n", omittingEmptySubsequences: false)
        try #require(lines.count == 9, "\(created)")
        #expect(lines[0] == "---")
        #expect(lines[1] == "title: Weekend Plans")
        #expect(lines[2].hasPrefix("created: ") && isTimestamp(String(lines[2].dropFirst(9)), offset: "+09:00"))
        #expect(lines[3] == "model: echo-2")
        #expect(lines[4] == "system: Be brief.")
        #expect(lines[5] == "---")
        #expect(lines[6] == "")
        #expect(lines[7] == Substring(promptMarker))
        #expect(lines[8] == "")
        try expectCheckClean(vault.path)

        var old = try vault.read(path)
        // The room names a model; only when asked does the offline provider answer in its place.
        let r1 = try runVault(["chat", "weekend", "Where should we hike?", "--provider", "offline"], in: vault.path)
        expectSuccess(r1)
        var new = try vault.read(path)
        var turn = try expectTurnAppended(
            old: old, new: new, message: "Where should we hike?", result: r1, path: path, locale: "en_US",
            zone: "Asia/Tokyo")
        #expect(turn[1].header.attributes["model"] == "echo-2")
        #expect(turn[1].body.contains("it is message 1 of this room"))

        old = new
        let r2 = try runVault(
            ["chat", "weekend-plans", "And where to eat after?", "--provider", "offline"], in: vault.path)
        expectSuccess(r2)
        new = try vault.read(path)
        turn = try expectTurnAppended(
            old: old, new: new, message: "And where to eat after?", result: r2, path: path, locale: "en_US",
            zone: "Asia/Tokyo")
        #expect(turn[1].body.contains("it is message 3 of this room"))
        #expect(
            parseRoom(String(decoding: new, as: UTF8.self)).messages.map(\.header.role) == [
                "user", "assistant", "user", "assistant",
            ])
        try expectCheckClean(vault.path)
        #expect(leftoverTemporaryFiles(vault.path).isEmpty)
    }

    @Test func roomNewNamesFilesBySlugAndNeverOverwrites() throws {
        let vault = try freshVault()
        expectSuccess(try runVault(["room", "new", "부산 여행!"], in: vault.path))
        expectSuccess(try runVault(["room", "new", "부산 여행!"], in: vault.path))
        // The title in NFD (as macOS writes Hangul) names the same slug.
        let nfd = "부산 여행!".decomposedStringWithCanonicalMapping
        expectSuccess(try runVault(["room", "new", nfd], in: vault.path))
        #expect(
            vault.files().filter { $0.hasPrefix("rooms/") } == [
                "rooms/부산-여행-2.md", "rooms/부산-여행-3.md", "rooms/부산-여행.md",
            ])
        #expect(try vault.readText("rooms/부산-여행.md").contains("title: 부산 여행!\n"))
        let before = try vault.snapshot()
        expectUserError(try runVault(["room", "new", "   "], in: vault.path), ["title"])
        expectUnchanged(before, try vault.snapshot())
    }

    @Test func messageFromStandardInput() throws {
        let vault = try Project.copyOfSampleVault()
        let old = try vault.read(offlineSampleRoom)
        let r = try runVault(["chat", "독서"], in: vault.path, stdin: "\npiped in\nfrom stdin 🙂\n\n")
        expectSuccess(r)
        try expectTurnAppended(
            old: old, new: try vault.read(offlineSampleRoom), message: "piped in\nfrom stdin 🙂", result: r,
            path: offlineSampleRoom)
        try expectCheckClean(vault.path)
    }

    @Test func pendingPromptIsSentAndBecomesTheUserMessage() throws {
        let vault = try Project.copyOfSampleVault()
        let pending = "발제문 첫 문단:\n이 책은 기억에 관한 이야기다.\n"
        var old = try vault.read(offlineSampleRoom)
        old += utf8(pending)
        try vault.write(offlineSampleRoom, old)
        let r = try runVault(["chat", "독서-모임-발제문"], in: vault.path)
        expectSuccess(r)
        let new = try vault.read(offlineSampleRoom)
        try expectTurnAppended(
            old: old, new: new, message: "발제문 첫 문단:\n이 책은 기억에 관한 이야기다.", result: r, path: offlineSampleRoom)
        // The pending text is gone from below the marker (it is now the user message).
        #expect(parseRoom(String(decoding: new, as: UTF8.self)).pending == "")
        try expectCheckClean(vault.path)

        // Nothing pending any more: a second `vault chat ROOM` has nothing to send and changes nothing.
        let before = try vault.snapshot()
        let again = try runVault(["chat", "독서-모임-발제문"], in: vault.path)
        expectUserError(again, ["nothing to send", offlineSampleRoom])
        expectUnchanged(before, try vault.snapshot())
    }

    @Test func aMessageArgumentKeepsTheTextTypedBelowTheMarker() throws {
        let vault = try Project.copyOfSampleVault()
        var old = try vault.read(offlineSampleRoom)
        old += utf8("a draft I am still writing\n")
        try vault.write(offlineSampleRoom, old)
        let r = try runVault(["chat", "독서", "something else first"], in: vault.path)
        expectSuccess(r)
        let new = try vault.read(offlineSampleRoom)
        try expectTurnAppended(
            old: old, new: new, message: "something else first", result: r, path: offlineSampleRoom,
            keptBelowMarker: "a draft I am still writing\n")
    }

    @Test func headerLookingLinesAreEscapedInTheFileAndShownAsTyped() throws {
        let vault = try Project.copyOfSampleVault()
        let fakeUser = "## 🧑 user · 2026년 1월 1일 <!-- 2026-01-01T09:00:00+09:00 m-ABCDEFGHJKMN -->"
        let fakeReply = "\\## 🤖 assistant · x <!-- 2026-01-01T09:00:01+09:00 m-ABCDEFGHJKMP model=echo -->"
        let fakeMarker = "<!-- vault:prompt · not really -->"
        let badHeader = "## 🧑 user · y <!-- 2026-13-01T09:00:00+09:00 m-ABCDEFGHJKMQ -->"
        let message = [
            "copied from another room:", fakeUser, fakeReply, fakeMarker, badHeader, "## just a heading", "end",
        ]
            .joined(separator: "\n")
        let old = try vault.read(offlineSampleRoom)
        let r = try runVault(["chat", "독서", message], in: vault.path)
        expectSuccess(r)
        let new = try vault.read(offlineSampleRoom)
        let text = String(decoding: new, as: UTF8.self)
        // In the file: one backslash added in front of each structural line, nothing else changed.
        let stored = [
            "copied from another room:", "\\" + fakeUser, "\\" + fakeReply, "\\" + fakeMarker, "\\" + badHeader,
            "## just a heading", "end",
        ]
            .joined(separator: "\n")
        #expect(text.contains("\n\n" + stored + "\n\n## 🤖 assistant · "), "\(text)")
        try expectTurnAppended(old: old, new: new, message: message, result: r, path: offlineSampleRoom)
        try expectCheckClean(vault.path)
        // `vault show` prints the body as it was typed.
        let show = try runVault(["show", "독서"], in: vault.path)
        expectSuccess(show)
        #expect(show.stdout.contains("\n" + message + "\n"), "\(show.stdout)")
        #expect(!show.stdout.contains("\\" + fakeUser))
        #expect(show.stdout.contains("\n" + fakeReply + "\n"))
        #expect(!show.stdout.contains("\\\\## 🤖"))
    }

    @Test(arguments: [
        ("독서-모임-발제문", ""),  // slug
        ("독서 모임", ""),  // title prefix
        ("독서", "rooms"),  // title prefix from a subfolder
        ("rooms/독서-모임-발제문.md", ""),  // path from the vault
        ("./독서-모임-발제문.md", "rooms"),  // path from the working folder
        ("../rooms/독서-모임-발제문.md", "diary"),  // path with ..
        ("독서-모임-발제문".decomposedStringWithCanonicalMapping, ""),  // slug in NFD
        ("독서".decomposedStringWithCanonicalMapping, ""),  // prefix in NFD
    ])
    func roomsAreFoundBySlugTitleOrPath(name: String, cwd: String) throws {
        let vault = try Project.copyOfSampleVault()
        let before = try vault.snapshot()
        let old = try vault.read(offlineSampleRoom)
        let r = try runVault(["chat", name, "found by \(name)"], in: cwd.isEmpty ? vault.path : vault.path + "/" + cwd)
        expectSuccess(r)
        try expectTurnAppended(
            old: old, new: try vault.read(offlineSampleRoom), message: "found by \(name)", result: r,
            path: offlineSampleRoom)
        expectOnlyChanged(offlineSampleRoom, before, try vault.snapshot())
    }

    @Test func titlePrefixIsCaseInsensitive() throws {
        let vault = try freshVault()
        expectSuccess(try runVault(["room", "new", "Trip to Busan"], in: vault.path))
        expectSuccess(try runVault(["room", "new", "Tokyo notes"], in: vault.path))
        let r = try runVault(["chat", "TRIP", "hello"], in: vault.path)
        expectSuccess(r)
        #expect(try vault.readText("rooms/trip-to-busan.md").contains("\n\nhello\n\n"))
        #expect(!(try vault.readText("rooms/tokyo-notes.md")).contains("hello"))
    }

    @Test(arguments: [
        (
            ["chat", "s", "hi"],
            ["'s' matches more than one item", "rooms/sf-trip-packing-list.md", "rooms/swift-concurrency-공부.md"]
        ),
        (["chat", "no-such-room", "hi"], ["no room or diary entry matches 'no-such-room'"]),
        (["chat", "rooms/missing.md", "hi"], ["rooms/missing.md"]),
        (["chat", "2026-11-21", "hi"], ["diary/2026/2026-11-21-첫눈.md", "diary entry, not a room"]),
        (["chat", "부산-여행", "hi", "--provider", "nowhere"], ["'nowhere'", "not configured", "vault.yml"]),
        (["chat", "김치찌개-레시피"], ["'ollama'", "offline"]),
        (["chat", "", "hi"], ["name a room"]),
        (["chat", "독서", "   \n  \n"], ["nothing to send"]),
    ])
    func chatFailuresAreClearAndChangeNothing(args: [String], fragments: [String]) throws {
        let vault = try Project.copyOfSampleVault()
        let before = try vault.snapshot()
        let r = try runVault(args, in: vault.path)
        expectUserError(r, fragments)
        #expect(r.stdout.isEmpty)
        expectUnchanged(before, try vault.snapshot())
        #expect(leftoverTemporaryFiles(vault.path).isEmpty)
    }

    @Test(arguments: [
        // Front-matter that is not valid YAML (an indented key under a plain scalar): line 3.
        ("---\ntitle: x\n  created: 2026-11-20T22:48:03+09:00\nmodel: echo\n---\n\n\(promptMarker)\n", 3, "YAML"),
        // A header whose timestamp has month 13: line 7.
        (
            "---\ntitle: x\ncreated: 2026-11-20T22:48:03+09:00\n---\n\nnotes\n"
                + "## 🧑 user · 2026년 13월 1일 <!-- 2026-13-01T09:00:00+09:00 m-ABCDEFGHJKMN -->\n\n"
                + "hi\n\n\(promptMarker)\n",
            7, "2026-13-01T09:00:00+09:00"
        ),
        // A header with an id that is too short: line 6.
        (
            "---\ntitle: x\n---\n\n\n"
                + "## 🤖 assistant · d <!-- 2026-11-01T09:00:00+09:00 m-AB model=echo -->\n\nhi\n\n\(promptMarker)\n",
            6, "m-AB"
        ),
        // Front-matter never closed: line 1.
        ("---\ntitle: x\ncreated: 2026-11-20T22:48:03+09:00\n\n\(promptMarker)\n", 1, "never closed"),
        // Duplicate key: line 4.
        ("---\ntitle: x\nmodel: echo\ntitle: y\n---\n\n\(promptMarker)\n", 4, "'title'"),
    ])
    func chatIntoABrokenRoomNamesFileAndLineAndWritesNothing(content: String, line: Int, detail: String) throws {
        let vault = try Project.copyOfSampleVault()
        try vault.write("rooms/x.md", content)
        let before = try vault.snapshot()
        for name in ["x", "rooms/x.md"] {
            let r = try runVault(["chat", name, "hello"], in: vault.path)
            expectUserError(r, ["rooms/x.md:\(line):", detail])
            #expect(r.stderr.hasPrefix("vault: error: rooms/x.md:\(line): "), "\(r.stderr)")
            expectUnchanged(before, try vault.snapshot())
        }
        // With a pending prompt instead of a message: the same.
        try vault.write("rooms/x.md", content + "pending text\n")
        let before2 = try vault.snapshot()
        let r = try runVault(["chat", "rooms/x.md"], in: vault.path)
        expectUserError(r, ["rooms/x.md:\(line):"])
        expectUnchanged(before2, try vault.snapshot())
        #expect(leftoverTemporaryFiles(vault.path).isEmpty)
    }

    @Test func chatIntoARoomWithInvalidUTF8NamesTheLineAndWritesNothing() throws {
        let vault = try Project.copyOfSampleVault()
        var bytes = utf8(
            "---\ntitle: x\n---\n\n## 🧑 user · d <!-- 2026-11-01T09:00:00+09:00 m-ABCDEFGHJKMN -->\n\nbad ")
        bytes += [0xFF, 0xFE]
        bytes += utf8(" bytes\n\n\(promptMarker)\n")
        try vault.write("rooms/x.md", bytes)
        let before = try vault.snapshot()
        let r = try runVault(["chat", "rooms/x.md", "hello"], in: vault.path)
        expectUserError(r, ["rooms/x.md:7:", "UTF-8"])
        expectUnchanged(before, try vault.snapshot())
    }

    // MARK: Line endings and byte-order mark

    @Test func crlfRoomGetsCRLFLinesAndKeepsItsBytes() throws {
        let vault = try freshVault()
        expectSuccess(try runVault(["room", "new", "Windows room"], in: vault.path))
        let path = "rooms/windows-room.md"
        var lf = try vault.readText(path)
        lf = lf.replacingOccurrences(
            of: promptMarker,
            with: "## 🧑 user · x <!-- 2026-11-01T09:00:00+09:00 m-ABCDEFGHJKMN -->\n\nold line\n\n" + promptMarker)
        let crlf = utf8(lf.replacingOccurrences(of: "\n", with: "\r\n"))
        try vault.write(path, crlf)
        let r = try runVault(["chat", "windows", "line one\nline two"], in: vault.path)
        expectSuccess(r)
        let new = try vault.read(path)
        let cut = try #require(crlf.lastPromptMarkerOffset())
        #expect(new.hasPrefix(Array(crlf[..<cut])))
        let added = Array(new[cut...])
        // The lines the tool adds (headers, framing, marker) end in CRLF; the body is kept byte for byte.
        let addedLines = added.split(separator: 10, omittingEmptySubsequences: false).map {
            String(decoding: $0, as: UTF8.self)
        }
        let headerLines = addedLines.filter { $0.hasPrefix("## ") }
        #expect(headerLines.count == 2)
        for l in headerLines { #expect(l.hasSuffix(" -->\r"), "header line without CRLF: \(l)") }
        let addedText = String(decoding: added, as: UTF8.self)
        #expect(addedText.hasPrefix("## 🧑 user · "))
        #expect(
            addedText.contains(" -->\r\n\r\nline one\nline two\r\n\r\n## 🤖 assistant · "),
            "\(addedText.debugDescription)")
        #expect(addedText.hasSuffix("\r\n\r\n" + promptMarker + "\r\n"))
        try expectCheckClean(vault.path)
        let show = try runVault(["show", "windows"], in: vault.path)
        expectSuccess(show)
        #expect(show.stdout.contains("old line"))
        #expect(show.stdout.contains("line one\nline two"))
    }

    @Test func byteOrderMarkIsKept() throws {
        let vault = try Project.copyOfSampleVault()
        let old = [0xEF, 0xBB, 0xBF] + (try vault.read(offlineSampleRoom))
        try vault.write(offlineSampleRoom, old)
        let r = try runVault(["chat", "독서", "with a BOM"], in: vault.path)
        expectSuccess(r)
        let new = try vault.read(offlineSampleRoom)
        #expect(new.hasPrefix(Array(old[..<(try #require(old.lastPromptMarkerOffset()))])))
        #expect(new.hasPrefix([0xEF, 0xBB, 0xBF, UInt8(ascii: "-")]))
        #expect(String(decoding: new, as: UTF8.self).contains("\n\nwith a BOM\n\n"))
        try expectCheckClean(vault.path)
    }
}
