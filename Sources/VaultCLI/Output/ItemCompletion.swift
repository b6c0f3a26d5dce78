import ArgumentParser
import Foundation
import VaultCore

/// Shell completion of the names of rooms and diary entries (`vault chat 부<TAB>`), from the vault
/// the command would find (`--vault DIR` on the line, else `VAULT_DIR`, else the folders above).
///
/// The shells' completion scripts (`vault --generate-completion-script bash`) call `vault` with
/// the words typed so far; these closures answer with `Vault.typedNames`: room slugs, and diary
/// dates and file names. They never fail loudly: no vault, or one that cannot be read, completes
/// nothing.
extension CompletionKind {
    /// Room slugs.
    static var rooms: CompletionKind {
        .custom { arguments, _, prefix in ItemCompletion.names(arguments, prefix: prefix, rooms: true, diary: false) }
    }

    /// Room slugs, diary dates and diary file names.
    static var items: CompletionKind {
        .custom { arguments, _, prefix in ItemCompletion.names(arguments, prefix: prefix, rooms: true, diary: true) }
    }

    /// Diary dates and file names.
    static var diaryEntries: CompletionKind {
        .custom { arguments, _, prefix in ItemCompletion.names(arguments, prefix: prefix, rooms: false, diary: true) }
    }
}

enum ItemCompletion {
    /// The names starting with `prefix` (compared in NFC) in the vault `arguments` point at.
    static func names(_ arguments: [String], prefix: String, rooms: Bool, diary: Bool) -> [String] {
        var explicit: String?
        for (i, argument) in arguments.enumerated() {
            if argument == "--vault", i + 1 < arguments.count { explicit = arguments[i + 1] }
            if argument.hasPrefix("--vault=") { explicit = String(argument.dropFirst("--vault=".count)) }
        }
        guard
            let root = try? Vault.locate(
                explicit: explicit, environment: ProcessInfo.processInfo.environment,
                workingDirectory: FileManager.default.currentDirectoryPath),
            let vault = try? Vault(root: root)
        else { return [] }
        let typed = prefix.precomposedStringWithCanonicalMapping
        return vault.typedNames(rooms: rooms, diary: diary).filter {
            $0.precomposedStringWithCanonicalMapping.hasPrefix(typed)
        }
    }
}
