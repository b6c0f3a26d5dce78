import Foundation
import Testing
import VaultCore
import VaultTestSupport

/// The caps on what comes in are this machine's (issue #36, item 7): a collaborator who pushes a
/// `vault.yml` with `limits: max_file_size: 100G` does not lift them. They come from the user
/// configuration (`limits:` in `$XDG_CONFIG_HOME/vault/config.yml`) or the vault's own git config
/// (`vault.maxFileSize`…), else the defaults; a synced `vault.yml` may only lower them.
@Suite struct MachineCapsTests {
    typealias Scene = HostileRemoteTests.Scene

    /// A `vault.yml` raising every cap as far as it goes.
    static let raisingEverything = "limits:\n  max_file_size: 100G\n  max_sync_size: 100G\n  max_line_length: 100G\n"

    /// The attacker's clone takes the remote's tip, then commits `vault.yml` with `limits` added
    /// and pushes it: an ordinary change, which the next sync takes.
    static func pushVaultYml(adding limits: String, in scene: Scene) throws {
        try git(["pull", "--quiet", "--no-rebase", "origin", "main"], in: scene.attacker)
        let path = scene.attacker + "/vault.yml"
        let config = try String(contentsOfFile: path, encoding: .utf8)
        try Data((config + limits).utf8).write(to: URL(fileURLWithPath: path))
        try git(
            ["-c", "user.name=Mallory", "-c", "user.email=m@example.com", "commit", "--quiet", "-am", "limits"],
            in: scene.attacker)
        try git(["push", "--quiet", "origin", "HEAD:main"], in: scene.attacker)
    }

    /// The attacker's clone takes the remote's tip and pushes `rooms/big.md` with 6,000 bytes of
    /// text on top; returns the text.
    @discardableResult
    static func pushRoomOf6000Bytes(in scene: Scene) throws -> String {
        try git(["pull", "--quiet", "--no-rebase", "origin", "main"], in: scene.attacker)
        let big = String(repeating: "가", count: 2_000)
        try scene.push([CraftedCommit.Entry(["rooms", "big.md"], "---\ntitle: big\n---\n\n" + big + "\n")])
        return big
    }

