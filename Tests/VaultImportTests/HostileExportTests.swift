import Foundation
import Testing
import VaultCore
import VaultGit
import VaultTestSupport

@testable import VaultImport

#if canImport(Glibc)
import Glibc
#endif

/// A vault with its history, an export folder someone sent, and a secret outside both: what an
/// export made to attack would reach for (issue #36).
struct HostileWorld {
    static let secret = "SECRET-36-must-never-be-imported"
    let dir: TemporaryDirectory
    let vault: Vault
    let exports = TemporaryDirectory("vault-hostile-export")
    let outside = TemporaryDirectory("vault-outside")
    var secretPath: String { outside.path + "/secret.txt" }

    /// `maxFileSize`: vault.yml's `limits: max_file_size` (committed), else the default.
    init(maxFileSize: String? = nil) throws {
        dir = TemporaryDirectory("vault-hostile")
        var made = try Initializing.run(at: dir.path, locale: "en_US", timeZone: TimeZone(identifier: "UTC")!, settings: .ofThisTest).vault
        if let maxFileSize {
            try dir.write("vault.yml", try dir.readText("vault.yml") + "limits:\n  max_file_size: \(maxFileSize)\n")
            try git(["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qam", "limits"], in: dir.path)
            made = try Vault(root: dir.path)
        }
        vault = made.with(history: try GitHistory(vault: dir.path, config: made.config))
        try outside.write("secret.txt", Self.secret)
    }

    /// What an import that was refused must leave as it was: the files (not `.vault/`), every
    /// commit with its changes, the work tree's status.
    struct State: Equatable {
        var files: [String: [UInt8]]
        var log: String
        var status: String
    }

    func state() throws -> State {
        State(
            files: try dir.snapshot().filter { !$0.key.hasPrefix(".vault/") && !$0.key.hasPrefix(".git/") },
            log: try git(["log", "-p", "--all"], in: dir.path), status: try git(["status", "--porcelain"], in: dir.path))
    }

    /// The secret is in no commit, no object of the repository (reachable or not), no file of
    /// the vault (`.git` and `.vault` too).
    func expectSecretNowhere(sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(!(try git(["log", "-p", "--all"], in: dir.path)).contains(Self.secret), sourceLocation: sourceLocation)
        let objects = try git(["cat-file", "--batch-all-objects", "--batch"], in: dir.path)
        #expect(!objects.contains(Self.secret), sourceLocation: sourceLocation)
        for (path, bytes) in try dir.snapshot() {
            #expect(!String(decoding: bytes, as: UTF8.self).contains(Self.secret), "\(path)", sourceLocation: sourceLocation)
        }
    }

    /// No process holds `.vault/lock`.
    func expectLockFree(sourceLocation: SourceLocation = #_sourceLocation) {
        let fd = open(dir.path + "/.vault/lock", O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { return }
        defer { close(fd) }
        #expect(flock(fd, LOCK_EX | LOCK_NB) == 0, "the vault's lock is held", sourceLocation: sourceLocation)
        flock(fd, LOCK_UN)
    }

    /// Imports `paths` with `reader` as a dry run, then for real: both refused with `expected`
    /// (the export's folder written `EXPORT`), the vault as it was, the secret nowhere, the
    /// lock free.
    func expectRefused(
        _ reader: some ImportReader, _ paths: [String], _ expected: String, machineLimits: IncomingLimits = IncomingLimits(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let before = try state()
        for dryRun in [true, false] {
            let problem = importProblem(in: exports.path) { () throws(VaultError) in
                _ = try Importing(vault: vault, machineLimits: machineLimits).run(reader, paths: paths, dryRun: dryRun)
            }
            #expect(problem == expected, "dry run: \(dryRun)", sourceLocation: sourceLocation)
            #expect(try state() == before, "dry run: \(dryRun)", sourceLocation: sourceLocation)
        }
        try expectSecretNowhere(sourceLocation: sourceLocation)
        expectLockFree(sourceLocation: sourceLocation)
    }

    /// Imports `paths` with `reader`: it succeeds, and the secret is nowhere.
    @discardableResult
    func expectImported(_ reader: some ImportReader, _ paths: [String], sourceLocation: SourceLocation = #_sourceLocation)
        throws -> Importing.Report
    {
        let report = try Importing(vault: vault).run(reader, paths: paths)
        try expectSecretNowhere(sourceLocation: sourceLocation)
        expectLockFree(sourceLocation: sourceLocation)
        return report
    }
}

/// JSON text of a value (`JSONSerialization`, slashes kept as they are).
func jsonText(_ value: Any) -> String {
    String(
        decoding: try! JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed]),
        as: UTF8.self)
}

/// Exports made to attack, one test per attack (issue #36): each is imported into a real vault
/// with its git history (`HostileWorld`) and refused with a message naming the place in the
/// export, as a dry run and for real; nothing outside the export is read (the secret beside it is
/// in no file of the vault and nowhere in its history), the vault's files and history are as they
/// were, and the vault's lock is free.
@Suite struct HostileExportTests {
    // MARK: 1. Names from the export's JSON

