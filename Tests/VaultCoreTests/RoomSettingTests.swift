import Foundation
import Testing
import VaultTestSupport

@testable import VaultCore

/// `RoomSetting` (what `vault room set` stores), `ChatRequest.Sampling.of` (what a turn sends)
/// and `UserConfig`'s defaults. The command line's messages and statuses: `VaultCLITests/SettingsCommandTests`.
@Suite struct RoomSettingTests {
    /// Every key with values it takes and values it refuses.
    static let cases: [(key: String, valid: [String], invalid: [String])] = [
        ("title", ["부산 여행", "x"], ["", "   "]),
        ("created", ["2026-11-21", "2026-11-21T09:30:00+09:00"], ["someday", "2026-13-01"]),
        ("provider", ["ollama", "openai"], ["", "two words"]),
        ("model", ["gpt-4o-mini", "llama3.1:8b"], ["", "gpt 4o", "a\tb"]),
        ("system", ["You are terse.", ""], []),
        ("context_messages", ["1", "200"], ["0", "-3", "2.5", "many", ""]),
        ("context_tokens", ["64000"], ["0", "lots"]),
        ("vision", ["yes", "no", "true", "off"], ["maybe", "1"]),
        ("temperature", ["0", "0.7", "2", "1.25"], ["2.1", "-0.1", "hot", "nan", "inf", ""]),
        ("top_p", ["0", "0.9", "1"], ["1.5", "-1", "x"]),
        ("max_tokens", ["1", "4096"], ["0", "-1", "1.5", "big"]),
        ("presence_penalty", ["-2", "0", "1.5", "2"], ["-2.5", "3", "x"]),
        ("frequency_penalty", ["-2", "0.5", "2"], ["2.01", "x"]),
        ("seed", ["0", "42", "-7"], ["4.2", "x", ""]),
        ("stop", ["END", "\n\n"], [""]),
    ]

    @Test func everyKeyTakesItsValuesAndRefusesOthers() throws {
        #expect(Set(Self.cases.map(\.key)) == Set(RoomSetting.all.map(\.key)), "a key without cases")
        for (key, valid, invalid) in Self.cases {
            for value in valid {
                #expect(throws: Never.self, "\(key)=\(value)") { try RoomSetting.checked(key, value) }
            }
            for value in invalid {
                do {
                    _ = try RoomSetting.checked(key, value)
                    Issue.record("\(key)=\(value.debugDescription) was taken")
                } catch {
                    guard case .input(.invalidSettingValue(let k, let v, let expected)) = error else {
                        Issue.record("\(key)=\(value): \(error)")
                        continue
                    }
                    #expect(k == key && v == value && !expected.isEmpty)
                }
            }
        }
    }

    @Test func anUnknownKeyIsRefusedWithTheNearest() {
        let typos = [
            "temprature": "temperature", "modle": "model", "top-p": "top_p", "max_token": "max_tokens",
            "sytem": "system", "Model": "model", "context_message": "context_messages",
        ]
        for (typo, meant) in typos {
            #expect(RoomSetting.nearest(to: typo) == meant, "\(typo)")
            do {
                _ = try RoomSetting.checked(typo, "1")
                Issue.record("\(typo) was taken")
            } catch {
                #expect(Self.problem(of: error) == .unknownSetting(typo, nearest: meant))
                #expect(error.description.contains("Did you mean '\(meant)'?"), "\(error.description)")
            }
        }
        #expect(RoomSetting.nearest(to: "colour_scheme") == nil)
        #expect(RoomSetting.nearest(to: "x") == nil)
    }

    @Test func editDistanceCountsSwapsAsOneEdit() {
        func d(_ a: String, _ b: String) -> Int { NearestName.distance(Array(a), Array(b)) }
        #expect(d("model", "model") == 0)
        #expect(d("modle", "model") == 1)
        #expect(d("", "abc") == 3)
        #expect(d("kitten", "sitting") == 3)
        #expect(d("부산-여행", "부산-여헹") == 1)
        // Two candidates equally near: no guess.
        #expect(NearestName.nearest(to: "cat", among: ["bat", "hat"]) == nil)
        #expect(NearestName.nearest(to: "cat", among: ["bat", "horse"]) == "bat")
    }

    static func problem(of error: VaultError) -> InputProblem? {
        if case .input(let problem) = error { return problem }
        return nil
    }

    /// The input problem `body` throws; nil when it throws none.
    static func refusal(_ body: () throws(VaultError) -> Void) -> InputProblem? {
        do {
            try body()
            return nil
        } catch {
            return problem(of: error)
        }
    }

    // MARK: What a turn sends

    func frontMatter(_ text: String) throws -> FrontMatter? {
        let bytes = Array(("---\n" + text + "---\n\n" + RoomFile.promptMarkerLine + "\n").utf8)
        return try RoomFile(parsing: bytes, path: "rooms/r.md").frontMatter
    }

