import Foundation
import Testing
import VaultTestSupport

/// The room's sampling settings, set with `vault room set`, reach the server in the request's
/// body; the user configuration's model is used when nothing else names one.
@Suite struct SamplingSettingsTests {
    @Test func everySamplingSettingReachesTheServer() throws {
        let (server, vault) = try startChat()
        defer { server.stop() }
        let settings = [
            ("temperature", "0.7"), ("top_p", "0.9"), ("max_tokens", "256"), ("presence_penalty", "-1.5"),
            ("frequency_penalty", "0.5"), ("seed", "42"), ("stop", "END"),
        ]
        // Before any is set, none is sent: the server's defaults apply.
        #expect(try vault.chat("처음", model: "ok").status == 0)
        for (key, value) in settings {
            let set = try vault.vault(["room", "set", ChatVault.title, key, value])
            #expect(set.status == 0, "\(key): \(set.stderr)")
        }
        let run = try vault.chat("다음", model: "ok")
        #expect(run.status == 0, "\(run.stderr)")
        let requests = try server.requests()
        try #require(requests.count == 2)
        for (key, _) in settings { #expect(requests[0].body[key] == nil, "\(key) sent before it was set") }
        let body = requests[1].body
        #expect((body["temperature"] as? NSNumber)?.doubleValue == 0.7, "\(body)")
        #expect((body["top_p"] as? NSNumber)?.doubleValue == 0.9)
        #expect((body["max_tokens"] as? NSNumber)?.intValue == 256)
        #expect((body["presence_penalty"] as? NSNumber)?.doubleValue == -1.5)
        #expect((body["frequency_penalty"] as? NSNumber)?.doubleValue == 0.5)
        #expect((body["seed"] as? NSNumber)?.intValue == 42)
        #expect(body["stop"] as? [String] == ["END"])
        #expect(body["stream"] as? Bool == true)

        // Unset, it is no longer sent.
        #expect(try vault.vault(["room", "set", ChatVault.title, "temperature", "--unset"]).status == 0)
        #expect(try vault.chat("셋째", model: "ok").status == 0)
        #expect(try #require(try server.requests().last).body["temperature"] == nil)
    }

    @Test func theUserConfigurationsModelComesAfterTheRoomAndVaultYml() throws {
        let (server, vault) = try startChat()
        defer { server.stop() }
        var config = try vault.userConfig.readText("vault/config.yml")
        config += "model: ok\n"
        try vault.userConfig.write("vault/config.yml", config)
        let run = try vault.vault(["chat", ChatVault.title, "모델 없이", "--provider", "local"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try server.requests().last?.model == "ok")
        // The room's own model wins.
        #expect(try vault.vault(["room", "set", ChatVault.title, "model", "split"]).status == 0)
        #expect(try vault.vault(["chat", ChatVault.title, "방의 모델", "--provider", "local"]).status == 0)
        #expect(try server.requests().last?.model == "split")
    }
}
