/// The rules a path from outside the vault (a remote's tree, a clone, a merge driver's `%P`)
/// must pass before vault writes a file there: git's `verify_path` and `fsck` rules, and the
/// vault's own layout.
///
/// A path is refused when any of its components is empty, `.` or `..`; holds a control
/// character or bytes that are not UTF-8; or names `.git` or `.vault` in any spelling a file
/// system may take for it (any case; with trailing dots or spaces or an NTFS stream, as
/// Windows reads it; with the code points HFS+ ignores; as the 8.3 short names `GIT~1` and
/// `VAULT~1`). Only regular files are taken, and only where a vault keeps them
/// (`isInVaultLayout`).
///
///     IncomingPath.problem(with: "rooms/../../.bashrc")   // .dotDot
///     IncomingPath.problem(with: "rooms/.GIT/hooks")      // .reserved(".git")
///     IncomingPath.problem(with: "rooms/부산.md")          // nil
public enum IncomingPath {
    /// Why a path is refused.
    public enum Problem: Sendable, Hashable, CustomStringConvertible {
        /// An empty component (`a//b`, a leading or trailing `/`).
        case empty
        /// A `.` or `..` component.
        case dotDot
        /// A control character (C0, DEL) in a name.
        case controlCharacter
        /// Bytes that are not UTF-8.
        case invalidUTF8
        /// A name a file system may take for `.git` or `.vault` (the name it stands for).
        case reserved(String)
        /// Outside the places a vault keeps files (`rooms/`, `diary/`, `volumes/`, `attachments/`, its
        /// top-level files).
        case outsideLayout
        /// A symbolic link (mode 120000).
        case symbolicLink
        /// A submodule (gitlink, mode 160000).
        case submodule
        /// Any other mode than a regular file's (100644, 100755) or a folder's.
        case mode(UInt32)
        /// Two entries of one name in a folder (a malformed tree).
        case duplicate
        /// A `.gitattributes` whose line `line` names an attribute that makes git run a command
        /// (`filter=`, `diff=DRIVER`, a `merge=` driver not vault's) or change the bytes written
        /// (`ident`, `eol`, `text`, `working-tree-encoding`), or defines a macro (`[attr]`).
        case attributes(line: Int, attribute: String)

        public var description: String {
            switch self {
            case .empty: return "it has an empty name in it"
            case .dotDot: return "it has a `.` or `..` in it, which would lead out of its folder"
            case .controlCharacter: return "its name holds a control character"
            case .invalidUTF8: return "its name is not UTF-8"
            case .reserved(let name): return "a file system may take a part of it for \(name)"
            case .outsideLayout:
                return "it is outside rooms/, diary/, volumes/ and attachments/"
                    + " (`git config vault.acceptPaths PREFIX,…` accepts other places)"
            case .symbolicLink: return "it is a symbolic link, which vault never takes from outside"
            case .submodule: return "it is a submodule, which vault never takes from outside"
            case .mode(let mode): return "it has the mode \(String(mode, radix: 8)), not a regular file's"
            case .duplicate: return "its folder has two entries of that name"
            case .attributes(let line, let attribute):
                return "its line \(line) sets `\(attribute)`, which would make git run a command or change the bytes"
                    + " vault writes; from outside, vault takes only `merge=vault`, `-text`, `binary`, `diff` and `-diff`"
                    + " (and `merge`, `delta`, `whitespace`, `export-ignore`, `linguist-…`)"
            }
        }
    }

    /// Top-level files a vault keeps beside its folders.
    public static let topLevelFiles: Set<String> = [VaultPath.config, ".gitattributes", ".gitignore"]
    /// Folders whose whole contents belong to the vault.
    public static let folders: [String] = [VaultPath.rooms, VaultPath.diary, VaultPath.volumes, VaultPath.attachments]

    /// What is wrong with one component of a path (a tree entry's name), or nil.
    public static func problem(withName name: some Collection<UInt8>) -> Problem? {
        if name.isEmpty { return .empty }
        if name.elementsEqual([0x2E]) || name.elementsEqual([0x2E, 0x2E]) { return .dotDot }
        for byte in name where byte < 0x20 || byte == 0x7F || byte == 0x2F { return .controlCharacter }
        guard String(validating: Array(name), as: UTF8.self) != nil else { return .invalidUTF8 }
        if let reserved = reservedName(name) { return .reserved(reserved) }
        return nil
    }

