import Foundation
import Testing
import VaultTestSupport

/// Who vault's commits are authored by: vault.yml, else git's config, else a default with a warning.
@Suite struct AuthorTests {
    private func authors(_ dir: String) throws -> [String] {
        try git(["log", "--format=%an <%ae>|%cn <%ce>"], in: dir).split(separator: "\n").map(String.init)
    }

    @Test func authorFromVaultYml() throws {
        let dir = try Project.copyOfSampleVault()
        try append("author: Test Person <test@example.com>\n", to: "vault.yml", in: dir)
        // An empty HOME: the author can only come from vault.yml.
        let home = TemporaryDirectory("vault-home")
        let r = try runVault(
            ["chat", offlineRoom, "hello"], in: dir.path, environment: noIdentityEnvironment(home: home.path))
        expectSucceeded(r)
        #expect(!r.stderr.contains("warning"), "a warning although vault.yml names the author: \(r.stderr)")
        let all = try authors(dir.path)
        #expect(all.count == 2)
        #expect(all.allSatisfy { $0 == "Test Person <test@example.com>|Test Person <test@example.com>" }, "\(all)")
        #expect(try git(["show", "HEAD:vault.yml"], in: dir.path).contains("author: Test Person <test@example.com>"))
        try expectRepositoryClean(dir.path)
    }

    @Test func vaultYmlWinsOverGitConfig() throws {
        let dir = try Project.copyOfSampleVault()
        try append("author: Test Person <test@example.com>\n", to: "vault.yml", in: dir)
        let home = TemporaryDirectory("vault-home")
        try home.write(".gitconfig", "[user]\n\tname = Config Person\n\temail = config@example.com\n")
        var env = noIdentityEnvironment(home: home.path)
        env["GIT_CONFIG_GLOBAL"] = nil
        let r = try runVault(["chat", offlineRoom, "hello"], in: dir.path, environment: env)
        expectSucceeded(r)
        #expect(try authors(dir.path).allSatisfy { $0.hasPrefix("Test Person <test@example.com>|") })
    }

    @Test func withNoIdentityAnywhereTheDefaultAuthorIsUsedWithAWarning() throws {
        let home = TemporaryDirectory("vault-home")
        let parent = TemporaryDirectory("vault-noid")
        let env = noIdentityEnvironment(home: home.path)
        let r = try runVault(
            ["init", "v", "--locale", "en_US", "--time-zone", "UTC"], in: parent.path, environment: env)
        expectSucceeded(r)
        #expect(r.stderr.contains("warning"), "no warning on stderr: \(r.stderr)")
        #expect(
            r.stderr.contains("vault <vault@localhost>"), "the warning does not name the default author: \(r.stderr)")
        let vault = parent.path + "/v"
        #expect(try authors(vault) == ["vault <vault@localhost>|vault <vault@localhost>"])

        let room = try runVault(["room", "new", "Trip"], in: vault, environment: env)
        expectSucceeded(room)
        #expect(room.stderr.contains("warning") && room.stderr.contains("vault <vault@localhost>"), "\(room.stderr)")
        #expect(try authors(vault) == Array(repeating: "vault <vault@localhost>|vault <vault@localhost>", count: 2))
        try expectRepositoryClean(vault)
    }

    @Test func gitConfigIdentityIsUsedWhenVaultYmlHasNone() throws {
        let home = TemporaryDirectory("vault-home")
        let env = noIdentityEnvironment(home: home.path)
        let dir = try initVault()
        try gitCLI(["config", "user.name", "Local Person"], in: dir.path)
        try gitCLI(["config", "user.email", "local@example.com"], in: dir.path)
        let r = try runVault(["room", "new", "Trip"], in: dir.path, environment: env)
        expectSucceeded(r)
        #expect(!r.stderr.contains("warning"), "\(r.stderr)")
        #expect(try authors(dir.path).first == "Local Person <local@example.com>|Local Person <local@example.com>")
    }
}
