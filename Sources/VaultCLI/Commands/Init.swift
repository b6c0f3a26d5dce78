import ArgumentParser
import Foundation
import VaultCore
import VaultKit

extension VaultCommand {
    struct Init: VaultRunnable {
        static let configuration = CommandConfiguration(
            commandName: "init",
            abstract: "Make a folder a vault (vault.yml, rooms/, diary/, attachments/).")

        @Argument(help: "The folder (created if missing); default: the current folder.")
        var directory: String = "."

        @Option(help: ArgumentHelp("Locale of written dates; default: from LC_ALL, LC_TIME or LANG.", valueName: "ID"))
        var locale: String?

        @Option(
            name: .customLong("time-zone"),
            help: ArgumentHelp("Zone of new timestamps; default: this machine's.", valueName: "ZONE"))
        var timeZone: String?

        func execute() throws {
            let env = ProcessInfo.processInfo.environment
            let root = Vault.absolute(directory, from: FileManager.default.currentDirectoryPath)
            var localeID = LocaleSetting.fromEnvironment(env) ?? "en_US"
            if !LocaleSetting.isKnown(localeID) { localeID = "en_US" }
            if let raw = locale {
                guard let id = LocaleSetting.normalize(raw), LocaleSetting.isKnown(id) else {
                    throw UsageError.unknownLocale(raw)
                }
                localeID = id
            }
            var zone = TimeZone.current
            if let raw = timeZone {
                guard let z = TimeZone(identifier: raw) else {
                    throw UsageError.unknownTimeZone(raw, example: "Asia/Seoul")
                }
                zone = z
            }
            let made = try VaultSession.initialize(at: root, locale: localeID, timeZone: zone, settings: VaultCommand.settings)
            if let outer = made.outerRepository {
                Terminal.note("\(root) is inside the git repository \(outer); the vault gets a repository of its own")
            }
            if let warning = made.authorWarning { Terminal.warning(warning) }
            let vault = made.vault
            guard made.madeVault else {
                print("Gave the vault in \(vault.root) its own git repository; its files are in the first commit.")
                return
            }
            print(
                "Made a vault in \(vault.root) (dates in \(vault.config.locale), \(vault.config.timeZone.identifier)),"
                    + " with its own git repository.")
        }
    }
}