    /// What is wrong with a `.gitattributes` that came in, or nil: the first attribute git would
    /// run a command for, or convert the bytes of a file by (`Problem.attributes`). The attributes
    /// vault writes itself (`* -text`, `*.md diff`, `… merge=vault`) and those that only change
    /// how git shows or packs a file pass.
    ///
    ///     IncomingPath.attributesProblem(in: Array("* filter=lfs\n".utf8))  // .attributes(line: 1, attribute: "filter=lfs")
    public static func attributesProblem(in bytes: [UInt8]) -> Problem? {
        let text = String(decoding: bytes, as: UTF8.self)
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
            guard let pattern = fields.first, !pattern.hasPrefix("#") else { continue }
            if pattern.hasPrefix("[attr]") { return .attributes(line: index + 1, attribute: String(pattern)) }
            for field in fields.dropFirst() where !attributeIsHarmless(field) {
                return .attributes(line: index + 1, attribute: String(field))
            }
        }
        return nil
    }

    private static func attributeIsHarmless(_ field: Substring) -> Bool {
        var name = field
        if name.hasPrefix("-") || name.hasPrefix("!") { return true }  // unset or unspecified: git's default
        var value: Substring?
        if let eq = name.firstIndex(of: "=") {
            value = name[name.index(after: eq)...]
            name = name[..<eq]
        }
        switch name {
        case "merge": return value == nil || ["vault", "text", "binary", "union"].contains(value!)
        case "diff", "binary", "delta", "export-ignore", "whitespace", "conflict-marker-size": return value == nil || name != "diff"
        default: return name.hasPrefix("linguist-")
        }
    }

    /// What is wrong with a `/`-separated path, or nil. The layout is not checked here
    /// (`isInVaultLayout`).
    public static func problem(with path: String) -> Problem? {
        for component in path.utf8.split(separator: 0x2F, omittingEmptySubsequences: false) {
            if let problem = problem(withName: component) { return problem }
        }
        return nil
    }

    /// Whether a file at `path` is in a place a vault keeps files: `rooms/`, `diary/`, `volumes/`,
    /// `attachments/` and `topLevelFiles`, and the places `accepted` names (prefixes, from this
    /// machine's own git config, never from what came in).
    public static func isInVaultLayout(_ path: String, accepted: [String] = []) -> Bool {
        if topLevelFiles.contains(path) { return true }
        for folder in folders where path.hasPrefix(folder + "/") { return true }
        for prefix in accepted where !prefix.isEmpty && path.hasPrefix(prefix) { return true }
        return false
    }

    /// The problem with a regular file's or a folder's git mode, or nil.
    public static func problem(withMode mode: UInt32) -> Problem? {
        switch mode {
        case 0o100644, 0o100755, 0o040000: return nil
        case 0o120000: return .symbolicLink
        case 0o160000: return .submodule
        default: return .mode(mode)
        }
    }

    /// `.git` or `.vault` when `name` may stand for one on some file system, else nil.
    static func reservedName(_ name: some Collection<UInt8>) -> String? {
        // Code points HFS+ ignores in names: U+200C–U+200F, U+202A–U+202E, U+206A–U+206F, U+FEFF.
        var folded: [UInt8] = []
        folded.reserveCapacity(name.count)
        let bytes = Array(name)
        var i = 0
        while i < bytes.count {
            if i + 2 < bytes.count {
                let (a, b, c) = (bytes[i], bytes[i + 1], bytes[i + 2])
                let ignorable =
                    (a == 0xE2 && b == 0x80 && ((0x8C...0x8F).contains(c) || (0xAA...0xAE).contains(c)))
                    || (a == 0xE2 && b == 0x81 && (0xAA...0xAF).contains(c)) || (a == 0xEF && b == 0xBB && c == 0xBF)
                if ignorable {
                    i += 3
                    continue
                }
            }
            let byte = bytes[i]
            folded.append(byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte)
            i += 1
        }
        // NTFS: a stream name after `:` and trailing dots and spaces are not part of the name.
        if let colon = folded.firstIndex(of: 0x3A) { folded.removeSubrange(colon...) }
        while let last = folded.last, last == 0x2E || last == 0x20 { folded.removeLast() }
        for (name, short) in [(".git", "git~1"), (".vault", "vault~1")] {
            if folded.elementsEqual(name.utf8) || folded.elementsEqual(short.utf8) { return name }
        }
        return nil
    }
}

