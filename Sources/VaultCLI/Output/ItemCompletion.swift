import ArgumentParser
import Foundation
import VaultCore
import VaultKit

/// Shell completion of the names of rooms and diary entries (`vault chat 부<TAB>`), from the vault
/// the command would find (`--vault DIR` on the line, else `VAULT_DIR`, else the folders above).
///
/// The shells' completion scripts (`vault --generate-completion-script bash`) call `vault` with
/// the words typed so far; these closures answer with `Vault.typedNames`: room slugs and titles,
/// and diary dates and file names. They never fail loudly: no vault, or one that cannot be read,
/// completes nothing.
extension CompletionKind {
    /// Room slugs and titles.
    static var rooms: CompletionKind {
        .custom { arguments, _, prefix in ItemCompletion.names(arguments, prefix: prefix, rooms: true, diary: false) }
    }

    /// Room slugs and titles, diary dates and diary file names.
    static var items: CompletionKind {
        .custom { arguments, _, prefix in ItemCompletion.names(arguments, prefix: prefix, rooms: true, diary: true) }
    }

    /// Diary dates and file names.
    static var diaryEntries: CompletionKind {
        .custom { arguments, _, prefix in ItemCompletion.names(arguments, prefix: prefix, rooms: false, diary: true) }
    }
}

/// The names offered, in the form each shell's script takes them.
///
/// The word being completed reaches vault as typed, quotes and backslashes included
/// (`부산\ 여`, `"부산 여`): it is unquoted before it is compared (in NFC, so a name typed
/// decomposed, as a Mac sends Hangul, matches too; the names are then given decomposed, as typed,
/// for the shell's own comparison with the word). Each shell then needs its own care:
/// - bash's script passes the names through `compgen -W`, which expands each one (`$`, quotes,
///   globs): shell characters are escaped with a backslash, which that expansion removes, and
///   `complete -o filenames` quotes the name as it goes onto the line (`부산\ 여행`).
/// - zsh's `_describe` reads `NAME:DESCRIPTION`: a colon (and a backslash) in a name is escaped.
/// - fish takes each line as it is, and quotes it on the line itself.
enum ItemCompletion {
    /// The names starting with `prefix` (compared in NFC) in the vault `arguments` point at.
    static func names(
        _ arguments: [String], prefix: String, rooms: Bool, diary: Bool,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> [String] {
        var explicit: String?
        for (i, argument) in arguments.enumerated() {
            if argument == "--vault", i + 1 < arguments.count { explicit = unquoted(arguments[i + 1]) }
            if argument.hasPrefix("--vault=") { explicit = unquoted(String(argument.dropFirst("--vault=".count))) }
        }
        guard
            let root = try? Vault.locate(
                explicit: explicit, environment: environment,
                workingDirectory: FileManager.default.currentDirectoryPath),
            let vault = (try? VaultSession(root: root, access: .readOnly, settings: VaultCommand.settings))?.vault
        else { return [] }
        let word = unquoted(prefix)
        let typed = word.precomposedStringWithCanonicalMapping
        let decomposed = word != typed
        let shell = environment["SAP_SHELL"]
        return vault.typedNames(rooms: rooms, diary: diary, titles: rooms)
            .filter { $0.precomposedStringWithCanonicalMapping.hasPrefix(typed) }
            .map { decomposed ? $0.decomposedStringWithCanonicalMapping : $0 }
            .map { escaped($0, for: shell) }
    }

    /// The word as the shell will pass it: backslashes, single and double quotes removed the way
    /// bash, zsh and fish remove them (an unfinished quote is the word being typed).
    static func unquoted(_ word: String) -> String {
        enum Quote { case none, single, double }
        var quote = Quote.none
        var out = ""
        var characters = word.makeIterator()
        while let c = characters.next() {
            switch (quote, c) {
            case (.none, "\\"): if let next = characters.next() { out.append(next) }
            case (.none, "'"): quote = .single
            case (.none, "\""): quote = .double
            case (.single, "'"): quote = .none
            case (.double, "\""): quote = .none
            case (.double, "\\"):
                guard let next = characters.next() else { break }
                if !"$`\"\\".contains(next) { out.append("\\") }
                out.append(next)
            default: out.append(c)
            }
        }
        return out
    }

    /// `name` as `shell`'s completion script needs it (see the type's comment).
    static func escaped(_ name: String, for shell: String?) -> String {
        switch shell {
        case "bash":
            var out = ""
            for scalar in name.unicodeScalars {
                let plain =
                    scalar.value >= 0x80 || scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                    || "-_./,@+=%^".unicodeScalars.contains(scalar)
                if !plain { out.append("\\") }
                out.unicodeScalars.append(scalar)
            }
            return out
        case "zsh":
            return name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: ":", with: "\\:")
        default:
            return name
        }
    }
}