    static let up = String(repeating: "../", count: 12)

    /// `md5`/`type` pairs that name a file outside `photos/` (`SECRET`: the secret's path).
    static let photoNames: [(String, String)] = [
        ("../../../../../../../../../../proc/self/", "/environ"),  // the issue's
        (up + "SECRET", "txt"),
        ("4f1e2d3c", "jpeg/../../../../../../../../../../etc/hostname"),
        ("4f1e2d3c\u{0}", "jpeg"),
        ("/etc/hostname", ""),
    ]

    @Test(arguments: 0..<photoNames.count, [false, true])
    func aDayOnePhotoNamedOutsideItsFolderIsRefused(at index: Int, namingTheJournal: Bool) throws {
        let world = try HostileWorld()
        let (rawMD5, type) = Self.photoNames[index]
        let md5 = rawMD5.replacingOccurrences(of: "SECRET", with: String(world.secretPath.dropFirst().dropLast(4)))
        let journal = jsonText([
            "metadata": ["version": "1.0"],
            "entries": [
                [
                    "uuid": "E1", "creationDate": "2024-05-01T09:30:00Z", "text": "# Day\n\n![](dayone-moment://P1)",
                    "photos": [["identifier": "P1", "md5": md5, "type": type]],
                ]
            ],
        ])
        try world.exports.write("Journal.json", journal)
        try world.exports.write("photos/4f1e2d3c.jpeg", [0xFF, 0xD8, 0xFF, 0xD9])
        let name = String(reflecting: md5 + "." + type)
        try world.expectRefused(
            DayOneReader(), [world.exports.path + (namingTheJournal ? "/Journal.json" : "")],
            "EXPORT/Journal.json, at entries[0].photos[0]: names the photo \(name), which is not a Day One photo's name"
                + " (hex digits, a dot and a type like jpeg); vault reads only photos/<md5>.<type> inside the export")
    }

    // MARK: 2. Links and special files inside an export

    /// Where an export holds a link to the secret (or to a folder or file outside that holds
    /// it), or a FIFO, and what the import says.
    enum Inside: String, CaseIterable {
        case chatgptImage, chatgptImageFIFO, chatgptConversations, chatgptImagesFolder
        case claudeConversations, claudeProjects
        case claudeCodeLog, claudeCodeProject, claudeCodeLogFIFO
        case jrnlDayFile, dayOnePhoto, dayOnePhotosFolder, dayOneJournal, llmDatabase
    }

    /// A ChatGPT conversation whose user sends the image `file-Secret`.
    static let conversationWithImage = "[{\"title\": \"Look\", \"create_time\": 1700000000, \"conversation_id\": \"c1\", \"mapping\": {"
        + ChatGPTFixture.node(
            "u1", parent: nil, children: [], role: "user",
            content: "{\"content_type\": \"multimodal_text\", \"parts\": [{\"content_type\": \"image_asset_pointer\", \"asset_pointer\": \"file-service://file-Secret\"}, \"This?\"]}",
            time: "1700000001") + "}}]"

