import Foundation
import Testing
@testable import VaultCLI
import VaultCore
import VaultTestSupport

/// `vault room set` through the built `vault`: each key valid and invalid, the message, the
/// status and no file changed; and the user configuration's defaults where they apply.
@Suite struct SettingsCommandTests {
    func roomVault() throws -> TemporaryDirectory {
        let vault = try freshVault()
        expectSuccess(try runVault(["room", "new", "부산 여행"], in: vault.path))
        return vault
    }

    func expectRefused(
        _ arguments: [String], in vault: TemporaryDirectory, status: Int32 = 1, saying parts: [String],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let before = try vault.snapshot()
        let subjects = try git(["log", "--format=%s"], in: vault.path)
        let result = try runVault(arguments, in: vault.path)
        #expect(result.status == status, "\(arguments): \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.hasPrefix("vault: error: "), "\(result.stderr)", sourceLocation: sourceLocation)
        for part in parts {
            #expect(result.stderr.contains(part), "\(arguments): \(result.stderr)", sourceLocation: sourceLocation)
        }
        expectUnchanged(before, try vault.snapshot(), sourceLocation: sourceLocation)
        #expect(try git(["log", "--format=%s"], in: vault.path) == subjects, sourceLocation: sourceLocation)
    }

    @Test func everyKeyIsStoredWithAValidValue() throws {
        let vault = try roomVault()
        let values = [
            "model": "gpt-4o-mini", "provider": "offline", "system": "간결하게", "context_messages": "20",
            "context_tokens": "8000", "vision": "no", "temperature": "0.7", "top_p": "0.9", "max_tokens": "512",
            "presence_penalty": "-1", "frequency_penalty": "1.5", "seed": "42", "stop": "END",
            "created": "2026-11-21T09:30:00+09:00", "title": "부산 여행",
        ]
        #expect(Set(values.keys) == Set(RoomSetting.all.map(\.key)))
        for (key, value) in values.sorted(by: { $0.key < $1.key }) {
            let r = try runVault(["room", "set", "부산-여행", key, value], in: vault.path)
            expectSuccess(r)
            // The value as stored, echoed: now set, or already so (the title is the room's own).
            #expect(
                r.stdout == "rooms/부산-여행.md: \(key) is now \(value)\n"
                    || r.stdout == "rooms/부산-여행.md: \(key) is already \(value)\n", "\(key): \(r.stdout)")
        }
        let text = try vault.readText("rooms/부산-여행.md")
        for key in ["temperature: 0.7", "top_p: 0.9", "max_tokens: 512", "seed: 42", "stop: END"] {
            #expect(text.contains(key + "\n"), "\(key) missing in \(text)")
        }
    }

    @Test func everyInvalidInputIsRefusedAndChangesNothing() throws {
        let vault = try roomVault()
        try expectRefused(
            ["room", "set", "부산-여행", "temprature", "0.7"], in: vault,
            saying: ["'temprature' is not a room setting. Did you mean 'temperature'?"])
        try expectRefused(
            ["room", "set", "부산-여행", "colour", "blue"], in: vault,
            saying: ["'colour' is not a room setting. The settings are title, created"])
        try expectRefused(
            ["room", "set", "부산-여행", "temperature", "3"], in: vault,
            saying: ["'3' is not a value for temperature: write a number from 0 to 2"])
        try expectRefused(
            ["room", "set", "부산-여행", "context_messages", "many"], in: vault,
            saying: ["'many' is not a value for context_messages: write a whole number of at least 1"])
        try expectRefused(
            ["room", "set", "부산-여행", "model", "gpt 4o"], in: vault,
            saying: ["'gpt 4o' is not a value for model: write a name without spaces"])
        try expectRefused(
            ["room", "set", "부산-여행", "top_p", "1.1"], in: vault, saying: ["write a number from 0 to 1"])
        try expectRefused(
            ["room", "set", "부산-여행", "vision", "maybe"], in: vault, saying: ["write yes or no"])
        try expectRefused(
            ["room", "set", "부산-여행", "modle", "--unset"], in: vault, saying: ["Did you mean 'model'?"])
        try expectRefused(
            ["room", "set", "부산-여행", "model"], in: vault, status: 64, saying: ["give a value for 'model'"])
        try expectRefused(
            ["room", "set", "부산-여행", "system", "be", "brief"], in: vault, status: 64,
            saying: ["give one value for 'system', not 2 (be brief): quote a text with spaces"])
        try expectRefused(
            ["room", "set", "부산-여행", "temperature", "-0.5"], in: vault,
            saying: ["'-0.5' is not a value for temperature: write a number from 0 to 2"])
    }

    @Test func aHandWrittenUnknownKeyIsKeptAndCanBeRemovedButNotSet() throws {
        let vault = try roomVault()
        var text = try vault.readText("rooms/부산-여행.md")
        text = text.replacingOccurrences(of: "title: 부산 여행\n", with: "title: 부산 여행\nmood: sunny # mine\n")
        try vault.write("rooms/부산-여행.md", text)
        expectSuccess(try runVault(["room", "set", "부산-여행", "model", "m"], in: vault.path))
        #expect(try vault.readText("rooms/부산-여행.md").contains("mood: sunny # mine\n"))
        try expectRefused(
            ["room", "set", "부산-여행", "mood", "rainy"], in: vault, saying: ["'mood' is not a room setting."])
        expectSuccess(try runVault(["room", "set", "부산-여행", "mood", "--unset"], in: vault.path))
        #expect(try !vault.readText("rooms/부산-여행.md").contains("mood"))
    }

    @Test func aHandWrittenSamplingValueStopsTheTurnBeforeAnythingIsWritten() throws {
        let vault = try roomVault()
        let text = try vault.readText("rooms/부산-여행.md")
            .replacingOccurrences(of: "title: 부산 여행\n", with: "title: 부산 여행\ntemperature: warm\n")
        try vault.write("rooms/부산-여행.md", text)
        _ = try git(["add", "-A"], in: vault.path)
        _ = try git(["-c", "user.name=T", "-c", "user.email=t@e", "commit", "-qm", "hand"], in: vault.path)
        try expectRefused(
            ["chat", "부산-여행", "안녕", "--provider", "offline"], in: vault,
            saying: ["rooms/부산-여행.md:3: ", "temperature", "write a number from 0 to 2"])
    }

    @Test func theUserConfigurationsEditorComesAfterTheVariables() throws {
        let config = TemporaryDirectory("user-config")
        try config.write("vault/config.yml", "editor: my-editor --wait\n")
        let env = ["XDG_CONFIG_HOME": config.path]
        #expect(Editor.command(environment: env) == "my-editor --wait")
        #expect(Editor.command(environment: env.merging(["EDITOR": "nano"]) { a, _ in a }) == "nano")
        let both = env.merging(["VISUAL": "code -w", "EDITOR": "nano"]) { a, _ in a }
        #expect(Editor.command(environment: both) == "code -w")
        #expect(Editor.command(environment: ["XDG_CONFIG_HOME": "/nonexistent-vault-test"]) == "vi")
    }

    @Test func theUserConfigurationsLocaleShowsDatesAndABadOneIsNamed() throws {
        let vault = try roomVault()
        expectSuccess(try runVault(["chat", "부산-여행", "안녕", "--provider", "offline"], in: vault.path))
        let config = TemporaryDirectory("user-config")
        try config.write("vault/config.yml", "locale: ko_KR\n")
        let korean = try runVault(["log"], in: vault.path, environment: ["XDG_CONFIG_HOME": config.path])
        expectSuccess(korean)
        #expect(korean.stdout.contains("년"), "\(korean.stdout)")
        let flag = try runVault(
            ["log", "--locale", "en_US"], in: vault.path, environment: ["XDG_CONFIG_HOME": config.path])
        expectSuccess(flag)
        #expect(!flag.stdout.contains("년"), "\(flag.stdout)")
        try config.write("vault/config.yml", "color: sometimes\n")
        let bad = try runVault(["log"], in: vault.path, environment: ["XDG_CONFIG_HOME": config.path])
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("config.yml:1: "), "\(bad.stderr)")
        #expect(bad.stderr.contains("write auto, always or never"), "\(bad.stderr)")
    }
}
