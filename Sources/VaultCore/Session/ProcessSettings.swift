#if canImport(Glibc)
import Glibc
#endif

/// What a front end read from its process for the libraries, which never read the process
/// themselves: the front end builds one value as it starts (`ProcessSettings(environment:)`
/// from its environment), hands it to `VaultSession`, and installs its process-wide part
/// (`ProcessHooks.install`). A library given none works with `standard`: no environment, the
/// documented defaults.
///
///     let settings = ProcessSettings(environment: ProcessInfo.processInfo.environment,
///                                    watcherCommand: [executable, "search-watcher"])
///     ProcessHooks.install(settings, die: { kill(getpid(), SIGKILL); _exit(137) }, exit: { _exit($0) })
///     let session = try VaultSession(root: root, access: .change, settings: settings)
public struct ProcessSettings: Sendable {
    /// The environment the front end runs in: what the programs vault starts (git, ssh, an
    /// editor) inherit, and where the readers that need one find a default (`HOME` for
    /// `~/.config/io.datasette.llm`, `OPENAI_API_KEY` for a provider).
    public var environment: [String: String]
    /// How long to wait for another process's lock on the vault, in seconds
    /// (`VAULT_LOCK_TIMEOUT`, default 30).
    public var lockTimeout: Double
    /// This machine's name in commit trailers and conflict copies (`VAULT_MACHINE`); nil: git
    /// config `vault.machine`, else the host name.
    public var machineName: String?
    /// The folder of caches (`$XDG_CACHE_HOME`, else `~/.cache`): the search index lives in
    /// its `vault/search/`.
    public var cacheHome: String
    /// The command that starts the search index's watcher (`vault search-watcher`), nil when
    /// there is none (`VAULT_NO_WATCH`): then every file's stamp is checked instead.
    public var watcherCommand: [String]?
    /// `VAULT_TRACE=1`: the steps' timings on standard error (`Trace`).
    public var trace: Bool
    /// Tests only: the crash point the process dies at (`VAULT_CRASH_AT`, `CrashPoint`).
    public var crashPoint: String?
    /// Tests only: room volumes' sizes (`VAULT_TEST_VOLUME_SIZES=ROLLOVER,KEPT,VOLUME`).
    public var volumeSizes: String?

    /// The settings `environment` gives (`environment` is the front end's; nothing else is read).
    public init(environment: [String: String], watcherCommand: [String]? = nil) {
        self.environment = environment
        lockTimeout = environment["VAULT_LOCK_TIMEOUT"].flatMap(Double.init).flatMap { $0 >= 0 ? $0 : nil } ?? 30
        machineName = environment["VAULT_MACHINE"].flatMap { $0.isEmpty ? nil : $0 }
        cacheHome = ProcessSettings.cacheFolder(environment) ?? ProcessSettings.accountHome() + "/.cache"
        self.watcherCommand = (environment["VAULT_NO_WATCH"] ?? "").isEmpty ? watcherCommand : nil
        trace = environment["VAULT_TRACE"] == "1"
        crashPoint = environment["VAULT_CRASH_AT"].flatMap { $0.isEmpty ? nil : $0 }
        volumeSizes = environment["VAULT_TEST_VOLUME_SIZES"]
    }

    /// No environment: the documented defaults, no watcher, no hooks.
    public static let standard = ProcessSettings(environment: [:])

    /// The cache folder `environment` names: `$XDG_CACHE_HOME` when absolute (the XDG
    /// specification ignores a relative one), else `$HOME/.cache` when `HOME` is absolute; nil
    /// when it names none (the search index then uses the account's home, `cacheHome`; the
    /// listing cache keeps nothing).
    static func cacheFolder(_ environment: [String: String]) -> String? {
        if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") { return cache }
        guard let home = environment["HOME"], home.hasPrefix("/") else { return nil }
        return home + "/.cache"
    }

    /// The account's home folder (`getpwuid`), for a process whose environment names none.
    static func accountHome() -> String {
        guard let entry = getpwuid(getuid()), let dir = entry.pointee.pw_dir else { return "" }
        return String(cString: dir)
    }
}

/// The process-wide part of `ProcessSettings`, installed by the front end once, before any
/// other call: tracing (`Trace`), the tests' crash points (`CrashPoint`) and volume sizes
/// (`RoomVolumes`), and the secrets never printed (`Secrets`). Until it is installed, none is
/// on and nothing is hidden but what `Secrets.register` is given.
package enum ProcessHooks {
    nonisolated(unsafe) static var settings = ProcessSettings.standard
    nonisolated(unsafe) static var die: @Sendable () -> Never = { abort() }
    nonisolated(unsafe) static var exit: @Sendable (Int32) -> Never = { _ in abort() }

    /// Installs `settings`' hooks; `die` ends the process at a crash point as a kill would,
    /// `exit` at once with a status, running nothing (the `tail-write` point, half a write
    /// done): the front end's, so a library never ends the process itself.
    package static func install(
        _ settings: ProcessSettings, die: @escaping @Sendable () -> Never,
        exit: @escaping @Sendable (Int32) -> Never
    ) {
        self.settings = settings
        self.die = die
        self.exit = exit
        Trace.enabled = settings.trace
        for name in ["OPENAI_API_KEY", "VAULT_GIT_TOKEN"] {
            if let secret = settings.environment[name] { Secrets.register(secret) }
        }
    }
}
