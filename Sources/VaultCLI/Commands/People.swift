import ArgumentParser
import Foundation
import VaultCore
import VaultKit

extension VaultCommand {
    struct People: VaultRunnable {
        static let configuration = CommandConfiguration(
            commandName: "people",
            abstract: "List the people of a shared vault (people: in vault.yml), each with the last message they wrote.",
            discussion: """
                You are marked (you): `me:` in ~/.config/vault/config.yml, else git's user.name. A room is \
                shared with `vault room new TITLE --with NAME`, `vault room join ROOM`, and written in with \
                `vault say ROOM MESSAGE`.

                With --allowed-signers, prints the SSH keys vault.yml lists with its people as git's \
                allowed-signers file, so `git log --show-signature` checks commits by the keys vault \
                checks them by: `vault people --allowed-signers > ~/.config/vault/allowed-signers` and \
                `git config gpg.ssh.allowedSignersFile ~/.config/vault/allowed-signers`.
                """)

        @OptionGroup var location: VaultLocation
        @OptionGroup var reading: ReadingOptions
        @Flag(help: "Print JSON.") var json = false
        @Flag(help: "Print the people's SSH keys (key: in vault.yml) as git's allowed-signers file.")
        var allowedSigners = false

        func execute() throws {
            let vault = try location.open()
            if allowedSigners {
                return Terminal.document(Data(Workspace.allowedSigners(vault.config.people).utf8))
            }
            let (locale, zone) = try reading.resolve(for: vault)
            let people = vault.people(me: try vault.identity())
            if json { return try Terminal.json(people) }
            if people.isEmpty {
                print("vault.yml lists no people: add them under `people:` (`- Ada Kim <ada@example.com>`, one a line).")
                return
            }
            let now = Date()
            let width = min(40, people.map { Terminal.width(label($0)) }.max() ?? 0)
            for person in people {
                var line = Terminal.fit(label(person), width)
                if let last = person.last {
                    let when = Timestamp(frontMatter: last.time).map {
                        RelativeTime.string(for: $0.date, now: now, locale: locale, timeZone: zone)
                    } ?? last.time
                    line += "  \(when) · \(last.title): \(last.preview)"
                } else {
                    line += "  —"
                }
                Terminal.line(Terminal.clip(line, Terminal.columns))
            }
        }

        private func label(_ person: PersonSummary) -> String {
            person.name + (person.email.map { " <\($0)>" } ?? "") + (person.isMe ? " (you)" : "")
        }
    }
}
