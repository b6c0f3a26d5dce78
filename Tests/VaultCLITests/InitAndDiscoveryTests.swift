import Foundation
import Testing
import VaultTestSupport

/// `vault init`, and how every command finds its vault.
@Suite struct InitTests {
    static let gitattributes = """
        # Written by `vault init`.
        # Keep every file byte for byte: no end-of-line conversion.
        * -text
        *.md diff
        # vault's merge for `git pull` by hand (`vault merge-driver`, registered by `vault init` and `vault clone`):
        # rooms by message id, diary entries and vault.yml without conflict markers.
        rooms/*.md merge=vault
        diary/**/*.md merge=vault
        vault.yml merge=vault

        """

    private func isDirectory(_ path: String) -> Bool {
        var isDir: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDir) && isDir.boolValue
    }

    /// The value of a top-level `key:` line of a small YAML file (comments after it removed).
    private func setting(_ key: String, in text: String) -> String? {
        for line in text.split(separator: "\n") where line.hasPrefix(key + ":") {
            var v = line.dropFirst(key.count + 1)
            if let hash = v.range(of: " #") { v = v[..<hash.lowerBound] }
            return v.trimmingCharacters(in: .whitespaces)
        }
        return nil
    }

    @Test func initMakesTheLayoutWithTheLocaleFromLANG() throws {
        let tmp = TemporaryDirectory("init")
        let r = try runVault(["init", "notes"], in: tmp.path, environment: ["LANG": "ko_KR.UTF-8"])
        expectSuccess(r)
        #expect(r.stdout.contains("Made a vault in \(tmp.path)/notes"))
        let root = tmp.path + "/notes"
        let config = String(decoding: try tmp.read("notes/vault.yml"), as: UTF8.self)
        #expect(setting("locale", in: config) == "ko_KR")
        #expect(setting("format", in: config) == "1")
        // No provider is fixed: the environment's OpenAI-compatible server, else the offline one.
        #expect(setting("provider", in: config) == nil)
        #expect(config.contains("# provider:") && config.contains("api_key_env: OPENAI_API_KEY"))
        let zone = try #require(setting("time_zone", in: config))
        #expect(TimeZone(identifier: zone) != nil, "time_zone '\(zone)' is not an IANA zone")
        #expect(try tmp.readText("notes/.gitattributes") == Self.gitattributes)
        let ignore = try tmp.readText("notes/.gitignore")
        #expect(ignore.split(separator: "\n").contains(".vault/"))
        #expect(ignore.split(separator: "\n").contains(".*.vault-tmp-*"))
        for folder in ["rooms", "diary", "attachments"] {
            #expect(isDirectory(root + "/" + folder), "\(folder)/ was not made")
        }
        #expect(
            tmp.files().filter { !$0.hasPrefix("notes/.git/") } == [
                "notes/.gitattributes", "notes/.gitignore", "notes/vault.yml",
            ])
        // ... and its own repository, whose first commit holds those files (read with the git command line).
        #expect(try git(["ls-files"], in: root) == ".gitattributes\n.gitignore\nvault.yml\n")
        #expect(try git(["log", "--format=%s"], in: root) == "init: vault\n")
        #expect(try git(["status", "--porcelain"], in: root) == "")
        // The new vault is usable and clean.
        try expectCheckClean(root)
        let rooms = try runVault(["rooms"], in: root, environment: ["COLUMNS": "80"])
        expectSuccess(rooms)
        #expect(rooms.stdout.contains("아직 방이 없습니다"), "\(rooms.stdout)")
        // Into a pipe: no rows, and no words a script would read as one.
        let piped = try runVault(["rooms"], in: root)
        #expect(piped.status == 0 && piped.stdout.isEmpty, "\(piped.stdout)")
    }

    @Test func localeVariablesAreReadInPOSIXOrder() throws {
        let tmp = TemporaryDirectory("init")
        let r = try runVault(
            ["init", "v"], in: tmp.path,
            environment: ["LANG": "ko_KR.UTF-8", "LC_TIME": "ja_JP.UTF-8", "LC_ALL": "de_DE.UTF-8"])
        expectSuccess(r)
        #expect(setting("locale", in: try tmp.readText("v/vault.yml")) == "de_DE")
        let r2 = try runVault(
            ["init", "w"], in: tmp.path, environment: ["LANG": "ko_KR.UTF-8", "LC_TIME": "ja_JP.UTF-8"])
        expectSuccess(r2)
        #expect(setting("locale", in: try tmp.readText("w/vault.yml")) == "ja_JP")
        let r3 = try runVault(["init", "x"], in: tmp.path, environment: ["LANG": "C"])
        expectSuccess(r3)
        #expect(setting("locale", in: try tmp.readText("x/vault.yml")) == "en_US")
    }

    @Test func initHonoursLocaleAndTimeZoneOptions() throws {
        let tmp = TemporaryDirectory("init")
        let r = try runVault(
            ["init", "v", "--locale", "de_DE", "--time-zone", "Europe/Berlin"], in: tmp.path,
            environment: ["LANG": "ko_KR.UTF-8"])
        expectSuccess(r)
        let config = try tmp.readText("v/vault.yml")
        #expect(setting("locale", in: config) == "de_DE")
        #expect(setting("time_zone", in: config) == "Europe/Berlin")
        #expect(r.stdout.contains("de_DE") && r.stdout.contains("Europe/Berlin"))
        // A new room's `created` is in that zone.
        let made = try runVault(["room", "new", "Reise"], in: tmp.path + "/v")
        expectSuccess(made)
        let room = try tmp.readText("v/rooms/reise.md")
        let created = try #require(setting("created", in: room))
        let offset = TimeZone(identifier: "Europe/Berlin")!.secondsFromGMT() == 3600 ? "+01:00" : "+02:00"
        #expect(isTimestamp(created, offset: offset), "created \(created) is not in Europe/Berlin")
    }

    @Test func initAcceptsABCP47LocaleAndNormalisesIt() throws {
        let tmp = TemporaryDirectory("init")
        let r = try runVault(["init", "v", "--locale", "ko-KR"], in: tmp.path)
        expectSuccess(r)
        #expect(setting("locale", in: try tmp.readText("v/vault.yml")) == "ko_KR")
    }

    @Test func initKeepsAnExistingGitignore() throws {
        let tmp = TemporaryDirectory("init")
        try tmp.write("v/.gitignore", "node_modules/\n*.swp")
        try tmp.write("v/notes.txt", "mine\n")
        expectSuccess(try runVault(["init", "v"], in: tmp.path))
        #expect(try tmp.readText("v/.gitignore") == "node_modules/\n*.swp\n.vault/\n.*.vault-tmp-*\n")
        #expect(try tmp.readText("v/notes.txt") == "mine\n")
    }

    @Test func initOnAnExistingVaultOnlyGivesItARepositoryThenRefuses() throws {
        let vault = try Project.copyOfSampleVault()
        let before = try vault.snapshot()
        // A vault without a repository of its own gets one; its files stay as they are.
        let first = try runVault(["init", ".", "--locale", "de_DE"], in: vault.path)
        expectSuccess(first)
        #expect(first.stdout.contains("its own git repository"))
        let after = try vault.snapshot()
        expectUnchanged(before, after.filter { !$0.key.hasPrefix(".git/") })
        #expect(try git(["status", "--porcelain"], in: vault.path) == "")
        // Once it has one, init is refused and changes nothing.
        for args in [
            ["init"], ["init", vault.path], ["init", ".", "--locale", "de_DE", "--time-zone", "Europe/Berlin"],
        ] {
            let r = try runVault(args, in: vault.path, environment: ["LANG": "de_DE.UTF-8"])
            expectUserError(r, ["already a vault", "vault.yml"])
            expectUnchanged(after, try vault.snapshot())
        }
    }

    @Test(arguments: [
        (["--locale", "xx_YY"], "unknown locale 'xx_YY'"),
        (["--time-zone", "Mars/Base"], "unknown time zone 'Mars/Base'"),
    ])
    func initWithAnUnknownSettingFailsAndMakesNothing(options: [String], message: String) throws {
        let tmp = TemporaryDirectory("init")
        let r = try runVault(["init", "v"] + options, in: tmp.path)
        expectUserError(r, [message])
        #expect(!FileManager.default.fileExists(atPath: tmp.path + "/v"), "the folder was made anyway")
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp.path).isEmpty)
        // Also in a folder that exists: nothing is added to it.
        try tmp.write("w/keep.txt", "x")
        let before = try tmp.snapshot()
        expectUserError(try runVault(["init", "w"] + options, in: tmp.path), [message])
        expectUnchanged(before, try tmp.snapshot())
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp.path + "/w") == ["keep.txt"])
    }
}