/// The caps on what comes in from outside: this machine's, which a synced `vault.yml` may lower
/// and never raise.
///
/// Whoever shares a vault writes its `vault.yml` too, so the caps that stop a collaborator
/// cannot come from there: they are the defaults, replaced by the user configuration's
/// `limits:` (`UserConfig.limits`, never synced), replaced by this vault's own git config
/// (`git config vault.maxFileSize 256M`, never synced), the front end passing the first two
/// down (`setting(_:)`) and `GitHistory.incomingLimits(machine:vault:)` adding the third. Then
/// `vault.yml`'s `limits:` lowers them (`lowered(by:)`), for every machine of the vault:
///
///     # ~/.config/vault/config.yml (this machine)
///     limits:
///       max_file_size: 256M    # the largest file a sync or a clone takes (64M by default)
///       max_sync_size: 1G      # the most new bytes one sync takes in (256M)
///       max_line_length: 16M   # the longest line a file that comes in may hold (16M)
///
///     # vault.yml (every machine): at most 8M a file, whatever a machine allows
///     limits:
///       max_file_size: 8M
public struct IncomingLimits: Sendable, Hashable {
    /// The largest file a sync or a clone takes (64 MiB).
    public var maxFileSize = 64 << 20
    /// The most bytes of new files one sync takes in (256 MiB); a clone takes what the remote has.
    public var maxSyncSize = 256 << 20
    /// The longest line, in bytes, a file that comes in may hold (16 MiB): a room of one
    /// endless line is no conversation, and every reader would hold it whole.
    public var maxLineLength = 16 << 20
    /// The keys (`keys`) whose cap `vault.yml` lowered below this machine's: a refusal by one of
    /// them names `vault.yml`, the others name this machine's settings.
    public var loweredByVault: Set<String> = []

    public init() {}

    /// The keys of `limits:` (in `vault.yml` and in the user configuration).
    public static let keys = ["max_file_size", "max_sync_size", "max_line_length"]

    /// The git config key of each of `keys`, this vault's own on this machine.
    public static let gitConfigKeys = [
        "max_file_size": "vault.maxFileSize", "max_sync_size": "vault.maxSyncSize",
        "max_line_length": "vault.maxLineLength",
    ]

    /// `limits:` as a file writes it: only the caps it names, in bytes, by key (`keys`).
    public struct Setting: Sendable, Hashable {
        package var bytes: [String: Int]

        package init(_ bytes: [String: Int] = [:]) {
            self.bytes = bytes
        }

        /// Reads the `limits:` mapping `pairs` (key, text) of a file; each key not one of
        /// `keys` or value not a size is a reason (the key, why) in `problems`.
        package static func parse(_ pairs: [(key: String, value: String)]) -> (setting: Setting, problems: [(String, String)]) {
            var setting = Setting()
            var problems: [(String, String)] = []
            for (key, raw) in pairs {
                guard IncomingLimits.keys.contains(key) else {
                    problems.append((key, "unknown limit \"\(key)\" (known: \(IncomingLimits.keys.joined(separator: ", ")))"))
                    continue
                }
                guard let bytes = ByteCount.parse(raw) else {
                    problems.append((key, "\"\(raw)\" is not a size (write one like 64M, 512MiB, 2G)"))
                    continue
                }
                setting.bytes[key] = bytes
            }
            return (setting, problems)
        }
    }

    /// Why a cap stopped something: this machine's, or `vault.yml`'s lower one.
    public enum Origin: Sendable, Hashable {
        case machine
        case vaultConfig
    }

    /// The cap of `key` (one of `keys`).
    public subscript(key: String) -> Int {
        get {
            switch key {
            case "max_file_size": return maxFileSize
            case "max_sync_size": return maxSyncSize
            default: return maxLineLength
            }
        }
        set {
            switch key {
            case "max_file_size": maxFileSize = newValue
            case "max_sync_size": maxSyncSize = newValue
            case "max_line_length": maxLineLength = newValue
            default: break
            }
        }
    }

    /// These caps with each one `setting` names replaced: this machine's own settings (the user
    /// configuration, the vault's git config), which may raise a cap.
    public func setting(_ setting: Setting) -> IncomingLimits {
        var caps = self
        for (key, bytes) in setting.bytes { caps[key] = bytes }
        return caps
    }

    /// These caps, each one `shared` (`vault.yml`'s `limits:`) names lowered to it when it is
    /// lower; a higher one is not taken.
    public func lowered(by shared: Setting) -> IncomingLimits {
        var caps = self
        for (key, bytes) in shared.bytes where bytes < caps[key] {
            caps[key] = bytes
            caps.loweredByVault.insert(key)
        }
        return caps
    }

    /// Where a refusal by `key`'s cap came from.
    public func origin(of key: String) -> Origin {
        loweredByVault.contains(key) ? .vaultConfig : .machine
    }

    /// What a refusal by `key`'s cap says about raising it: the settings of this machine, or
    /// `vault.yml` when it lowered the cap.
    public static func raising(_ key: String, origin: Origin) -> String {
        switch origin {
        case .vaultConfig:
            return "vault.yml's `limits: \(key):` lowers the cap for every machine of the vault"
        case .machine:
            return "this machine's cap: `git config \(gitConfigKeys[key] ?? key) SIZE` in the vault, or"
                + " `limits: \(key): SIZE` in ~/.config/vault/config.yml, raises it; vault.yml cannot"
        }
    }
}