    /// Where a problem with that image begins.
    static let theImage = "EXPORT/conversations.json, at [0].mapping.u1.message.content.parts[0]: the image file-service://file-Secret"

    static let dayOneJournal = jsonText([
        "entries": [
            [
                "uuid": "E1", "creationDate": "2024-05-01T09:30:00Z", "text": "Day \(HostileWorld.secret)",
                "photos": [["identifier": "P1", "md5": "4f1e2d3c", "type": "jpeg"]],
            ]
        ]
    ])

    static func claudeCodeLog(_ text: String) -> String {
        jsonText([
            "type": "user", "uuid": "u1", "sessionId": "s1", "timestamp": "2026-03-01T09:00:00.000Z",
            "message": ["role": "user", "content": text],
        ]) + "\n"
    }

    @Test(arguments: Inside.allCases)
    func aLinkOrASpecialFileInsideAnExportIsRefusedByNameNeverRead(_ inside: Inside) throws {
        let world = try HostileWorld()
        let export = world.exports
        let outside = world.outside
        func link(_ name: String, to target: String) throws {
            try export.write(name, "")
            unlink(export.path + "/" + name)
            #expect(symlink(target, export.path + "/" + name) == 0)
        }
        let secretLink = "is a symbolic link; vault reads no link or special file in an export, only its regular files"
        /// `name` in the export made a link to a file outside it that holds `text`: the import
        /// names the link and refuses it.
        func refusesLink(_ name: String, to text: String, _ reader: some ImportReader) throws {
            let target = "linked-" + (name as NSString).lastPathComponent
            try outside.write(target, text)
            try link(name, to: outside.path + "/" + target)
            try world.expectRefused(reader, [export.path], "EXPORT/\(name): \(secretLink)")
        }
        switch inside {
        case .chatgptImage, .chatgptImageFIFO:
            try export.write("conversations.json", Self.conversationWithImage)
            if inside == .chatgptImage {
                try link("file-Secret-photo.png", to: world.secretPath)
            } else {
                #expect(mkfifo(export.path + "/file-Secret-photo.png", 0o644) == 0)
            }
            let kind = inside == .chatgptImage ? "a symbolic link" : "a FIFO"
            try world.expectRefused(
                ChatGPTReader(), [export.path],
                Self.theImage + " is EXPORT/file-Secret-photo.png, \(kind): vault reads no link or special file in an export")
        case .chatgptConversations:
            try refusesLink(
                "conversations.json", to: "[{\"title\": \"\(HostileWorld.secret)\", \"id\": \"c\", \"mapping\": {}}]",
                ChatGPTReader())
        case .chatgptImagesFolder:
            // A folder that is a link is not entered: the image in it is not in the export, and
            // the message keeps a placeholder (issue #37), nothing of the folder read.
            try export.write("conversations.json", Self.conversationWithImage)
            try outside.write("images/file-Secret-photo.png", HostileWorld.secret)
            try link("images", to: outside.path + "/images")
            let report = try world.expectImported(ChatGPTReader(), [export.path])
            #expect(report.missingFiles == ["image": 1] && report.attachments == 0)
            let room = try world.dir.readText(try #require(report.paths.first))
            #expect(room.contains("[image file-Secret is not in the export: file-service://file-Secret]"), "\(room)")
        case .claudeConversations:
            try refusesLink(
                "conversations.json", to: "[{\"uuid\": \"c\", \"name\": \"\(HostileWorld.secret)\", \"chat_messages\": []}]",
                ClaudeReader())
        case .claudeProjects:
            try export.write("conversations.json", "[{\"uuid\": \"c\", \"name\": \"x\", \"chat_messages\": []}]")
            try refusesLink("projects.json", to: "[{\"uuid\": \"p\", \"name\": \"\(HostileWorld.secret)\"}]", ClaudeReader())
        case .claudeCodeLog, .claudeCodeLogFIFO:
            try export.write("-home-me-x/a.jsonl", Self.claudeCodeLog("hello"))
            if inside == .claudeCodeLog {
                try refusesLink("-home-me-x/s.jsonl", to: Self.claudeCodeLog(HostileWorld.secret), ClaudeCodeReader())
            } else {
                #expect(mkfifo(export.path + "/-home-me-x/s.jsonl", 0o644) == 0)
                try world.expectRefused(
                    ClaudeCodeReader(), [export.path],
                    "EXPORT/-home-me-x/s.jsonl: is a FIFO; vault reads no link or special file in an export, only its regular files")
            }
        case .claudeCodeProject:
            try export.write("-home-me-x/a.jsonl", Self.claudeCodeLog("hello"))
            try outside.write("-home-me-y/s.jsonl", Self.claudeCodeLog(HostileWorld.secret))
            try link("-home-me-y", to: outside.path + "/-home-me-y")
            try world.expectRefused(ClaudeCodeReader(), [export.path], "EXPORT/-home-me-y: \(secretLink)")
        case .jrnlDayFile:
            try export.write("2024/05/01.txt", "[2024-05-01 09:30] A day.\n")
            try refusesLink("2024/05/02.txt", to: "[2024-05-02 09:30] \(HostileWorld.secret).\n", JrnlReader())
        case .dayOnePhoto, .dayOnePhotosFolder:
            try export.write("Journal.json", Self.dayOneJournal.replacingOccurrences(of: HostileWorld.secret, with: "x"))
            if inside == .dayOnePhoto {
                try link("photos/4f1e2d3c.jpeg", to: world.secretPath)
            } else {
                try outside.write("photos/4f1e2d3c.jpeg", HostileWorld.secret)
                try link("photos", to: outside.path + "/photos")
            }
            try world.expectRefused(
                DayOneReader(), [export.path],
                "EXPORT/Journal.json, at entries[0].photos[0]: the photo photos/4f1e2d3c.jpeg is not read: EXPORT/"
                    + (inside == .dayOnePhoto ? "photos/4f1e2d3c.jpeg " : "photos ") + secretLink)
        case .dayOneJournal:
            try refusesLink("Journal.json", to: Self.dayOneJournal, DayOneReader())
        case .llmDatabase:
            try makeLLMDatabase(outside.path + "/logs.db", prompt: HostileWorld.secret)
            try link("logs.db", to: outside.path + "/logs.db")
            try world.expectRefused(LLMReader(), [export.path], "EXPORT/logs.db: \(secretLink)")
        }
    }

    @Test func withNotesALinkedImageIsMissingAndSaysWhy() throws {
        let world = try HostileWorld()
        try world.exports.write("conversations.json", Self.conversationWithImage)
        #expect(symlink(world.secretPath, world.exports.path + "/file-Secret-photo.png") == 0)
        let report = try world.expectImported(ChatGPTReader(missingImage: .note), [world.exports.path])
        #expect(report.roomsNew == 1 && report.attachments == 0)
        let room = try world.dir.readText(try #require(report.paths.first))
        #expect(room.contains("[image file-Secret is not in the export: file-Secret-photo.png is a symbolic link, which vault does not read]"))
    }

    /// llm keeps an attachment by its path when it was not stored: the database may name any
    /// file of this machine, so the path is named in the message, not read.
    @Test func anLLMAttachmentPathIsNamedNotRead() throws {
        let world = try HostileWorld()
        try makeLLMDatabase(world.exports.path + "/logs.db", prompt: "Read this", attachmentPath: world.secretPath)
        let report = try world.expectImported(LLMReader(), [world.exports.path + "/logs.db"])
        #expect(report.roomsNew == 1 && report.attachments == 0)
        let room = try world.dir.readText(try #require(report.paths.first))
        #expect(room.contains("Attachment (text/plain): \(world.secretPath)"), "\(room)")
    }

    /// An llm database in the older schema (as llm 0.2x wrote it, with Python's sqlite3): one
    /// conversation of one response, its prompt `prompt`, an attachment kept only by its path
    /// when `attachmentPath`.
    func makeLLMDatabase(_ path: String, prompt: String, attachmentPath: String? = nil) throws {
        let script = """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            db.execute('create table _llm_migrations (name text, applied_at text)')
            db.execute('create table conversations (id text primary key, name text, model text)')
            db.execute('create table responses (id text primary key, model text, prompt text, system text, prompt_json text, options_json text, response text, response_json text, conversation_id text, duration_ms integer, datetime_utc text)')
            db.execute('create table attachments (id text primary key, type text, path text, url text, content blob)')
            db.execute('create table prompt_attachments (response_id text, attachment_id text, "order" integer)')
            db.execute("insert into conversations values ('c1', 'Hostile', 'gpt-4o')")
            db.execute("insert into responses (id, model, prompt, response, conversation_id, datetime_utc) values ('r1', 'gpt-4o', ?, 'ok', 'c1', '2024-05-01T10:00:00')", (sys.argv[2],))
            if len(sys.argv) > 3:
                db.execute("insert into attachments values ('a1', 'text/plain', ?, null, null)", (sys.argv[3],))
                db.execute("insert into prompt_attachments values ('r1', 'a1', 0)")
            db.commit()
            """
        try runPython(script, [path, prompt] + (attachmentPath.map { [$0] } ?? []))
    }

    /// Runs a Python script (its standard library only) with `arguments`.
    func runPython(_ script: String, _ arguments: String...) throws { try runPython(script, arguments) }

    func runPython(_ script: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script] + arguments
        let result = try run(process)
        guard result.status == 0 else { throw FixtureError("python3 failed: \(result.stderr)") }
    }

    // MARK: 3. The cap on what is held whole

    /// One conversation of `size` bytes of title (and a small one before it).
    static func conversations(titleSize size: Int) -> String {
        let small = "{\"title\": \"small\", \"create_time\": 1700000000, \"id\": \"c0\", \"mapping\": {}}"
        return "[\(small), {\"title\": \"\(String(repeating: "a", count: size))\", \"id\": \"c1\", \"mapping\": {}}]"
    }

    @Test(arguments: [false, true])
    func aConversationPastTheCapIsRefusedAsItStreamsAndTheCapCanBeRaised(zipped: Bool) throws {
        let world = try HostileWorld(maxFileSize: "1M")
        let json = Array(Self.conversations(titleSize: 2 << 20).utf8)
        let path: String
        if zipped {
            path = world.exports.path + "/export.zip"
            try makeZip(path, [("conversations.json", json)])
        } else {
            try world.exports.write("conversations.json", json)
            path = world.exports.path
        }
        let file = zipped ? "EXPORT/export.zip:conversations.json" : "EXPORT/conversations.json"
        try world.expectRefused(
            ChatGPTReader(), [path],
            "\(file), at [1]: is more than 1 MiB, the most vault holds of one conversation"
                + " (vault.yml's `limits: max_file_size:` lowers the cap for every machine of the vault)")
        // Lowered less, the same export comes in.
        let raised = try HostileWorld(maxFileSize: "4M")
        let report = try Importing(vault: raised.vault).run(ChatGPTReader(), paths: [path])
        #expect(report.roomsNew == 2 && report.committed)
    }

    /// The import cap is this machine's (issue #36, item 7): a vault.yml that a collaborator
    /// raised to 100G does not raise it, and the refusal names this machine's settings; this
    /// machine's own cap, raised, lets the same export in.
    @Test func aVaultYmlCannotRaiseTheImportCapAndThisMachineCan() throws {
        let world = try HostileWorld(maxFileSize: "100G")
        try world.exports.write("conversations.json", Array(Self.conversations(titleSize: 2 << 20).utf8))
        let mine = IncomingLimits().setting(IncomingLimits.Setting(["max_file_size": 1 << 20]))
        try world.expectRefused(
            ChatGPTReader(), [world.exports.path],
            "EXPORT/conversations.json, at [1]: is more than 1 MiB, the most vault holds of one conversation"
                + " (this machine's cap: `git config vault.maxFileSize SIZE` in the vault, or"
                + " `limits: max_file_size: SIZE` in ~/.config/vault/config.yml, raises it; vault.yml cannot)",
            machineLimits: mine)
        let raised = IncomingLimits().setting(IncomingLimits.Setting(["max_file_size": 4 << 20]))
        let report = try Importing(vault: world.vault, machineLimits: raised).run(ChatGPTReader(), paths: [world.exports.path])
        #expect(report.roomsNew == 2 && report.committed)
    }

    /// Each reader's part held whole, past a cap of 1 MiB: where and what the problem says.
    enum Whole: String, CaseIterable {
        case dayOneJournal, dayOneJournalInZip, claudeCodeLine, jrnlJournal, chatgptImage, claudeProjects, dayOnePhoto
    }

    @Test(arguments: Whole.allCases)
    func whatAReaderHoldsWholeIsHeldToTheCap(_ whole: Whole) throws {
        let world = try HostileWorld(maxFileSize: "1M")
        let export = world.exports
        let big = String(repeating: "a", count: (1 << 20) + 1)
        let cap = "is more than 1 MiB, the most vault holds of one"
        let raise = "(vault.yml's `limits: max_file_size:` lowers the cap for every machine of the vault)"
        switch whole {
        case .dayOneJournal, .dayOneJournalInZip:
            let journal = jsonText(["entries": [["uuid": "E1", "creationDate": "2024-05-01T09:30:00Z", "text": big]]])
            if whole == .dayOneJournal {
                try export.write("Journal.json", journal)
                try world.expectRefused(DayOneReader(), [export.path], "EXPORT/Journal.json: \(cap) file of an export \(raise)")
            } else {
                try makeZip(export.path + "/dayone.zip", [("Journal.json", Array(journal.utf8))])
                try world.expectRefused(
                    DayOneReader(), [export.path + "/dayone.zip"],
                    "EXPORT/dayone.zip, at Journal.json: \(cap) file of an export \(raise)")
            }
        case .claudeCodeLine:
            try export.write("-home-me-x/s.jsonl", Self.claudeCodeLog("hi") + Self.claudeCodeLog(big))
            try world.expectRefused(
                ClaudeCodeReader(), [export.path + "/-home-me-x/s.jsonl"],
                "EXPORT/-home-me-x/s.jsonl, at line 2: \(cap) line of a log \(raise)")
        case .jrnlJournal:
            try export.write("journal.txt", "[2024-05-01 09:30] A day.\n" + big + "\n")
            try world.expectRefused(JrnlReader(), [export.path + "/journal.txt"], "EXPORT/journal.txt: \(cap) journal \(raise)")
        case .chatgptImage:
            try export.write("conversations.json", Self.conversationWithImage)
            try export.write("file-Secret-photo.png", big)
            try world.expectRefused(
                ChatGPTReader(), [export.path], "EXPORT/file-Secret-photo.png: \(cap) file of an export \(raise)")
        case .claudeProjects:
            try export.write("conversations.json", "[{\"uuid\": \"c\", \"name\": \"x\", \"chat_messages\": []}]")
            try export.write("projects.json", "[{\"uuid\": \"p\", \"name\": \"\(big)\"}]")
            try world.expectRefused(ClaudeReader(), [export.path], "EXPORT/projects.json: \(cap) file of an export \(raise)")
        case .dayOnePhoto:
            try export.write("Journal.json", Self.dayOneJournal)
            try export.write("photos/4f1e2d3c.jpeg", big)
            try world.expectRefused(
                DayOneReader(), [export.path],
                "EXPORT/Journal.json, at entries[0].photos[0]: the photo photos/4f1e2d3c.jpeg is not read:"
                    + " EXPORT/photos/4f1e2d3c.jpeg \(cap) file of an export \(raise)")
        }
    }

    // MARK: 4. Numbers out of range

    /// Epoch seconds no timestamp can hold (Double → Int64 trapped past 9.2e18; a year past 9999
    /// cannot be written in four digits).
    static let hugeTimes = ["1e19", "9.3e18", "1e300", "253402300800"]

    enum TimePlace: String, CaseIterable { case conversation, update, message }

    @Test(arguments: hugeTimes, TimePlace.allCases)
    func aChatGPTTimeNoTimestampCanHoldIsAProblemNamingThePlace(_ value: String, _ place: TimePlace) throws {
        let world = try HostileWorld()
        let time = { (here: TimePlace) in place == here ? value : "1700000000" }
        try world.exports.write(
            "conversations.json",
            "[{\"title\": \"t\", \"create_time\": \(time(.conversation)), \"update_time\": \(time(.update)), \"id\": \"c1\","
                + " \"mapping\": {" + ChatGPTFixture.node(
                    "u1", parent: nil, children: [], role: "user", content: ChatGPTFixture.text("hi"), time: time(.message))
                + "}}]")
        let shown = "\(try JSONSerialization.jsonObject(with: Data(value.utf8), options: [.fragmentsAllowed]))"
        let at = [TimePlace.conversation: "create_time", .update: "update_time", .message: "mapping.u1.message.create_time"][place]!
        try world.expectRefused(
            ChatGPTReader(), [world.exports.path],
            "EXPORT/conversations.json, at [0].\(at): is \(shown), not a time vault can hold (seconds since 1970, up to the year 9999)")
    }

    @Test func aDayOneTimePastTheYear9999InItsZoneIsAProblem() throws {
        let world = try HostileWorld()
        try world.exports.write(
            "Journal.json",
            jsonText(["entries": [["uuid": "E1", "creationDate": "9999-12-31T23:00:00Z", "timeZone": "Asia/Tokyo", "text": "x"]]]))
        try world.expectRefused(
            DayOneReader(), [world.exports.path],
            "EXPORT/Journal.json, at entries[0].creationDate: is a time vault cannot hold in its zone (the years 0 to 9999 only)")
    }

    /// Found by the jrnl fuzz target: Foundation's calendar takes the year 0000 for 1 BC.
    @Test func aJrnlDateNoTimestampCanHoldInItsZoneIsAProblem() throws {
        let world = try HostileWorld()
        try world.exports.write("journal.txt", "[2024-05-01 09:30] A day.\n[0000-01-01 00:00] Before.\n")
        try world.expectRefused(
            JrnlReader(timeZone: TimeZone(identifier: "Asia/Seoul")!), [world.exports.path + "/journal.txt"],
            "EXPORT/journal.txt, at line 2: is a time vault cannot hold in Asia/Seoul (the years 0 to 9999 only)")
    }

    /// SQLite keeps a REAL of 1e300 in an INTEGER column (llm's `parts.position`): it is text in
    /// the message's id, not a trap (Double → Int64).
    @Test func anLLMDatabaseWithAHugeNumberWhereAnIntegerGoesImports() throws {
        let world = try HostileWorld()
        try runPython(
            """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            db.execute('create table threads (id text primary key, name text, tip_message_hash text, forked_from text, datetime_utc text)')
            db.execute('create table messages (hash text primary key, parent_hash text, role text)')
            db.execute('create table parts (id integer primary key, message_hash text, position integer, type text, tool_name text, text text, payload text)')
            db.execute('create table turns (id text primary key, thread_id text, tip_message_hash text, model text, options_json text, datetime_utc text)')
            db.execute("insert into threads values ('t1', 'Huge', 'm1', null, '2024-05-01T10:00:00')")
            db.execute("insert into messages values ('m1', null, 'user')")
            db.execute("insert into parts (message_hash, position, type, payload) values ('m1', 1e300, 'tool_call', '{\\"name\\": \\"x\\"}')")
            db.execute("insert into turns values ('u1', 't1', 'm1', 'gpt-4o', null, '2024-05-01T10:00:00')")
            db.commit()
            """, world.exports.path + "/logs.db")
        let report = try world.expectImported(LLMReader(), [world.exports.path + "/logs.db"])
        #expect(report.roomsNew == 1 && report.messagesAdded == 1)
        let room = try RoomFile(parsing: try world.dir.read(try #require(report.paths.first)), path: "room.md")
        #expect(room.messages.map(\.id) == [ImportIdentity.messageID(.llm, "t1", "m1:call:1e+300")])
    }

    // MARK: 5. Titles that would make a file name

    @Test func titlesThatWouldMakeAPathOrAReservedNameMakeOnePlainFileEach() throws {
        let world = try HostileWorld()
        let titles = ["\u{0D4E}/\u{0D4E}.", "../../outside", "CON", ".hidden", "a/b\u{1B}[2J", "\u{202E}gnp.exe"]
        let conversations = titles.enumerated().map { n, title in
            "{\"title\": \(jsonText(title)), \"create_time\": 1700000000, \"id\": \"c\(n)\", \"mapping\": {"
                + ChatGPTFixture.node("u\(n)", parent: nil, children: [], role: "user", content: ChatGPTFixture.text("hi")) + "}}"
        }
        try world.exports.write("conversations.json", "[" + conversations.joined(separator: ", ") + "]")
        let report = try world.expectImported(ChatGPTReader(), [world.exports.path])
        #expect(report.roomsNew == titles.count && report.committed)
        let folder = world.vault.roomFolder(created: Timestamp(rfc3339: "2023-11-14T22:13:20Z")!)
        let names = ["\u{0D4E}-\u{0D4E}", "outside", "con-1", "hidden", "a-b-2j", "gnp-exe"]
        #expect(report.paths == names.map { "\(folder)/\($0).md" })
        let tracked = try git(["ls-files", "-z"], in: world.dir.path).split(separator: "\0").map(String.init)
        #expect(Set(tracked).isSuperset(of: report.paths))
        #expect(tracked.allSatisfy { !$0.contains("..") && !$0.hasPrefix("/") }, "\(tracked)")
        // Each room keeps its title as written.
        for (path, title) in zip(report.paths, titles) {
            let room = try RoomFile(parsing: try world.dir.read(path), path: path)
            #expect(room.frontMatter?.string("title") == title, "\(path)")
        }
    }

    // MARK: 6. A FIFO or a device as the export

    static func reader(_ n: Int) -> any ImportReader {
        [ChatGPTReader(), ClaudeReader(), ClaudeCodeReader(), LLMReader(), JrnlReader(), DayOneReader()][n]
    }

    @Test(arguments: 0..<6, ["FIFO", "/dev/zero"])
    func aFIFOOrADeviceGivenAsTheExportIsRefusedAtOnceBeforeTheLock(_ reader: Int, _ kind: String) throws {
        let world = try HostileWorld()
        let fifo = world.exports.path + "/logs.db"
        #expect(mkfifo(fifo, 0o644) == 0)
        // A writer that ends a read blocked on the FIFO after 10 s: a regression fails the test
        // instead of hanging it.
        let release = DispatchWorkItem {
            let fd = open(fifo, O_WRONLY | O_CLOEXEC)
            if fd >= 0 { close(fd) }
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + 10, execute: release)
        defer {
            release.cancel()
            let fd = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
            if fd >= 0 { close(fd) }
        }
        let path = kind == "FIFO" ? fifo : kind
        let what = kind == "FIFO" ? "EXPORT/logs.db: is a FIFO" : "/dev/zero: is a device"
        let started = ContinuousClock.now
        try world.expectRefused(
            Self.reader(reader), [path],
            "\(what), not a file or a folder; vault reads an export only from regular files and folders")
        #expect(ContinuousClock.now - started < .seconds(5))
    }
}
