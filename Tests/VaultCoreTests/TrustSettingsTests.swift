import Foundation
import Testing
import VaultCore

/// What issue #36's authorship and attributes rules read: the people's SSH keys in `vault.yml`
/// (`key:`, `keys:`) and the attributes a `.gitattributes` from outside may set.
@Suite struct TrustSettingsTests {
    static let ada = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGxvbmVseSBrZXkgZm9yIHRlc3RzIG9ubHk ada@laptop"
    static let phone = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHBob25lIGtleSBmb3IgdGVzdHMgb25seQ ada@phone"

    @Test func aPersonsKeysAreReadFromKeyAndKeys() throws {
        let config = try VaultConfig(parsing: Array("""
            people:
              - name: Ada Kim
                email: ada@example.com
                keys:
                  - \(Self.ada)
                  - \(Self.phone)
              - name: 박보검
                key: \(Self.ada.replacingOccurrences(of: "ada@laptop", with: "bogum"))
              - Chris <chris@example.com>

            """.utf8))
        #expect(config.people.map(\.name) == ["Ada Kim", "박보검", "Chris"])
        #expect(config.people[0].keys == [Self.ada, Self.phone])
        #expect(config.people[1].keys.count == 1)
        #expect(config.people[2].keys.isEmpty)
        // The allowed-signers file: each key with its person's principal, spaces escaped as in author=.
        #expect(
            Workspace.allowedSigners(config.people).split(separator: "\n").map(String.init) == [
                "Ada%20Kim namespaces=\"git\" \(Self.ada)", "Ada%20Kim namespaces=\"git\" \(Self.phone)",
                "박보검 namespaces=\"git\" \(config.people[1].keys[0])",
            ])
    }

    @Test(arguments: [
        "not a key", "ssh-ed25519", "ssh-ed25519 AAAA\u{1B}]52;c;eA==\u{07}", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGxv x\u{1B}[2J",
        "-----BEGIN OPENSSH PRIVATE KEY-----",
    ])
    func aKeyThatIsNoPublicKeyLineIsAnErrorNamingItsLine(key: String) throws {
        let text = "people:\n  - name: Ada Kim\n    key: \"\(key.unicodeScalars.map { $0.value < 0x20 ? "\\x\(String(format: "%02X", $0.value))" : String($0) }.joined())\"\n"
        #expect {
            try VaultConfig(parsing: Array(text.utf8))
        } throws: { error in
            "\(error)".contains("vault.yml:2") && "\(error)".contains("one SSH public key line")
        }
    }

    @Test(arguments: [
        ("* filter=lfs\n", 1, "filter=lfs"),
        ("# ok\n*.md diff\n*.md diff=evil\n", 3, "diff=evil"),
        ("rooms/*.md merge=evil\n", 1, "merge=evil"),
        ("* ident\n", 1, "ident"),
        ("* text eol=lf\n", 1, "text"),
        ("* -text\n*.txt eol=crlf\n", 2, "eol=crlf"),
        ("* working-tree-encoding=UTF-16\n", 1, "working-tree-encoding=UTF-16"),
        ("[attr]nice filter=evil\n", 1, "[attr]nice"),
        ("*\tcrlf\n", 1, "crlf"),
    ])
    func attributesThatRunACommandOrChangeBytesAreNamed(text: String, line: Int, attribute: String) {
        #expect(IncomingPath.attributesProblem(in: Array(text.utf8)) == .attributes(line: line, attribute: attribute))
    }

    @Test func vaultsOwnAttributesAndHarmlessOnesPass() {
        let own = (["* -text", "*.md diff"] + Self.mergeDriverLines).joined(separator: "\n") + "\n"
        #expect(IncomingPath.attributesProblem(in: Array(own.utf8)) == nil)
        let harmless = "*.png binary\n*.pdf -diff\nattachments/** -delta !eol\n*.md linguist-documentation whitespace=-trailing\n"
        #expect(IncomingPath.attributesProblem(in: Array(harmless.utf8)) == nil)
    }

    /// The lines vault writes for its merge driver (VaultGit's `MergeDriver.attributes(format: 3)`).
    static let mergeDriverLines = [
        "rooms/**/*.md merge=vault", "volumes/**/*.md merge=vault", "diary/**/*.md merge=vault", "vault.yml merge=vault",
    ]
}