@Suite struct DiscoveryTests {
    private let sampleTitle = "김치찌개 레시피"

    @Test func vaultOptionFindsTheVaultFromAnywhere() throws {
        let vault = try Project.copyOfSampleVault()
        let elsewhere = TemporaryDirectory("elsewhere")
        let r = try runVault(["rooms", "--vault", vault.path], in: elsewhere.path)
        expectSuccess(r)
        #expect(r.stdout.contains(sampleTitle))
        // A relative --vault is taken from the working folder.
        let parent = (vault.path as NSString).deletingLastPathComponent
        let name = (vault.path as NSString).lastPathComponent
        let r2 = try runVault(["rooms", "--vault", name], in: parent)
        expectSuccess(r2)
        #expect(r2.stdout.contains(sampleTitle))
    }

    /// `--vault` may also come first, before the command (like `git -C`).
    @Test func vaultOptionBeforeTheCommand() throws {
        let vault = try Project.copyOfSampleVault()
        let elsewhere = TemporaryDirectory("elsewhere")
        let r = try runVault(["--vault", vault.path, "rooms"], in: elsewhere.path)
        expectSuccess(r)
        #expect(r.stdout.contains(sampleTitle))
        let r2 = try runVault(["--vault=" + vault.path, "diary", "list", "--tag", "여행"], in: elsewhere.path)
        expectSuccess(r2)
        #expect(!r2.stdout.isEmpty)
        // After `--`, words are the command's own (a message may start with a dash).
        let r3 = try runVault(["--vault", vault.path, "show", "--raw", "--", "김치찌개"], in: elsewhere.path)
        expectSuccess(r3)
        #expect(r3.stdout.contains("title: \(sampleTitle)"), "\(r3.stdout)")
        // Nothing after it: the usage error, as before.
        let r4 = try runVault(["--vault", vault.path], in: elsewhere.path)
        #expect(r4.status != 0)
    }