    /// Every `vault` of the world reads its user configuration from a folder of the test:
    /// `config.yml` holds `text`.
    static func useUserConfig(_ text: String, in world: SyncWorld) throws {
        let home = world.folder.path + "/config-home"
        try FileManager.default.createDirectory(atPath: home + "/vault", withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: home + "/vault/config.yml"))
        world.environment["XDG_CONFIG_HOME"] = home
    }

    /// The case, at the default caps: the raised `vault.yml` comes in, then a room of
    /// one 65 MiB line is refused by sync (nothing changes) and by a clone (nothing is kept);
    /// raised in this machine's user configuration, it comes in.
    @Test func aVaultYmlThatRaisesTheCapsLetsNoBigFileIn() throws {
        let scene = try Scene()
        let w = scene.world
        try Self.useUserConfig("model: echo\n", in: w)  // a configuration with no limits: the defaults
        try Self.pushVaultYml(adding: Self.raisingEverything, in: scene)
        try w.expectOK(w.vault("laptop", ["sync"]))
        #expect(try w.read("laptop", "vault.yml").contains("max_file_size: 100G"), "the raised vault.yml came in")
        let line = String(repeating: "a", count: 65 << 20)
        try git(["pull", "--quiet", "--no-rebase", "origin", "main"], in: scene.attacker)
        let id = try scene.push([CraftedCommit.Entry(["rooms", "big.md"], "---\ntitle: big\n---\n\n" + line + "\n")])
        let before = try scene.state("laptop")
        let sync = try w.vault("laptop", ["sync"])
        #expect(sync.status == 1, "\(sync.stderr)")
        #expect(
            sync.stderr.contains("the commit \(id.prefix(10)) holds rooms/big.md of 65.0 MiB, more than the 64 MiB a file may have"),
            "\(sync.stderr)")
        // The message names where this machine's cap is raised, not vault.yml.
        #expect(sync.stderr.contains("`git config vault.maxFileSize SIZE`"), "\(sync.stderr)")
        #expect(sync.stderr.contains("`limits: max_file_size: SIZE` in ~/.config/vault/config.yml"), "\(sync.stderr)")
        #expect(!sync.stderr.contains("in vault.yml raises"), "\(sync.stderr)")
        #expect(try scene.state("laptop") == before)
        // A clone of the same remote takes its caps from this machine too: refused, nothing kept.
        let target = w.folder.path + "/victim"
        let clone = try w.vault("laptop", ["clone", w.remote, target], in: w.folder.path)
        #expect(clone.status == 1, "\(clone.stdout)\(clone.stderr)")
        #expect(clone.stderr.contains("rooms/big.md of 65.0 MiB, more than the 64 MiB"), "\(clone.stderr)")
        #expect(!FileManager.default.fileExists(atPath: target), "the clone's folder was kept")
        // This machine raises its own caps: the same commit comes in.
        try Self.useUserConfig("limits:\n  max_file_size: 80M\n  max_line_length: 80M\n", in: w)
        try w.expectOK(w.vault("laptop", ["sync"]))
        #expect(try git(["log", "--format=%H"], in: w.path("laptop")).contains(id), "the big commit came in")
        let size = try FileManager.default.attributesOfItem(atPath: w.path("laptop") + "/rooms/big.md")[.size] as? Int
        #expect(size == (65 << 20) + 21)
    }

    /// The vault's own git config is this machine's too: it raises a cap the user configuration
    /// sets (for this vault only), and `vault.yml`'s higher caps still count for nothing.
    @Test func theVaultsGitConfigRaisesACapAndVaultYmlStillCannot() throws {
        let scene = try Scene()
        let w = scene.world
        try Self.useUserConfig("limits:\n  max_file_size: 4K\n", in: w)
        try Self.pushVaultYml(adding: Self.raisingEverything, in: scene)
        try w.expectOK(w.vault("laptop", ["sync"]))
        let big = try Self.pushRoomOf6000Bytes(in: scene)
        let before = try scene.state("laptop")
        let sync = try w.vault("laptop", ["sync"])
        #expect(sync.status == 1 && sync.stderr.contains("more than the 4 KiB a file may have"), "\(sync.stderr)")
        #expect(sync.stderr.contains("this machine's cap"), "\(sync.stderr)")
        #expect(try scene.state("laptop") == before)
        // A value that is no size is refused by name, with nothing changed.
        try git(["config", "vault.maxFileSize", "lots"], in: w.path("laptop"))
        let wrong = try w.vault("laptop", ["sync"])
        #expect(wrong.status != 0 && wrong.stderr.contains("vault.maxFileSize"), "\(wrong.stderr)")
        #expect(try scene.state("laptop") == before)
        try git(["config", "vault.maxFileSize", "8K"], in: w.path("laptop"))
        try w.expectOK(w.vault("laptop", ["sync"]))
        #expect(try w.read("laptop", "rooms/big.md").contains(big))
    }

    /// A `vault.yml` that lowers a cap is obeyed, even below what this machine allows, and its
    /// refusal names `vault.yml`: the cap is the vault's, for every machine.
    @Test func aVaultYmlThatLowersACapIsObeyed() throws {
        let scene = try Scene()
        let w = scene.world
        try Self.useUserConfig("limits:\n  max_file_size: 1M\n", in: w)
        try Self.pushVaultYml(adding: "limits:\n  max_file_size: 4K\n", in: scene)
        try w.expectOK(w.vault("laptop", ["sync"]))
        try Self.pushRoomOf6000Bytes(in: scene)
        let before = try scene.state("laptop")
        let sync = try w.vault("laptop", ["sync"])
        #expect(sync.status == 1 && sync.stderr.contains("more than the 4 KiB a file may have"), "\(sync.stderr)")
        #expect(sync.stderr.contains("vault.yml's `limits: max_file_size:` lowers the cap"), "\(sync.stderr)")
        #expect(try scene.state("laptop") == before)
        // A clone is held to the remote's lower cap as well.
        let target = w.folder.path + "/lowered"
        let clone = try w.vault("laptop", ["clone", w.remote, target], in: w.folder.path)
        #expect(clone.status == 1 && clone.stderr.contains("more than the 4 KiB"), "\(clone.stderr)")
        #expect(!FileManager.default.fileExists(atPath: target))
    }
}
