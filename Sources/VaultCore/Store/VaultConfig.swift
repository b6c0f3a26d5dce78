import Foundation
import Yams

/// `vault.yml`: the settings every machine that syncs the vault shares (FORMAT.md, "Configuration").
///
/// It never holds secrets: providers name the environment variable that holds
/// a key, never the key.
public struct VaultConfig: Sendable {
    /// Locale of the dates the tool writes, as an ICU identifier (`ko_KR`).
    public var locale: String
    /// Zone of new timestamps and of their display dates.
    public var timeZone: TimeZone
    public var provider: String
    public var model: String
    /// Every value, as written (unknown keys included).
    public var values: [String: FrontMatterValue]
    /// `providers:` — name → settings (`base_url`, `model`, `api_key_env`), values as written.
    public var providers: [String: [String: String]]
    /// `limits:` — the caps it names on what a sync, a clone or an import takes in: each
    /// lowers this machine's cap, never raises it (`IncomingLimits.lowered(by:)`).
    public var limits = IncomingLimits.Setting()
    /// `people:` — the people of a vault several people share (`Person`), in the order written.
    public var people: [Person] = []
    /// `format:` — the version of the vault's layout (FORMAT.md): 1, rooms made in `rooms/`; 2,
    /// rooms made in `rooms/<yyyy>/` (`vault migrate`); 3, as 2, and a long room's older messages
    /// kept in volumes (`RoomVolumes`). Every one is read alike.
    public var format = 1

    /// The newest format this build of vault knows: a vault of a later one is refused, not misread.
    public static let newestFormat = 3

    public static let fileName = VaultPath.config