    @Test func samplingSettingsAreReadFromTheRoom() throws {
        let fm = try frontMatter(
            """
            title: r
            temperature: 0.7
            top_p: 0.9
            max_tokens: 256
            presence_penalty: -1.5
            frequency_penalty: 0.5
            seed: 42
            stop: [END, STOP]
            some_hand_written_key: kept

            """)
        let sampling = try ChatRequest.Sampling.of(fm, path: "rooms/r.md")
        #expect(
            sampling
                == ChatRequest.Sampling(
                    temperature: 0.7, topP: 0.9, maxTokens: 256, presencePenalty: -1.5, frequencyPenalty: 0.5,
                    seed: 42, stop: ["END", "STOP"]))
        #expect(try ChatRequest.Sampling.of(frontMatter("title: r\n"), path: "rooms/r.md") == .init())
    }

    @Test func aHandWrittenSamplingValueTheServerWouldRefuseStopsTheTurnNamingTheLine() throws {
        let fm = try frontMatter("title: r\nmodel: m\ntemperature: hot\n")
        do {
            _ = try ChatRequest.Sampling.of(fm, path: "rooms/r.md")
            Issue.record("taken")
        } catch {
            #expect(error.description.hasPrefix("rooms/r.md:4: "), "\(error.description)")
            #expect(error.description.contains("temperature"), "\(error.description)")
            #expect(error.description.contains("write a number from 0 to 2"), "\(error.description)")
        }
    }

    // MARK: The workflow

    func roomVault() throws -> (TemporaryDirectory, Vault) {
        let dir = TemporaryDirectory("room-setting")
        try dir.write("vault.yml", "format: 1\nlocale: en_US\ntime_zone: Asia/Tokyo\n")
        try dir.write(
            "rooms/r.md", "---\ntitle: r\nmy_note: hand written\n---\n\n" + RoomFile.promptMarkerLine + "\n")
        return (dir, try Vault(root: dir.path))
    }

    @Test func theWorkflowRefusesBeforeWritingAndKeepsHandWrittenKeys() throws {
        let (dir, vault) = try roomVault()
        let before = try dir.snapshot()
        let settings = RoomSettings(vault: vault)
        #expect(
            Self.refusal { () throws(VaultError) in
                _ = try settings.set("temprature", to: "0.5", inRoom: "rooms/r.md")
            } == .unknownSetting("temprature", nearest: "temperature"))
        #expect(
            Self.refusal { () throws(VaultError) in _ = try settings.set("top_p", to: "2", inRoom: "rooms/r.md") }
                == .invalidSettingValue(key: "top_p", value: "2", expected: "write a number from 0 to 1"))
        // Unsetting a key the room does not have and vault does not know: a typo, refused.
        #expect(
            Self.refusal { () throws(VaultError) in _ = try settings.set("modle", to: nil, inRoom: "rooms/r.md") }
                == .unknownSetting("modle", nearest: "model"))
        // Setting a hand-written key vault does not know is refused too.
        #expect(
            Self.refusal { () throws(VaultError) in
                _ = try settings.set("my_note", to: "new", inRoom: "rooms/r.md")
            }
                == .unknownSetting("my_note", nearest: nil))
        #expect(try dir.snapshot() == before, "a refusal changed a file")
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/.git"), "a refusal made a repository")
    }
}

/// `UserConfig`: the defaults of `$XDG_CONFIG_HOME/vault/config.yml`.
@Suite struct UserConfigDefaultsTests {
    func load(_ text: String) throws -> UserConfig {
        let dir = TemporaryDirectory("user-config")
        try dir.write("vault/config.yml", text)
        return try withExtendedLifetime(dir) { try UserConfig.load(environment: ["XDG_CONFIG_HOME": dir.path]) }
    }

    @Test func theDefaultsAreReadAsWritten() throws {
        let config = try load(
            """
            model: llama3.1:8b
            provider: ollama
            locale: ko-KR
            editor: nano -w
            pager: no
            color: never
            api_keys:
              LAB_KEY: http://gpu-box:8000/v1

            """)
        #expect(config.model == "llama3.1:8b")
        #expect(config.provider == "ollama")
        #expect(config.locale == "ko_KR")
        #expect(config.editor == "nano -w")
        // YAML would read `no` as false: it is kept as the text written.
        #expect(config.pager == "no")
        #expect(config.color == UserConfig.Color.never)
        #expect(config.approvedKeys == ["LAB_KEY": ["http://gpu-box:8000/v1"]])
        let none = try UserConfig.load(environment: ["XDG_CONFIG_HOME": "/nonexistent-vault-test"])
        #expect(none.model == nil && none.color == nil && none.editor == nil)
    }

    @Test func aWrongDefaultNamesTheFileLineAndWhatToWrite() throws {
        let wrong: [(text: String, line: Int, says: String)] = [
            ("model: m\ncolor: sometimes\n", 2, "write auto, always or never"),
            ("color: no\n", 1, "write auto, always or never"),
            ("locale: xx_YY\n", 1, "unknown locale"),
            ("editr: nano\n", 1, "did you mean 'editor'?"),
            ("model:\n  - a\n  - b\n", 2, "write one value"),
        ]
        for (text, line, says) in wrong {
            do {
                _ = try load(text)
                Issue.record("taken: \(text)")
            } catch let error as VaultError {
                #expect(error.description.contains("config.yml:\(line): "), "\(error.description)")
                #expect(error.description.contains(says), "\(error.description)")
            }
        }
    }
}