    @Test func vaultDirVariableFindsTheVault() throws {
        let vault = try Project.copyOfSampleVault()
        let elsewhere = TemporaryDirectory("elsewhere")
        let r = try runVault(["rooms", "--json"], in: elsewhere.path, environment: ["VAULT_DIR": vault.path])
        expectSuccess(r)
        #expect(r.stdout.contains("\"path\" : \"rooms/김치찌개-레시피.md\""))
        // And a chat through VAULT_DIR writes into that vault, not the working folder.
        let chat = try runVault(
            ["chat", "독서", "via VAULT_DIR"], in: elsewhere.path, environment: ["VAULT_DIR": vault.path])
        expectSuccess(chat)
        #expect(try vault.readText(offlineSampleRoom).contains("\nvia VAULT_DIR\n"))
        #expect(elsewhere.files().isEmpty)
    }

    @Test func vaultOptionWinsOverVaultDir() throws {
        let vault = try Project.copyOfSampleVault()
        let other = try freshVault()
        let r = try runVault(["rooms", "--vault", vault.path], in: other.path, environment: ["VAULT_DIR": other.path])
        expectSuccess(r)
        #expect(r.stdout.contains(sampleTitle))
        let r2 = try runVault(["rooms"], in: vault.path, environment: ["VAULT_DIR": other.path, "COLUMNS": "80"])
        expectSuccess(r2)
        #expect(r2.stdout.contains("No rooms yet"), "VAULT_DIR should win over the working folder")
    }

    @Test(arguments: ["rooms", "diary/2026"])
    func walksUpFromASubfolder(_ sub: String) throws {
        let vault = try Project.copyOfSampleVault()
        let r = try runVault(["rooms"], in: vault.path + "/" + sub)
        expectSuccess(r)
        #expect(r.stdout.contains(sampleTitle))
        let d = try runVault(["diary", "list"], in: vault.path + "/" + sub)
        expectSuccess(d)
        #expect(d.stdout.contains("첫눈"))
    }

    @Test(arguments: [
        ["rooms"], ["diary", "list"], ["check"], ["chat", "x", "hello"], ["show", "x"], ["room", "new", "T"],
    ])
    func outsideAnyVaultFailsClearly(_ args: [String]) throws {
        let tmp = TemporaryDirectory("no-vault")
        try tmp.write("sub/readme.txt", "not a vault")
        let before = try tmp.snapshot()
        let r = try runVault(args, in: tmp.path + "/sub")
        expectUserError(r, ["no vault here", "vault.yml", "vault init"])
        expectUnchanged(before, try tmp.snapshot())
        #expect(!FileManager.default.fileExists(atPath: tmp.path + "/sub/.vault"))
        #expect(!FileManager.default.fileExists(atPath: tmp.path + "/sub/rooms"))
    }

    @Test func aVaultOptionOrVariableThatIsNoVaultFailsClearly() throws {
        let tmp = TemporaryDirectory("no-vault")
        try tmp.write("plain/readme.txt", "x")
        let before = try tmp.snapshot()
        let r = try runVault(["rooms", "--vault", tmp.path + "/plain"], in: tmp.path)
        expectUserError(r, ["\(tmp.path)/plain", "--vault", "vault init"])
        let r2 = try runVault(["rooms"], in: tmp.path, environment: ["VAULT_DIR": tmp.path + "/plain"])
        expectUserError(r2, ["\(tmp.path)/plain", "VAULT_DIR", "vault init"])
        let r3 = try runVault(["rooms", "--vault", tmp.path + "/missing"], in: tmp.path)
        expectUserError(r3, ["\(tmp.path)/missing", "is not a folder"])
        expectUnchanged(before, try tmp.snapshot())
    }
}