    /// Reads `vault.yml`; `path` is the name shown in messages.
    public init(parsing bytes: [UInt8], path: String = VaultPath.config) throws(VaultError) {
        var problems: [FormatProblem] = []
        let text: String
        if let s = String(validating: bytes, as: UTF8.self) {
            text = s
        } else {
            throw VaultError.malformed([FormatProblem(path: path, line: 1, kind: .invalidUTF8)])
        }
        var values: [String: FrontMatterValue] = [:]
        var pairs: [(key: String, value: Node)] = []
        do {
            pairs = try YAMLReader.pairs(text)
            for (key, node) in pairs { values[key] = YAMLReader.value(node) }
        } catch let failure as YAMLReader.Failure {
            switch failure {
            case .notMapping:
                problems.append(FormatProblem(path: path, line: 1, kind: .frontMatterNotMapping))
            case .syntax(let message, let line):
                problems.append(FormatProblem(path: path, line: line, kind: .invalidYAML(message)))
            }
        } catch {
            problems.append(FormatProblem(path: path, line: 1, kind: .invalidYAML("\(error)")))
        }
        func line(of key: String) -> Int {
            for (n, l) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where l.hasPrefix(key + ":") {
                return n + 1
            }
            return 1
        }
        func string(_ key: String) -> String? {
            if case .string(let s)? = values[key], !s.isEmpty { return s }
            return nil
        }
        var locale = "en_US"
        if let raw = string("locale") {
            if let id = LocaleSetting.normalize(raw), LocaleSetting.isKnown(id) {
                locale = id
            } else {
                problems.append(
                    FormatProblem(
                        path: path, line: line(of: "locale"),
                        kind: .invalidSetting(
                            key: "locale",
                            reason: "unknown locale \"\(raw)\" (write one like ko_KR, ja_JP, de_DE, en_US)")))
            }
        }
        var zone = TimeZone(identifier: "UTC")!
        if let raw = string("time_zone") {
            if let z = TimeZone(identifier: raw) {
                zone = z
            } else {
                problems.append(
                    FormatProblem(
                        path: path, line: line(of: "time_zone"),
                        kind: .invalidSetting(
                            key: "time_zone",
                            reason: "unknown time zone \"\(raw)\" (write an IANA name like Asia/Seoul)")))
            }
        }
        var format = 1
        if let raw = values["format"] {
            if case .string(let text) = raw, let n = Int(text), n >= 1 {
                if n > VaultConfig.newestFormat {
                    problems.append(
                        FormatProblem(
                            path: path, line: line(of: "format"),
                            kind: .invalidSetting(
                                key: "format",
                                reason: "this vault is in format \(n), and this vault program knows formats 1 to "
                                    + "\(VaultConfig.newestFormat): update vault (\(VaultVersion.current)) to open it")))
                }
                format = n
            } else {
                problems.append(
                    FormatProblem(
                        path: path, line: line(of: "format"),
                        kind: .invalidSetting(key: "format", reason: "write a whole number: 1 or 2")))
            }
        }
        var limits = IncomingLimits.Setting()
        if let list = pairs.first(where: { $0.key == "limits" })?.value.mapping {
            let written = list.compactMap { k, v in k.scalar.map { ($0.string, v.scalar?.string ?? "") } }
            let parsed = IncomingLimits.Setting.parse(written)
            limits = parsed.setting
            for (key, reason) in parsed.problems {
                problems.append(
                    FormatProblem(
                        path: path, line: line(of: "limits"), kind: .invalidSetting(key: "limits." + key, reason: reason)))
            }
        }
        var people: [Person] = []
        if let node = pairs.first(where: { $0.key == "people" })?.value {
            let wrong = FormatProblem(
                path: path, line: node.mark?.line ?? line(of: "people"),
                kind: .invalidSetting(
                    key: "people",
                    reason: "write one person a line: `- Ada Kim <ada@example.com>` (the email is optional),"
                        + " or `- name: Ada Kim` with `email:` below it"))
            if let list = node.sequence {
                for item in list {
                    var person = item.scalar.flatMap { Person(text: $0.string) } ?? item.mapping.flatMap { m in
                        Person(name: m["name"]?.scalar?.string, email: m["email"]?.scalar?.string)
                    }
                    // `key:` (one) or `keys:` (a list): SSH public keys, each one line.
                    if let m = item.mapping {
                        let written = (m["key"].map { [$0] } ?? []) + (m["keys"]?.sequence.map { Array($0) } ?? [])
                        let keys = written.compactMap { $0.scalar?.string.trimmingCharacters(in: .whitespaces) }
                        if keys.count != written.count || !keys.allSatisfy(Person.isPublicKey) {
                            problems.append(
                                FormatProblem(
                                    path: path, line: item.mark?.line ?? wrong.line,
                                    kind: .invalidSetting(
                                        key: "people",
                                        reason: "a person's `key:` is one SSH public key line, as in"
                                            + " ~/.ssh/id_ed25519.pub (`ssh-ed25519 AAAA… comment`); `keys:` a list of them")))
                            continue
                        }
                        person?.keys = keys
                    }
                    guard let person else {
                        problems.append(
                            FormatProblem(path: path, line: item.mark?.line ?? wrong.line, kind: wrong.kind))
                        continue
                    }
                    if !people.contains(where: { $0.key == person.key }) { people.append(person) }
                }
            } else if node.scalar?.string.isEmpty != true {
                problems.append(wrong)
            }
        }
        if !problems.isEmpty { throw VaultError.malformed(problems) }
        self.people = people
        self.format = format
        self.limits = limits
        self.locale = locale
        self.timeZone = zone
        self.provider = string("provider") ?? "offline"
        self.model = string("model") ?? "echo"
        self.values = values
        var table: [String: [String: String]] = [:]
        if let list = pairs.first(where: { $0.key == "providers" })?.value.mapping {
            for (k, v) in list {
                guard let name = k.scalar?.string, let settings = v.mapping else { continue }
                var entry: [String: String] = [:]
                for (sk, sv) in settings {
                    if let key = sk.scalar?.string, let value = sv.scalar?.string { entry[key] = value }
                }
                table[name] = entry
            }
        }
        self.providers = table
    }

    /// The text of a new `vault.yml`.
    public static func initialText(locale: String, timeZone: TimeZone) -> String {
        """
        # vault configuration, shared by every machine that syncs this vault.
        # Never put secrets here: API keys are read from environment variables.
        format: 1
        # Locale of the dates written in headings, and zone of new timestamps.
        # Fixed here so every machine writes the same headings.
        locale: \(locale)
        time_zone: \(timeZone.identifier)
        # Provider and model used when a room names none. Without a provider here,
        # OPENAI_BASE_URL / OPENAI_API_KEY in the environment select an OpenAI-compatible
        # server; without those, the built-in offline provider answers (no network).
        # provider: ollama
        # model: llama3.1:8b
        # providers:
        #   ollama:
        #     base_url: http://localhost:11434/v1
        #   openai:
        #     base_url: https://api.openai.com/v1
        #     api_key_env: OPENAI_API_KEY   # the name of the variable, never the key

        """
    }
}
